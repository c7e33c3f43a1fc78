/* SPDX-License-Identifier: MIT */
/* Resizing (SPEC §3), shared by resize, thumbnail and crop: the weights of
 * each axis computed once into a table (gpuimg_axis, backend.h) that every
 * backend reads, so that the CPU's rows and the device's tiles apply the
 * same numbers; and the geometry of a fit (the resized size, the part of it
 * kept, the canvas it lands on). */
#ifndef GPUIMG_OPS_RESAMPLE_H
#define GPUIMG_OPS_RESAMPLE_H

#include "core/backend.h"

#ifdef __cplusplus
extern "C" { /* bench/bench.cu makes tables */
#endif

typedef enum gpuimg__filter {
    GPUIMG__FILTER_LANCZOS3, /* R = 3, sinc(t) sinc(t/3) */
    GPUIMG__FILTER_CUBIC,    /* R = 2, Keys with a = -0.5 */
    GPUIMG__FILTER_LINEAR,   /* R = 1, 1 - |t| */
    GPUIMG__FILTER_AREA,     /* the footprint's exact area-weighted mean; up: linear */
    GPUIMG__FILTER_NEAREST,  /* one input sample, copied */
} gpuimg__filter;

typedef gpuimg_axis gpuimg__axis;

/* The table of n input samples to m output samples, or GPUIMG_ERR_NOMEM
 * (nothing to free then). n, m >= 1. */
gpuimg_status gpuimg__axis_make(int n, int m, gpuimg__filter filter, gpuimg__axis *out);
void gpuimg__axis_free(gpuimg__axis *a);
/* The rows [x0, x0 + count) of that table alone (a cover's kept part). */
gpuimg_status gpuimg__axis_range(int n, int m, int x0, int count, gpuimg__filter filter,
                                 gpuimg__axis *out);

typedef enum gpuimg__fit {
    GPUIMG__FIT_FILL,   /* exactly the box */
    GPUIMG__FIT_INSIDE, /* the largest size within it, the aspect kept */
    GPUIMG__FIT_COVER,  /* the smallest covering it, its centre kept */
    GPUIMG__FIT_PAD,    /* inside, centred on a canvas of the box */
} gpuimg__fit;

/* Where a w x h input goes: resized to rw x rh, of which the rectangle at
 * (kx, ky) of kw x kh is kept (all of it but for cover), placed at (px, py)
 * of an ow x oh output (the same size but for pad). */
typedef struct gpuimg__placement {
    int rw, rh;
    int kx, ky, kw, kh;
    int px, py, ow, oh;
} gpuimg__placement;

/* The placement of a w x h input in a box_w x box_h box. scale_cap: the
 * factor of inside and cover (and pad) is at most this (thumbnail without
 * --upsize: 1; else a large number). */
void gpuimg__place(int w, int h, int box_w, int box_h, gpuimg__fit fit, double scale_cap,
                   gpuimg__placement *out);

/* A placement's output refused when a side is past 65535 or it is over
 * --max-pixels (GPUIMG_ERR_TOO_LARGE, calling it op); sides past 65535 are
 * held at 2^30 by gpuimg__place, and a shape clamps them (min_side). */
gpuimg_status gpuimg__check_placement(gpuimg_ctx *ctx, const char *op, const gpuimg__placement *pl);
static inline int gpuimg__min_side(int v)
{
    return v < 65535 ? v : 65535;
}

/* SPEC's round of a positive size, at least 1; past 65535 only to be
 * refused (gpuimg__check_placement), so held at 2^30 (NaN gives 1). */
int gpuimg__round_side(double v);

/* "WxH" (each 1..65535) into *w, *h; "N" too when square_ok (N x N). */
int gpuimg__parse_size(const char *text, int square_ok, int *w, int *h);

/* Resamples src into the placement's kept rectangle of dst (at px, py)
 * through the backend, filter on both axes: the tables made here. */
gpuimg_status gpuimg__resample_placed(gpuimg_backend *be, const gpuimg_planes *src,
                                      gpuimg_planes *dst, const gpuimg__placement *pl,
                                      gpuimg__filter filter);

/* A resize of src into dst (the placement's output shape): fill with
 * background[] (pad), the kept rectangle resampled, colour weighted by
 * alpha when premultiplied and src has alpha (SPEC §3). */
gpuimg_status gpuimg__resize_to(gpuimg_backend *be, const gpuimg_planes *src, gpuimg_planes *dst,
                                const gpuimg__placement *pl, gpuimg__filter filter,
                                int premultiplied, const uint16_t background[4]);

#ifdef __cplusplus
}
#endif

#endif
