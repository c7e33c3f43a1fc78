/* SPDX-License-Identifier: MIT */
/* A resize axis's weights (resample.h), as SPEC §3 defines them: output x
 * is centred on input c = (x + 0.5) / f - 0.5 with f = m / n; the kernel is
 * widened by s = max(1, 1/f) when shrinking, so that every input sample
 * contributes (no aliasing); the weights K((i - c) / s) of the integers i
 * with |i - c| < R s are normalized to sum 1, in double. Replicate edges
 * fold into the edge sample's weight, which keeps each window inside the
 * input: the backends then read no index they must clamp. area and
 * nearest are exact rational footprints, computed in integers. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ops/resample.h"

/* Exactly 0 at the other integers (sin(pi k) in double is not): a resize
 * to the same size, or by a whole factor up, then copies exactly. */
static double sinc(double t)
{
    if (t == 0.0)
        return 1.0;
    if (t == floor(t))
        return 0.0;
    double p = 3.14159265358979323846 * t;
    return sin(p) / p;
}

/* The kernel K and its radius R. */
static double kernel(gpuimg__filter filter, double t)
{
    double a = fabs(t);
    switch (filter) {
    case GPUIMG__FILTER_LANCZOS3: return a < 3.0 ? sinc(t) * sinc(t / 3.0) : 0.0;
    case GPUIMG__FILTER_CUBIC: /* Keys, a = -0.5 */
        if (a < 1.0)
            return (1.5 * a - 2.5) * a * a + 1.0;
        return a < 2.0 ? ((-0.5 * a + 2.5) * a - 4.0) * a + 2.0 : 0.0;
    default: return a < 1.0 ? 1.0 - a : 0.0; /* linear, and area when upsizing */
    }
}

static double radius(gpuimg__filter filter)
{
    return filter == GPUIMG__FILTER_LANCZOS3 ? 3.0 : filter == GPUIMG__FILTER_CUBIC ? 2.0 : 1.0;
}

/* Output x's weights over the input indices [*lo, *lo + count) (count is
 * returned), replicate already folded in, into w (room for n). */
static int weights_of(int n, int m, gpuimg__filter filter, int x, double *w, int *lo)
{
    if (filter == GPUIMG__FILTER_NEAREST) {
        /* min(n - 1, floor((x + 0.5) / f)), in integers: floor((2x + 1) n / 2m) */
        int64_t i = ((int64_t)2 * x + 1) * n / ((int64_t)2 * m);
        *lo = i < n - 1 ? (int)i : n - 1;
        w[0] = 1.0;
        return 1;
    }
    if (filter == GPUIMG__FILTER_AREA && m <= n) {
        /* the footprint [x n / m, (x + 1) n / m) in units of 1/m: input i
         * covers [i m, (i + 1) m) and weighs its overlap over n */
        int64_t a = (int64_t)x * n, b = (int64_t)(x + 1) * n;
        int first = (int)(a / m), last = (int)((b - 1) / m);
        for (int i = first; i <= last; i++) {
            int64_t from = (int64_t)i * m > a ? (int64_t)i * m : a;
            int64_t to = (int64_t)(i + 1) * m < b ? (int64_t)(i + 1) * m : b;
            w[i - first] = (double)(to - from) / (double)n;
        }
        *lo = first;
        return last - first + 1;
    }
    double f = (double)m / n, s = f < 1.0 ? 1.0 / f : 1.0;
    double c = (x + 0.5) / f - 0.5, support = radius(filter) * s;
    int i_min = (int)floor(c - support) + 1, i_max = (int)ceil(c + support) - 1;
    int lo_in = i_min > 0 ? i_min : 0, hi_in = i_max < n - 1 ? i_max : n - 1;
    int count = hi_in - lo_in + 1;
    memset(w, 0, (size_t)count * sizeof *w);
    double sum = 0.0;
    for (int i = i_min; i <= i_max; i++) {
        double k = kernel(filter, (i - c) / s);
        int at = i < 0 ? 0 : i > n - 1 ? n - 1 : i; /* replicate */
        w[at - lo_in] += k;
        sum += k;
    }
    for (int k = 0; k < count; k++)
        w[k] /= sum;
    *lo = lo_in;
    return count;
}

gpuimg_status gpuimg__axis_make(int n, int m, gpuimg__filter filter, gpuimg__axis *out)
{
    memset(out, 0, sizeof *out);
    double *w = malloc((size_t)n * sizeof *w);
    int *first = malloc((size_t)m * sizeof *first);
    if (!w || !first) {
        free(w);
        free(first);
        return GPUIMG_ERR_NOMEM;
    }
    int taps = 1;
    for (int x = 0; x < m; x++) { /* the widest window first: the table's stride */
        int count = weights_of(n, m, filter, x, w, &first[x]);
        taps = count > taps ? count : taps;
    }
    float *weights = calloc((size_t)m * (size_t)taps, sizeof *weights);
    if (!weights) {
        free(w);
        free(first);
        return GPUIMG_ERR_NOMEM;
    }
    for (int x = 0; x < m; x++) {
        int count = weights_of(n, m, filter, x, w, &first[x]);
        for (int k = 0; k < count; k++)
            weights[(size_t)x * taps + k] = (float)w[k];
    }
    free(w);
    *out = (gpuimg__axis){n, m, taps, first, weights};
    return GPUIMG_OK;
}

void gpuimg__axis_free(gpuimg__axis *a)
{
    free(a->first);
    free(a->weights);
    memset(a, 0, sizeof *a);
}
