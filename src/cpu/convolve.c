/* SPDX-License-Identifier: MIT */
/* 2-D convolution (the kernel applied as written, like filter2D) and the
 * Sobel gradient magnitude, both over a border-padded float copy of each
 * plane so the inner loops carry no border tests. */
#include <stdlib.h>

#include "cpu.h"

/* A (w + 2 rx) x (h + 2 ry) float copy of one plane with its borders mapped. */
static float *pad_plane(const uint8_t *in, int depth, int w, int h, int rx, int ry,
                        gpuimg_border border)
{
    size_t pw = (size_t)w + 2 * (size_t)rx, ph = (size_t)h + 2 * (size_t)ry;
    float *pad = malloc(pw * ph * sizeof(float));
    if (!pad)
        return NULL;
    for (long y = -ry; y < (long)h + ry; y++) {
        long sy = gpuimg__border_index(y, h, border);
        float *row = pad + (size_t)(y + ry) * pw;
        for (long x = -rx; x < (long)w + rx; x++) {
            long sx = gpuimg__border_index(x, w, border);
            row[x + rx] =
                (sy < 0 || sx < 0) ? 0.0f : gpuimg__getf(in, depth, (size_t)sy * w + (size_t)sx);
        }
    }
    return pad;
}

gpuimg_status gpuimg__cpu_convolve(gpuimg_backend *be, const gpuimg_planes *src, gpuimg_planes *dst,
                                   const gpuimg_conv *k, gpuimg_border border)
{
    int w = src->width, h = src->height, rx = k->width / 2, ry = k->height / 2;
    size_t pw = (size_t)w + 2 * (size_t)rx;
    float *out = malloc((size_t)w * sizeof *out);
    if (!out)
        return gpuimg__cpu_nomem(be);
    for (int c = 0; c < src->channels; c++) {
        float *pad = pad_plane(src->plane[c], src->depth, w, h, rx, ry, border);
        if (!pad) {
            free(out);
            return gpuimg__cpu_nomem(be);
        }
        for (int y = 0; y < h; y++) {
            for (int x = 0; x < w; x++) {
                float sum = 0.0f;
                for (int i = 0; i < k->height; i++) {
                    const float *row = pad + (size_t)(y + i) * pw + x;
                    const float *kr = k->weights + (size_t)i * k->width;
                    for (int j = 0; j < k->width; j++)
                        sum += kr[j] * row[j];
                }
                float v = sum * k->scale + k->bias;
                out[x] = k->absolute ? fabsf(v) : v;
            }
            gpuimg__store_row(out, (size_t)w, dst->plane[c], dst->depth, (size_t)y * w);
        }
        free(pad);
    }
    free(out);
    return GPUIMG_OK;
}

gpuimg_status gpuimg__cpu_sobel(gpuimg_backend *be, const gpuimg_planes *src, gpuimg_planes *dst,
                                gpuimg_border border)
{
    int w = src->width, h = src->height;
    size_t pw = (size_t)w + 2;
    float *out = malloc((size_t)w * sizeof *out);
    if (!out)
        return gpuimg__cpu_nomem(be);
    for (int c = 0; c < src->channels; c++) {
        float *pad = pad_plane(src->plane[c], src->depth, w, h, 1, 1, border);
        if (!pad) {
            free(out);
            return gpuimg__cpu_nomem(be);
        }
        for (int y = 0; y < h; y++) {
            const float *t = pad + (size_t)y * pw, *m = t + pw, *b = m + pw;
            for (int x = 0; x < w; x++) {
                float gx = (t[x + 2] - t[x]) + 2.0f * (m[x + 2] - m[x]) + (b[x + 2] - b[x]);
                float gy = (b[x] - t[x]) + 2.0f * (b[x + 1] - t[x + 1]) + (b[x + 2] - t[x + 2]);
                out[x] = sqrtf(gx * gx + gy * gy);
            }
            gpuimg__store_row(out, (size_t)w, dst->plane[c], dst->depth, (size_t)y * w);
        }
        free(pad);
    }
    free(out);
    return GPUIMG_OK;
}
