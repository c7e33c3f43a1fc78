/* SPDX-License-Identifier: MIT */
/* Separable filters: the Gaussian blur (rows, then columns, float
 * intermediate never rounded) and the box mean (exact integer window sums).
 *
 * Both run in bands of output rows (parallel.c), and within a band fuse
 * their passes: a row's horizontal results go into a ring of rows as the
 * band moves down, and each output row is made from the ring. So the
 * intermediate is a few rows per thread, in cache, never the whole image;
 * a band computes its 2r halo rows again (a few per cent). */
#include <stdlib.h>
#include <string.h>

#include "cpu.h"

typedef struct filter_job {
    const gpuimg_planes *src;
    gpuimg_planes *dst;
    const float *weights;
    int radius;
    gpuimg_border border;
} filter_job;

static int blur_band(void *arg, int y0, int y1)
{
    const filter_job *j = arg;
    const gpuimg_planes *src = j->src;
    int w = src->width, h = src->height, r = j->radius, taps = 2 * r + 1;
    float *line = malloc(((size_t)w + 2 * (size_t)r) * sizeof *line);
    float *ring = malloc((size_t)taps * (size_t)w * sizeof *ring);
    float *acc = malloc((size_t)w * sizeof *acc);
    const float **rows = malloc((size_t)taps * sizeof *rows);
    float *wk = malloc((size_t)taps * sizeof *wk);
    int ok = line && ring && acc && rows && wk;
    const float *one_row[1];
    /* Virtual row v (y0 - r <= v < y1 + r, border-mapped when outside the
     * image) has its row pass in ring slot (v - base) % taps: an output
     * row needs exactly the taps rows around it. */
    long base = (long)y0 - r;
    for (int c = 0; ok && c < src->channels; c++) {
        long next = base; /* the next virtual row to filter */
        for (int y = y0; y < y1; y++) {
            for (; next <= (long)y + r; next++) {
                int sy = gpuimg__border_index((int)next, h, j->border);
                if (sy < 0)
                    continue; /* constant border: a row of zeros, skipped below */
                gpuimg__row_to_float(src, c, sy, r, j->border, line);
                one_row[0] = line;
                gpuimg__rows_dot(one_row, 1, j->weights, taps, w,
                                 ring + (size_t)((next - base) % taps) * w);
            }
            /* the column pass over the rows in the image (a constant
             * border's zero rows add nothing) */
            int n = 0;
            for (int k = 0; k < taps; k++) {
                long v = (long)y - r + k;
                if (gpuimg__border_index((int)v, h, j->border) < 0)
                    continue;
                rows[n] = ring + (size_t)((v - base) % taps) * w;
                wk[n++] = j->weights[k];
            }
            gpuimg__rows_dot(rows, n, wk, 1, w, acc);
            gpuimg__store_row(acc, (size_t)w, j->dst->plane[c], j->dst->depth, (size_t)y * w);
        }
    }
    free(line);
    free(ring);
    free(acc);
    free(rows);
    free(wk);
    return ok;
}

gpuimg_status gpuimg__cpu_blur(gpuimg_backend *be, const gpuimg_planes *src, gpuimg_planes *dst,
                               const float *weights, int radius, gpuimg_border border)
{
    filter_job j = {src, dst, weights, radius, border};
    /* bands of at least 4 halos' height: the repeated rows stay under 25% */
    return gpuimg__cpu_bands(be, src->height, 8 * radius + 8, blur_band, &j);
}

/* ---- box: running sums ---- */

/* Row y's window sums, sums[x] = sum of the 2r + 1 values around x with
 * the border mapped (exact: 2001 values of 65535 fit 32 bits). line holds
 * w + 2r + 1 values. One add and one subtract per value whatever r. */
static void box_row(const gpuimg_planes *p, int c, int y, int r, gpuimg_border border,
                    uint32_t *restrict line, uint32_t *restrict sums)
{
    int w = p->width;
    size_t at = (size_t)y * (size_t)w;
    if (p->depth == 16) {
        const uint16_t *restrict row = (const uint16_t *)p->plane[c] + at;
        for (int x = 0; x < w; x++)
            line[x + r] = row[x];
    } else {
        const uint8_t *restrict row = p->plane[c] + at;
        for (int x = 0; x < w; x++)
            line[x + r] = row[x];
    }
    for (int x = -r; x < 0; x++) {
        int i = gpuimg__border_index(x, w, border);
        line[x + r] = i < 0 ? 0 : line[r + i];
    }
    for (int x = w; x < w + r; x++) {
        int i = gpuimg__border_index(x, w, border);
        line[x + r] = i < 0 ? 0 : line[r + i];
    }
    line[w + 2 * r] = 0; /* read only after the last window */
    uint32_t s = 0;
    for (int k = 0; k < 2 * r + 1; k++)
        s += line[k];
    for (int x = 0; x < w; x++) {
        sums[x] = s; /* window centred on x: line[x .. x + 2r] */
        s += line[x + 2 * r + 1] - line[x];
    }
}

GPUIMG_CPU_CLONES
static void add_rows(uint64_t *restrict cols, const uint32_t *restrict add,
                     const uint32_t *restrict sub, int w)
{
    for (int x = 0; x < w; x++)
        cols[x] += (uint64_t)add[x] - (uint64_t)sub[x];
}

/* Exact round-half-up of cols / area: (2 cols + area) / (2 area), in
 * double, which is exact here: a quotient q of n < 2^53 is never within
 * one part in 2^53 of an integer it is not. */
GPUIMG_CPU_CLONES
static void box_store(const uint64_t *restrict cols, int w, uint64_t area, uint8_t *restrict plane,
                      int depth, size_t at)
{
    const double den = 2.0 * (double)area;
    if (depth == 16) {
        uint16_t *restrict out = (uint16_t *)plane + at;
        for (int x = 0; x < w; x++)
            out[x] = (uint16_t)(uint32_t)((double)(2 * cols[x] + area) / den);
    } else {
        uint8_t *restrict out = plane + at;
        for (int x = 0; x < w; x++)
            out[x] = (uint8_t)(uint32_t)((double)(2 * cols[x] + area) / den);
    }
}

static int box_band(void *arg, int y0, int y1)
{
    const filter_job *j = arg;
    const gpuimg_planes *src = j->src;
    int w = src->width, h = src->height, r = j->radius;
    uint32_t *line = malloc(((size_t)w + 2 * (size_t)r + 1) * sizeof *line);
    uint32_t *in = malloc((size_t)w * sizeof *in), *out = malloc((size_t)w * sizeof *out);
    uint32_t *zero = calloc((size_t)w, sizeof *zero);
    uint64_t *cols = malloc((size_t)w * sizeof *cols);
    int ok = line && in && out && zero && cols;
    uint64_t area = (uint64_t)(2 * r + 1) * (uint64_t)(2 * r + 1);
    for (int c = 0; ok && c < src->channels; c++) {
        /* the window of y0: rows y0 - r .. y0 + r; a row mapped to -1
         * (constant mode) adds nothing */
        memset(cols, 0, (size_t)w * sizeof *cols);
        for (int v = y0 - r; v <= y0 + r; v++) {
            int sy = gpuimg__border_index(v, h, j->border);
            if (sy < 0)
                continue;
            box_row(src, c, sy, r, j->border, line, in);
            add_rows(cols, in, zero, w);
        }
        for (int y = y0; y < y1; y++) {
            box_store(cols, w, area, j->dst->plane[c], j->dst->depth, (size_t)y * w);
            if (y + 1 == y1)
                break;
            /* slide down one row: row y + r + 1 enters, row y - r leaves
             * (its sums made again rather than kept: memory stays O(w)
             * whatever the radius) */
            int add = gpuimg__border_index(y + r + 1, h, j->border);
            int sub = gpuimg__border_index(y - r, h, j->border);
            const uint32_t *a = zero, *s = zero;
            if (add >= 0) {
                box_row(src, c, add, r, j->border, line, in);
                a = in;
            }
            if (sub >= 0) {
                box_row(src, c, sub, r, j->border, line, out);
                s = out;
            }
            add_rows(cols, a, s, w);
        }
    }
    free(line);
    free(in);
    free(out);
    free(zero);
    free(cols);
    return ok;
}

gpuimg_status gpuimg__cpu_box(gpuimg_backend *be, const gpuimg_planes *src, gpuimg_planes *dst,
                              int radius, gpuimg_border border)
{
    filter_job j = {src, dst, NULL, radius, border};
    /* a band's start sums 2r + 1 rows: bands of at least that many */
    return gpuimg__cpu_bands(be, src->height, 2 * radius + 16, box_band, &j);
}
