/* SPDX-License-Identifier: MIT */
/* invert: M - v. A per-value operation, but with its own backend entry
 * rather than a table (map_lut): the complement of the bits needs no
 * lookup, and the kernels vectorize it (a 16-bit table lookup would be a
 * gather on the CPU and a 128 KiB shared table on the device). */
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
