/* SPDX-License-Identifier: MIT */
/* Separable filters: the Gaussian blur (rows, then columns, float
 * intermediate never rounded) and the box mean (exact integer window sums). */
#include <stdlib.h>
#include <string.h>

#include "cpu.h"

/* Fills line[0 .. n + 2r) with row values at x = -r .. n + r - 1, borders
 * mapped (0 outside in constant mode), so the row filter needs no tests. */
static void extend_row(const uint8_t *plane, int depth, size_t row, int n, int r,
                       gpuimg_border border, float *line)
{
    for (long x = -r; x < (long)n + r; x++) {
        long i = gpuimg__border_index(x, n, border);
        line[x + r] = i < 0 ? 0.0f : gpuimg__getf(plane, depth, row + (size_t)i);
    }
}

gpuimg_status gpuimg__cpu_blur(gpuimg_backend *be, const gpuimg_planes *src, gpuimg_planes *dst,
                               const float *weights, int radius, gpuimg_border border)
{
    int w = src->width, h = src->height, taps = 2 * radius + 1;
    float *tmp = malloc(gpuimg__plane_size(src) * sizeof(float));
    float *line = malloc(((size_t)w + 2 * (size_t)radius) * sizeof(float));
    float *acc = malloc((size_t)w * sizeof(float));
    if (!tmp || !line || !acc) {
        free(tmp);
        free(line);
        free(acc);
        return gpuimg__cpu_nomem(be);
    }
    for (int c = 0; c < src->channels; c++) {
        for (int y = 0; y < h; y++) {
            extend_row(src->plane[c], src->depth, (size_t)y * w, w, radius, border, line);
            for (int x = 0; x < w; x++) {
                float sum = 0.0f;
                for (int k = 0; k < taps; k++)
                    sum += weights[k] * line[x + k];
                tmp[(size_t)y * w + x] = sum;
            }
        }
        for (int y = 0; y < h; y++) {
            memset(acc, 0, (size_t)w * sizeof(float));
            for (int k = 0; k < taps; k++) {
                long sy = gpuimg__border_index((long)y - radius + k, h, border);
                if (sy < 0)
                    continue;
                const float *row = tmp + (size_t)sy * w;
                for (int x = 0; x < w; x++)
                    acc[x] += weights[k] * row[x];
            }
            gpuimg__store_row(acc, (size_t)w, dst->plane[c], dst->depth, (size_t)y * w);
        }
    }
    free(tmp);
    free(line);
    free(acc);
    return GPUIMG_OK;
}

/* Value at mapped index of the row starting at value `row`, 0 outside in
 * constant mode. */
static inline uint32_t at(const gpuimg_planes *p, int c, size_t row, long i, long n,
                          gpuimg_border border)
{
    long j = gpuimg__border_index(i, n, border);
    return j < 0 ? 0 : gpuimg__get(p->plane[c], p->depth, row + (size_t)j);
}

gpuimg_status gpuimg__cpu_box(gpuimg_backend *be, const gpuimg_planes *src, gpuimg_planes *dst,
                              int radius, gpuimg_border border)
{
    int w = src->width, h = src->height;
    /* Exact: a row's window, 2001 values of 65535, is 1.3e8, which fits 32
     * bits; a whole window, 2001 x 2001 of them (2.6e11), needs the columns'
     * 64, which `2 * sum + area` cannot overflow either. */
    uint32_t *rows = malloc(gpuimg__plane_size(src) * sizeof(uint32_t));
    uint64_t *cols = malloc((size_t)w * sizeof(uint64_t));
    if (!rows || !cols) {
        free(rows);
        free(cols);
        return gpuimg__cpu_nomem(be);
    }
    uint64_t area = (uint64_t)(2 * radius + 1) * (uint64_t)(2 * radius + 1);
    for (int c = 0; c < src->channels; c++) {
        for (int y = 0; y < h; y++) {
            size_t row = (size_t)y * w;
            uint32_t sum = 0;
            for (long x = -radius; x <= radius; x++)
                sum += at(src, c, row, x, w, border);
            for (int x = 0; x < w; x++) {
                rows[row + x] = sum; /* window centred on x */
                sum += at(src, c, row, (long)x + radius + 1, w, border);
                sum -= at(src, c, row, (long)x - radius, w, border);
            }
        }
        /* The same sliding window down the columns, over the row sums. A
         * mapped row index of -1 (constant mode) contributes nothing. */
        memset(cols, 0, (size_t)w * sizeof(uint64_t));
        for (long y = -radius; y <= radius; y++) {
            long sy = gpuimg__border_index(y, h, border);
            for (int x = 0; sy >= 0 && x < w; x++)
                cols[x] += rows[(size_t)sy * w + x];
        }
        for (int y = 0; y < h; y++) {
            for (int x = 0; x < w; x++) /* exact round-half-up of cols / area */
                gpuimg__put(dst->plane[c], dst->depth, (size_t)y * w + x,
                            (uint32_t)((2 * cols[x] + area) / (2 * area)));
            long add = gpuimg__border_index((long)y + radius + 1, h, border);
            long sub = gpuimg__border_index((long)y - radius, h, border);
            for (int x = 0; x < w; x++) {
                if (add >= 0)
                    cols[x] += rows[(size_t)add * w + x];
                if (sub >= 0)
                    cols[x] -= rows[(size_t)sub * w + x];
            }
        }
    }
    free(rows);
    free(cols);
    return GPUIMG_OK;
}
