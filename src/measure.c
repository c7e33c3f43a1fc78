/* SPDX-License-Identifier: MIT */
/* Measurements that return figures rather than an image: histogram, stats,
 * compare (with its difference picture). The histogram's chart is plot.c. */
#include <string.h>

#include "arith.h"
#include "backend.h"
#include "image.h"
#include "internal.h"

/* Uploads img and runs one measuring backend call on its planes. */
/* The histogram on the backend; stats derive from it, once for every
 * backend (gpuimg__stats_from_histogram). */
static gpuimg_status measure(gpuimg_ctx *ctx, const gpuimg_image *img, gpuimg_histogram *hist,
                             gpuimg_stats *stats)
{
    gpuimg_histogram own;
    if (!hist)
        hist = &own;
    gpuimg_backend *be;
    gpuimg_planes p;
    double values = (double)img->width * img->height * img->channels;
    gpuimg_status st = gpuimg__backend_for(ctx, 4.0 * values, &be);
    if (st != GPUIMG_OK || (st = gpuimg__upload(ctx, be, img, &p)) != GPUIMG_OK)
        return st;
    double t0 = gpuimg__now_ms();
    st = be->ops->histogram(be, &p, hist);
    if (st == GPUIMG_OK && stats)
        gpuimg__stats_from_histogram(hist, (uint64_t)img->width * (uint64_t)img->height, stats);
    ctx->stage_ms[GPUIMG_STAGE_KERNELS] += gpuimg__now_ms() - t0;
    be->ops->planes_free(be, &p);
    return st == GPUIMG_OK ? st : gpuimg__backend_fail(ctx, st, stats ? "stats" : "histogram");
}

gpuimg_status gpuimg_histogram_compute(gpuimg_ctx *ctx, const gpuimg_image *img,
                                       gpuimg_histogram *out)
{
    return measure(ctx, img, out, NULL);
}

gpuimg_status gpuimg_stats_compute(gpuimg_ctx *ctx, const gpuimg_image *img, gpuimg_stats *out)
{
    return measure(ctx, img, NULL, out);
}

/* A's luma at one-third contrast around mid-gray, differing pixels red. */
static gpuimg_status diff_picture(gpuimg_ctx *ctx, const gpuimg_image *a, const gpuimg_image *b,
                                  int fuzz, gpuimg_image *diff)
{
    gpuimg_status st = gpuimg__image_take(ctx, diff, a->width, a->height, 3);
    if (st != GPUIMG_OK)
        return st;
    size_t n = (size_t)a->width * (size_t)a->height;
    int cn = a->channels;
    for (size_t i = 0; i < n; i++) {
        const uint8_t *pa = a->data + i * (size_t)cn, *pb = b->data + i * (size_t)cn;
        int differs = 0;
        for (int c = 0; c < cn; c++)
            differs |= (pa[c] > pb[c] ? pa[c] - pb[c] : pb[c] - pa[c]) > fuzz;
        uint8_t *d = diff->data + i * 3;
        if (differs) {
            d[0] = 255;
            d[1] = d[2] = 0;
        } else {
            int y = cn >= 3 ? gpuimg__luma(pa[0], pa[1], pa[2]) : pa[0];
            d[0] = d[1] = d[2] = (uint8_t)(85 + (y + 1) / 3);
        }
    }
    return GPUIMG_OK;
}

static gpuimg_status compare_widened(gpuimg_ctx *ctx, const gpuimg_image *a, const gpuimg_image *b,
                                     int fuzz, gpuimg_compare_result *out, gpuimg_image *diff)
{
    gpuimg_backend *be;
    gpuimg_planes pa, pb;
    /* SSIM: five window sums of two images, about 150 ns a value on the CPU */
    double values = (double)a->width * a->height * a->channels;
    gpuimg_status st = gpuimg__backend_for(ctx, 150.0 * values, &be);
    if (st != GPUIMG_OK || (st = gpuimg__upload(ctx, be, a, &pa)) != GPUIMG_OK)
        return st;
    if ((st = gpuimg__upload(ctx, be, b, &pb)) != GPUIMG_OK) {
        be->ops->planes_free(be, &pa);
        return st;
    }
    double t0 = gpuimg__now_ms();
    st = be->ops->compare(be, &pa, &pb, fuzz, out);
    ctx->stage_ms[GPUIMG_STAGE_KERNELS] += gpuimg__now_ms() - t0;
    be->ops->planes_free(be, &pa);
    be->ops->planes_free(be, &pb);
    if (st != GPUIMG_OK)
        return gpuimg__backend_fail(ctx, st, "compare");
    if (diff && (st = diff_picture(ctx, a, b, fuzz, diff)) != GPUIMG_OK)
        return gpuimg__fail(ctx, st, "compare: difference image: %s", gpuimg_strerror(st));
    return GPUIMG_OK;
}

gpuimg_status gpuimg_compare(gpuimg_ctx *ctx, const gpuimg_image *a, const gpuimg_image *b,
                             int fuzz, gpuimg_compare_result *out, gpuimg_image *diff)
{
    memset(out, 0, sizeof *out);
    if (diff)
        memset(diff, 0, sizeof *diff);
    if (a->width != b->width || a->height != b->height) {
        out->size_differs = 1;
        return GPUIMG_OK;
    }
    int color = a->channels >= 3 || b->channels >= 3;
    int alpha = a->channels % 2 == 0 || b->channels % 2 == 0;
    gpuimg_image wa, wb;
    gpuimg_status st = gpuimg__image_widen(ctx, a, color, alpha, &wa);
    if (st == GPUIMG_OK && (st = gpuimg__image_widen(ctx, b, color, alpha, &wb)) != GPUIMG_OK)
        gpuimg_image_free(&wa);
    if (st != GPUIMG_OK)
        return gpuimg__fail(ctx, st, "compare: %s", gpuimg_strerror(st));
    st = compare_widened(ctx, &wa, &wb, fuzz, out, diff);
    gpuimg_image_free(&wa);
    gpuimg_image_free(&wb);
    return st;
}
