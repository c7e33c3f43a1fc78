/* SPDX-License-Identifier: MIT */
/* Measurements that return figures rather than an image: histogram and stats;
 * the histogram's are plot.c's, the comparison's compare.c's. */
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
