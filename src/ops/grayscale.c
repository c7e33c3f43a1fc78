/* SPDX-License-Identifier: MIT */
/* grayscale (SPEC §3): the rounded Rec.601 luma; alpha passed on. */
#include "ops/params.h"

static void gray_shape(const gpuimg_step *s, int w, int h, int c, int *ow, int *oh, int *oc)
{
    (void)s;
    *ow = w;
    *oh = h;
    *oc = c == 3 ? 1 : c == 4 ? 2 : c;
}

static gpuimg_status grayscale_apply(gpuimg_backend *be, const gpuimg_step *s,
                                     const gpuimg_planes *src, gpuimg_planes *dst)
{
    (void)s;
    return be->ops->grayscale(be, src, dst);
}

const gpuimg__op gpuimg__op_grayscale = {
    .info = {"grayscale", "Rec.601 luma (RGB -> gray, RGBA -> gray+alpha)", 0, NULL},
    .shape = gray_shape,
    .apply = grayscale_apply,
    .cost = gpuimg__pass_cost,
    .example = "grayscale",
    .value_op = 1,
};
