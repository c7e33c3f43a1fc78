/* SPDX-License-Identifier: MIT */
/* Value operations: luma, inversion, histogram equalization (per channel or
 * of the luma), a per-value operation's table (map_lut), on colour planes
 * (the op table passes alpha through, once for every backend). 8 or 16
 * bits: a table of 256 or 65536 entries. Each runs over bands of rows
 * (parallel.c), a typed loop per depth. */
#include <stdlib.h>
#include <string.h>

#include "cpu.h"

/* Bands of a pointwise pass: 64K values at least. */
static int pointwise_rows(const gpuimg_planes *p)
{
    return (int)((65536 + (size_t)p->width - 1) / (size_t)p->width);
}

typedef struct value_job {
    const gpuimg_planes *src;
    gpuimg_planes *dst;
    const uint32_t *lut[3];    /* equalize: a table per plane */
    const gpuimg_planes *luma; /* equalize --luma */
    const uint8_t *lut8;       /* map_lut: the table of the planes' depth */
    const uint16_t *lut16;
} value_job;

GPUIMG_CPU_CLONES
static void luma8(const uint8_t *restrict r, const uint8_t *restrict g, const uint8_t *restrict b,
                  uint8_t *restrict y, size_t n)
{
    for (size_t i = 0; i < n; i++)
        y[i] = gpuimg__luma(r[i], g[i], b[i]);
}

GPUIMG_CPU_CLONES
static void luma16(const uint16_t *restrict r, const uint16_t *restrict g,
                   const uint16_t *restrict b, uint16_t *restrict y, size_t n)
{
    for (size_t i = 0; i < n; i++)
        y[i] = gpuimg__luma16(r[i], g[i], b[i]);
}

static int gray_band(void *arg, int y0, int y1)
{
    const value_job *j = arg;
    const gpuimg_planes *s = j->src;
    size_t w = (size_t)s->width, at = (size_t)y0 * w, n = (size_t)(y1 - y0) * w;
    size_t vs = gpuimg__value_size(s->depth);
    if (s->channels < 3)
        memcpy(j->dst->plane[0] + at * vs, s->plane[0] + at * vs, n * vs);
    else if (s->depth == 16)
        luma16((const uint16_t *)s->plane[0] + at, (const uint16_t *)s->plane[1] + at,
               (const uint16_t *)s->plane[2] + at, (uint16_t *)j->dst->plane[0] + at, n);
    else
        luma8(s->plane[0] + at, s->plane[1] + at, s->plane[2] + at, j->dst->plane[0] + at, n);
    return 1;
}

gpuimg_status gpuimg__cpu_grayscale(gpuimg_backend *be, const gpuimg_planes *src,
                                    gpuimg_planes *dst)
{
    value_job j = {.src = src, .dst = dst};
    return gpuimg__cpu_bands(be, src->height, pointwise_rows(src), gray_band, &j);
}

GPUIMG_CPU_CLONES
static void invert_values(const uint8_t *restrict in, uint8_t *restrict out, int depth, size_t n)
{
    if (depth == 16) {
        const uint16_t *restrict a = (const uint16_t *)in;
        uint16_t *restrict b = (uint16_t *)out;
        for (size_t i = 0; i < n; i++)
            b[i] = (uint16_t)(65535 - a[i]);
    } else {
        for (size_t i = 0; i < n; i++)
            out[i] = (uint8_t)(255 - in[i]);
    }
}

static int invert_band(void *arg, int y0, int y1)
{
    const value_job *j = arg;
    const gpuimg_planes *s = j->src;
    size_t w = (size_t)s->width, vs = gpuimg__value_size(s->depth);
    size_t at = (size_t)y0 * w * vs, n = (size_t)(y1 - y0) * w;
    for (int c = 0; c < s->channels; c++)
        invert_values(s->plane[c] + at, j->dst->plane[c] + at, s->depth, n);
    return 1;
}

gpuimg_status gpuimg__cpu_invert(gpuimg_backend *be, const gpuimg_planes *src, gpuimg_planes *dst)
{
    value_job j = {.src = src, .dst = dst};
    return gpuimg__cpu_bands(be, src->height, pointwise_rows(src), invert_band, &j);
}

static int map_band(void *arg, int y0, int y1)
{
    const value_job *j = arg;
    const gpuimg_planes *s = j->src;
    size_t w = (size_t)s->width, at = (size_t)y0 * w, n = (size_t)(y1 - y0) * w;
    for (int c = 0; c < s->channels; c++) {
        if (s->depth == 16) { /* a loop per depth: no test per value */
            const uint16_t *restrict lut = j->lut16, *restrict in =
                                                         (const uint16_t *)s->plane[c] + at;
            uint16_t *restrict out = (uint16_t *)j->dst->plane[c] + at;
            for (size_t i = 0; i < n; i++)
                out[i] = lut[in[i]];
        } else {
            const uint8_t *restrict lut = j->lut8, *restrict in = s->plane[c] + at;
            uint8_t *restrict out = j->dst->plane[c] + at;
            for (size_t i = 0; i < n; i++)
                out[i] = lut[in[i]];
        }
    }
    return 1;
}

gpuimg_status gpuimg__cpu_map_lut(gpuimg_backend *be, const gpuimg_planes *src, gpuimg_planes *dst,
                                  const uint8_t *lut8, const uint16_t *lut16)
{
    value_job j = {.src = src, .dst = dst, .lut8 = lut8, .lut16 = lut16};
    return gpuimg__cpu_bands(be, src->height, pointwise_rows(src), map_band, &j);
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

/* The tables of the first `planes` planes of p, counted on the pool;
 * luts[c] each of 256 or 65536 entries. */
static gpuimg_status plane_luts(gpuimg_backend *be, const gpuimg_planes *p, int planes,
                                uint32_t *luts[3])
{
    uint32_t values = gpuimg__max_value(p->depth) + 1;
    gpuimg_histogram h = {.channels = planes, .depth = p->depth, .bins = (int)values};
    int ok = 1;
    for (int c = 0; c < planes; c++) {
        h.counts[c] = calloc(values, sizeof *h.counts[c]);
        luts[c] = malloc(values * sizeof *luts[c]);
        ok = ok && h.counts[c] && luts[c];
    }
    gpuimg_planes first = *p;
    first.channels = planes;
    gpuimg_status st = ok ? gpuimg__cpu_histogram(be, &first, &h) : gpuimg__cpu_nomem(be);
    for (int c = 0; st == GPUIMG_OK && c < planes; c++)
        equalize_lut(h.counts[c], values, gpuimg__plane_size(p), luts[c]);
    for (int c = 0; c < planes; c++)
        free(h.counts[c]);
    return st;
}

static int equalize_band(void *arg, int y0, int y1)
{
    const value_job *j = arg;
    const gpuimg_planes *s = j->src;
    size_t w = (size_t)s->width, at = (size_t)y0 * w, n = (size_t)(y1 - y0) * w;
    for (int c = 0; c < s->channels; c++) {
        const uint32_t *restrict lut = j->lut[c];
        if (s->depth == 16) { /* a loop per depth: no test per value */
            const uint16_t *restrict in = (const uint16_t *)s->plane[c] + at;
            uint16_t *restrict out = (uint16_t *)j->dst->plane[c] + at;
            for (size_t i = 0; i < n; i++)
                out[i] = (uint16_t)lut[in[i]];
        } else {
            const uint8_t *restrict in = s->plane[c] + at;
            uint8_t *restrict out = j->dst->plane[c] + at;
            for (size_t i = 0; i < n; i++)
                out[i] = (uint8_t)lut[in[i]];
        }
    }
    return 1;
}

gpuimg_status gpuimg__cpu_equalize(gpuimg_backend *be, const gpuimg_planes *src, gpuimg_planes *dst)
{
    uint32_t *luts[3] = {NULL, NULL, NULL};
    gpuimg_status st = plane_luts(be, src, src->channels, luts);
    value_job j = {.src = src, .dst = dst, .lut = {luts[0], luts[1], luts[2]}};
    if (st == GPUIMG_OK)
        st = gpuimg__cpu_bands(be, src->height, pointwise_rows(src), equalize_band, &j);
    for (int c = 0; c < 3; c++)
        free(luts[c]);
    return st;
}

/* equalize --luma: each colour value scaled by lut[Y] / Y, rounded half up
 * in integers and clamped, so hue is kept (c * lut[Y] * 2 < 2^33: 64
 * bits). */
#define LUMA_SCALE(T)                                                                              \
    for (size_t i = 0; i < n; i++) {                                                               \
        uint64_t y = ((const T *)ys)[i], to = lut[y];                                              \
        for (int c = 0; c < 3; c++) {                                                              \
            uint64_t v = y == 0 ? to : (2 * (uint64_t)((const T *)in[c])[i] * to + y) / (2 * y);   \
            ((T *)out[c])[i] = (T)(v < top ? v : top);                                             \
        }                                                                                          \
    }

static int luma_band(void *arg, int y0, int y1)
{
    const value_job *j = arg;
    const gpuimg_planes *s = j->src;
    size_t w = (size_t)s->width, vs = gpuimg__value_size(s->depth);
    size_t at = (size_t)y0 * w * vs, n = (size_t)(y1 - y0) * w;
    const uint32_t *lut = j->lut[0];
    const uint8_t *ys = j->luma->plane[0] + at, *in[3];
    uint8_t *out[3];
    for (int c = 0; c < 3; c++)
        in[c] = s->plane[c] + at, out[c] = j->dst->plane[c] + at;
    uint64_t top = gpuimg__max_value(s->depth);
    if (s->depth == 16)
        LUMA_SCALE(uint16_t)
    else
        LUMA_SCALE(uint8_t)
    return 1;
}

gpuimg_status gpuimg__cpu_equalize_luma(gpuimg_backend *be, const gpuimg_planes *src,
                                        gpuimg_planes *dst)
{
    gpuimg_planes luma = {src->width, src->height, 1, src->depth, {NULL}};
    if (!(luma.plane[0] = malloc(gpuimg__plane_bytes(&luma))))
        return gpuimg__cpu_nomem(be);
    uint32_t *luts[3] = {NULL, NULL, NULL};
    gpuimg_status st = gpuimg__cpu_grayscale(be, src, &luma);
    if (st == GPUIMG_OK)
        st = plane_luts(be, &luma, 1, luts);
    value_job j = {.src = src, .dst = dst, .lut = {luts[0]}, .luma = &luma};
    if (st == GPUIMG_OK)
        st = gpuimg__cpu_bands(be, src->height, pointwise_rows(src), luma_band, &j);
    free(luts[0]);
    free(luma.plane[0]);
    return st;
}
