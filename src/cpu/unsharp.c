/* SPDX-License-Identifier: MIT */
/* unsharp (SPEC §3): the blur into float planes (separable.c, never
 * rounded), then each value against it, in bands of rows. */
#include <stdlib.h>

#include "cpu.h"

typedef struct unsharp_job {
    const gpuimg_planes *src, *blurred;
    gpuimg_planes *dst;
    float amount, threshold;
} unsharp_job;

/* v = in + amount (in - b) where |in - b| > threshold */
GPUIMG_CPU_CLONES
static void sharpen_row(const float *restrict in, const float *restrict b, float *restrict out,
                        size_t n, float amount, float threshold)
{
    for (size_t i = 0; i < n; i++) {
        float d = in[i] - b[i];
        float ad = d < 0.0f ? -d : d;
        out[i] = ad > threshold ? in[i] + amount * d : in[i];
    }
}

static int unsharp_band(void *arg, int y0, int y1)
{
    const unsharp_job *j = arg;
    int w = j->src->width;
    float *in = malloc((size_t)w * sizeof *in), *out = malloc((size_t)w * sizeof *out);
    int ok = in && out;
    for (int c = 0; ok && c < j->src->channels; c++)
        for (int y = y0; y < y1; y++) {
            gpuimg__row_to_float(j->src, c, y, 0, GPUIMG_BORDER_REPLICATE, in);
            const float *b = (const float *)j->blurred->plane[c] + (size_t)y * w;
            sharpen_row(in, b, out, (size_t)w, j->amount, j->threshold);
            gpuimg__store_row(out, (size_t)w, j->dst->plane[c], j->dst->depth, (size_t)y * w);
        }
    free(in);
    free(out);
    return ok;
}

gpuimg_status gpuimg__cpu_unsharp(gpuimg_backend *be, const gpuimg_planes *src, gpuimg_planes *dst,
                                  const float *weights, int radius, float amount, float threshold)
{
    gpuimg_planes blurred;
    gpuimg_status st = be->ops->planes_alloc(be, &blurred, src->width, src->height, src->channels,
                                             GPUIMG_DEPTH_FLOAT);
    if (st != GPUIMG_OK)
        return st;
    st = gpuimg__cpu_blur(be, src, &blurred, weights, radius, GPUIMG_BORDER_REFLECT101);
    if (st == GPUIMG_OK) {
        unsharp_job j = {src, &blurred, dst, amount, threshold};
        st = gpuimg__cpu_bands(be, src->height, 16, unsharp_band, &j);
    }
    be->ops->planes_free(be, &blurred);
    return st;
}
