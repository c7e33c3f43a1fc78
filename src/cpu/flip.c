/* SPDX-License-Identifier: MIT */
/* FLIP's map (LDR-FLIP, Andersson et al. 2020; the arithmetic is
 * core/flip_math.h's, shared with kernels/flip.cu) on the CPU.
 *
 * Seven separable filters per image: the colour pass filters Y, Cx and
 * Cz's two Gaussians (21 taps), the feature pass filters the normalized
 * luminance by the Gaussian and its two derivatives (19 taps). Each source
 * row's horizontal results (7 per pixel and image) go into a ring of
 * FLIP_TAPS rows; each output row sums its ring vertically and evaluates
 * the per-pixel colour and feature differences, so memory is O(width) per
 * thread. Columns are done in strips of STRIP pixels (with the filters'
 * halo), so a strip's ring (21 rows of 14 sums of 256 floats, 300 KB) stays
 * in a core's L2.
 *
 * Every value is computed in the reference's order (taps summed from the
 * first, in float), whatever the bands, strips and threads: the map does
 * not depend on them, and the host computes the figures from it once for
 * every backend. Borders repeat the edge pixels, as the reference's
 * clamped coordinates do. */
#include <stdlib.h>
#include <string.h>

#include "core/flip_math.h"
#include "cpu.h"

#define R GPUIMG_FLIP_SPATIAL_RADIUS
#define FLIP_TAPS GPUIMG_FLIP_SPATIAL_TAPS
#define FR GPUIMG_FLIP_FEATURE_RADIUS
#define FEATURE_TAPS GPUIMG_FLIP_FEATURE_TAPS
#define SUMS 7 /* per image: Y, Cx, Cz1, Cz2 (colour); dx, ddx, g (features) */
#define STRIP 256

typedef struct flip_job {
    const gpuimg_planes *a, *b;
    const gpuimg_flip_params *p;
    float *map;
    const float *lut; /* sRGB decoded, one entry per value of the depth */
} flip_job;

static inline int clampi(int v, int lo, int hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

/* One image's pixels x0 - R .. x0 + n + R (clamped) of row y as YCxCz, in
 * three arrays of span values. */
static void convert(const flip_job *j, const gpuimg_planes *im, int y, int x0, int span, float *ycc)
{
    int w = im->width, c = im->channels, wide = im->depth == 16;
    int alpha = c % 2 == 0;
    int pr = 0, pg = c >= 3 ? 1 : 0, pb = c >= 3 ? 2 : 0;
    float top = wide ? 65535.0f : 255.0f;
    size_t row = (size_t)y * (size_t)w;
    for (int i = 0; i < span; i++) {
        size_t at = row + (size_t)clampi(x0 - R + i, 0, w - 1);
        unsigned v[4];
        for (int k = 0; k < c; k++)
            v[k] = wide ? ((const uint16_t *)im->plane[k])[at] : im->plane[k][at];
        float lin[3];
        const int which[3] = {pr, pg, pb};
        if (!alpha || v[c - 1] == (unsigned)top)
            for (int k = 0; k < 3; k++)
                lin[k] = j->lut[v[which[k]]];
        else {
            /* over white, in the encoded values (as pixelmatch's rule blends) */
            float a = (float)v[c - 1] / top;
            for (int k = 0; k < 3; k++)
                lin[k] = gpuimg__flip_linear((float)v[which[k]] / top * a + (1.0f - a));
        }
        float out[3];
        gpuimg__flip_ycxcz(lin[0], lin[1], lin[2], out);
        ycc[i] = out[0];
        ycc[span + i] = out[1];
        ycc[2 * span + i] = out[2];
    }
}

/* One image's horizontal sums of n pixels from its converted span (ycc),
 * into sums (SUMS arrays of n). */
GPUIMG_CPU_CLONES
static void flip_rows_pass(const flip_job *j, const float *ycc, int span, int n, float *yn,
                           float *restrict sums)
{
    const gpuimg_flip_params *p = j->p;
    const float *Y = ycc, *Cx = ycc + span, *Cz = ycc + 2 * span;
    for (int i = 0; i < span; i++)
        yn[i] = Y[i] * (1.0f / 116.0f) + 16.0f / 116.0f;
    float *restrict sy = sums, *restrict scx = sums + n, *restrict scz1 = sums + 2 * n,
                    *restrict scz2 = sums + 3 * n, *restrict sdx = sums + 4 * n,
                    *restrict sddx = sums + 5 * n, *restrict sg = sums + 6 * n;
    for (int i = 0; i < 7 * n; i++)
        sums[i] = 0.0f;
    for (int k = 0; k < FLIP_TAPS; k++) {
        float wy = p->y[k], wcx = p->cx[k], w1 = p->cz1[k], w2 = p->cz2[k];
        for (int i = 0; i < n; i++) {
            sy[i] += wy * Y[i + k];
            scx[i] += wcx * Cx[i + k];
            scz1[i] += w1 * Cz[i + k];
            scz2[i] += w2 * Cz[i + k];
        }
    }
    for (int k = 0; k < FEATURE_TAPS; k++) {
        float wg = p->g[k], wd = p->dg[k], wdd = p->ddg[k];
        const float *v = yn + (R - FR) + k;
        for (int i = 0; i < n; i++) {
            sdx[i] += wd * v[i];
            sddx[i] += wdd * v[i];
            sg[i] += wg * v[i];
        }
    }
}

/* The vertical sums of one image's ring rows (rows[k]: tap k's row), into
 * v: Y, Cx, Cz (the two Gaussians' results added), dx, ddx, dy, ddy. */
GPUIMG_CPU_CLONES
static void flip_columns_pass(const gpuimg_flip_params *p, const float *const *rows, int n,
                              int image, float *restrict v)
{
    size_t base = (size_t)image * SUMS * (size_t)n;
    float *restrict y = v, *restrict cx = v + n, *restrict cz1 = v + 2 * n,
                    *restrict cz2 = v + 3 * n, *restrict dx = v + 4 * n, *restrict ddx = v + 5 * n,
                    *restrict dy = v + 6 * n, *restrict ddy = v + 7 * n;
    for (int i = 0; i < 8 * n; i++)
        v[i] = 0.0f;
    for (int k = 0; k < FLIP_TAPS; k++) {
        const float *r = rows[k] + base;
        float wy = p->y[k], wcx = p->cx[k], w1 = p->cz1[k], w2 = p->cz2[k];
        for (int i = 0; i < n; i++) {
            y[i] += wy * r[i];
            cx[i] += wcx * r[n + i];
            cz1[i] += w1 * r[2 * n + i];
            cz2[i] += w2 * r[3 * n + i];
        }
    }
    for (int k = 0; k < FEATURE_TAPS; k++) {
        const float *r = rows[(R - FR) + k] + base;
        float wg = p->g[k], wd = p->dg[k], wdd = p->ddg[k];
        for (int i = 0; i < n; i++) {
            dx[i] += wg * r[4 * n + i];
            ddx[i] += wg * r[5 * n + i];
            dy[i] += wd * r[6 * n + i];
            ddy[i] += wdd * r[6 * n + i];
        }
    }
    for (int i = 0; i < n; i++)
        cz1[i] += cz2[i];
}

static int flip_band(void *arg, int o0, int o1)
{
    const flip_job *j = arg;
    int w = j->a->width, h = j->a->height, span = STRIP + 2 * R;
    size_t slot = (size_t)2 * SUMS * STRIP; /* one ring row: both images' sums */
    float *ring = malloc(FLIP_TAPS * slot * sizeof *ring);
    float *ycc = malloc((size_t)3 * span * sizeof *ycc);
    float *yn = malloc((size_t)span * sizeof *yn);
    float *va = malloc((size_t)8 * STRIP * sizeof *va),
          *vb = malloc((size_t)8 * STRIP * sizeof *vb);
    int ok = ring && ycc && yn && va && vb;
    const float *rows[FLIP_TAPS];
    for (int x0 = 0; ok && x0 < w; x0 += STRIP) {
        int n = w - x0 < STRIP ? w - x0 : STRIP, sp = n + 2 * R;
        /* virtual row r (clamped to the image) in slot (r - o0 + R) % FLIP_TAPS */
        for (int r = o0 - R; r < o1 + R; r++) {
            float *s = ring + (size_t)((r - o0 + R) % FLIP_TAPS) * slot;
            int yy = clampi(r, 0, h - 1);
            convert(j, j->a, yy, x0, sp, ycc);
            flip_rows_pass(j, ycc, sp, n, yn, s);
            convert(j, j->b, yy, x0, sp, ycc);
            flip_rows_pass(j, ycc, sp, n, yn, s + (size_t)SUMS * n);
            int o = r - R; /* the output row now complete */
            if (o < o0)
                continue;
            for (int k = 0; k < FLIP_TAPS; k++)
                rows[k] = ring + (size_t)((o - R - o0 + R + k) % FLIP_TAPS) * slot;
            flip_columns_pass(j->p, rows, n, 0, va);
            flip_columns_pass(j->p, rows, n, 1, vb);
            float *out = j->map + (size_t)o * w + x0;
            for (int i = 0; i < n; i++) {
                float pa[3] = {va[i], va[n + i], va[2 * n + i]};
                float pb[3] = {vb[i], vb[n + i], vb[2 * n + i]};
                float colour = gpuimg__flip_colour(pa, pb, j->p->cmax, j->p->pccmax);
                out[i] = gpuimg__flip_final(colour, va[4 * n + i], va[6 * n + i], va[5 * n + i],
                                            va[7 * n + i], vb[4 * n + i], vb[6 * n + i],
                                            vb[5 * n + i], vb[7 * n + i]);
            }
        }
    }
    free(ring);
    free(ycc);
    free(yn);
    free(va);
    free(vb);
    return ok;
}

gpuimg_status gpuimg__cpu_flip(gpuimg_backend *be, const gpuimg_planes *a, const gpuimg_planes *b,
                               const gpuimg_flip_params *p, float *map)
{
    int values = a->depth == 16 ? 65536 : 256;
    float *lut = malloc((size_t)values * sizeof *lut);
    if (!lut)
        return gpuimg__cpu_nomem(be);
    float top = (float)(values - 1);
    for (int v = 0; v < values; v++)
        lut[v] = gpuimg__flip_linear((float)v / top);
    flip_job j = {a, b, p, map, lut};
    /* at least 32 rows a band: the ring's 20 rows of halo are recomputed
     * by each band */
    gpuimg_status st = gpuimg__cpu_bands(be, a->height, 32, flip_band, &j);
    free(lut);
    return st;
}
