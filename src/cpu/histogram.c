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
    uint64_t n = gpuimg__plane_size(src);
    out->count = n;
    for (int c = 0; c < src->channels; c++) {
        uint64_t sum = 0, sq = 0, cdf = 0, half = (n + 1) / 2;
        int lo = 256, hi = -1, median = -1;
        for (int v = 0; v < 256; v++) {
            uint64_t k = h.counts[c][v];
            if (k == 0)
                continue;
            if (lo > v)
                lo = v;
            hi = v;
            sum += k * (uint64_t)v;
            sq += k * (uint64_t)v * (uint64_t)v;
            cdf += k;
            if (median < 0 && cdf >= half)
                median = v;
        }
        out->min[c] = (uint8_t)lo;
        out->max[c] = (uint8_t)hi;
        out->median[c] = (uint8_t)median;
        out->sum[c] = sum;
        out->sum_squares[c] = sq;
        out->mean[c] = (double)sum / (double)n;
        /* N·Σv² - (Σv)² is exact in 128 bits (it reaches about 2^76). */
        unsigned __int128 num = (unsigned __int128)n * sq - (unsigned __int128)sum * sum;
        out->stddev[c] = sqrt((double)num) / (double)n;
    }
    return GPUIMG_OK;
}
