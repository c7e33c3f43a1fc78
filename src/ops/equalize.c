/* SPDX-License-Identifier: MIT */
/* equalize (SPEC §3): histogram equalization per channel, or of the luma
 * keeping hue; the table depends on the image, so the backend builds it. */
#include "ops/params.h"

static gpuimg_status equalize_apply(gpuimg_backend *be, const gpuimg_step *s,
                                    const gpuimg_planes *src, gpuimg_planes *dst)
{
    /* --luma on gray is the per-channel equalization of its one plane */
    if (s->value[0] && src->channels == 3)
        return be->ops->equalize_luma(be, src, dst);
    return be->ops->equalize(be, src, dst);
}

static const gpuimg_param_info equalize_params[] = {
    {.name = "luma",
     .type = GPUIMG_PARAM_FLAG,
     .help = "equalize the Rec.601 luma and scale each colour by it, keeping hue"},
};

const gpuimg__op gpuimg__op_equalize = {
    .info = {"equalize", "histogram equalization per channel, or of the luma (alpha unchanged)",
             PARAMS(equalize_params)},
    .shape = gpuimg__same_shape,
    .apply = equalize_apply,
    .cost = gpuimg__pass_cost,
    .example = "equalize:luma=1",
    .value_op = 1,
};
