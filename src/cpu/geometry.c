/* SPDX-License-Identifier: MIT */
/* Transpose, quarter-turn rotations (clockwise) and mirrors: pure index
 * permutations, so every backend must give identical bytes. */
#include "cpu.h"

gpuimg_status gpuimg__cpu_transpose(gpuimg_backend *be, const gpuimg_planes *src,
                                    gpuimg_planes *dst)
{
    return gpuimg__cpu_rotate(be, src, dst, -1);
}

/* quarter_turns_cw: 1, 2, 3; -1 is the transpose, which shares the loop. */
gpuimg_status gpuimg__cpu_rotate(gpuimg_backend *be, const gpuimg_planes *src, gpuimg_planes *dst,
                                 int quarter_turns_cw)
{
    (void)be;
    size_t w = (size_t)src->width, h = (size_t)src->height;
    for (int c = 0; c < src->channels; c++) {
        const uint8_t *in = src->plane[c];
        uint8_t *out = dst->plane[c];
        for (size_t y = 0; y < h; y++) {
            for (size_t x = 0; x < w; x++) {
                size_t o;
                switch (quarter_turns_cw) {
                case 1: o = x * h + (h - 1 - y); break; /* row x, column h-1-y */
                case 2: o = (h - 1 - y) * w + (w - 1 - x); break;
                case 3: o = (w - 1 - x) * h + y; break; /* row w-1-x, column y */
                default: o = x * h + y; break;          /* transpose */
                }
                out[o] = in[y * w + x];
            }
        }
    }
    return GPUIMG_OK;
}

gpuimg_status gpuimg__cpu_flip(gpuimg_backend *be, const gpuimg_planes *src, gpuimg_planes *dst,
                               int axis)
{
    (void)be;
    size_t w = (size_t)src->width, h = (size_t)src->height;
    for (int c = 0; c < src->channels; c++)
        for (size_t y = 0; y < h; y++)
            for (size_t x = 0; x < w; x++) {
                size_t o = axis == GPUIMG_FLIP_H ? y * w + (w - 1 - x) : (h - 1 - y) * w + x;
                dst->plane[c][o] = src->plane[c][y * w + x];
            }
    return GPUIMG_OK;
}
