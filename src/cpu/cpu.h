/* SPDX-License-Identifier: MIT */
/* The CPU backend: the reference for SPEC §3's arithmetic, on every core
 * (bands of rows, parallel.c) with vectorized row loops (rows.c). Each
 * gpuimg__cpu_ function implements the seam entry of the same name
 * (src/backend.h). */
#ifndef GPUIMG_CPU_H
#define GPUIMG_CPU_H

#include <string.h>

#include "core/arith.h"
#include "core/backend.h"

static inline size_t gpuimg__plane_size(const gpuimg_planes *p)
{
    return (size_t)p->width * (size_t)p->height;
}

/* The largest value at a depth: 255 or 65535. */
static inline uint32_t gpuimg__max_value(int depth)
{
    return depth == 16 ? 65535u : 255u;
}

/* SPEC §3's store, written so that GCC vectorizes it (no floorf call, no
 * branch: two compares and masks): for t = v + 0.5 at least 0, truncation
 * is floor, and below 0 (NaN included) it stores 0, at or past the top the
 * top. The same values as gpuimg__round_u8/u16 (arith.h), which the
 * goldens and the CUDA suite hold it to. */
static inline uint32_t gpuimg__round_top(float v, float top)
{
    float t = v + 0.5f;
    t = t > 0.0f ? t : 0.0f;
    t = t < top ? t : top;
    return (uint32_t)(int32_t)t;
}

/* n float results stored from value i on, rounded and clamped as SPEC §3
 * stores (0..255 or 0..65535), or kept as they are in float planes. */
void gpuimg__store_row(const float *v, size_t n, uint8_t *plane, int depth, size_t i);

/* Fills line[0 .. w + 2r) with row y's values at x = -r .. w + r - 1 as
 * floats, borders mapped (0 outside in constant mode), so that a row filter
 * reads it with no tests; any depth, float planes included. */
void gpuimg__row_to_float(const gpuimg_planes *p, int c, int y, int r, gpuimg_border border,
                          float *line);

/* out[x] = the sum over i < nrows, j < kw of wt[i kw + j] * rows[i][x + j],
 * added in that order (i, then j) from 0: the order of SPEC's reference
 * and the CUDA kernels, whichever vector width computes it. A row filter
 * is one row of kw taps, a column filter nrows rows of one. */
void gpuimg__rows_dot(const float *const *rows, int nrows, const float *wt, int kw, int n,
                      float *out);

/* Fills the r values on either side of a row of w four-byte values (float
 * or uint32_t) that starts at line + r: each border value is its mapped
 * interior value, or 0 outside in constant mode. */
void gpuimg__extend_row(void *line, int w, int r, gpuimg_border border);

/* A band of output rows [y0, y1): returns 0 when out of memory. */
typedef int (*gpuimg_cpu_band_fn)(void *arg, int y0, int y1);
/* Splits rows 0 .. rows over the backend's pool in bands of at least
 * min_rows (the caller works too) and waits for them all. */
gpuimg_status gpuimg__cpu_bands(gpuimg_backend *be, int rows, int min_rows, gpuimg_cpu_band_fn fn,
                                void *arg);
/* Threads an operation may use: the pool's workers and the caller. */
int gpuimg__cpu_threads(const gpuimg_backend *be);

/* The hot loops are compiled twice, for x86-64's baseline (SSE2) and for
 * AVX2, and the loader picks one for the machine (GCC's and clang's
 * target_clones, an ifunc). Without FMA and with the ISO C default of no
 * contraction (-std=c11), both clones round every product and sum alike:
 * the bytes do not depend on the machine either. clang emits a clone's
 * resolver as a global symbol (NAME.resolver), so two such functions may
 * not share a name even when both are static (fuzz_load failed to link). */
#if defined(__x86_64__) && !defined(__SANITIZE_THREAD__)
#define GPUIMG_CPU_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define GPUIMG_CPU_CLONES
#endif
/* The clone this machine runs ("AVX2", "SSE2"), for `gpuimg info`. */
const char *gpuimg__cpu_vector_isa(void);

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
gpuimg_status gpuimg__cpu_colour_map(gpuimg_backend *be, const gpuimg_planes *src,
                                     gpuimg_planes *dst, const gpuimg_colour_map *map);
gpuimg_status gpuimg__cpu_map_lut(gpuimg_backend *be, const gpuimg_planes *src, gpuimg_planes *dst,
                                  const uint8_t *lut8, const uint16_t *lut16);
gpuimg_status gpuimg__cpu_resample(gpuimg_backend *be, const gpuimg_planes *src, gpuimg_planes *dst,
                                   const gpuimg_axis *ax, const gpuimg_axis *ay, int dx, int dy);
gpuimg_status gpuimg__cpu_copy_rect(gpuimg_backend *be, const gpuimg_planes *src,
                                    gpuimg_planes *dst, int sx, int sy, int dx, int dy, int w,
                                    int h);
gpuimg_status gpuimg__cpu_fill(gpuimg_backend *be, gpuimg_planes *dst, const uint16_t value[4]);
gpuimg_status gpuimg__cpu_unsharp(gpuimg_backend *be, const gpuimg_planes *src, gpuimg_planes *dst,
                                  const float *weights, int radius, float amount, float threshold);
gpuimg_status gpuimg__cpu_premultiply(gpuimg_backend *be, const gpuimg_planes *src,
                                      gpuimg_planes *dst);
gpuimg_status gpuimg__cpu_unpremultiply(gpuimg_backend *be, const gpuimg_planes *src,
                                        gpuimg_planes *dst);
gpuimg_status gpuimg__cpu_histogram(gpuimg_backend *be, const gpuimg_planes *src,
                                    gpuimg_histogram *out);
gpuimg_status gpuimg__cpu_ssim(gpuimg_backend *be, const gpuimg_planes *a, const gpuimg_planes *b,
                               const uint8_t *ignore, double *sum);
gpuimg_status gpuimg__cpu_flip(gpuimg_backend *be, const gpuimg_planes *a, const gpuimg_planes *b,
                               const gpuimg_flip_params *p, float *map);

/* Adds the counts of n values of a plane from value `first` on into
 * counts (256 or 65536 bins by depth). */
void gpuimg__cpu_count(const uint8_t *plane, int depth, size_t first, size_t n, uint64_t *counts);

/* Records "out of memory" in the backend and returns the status. */
gpuimg_status gpuimg__cpu_nomem(gpuimg_backend *be);

#endif
