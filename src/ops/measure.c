/* SPDX-License-Identifier: MIT */
/* Measurements that return figures rather than an image: histogram and stats;
 * the histogram's are plot.c's, the comparison's compare.c's. */
#include <stdlib.h>
#include <string.h>

#include "core/arith.h"
#include "core/backend.h"
#include "core/image.h"
#include "core/internal.h"

/* counts for channels x bins, zeroed, in one block (counts[0] owns it). */
static gpuimg_status histogram_new(gpuimg_histogram *h, int channels, int depth, int bins)
{
    memset(h, 0, sizeof *h);
    uint64_t *block = calloc((size_t)channels * (size_t)bins, sizeof *block);
    if (!block)
        return GPUIMG_ERR_NOMEM;
    h->channels = channels;
    h->depth = depth;
    h->bins = bins;
    for (int c = 0; c < channels; c++)
        h->counts[c] = block + (size_t)c * (size_t)bins;
    return GPUIMG_OK;
}

void gpuimg_histogram_free(gpuimg_histogram *h)
{
    if (!h)
        return;
    free(h->counts[0]);
    memset(h, 0, sizeof *h);
}

gpuimg_status gpuimg_histogram_rebin(const gpuimg_histogram *h, int bins, gpuimg_histogram *out)
{
    memset(out, 0, sizeof *out);
    if (bins < 1 || bins > 65536 || h->channels < 1 || h->channels > 4 || h->bins < 1)
        return GPUIMG_ERR_USAGE;
    gpuimg_status st = histogram_new(out, h->channels, h->depth, bins);
    if (st != GPUIMG_OK)
        return st;
    /* SPEC §3: value v falls in bin floor(v * N / 2^depth); h's own bins are
     * values when it came from compute (bins = 2^depth) */
    uint64_t range = (uint64_t)1 << (h->depth == 16 ? 16 : 8);
    for (int c = 0; c < h->channels; c++)
        for (int v = 0; v < h->bins; v++)
            out->counts[c][(uint64_t)v * (uint64_t)bins / range] += h->counts[c][v];
    return GPUIMG_OK;
}

/* The histogram on the backend; stats derive from it, once for every
 * backend (gpuimg__stats_from_histogram). */
static gpuimg_status measure(gpuimg_ctx *ctx, const gpuimg_image *img, gpuimg_histogram *hist,
                             gpuimg_stats *stats)
{
    gpuimg_histogram own;
    if (!hist)
        hist = &own;
    int depth = gpuimg_image_depth(img);
    if (img->channels < 1 || img->channels > 4)
        return gpuimg__fail(ctx, GPUIMG_ERR_USAGE, "invalid image (%d channels)", img->channels);
    gpuimg_status st = histogram_new(hist, img->channels, depth, 1 << depth);
    if (st != GPUIMG_OK)
        return gpuimg__fail(ctx, st, "histogram: out of memory");
    gpuimg_backend *be;
    gpuimg_planes p;
    double values = (double)img->width * img->height * img->channels;
    st = gpuimg__backend_for(ctx, 1.0 * values, &be); /* a count and a copy, on one core */
    if (st != GPUIMG_OK || (st = gpuimg__upload(ctx, be, img, &p)) != GPUIMG_OK) {
        gpuimg_histogram_free(hist);
        return st;
    }
    double t0 = gpuimg__now_ms();
    st = be->ops->histogram(be, &p, hist);
    if (st == GPUIMG_OK && stats)
        gpuimg__stats_from_histogram(hist, (uint64_t)img->width * (uint64_t)img->height, stats);
    gpuimg__stage_done(ctx, GPUIMG_STAGE_KERNELS, t0);
    be->ops->planes_free(be, &p);
    if (st != GPUIMG_OK || hist == &own)
        gpuimg_histogram_free(hist);
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
