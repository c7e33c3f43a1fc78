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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "ops/resample.h"

int gpuimg__round_side(double v)
{
    double r = floor(v + 0.5);
    return !(r >= 1) ? 1 : r > (double)(1 << 30) ? 1 << 30 : (int)r; /* NaN: 1 */
}

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

gpuimg_status gpuimg__axis_range(int n, int m, int x0, int count, gpuimg__filter filter,
                                 gpuimg__axis *out)
{
    memset(out, 0, sizeof *out);
    double *w = malloc((size_t)n * sizeof *w);
    int *first = malloc((size_t)count * sizeof *first);
    if (!w || !first) {
        free(w);
        free(first);
        return GPUIMG_ERR_NOMEM;
    }
    int taps = 1;
    for (int x = 0; x < count; x++) { /* the widest window first: the table's stride */
        int k = weights_of(n, m, filter, x0 + x, w, &first[x]);
        taps = k > taps ? k : taps;
    }
    float *weights = calloc((size_t)count * (size_t)taps, sizeof *weights);
    if (!weights) {
        free(w);
        free(first);
        return GPUIMG_ERR_NOMEM;
    }
    for (int x = 0; x < count; x++) {
        int k = weights_of(n, m, filter, x0 + x, w, &first[x]);
        for (int i = 0; i < k; i++)
            weights[(size_t)x * taps + i] = (float)w[i];
    }
    free(w);
    *out = (gpuimg__axis){n, count, taps, first, weights};
    return GPUIMG_OK;
}

gpuimg_status gpuimg__axis_make(int n, int m, gpuimg__filter filter, gpuimg__axis *out)
{
    return gpuimg__axis_range(n, m, 0, m, filter, out);
}

void gpuimg__axis_free(gpuimg__axis *a)
{
    free(a->first);
    free(a->weights);
    memset(a, 0, sizeof *a);
}

static gpuimg_status resample_nomem(gpuimg_backend *be)
{
    snprintf(be->message, sizeof be->message, "out of memory");
    return GPUIMG_ERR_NOMEM;
}

void gpuimg__place(int w, int h, int box_w, int box_h, gpuimg__fit fit, double scale_cap,
                   gpuimg__placement *out)
{
    gpuimg__placement p = {box_w, box_h, 0, 0, box_w, box_h, 0, 0, box_w, box_h};
    if (fit != GPUIMG__FIT_FILL) {
        double kx = (double)box_w / w, ky = (double)box_h / h;
        double k = fit == GPUIMG__FIT_COVER ? (kx > ky ? kx : ky) : (kx < ky ? kx : ky);
        if (k > scale_cap)
            k = scale_cap;
        /* w * (box_w / w) is box_w to within an ulp: rounding gives it */
        p.rw = gpuimg__round_side(w * k);
        p.rh = gpuimg__round_side(h * k);
        p.kw = p.ow = p.rw;
        p.kh = p.oh = p.rh;
        if (fit == GPUIMG__FIT_COVER) {
            p.kw = p.ow = p.rw < box_w ? p.rw : box_w;
            p.kh = p.oh = p.rh < box_h ? p.rh : box_h;
            p.kx = (p.rw - p.kw) / 2;
            p.ky = (p.rh - p.kh) / 2;
        } else if (fit == GPUIMG__FIT_PAD) {
            p.ow = box_w;
            p.oh = box_h;
            p.px = (box_w - p.rw) / 2;
            p.py = (box_h - p.rh) / 2;
        }
    }
    *out = p;
}

int gpuimg__parse_size(const char *text, int square_ok, int *w, int *h)
{
    char *end;
    long a = strtol(text, &end, 10), b;
    if (end == text || (*text < '0' || *text > '9'))
        return 0;
    if (*end == '\0' && square_ok) {
        b = a;
    } else {
        if (*end != 'x' && *end != 'X')
            return 0;
        const char *second = end + 1;
        if (*second < '0' || *second > '9')
            return 0;
        b = strtol(second, &end, 10);
        if (*end != '\0')
            return 0;
    }
    if (a < 1 || a > 65535 || b < 1 || b > 65535)
        return 0;
    *w = (int)a;
    *h = (int)b;
    return 1;
}

gpuimg_status gpuimg__resample_placed(gpuimg_backend *be, const gpuimg_planes *src,
                                      gpuimg_planes *dst, const gpuimg__placement *pl,
                                      gpuimg__filter filter)
{
    /* cover keeps outputs [kx, kx + kw) of the rw of the whole resize:
     * the tables of those alone, so nothing outside is computed and no
     * crop follows */
    gpuimg__axis ax, ay;
    if (gpuimg__axis_range(src->width, pl->rw, pl->kx, pl->kw, filter, &ax) != GPUIMG_OK)
        return resample_nomem(be);
    if (gpuimg__axis_range(src->height, pl->rh, pl->ky, pl->kh, filter, &ay) != GPUIMG_OK) {
        gpuimg__axis_free(&ax);
        return resample_nomem(be);
    }
    gpuimg_status st = be->ops->resample(be, src, dst, &ax, &ay, pl->px, pl->py);
    gpuimg__axis_free(&ax);
    gpuimg__axis_free(&ay);
    return st;
}

gpuimg_status gpuimg__check_placement(gpuimg_ctx *ctx, const char *op, const gpuimg__placement *pl)
{
    if (pl->ow > 65535 || pl->oh > 65535)
        return gpuimg__fail(ctx, GPUIMG_ERR_TOO_LARGE,
                            "the %s would be %dx%d (a side may be at most 65535)", op, pl->ow,
                            pl->oh);
    if ((uint64_t)pl->ow * (uint64_t)pl->oh > ctx->cfg.max_pixels)
        return gpuimg__fail(ctx, GPUIMG_ERR_TOO_LARGE,
                            "the %s would be %dx%d, over --max-pixels %llu", op, pl->ow, pl->oh,
                            (unsigned long long)ctx->cfg.max_pixels);
    return GPUIMG_OK;
}

/* premultiplied: colour weighted by alpha into float planes, resampled
 * there, divided by the resampled alpha into out (kw x kh) */
static gpuimg_status resize_weighted(gpuimg_backend *be, const gpuimg_planes *src,
                                     gpuimg_planes *out, const gpuimg__placement *pl,
                                     gpuimg__filter filter)
{
    gpuimg_planes weighted, filtered;
    gpuimg__placement at_origin = *pl;
    at_origin.px = at_origin.py = 0;
    gpuimg_status st = be->ops->planes_alloc(be, &weighted, src->width, src->height, src->channels,
                                             GPUIMG_DEPTH_FLOAT);
    if (st != GPUIMG_OK)
        return st;
    if ((st = be->ops->premultiply(be, src, &weighted)) == GPUIMG_OK &&
        (st = be->ops->planes_alloc(be, &filtered, pl->kw, pl->kh, src->channels,
                                    GPUIMG_DEPTH_FLOAT)) == GPUIMG_OK) {
        if ((st = gpuimg__resample_placed(be, &weighted, &filtered, &at_origin, filter)) ==
            GPUIMG_OK)
            st = be->ops->unpremultiply(be, &filtered, out);
        be->ops->planes_free(be, &filtered);
    }
    be->ops->planes_free(be, &weighted);
    return st;
}

gpuimg_status gpuimg__resize_to(gpuimg_backend *be, const gpuimg_planes *src, gpuimg_planes *dst,
                                const gpuimg__placement *pl, gpuimg__filter filter,
                                int premultiplied, const uint16_t background[4])
{
    int canvas = pl->ow != pl->kw || pl->oh != pl->kh;
    gpuimg_status st;
    if (canvas && (st = be->ops->fill(be, dst, background)) != GPUIMG_OK)
        return st;
    if (!premultiplied || src->channels % 2 != 0)
        return gpuimg__resample_placed(be, src, dst, pl, filter);
    if (!canvas)
        return resize_weighted(be, src, dst, pl, filter);
    /* pad: the division writes whole planes, so the result goes through a
     * plane of its own size onto the canvas */
    gpuimg_planes tmp;
    if ((st = be->ops->planes_alloc(be, &tmp, pl->kw, pl->kh, src->channels, src->depth)) !=
        GPUIMG_OK)
        return st;
    if ((st = resize_weighted(be, src, &tmp, pl, filter)) == GPUIMG_OK)
        st = be->ops->copy_rect(be, &tmp, dst, 0, 0, pl->px, pl->py, pl->kw, pl->kh);
    be->ops->planes_free(be, &tmp);
    return st;
}
