/* SPDX-License-Identifier: MIT */
/* Codecs behind gpuimg_load/gpuimg_save. Each decoder turns its library's
 * conventions (libpng's longjmp, stb's NULL + reason) into a gpuimg status
 * and a detail naming the file. */
#ifndef GPUIMG_IO_H
#define GPUIMG_IO_H

#include <stdio.h>

#include "internal.h"

/* Refuses a size over the side limit or --max-pixels before any decoding. */
gpuimg_status gpuimg__check_size(gpuimg_ctx *ctx, const char *name, uint64_t width,
                                 uint64_t height);

/* A PNG's big-endian 32-bit field. */
static inline uint32_t gpuimg__be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

int gpuimg__is_png(const uint8_t *data, size_t size);
/* Whether the first bytes of a file look like an image stb can read. */
int gpuimg__stb_plausible(const uint8_t *data, size_t size);
/* The common PNG without libpng (io_png_inflate.c): 1 and the image, or 0,
 * with nothing set, for anything it does not take or finds wrong. */
int gpuimg__decode_png_fast(gpuimg_ctx *ctx, const uint8_t *data, size_t size, gpuimg_image *out);
gpuimg_status gpuimg__decode_png(gpuimg_ctx *ctx, const uint8_t *data, size_t size,
                                 const char *name, gpuimg_image *out);
int gpuimg__is_jpeg(const uint8_t *data, size_t size);
gpuimg_status gpuimg__decode_jpeg(gpuimg_ctx *ctx, const uint8_t *data, size_t size,
                                  const char *name, gpuimg_image *out);
/* Every other read format, through stb_image. */
gpuimg_status gpuimg__decode_stb(gpuimg_ctx *ctx, const uint8_t *data, size_t size,
                                 const char *name, gpuimg_image *out);

gpuimg_status gpuimg__encode_png(gpuimg_ctx *ctx, FILE *f, const char *name,
                                 const gpuimg_image *img);
gpuimg_status gpuimg__encode_jpeg(gpuimg_ctx *ctx, FILE *f, const char *name,
                                  const gpuimg_image *img);
gpuimg_status gpuimg__encode_stb(gpuimg_ctx *ctx, FILE *f, const char *name, gpuimg_format format,
                                 const gpuimg_image *img);
gpuimg_status gpuimg__encode_pnm(gpuimg_ctx *ctx, FILE *f, const char *name, gpuimg_format format,
                                 const gpuimg_image *img);

#endif
