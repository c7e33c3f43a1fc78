/* SPDX-License-Identifier: MIT */
/* Value operations: luma, inversion, histogram equalization (per channel or
 * of the luma), on colour planes (the op table passes alpha through, once
 * for every backend). 8 or 16 bits: a table of 256 or 65536 entries. */
#include <stdlib.h>
#include <string.h>

#include "cpu.h"

gpuimg_status gpuimg__cpu_grayscale(gpuimg_backend *be, const gpuimg_planes *src,
                                    gpuimg_planes *dst)
{
    (void)be;
    size_t n = gpuimg__plane_size(src);
    if (src->channels < 3) {
        memcpy(dst->plane[0], src->plane[0], gpuimg__plane_bytes(src));
    } else if (src->depth == 16) {
        const uint16_t *r = (const uint16_t *)src->plane[0], *g = (const uint16_t *)src->plane[1],
                       *b = (const uint16_t *)src->plane[2];
        uint16_t *y = (uint16_t *)dst->plane[0];
        for (size_t i = 0; i < n; i++)
            y[i] = gpuimg__luma16(r[i], g[i], b[i]);
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
    for (int c = 0; c < src->channels; c++) {
        if (src->depth == 16) {
            const uint16_t *in = (const uint16_t *)src->plane[c];
            uint16_t *out = (uint16_t *)dst->plane[c];
            for (size_t i = 0; i < n; i++)
                out[i] = (uint16_t)(65535 - in[i]);
        } else {
            for (size_t i = 0; i < n; i++)
                dst->plane[c][i] = (uint8_t)(255 - src->plane[c][i]);
        }
    }
    return GPUIMG_OK;
}

/* SPEC §3: lut[v] = round((cdf[v] - cdf[v0]) * M / (N - cdf[v0])), v0 the
 * lowest value present, M = 255 or 65535, over `values` entries; in
 * integers, so ties round up exactly (2 * 2^30 * 65535 fits 64 bits). */
static void equalize_lut(const uint64_t *hist, uint32_t values, uint64_t n, uint32_t *lut)
{
    uint32_t v0 = 0, top = values - 1;
    while (hist[v0] == 0)
        v0++;
    uint64_t base = hist[v0], den = n - base, cdf = 0;
    for (uint32_t v = 0; v < values; v++) {
        cdf += hist[v];
        if (den == 0)
            lut[v] = v; /* one-value channel: unchanged */
        else if (v < v0)
            lut[v] = 0; /* absent values; never looked up */
        else
            lut[v] = (uint32_t)((2 * (cdf - base) * top + den) / (2 * den));
    }
}

/* The histogram of one plane and its table; 0 when out of memory. */
static uint32_t *plane_lut(const uint8_t *plane, int depth, size_t n)
{
    uint32_t values = gpuimg__max_value(depth) + 1;
    uint64_t *hist = calloc(values, sizeof *hist);
    uint32_t *lut = malloc(values * sizeof *lut);
    if (hist && lut) {
        if (depth == 16)
            for (size_t i = 0; i < n; i++)
                hist[((const uint16_t *)plane)[i]]++;
        else
            for (size_t i = 0; i < n; i++)
                hist[plane[i]]++;
        equalize_lut(hist, values, n, lut);
    } else {
        free(lut);
        lut = NULL;
    }
    free(hist);
    return lut;
}

gpuimg_status gpuimg__cpu_equalize(gpuimg_backend *be, const gpuimg_planes *src, gpuimg_planes *dst)
{
    size_t n = gpuimg__plane_size(src);
    for (int c = 0; c < src->channels; c++) {
        uint32_t *lut = plane_lut(src->plane[c], src->depth, n);
        if (!lut)
            return gpuimg__cpu_nomem(be);
        if (src->depth == 16) { /* a loop per depth: no test per value */
            const uint16_t *in = (const uint16_t *)src->plane[c];
            uint16_t *out = (uint16_t *)dst->plane[c];
            for (size_t i = 0; i < n; i++)
                out[i] = (uint16_t)lut[in[i]];
        } else {
            for (size_t i = 0; i < n; i++)
                dst->plane[c][i] = (uint8_t)lut[src->plane[c][i]];
        }
        free(lut);
    }
    return GPUIMG_OK;
}

/* equalize --luma: the table of the rounded luma Y; each colour value
 * scaled by lut[Y] / Y, rounded half up in integers and clamped, so hue is
 * kept (c * lut[Y] * 2 < 2^33: 64 bits). */
gpuimg_status gpuimg__cpu_equalize_luma(gpuimg_backend *be, const gpuimg_planes *src,
                                        gpuimg_planes *dst)
{
    size_t n = gpuimg__plane_size(src);
    int depth = src->depth;
    uint32_t top = gpuimg__max_value(depth);
    gpuimg_planes luma = {src->width, src->height, 1, depth, {NULL}};
    if (!(luma.plane[0] = malloc(gpuimg__plane_bytes(&luma))))
        return gpuimg__cpu_nomem(be);
    gpuimg__cpu_grayscale(be, src, &luma);
    uint32_t *lut = plane_lut(luma.plane[0], depth, n);
    if (!lut) {
        free(luma.plane[0]);
        return gpuimg__cpu_nomem(be);
    }
    for (size_t i = 0; i < n; i++) {
        uint64_t y = gpuimg__get(luma.plane[0], depth, i), to = lut[y];
        for (int c = 0; c < 3; c++) {
            uint64_t v =
                y == 0 ? to : (2 * gpuimg__get(src->plane[c], depth, i) * to + y) / (2 * y);
            gpuimg__put(dst->plane[c], depth, i, (uint32_t)(v < top ? v : top));
        }
    }
    free(lut);
    free(luma.plane[0]);
    return GPUIMG_OK;
}
