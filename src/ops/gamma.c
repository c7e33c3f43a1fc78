/* SPDX-License-Identifier: MIT */
/* gamma (SPEC §3): v' = round(M (v / M)^(1/G)), M = 255 or 65535, in
 * double; alpha unchanged. A per-value operation: its finish tabulates the
 * formula once, and every backend looks the values up (map_lut). */
#include <math.h>

#include "ops/params.h"

enum { GAMMA_G };

static uint32_t gamma_value(const gpuimg_step *s, uint32_t v, uint32_t top)
{
    return (uint32_t)floor(top * pow((double)v / top, 1.0 / s->value[GAMMA_G]) + 0.5);
}

static gpuimg_status gamma_finish(gpuimg_ctx *ctx, gpuimg_step *s)
{
    return gpuimg__lut_build(ctx, s, gamma_value);
}

static const gpuimg_param_info gamma_params[] = {
    {.name = "gamma",
     .type = GPUIMG_PARAM_FLOAT,
     .min = 0.1,
     .max = 10,
     .required = 1,
     .metavar = "G",
     .help = "the exponent 1/G: above 1 brightens, below 1 darkens"},
};

const gpuimg__op gpuimg__op_gamma = {
    .info = {"gamma", "gamma correction M (v/M)^(1/G) (alpha unchanged)", PARAMS(gamma_params)},
    .shape = gpuimg__same_shape,
    .finish = gamma_finish,
    .apply = gpuimg__lut_apply,
    .cost = gpuimg__pass_cost,
    .example = "gamma:gamma=2.2",
    .value_op = 1,
};
