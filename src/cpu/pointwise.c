/* SPDX-License-Identifier: MIT */
/* Value operations: luma, inversion, histogram equalization, on colour
 * planes (the op table passes alpha through, once for every backend). */
#include <string.h>

#include "cpu.h"

gpuimg_status gpuimg__cpu_grayscale(gpuimg_backend *be, const gpuimg_planes *src,
                                    gpuimg_planes *dst)
{
    (void)be;
    size_t n = gpuimg__plane_size(src);
    if (src->channels < 3) {
        memcpy(dst->plane[0], src->plane[0], n);
    } else {
        const uint8_t *r = src->plane[0], *g = src->plane[1], *b = src->plane[2];
        for (size_t i = 0; i < n; i++)
            dst->plane[0][i] = gpuimg__luma(r[i], g[i], b[i]);
    }
    return GPUIMG_OK;
}

gpuimg_status gpuimg__cpu_invert(gpuimg_backend *be, const gpuimg_planes *src, gpuimg_planes *dst)
{
    (void)be;
    size_t n = gpuimg__plane_size(src);
    for (int c = 0; c < src->channels; c++)
        for (size_t i = 0; i < n; i++)
            dst->plane[c][i] = (uint8_t)(255 - src->plane[c][i]);
    return GPUIMG_OK;
}

/* SPEC §3: lut[v] = round((cdf[v] - cdf[v0]) * 255 / (N - cdf[v0])), v0 the
 * lowest value present; in integers, so ties round up exactly. */
static void equalize_lut(const uint64_t hist[256], uint64_t n, uint8_t lut[256])
{
    int v0 = 0;
    while (hist[v0] == 0)
        v0++;
    uint64_t base = hist[v0], den = n - base, cdf = 0;
    for (int v = 0; v < 256; v++) {
        cdf += hist[v];
        if (den == 0)
            lut[v] = (uint8_t)v; /* one-value channel: unchanged */
        else if (v < v0)
            lut[v] = 0; /* absent values; never looked up */
        else
            lut[v] = (uint8_t)((2 * (cdf - base) * 255 + den) / (2 * den));
    }
}

gpuimg_status gpuimg__cpu_equalize(gpuimg_backend *be, const gpuimg_planes *src, gpuimg_planes *dst)
{
    (void)be;
    size_t n = gpuimg__plane_size(src);
    for (int c = 0; c < src->channels; c++) {
        uint64_t hist[256] = {0};
        uint8_t lut[256];
        for (size_t i = 0; i < n; i++)
            hist[src->plane[c][i]]++;
        equalize_lut(hist, n, lut);
        for (size_t i = 0; i < n; i++)
            dst->plane[c][i] = lut[src->plane[c][i]];
    }
    return GPUIMG_OK;
}
