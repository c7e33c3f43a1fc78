/* SPDX-License-Identifier: MIT */
/* Host arithmetic shared by the backends: the doubles of stats and compare
 * computed from exact integer sums, one formula for both. */
#include <math.h>
#include <string.h>

#include "core/backend.h"

/* One channel's figures: SPEC §3's stats, exact sums in 64 bits. */
static void stats_channel(gpuimg_stats *out, int c, uint64_t n, const uint64_t *counts, int bins)
{
    uint64_t sum = 0, squares = 0; /* exact: at most 2^30 * 65535^2 < 2^62 */
    for (uint64_t v = 0; v < (uint64_t)bins; v++) {
        sum += counts[v] * v;
        squares += counts[v] * v * v;
    }
    int lo = 0, hi = bins - 1, median = 0;
    while (counts[lo] == 0)
        lo++;
    while (counts[hi] == 0)
        hi--;
    uint64_t cdf = 0, half = (n + 1) / 2; /* the smallest v with cdf[v] >= ceil(N/2) */
    while ((cdf += counts[median]) < half)
        median++;
    out->min[c] = lo;
    out->max[c] = hi;
    out->median[c] = median;
    out->sum[c] = sum;
    out->sum_squares[c] = squares;
    out->mean[c] = (double)sum / (double)n;
    /* N·Σv² - (Σv)² is exact in 128 bits (it reaches about 2^92). */
    unsigned __int128 num = (unsigned __int128)n * squares - (unsigned __int128)sum * sum;
    out->stddev[c] = sqrt((double)num) / (double)n;
}

void gpuimg__stats_from_histogram(const gpuimg_histogram *h, uint64_t n, gpuimg_stats *out)
{
    memset(out, 0, sizeof *out);
    out->channels = h->channels;
    out->depth = h->depth;
    out->count = n;
    for (int c = 0; c < h->channels; c++)
        stats_channel(out, c, n, h->counts[c], h->bins);
}

void gpuimg__ssim_window(double g[GPUIMG_SSIM_TAPS])
{
    double sum = 0.0;
    for (int k = 0; k < GPUIMG_SSIM_TAPS; k++) {
        double d = k - GPUIMG_SSIM_RADIUS;
        g[k] = exp(-d * d / (2.0 * 1.5 * 1.5));
        sum += g[k];
    }
    for (int k = 0; k < GPUIMG_SSIM_TAPS; k++)
        g[k] /= sum;
}
