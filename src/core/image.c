/* SPDX-License-Identifier: MIT */
/* The host image: allocation with overflow checks (the library's own
 * images in a context's host buffers, host_buffers.c), strides, channel
 * widening. */
#include <stdlib.h>
#include <string.h>

#include "core/host_buffers.h"

#include "core/image.h"
#include "core/internal.h"
#include "core/metadata.h"

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

size_t gpuimg__image_bytes_depth(int width, int height, int channels, int depth)
{
    size_t n = gpuimg__image_bytes(width, height, channels);
    return n > SIZE_MAX / 2 ? 0 : n * (depth == 16 ? 2 : 1);
}

int gpuimg_image_depth(const gpuimg_image *img)
{
    return img->depth == 16 ? 16 : 8;
}

size_t gpuimg_image_value_size(const gpuimg_image *img)
{
    return img->depth == 16 ? 2 : 1;
}

size_t gpuimg__row_bytes(const gpuimg_image *img)
{
    return (size_t)img->width * (size_t)img->channels * gpuimg_image_value_size(img);
}

size_t gpuimg__stride(const gpuimg_image *img)
{
    return img->stride ? img->stride : gpuimg__row_bytes(img);
}

/* Both allocations: the shape checked, then memory from the context's
 * host buffers (unzeroed) when ctx is given and has them, else calloc. */
static gpuimg_status image_new(gpuimg_ctx *ctx, gpuimg_image *img, int width, int height,
                               int channels, int depth, size_t room)
{
    memset(img, 0, sizeof *img);
    if (channels < 1 || channels > 4 || (depth != 8 && depth != 16))
        return GPUIMG_ERR_USAGE;
    size_t bytes = gpuimg__image_bytes_depth(width, height, channels, depth);
    if (bytes == 0)
        return GPUIMG_ERR_TOO_LARGE;
    bytes = room > bytes ? room : bytes;
    gpuimg_host_buffers *hb = ctx ? gpuimg__ctx_buffers(ctx) : NULL;
    if (hb && (img->buffer = gpuimg__buffer_take(hb, bytes)) != NULL)
        img->data = gpuimg__buffer_data(img->buffer);
    else if (!hb)
        img->data = calloc(bytes, 1);
    if (!img->data)
        return GPUIMG_ERR_NOMEM;
    img->width = width;
    img->height = height;
    img->channels = channels;
    img->depth = depth;
    img->stride = gpuimg__row_bytes(img);
    return GPUIMG_OK;
}

gpuimg_status gpuimg_image_alloc(gpuimg_image *img, int width, int height, int channels)
{
    return image_new(NULL, img, width, height, channels, 8, 0);
}

gpuimg_status gpuimg_image_alloc_depth(gpuimg_image *img, int width, int height, int channels,
                                       int depth)
{
    return image_new(NULL, img, width, height, channels, depth, 0);
}

gpuimg_status gpuimg__image_take_plain(gpuimg_ctx *ctx, gpuimg_image *img, int width, int height,
                                       int channels, int depth)
{
    return image_new(ctx, img, width, height, channels, depth, 0);
}

gpuimg_status gpuimg__image_take_depth(gpuimg_ctx *ctx, gpuimg_image *img, int width, int height,
                                       int channels, int depth)
{
    return gpuimg__image_take_room(ctx, img, width, height, channels, depth, 0);
}

gpuimg_status gpuimg__image_take_room(gpuimg_ctx *ctx, gpuimg_image *img, int width, int height,
                                      int channels, int depth, size_t room)
{
    /* The decoder's first take while the device is being opened for the
     * expected work: the input's buffer and the output's (the work's
     * shape) made now and pinned beside the decode, once an image. */
    size_t in = gpuimg__image_bytes_depth(width, height, channels, depth);
    in = in && room > in ? room : in;
    if (ctx->opener && ctx->expect_shape && in) {
        int ow = width, oh = height, oc = channels;
        ctx->expect_shape(ctx->expect_what, ctx->expect_count, &ow, &oh, &oc);
        ctx->expect_shape = NULL;
        gpuimg__ctx_pin_beside(ctx, in, gpuimg__image_bytes_depth(ow, oh, oc, depth));
    }
    return image_new(ctx, img, width, height, channels, depth, room);
}

gpuimg_status gpuimg__image_take(gpuimg_ctx *ctx, gpuimg_image *img, int width, int height,
                                 int channels)
{
    return gpuimg__image_take_depth(ctx, img, width, height, channels, 8);
}

void gpuimg_image_wrap(gpuimg_image *img, int width, int height, int channels, uint8_t *data,
                       size_t stride)
{
    memset(img, 0, sizeof *img);
    img->width = width;
    img->height = height;
    img->channels = channels;
    img->data = data;
    img->stride = stride;
    img->depth = 8;
}

void gpuimg_image_free(gpuimg_image *img)
{
    if (!img)
        return;
    gpuimg_metadata_free(img->meta);
    if (img->buffer)
        gpuimg__buffer_give(img->buffer);
    else
        free(img->data);
    memset(img, 0, sizeof *img);
}

void gpuimg__image_discard(gpuimg_image *img)
{
    if (img->buffer) {
        gpuimg__buffer_discard(img->buffer);
        img->buffer = NULL;
        img->data = NULL;
    }
    gpuimg_image_free(img);
}

gpuimg_status gpuimg__image_packed(gpuimg_ctx *ctx, const gpuimg_image *img, gpuimg_image *copy,
                                   const gpuimg_image **packed)
{
    memset(copy, 0, sizeof *copy);
    *packed = img;
    size_t row = gpuimg__row_bytes(img);
    if (!img->data || img->channels < 1 || img->channels > 4 ||
        (img->depth != 0 && img->depth != 8 && img->depth != 16) ||
        gpuimg__image_bytes_depth(img->width, img->height, img->channels, img->depth) == 0 ||
        (img->stride != 0 && img->stride < row) || (img->depth == 16 && img->stride % 2))
        return gpuimg__fail(ctx, GPUIMG_ERR_USAGE,
                            "invalid image (%dx%d, %d channels, %d bits, stride %zu)", img->width,
                            img->height, img->channels, img->depth, img->stride);
    if (img->stride == 0 || img->stride == row)
        return GPUIMG_OK;
    gpuimg_status st = gpuimg__image_take_depth(ctx, copy, img->width, img->height, img->channels,
                                                gpuimg_image_depth(img));
    if (st != GPUIMG_OK)
        return gpuimg__fail_as(ctx, st, "packing a strided image");
    for (int y = 0; y < img->height; y++)
        memcpy(copy->data + (size_t)y * row, img->data + (size_t)y * img->stride, row);
    *packed = copy;
    return GPUIMG_OK;
}

gpuimg_status gpuimg__image_widen(gpuimg_ctx *ctx, const gpuimg_image *src, int color, int alpha,
                                  gpuimg_image *dst)
{
    int src_color = src->channels >= 3, src_alpha = src->channels % 2 == 0;
    int out_c = (color ? 3 : 1) + (alpha ? 1 : 0), depth = gpuimg_image_depth(src);
    gpuimg_status st = gpuimg__image_take_depth(ctx, dst, src->width, src->height, out_c, depth);
    if (st != GPUIMG_OK)
        return st;
    size_t stride = gpuimg__stride(src);
    if (depth == 16) {
        uint16_t *d = (uint16_t *)dst->data;
        for (int y = 0; y < src->height; y++) {
            const uint16_t *s = (const uint16_t *)(src->data + (size_t)y * stride);
            for (int x = 0; x < src->width; x++, s += src->channels, d += out_c) {
                for (int c = 0; c < (color ? 3 : 1); c++)
                    d[c] = src_color ? s[c] : s[0];
                if (alpha)
                    d[out_c - 1] = src_alpha ? s[src->channels - 1] : 65535;
            }
        }
        return GPUIMG_OK;
    }
    uint8_t *d = dst->data;
    for (int y = 0; y < src->height; y++) {
        const uint8_t *s = src->data + (size_t)y * stride;
        for (int x = 0; x < src->width; x++, s += src->channels, d += out_c) {
            for (int c = 0; c < (color ? 3 : 1); c++)
                d[c] = src_color ? s[c] : s[0];
            if (alpha)
                d[out_c - 1] = src_alpha ? s[src->channels - 1] : 255;
        }
    }
    return GPUIMG_OK;
}

/* SPEC §2's conversions: 8 -> 16 is v * 257 (exact: 255 -> 65535), 16 -> 8
 * round(v * 255 / 65535), in integers with ties up. */
static inline uint8_t narrow16(uint32_t v)
{
    return (uint8_t)((v * 255u * 2u + 65535u) / (2u * 65535u));
}

gpuimg_status gpuimg__image_convert_depth(gpuimg_ctx *ctx, const gpuimg_image *src, int depth,
                                          gpuimg_image *dst)
{
    int from = gpuimg_image_depth(src);
    gpuimg_status st =
        ctx ? gpuimg__image_take_depth(ctx, dst, src->width, src->height, src->channels, depth)
            : gpuimg_image_alloc_depth(dst, src->width, src->height, src->channels, depth);
    if (st != GPUIMG_OK)
        return st;
    size_t n = (size_t)src->width * (size_t)src->channels, stride = gpuimg__stride(src);
    for (int y = 0; y < src->height; y++) {
        const uint8_t *row = src->data + (size_t)y * stride;
        uint8_t *out = dst->data + (size_t)y * gpuimg__row_bytes(dst);
        if (from == depth)
            memcpy(out, row, gpuimg__row_bytes(dst));
        else if (depth == 16)
            for (size_t i = 0; i < n; i++)
                ((uint16_t *)out)[i] = (uint16_t)(row[i] * 257u);
        else
            for (size_t i = 0; i < n; i++)
                out[i] = narrow16(((const uint16_t *)row)[i]);
    }
    if (src->meta && (dst->meta = gpuimg__metadata_dup(src->meta)) == NULL) {
        gpuimg_image_free(dst);
        return GPUIMG_ERR_NOMEM;
    }
    return GPUIMG_OK;
}

gpuimg_status gpuimg_image_convert_depth(const gpuimg_image *src, int depth, gpuimg_image *dst)
{
    memset(dst, 0, sizeof *dst);
    if ((depth != 8 && depth != 16) || !src->data)
        return GPUIMG_ERR_USAGE;
    return gpuimg__image_convert_depth(NULL, src, depth, dst);
}

gpuimg_status gpuimg__check_size(gpuimg_ctx *ctx, const char *name, uint64_t width, uint64_t height)
{
    if (width == 0 || height == 0)
        return gpuimg__fail(ctx, GPUIMG_ERR_DECODE, "%s: not a supported image (zero size)", name);
    if (width > GPUIMG_MAX_SIDE || height > GPUIMG_MAX_SIDE)
        return gpuimg__fail(ctx, GPUIMG_ERR_TOO_LARGE,
                            "%s: image too large (%llux%llu; a side may be at most %d pixels)",
                            name, (unsigned long long)width, (unsigned long long)height,
                            GPUIMG_MAX_SIDE);
    if (width * height > ctx->cfg.max_pixels)
        return gpuimg__fail(ctx, GPUIMG_ERR_TOO_LARGE,
                            "%s: image too large (%llux%llu is over --max-pixels %llu)", name,
                            (unsigned long long)width, (unsigned long long)height,
                            (unsigned long long)ctx->cfg.max_pixels);
    gpuimg__header_read(ctx, width, height);
    return GPUIMG_OK;
}
