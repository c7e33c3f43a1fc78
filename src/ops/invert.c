/* SPDX-License-Identifier: MIT */
/* invert: M - v, alpha passed on. */
#include "ops/params.h"

static gpuimg_status invert_apply(gpuimg_backend *be, const gpuimg_step *s,
                                  const gpuimg_planes *src, gpuimg_planes *dst)
{
    (void)s;
    return be->ops->invert(be, src, dst);
}

const gpuimg__op gpuimg__op_invert = {
    .info = {"invert", "255 - v, 65535 - v at 16 bits (alpha unchanged)", 0, NULL},
    .shape = gpuimg__same_shape,
    .apply = invert_apply,
    .cost = gpuimg__pass_cost,
    .example = "invert",
    .value_op = 1,
};
