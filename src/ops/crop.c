/* SPDX-License-Identifier: MIT */
/* crop (SPEC §3): a rectangle given as X,Y,W,H or as WxH at a gravity; an
 * exact copy (the backend's copy_rect). */
#include <math.h>

#include "ops/params.h"
#include "ops/resample.h"

enum { CROP_RECT, CROP_SIZE, CROP_GRAVITY };

/* Each gravity's column and row: 0 the left or top edge, 1 the centre, 2
 * the right or bottom edge. "center" is "centre" as ImageMagick spells it. */
static const char *const gravity_names[] = {"centre",    "north",     "south",     "east",
                                            "west",      "northeast", "northwest", "southeast",
                                            "southwest", "center",    NULL};
static const int gravity_at[][2] = {{1, 1}, {1, 0}, {1, 2}, {2, 1}, {0, 1},
                                    {2, 0}, {0, 0}, {2, 2}, {0, 2}, {1, 1}};

static gpuimg_status crop_finish(gpuimg_ctx *ctx, gpuimg_step *s)
{
    if (GIVEN(s, CROP_RECT) == GIVEN(s, CROP_SIZE))
        return gpuimg__fail(ctx, GPUIMG_ERR_USAGE, "crop: give --rect X,Y,W,H or --size WxH");
    if (GIVEN(s, CROP_SIZE)) {
        if (!gpuimg__parse_size(s->text[CROP_SIZE], 0, &s->box[2], &s->box[3]))
            return gpuimg__fail(ctx, GPUIMG_ERR_USAGE, "size: '%s' is not WxH (1..65535 each)",
                                s->text[CROP_SIZE]);
        return GPUIMG_OK;
    }
    if (GIVEN(s, CROP_GRAVITY))
        return gpuimg__fail(ctx, GPUIMG_ERR_USAGE, "gravity: only with --size WxH");
    double v[4];
    int ok = gpuimg__parse_numbers(s->text[CROP_RECT], 4, v) == 4;
    for (int i = 0; ok && i < 4; i++)
        ok = v[i] >= (i < 2 ? 0 : 1) && v[i] <= 65535 && v[i] == floor(v[i]); /* then cast */
    if (!ok)
        return gpuimg__fail(ctx, GPUIMG_ERR_USAGE,
                            "rect: '%s' is not X,Y,W,H (whole numbers, W and H at least 1)",
                            s->text[CROP_RECT]);
    for (int i = 0; i < 4; i++)
        s->box[i] = (int)v[i];
    return GPUIMG_OK;
}

/* the rectangle's corner in a w x h image */
static void crop_origin(const gpuimg_step *s, int w, int h, int *x, int *y)
{
    if (GIVEN(s, CROP_RECT)) {
        *x = s->box[0];
        *y = s->box[1];
        return;
    }
    const int *g = gravity_at[(int)s->value[CROP_GRAVITY]];
    *x = g[0] == 0 ? 0 : g[0] == 1 ? (w - s->box[2]) / 2 : w - s->box[2];
    *y = g[1] == 0 ? 0 : g[1] == 1 ? (h - s->box[3]) / 2 : h - s->box[3];
}

static gpuimg_status crop_check(gpuimg_ctx *ctx, const gpuimg_step *s, int w, int h)
{
    if (GIVEN(s, CROP_SIZE) && (s->box[2] > w || s->box[3] > h))
        return gpuimg__fail(ctx, GPUIMG_ERR_USAGE, "%dx%d is larger than the %dx%d image",
                            s->box[2], s->box[3], w, h);
    if (GIVEN(s, CROP_RECT) && ((long)s->box[0] + s->box[2] > w || (long)s->box[1] + s->box[3] > h))
        return gpuimg__fail(ctx, GPUIMG_ERR_USAGE,
                            "the rectangle %d,%d,%d,%d is not inside the %dx%d image", s->box[0],
                            s->box[1], s->box[2], s->box[3], w, h);
    return GPUIMG_OK;
}

static void crop_shape(const gpuimg_step *s, int w, int h, int c, int *ow, int *oh, int *oc)
{
    (void)w;
    (void)h;
    *ow = s->box[2];
    *oh = s->box[3];
    *oc = c;
}

static gpuimg_status crop_apply(gpuimg_backend *be, const gpuimg_step *s, const gpuimg_planes *src,
                                gpuimg_planes *dst)
{
    int x, y;
    crop_origin(s, src->width, src->height, &x, &y);
    return be->ops->copy_rect(be, src, dst, x, y, 0, 0, dst->width, dst->height);
}

static double crop_cost(const gpuimg_step *s)
{
    (void)s;
    return 0.2;
}

static const gpuimg_param_info crop_params[] = {
    {.name = "rect",
     .type = GPUIMG_PARAM_TEXT,
     .metavar = "X,Y,W,H",
     .help = "the rectangle at column X, row Y, W wide and H high (inside the image)"},
    {.name = "size",
     .type = GPUIMG_PARAM_TEXT,
     .metavar = "WxH",
     .help = "a WxH rectangle placed by --gravity"},
    {.name = "gravity",
     .type = GPUIMG_PARAM_CHOICE,
     .choices = gravity_names,
     .default_text = "centre",
     .metavar = "G",
     .help = "centre, north, south, east, west, northeast, northwest, southeast or southwest"},
};

const gpuimg__op gpuimg__op_crop = {
    .info = {"crop", "a rectangle of the image", PARAMS(crop_params)},
    .shape = crop_shape,
    .check = crop_check,
    .finish = crop_finish,
    .apply = crop_apply,
    .cost = crop_cost,
    .example = "crop:size=1x1,gravity=southeast",
};
