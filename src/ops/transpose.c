/* SPDX-License-Identifier: MIT */
/* transpose: rows become columns (the backend's move). */
#include "ops/params.h"

static gpuimg_status transpose_apply(gpuimg_backend *be, const gpuimg_step *s,
                                     const gpuimg_planes *src, gpuimg_planes *dst)
{
    (void)s;
    return be->ops->move(be, src, dst, GPUIMG_MOVE_TRANSPOSE);
}

const gpuimg__op gpuimg__op_transpose = {
    .info = {"transpose", "swap rows and columns", 0, NULL},
    .shape = gpuimg__swapped_shape,
    .apply = transpose_apply,
    .cost = gpuimg__pass_cost,
    .example = "transpose",
};
