/* SPDX-License-Identifier: MIT */
/* The CPU reference backend: plain C that reads like SPEC §3. Each function
 * implements the seam entry of the same name (src/backend.h). */
#ifndef GPUIMG_CPU_H
#define GPUIMG_CPU_H

#include <string.h>

#include "../arith.h"
#include "../backend.h"

static inline size_t gpuimg__plane_size(const gpuimg_planes *p)
{
    return (size_t)p->width * (size_t)p->height;
}

/* The largest value at a depth: 255 or 65535. */
static inline uint32_t gpuimg__max_value(int depth)
{
    return depth == 16 ? 65535u : 255u;
}

/* Value i of a plane of either depth. For per-row and per-border work: the
 * hot loops below branch on the depth once, outside them. */
static inline uint32_t gpuimg__get(const uint8_t *plane, int depth, size_t i)
{
    return depth == 16 ? ((const uint16_t *)plane)[i] : plane[i];
}
static inline void gpuimg__put(uint8_t *plane, int depth, size_t i, uint32_t v)
{
    if (depth == 16)
        ((uint16_t *)plane)[i] = (uint16_t)v;
    else
        plane[i] = (uint8_t)v;
}

/* Value i as a filter reads it: any depth, float planes included. */
static inline float gpuimg__getf(const uint8_t *plane, int depth, size_t i)
{
    return depth == GPUIMG_DEPTH_FLOAT ? ((const float *)plane)[i]
                                       : (float)gpuimg__get(plane, depth, i);
}

/* n float results stored from value i on, rounded and clamped as SPEC §3
 * stores (0..255 or 0..65535), or kept as they are in float planes. */
static inline void gpuimg__store_row(const float *v, size_t n, uint8_t *plane, int depth, size_t i)
{
    if (depth == GPUIMG_DEPTH_FLOAT) {
        memcpy((float *)plane + i, v, n * sizeof *v);
    } else if (depth == 16) {
        uint16_t *out = (uint16_t *)plane + i;
        for (size_t k = 0; k < n; k++)
            out[k] = gpuimg__round_u16(v[k]);
    } else {
        uint8_t *out = plane + i;
        for (size_t k = 0; k < n; k++)
            out[k] = gpuimg__round_u8(v[k]);
    }
}

gpuimg_status gpuimg__cpu_upload(gpuimg_backend *be, const gpuimg_image *src, gpuimg_planes *dst);
gpuimg_status gpuimg__cpu_download(gpuimg_backend *be, const gpuimg_planes *src, gpuimg_image *dst);
gpuimg_status gpuimg__cpu_blur(gpuimg_backend *be, const gpuimg_planes *src, gpuimg_planes *dst,
                               const float *weights, int radius, gpuimg_border border);
gpuimg_status gpuimg__cpu_box(gpuimg_backend *be, const gpuimg_planes *src, gpuimg_planes *dst,
                              int radius, gpuimg_border border);
gpuimg_status gpuimg__cpu_convolve(gpuimg_backend *be, const gpuimg_planes *src, gpuimg_planes *dst,
                                   const gpuimg_conv *k, gpuimg_border border);
gpuimg_status gpuimg__cpu_sobel(gpuimg_backend *be, const gpuimg_planes *src, gpuimg_planes *dst,
                                gpuimg_border border);
gpuimg_status gpuimg__cpu_move(gpuimg_backend *be, const gpuimg_planes *src, gpuimg_planes *dst,
                               gpuimg_move move);
gpuimg_status gpuimg__cpu_grayscale(gpuimg_backend *be, const gpuimg_planes *src,
                                    gpuimg_planes *dst);
gpuimg_status gpuimg__cpu_invert(gpuimg_backend *be, const gpuimg_planes *src, gpuimg_planes *dst);
gpuimg_status gpuimg__cpu_equalize(gpuimg_backend *be, const gpuimg_planes *src,
                                   gpuimg_planes *dst);
gpuimg_status gpuimg__cpu_equalize_luma(gpuimg_backend *be, const gpuimg_planes *src,
                                        gpuimg_planes *dst);
gpuimg_status gpuimg__cpu_premultiply(gpuimg_backend *be, const gpuimg_planes *src,
                                      gpuimg_planes *dst);
gpuimg_status gpuimg__cpu_unpremultiply(gpuimg_backend *be, const gpuimg_planes *src,
                                        gpuimg_planes *dst);
gpuimg_status gpuimg__cpu_histogram(gpuimg_backend *be, const gpuimg_planes *src,
                                    gpuimg_histogram *out);
gpuimg_status gpuimg__cpu_ssim(gpuimg_backend *be, const gpuimg_planes *a, const gpuimg_planes *b,
                               const uint8_t *ignore, double *sum);

/* Records "out of memory" in the backend and returns the status. */
gpuimg_status gpuimg__cpu_nomem(gpuimg_backend *be);

#endif
