/* SPDX-License-Identifier: MIT */
/* The weights of one axis of a resize (SPEC §3, resample.c): computed once
 * per axis into a table that every backend reads, so that the CPU's rows and
 * the device's tiles apply the same numbers. The first piece of `resize`
 * and `thumbnail` (issue 25); no operation uses it yet. */
#ifndef GPUIMG_OPS_RESAMPLE_H
#define GPUIMG_OPS_RESAMPLE_H

#include "gpuimg.h"

typedef enum gpuimg__filter {
    GPUIMG__FILTER_LANCZOS3, /* R = 3, sinc(t) sinc(t/3) */
    GPUIMG__FILTER_CUBIC,    /* R = 2, Keys with a = -0.5 */
    GPUIMG__FILTER_LINEAR,   /* R = 1, 1 - |t| */
    GPUIMG__FILTER_AREA,     /* the footprint's exact area-weighted mean; up: linear */
    GPUIMG__FILTER_NEAREST,  /* one input sample, copied */
} gpuimg__filter;

/* n input samples to m output samples along one axis. Output x reads the
 * input samples [first[x], first[x] + taps) with weights[x * taps + k];
 * every window lies inside [0, n): an index past an edge reads the edge
 * sample (replicate), so its weight is added to the edge's. A window
 * shorter than taps has zero weights after it. The weights of one output
 * sum to 1 (in double, before they are stored as float). */
typedef struct gpuimg__axis {
    int n, m, taps;
    int *first;     /* m */
    float *weights; /* m * taps */
} gpuimg__axis;

/* The table, or GPUIMG_ERR_NOMEM (nothing to free then). n, m >= 1. */
gpuimg_status gpuimg__axis_make(int n, int m, gpuimg__filter filter, gpuimg__axis *out);
void gpuimg__axis_free(gpuimg__axis *a);

#endif
