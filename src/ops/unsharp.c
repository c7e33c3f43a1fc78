/* SPDX-License-Identifier: MIT */
/* unsharp (SPEC §3): the image plus amount times its difference from its
 * Gaussian blur (kept in float), where that difference passes the
 * threshold; alpha unchanged. */
#include "ops/params.h"

enum { US_SIGMA, US_AMOUNT, US_THRESHOLD };

static gpuimg_status unsharp_finish(gpuimg_ctx *ctx, gpuimg_step *s)
{
    return gpuimg__gaussian(ctx, s, s->value[US_SIGMA], 0);
}

static gpuimg_status unsharp_apply(gpuimg_backend *be, const gpuimg_step *s,
                                   const gpuimg_planes *src, gpuimg_planes *dst)
{
    double units = src->depth == 16 ? 257.0 : 1.0; /* the threshold is in 0..255 */
    return be->ops->unsharp(be, src, dst, s->weights, s->radius, (float)s->value[US_AMOUNT],
                            (float)(s->value[US_THRESHOLD] * units));
}

static double unsharp_cost(const gpuimg_step *s)
{
    return 0.8 + 2.0 * (2 * s->radius + 1) * 0.08;
}

static const gpuimg_param_info unsharp_params[] = {
    {.name = "sigma",
     .type = GPUIMG_PARAM_FLOAT,
     .min = 0,
     .max = 200,
     .min_exclusive = 1,
     .default_value = 1,
     .default_text = "1",
     .metavar = "S",
     .help = "the blur's standard deviation in pixels"},
    {.name = "amount",
     .type = GPUIMG_PARAM_FLOAT,
     .min = 0,
     .max = 10,
     .default_value = 1,
     .default_text = "1",
     .metavar = "A",
     .help = "how much of the difference from the blur is added"},
    {.name = "threshold",
     .type = GPUIMG_PARAM_FLOAT,
     .min = 0,
     .max = 255,
     .default_value = 0,
     .default_text = "0",
     .metavar = "T",
     .help = "differences up to T (0..255 units) are left alone"},
};

const gpuimg__op gpuimg__op_unsharp = {
    .info = {"unsharp", "unsharp mask: sharpening (alpha unchanged)", PARAMS(unsharp_params)},
    .shape = gpuimg__same_shape,
    .finish = unsharp_finish,
    .apply = unsharp_apply,
    .cost = unsharp_cost,
    .example = "unsharp:sigma=1.5,amount=0.8,threshold=3",
    .value_op = 1,
};
