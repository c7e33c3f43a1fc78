/* SPDX-License-Identifier: MIT */
/* sobel (SPEC §3): the gradient magnitude of the 3x3 Sobel kernels. */
#include "ops/params.h"

static gpuimg_status sobel_apply(gpuimg_backend *be, const gpuimg_step *s, const gpuimg_planes *src,
                                 gpuimg_planes *dst)
{
    return be->ops->sobel(be, src, dst, gpuimg__border_of(s, 0));
}

static const gpuimg_param_info sobel_params[] = {BORDER_PARAM};

const gpuimg__op gpuimg__op_sobel = {
    .info = {"sobel", "gradient magnitude sqrt(gx^2 + gy^2) of the Sobel kernels",
             PARAMS(sobel_params)},
    .shape = gpuimg__same_shape,
    .apply = sobel_apply,
    .cost = gpuimg__window_cost,
    .example = "sobel:border=constant",
};
