/* SPDX-License-Identifier: MIT */
/* resize's two passes (SPEC §3) from the axis tables of src/ops/resample.c:
 * each output value is the dot product of its window of input samples
 * with its weights, summed from k = 0 up, the horizontal pass first and
 * kept in float.
 *
 * Bands of output rows, and in each band a ring of horizontally resampled
 * input rows, so that the intermediate is a few rows per thread, in
 * cache. The horizontal pass has no common stride to vectorize along a
 * row (each output has its own window), so it runs eight input rows at
 * once: the rows are interleaved (value i of row j at 8 i + j), and each
 * weight multiplies eight adjacent floats, one vector of AVX2 (two of
 * SSE2), every lane summing its own row in the same order: bytes the same
 * whichever clone runs. The vertical pass is a column filter
 * (gpuimg__rows_dot), vectorized along the row. */
#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "cpu.h"

#define GROUP 8 /* input rows resampled together */

typedef struct resample_job {
    const gpuimg_planes *src;
    gpuimg_planes *dst;
    const gpuimg_axis *ax, *ay;
    int dx, dy;
} resample_job;

/* lines[GROUP i + k] = row k's value i, as float, for the g rows (a tail
 * group's other lanes keep what they held: their sums are not stored). One
 * loop per depth, each a vector store of eight values read from eight
 * rows. */
#define INTERLEAVE(T)                                                                              \
    GPUIMG_CPU_CLONES static void interleave_##T(const T *const *rows, int g, int n,               \
                                                 float *restrict lines)                            \
    {                                                                                              \
        if (g == GROUP) {                                                                          \
            for (int i = 0; i < n; i++)                                                            \
                for (int k = 0; k < GROUP; k++)                                                    \
                    lines[(size_t)i * GROUP + k] = (float)rows[k][i];                              \
        } else {                                                                                   \
            for (int i = 0; i < n; i++)                                                            \
                for (int k = 0; k < g; k++)                                                        \
                    lines[(size_t)i * GROUP + k] = (float)rows[k][i];                              \
        }                                                                                          \
    }
INTERLEAVE(uint8_t)
INTERLEAVE(uint16_t)
INTERLEAVE(float)

#ifdef __SSE2__
/* Eight whole rows of bytes, eight columns at a time: an 8 x 8 byte
 * transpose in SSE2 registers (x86-64's baseline: both clones have it),
 * widened to floats; the compiler's form of the loop above reads each byte
 * on its own and took as long as the sums. The same values exactly. */
static void interleave8_sse2(const uint8_t *const *rows, int n, float *restrict lines)
{
    const __m128i zero = _mm_setzero_si128();
    int i = 0;
    for (; i + 8 <= n; i += 8) {
        __m128i r[8];
        for (int k = 0; k < 8; k++)
            r[k] = _mm_loadl_epi64((const __m128i *)(rows[k] + i));
        /* rows k and k+1 byte by byte, then in 16-bit pairs, then 32-bit
         * quads: column c's eight rows end up as 8 adjacent bytes */
        __m128i a0 = _mm_unpacklo_epi8(r[0], r[1]), a1 = _mm_unpacklo_epi8(r[2], r[3]);
        __m128i a2 = _mm_unpacklo_epi8(r[4], r[5]), a3 = _mm_unpacklo_epi8(r[6], r[7]);
        __m128i b0 = _mm_unpacklo_epi16(a0, a1), b1 = _mm_unpackhi_epi16(a0, a1);
        __m128i b2 = _mm_unpacklo_epi16(a2, a3), b3 = _mm_unpackhi_epi16(a2, a3);
        __m128i c[4] = {_mm_unpacklo_epi32(b0, b2), _mm_unpackhi_epi32(b0, b2),
                        _mm_unpacklo_epi32(b1, b3), _mm_unpackhi_epi32(b1, b3)};
        float *out = lines + (size_t)i * GROUP;
        for (int q = 0; q < 4; q++) { /* columns 2q and 2q + 1 */
            __m128i lo = _mm_unpacklo_epi8(c[q], zero), hi = _mm_unpackhi_epi8(c[q], zero);
            _mm_storeu_ps(out + 16 * q, _mm_cvtepi32_ps(_mm_unpacklo_epi16(lo, zero)));
            _mm_storeu_ps(out + 16 * q + 4, _mm_cvtepi32_ps(_mm_unpackhi_epi16(lo, zero)));
            _mm_storeu_ps(out + 16 * q + 8, _mm_cvtepi32_ps(_mm_unpacklo_epi16(hi, zero)));
            _mm_storeu_ps(out + 16 * q + 12, _mm_cvtepi32_ps(_mm_unpackhi_epi16(hi, zero)));
        }
    }
    for (; i < n; i++)
        for (int k = 0; k < GROUP; k++)
            lines[(size_t)i * GROUP + k] = (float)rows[k][i];
}
#endif

static void interleave(const gpuimg_planes *p, int c, int y, int g, float *lines)
{
    const uint8_t *rows[GROUP];
    size_t vs = gpuimg__value_size(p->depth);
    for (int k = 0; k < g; k++)
        rows[k] = p->plane[c] + (size_t)(y + k) * p->width * vs;
    if (p->depth == 16)
        interleave_uint16_t((const uint16_t *const *)rows, g, p->width, lines);
    else if (p->depth == GPUIMG_DEPTH_FLOAT)
        interleave_float((const float *const *)rows, g, p->width, lines);
#ifdef __SSE2__
    else if (g == GROUP)
        interleave8_sse2(rows, p->width, lines);
#endif
    else
        interleave_uint8_t(rows, g, p->width, lines);
}

/* out[j][x] for the GROUP interleaved rows of lines (n + taps values
 * each, zero past n: a short window's zero weights read them) */
GPUIMG_CPU_CLONES
static void horizontal_group(const float *restrict lines, const gpuimg_axis *ax,
                             float *restrict *out, int rows)
{
    int taps = ax->taps;
    for (int x = 0; x < ax->m; x++) {
        float acc[GROUP] = {0};
        const float *w = ax->weights + (size_t)x * taps;
        const float *in = lines + (size_t)ax->first[x] * GROUP;
        for (int k = 0; k < taps; k++)
            for (int j = 0; j < GROUP; j++)
                acc[j] += w[k] * in[(size_t)k * GROUP + j];
        for (int j = 0; j < rows; j++)
            out[j][x] = acc[j];
    }
}

static int resample_band(void *arg, int y0, int y1)
{
    const resample_job *j = arg;
    const gpuimg_planes *src = j->src;
    const gpuimg_axis *ax = j->ax, *ay = j->ay;
    int n = src->width, h = src->height, mx = ax->m, cap = ay->taps + GROUP;
    size_t span = (size_t)n + (size_t)ax->taps;
    float *lines = calloc(span * GROUP, sizeof *lines);
    float *ring = malloc((size_t)cap * (size_t)mx * sizeof *ring);
    float *acc = malloc((size_t)mx * sizeof *acc);
    const float **rows = malloc((size_t)ay->taps * sizeof *rows);
    int ok = lines && ring && acc && rows;
    for (int c = 0; ok && c < src->channels; c++) {
        /* input row r's horizontal pass is in ring slot r % cap; rows
         * [first[y], first[y] + taps) are needed at once, and a group
         * runs at most GROUP - 1 rows past them */
        int next = ay->first[y0];
        for (int y = y0; y < y1; y++) {
            int need = ay->first[y] + ay->taps; /* rows past h weigh 0 */
            if (need > h)
                need = h;
            if (next < ay->first[y])
                next = ay->first[y];
            while (next < need) {
                int g = h - next < GROUP ? h - next : GROUP;
                float *out[GROUP];
                interleave(src, c, next, g, lines);
                for (int k = 0; k < g; k++)
                    out[k] = ring + (size_t)((next + k) % cap) * mx;
                horizontal_group(lines, ax, out, g);
                next += g;
            }
            for (int k = 0; k < ay->taps; k++) {
                int r = ay->first[y] + k < h ? ay->first[y] + k : h - 1;
                rows[k] = ring + (size_t)(r % cap) * mx;
            }
            gpuimg__rows_dot(rows, ay->taps, ay->weights + (size_t)y * ay->taps, 1, mx, acc);
            gpuimg__store_row(acc, (size_t)mx, j->dst->plane[c], j->dst->depth,
                              (size_t)(j->dy + y) * j->dst->width + (size_t)j->dx);
        }
    }
    free(lines);
    free(ring);
    free(acc);
    free(rows);
    return ok;
}

gpuimg_status gpuimg__cpu_resample(gpuimg_backend *be, const gpuimg_planes *src, gpuimg_planes *dst,
                                   const gpuimg_axis *ax, const gpuimg_axis *ay, int dx, int dy)
{
    resample_job j = {src, dst, ax, ay, dx, dy};
    return gpuimg__cpu_bands(be, ay->m, 16, resample_band, &j);
}
