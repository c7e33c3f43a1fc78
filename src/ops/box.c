/* SPDX-License-Identifier: MIT */
/* box (SPEC §3): the mean over a (2R+1)² window, in integer window sums. */
#include <stdlib.h>

#include "ops/params.h"

enum { BOX_RADIUS, BOX_BORDER, BOX_ALPHA };

/* Premultiplied values are floats, so there the box is the separable float
 * filter of 2R + 1 equal weights (the integer window sums need integers). */
static gpuimg_status box_finish(gpuimg_ctx *ctx, gpuimg_step *s)
{
    if (!s->value[BOX_ALPHA])
        return GPUIMG_OK;
    int radius = (int)s->value[BOX_RADIUS], taps = 2 * radius + 1;
    float *w = malloc((size_t)taps * sizeof(float));
    if (!w)
        return gpuimg__fail(ctx, GPUIMG_ERR_NOMEM, "box: out of memory");
    for (int k = 0; k < taps; k++)
        w[k] = 1.0f / (float)taps;
    s->weights = w;
    s->radius = radius;
    return GPUIMG_OK;
}

static gpuimg_status box_float(gpuimg_backend *be, const gpuimg_step *s, const gpuimg_planes *src,
                               gpuimg_planes *dst)
{
    return be->ops->blur(be, src, dst, s->weights, s->radius, gpuimg__border_of(s, BOX_BORDER));
}

static gpuimg_status box_apply(gpuimg_backend *be, const gpuimg_step *s, const gpuimg_planes *src,
                               gpuimg_planes *dst)
{
    if (gpuimg__premultiplied(s, BOX_ALPHA, src))
        return gpuimg__alpha_weighted(be, s, src, dst, box_float);
    return be->ops->box(be, src, dst, (int)s->value[BOX_RADIUS], gpuimg__border_of(s, BOX_BORDER));
}

static const gpuimg_param_info box_params[] = {
    {.name = "radius",
     .type = GPUIMG_PARAM_INT,
     .min = 1,
     .max = 1000,
     .required = 1,
     .metavar = "R",
     .help = "the mean over a (2R+1) x (2R+1) window"},
    BORDER_PARAM,
    ALPHA_PARAM,
};

const gpuimg__op gpuimg__op_box = {
    .info = {"box", "box (mean) blur", PARAMS(box_params)},
    .shape = gpuimg__same_shape,
    .finish = box_finish,
    .apply = box_apply,
    .cost = gpuimg__window_cost,
    .example = "box:radius=2,border=replicate,alpha=premultiplied",
};
