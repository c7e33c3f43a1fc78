/* SPDX-License-Identifier: MIT */
/* Rectangles of planes: crop's copy, and the canvas a padded resize lands
 * on. Memory-bound row copies; no bands (a crop is a fraction of a pass). */
#include "cpu.h"

gpuimg_status gpuimg__cpu_copy_rect(gpuimg_backend *be, const gpuimg_planes *src,
                                    gpuimg_planes *dst, int sx, int sy, int dx, int dy, int w,
                                    int h)
{
    (void)be;
    size_t vs = gpuimg__value_size(src->depth), row = (size_t)w * vs;
    for (int c = 0; c < src->channels; c++)
        for (int y = 0; y < h; y++)
            memcpy(dst->plane[c] + ((size_t)(dy + y) * dst->width + (size_t)dx) * vs,
                   src->plane[c] + ((size_t)(sy + y) * src->width + (size_t)sx) * vs, row);
    return GPUIMG_OK;
}

gpuimg_status gpuimg__cpu_fill(gpuimg_backend *be, gpuimg_planes *dst, const uint16_t value[4])
{
    (void)be;
    size_t n = gpuimg__plane_size(dst);
    for (int c = 0; c < dst->channels; c++) {
        if (dst->depth == 16) {
            uint16_t *p = (uint16_t *)dst->plane[c];
            for (size_t i = 0; i < n; i++)
                p[i] = value[c];
        } else {
            memset(dst->plane[c], value[c], n);
        }
    }
    return GPUIMG_OK;
}
