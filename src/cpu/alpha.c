/* SPDX-License-Identifier: MIT */
/* --alpha premultiplied (SPEC §2): colour weighted by alpha into float
 * planes before a filter, and divided by the filtered alpha after it, so
 * that transparent pixels lend no colour to their neighbours. Bands of
 * rows over the pool; a loop per depth. */
#include "cpu.h"

typedef struct alpha_job {
    const gpuimg_planes *src;
    gpuimg_planes *dst;
} alpha_job;

/* a = A / M, then c * a: two roundings, as on the GPU */
#define PREMULTIPLY(T)                                                                             \
    GPUIMG_CPU_CLONES static void premultiply_##T(const T *restrict alpha, const T *restrict in,   \
                                                  float *restrict a_out, float *restrict out,      \
                                                  size_t n, float top, int first)                  \
    {                                                                                              \
        if (first)                                                                                 \
            for (size_t i = 0; i < n; i++)                                                         \
                a_out[i] = (float)alpha[i];                                                        \
        for (size_t i = 0; i < n; i++)                                                             \
            out[i] = (float)in[i] * ((float)alpha[i] / top);                                       \
    }
PREMULTIPLY(uint8_t)
PREMULTIPLY(uint16_t)

static int premultiply_band(void *arg, int y0, int y1)
{
    const alpha_job *j = arg;
    const gpuimg_planes *s = j->src;
    size_t w = (size_t)s->width, at = (size_t)y0 * w, n = (size_t)(y1 - y0) * w;
    int colours = s->channels - 1;
    const float top = (float)gpuimg__max_value(s->depth);
    float *a_out = (float *)j->dst->plane[colours] + at;
    for (int c = 0; c < colours; c++) {
        float *out = (float *)j->dst->plane[c] + at;
        if (s->depth == 16)
            premultiply_uint16_t((const uint16_t *)s->plane[colours] + at,
                                 (const uint16_t *)s->plane[c] + at, a_out, out, n, top, c == 0);
        else
            premultiply_uint8_t(s->plane[colours] + at, s->plane[c] + at, a_out, out, n, top,
                                c == 0);
    }
    return 1;
}

gpuimg_status gpuimg__cpu_premultiply(gpuimg_backend *be, const gpuimg_planes *src,
                                      gpuimg_planes *dst)
{
    alpha_job j = {src, dst};
    return gpuimg__cpu_bands(be, src->height, 16, premultiply_band, &j);
}

GPUIMG_CPU_CLONES
static void unpremultiply_row(const float *restrict in, const float *restrict alpha,
                              uint8_t *restrict plane, int depth, size_t n, float top)
{
    if (depth == 16) {
        uint16_t *restrict out = (uint16_t *)plane;
        for (size_t i = 0; i < n; i++) {
            float a = alpha[i] / top;
            a = a < 1.0f ? a : 1.0f; /* a resize's lanczos3 rings past 1 */
            float v = a > 0.0f ? in[i] / a : 0.0f;
            out[i] = (uint16_t)gpuimg__round_top(v, 65535.0f);
        }
    } else {
        for (size_t i = 0; i < n; i++) {
            float a = alpha[i] / top;
            a = a < 1.0f ? a : 1.0f; /* a resize's lanczos3 rings past 1 */
            float v = a > 0.0f ? in[i] / a : 0.0f;
            plane[i] = (uint8_t)gpuimg__round_top(v, 255.0f);
        }
    }
}

static int unpremultiply_band(void *arg, int y0, int y1)
{
    const alpha_job *j = arg;
    const gpuimg_planes *s = j->src;
    int colours = s->channels - 1, depth = j->dst->depth;
    size_t w = (size_t)s->width, at = (size_t)y0 * w, n = (size_t)(y1 - y0) * w;
    size_t vs = gpuimg__value_size(depth);
    const float top = (float)gpuimg__max_value(depth);
    const float *alpha = (const float *)s->plane[colours] + at;
    gpuimg__store_row(alpha, n, j->dst->plane[colours], depth, at);
    for (int c = 0; c < colours; c++)
        unpremultiply_row((const float *)s->plane[c] + at, alpha, j->dst->plane[c] + at * vs, depth,
                          n, top);
    return 1;
}

gpuimg_status gpuimg__cpu_unpremultiply(gpuimg_backend *be, const gpuimg_planes *src,
                                        gpuimg_planes *dst)
{
    alpha_job j = {src, dst};
    return gpuimg__cpu_bands(be, src->height, 16, unpremultiply_band, &j);
}
