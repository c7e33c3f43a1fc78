/* SPDX-License-Identifier: MIT */
/* The row helpers every CPU filter shares: a row read into floats with its
 * border, and a row of results stored. One typed loop per depth, so that
 * GCC vectorizes each (the per-value depth test of a generic getter would
 * keep it from it). */
#include <string.h>

#include "cpu.h"

/* The clones are static, reached through the plain functions below: clang
 * calls a target_clones function through its ifunc only where every
 * declaration carries the attribute, as cpu.h's do not. */
GPUIMG_CPU_CLONES
static void store_row(const float *restrict v, size_t n, uint8_t *restrict plane, int depth,
                      size_t i)
{
    if (depth == GPUIMG_DEPTH_FLOAT) {
        memcpy((float *)plane + i, v, n * sizeof *v);
    } else if (depth == 16) {
        uint16_t *restrict out = (uint16_t *)plane + i;
        for (size_t k = 0; k < n; k++)
            out[k] = (uint16_t)gpuimg__round_top(v[k], 65535.0f);
    } else {
        uint8_t *restrict out = plane + i;
        for (size_t k = 0; k < n; k++)
            out[k] = (uint8_t)gpuimg__round_top(v[k], 255.0f);
    }
}

GPUIMG_CPU_CLONES
static void widen(const uint8_t *restrict in, int depth, size_t n, float *restrict out)
{
    if (depth == GPUIMG_DEPTH_FLOAT) {
        memcpy(out, in, n * sizeof *out);
    } else if (depth == 16) {
        const uint16_t *restrict v = (const uint16_t *)in;
        for (size_t x = 0; x < n; x++)
            out[x] = (float)v[x];
    } else {
        for (size_t x = 0; x < n; x++)
            out[x] = (float)in[x];
    }
}

void gpuimg__store_row(const float *v, size_t n, uint8_t *plane, int depth, size_t i)
{
    store_row(v, n, plane, depth, i);
}

void gpuimg__row_to_float(const gpuimg_planes *p, int c, int y, int r, gpuimg_border border,
                          float *line)
{
    int w = p->width;
    size_t vs = gpuimg__value_size(p->depth);
    const uint8_t *row = p->plane[c] + (size_t)y * (size_t)w * vs;
    widen(row, p->depth, (size_t)w, line + r);
    gpuimg__extend_row(line, w, r, border);
}

void gpuimg__extend_row(void *line, int w, int r, gpuimg_border border)
{
    /* the 2r border values, mapped one by one (a few per row); copied as
     * four bytes, so that float and uint32_t rows share it (0.0f is all
     * zero bits) */
    uint8_t *v = line;
    for (int k = 0; k < 2 * r; k++) {
        int x = k < r ? k - r : w + k - r; /* -r .. -1, then w .. w + r - 1 */
        int i = gpuimg__border_index(x, w, border);
        if (i < 0)
            memset(v + 4 * (size_t)(x + r), 0, 4);
        else
            memcpy(v + 4 * (size_t)(x + r), v + 4 * (size_t)(r + i), 4);
    }
}

/* Eight floats as one value (GCC's and clang's vector extensions): one AVX
 * register in the AVX2 clone, two SSE registers in the baseline one.
 * aligned(4), may_alias: loaded from any float. */
typedef float vf8 __attribute__((vector_size(32), aligned(4), may_alias));

/* (a macro: a function returning vf8 would change its ABI by clone) */
#define load8(p) (*(const vf8 *)(p))

GPUIMG_CPU_CLONES
static void rows_dot(const float *const *rows, int nrows, const float *wt, int kw, int n,
                     float *restrict out)
{
    int x = 0;
    /* 32 outputs at a time in four accumulators: one multiply-add chain
     * would wait on its adds' latency at every tap */
    for (; x + 32 <= n; x += 32) {
        vf8 s0 = {0}, s1 = {0}, s2 = {0}, s3 = {0};
        for (int i = 0; i < nrows; i++) {
            const float *r = rows[i] + x, *wi = wt + (size_t)i * kw;
            for (int j = 0; j < kw; j++) {
                float w = wi[j];
                s0 += w * load8(r + j);
                s1 += w * load8(r + j + 8);
                s2 += w * load8(r + j + 16);
                s3 += w * load8(r + j + 24);
            }
        }
        *(vf8 *)(out + x) = s0;
        *(vf8 *)(out + x + 8) = s1;
        *(vf8 *)(out + x + 16) = s2;
        *(vf8 *)(out + x + 24) = s3;
    }
    for (; x + 8 <= n; x += 8) {
        vf8 s = {0};
        for (int i = 0; i < nrows; i++) {
            const float *r = rows[i] + x, *wi = wt + (size_t)i * kw;
            for (int j = 0; j < kw; j++)
                s += wi[j] * load8(r + j);
        }
        *(vf8 *)(out + x) = s;
    }
    for (; x < n; x++) {
        float s = 0.0f;
        for (int i = 0; i < nrows; i++)
            for (int j = 0; j < kw; j++)
                s += wt[(size_t)i * kw + j] * rows[i][x + j];
        out[x] = s;
    }
}

void gpuimg__rows_dot(const float *const *rows, int nrows, const float *wt, int kw, int n,
                      float *out)
{
    rows_dot(rows, nrows, wt, kw, n, out);
}

const char *gpuimg__cpu_vector_isa(void)
{
#if defined(__x86_64__) && !defined(__SANITIZE_THREAD__)
    return __builtin_cpu_supports("avx2") ? "AVX2" : "SSE2";
#else
    return "the compiler's default target";
#endif
}
