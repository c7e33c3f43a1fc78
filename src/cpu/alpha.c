/* SPDX-License-Identifier: MIT */
/* --alpha premultiplied (SPEC §2): colour weighted by alpha into float
 * planes before a filter, and divided by the filtered alpha after it, so
 * that transparent pixels lend no colour to their neighbours. */
#include "cpu.h"

gpuimg_status gpuimg__cpu_premultiply(gpuimg_backend *be, const gpuimg_planes *src,
                                      gpuimg_planes *dst)
{
    (void)be;
    size_t n = gpuimg__plane_size(src);
    int colours = src->channels - 1, depth = src->depth;
    const float top = (float)gpuimg__max_value(depth);
    const uint8_t *alpha = src->plane[colours];
    float *a_out = (float *)dst->plane[colours];
    for (size_t i = 0; i < n; i++)
        a_out[i] = (float)gpuimg__get(alpha, depth, i);
    for (int c = 0; c < colours; c++) {
        float *out = (float *)dst->plane[c];
        for (size_t i = 0; i < n; i++) /* a = A / M, then c * a: two roundings, as on the GPU */
            out[i] = (float)gpuimg__get(src->plane[c], depth, i) * (a_out[i] / top);
    }
    return GPUIMG_OK;
}

gpuimg_status gpuimg__cpu_unpremultiply(gpuimg_backend *be, const gpuimg_planes *src,
                                        gpuimg_planes *dst)
{
    (void)be;
    size_t n = gpuimg__plane_size(src);
    int colours = src->channels - 1, depth = dst->depth;
    const float top = (float)gpuimg__max_value(depth);
    const float *alpha = (const float *)src->plane[colours];
    gpuimg__store_row(alpha, n, dst->plane[colours], depth, 0);
    for (int c = 0; c < colours; c++) {
        const float *in = (const float *)src->plane[c];
        for (size_t i = 0; i < n; i++) {
            float a = alpha[i] / top, v = a > 0.0f ? in[i] / a : 0.0f;
            if (depth == 16)
                ((uint16_t *)dst->plane[c])[i] = gpuimg__round_u16(v);
            else
                dst->plane[c][i] = gpuimg__round_u8(v);
        }
    }
    return GPUIMG_OK;
}
