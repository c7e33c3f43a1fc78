/* SPDX-License-Identifier: MIT */
/* The CPU reference backend: plain C that reads like SPEC §3. Each function
 * implements the seam entry of the same name (src/backend.h). */
#ifndef GPUIMG_CPU_H
#define GPUIMG_CPU_H

#include <math.h>

#include "../backend.h"

/* Maps an index outside [0, n) by the border mode, for any distance from
 * the image; -1 means "reads 0" (constant mode). */
static inline long gpuimg__border_index(long i, long n, gpuimg_border mode)
{
    if (i >= 0 && i < n)
        return i;
    long period, r;
    switch (mode) {
    case GPUIMG_BORDER_CONSTANT: return -1;
    case GPUIMG_BORDER_REPLICATE: return i < 0 ? 0 : n - 1;
    case GPUIMG_BORDER_WRAP: r = i % n; return r < 0 ? r + n : r;
    case GPUIMG_BORDER_REFLECT:
        period = 2 * n;
        r = i % period;
        if (r < 0)
            r += period;
        return r < n ? r : period - 1 - r;
    case GPUIMG_BORDER_REFLECT101:
    default:
        if (n == 1)
            return 0;
        period = 2 * (n - 1);
        r = i % period;
        if (r < 0)
            r += period;
        return r < n ? r : period - r;
    }
}

/* SPEC §3's store: clamp(floor(v + 0.5), 0, 255). */
static inline uint8_t gpuimg__round_u8(float v)
{
    float r = floorf(v + 0.5f);
    return !(r > 0.0f) ? 0 : r >= 255.0f ? 255 : (uint8_t)r; /* NaN -> 0, never a cast */
}

static inline size_t gpuimg__plane_size(const gpuimg_planes *p)
{
    return (size_t)p->width * (size_t)p->height;
}

/* Rec.601 luma in integers: floor(0.299 R + 0.587 G + 0.114 B + 0.5), ties up. */
static inline uint8_t gpuimg__luma(uint8_t r, uint8_t g, uint8_t b)
{
    return (uint8_t)((299u * r + 587u * g + 114u * b + 500u) / 1000u);
}

gpuimg_status gpuimg__cpu_upload(gpuimg_backend *be, const gpuimg_image *src, gpuimg_planes *dst);
gpuimg_status gpuimg__cpu_download(gpuimg_backend *be, const gpuimg_planes *src, gpuimg_image *dst);
gpuimg_status gpuimg__cpu_separable(gpuimg_backend *be, const gpuimg_planes *src,
                                    gpuimg_planes *dst, const float *weights, int radius,
                                    gpuimg_border border);
gpuimg_status gpuimg__cpu_box(gpuimg_backend *be, const gpuimg_planes *src, gpuimg_planes *dst,
                              int radius, gpuimg_border border);
gpuimg_status gpuimg__cpu_convolve(gpuimg_backend *be, const gpuimg_planes *src, gpuimg_planes *dst,
                                   const gpuimg_conv *k, gpuimg_border border);
gpuimg_status gpuimg__cpu_sobel(gpuimg_backend *be, const gpuimg_planes *src, gpuimg_planes *dst,
                                gpuimg_border border);
gpuimg_status gpuimg__cpu_transpose(gpuimg_backend *be, const gpuimg_planes *src,
                                    gpuimg_planes *dst);
gpuimg_status gpuimg__cpu_rotate(gpuimg_backend *be, const gpuimg_planes *src, gpuimg_planes *dst,
                                 int quarter_turns_cw);
gpuimg_status gpuimg__cpu_flip(gpuimg_backend *be, const gpuimg_planes *src, gpuimg_planes *dst,
                               int axis);
gpuimg_status gpuimg__cpu_grayscale(gpuimg_backend *be, const gpuimg_planes *src,
                                    gpuimg_planes *dst);
gpuimg_status gpuimg__cpu_invert(gpuimg_backend *be, const gpuimg_planes *src, gpuimg_planes *dst);
gpuimg_status gpuimg__cpu_equalize(gpuimg_backend *be, const gpuimg_planes *src,
                                   gpuimg_planes *dst);
gpuimg_status gpuimg__cpu_histogram(gpuimg_backend *be, const gpuimg_planes *src,
                                    gpuimg_histogram *out);
gpuimg_status gpuimg__cpu_stats(gpuimg_backend *be, const gpuimg_planes *src, gpuimg_stats *out);
gpuimg_status gpuimg__cpu_compare(gpuimg_backend *be, const gpuimg_planes *a,
                                  const gpuimg_planes *b, int fuzz, gpuimg_compare_result *out);

/* Records "out of memory" in the backend and returns the status. */
gpuimg_status gpuimg__cpu_nomem(gpuimg_backend *be);

#endif
