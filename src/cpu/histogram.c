/* SPDX-License-Identifier: MIT */
/* Exact 256-bin histograms and statistics, every channel, alpha included. */
#include <string.h>

#include "cpu.h"

gpuimg_status gpuimg__cpu_histogram(gpuimg_backend *be, const gpuimg_planes *src,
                                    gpuimg_histogram *out)
{
    (void)be;
    memset(out, 0, sizeof *out);
    out->channels = src->channels;
    size_t n = gpuimg__plane_size(src);
    for (int c = 0; c < src->channels; c++)
        for (size_t i = 0; i < n; i++)
            out->counts[c][src->plane[c][i]]++;
    return GPUIMG_OK;
}

gpuimg_status gpuimg__cpu_stats(gpuimg_backend *be, const gpuimg_planes *src, gpuimg_stats *out)
{
    gpuimg_histogram h;
    gpuimg__cpu_histogram(be, src, &h);
    memset(out, 0, sizeof *out);
    out->channels = src->channels;
    out->count = gpuimg__plane_size(src);
    for (int c = 0; c < src->channels; c++) {
        uint64_t sum = 0, squares = 0; /* exact: at most 2^30 * 255^2 */
        for (uint64_t v = 0; v < 256; v++) {
            sum += h.counts[c][v] * v;
            squares += h.counts[c][v] * v * v;
        }
        gpuimg__stats_channel(out, c, out->count, sum, squares, h.counts[c]);
    }
    return GPUIMG_OK;
}
