/* SPDX-License-Identifier: MIT */
/* The CPU reference backend: plain C that reads like SPEC §3. Each function
 * implements the seam entry of the same name (src/backend.h). */
#ifndef GPUIMG_CPU_H
#define GPUIMG_CPU_H

#include "../arith.h"
#include "../backend.h"

static inline size_t gpuimg__plane_size(const gpuimg_planes *p)
{
    return (size_t)p->width * (size_t)p->height;
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
gpuimg_status gpuimg__cpu_histogram(gpuimg_backend *be, const gpuimg_planes *src,
                                    gpuimg_histogram *out);
gpuimg_status gpuimg__cpu_ssim(gpuimg_backend *be, const gpuimg_planes *a, const gpuimg_planes *b,
                               const uint8_t *ignore, double *sum);

/* Records "out of memory" in the backend and returns the status. */
gpuimg_status gpuimg__cpu_nomem(gpuimg_backend *be);

#endif
