/* SPDX-License-Identifier: MIT */
/* Transpose, quarter-turn rotations (clockwise) and mirrors: pure index
 * permutations, so every backend must give identical bytes.
 *
 * Each is out[oy][ox] = in[base + ox * sx + oy * sy] for strides of the
 * move. A mirror reads a row forward or backward (sx = +-1): a loop GCC
 * vectorizes. A transposing move (sx = +-W) reads down a column: it goes
 * in 32 x 32 tiles, so that the 32 input rows a tile reads stay in cache
 * while its output rows are written whole. Bands of output rows over the
 * pool. */
#include <stddef.h>

#include "cpu.h"

#define TILE 32

typedef struct move_job {
    const gpuimg_planes *src;
    gpuimg_planes *dst;
    ptrdiff_t base, sx, sy;
} move_job;

#define MOVE_ROWS(T)                                                                               \
    GPUIMG_CPU_CLONES static void move_rows_##T(const T *restrict in, T *restrict out, int ow,     \
                                                int y0, int y1, ptrdiff_t sx, ptrdiff_t sy)        \
    {                                                                                              \
        if (sx == 1 || sx == -1) {                                                                 \
            for (int oy = y0; oy < y1; oy++) {                                                     \
                const T *restrict r = in + oy * sy;                                                \
                T *restrict o = out + (size_t)oy * (size_t)ow;                                     \
                if (sx == 1)                                                                       \
                    for (int ox = 0; ox < ow; ox++)                                                \
                        o[ox] = r[ox];                                                             \
                else                                                                               \
                    for (int ox = 0; ox < ow; ox++)                                                \
                        o[ox] = r[-ox];                                                            \
            }                                                                                      \
            return;                                                                                \
        }                                                                                          \
        for (int ty = y0; ty < y1; ty += TILE) {                                                   \
            int ey = ty + TILE < y1 ? ty + TILE : y1;                                              \
            for (int tx = 0; tx < ow; tx += TILE) {                                                \
                int ex = tx + TILE < ow ? tx + TILE : ow;                                          \
                for (int oy = ty; oy < ey; oy++) {                                                 \
                    T *restrict o = out + (size_t)oy * (size_t)ow;                                 \
                    const T *r = in + oy * sy;                                                     \
                    for (int ox = tx; ox < ex; ox++)                                               \
                        o[ox] = r[ox * sx];                                                        \
                }                                                                                  \
            }                                                                                      \
        }                                                                                          \
    }
MOVE_ROWS(uint8_t)
MOVE_ROWS(uint16_t)

static int move_band(void *arg, int y0, int y1)
{
    const move_job *j = arg;
    int ow = j->dst->width;
    for (int c = 0; c < j->src->channels; c++) {
        if (j->src->depth == 16)
            move_rows_uint16_t((const uint16_t *)j->src->plane[c] + j->base,
                               (uint16_t *)j->dst->plane[c], ow, y0, y1, j->sx, j->sy);
        else
            move_rows_uint8_t(j->src->plane[c] + j->base, j->dst->plane[c], ow, y0, y1, j->sx,
                              j->sy);
    }
    return 1;
}

gpuimg_status gpuimg__cpu_move(gpuimg_backend *be, const gpuimg_planes *src, gpuimg_planes *dst,
                               gpuimg_move move)
{
    ptrdiff_t w = src->width, h = src->height;
    move_job j = {src, dst, 0, 0, 0};
    switch (move) {
    case GPUIMG_MOVE_TRANSPOSE: j.sx = w, j.sy = 1; break;
    case GPUIMG_MOVE_ROTATE90: j.base = (h - 1) * w, j.sx = -w, j.sy = 1; break;
    case GPUIMG_MOVE_ROTATE180: j.base = (h - 1) * w + w - 1, j.sx = -1, j.sy = -w; break;
    case GPUIMG_MOVE_ROTATE270: j.base = w - 1, j.sx = w, j.sy = -1; break;
    case GPUIMG_MOVE_FLIP_H: j.base = w - 1, j.sx = -1, j.sy = w; break;
    case GPUIMG_MOVE_FLIP_V: j.base = (h - 1) * w, j.sx = 1, j.sy = -w; break;
    }
    return gpuimg__cpu_bands(be, dst->height, TILE, move_band, &j);
}
