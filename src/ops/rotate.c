/* SPDX-License-Identifier: MIT */
/* rotate: quarter turns clockwise (the backend's move). */
#include "ops/params.h"

static const char *const angle_names[] = {"90", "180", "270", NULL};

static void rotate_shape(const gpuimg_step *s, int w, int h, int c, int *ow, int *oh, int *oc)
{
    if ((int)s->value[0] == 1) /* 180: same shape */
        gpuimg__same_shape(s, w, h, c, ow, oh, oc);
    else
        gpuimg__swapped_shape(s, w, h, c, ow, oh, oc);
}

static gpuimg_status rotate_apply(gpuimg_backend *be, const gpuimg_step *s,
                                  const gpuimg_planes *src, gpuimg_planes *dst)
{
    static const gpuimg_move turns[3] = {GPUIMG_MOVE_ROTATE90, GPUIMG_MOVE_ROTATE180,
                                         GPUIMG_MOVE_ROTATE270};
    return be->ops->move(be, src, dst, turns[(int)s->value[0]]);
}

static const gpuimg_param_info rotate_params[] = {
    {.name = "angle",
     .type = GPUIMG_PARAM_CHOICE,
     .choices = angle_names,
     .required = 1,
     .metavar = "90|180|270",
     .help = "clockwise rotation in degrees"},
};

const gpuimg__op gpuimg__op_rotate = {
    .info = {"rotate", "rotate by quarter turns, clockwise", PARAMS(rotate_params)},
    .shape = rotate_shape,
    .apply = rotate_apply,
    .cost = gpuimg__pass_cost,
    .example = "rotate:angle=270",
};
