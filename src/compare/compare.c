/* SPDX-License-Identifier: MIT */
/* gpuimg_compare (SPEC §7): which pixels are ignored, which differ, which
 * of those are forgiven, the figures over the pixels compared, the picture
 * of it all, and SSIM on the backend.
 *
 * Everything but SSIM is one pass over both images on the host, in bands of
 * rows on the context's threads: it is as fast as reading the bytes (a
 * golden-image pair is decoded on the host anyway), it is the same code for
 * every backend, so the counts cannot depend on one, and the neighbourhood
 * rules (anti-aliasing, shift) run only for the pixels that differ. SSIM,
 * 25 window sums per pixel and channel, is the one figure worth a device;
 * it is computed only when asked for. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "compare/rules.h"
#include "core/arith.h"
#include "core/backend.h"
#include "core/image.h"
#include "core/internal.h"
#include "core/pool.h"

void gpuimg_compare_options_init(gpuimg_compare_options *o)
{
    memset(o, 0, sizeof *o);
    o->ssim = 1;
}

static const uint8_t RED[3] = {255, 0, 0}, YELLOW[3] = {255, 255, 0}, BLUE[3] = {0, 0, 128};

/* What one band of rows adds up. */
typedef struct band {
    gpuimg_task task; /* first: the pool hands back its address */
    const struct pass *pass;
    int y0, y1;
    uint64_t ignored, differing, forgiven, sum, squares, held; /* held: for the shift rule */
    int max_diff, any_byte_differs;
    int bx0, by0, bx1, by1; /* counted pixels' box, inclusive; bx0 > bx1 when none */
} band;

struct pass {
    const uint8_t *a, *b, *ignore; /* ignore: w * h bytes, 1 = ignored; or NULL */
    int w, h;
    gpuimg_pixel_rule rule;
    int antialiasing, max_shift;
    gpuimg_image *diff; /* or NULL */
    uint8_t *held;      /* with max_shift: w * h, 1 where a pixel awaits the shift rule */
    /* At 16 bits a and b hold uint16_t values; the figures and the fuzz rule
     * read them, while the perceptual rules (pixelmatch's YIQ threshold,
     * anti-aliasing, shift), defined on 0..255, and the picture read a8 and
     * b8, the pair at 8 bits (a and b themselves at 8 bits; NULL at 16 when
     * nothing reads them), with rule8. */
    int depth;
    const uint8_t *a8, *b8;
    gpuimg_pixel_rule rule8;
};

static void paint(const struct pass *p, size_t i, const uint8_t *px)
{
    if (!p->diff)
        return;
    uint8_t *d = p->diff->data + i * 3;
    if (px) {
        memcpy(d, px, 3);
        return;
    }
    const uint8_t *s = p->a8 + i * (size_t)p->rule.channels;
    int y = p->rule.channels >= 3 ? gpuimg__luma(s[0], s[1], s[2]) : s[0];
    d[0] = d[1] = d[2] = (uint8_t)(85 + (y + 1) / 3);
}

/* A counted pixel: the count and the box. */
static void count_pixel(band *bd, int x, int y)
{
    bd->differing++;
    bd->bx0 = x < bd->bx0 ? x : bd->bx0;
    bd->bx1 = x > bd->bx1 ? x : bd->bx1;
    bd->by0 = y < bd->by0 ? y : bd->by0;
    bd->by1 = y > bd->by1 ? y : bd->by1;
}

static void run_band(gpuimg_task *task)
{
    band *bd = (band *)task;
    const struct pass *p = bd->pass;
    int c = p->rule.channels, w = p->w, wide = p->depth == 16;
    const uint16_t *a16 = (const uint16_t *)p->a, *b16 = (const uint16_t *)p->b;
    /* Golden-image pairs are mostly equal: a run of 16 equal pixels adds
     * nothing to any figure, so one memcmp passes it, unless a pixel of it
     * is ignored (counted apart) or must be painted. */
    enum { RUN = 16 };
    int skip = !p->ignore && !p->diff;
    size_t px = (size_t)c * (wide ? 2 : 1);
    for (int y = bd->y0; y < bd->y1; y++)
        for (int x = 0; x < w; x++) {
            size_t i = (size_t)y * (size_t)w + (size_t)x;
            if (skip && x % RUN == 0) {
                int run = w - x < RUN ? w - x : RUN;
                if (memcmp(p->a + i * px, p->b + i * px, (size_t)run * px) == 0) {
                    x += run - 1;
                    continue;
                }
            }
            int pixel_max = 0;
            int64_t sum = 0, squares = 0; /* 4 * 65535² passes 32 bits */
            for (int k = 0; k < c; k++) {
                size_t j = i * (size_t)c + (size_t)k;
                int d = wide ? abs((int)a16[j] - (int)b16[j]) : abs((int)p->a[j] - (int)p->b[j]);
                sum += d;
                squares += (int64_t)d * d;
                pixel_max = d > pixel_max ? d : pixel_max;
            }
            bd->any_byte_differs |= pixel_max > 0;
            if (p->ignore && p->ignore[i]) {
                bd->ignored++;
                paint(p, i, BLUE);
                continue;
            }
            bd->sum += (uint64_t)sum;
            bd->squares += (uint64_t)squares;
            bd->max_diff = pixel_max > bd->max_diff ? pixel_max : bd->max_diff;
            int differs =
                p->rule.max_delta > 0
                    ? gpuimg__pixels_differ(&p->rule8, p->a8 + i * (size_t)c, p->b8 + i * (size_t)c)
                    : pixel_max > p->rule.fuzz;
            if (pixel_max == 0 || !differs) {
                paint(p, i, NULL);
                continue;
            }
            if (p->antialiasing && (gpuimg__antialiased(p->a8, x, y, w, p->h, p->b8, c) ||
                                    gpuimg__antialiased(p->b8, x, y, w, p->h, p->a8, c))) {
                bd->forgiven++;
                paint(p, i, YELLOW);
                continue;
            }
            if (p->held) { /* its group decides, once every band is done */
                p->held[i] = 1;
                bd->held++;
                continue;
            }
            count_pixel(bd, x, y);
            paint(p, i, RED);
        }
}

/* The shift rule's verdicts (groups.c) on the pixels held back: forgiven
 * ones yellow, the others counted. */
static gpuimg_status settle_groups(gpuimg_ctx *ctx, const struct pass *p, band *total,
                                   gpuimg_compare_result *out)
{
    if (gpuimg__shift_groups(&p->rule8, p->a8, p->b8, p->w, p->h, p->max_shift, p->held,
                             &out->groups_shifted) != 0)
        return gpuimg__fail(ctx, GPUIMG_ERR_NOMEM, "compare: out of memory");
    for (int y = 0; y < p->h; y++)
        for (int x = 0; x < p->w; x++) {
            size_t i = (size_t)y * (size_t)p->w + (size_t)x;
            if (p->held[i] == 2) {
                total->forgiven++;
                out->shifted++;
                paint(p, i, YELLOW);
            } else if (p->held[i] == 3) {
                count_pixel(total, x, y);
                paint(p, i, RED);
            }
        }
    return GPUIMG_OK;
}

/* The pass over every row, in bands on the context's threads. */
static gpuimg_status classify(gpuimg_ctx *ctx, const struct pass *p, gpuimg_compare_result *out)
{
    gpuimg_pool *pool = gpuimg__ctx_pool(ctx);
    int workers = pool ? gpuimg__pool_workers(pool) + 1 : 1;
    /* four bands a thread evens out the rows that hold the costly differing
     * pixels; at least 16 rows a band keeps the tasks worth their handling */
    int nbands = workers * 4;
    if (nbands > (p->h + 15) / 16)
        nbands = (p->h + 15) / 16;
    band *bands = calloc((size_t)nbands, sizeof *bands);
    if (!bands)
        return gpuimg__fail(ctx, GPUIMG_ERR_NOMEM, "compare: out of memory");
    for (int k = 0; k < nbands; k++) {
        bands[k] = (band){.pass = p,
                          .y0 = (int)((int64_t)p->h * k / nbands),
                          .y1 = (int)((int64_t)p->h * (k + 1) / nbands),
                          .bx0 = p->w,
                          .by0 = p->h,
                          .bx1 = -1,
                          .by1 = -1};
        bands[k].task.run = run_band;
        gpuimg__pool_piece(pool, &bands[k].task);
    }
    band t = {.bx0 = p->w, .by0 = p->h, .bx1 = -1, .by1 = -1}; /* the whole image */
    for (int k = 0; k < nbands; k++) {
        band *bd = &bands[k];
        gpuimg__pool_wait(pool, &bd->task);
        t.ignored += bd->ignored;
        t.differing += bd->differing;
        t.forgiven += bd->forgiven;
        t.held += bd->held;
        t.sum += bd->sum;
        t.squares += bd->squares;
        t.max_diff = bd->max_diff > t.max_diff ? bd->max_diff : t.max_diff;
        t.any_byte_differs |= bd->any_byte_differs;
        t.bx0 = bd->bx0 < t.bx0 ? bd->bx0 : t.bx0;
        t.by0 = bd->by0 < t.by0 ? bd->by0 : t.by0;
        t.bx1 = bd->bx1 > t.bx1 ? bd->bx1 : t.bx1;
        t.by1 = bd->by1 > t.by1 ? bd->by1 : t.by1;
    }
    free(bands);
    if (t.held > 0) {
        gpuimg_status st = settle_groups(ctx, p, &t, out);
        if (st != GPUIMG_OK)
            return st;
    }
    out->ignored = t.ignored;
    out->differing = t.differing;
    out->forgiven = t.forgiven;
    out->max_diff = t.max_diff;
    uint64_t sum = t.sum, squares = t.squares;
    int bx0 = t.bx0, by0 = t.by0, bx1 = t.bx1, by1 = t.by1, any = t.any_byte_differs;
    out->identical = !any;
    out->compared = (uint64_t)p->w * (uint64_t)p->h - out->ignored;
    if (out->differing > 0)
        out->bbox = (gpuimg_rect){bx0, by0, bx1 - bx0 + 1, by1 - by0 + 1};
    double values = (double)out->compared * out->channels;
    if (values > 0) {
        out->mae = (double)sum / values;
        out->rmse = sqrt((double)squares / values);
    }
    out->has_psnr = squares > 0;
    double top = p->depth == 16 ? 65535.0 : 255.0; /* L of SPEC §3 */
    if (out->has_psnr)
        out->psnr = 10.0 * log10(top * top / ((double)squares / values));
    return GPUIMG_OK;
}

/* The ignored pixels as a map (1 = ignored), or NULL when none is. */
static gpuimg_status ignore_map(gpuimg_ctx *ctx, const gpuimg_compare_options *o, int w, int h,
                                uint8_t **out)
{
    *out = NULL;
    if (o->nignore == 0 && !o->mask)
        return GPUIMG_OK;
    if (o->mask && (o->mask->width != w || o->mask->height != h))
        return gpuimg__fail(ctx, GPUIMG_ERR_USAGE, "mask: %dx%d, the images %dx%d", o->mask->width,
                            o->mask->height, w, h);
    uint8_t *map = calloc((size_t)w * (size_t)h, 1);
    if (!map)
        return gpuimg__fail(ctx, GPUIMG_ERR_NOMEM, "compare: out of memory");
    for (int r = 0; r < o->nignore; r++) {
        const gpuimg_rect *q = &o->ignore[r];
        int64_t x0 = q->x < 0 ? 0 : q->x, y0 = q->y < 0 ? 0 : q->y;
        int64_t x1 = (int64_t)q->x + q->width, y1 = (int64_t)q->y + q->height;
        x1 = x1 > w ? w : x1;
        y1 = y1 > h ? h : y1;
        for (int64_t y = y0; y < y1; y++)
            for (int64_t x = x0; x < x1; x++)
                map[y * w + x] = 1;
    }
    if (o->mask) {
        const gpuimg_image *m = o->mask;
        size_t stride = gpuimg__stride(m), px = (size_t)m->channels * gpuimg_image_value_size(m);
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++) {
                const uint8_t *v = m->data + (size_t)y * stride + (size_t)x * px;
                map[(size_t)y * w + x] |= v[0] == 0 && (px == (size_t)m->channels || v[1] == 0);
            }
    }
    *out = map;
    return GPUIMG_OK;
}

/* SSIM on the backend: the map summed over the interior pixels not ignored,
 * averaged over them and over the channels. */
static gpuimg_status ssim(gpuimg_ctx *ctx, const gpuimg_image *a, const gpuimg_image *b,
                          const uint8_t *ignore, gpuimg_compare_result *out)
{
    int w = a->width, h = a->height, r = GPUIMG_SSIM_RADIUS;
    if (w < GPUIMG_SSIM_TAPS || h < GPUIMG_SSIM_TAPS)
        return GPUIMG_OK;
    uint64_t count = 0;
    for (int y = r; y < h - r; y++)
        for (int x = r; x < w - r; x++)
            count += !ignore || !ignore[(size_t)y * w + x];
    if (count == 0)
        return GPUIMG_OK;
    gpuimg_backend *be;
    /* five window sums of two images in double, about 15 ns a value on one
     * core (bench/NOTES.md) */
    double values = (double)w * h * a->channels;
    gpuimg_status st = gpuimg__backend_for(ctx, 15.0 * values, &be);
    gpuimg_planes pa = {0}, pb = {0}, pm = {0};
    if (st == GPUIMG_OK)
        st = gpuimg__upload(ctx, be, a, &pa);
    if (st == GPUIMG_OK && (st = gpuimg__upload(ctx, be, b, &pb)) == GPUIMG_OK && ignore) {
        gpuimg_image m;
        gpuimg_image_wrap(&m, w, h, 1, (uint8_t *)ignore, 0);
        st = gpuimg__upload(ctx, be, &m, &pm);
    }
    if (st == GPUIMG_OK) {
        double t0 = gpuimg__now_ms(), sum = 0;
        st = be->ops->ssim(be, &pa, &pb, ignore ? pm.plane[0] : NULL, &sum);
        gpuimg__stage_done(ctx, GPUIMG_STAGE_KERNELS, t0);
        if (st != GPUIMG_OK)
            gpuimg__backend_fail(ctx, st, "ssim");
        out->has_ssim = st == GPUIMG_OK;
        out->ssim = sum / (double)count / a->channels;
    }
    if (pm.plane[0])
        be->ops->planes_free(be, &pm);
    if (pb.plane[0])
        be->ops->planes_free(be, &pb);
    if (pa.plane[0])
        be->ops->planes_free(be, &pa);
    return st;
}

/* The weighted percentile of flip-evaluator's tool (FLIPPooling's
 * getPercentile(p, weighted)): the smallest value of the sorted map whose
 * running sum, itself included, exceeds p of the total. Without sorting
 * every value: a float's bits order non-negative floats, so a histogram of
 * their top 16 bits (sign, exponent, 7 bits of mantissa) with each bucket's
 * count and sum finds the bucket the running sum crosses p in, and only
 * that bucket's values are sorted. The sums are in double, added in bucket
 * order and then in value order within the bucket: the same total as the
 * sorted walk to rounding, whatever the backend (the map is the same). */
#define FLIP_BUCKETS (0x3F80 + 1) /* keys of 0.0 .. 1.0 */

static int float_order(const void *x, const void *y)
{
    float a = *(const float *)x, b = *(const float *)y;
    return (a > b) - (a < b);
}

static uint32_t flip_key(float v)
{
    uint32_t bits;
    memcpy(&bits, &v, sizeof bits);
    bits >>= 16;
    return bits < FLIP_BUCKETS ? bits : FLIP_BUCKETS - 1; /* above 1: last */
}

static gpuimg_status flip_percentile(gpuimg_ctx *ctx, const float *map, const uint8_t *ignore,
                                     size_t n, const double *bucket_sum, const uint64_t *bucket_n,
                                     double total, double p, double *out)
{
    double target = p * total, cum = 0;
    *out = 0;
    if (!(total > 0))
        return GPUIMG_OK; /* the tool's walk never crosses 0: its percentile stays 0 */
    uint32_t k = 0;
    while (k + 1 < FLIP_BUCKETS && (bucket_n[k] == 0 || cum + bucket_sum[k] <= target))
        cum += bucket_sum[k++];
    float *vals = malloc((bucket_n[k] ? bucket_n[k] : 1) * sizeof *vals);
    if (!vals)
        return gpuimg__fail(ctx, GPUIMG_ERR_NOMEM, "compare: out of memory");
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (!ignore || !ignore[i]) {
            float v = map[i] >= 0 ? map[i] : 0; /* as the total counts it */
            if (flip_key(v) == k)
                vals[m++] = v;
        }
    qsort(vals, m, sizeof *vals, float_order);
    for (size_t i = 0; i < m; i++) {
        *out = vals[i];
        if ((cum += vals[i]) > target)
            break;
    }
    free(vals);
    return GPUIMG_OK;
}

/* FLIP on the backend: the map, then its mean and weighted percentiles
 * over the pixels not ignored, here, once for every backend. Ignored
 * pixels take a's values in b first: an ignored clock's change would
 * otherwise reach the pixels around it through the filters. */
static gpuimg_status flip(gpuimg_ctx *ctx, const gpuimg_image *a, const gpuimg_image *b,
                          const uint8_t *ignore, gpuimg_compare_result *out)
{
    int w = a->width, h = a->height;
    size_t n = (size_t)w * (size_t)h;
    uint64_t count = 0;
    for (size_t i = 0; i < n; i++)
        count += !ignore || !ignore[i];
    if (count == 0)
        return GPUIMG_OK;
    gpuimg_image patched = {0};
    gpuimg_status st = GPUIMG_OK;
    if (ignore) {
        size_t px = (size_t)a->channels * gpuimg_image_value_size(a);
        st = gpuimg__image_take_depth(ctx, &patched, w, h, a->channels, gpuimg_image_depth(a));
        if (st != GPUIMG_OK)
            return gpuimg__fail_as(ctx, st, "compare: flip");
        memcpy(patched.data, b->data, n * px);
        for (size_t i = 0; i < n; i++)
            if (ignore[i])
                memcpy(patched.data + i * px, a->data + i * px, px);
        b = &patched;
    }
    float *map = malloc(n * sizeof *map);
    gpuimg_backend *be = NULL;
    gpuimg_planes pa = {0}, pb = {0};
    if (!map)
        st = gpuimg__fail(ctx, GPUIMG_ERR_NOMEM, "compare: out of memory");
    /* 14 separable filters of about 20 taps and the colour transforms,
     * about 100 ns a pixel on one core */
    if (st == GPUIMG_OK)
        st = gpuimg__backend_for(ctx, 100.0 * (double)n, &be);
    if (st == GPUIMG_OK)
        st = gpuimg__upload(ctx, be, a, &pa);
    if (st == GPUIMG_OK)
        st = gpuimg__upload(ctx, be, b, &pb);
    if (st == GPUIMG_OK) {
        gpuimg_flip_params params;
        gpuimg__flip_params(&params);
        double t0 = gpuimg__now_ms();
        st = be->ops->flip(be, &pa, &pb, &params, map);
        gpuimg__stage_done(ctx, GPUIMG_STAGE_KERNELS, t0);
        if (st != GPUIMG_OK)
            gpuimg__backend_fail(ctx, st, "flip");
    }
    if (pb.plane[0])
        be->ops->planes_free(be, &pb);
    if (pa.plane[0])
        be->ops->planes_free(be, &pa);
    gpuimg_image_free(&patched);
    double *bucket_sum = NULL;
    uint64_t *bucket_n = NULL;
    if (st == GPUIMG_OK && (!(bucket_sum = calloc(FLIP_BUCKETS, sizeof *bucket_sum)) ||
                            !(bucket_n = calloc(FLIP_BUCKETS, sizeof *bucket_n))))
        st = gpuimg__fail(ctx, GPUIMG_ERR_NOMEM, "compare: out of memory");
    if (st == GPUIMG_OK) {
        double total = 0;
        for (size_t i = 0; i < n; i++)
            if (!ignore || !ignore[i]) {
                float v = map[i] >= 0 ? map[i] : 0; /* never below 0; NaN as 0 */
                uint32_t k = flip_key(v);
                total += v;
                bucket_sum[k] += v;
                bucket_n[k]++;
            }
        out->flip_mean = total / (double)count;
        st =
            flip_percentile(ctx, map, ignore, n, bucket_sum, bucket_n, total, 0.95, &out->flip_p95);
        if (st == GPUIMG_OK)
            st = flip_percentile(ctx, map, ignore, n, bucket_sum, bucket_n, total, 0.99,
                                 &out->flip_p99);
        out->has_flip = st == GPUIMG_OK;
    }
    free(bucket_sum);
    free(bucket_n);
    free(map);
    return st;
}

/* SSIM of equal images is 1 exactly (a GPU's fused multiply-adds made
 * 1 + 1e-13 of it), where it applies: as ssim() decides, not computed. */
static gpuimg_status ssim_identical(const gpuimg_image *a, const uint8_t *ignore,
                                    gpuimg_compare_result *out)
{
    int w = a->width, h = a->height, r = GPUIMG_SSIM_RADIUS;
    if (w < GPUIMG_SSIM_TAPS || h < GPUIMG_SSIM_TAPS)
        return GPUIMG_OK;
    for (int y = r; y < h - r; y++)
        for (int x = r; x < w - r; x++)
            if (!ignore || !ignore[(size_t)y * w + x]) {
                out->has_ssim = 1;
                out->ssim = 1.0;
                return GPUIMG_OK;
            }
    return GPUIMG_OK;
}

static gpuimg_status compare_widened(gpuimg_ctx *ctx, const gpuimg_image *a, const gpuimg_image *b,
                                     const gpuimg_compare_options *o, gpuimg_compare_result *out,
                                     gpuimg_image *diff)
{
    int w = a->width, h = a->height;
    uint8_t *ignore;
    gpuimg_status st = ignore_map(ctx, o, w, h, &ignore);
    if (st == GPUIMG_OK && diff && (st = gpuimg__image_take(ctx, diff, w, h, 3)) != GPUIMG_OK)
        gpuimg__fail_as(ctx, st, "compare: difference image");
    int depth = gpuimg_image_depth(a);
    /* at 16 bits, the pair at 8, made only for what reads it: a perceptual
     * rule or the picture (a plain comparison reads the 16-bit values alone) */
    gpuimg_image a8 = {0}, b8 = {0};
    int perceptual = o->threshold > 0 || o->antialiasing || o->max_shift > 0 || diff;
    if (st == GPUIMG_OK && depth == 16 && perceptual &&
        ((st = gpuimg__image_convert_depth(ctx, a, 8, &a8)) != GPUIMG_OK ||
         (st = gpuimg__image_convert_depth(ctx, b, 8, &b8)) != GPUIMG_OK))
        gpuimg__fail_as(ctx, st, "compare");
    if (st == GPUIMG_OK) {
        double max_delta = o->threshold > 0 ? 35215.0 * o->threshold * o->threshold : 0;
        /* the fuzz in 8-bit units for the shift rule's matches at 16 bits */
        int fuzz8 = depth == 16 ? (o->fuzz * 255 * 2 + 65535) / (2 * 65535) : o->fuzz;
        struct pass p = {a->data,
                         b->data,
                         ignore,
                         w,
                         h,
                         {a->channels, o->fuzz, max_delta},
                         o->antialiasing,
                         o->max_shift,
                         diff,
                         NULL,
                         depth,
                         depth == 16 ? a8.data : a->data,
                         depth == 16 ? b8.data : b->data,
                         {a->channels, fuzz8, max_delta}};
        /* zeroed pages cost nothing until a differing pixel touches them */
        if (o->max_shift > 0 && !(p.held = calloc((size_t)w * (size_t)h, 1)))
            st = gpuimg__fail(ctx, GPUIMG_ERR_NOMEM, "compare: out of memory");
        double t0 = gpuimg__now_ms();
        if (st == GPUIMG_OK)
            st = classify(ctx, &p, out);
        free(p.held);
        gpuimg__stage_done(ctx, GPUIMG_STAGE_KERNELS, t0);
    }
    gpuimg_image_free(&a8);
    gpuimg_image_free(&b8);
    if (st == GPUIMG_OK && o->ssim)
        st = out->identical ? ssim_identical(a, ignore, out) : ssim(ctx, a, b, ignore, out);
    if (st == GPUIMG_OK && o->flip)
        st = flip(ctx, a, b, ignore, out);
    free(ignore);
    if (st != GPUIMG_OK && diff)
        gpuimg_image_free(diff);
    return st;
}

/* An image as the comparison reads it: packed, in the common layout, at
 * the common depth (an 8-bit one beside a 16-bit one widened by v * 257). */
static gpuimg_status common_layout(gpuimg_ctx *ctx, const gpuimg_image *img, int color, int alpha,
                                   int depth, gpuimg_image *copy, const gpuimg_image **use)
{
    int want = (color ? 3 : 1) + (alpha ? 1 : 0);
    if (gpuimg_image_depth(img) != depth) {
        gpuimg_image deep;
        gpuimg_status st = gpuimg__image_packed(ctx, img, copy, use);
        if (st == GPUIMG_OK)
            st = gpuimg__image_convert_depth(ctx, *use, depth, &deep);
        gpuimg_image_free(copy);
        if (st != GPUIMG_OK)
            return gpuimg__fail_as(ctx, st, "compare");
        gpuimg_metadata_free(deep.meta);
        deep.meta = NULL;
        if (deep.channels == want) {
            *copy = deep;
            *use = copy;
            return GPUIMG_OK;
        }
        st = gpuimg__image_widen(ctx, &deep, color, alpha, copy);
        gpuimg_image_free(&deep);
        *use = copy;
        return st == GPUIMG_OK ? st : gpuimg__fail_as(ctx, st, "compare");
    }
    if (img->channels == want)
        return gpuimg__image_packed(ctx, img, copy, use);
    memset(copy, 0, sizeof *copy);
    *use = copy;
    gpuimg_status st = gpuimg__image_widen(ctx, img, color, alpha, copy);
    return st == GPUIMG_OK ? st : gpuimg__fail_as(ctx, st, "compare");
}

gpuimg_status gpuimg_compare(gpuimg_ctx *ctx, const gpuimg_image *a, const gpuimg_image *b,
                             const gpuimg_compare_options *opt, gpuimg_compare_result *out,
                             gpuimg_image *diff)
{
    gpuimg_compare_options defaults;
    if (!opt) {
        gpuimg_compare_options_init(&defaults);
        opt = &defaults;
    }
    memset(out, 0, sizeof *out);
    if (diff)
        memset(diff, 0, sizeof *diff);
    int depth = gpuimg_image_depth(a) == 16 || gpuimg_image_depth(b) == 16 ? 16 : 8;
    if (opt->fuzz < 0 || opt->fuzz > 65535 || !(opt->threshold >= 0 && opt->threshold <= 1) ||
        opt->max_shift < 0 || opt->max_shift > 8 || opt->nignore < 0 ||
        (opt->nignore > 0 && !opt->ignore))
        return gpuimg__fail(ctx, GPUIMG_ERR_USAGE, "compare: invalid options");
    if (a->width != b->width || a->height != b->height) {
        out->size_differs = 1;
        return GPUIMG_OK;
    }
    int color = a->channels >= 3 || b->channels >= 3;
    int alpha = a->channels % 2 == 0 || b->channels % 2 == 0;
    gpuimg_image ca, cb;
    const gpuimg_image *wa, *wb;
    gpuimg_status st = common_layout(ctx, a, color, alpha, depth, &ca, &wa);
    if (st == GPUIMG_OK && (st = common_layout(ctx, b, color, alpha, depth, &cb, &wb)) != GPUIMG_OK)
        gpuimg_image_free(&ca);
    if (st != GPUIMG_OK)
        return st;
    out->width = a->width;
    out->height = a->height;
    out->channels = wa->channels;
    out->depth = depth;
    st = compare_widened(ctx, wa, wb, opt, out, diff);
    gpuimg_image_free(&ca);
    gpuimg_image_free(&cb);
    return st;
}
