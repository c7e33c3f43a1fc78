/* SPDX-License-Identifier: MIT */
/* SSIM (Wang et al. 2004) as skimage computes it with Gaussian weights:
 * σ = 1.5 truncated at radius 5, population (co)variances; the map summed
 * over the pixels at least 5 from every edge that are not ignored (the host
 * averages it, src/compare.c).
 *
 * Only pixels at least SSIM_RADIUS from every edge are averaged, and their
 * windows lie wholly inside the image, so the `reflect` border that skimage
 * filters with never reaches the figure and no border is computed here.
 * The five window sums (x, y, x², y², xy) are separable: each row's
 * horizontal sums go into a ring of SSIM_TAPS rows, and each output row
 * sums its ring vertically, so memory is O(width) per thread.
 *
 * In double: float's 24 bits would lose the variances (x² - mean², both
 * near 65025) to cancellation. Bands of output rows over the pool; each
 * output row's sum is kept, and the rows are added in order at the end, so
 * the figure does not depend on the thread count. */
#include <stdlib.h>
#include <string.h>

#include "cpu.h"

#define SSIM_RADIUS GPUIMG_SSIM_RADIUS
#define SSIM_TAPS GPUIMG_SSIM_TAPS
#define STATS 5 /* x, y, x², y², xy */

/* Four doubles as one value (vector extensions: one AVX register, or two
 * SSE2 ones); aligned(8): loaded from any double. */
typedef double vd4 __attribute__((vector_size(32), aligned(8), may_alias));
#define load4(p) (*(const vd4 *)(p))

typedef struct ssim_job {
    const gpuimg_planes *a, *b;
    const uint8_t *ignore;
    double g[SSIM_TAPS];
    double *row_sums; /* channels x output rows */
} ssim_job;

/* Row values as doubles on the 8-bit scale: SSIM with L = 65535 is SSIM
 * of v / 257 with L = 255 (backend.h). */
static void to_double(const uint8_t *plane, int depth, size_t at, int n, double *out)
{
    if (depth == 16) {
        const uint16_t *v = (const uint16_t *)plane + at;
        for (int i = 0; i < n; i++)
            out[i] = v[i] * (1.0 / 257.0);
    } else {
        const uint8_t *v = plane + at;
        for (int i = 0; i < n; i++)
            out[i] = v[i] * 1.0;
    }
}

/* The five horizontal window sums of one row, each summed from k = 0:
 * eight outputs at a time (ten chains of adds in flight, not five). */
GPUIMG_CPU_CLONES
static void horizontal(const double *restrict x, const double *restrict y, const double *g,
                       int inner, double *restrict q)
{
    double *restrict sx = q, *restrict sy = q + inner, *restrict sxx = q + 2 * inner,
                     *restrict syy = q + 3 * inner, *restrict sxy = q + 4 * inner;
    int i = 0;
    for (; i + 8 <= inner; i += 8) {
        vd4 a0 = {0}, b0 = {0}, aa0 = {0}, bb0 = {0}, ab0 = {0};
        vd4 a1 = {0}, b1 = {0}, aa1 = {0}, bb1 = {0}, ab1 = {0};
        for (int k = 0; k < SSIM_TAPS; k++) {
            double w = g[k];
            vd4 u = load4(x + i + k), v = load4(y + i + k);
            a0 += w * u, b0 += w * v, aa0 += w * u * u, bb0 += w * v * v, ab0 += w * u * v;
            u = load4(x + i + k + 4), v = load4(y + i + k + 4);
            a1 += w * u, b1 += w * v, aa1 += w * u * u, bb1 += w * v * v, ab1 += w * u * v;
        }
        *(vd4 *)(sx + i) = a0, *(vd4 *)(sy + i) = b0, *(vd4 *)(sxx + i) = aa0;
        *(vd4 *)(syy + i) = bb0, *(vd4 *)(sxy + i) = ab0;
        *(vd4 *)(sx + i + 4) = a1, *(vd4 *)(sy + i + 4) = b1, *(vd4 *)(sxx + i + 4) = aa1;
        *(vd4 *)(syy + i + 4) = bb1, *(vd4 *)(sxy + i + 4) = ab1;
    }
    for (; i < inner; i++) {
        double a = 0, b = 0, aa = 0, bb = 0, ab = 0;
        for (int k = 0; k < SSIM_TAPS; k++) {
            double u = x[i + k], v = y[i + k];
            a += g[k] * u;
            b += g[k] * v;
            aa += g[k] * u * u;
            bb += g[k] * v * v;
            ab += g[k] * u * v;
        }
        sx[i] = a, sy[i] = b, sxx[i] = aa, syy[i] = bb, sxy[i] = ab;
    }
}

/* One output row: the vertical sums of the ring's rows (oldest first),
 * sixteen outputs at a time in four chains; the map into m's first row;
 * and its sum over the pixels not ignored, in four interleaved lanes added
 * ((0 + 1) + (2 + 3)) at the end: a fixed order. */
GPUIMG_CPU_CLONES
static double output_row(const double *const *ring, const double *g, int inner, const uint8_t *skip,
                         double *restrict m)
{
    for (int j = 0; j < STATS; j++) {
        double *restrict out = m + (size_t)j * inner;
        size_t at = (size_t)j * inner;
        int i = 0;
        for (; i + 16 <= inner; i += 16) {
            vd4 s0 = {0}, s1 = {0}, s2 = {0}, s3 = {0};
            for (int k = 0; k < SSIM_TAPS; k++) {
                const double *r = ring[k] + at + i;
                s0 += g[k] * load4(r);
                s1 += g[k] * load4(r + 4);
                s2 += g[k] * load4(r + 8);
                s3 += g[k] * load4(r + 12);
            }
            *(vd4 *)(out + i) = s0, *(vd4 *)(out + i + 4) = s1;
            *(vd4 *)(out + i + 8) = s2, *(vd4 *)(out + i + 12) = s3;
        }
        for (; i < inner; i++) {
            double s = 0;
            for (int k = 0; k < SSIM_TAPS; k++)
                s += g[k] * ring[k][at + i];
            out[i] = s;
        }
    }
    const double c1 = GPUIMG_SSIM_C1, c2 = GPUIMG_SSIM_C2;
    const double *restrict ux = m, *restrict uy = m + inner, *restrict xx = m + 2 * inner,
                           *restrict yy = m + 3 * inner, *restrict xy = m + 4 * inner;
    double *restrict map = m + (size_t)STATS * inner;
    for (int i = 0; i < inner; i++) {
        double a = ux[i], b = uy[i];
        double vx = xx[i] - a * a, vy = yy[i] - b * b, vxy = xy[i] - a * b;
        map[i] = ((2 * a * b + c1) * (2 * vxy + c2)) / ((a * a + b * b + c1) * (vx + vy + c2));
    }
    if (skip)
        for (int i = 0; i < inner; i++)
            map[i] = skip[i] ? 0.0 : map[i];
    vd4 lanes = {0};
    int i = 0;
    for (; i + 4 <= inner; i += 4)
        lanes += load4(map + i);
    double lane[4] = {lanes[0], lanes[1], lanes[2], lanes[3]};
    for (; i < inner; i++)
        lane[i & 3] += map[i];
    return (lane[0] + lane[1]) + (lane[2] + lane[3]);
}

/* Output columns are done in strips of this many, so that a strip's ring
 * (11 rows of five sums, 113 KB) stays in a core's L2, not the 1.8 MB a
 * 4000-wide row needs (256 measured 20% faster than whole rows, 512 and
 * 1024 in between). A strip's sum is added to its row's in strip order:
 * the figure depends on the strips, never on the threads. */
#define STRIP 256

/* Output rows o0 .. o1 (image rows o + SSIM_RADIUS) of every channel. */
static int ssim_band(void *arg, int o0, int o1)
{
    const ssim_job *j = arg;
    int w = j->a->width, h = j->a->height, depth = j->a->depth;
    int inner = w - 2 * SSIM_RADIUS, outputs = h - 2 * SSIM_RADIUS;
    size_t slot = (size_t)STATS * STRIP;
    double *ring = malloc(SSIM_TAPS * slot * sizeof *ring);
    double *xy = malloc(2 * (size_t)(STRIP + 2 * SSIM_RADIUS) * sizeof *xy);
    double *m = malloc((slot + STRIP) * sizeof *m); /* the sums, then the map */
    int ok = ring && xy && m;
    const double *rows[SSIM_TAPS];
    for (int c = 0; ok && c < j->a->channels; c++) {
        double *sums = j->row_sums + (size_t)c * outputs;
        for (int o = o0; o < o1; o++)
            sums[o] = 0.0;
        for (int x0 = 0; x0 < inner; x0 += STRIP) {
            int n = inner - x0 < STRIP ? inner - x0 : STRIP, span = n + 2 * SSIM_RADIUS;
            /* image row r's sums in slot r % SSIM_TAPS */
            for (int r = o0; r < o1 + SSIM_TAPS - 1; r++) {
                size_t at = (size_t)r * w + (size_t)x0;
                to_double(j->a->plane[c], depth, at, span, xy);
                to_double(j->b->plane[c], depth, at, span, xy + span);
                horizontal(xy, xy + span, j->g, n, ring + (size_t)(r % SSIM_TAPS) * slot);
                int o = r - (SSIM_TAPS - 1); /* the output row now complete */
                if (o < o0)
                    continue;
                for (int k = 0; k < SSIM_TAPS; k++)
                    rows[k] = ring + (size_t)((o + k) % SSIM_TAPS) * slot;
                const uint8_t *skip =
                    j->ignore ? j->ignore + (size_t)(o + SSIM_RADIUS) * w + SSIM_RADIUS + (size_t)x0
                              : NULL;
                sums[o] += output_row(rows, j->g, n, skip, m);
            }
        }
    }
    free(ring);
    free(xy);
    free(m);
    return ok;
}

gpuimg_status gpuimg__cpu_ssim(gpuimg_backend *be, const gpuimg_planes *a, const gpuimg_planes *b,
                               const uint8_t *ignore, double *sum)
{
    int outputs = a->height - 2 * SSIM_RADIUS;
    ssim_job j = {a, b, ignore, {0}, NULL};
    gpuimg__ssim_window(j.g);
    if (!(j.row_sums = malloc((size_t)a->channels * (size_t)outputs * sizeof *j.row_sums)))
        return gpuimg__cpu_nomem(be);
    gpuimg_status st = gpuimg__cpu_bands(be, outputs, 16, ssim_band, &j);
    for (int c = 0; st == GPUIMG_OK && c < a->channels; c++) {
        double total = 0.0;
        for (int o = 0; o < outputs; o++)
            total += j.row_sums[(size_t)c * outputs + o];
        *sum += total;
    }
    free(j.row_sums);
    return st;
}
