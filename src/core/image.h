/* SPDX-License-Identifier: MIT */
#ifndef GPUIMG_IMAGE_H
#define GPUIMG_IMAGE_H

#include "gpuimg.h"

/* Copies src (any stride) into dst, packed, with colour (gray replicated
 * into R, G, B) and/or alpha (255 where src has none) as asked; src must
 * not have more than asked. */
gpuimg_status gpuimg__image_widen(gpuimg_ctx *ctx, const gpuimg_image *src, int color, int alpha,
                                  gpuimg_image *dst);

#endif
