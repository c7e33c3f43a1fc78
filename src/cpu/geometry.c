/* SPDX-License-Identifier: MIT */
/* Transpose, quarter-turn rotations (clockwise) and mirrors: pure index
 * permutations, so every backend must give identical bytes. */
#include "cpu.h"

/* Where input pixel (x, y) of a w x h plane lands in the output, row-major. */
typedef size_t (*place_fn)(size_t x, size_t y, size_t w, size_t h);

static size_t place_transpose(size_t x, size_t y, size_t w, size_t h)
{
    (void)w;
    return x * h + y; /* row x, column y */
}
static size_t place_rotate90(size_t x, size_t y, size_t w, size_t h)
{
    (void)w;
    return x * h + (h - 1 - y); /* row x, column h-1-y */
}
static size_t place_rotate180(size_t x, size_t y, size_t w, size_t h)
{
    return (h - 1 - y) * w + (w - 1 - x);
}
static size_t place_rotate270(size_t x, size_t y, size_t w, size_t h)
{
    (void)w;
    return (w - 1 - x) * h + y; /* row w-1-x, column y */
}
static size_t place_flip_h(size_t x, size_t y, size_t w, size_t h)
{
    (void)h;
    return y * w + (w - 1 - x);
}
static size_t place_flip_v(size_t x, size_t y, size_t w, size_t h)
{
    return (h - 1 - y) * w + x;
}

#define PERMUTE(T)                                                                                 \
    for (int c = 0; c < src->channels; c++) {                                                      \
        const T *in = (const T *)src->plane[c];                                                    \
        T *out = (T *)dst->plane[c];                                                               \
        for (size_t y = 0; y < h; y++)                                                             \
            for (size_t x = 0; x < w; x++)                                                         \
                out[place(x, y, w, h)] = in[y * w + x];                                            \
    }

static gpuimg_status permute(const gpuimg_planes *src, gpuimg_planes *dst, place_fn place)
{
    size_t w = (size_t)src->width, h = (size_t)src->height;
    if (src->depth == 16) {
        PERMUTE(uint16_t)
    } else {
        PERMUTE(uint8_t)
    }
    return GPUIMG_OK;
}

gpuimg_status gpuimg__cpu_move(gpuimg_backend *be, const gpuimg_planes *src, gpuimg_planes *dst,
                               gpuimg_move move)
{
    (void)be;
    static const place_fn places[] = {
        [GPUIMG_MOVE_TRANSPOSE] = place_transpose, [GPUIMG_MOVE_ROTATE90] = place_rotate90,
        [GPUIMG_MOVE_ROTATE180] = place_rotate180, [GPUIMG_MOVE_ROTATE270] = place_rotate270,
        [GPUIMG_MOVE_FLIP_H] = place_flip_h,       [GPUIMG_MOVE_FLIP_V] = place_flip_v};
    return permute(src, dst, places[move]);
}
