/* SPDX-License-Identifier: MIT */
/* 2-D convolution (the kernel applied as written, like filter2D) and the
 * Sobel gradient magnitude, in bands of output rows (parallel.c). A band
 * keeps the kernel's height of border-padded float rows in a ring as it
 * moves down, so the inner loops carry no border tests and no padded copy
 * of the whole plane is made. */
#include <stdlib.h>
#include <string.h>

#include "cpu.h"

/* The rows a band reads, padded: virtual row v (border-mapped; a row of
 * zeros in constant mode) in slot (v - base) % n. */
typedef struct ring {
    const gpuimg_planes *src;
    int c, rx, n;
    gpuimg_border border;
    long base, next; /* the next virtual row to read */
    size_t pw;       /* padded width */
    float *rows;
} ring;

static int ring_open(ring *g, const gpuimg_planes *src, int rx, int ry, gpuimg_border border,
                     int y0)
{
    *g = (ring){.src = src, .rx = rx, .n = 2 * ry + 1, .border = border};
    g->base = g->next = (long)y0 - ry;
    g->pw = (size_t)src->width + 2 * (size_t)rx;
    g->rows = malloc((size_t)g->n * g->pw * sizeof *g->rows);
    return g->rows != NULL;
}

/* Fills the ring up to virtual row `last`. */
static void ring_fill(ring *g, long last)
{
    int h = g->src->height;
    for (; g->next <= last; g->next++) {
        float *row = g->rows + (size_t)((g->next - g->base) % g->n) * g->pw;
        int sy = gpuimg__border_index((int)g->next, h, g->border);
        if (sy < 0)
            memset(row, 0, g->pw * sizeof *row);
        else
            gpuimg__row_to_float(g->src, g->c, sy, g->rx, g->border, row);
    }
}

static const float *ring_row(const ring *g, long v)
{
    return g->rows + (size_t)((v - g->base) % g->n) * g->pw;
}

typedef struct conv_job {
    const gpuimg_planes *src;
    gpuimg_planes *dst;
    const gpuimg_conv *k;
    gpuimg_border border;
} conv_job;

GPUIMG_CPU_CLONES
static void scale_bias(float *restrict v, int n, float scale, float bias, int absolute)
{
    if (absolute)
        for (int x = 0; x < n; x++)
            v[x] = fabsf(v[x] * scale + bias);
    else
        for (int x = 0; x < n; x++)
            v[x] = v[x] * scale + bias;
}

static int convolve_band(void *arg, int y0, int y1)
{
    const conv_job *j = arg;
    const gpuimg_conv *k = j->k;
    int w = j->src->width, rx = k->width / 2, ry = k->height / 2;
    ring g;
    int ok = ring_open(&g, j->src, rx, ry, j->border, y0);
    float *out = malloc((size_t)w * sizeof *out);
    const float **rows = malloc((size_t)k->height * sizeof *rows);
    ok = ok && out && rows;
    for (int c = 0; ok && c < j->src->channels; c++) {
        g.c = c;
        g.next = g.base;
        for (int y = y0; y < y1; y++) {
            ring_fill(&g, (long)y + ry);
            for (int i = 0; i < k->height; i++)
                rows[i] = ring_row(&g, (long)y - ry + i);
            gpuimg__rows_dot(rows, k->height, k->weights, k->width, w, out);
            scale_bias(out, w, k->scale, k->bias, k->absolute);
            gpuimg__store_row(out, (size_t)w, j->dst->plane[c], j->dst->depth, (size_t)y * w);
        }
    }
    free(g.rows);
    free(out);
    free(rows);
    return ok;
}

gpuimg_status gpuimg__cpu_convolve(gpuimg_backend *be, const gpuimg_planes *src, gpuimg_planes *dst,
                                   const gpuimg_conv *k, gpuimg_border border)
{
    conv_job j = {src, dst, k, border};
    return gpuimg__cpu_bands(be, src->height, 4 * k->height + 8, convolve_band, &j);
}

GPUIMG_CPU_CLONES
static void sobel_row(const float *restrict t, const float *restrict m, const float *restrict b,
                      int n, float *restrict out)
{
    for (int x = 0; x < n; x++) {
        float gx = (t[x + 2] - t[x]) + 2.0f * (m[x + 2] - m[x]) + (b[x + 2] - b[x]);
        float gy = (b[x] - t[x]) + 2.0f * (b[x + 1] - t[x + 1]) + (b[x + 2] - t[x + 2]);
        out[x] = sqrtf(gx * gx + gy * gy);
    }
}

static int sobel_band(void *arg, int y0, int y1)
{
    const conv_job *j = arg;
    int w = j->src->width;
    ring g;
    int ok = ring_open(&g, j->src, 1, 1, j->border, y0);
    float *out = malloc((size_t)w * sizeof *out);
    ok = ok && out;
    for (int c = 0; ok && c < j->src->channels; c++) {
        g.c = c;
        g.next = g.base;
        for (int y = y0; y < y1; y++) {
            ring_fill(&g, (long)y + 1);
            sobel_row(ring_row(&g, y - 1), ring_row(&g, y), ring_row(&g, y + 1), w, out);
            gpuimg__store_row(out, (size_t)w, j->dst->plane[c], j->dst->depth, (size_t)y * w);
        }
    }
    free(g.rows);
    free(out);
    return ok;
}

gpuimg_status gpuimg__cpu_sobel(gpuimg_backend *be, const gpuimg_planes *src, gpuimg_planes *dst,
                                gpuimg_border border)
{
    conv_job j = {src, dst, NULL, border};
    return gpuimg__cpu_bands(be, src->height, 16, sobel_band, &j);
}
