/* SPDX-License-Identifier: MIT */
/* The host image: allocation with overflow checks, channel widening. */
#include <stdlib.h>
#include <string.h>

#include "image.h"
#include "internal.h"

size_t gpuimg__image_bytes(int width, int height, int channels)
{
    if (width <= 0 || height <= 0 || channels <= 0)
        return 0;
    size_t n = (size_t)width;
    if (n > SIZE_MAX / (size_t)height)
        return 0;
    n *= (size_t)height;
    if (n > SIZE_MAX / (size_t)channels)
        return 0;
    return n * (size_t)channels;
}

gpuimg_status gpuimg_image_alloc(gpuimg_image *img, int width, int height, int channels)
{
    memset(img, 0, sizeof *img);
    if (channels < 1 || channels > 4)
        return GPUIMG_ERR_USAGE;
    size_t bytes = gpuimg__image_bytes(width, height, channels);
    if (bytes == 0)
        return GPUIMG_ERR_TOO_LARGE;
    img->data = calloc(bytes, 1);
    if (!img->data)
        return GPUIMG_ERR_NOMEM;
    img->width = width;
    img->height = height;
    img->channels = channels;
    return GPUIMG_OK;
}

void gpuimg_image_free(gpuimg_image *img)
{
    if (!img)
        return;
    free(img->data);
    memset(img, 0, sizeof *img);
}

gpuimg_status gpuimg__image_widen(const gpuimg_image *src, int color, int alpha, gpuimg_image *dst)
{
    int src_color = src->channels >= 3, src_alpha = src->channels % 2 == 0;
    int out_c = (color ? 3 : 1) + (alpha ? 1 : 0);
    gpuimg_status st = gpuimg_image_alloc(dst, src->width, src->height, out_c);
    if (st != GPUIMG_OK)
        return st;
    size_t n = (size_t)src->width * (size_t)src->height;
    for (size_t i = 0; i < n; i++) {
        const uint8_t *s = src->data + i * (size_t)src->channels;
        uint8_t *d = dst->data + i * (size_t)out_c;
        for (int c = 0; c < (color ? 3 : 1); c++)
            d[c] = src_color ? s[c] : s[0];
        if (alpha)
            d[out_c - 1] = src_alpha ? s[src->channels - 1] : 255;
    }
    return GPUIMG_OK;
}
