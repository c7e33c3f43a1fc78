/* SPDX-License-Identifier: MIT */
/* flip: a mirror left-right or top-bottom (the backend's move). */
#include "ops/params.h"

static const char *const axis_names[] = {"h", "v", NULL};

static gpuimg_status flip_apply(gpuimg_backend *be, const gpuimg_step *s, const gpuimg_planes *src,
                                gpuimg_planes *dst)
{
    return be->ops->move(be, src, dst,
                         (int)s->value[0] == 0 ? GPUIMG_MOVE_FLIP_H : GPUIMG_MOVE_FLIP_V);
}

static const gpuimg_param_info flip_params[] = {
    {.name = "axis",
     .type = GPUIMG_PARAM_CHOICE,
     .choices = axis_names,
     .required = 1,
     .metavar = "h|v",
     .help = "h mirrors left-right, v mirrors top-bottom"},
};

const gpuimg__op gpuimg__op_flip = {
    .info = {"flip", "mirror left-right (h) or top-bottom (v)", PARAMS(flip_params)},
    .shape = gpuimg__same_shape,
    .apply = flip_apply,
    .cost = gpuimg__pass_cost,
    .example = "flip:axis=v",
};
