/* SPDX-License-Identifier: MIT */
/* convolve (SPEC §3): a 2-D kernel as written, named or from a kernel file
 * (kernel_file.c), flipped and scaled at finish. */
#include <math.h>

#include "ops/params.h"

enum {
    CONV_KERNEL,
    CONV_NORMALIZE,
    CONV_SCALE,
    CONV_BIAS,
    CONV_ABS,
    CONV_FLIP,
    CONV_BORDER,
    CONV_ALPHA
};

static gpuimg_status convolve_finish(gpuimg_ctx *ctx, gpuimg_step *s)
{
    int kw, kh;
    gpuimg_status st = gpuimg__kernel_load(ctx, s->text[CONV_KERNEL], &s->weights, &kw, &kh);
    if (st != GPUIMG_OK)
        return st;
    size_t n = (size_t)kw * (size_t)kh;
    if (s->value[CONV_FLIP]) /* rotate by 180°: true convolution */
        for (size_t i = 0; i < n / 2; i++) {
            float t = s->weights[i];
            s->weights[i] = s->weights[n - 1 - i];
            s->weights[n - 1 - i] = t;
        }
    double scale = s->value[CONV_SCALE], sum = 0.0;
    for (size_t i = 0; i < n; i++)
        sum += s->weights[i];
    if (s->value[CONV_NORMALIZE] && sum != 0.0)
        scale = 1.0 / sum;
    if (!(fabs(scale) <= 3.4e38)) /* 1/ΣK beyond float: every pixel would be inf or NaN */
        return gpuimg__fail(ctx, GPUIMG_ERR_USAGE,
                            "normalize: the kernel's sum %g is too small to divide by", sum);
    s->conv = (gpuimg_conv){.width = kw,
                            .height = kh,
                            .weights = s->weights,
                            .scale = (float)scale,
                            .bias = (float)s->value[CONV_BIAS],
                            .absolute = s->value[CONV_ABS] != 0};
    return GPUIMG_OK;
}

static gpuimg_status convolve_planes(gpuimg_backend *be, const gpuimg_step *s,
                                     const gpuimg_planes *src, gpuimg_planes *dst)
{
    return be->ops->convolve(be, src, dst, &s->conv, gpuimg__border_of(s, CONV_BORDER));
}

static gpuimg_status convolve_apply(gpuimg_backend *be, const gpuimg_step *s,
                                    const gpuimg_planes *src, gpuimg_planes *dst)
{
    if (gpuimg__premultiplied(s, CONV_ALPHA, src))
        return gpuimg__alpha_weighted(be, s, src, dst, convolve_planes);
    return convolve_planes(be, s, src, dst);
}

static double convolve_cost(const gpuimg_step *s)
{
    return 0.6 + (double)s->conv.width * s->conv.height * 0.05;
}

static const gpuimg_param_info convolve_params[] = {
    {.name = "kernel",
     .type = GPUIMG_PARAM_TEXT,
     .required = 1,
     .metavar = "NAME|FILE",
     .help = "identity, box3, gaussian3, gaussian5, sharpen, laplacian, edge, emboss, "
             "sobel-x, sobel-y, prewitt-x, prewitt-y, or a kernel file"},
    {.name = "normalize",
     .type = GPUIMG_PARAM_FLAG,
     .help = "set the scale to 1/sum of the weights (when the sum is not 0; overrides --scale)"},
    {.name = "scale",
     .type = GPUIMG_PARAM_FLOAT,
     .min = -1e6,
     .max = 1e6,
     .default_value = 1,
     .default_text = "1",
     .metavar = "F",
     .help = "multiply the sum"},
    {.name = "bias",
     .type = GPUIMG_PARAM_FLOAT,
     .min = -1e6,
     .max = 1e6,
     .default_value = 0,
     .default_text = "0",
     .metavar = "F",
     .help = "add after scaling"},
    {.name = "abs", .type = GPUIMG_PARAM_FLAG, .help = "take the absolute value before rounding"},
    {.name = "flip",
     .type = GPUIMG_PARAM_FLAG,
     .help = "rotate the kernel by 180 degrees (true convolution)"},
    BORDER_PARAM,
    ALPHA_PARAM,
};

const gpuimg__op gpuimg__op_convolve = {
    .info = {"convolve", "general 2-D convolution (kernel applied as written, like filter2D)",
             PARAMS(convolve_params)},
    .shape = gpuimg__same_shape,
    .finish = convolve_finish,
    .apply = convolve_apply,
    .cost = convolve_cost,
    .example = "convolve:kernel=emboss,scale=0.5,bias=8,border=reflect",
};
