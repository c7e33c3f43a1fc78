/* SPDX-License-Identifier: MIT */
/* thumbnail (SPEC §3): resize to fit inside a box (or cover it, --crop) with
 * lanczos3, never larger than the input unless --upsize; an image within
 * the box is copied unchanged. A JPEG may be decoded smaller ("shrink on
 * load", gpuimg__thumbnail_shrink); the output's size is then still
 * computed from the size the file has (the step's from_w, from_h). */
#include <math.h>

#include "ops/params.h"
#include "ops/resample.h"

enum { TH_SIZE, TH_CROP, TH_UPSIZE, TH_NO_SHRINK };

static gpuimg_status thumbnail_finish(gpuimg_ctx *ctx, gpuimg_step *s)
{
    if (!gpuimg__parse_size(s->text[TH_SIZE], 1, &s->box[0], &s->box[1]))
        return gpuimg__fail(ctx, GPUIMG_ERR_USAGE, "size: '%s' is not N or WxH (1..65535 each)",
                            s->text[TH_SIZE]);
    return GPUIMG_OK;
}

/* The placement of a w x h image (the file's size). */
static void thumbnail_place(const gpuimg_step *s, int w, int h, gpuimg__placement *pl)
{
    gpuimg__place(w, h, s->box[0], s->box[1],
                  s->value[TH_CROP] != 0 ? GPUIMG__FIT_COVER : GPUIMG__FIT_INSIDE,
                  s->value[TH_UPSIZE] != 0 ? INFINITY : 1.0, pl);
}

/* The placement of an image of w x h as decoded: from the file's size
 * when its load shrank it (a per-image copy of the step knows it). */
static void thumbnail_place_decoded(const gpuimg_step *s, int w, int h, gpuimg__placement *pl)
{
    thumbnail_place(s, s->from_w ? s->from_w : w, s->from_h ? s->from_h : h, pl);
}

int gpuimg__thumbnail_shrink(const gpuimg_step *s, int w, int h)
{
    if (s->op != &gpuimg__op_thumbnail || s->value[TH_NO_SHRINK] != 0 || w <= 0 || h <= 0)
        return 1; /* a header's zero side: the decoder refuses the file */
    gpuimg__placement pl;
    thumbnail_place(s, w, h, &pl);
    /* the largest factor after which at least 2 is still to do on each axis */
    for (int f = 8; f >= 2; f /= 2)
        if ((double)w / (f * (double)pl.rw) >= 2.0 && (double)h / (f * (double)pl.rh) >= 2.0)
            return f;
    return 1;
}

static gpuimg_status thumbnail_check(gpuimg_ctx *ctx, const gpuimg_step *s, int w, int h)
{
    gpuimg__placement pl;
    thumbnail_place_decoded(s, w, h, &pl);
    return gpuimg__check_placement(ctx, "output", &pl);
}

static void thumbnail_shape(const gpuimg_step *s, int w, int h, int c, int *ow, int *oh, int *oc)
{
    gpuimg__placement pl;
    thumbnail_place_decoded(s, w, h, &pl);
    *ow = gpuimg__min_side(pl.ow);
    *oh = gpuimg__min_side(pl.oh);
    *oc = c;
}

static gpuimg_status thumbnail_apply(gpuimg_backend *be, const gpuimg_step *s,
                                     const gpuimg_planes *src, gpuimg_planes *dst)
{
    gpuimg__placement pl;
    thumbnail_place_decoded(s, src->width, src->height, &pl);
    if (pl.rw == src->width && pl.rh == src->height) /* within the box: copied */
        return be->ops->copy_rect(be, src, dst, pl.kx, pl.ky, 0, 0, pl.kw, pl.kh);
    static const uint16_t none[4] = {0, 0, 0, 0}; /* no canvas: unread */
    return gpuimg__resize_to(be, src, dst, &pl, GPUIMG__FILTER_LANCZOS3, 1, none);
}

static double thumbnail_cost(const gpuimg_step *s)
{
    (void)s;
    return 1.7;
}

static const gpuimg_param_info thumbnail_params[] = {
    {.name = "size",
     .type = GPUIMG_PARAM_TEXT,
     .required = 1,
     .metavar = "N|WxH",
     .help = "the box: N x N, or W x H"},
    {.name = "crop", .type = GPUIMG_PARAM_FLAG, .help = "fill the box and keep its centre"},
    {.name = "upsize", .type = GPUIMG_PARAM_FLAG, .help = "enlarge an image smaller than the box"},
    {.name = "no-shrink-on-load",
     .type = GPUIMG_PARAM_FLAG,
     .help = "decode a JPEG at full size (the exact resize)"},
};

const gpuimg__op gpuimg__op_thumbnail = {
    .info = {"thumbnail", "fit inside a box (or fill it, --crop), lanczos3",
             PARAMS(thumbnail_params)},
    .shape = thumbnail_shape,
    .check = thumbnail_check,
    .finish = thumbnail_finish,
    .apply = thumbnail_apply,
    .cost = thumbnail_cost,
    .example = "thumbnail:size=40x30,crop",
};
