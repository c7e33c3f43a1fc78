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
    gpuimg__extend_row(line, w, r, border);
    line[w + 2 * r] = 0; /* read only after the last window */
    /* The running sum is a chain of dependent adds, one a value: four
     * quarters of the row run side by side, so that four chains overlap
     * (each quarter's first window summed whole; exact integers, so the
     * split changes nothing). */
    int q = w / 4, d = 2 * r + 1;
    const uint32_t *l0 = line, *l1 = line + q, *l2 = line + 2 * q, *l3 = line + 3 * q;
    uint32_t *o0 = sums, *o1 = sums + q, *o2 = sums + 2 * q, *o3 = sums + 3 * q;
    uint32_t s0 = 0, s1 = 0, s2 = 0, s3 = 0; /* in registers: four named chains */
    for (int k = 0; k < d; k++)
        s0 += l0[k], s1 += l1[k], s2 += l2[k], s3 += l3[k];
    for (int x = 0; x < q; x++) { /* window centred on x: line[x .. x + 2r] */
        o0[x] = s0, o1[x] = s1, o2[x] = s2, o3[x] = s3;
        s0 += l0[x + d] - l0[x];
        s1 += l1[x + d] - l1[x];
        s2 += l2[x + d] - l2[x];
        s3 += l3[x + d] - l3[x];
    }
    for (int x = 4 * q; x < w; x++) { /* the last quarter's tail */
        sums[x] = s3;
        s3 += line[x + d] - line[x];
    }
}

/* The column sums are kept in double: integers, exact below 2^53 (a whole
 * window, 2001 x 2001 values of 65535, is 2.6e11), and unlike 64-bit
 * integers converted to and from floating point by SSE2 and AVX2 alike. A
 * row's sums fit 32 bits (2001 x 65535). */
GPUIMG_CPU_CLONES
static void add_rows(double *restrict cols, const uint32_t *restrict add,
                     const uint32_t *restrict sub, int w)
{
    for (int x = 0; x < w; x++)
        cols[x] += (double)((int32_t)add[x] - (int32_t)sub[x]);
}

/* Stores a row: the exact round-half-up of cols / area, floor(n / d) for
 * n = 2 cols + area, d = 2 area, as floor((n + 1/2) * (1/d)) in double.
 * n < 2^40 and n + 1/2 is exact; (n + 1/2) / d is at least 1/(2d) from
 * every integer, a relative margin of 1/(2n + 1) > 2^-42, and the
 * product's two roundings move it by under 2^-52: the floor is exact, with
 * no division. Then slides the window down a row in the same pass (cols +=
 * add - sub). */
GPUIMG_CPU_CLONES
static void box_emit(double *restrict cols, const uint32_t *restrict add,
                     const uint32_t *restrict sub, int w, double area, uint8_t *restrict plane,
                     int depth, size_t at)
{
    const double inv = 1.0 / (2.0 * area), half = area + 0.5;
    if (depth == 16) {
        uint16_t *restrict out = (uint16_t *)plane + at;
        for (int x = 0; x < w; x++) {
            out[x] = (uint16_t)(int32_t)((2.0 * cols[x] + half) * inv);
            cols[x] += (double)((int32_t)add[x] - (int32_t)sub[x]);
        }
    } else {
        uint8_t *restrict out = plane + at;
        for (int x = 0; x < w; x++) {
            out[x] = (uint8_t)(int32_t)((2.0 * cols[x] + half) * inv);
            cols[x] += (double)((int32_t)add[x] - (int32_t)sub[x]);
        }
    }
}

/* The row sums a band has added and will subtract again: kept in a ring
 * of 2r + 1 rows where that is small, else made again when they leave
 * (memory O(w) whatever the radius). */
#define BOX_RING_BYTES ((size_t)4 << 20)

/* The sums of virtual row v into `into`, or the row of zeros when v maps
 * outside the image (constant mode). */
static const uint32_t *row_sums(const filter_job *j, int c, long v, uint32_t *line,
                                const uint32_t *zero, uint32_t *into)
{
    int sy = gpuimg__border_index((int)v, j->src->height, j->border);
    if (sy < 0)
        return zero;
    box_row(j->src, c, sy, j->radius, j->border, line, into);
    return into;
}

static int box_band(void *arg, int y0, int y1)
{
    const filter_job *j = arg;
    const gpuimg_planes *src = j->src;
    int w = src->width, r = j->radius, taps = 2 * r + 1;
    size_t row = (size_t)w * sizeof(uint32_t);
    long base = (long)y0 - r;
    uint32_t *line = malloc(((size_t)w + 2 * (size_t)r + 1) * sizeof *line);
    uint32_t *zero = calloc((size_t)w, sizeof *zero);
    uint32_t *in = malloc(row), *out = malloc(row), **ring = NULL;
    double *cols = malloc((size_t)w * sizeof *cols);
    int ok = line && zero && in && out && cols;
    if (ok && (size_t)taps * row <= BOX_RING_BYTES) {
        ok = (ring = calloc((size_t)taps, sizeof *ring)) != NULL;
        for (int k = 0; ok && k < taps; k++)
            ok = (ring[k] = malloc(row)) != NULL;
    }
    double area = (double)taps * (double)taps;
    for (int c = 0; ok && c < src->channels; c++) {
        /* the window of y0: rows y0 - r .. y0 + r (row v in ring slot
         * (v - base) % taps) */
        memset(cols, 0, (size_t)w * sizeof *cols);
        for (long v = base; v <= (long)y0 + r; v++)
            add_rows(cols, row_sums(j, c, v, line, zero, ring ? ring[v - base] : in), zero, w);
        for (int y = y0; y < y1; y++) {
            uint8_t *plane = j->dst->plane[c];
            if (y + 1 == y1) { /* the band's last row: no slide */
                box_emit(cols, zero, zero, w, area, plane, j->dst->depth, (size_t)y * w);
                break;
            }
            /* store row y, and slide down: row y - r leaves, row y + r + 1
             * enters */
            long leave = (long)y - r, enter = (long)y + r + 1;
            int leaves = gpuimg__border_index((int)leave, src->height, j->border) >= 0;
            const uint32_t *e = row_sums(j, c, enter, line, zero, in);
            if (ring) { /* the entering row takes the leaving one's slot */
                uint32_t **slot = &ring[(leave - base) % taps];
                box_emit(cols, e, leaves ? *slot : zero, w, area, plane, j->dst->depth,
                         (size_t)y * w);
                if (e == in) { /* swap: the old slot is the next spare */
                    in = *slot;
                    *slot = (uint32_t *)e;
                }
            } else {
                const uint32_t *l = leaves ? row_sums(j, c, leave, line, zero, out) : zero;
                box_emit(cols, e, l, w, area, plane, j->dst->depth, (size_t)y * w);
            }
        }
    }
    for (int k = 0; ring && k < taps; k++)
        free(ring[k]);
    free(ring);
    free(line);
    free(zero);
    free(in);
    free(out);
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
