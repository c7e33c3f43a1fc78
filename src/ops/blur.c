/* SPDX-License-Identifier: MIT */
/* blur (SPEC §3): the separable Gaussian, its weights made at finish. */
#include <math.h>
#include <stdlib.h>

#include "ops/params.h"

enum { BLUR_SIGMA, BLUR_RADIUS, BLUR_BORDER, BLUR_ALPHA };

gpuimg_status gpuimg__gaussian(gpuimg_ctx *ctx, gpuimg_step *s, double sigma, int radius)
{
    if (radius == 0) {
        radius = (int)ceil(3.0 * sigma);
        if (radius < 1)
            radius = 1;
    }
    float *w = malloc((size_t)(2 * radius + 1) * sizeof(float));
    if (!w)
        return gpuimg__fail(ctx, GPUIMG_ERR_NOMEM, "%s: out of memory", s->op->info.name);
    /* exp(-(k/σ)²/2): with a tiny σ, 2σ² would underflow to 0 and make the
     * centre weight 0/0; this form gives 1 there and 0 elsewhere. */
    double sum = 0.0;
    for (int k = -radius; k <= radius; k++)
        sum += exp(-0.5 * (k / sigma) * (k / sigma));
    for (int k = -radius; k <= radius; k++)
        w[k + radius] = (float)(exp(-0.5 * (k / sigma) * (k / sigma)) / sum);
    s->weights = w;
    s->radius = radius;
    return GPUIMG_OK;
}

static gpuimg_status blur_finish(gpuimg_ctx *ctx, gpuimg_step *s)
{
    double sigma = s->value[BLUR_SIGMA];
    int radius = 0;
    if (s->given & (1u << BLUR_RADIUS)) {
        radius = (int)s->value[BLUR_RADIUS];
        if (!(s->given & (1u << BLUR_SIGMA)))
            sigma = radius / 3.0;
    }
    return gpuimg__gaussian(ctx, s, sigma, radius);
}

static gpuimg_status blur_planes(gpuimg_backend *be, const gpuimg_step *s, const gpuimg_planes *src,
                                 gpuimg_planes *dst)
{
    return be->ops->blur(be, src, dst, s->weights, s->radius, gpuimg__border_of(s, BLUR_BORDER));
}

static gpuimg_status blur_apply(gpuimg_backend *be, const gpuimg_step *s, const gpuimg_planes *src,
                                gpuimg_planes *dst)
{
    if (gpuimg__premultiplied(s, BLUR_ALPHA, src))
        return gpuimg__alpha_weighted(be, s, src, dst, blur_planes);
    return blur_planes(be, s, src, dst);
}

static double blur_cost(const gpuimg_step *s)
{
    return 0.4 + 2.0 * (2 * s->radius + 1) * 0.08; /* row and column taps */
}

static const gpuimg_param_info blur_params[] = {
    {.name = "sigma",
     .type = GPUIMG_PARAM_FLOAT,
     .min = 0,
     .max = 200,
     .min_exclusive = 1,
     .default_value = 2,
     .default_text = "2, or radius/3",
     .metavar = "S",
     .help = "Gaussian standard deviation in pixels"},
    {.name = "radius",
     .type = GPUIMG_PARAM_INT,
     .min = 1,
     .max = 1000,
     .default_text = "max(1, ceil(3 sigma))",
     .metavar = "R",
     .help = "kernel radius: 2R+1 taps"},
    BORDER_PARAM,
    ALPHA_PARAM,
};

const gpuimg__op gpuimg__op_blur = {
    .info = {"blur", "separable Gaussian blur", PARAMS(blur_params)},
    .shape = gpuimg__same_shape,
    .finish = blur_finish,
    .apply = blur_apply,
    .cost = blur_cost,
    .example = "blur:sigma=1.5,border=wrap",
};
