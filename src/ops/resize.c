/* SPDX-License-Identifier: MIT */
/* resize (SPEC §3): to a width, a height, a scale or a box with a fit; the
 * weights of each axis are tabulated once (resample.c) and applied by the
 * backend's resample, premultiplied by alpha by default. */
#include <math.h>
#include <stdio.h>

#include "ops/params.h"
#include "ops/resample.h"

enum { RS_WIDTH, RS_HEIGHT, RS_SIZE, RS_SCALE, RS_FIT, RS_BACKGROUND, RS_FILTER, RS_ALPHA };

static const char *const fit_names[] = {"fill", "inside", "cover", "pad", NULL};
static const char *const filter_names[] = {"lanczos3", "cubic", "linear", "area", "nearest", NULL};

static gpuimg_status resize_finish(gpuimg_ctx *ctx, gpuimg_step *s)
{
    int sizes = (int)(GIVEN(s, RS_WIDTH) | GIVEN(s, RS_HEIGHT)) + (int)GIVEN(s, RS_SIZE) +
                (int)GIVEN(s, RS_SCALE);
    if (sizes != 1)
        return gpuimg__fail(ctx, GPUIMG_ERR_USAGE,
                            "resize: give one of --width/--height, --size WxH or --scale F");
    if (GIVEN(s, RS_SIZE) && !gpuimg__parse_size(s->text[RS_SIZE], 0, &s->box[0], &s->box[1]))
        return gpuimg__fail(ctx, GPUIMG_ERR_USAGE, "size: '%s' is not WxH (1..65535 each)",
                            s->text[RS_SIZE]);
    if (GIVEN(s, RS_FIT) && !GIVEN(s, RS_SIZE))
        return gpuimg__fail(ctx, GPUIMG_ERR_USAGE, "fit: only with --size WxH");
    s->background_n = 0;
    if (GIVEN(s, RS_BACKGROUND)) {
        if ((int)s->value[RS_FIT] != GPUIMG__FIT_PAD)
            return gpuimg__fail(ctx, GPUIMG_ERR_USAGE, "background: only with --fit pad");
        int n = gpuimg__parse_numbers(s->text[RS_BACKGROUND], 4, s->background);
        int ok = n >= 3;
        for (int i = 0; ok && i < n; i++)
            ok = s->background[i] >= 0 && s->background[i] <= 255;
        if (!ok)
            return gpuimg__fail(ctx, GPUIMG_ERR_USAGE,
                                "background: '%s' is not R,G,B or R,G,B,A (0..255 each)",
                                s->text[RS_BACKGROUND]);
        s->background_n = n;
    }
    return GPUIMG_OK;
}

static void resize_place(const gpuimg_step *s, int w, int h, gpuimg__placement *pl)
{
    int bw, bh;
    gpuimg__fit fit = GPUIMG__FIT_FILL;
    if (GIVEN(s, RS_SIZE)) {
        bw = s->box[0];
        bh = s->box[1];
        fit = (gpuimg__fit)(int)s->value[RS_FIT];
    } else if (GIVEN(s, RS_SCALE)) {
        bw = gpuimg__round_side(w * s->value[RS_SCALE]);
        bh = gpuimg__round_side(h * s->value[RS_SCALE]);
    } else if (GIVEN(s, RS_WIDTH) && GIVEN(s, RS_HEIGHT)) {
        bw = (int)s->value[RS_WIDTH];
        bh = (int)s->value[RS_HEIGHT];
    } else if (GIVEN(s, RS_WIDTH)) {
        bw = (int)s->value[RS_WIDTH];
        bh = gpuimg__round_side((double)h * bw / w);
    } else {
        bh = (int)s->value[RS_HEIGHT];
        bw = gpuimg__round_side((double)w * bh / h);
    }
    gpuimg__place(w, h, bw, bh, fit, INFINITY, pl);
}

static gpuimg_status resize_check(gpuimg_ctx *ctx, const gpuimg_step *s, int w, int h)
{
    gpuimg__placement pl;
    resize_place(s, w, h, &pl);
    return gpuimg__check_placement(ctx, "output", &pl);
}

static void resize_shape(const gpuimg_step *s, int w, int h, int c, int *ow, int *oh, int *oc)
{
    gpuimg__placement pl;
    resize_place(s, w, h, &pl);
    *ow = gpuimg__min_side(pl.ow);
    *oh = gpuimg__min_side(pl.oh);
    *oc = c;
}

/* --background in the image's units: black, transparent with alpha, by
 * default; a gray image takes the colour's Rec.601 luma */
static void background_of(const gpuimg_step *s, const gpuimg_planes *src, uint16_t out[4])
{
    double rgba[4] = {0, 0, 0, src->channels % 2 == 0 ? 0 : 255};
    if (s->background_n > 0) {
        for (int i = 0; i < s->background_n; i++)
            rgba[i] = s->background[i];
        if (s->background_n == 3)
            rgba[3] = 255;
    }
    double scale = src->depth == 16 ? 257.0 : 1.0, v[4];
    int colours = src->channels - (src->channels % 2 == 0);
    if (colours == 1)
        v[0] = floor(0.299 * rgba[0] + 0.587 * rgba[1] + 0.114 * rgba[2] + 0.5);
    else
        for (int i = 0; i < 3; i++)
            v[i] = floor(rgba[i] + 0.5);
    v[colours] = floor(rgba[3] + 0.5);
    for (int i = 0; i < src->channels; i++)
        out[i] = (uint16_t)(v[i] * scale);
}

static gpuimg_status resize_apply(gpuimg_backend *be, const gpuimg_step *s,
                                  const gpuimg_planes *src, gpuimg_planes *dst)
{
    gpuimg__placement pl;
    resize_place(s, src->width, src->height, &pl);
    uint16_t background[4];
    background_of(s, src, background);
    return gpuimg__resize_to(be, src, dst, &pl, (gpuimg__filter)(int)s->value[RS_FILTER],
                             gpuimg__premultiplied(s, RS_ALPHA, src), background);
}

/* per output value: the taps of both passes, a shrink's widened support
 * read through the table (a rough mean over the common sizes) */
static double resize_cost(const gpuimg_step *s)
{
    static const double taps[] = {12, 8, 4, 4, 1};
    return 0.5 + 0.1 * taps[(int)s->value[RS_FILTER]];
}

static const gpuimg_param_info resize_params[] = {
    {.name = "width",
     .type = GPUIMG_PARAM_INT,
     .min = 1,
     .max = 65535,
     .metavar = "W",
     .help = "the output width; the height keeps the aspect ratio unless --height"},
    {.name = "height",
     .type = GPUIMG_PARAM_INT,
     .min = 1,
     .max = 65535,
     .metavar = "H",
     .help = "the output height; the width keeps the aspect ratio unless --width"},
    {.name = "size",
     .type = GPUIMG_PARAM_TEXT,
     .metavar = "WxH",
     .help = "a box, filled as --fit says"},
    {.name = "scale",
     .type = GPUIMG_PARAM_FLOAT,
     .min = 0,
     .max = 64,
     .min_exclusive = 1,
     .metavar = "F",
     .help = "both sides times F"},
    {.name = "fit",
     .type = GPUIMG_PARAM_CHOICE,
     .choices = fit_names,
     .default_text = "fill",
     .metavar = "FIT",
     .help = "with --size: fill (exactly WxH), inside, cover (the centre kept) or pad"},
    {.name = "background",
     .type = GPUIMG_PARAM_TEXT,
     .default_text = "black; transparent with alpha",
     .metavar = "R,G,B[,A]",
     .help = "--fit pad's canvas, 0..255 each"},
    {.name = "filter",
     .type = GPUIMG_PARAM_CHOICE,
     .choices = filter_names,
     .default_text = "lanczos3",
     .metavar = "FILTER",
     .help = "lanczos3, cubic, linear, area or nearest"},
    {.name = "alpha",
     .type = GPUIMG_PARAM_CHOICE,
     .choices = gpuimg__alpha_names,
     .default_value = 1,
     .default_text = "premultiplied",
     .metavar = "MODE",
     .help = "premultiplied (transparent pixels lend no colour) or independent"},
};

const gpuimg__op gpuimg__op_resize = {
    .info = {"resize", "resample to a new size (lanczos3 by default)", PARAMS(resize_params)},
    .shape = resize_shape,
    .check = resize_check,
    .finish = resize_finish,
    .apply = resize_apply,
    .cost = resize_cost,
    .example = "resize:size=37x23,fit=pad,background=10,200,30,filter=cubic",
};
