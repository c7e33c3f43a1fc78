/* SPDX-License-Identifier: MIT */
/* The op side of the table seam: a per-value operation's finish tabulates
 * its value function once, and its apply hands the table to the backend's
 * map_lut (src/cpu/pointwise.c, kernels/pointwise.cu), which looks every
 * colour value up. */
#include <stdlib.h>

#include "ops/params.h"

static uint32_t clamped(uint32_t v, uint32_t top)
{
    return v < top ? v : top;
}

/* Both depths, here: finish does not know the image's, and a finished step
 * is applied to images of either depth, by a batch's workers at once, so a
 * table made on first use would need a lock. The 16-bit table is 65536
 * calls of fn (128 KiB), made once per step, not per image. */
gpuimg_status gpuimg__lut_build(gpuimg_ctx *ctx, gpuimg_step *s, gpuimg_value_fn fn)
{
    s->lut8 = malloc(256 * sizeof *s->lut8);
    s->lut16 = malloc(65536 * sizeof *s->lut16);
    if (!s->lut8 || !s->lut16)
        return gpuimg__fail(ctx, GPUIMG_ERR_NOMEM, "%s: out of memory", s->op->info.name);
    for (uint32_t v = 0; v < 256; v++)
        s->lut8[v] = (uint8_t)clamped(fn(s, v, 255), 255);
    for (uint32_t v = 0; v < 65536; v++)
        s->lut16[v] = (uint16_t)clamped(fn(s, v, 65535), 65535);
    return GPUIMG_OK;
}

gpuimg_status gpuimg__lut_apply(gpuimg_backend *be, const gpuimg_step *s, const gpuimg_planes *src,
                                gpuimg_planes *dst)
{
    return be->ops->map_lut(be, src, dst, s->lut8, s->lut16);
}
