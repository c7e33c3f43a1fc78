/* SPDX-License-Identifier: MIT */
/* The op table: every image -> image operation, its parameters with types,
 * ranges and defaults, and its backend entry. Adding an operation is a row
 * here plus its backend functions. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ops/ops.h"

static const char *const border_names[] = {"reflect101", "reflect",  "replicate",
                                           "wrap",       "constant", NULL};
static const char *const angle_names[] = {"90", "180", "270", NULL};
static const char *const axis_names[] = {"h", "v", NULL};

#define BORDER_PARAM                                                                               \
    {                                                                                              \
        .name = "border", .type = GPUIMG_PARAM_CHOICE, .choices = border_names,                    \
        .default_text = "reflect101", .metavar = "MODE",                                           \
        .help = "reflect101, reflect, replicate, wrap or constant"                                 \
    }

static void same_shape(const gpuimg_step *s, int w, int h, int c, int *ow, int *oh, int *oc)
{
    (void)s;
    *ow = w;
    *oh = h;
    *oc = c;
}

static void swapped_shape(const gpuimg_step *s, int w, int h, int c, int *ow, int *oh, int *oc)
{
    (void)s;
    *ow = h;
    *oh = w;
    *oc = c;
}

static gpuimg_border border_of(const gpuimg_step *s, int index)
{
    return (gpuimg_border)(int)s->value[index];
}

/* --alpha, the last parameter of blur, box and convolve */
static const char *const alpha_names[] = {"independent", "premultiplied", NULL};
#define ALPHA_PARAM                                                                                \
    {                                                                                              \
        .name = "alpha", .type = GPUIMG_PARAM_CHOICE, .choices = alpha_names,                      \
        .default_text = "independent", .metavar = "MODE",                                          \
        .help = "premultiplied (colour weighted by alpha: no dark fringes) or independent"         \
    }

/* A filter of float planes (GPUIMG_DEPTH_FLOAT) in and out. */
typedef gpuimg_status (*float_filter)(gpuimg_backend *be, const gpuimg_step *s,
                                      const gpuimg_planes *src, gpuimg_planes *dst);

/* --alpha premultiplied (SPEC §2) on planes with alpha: premultiplied into
 * float planes, filtered there, divided by the filtered alpha into dst. Two
 * float copies of the image live at once. Without alpha it is the plain
 * filter: every weight is 1. */
static gpuimg_status alpha_weighted(gpuimg_backend *be, const gpuimg_step *s,
                                    const gpuimg_planes *src, gpuimg_planes *dst,
                                    float_filter filter)
{
    gpuimg_planes weighted, filtered;
    int w = src->width, h = src->height, c = src->channels;
    gpuimg_status st = be->ops->planes_alloc(be, &weighted, w, h, c, GPUIMG_DEPTH_FLOAT);
    if (st != GPUIMG_OK)
        return st;
    if ((st = be->ops->premultiply(be, src, &weighted)) == GPUIMG_OK &&
        (st = be->ops->planes_alloc(be, &filtered, w, h, c, GPUIMG_DEPTH_FLOAT)) == GPUIMG_OK) {
        if ((st = filter(be, s, &weighted, &filtered)) == GPUIMG_OK)
            st = be->ops->unpremultiply(be, &filtered, dst);
        be->ops->planes_free(be, &filtered);
    }
    be->ops->planes_free(be, &weighted);
    return st;
}

static int premultiplied(const gpuimg_step *s, int index, const gpuimg_planes *src)
{
    return s->value[index] != 0 && src->channels % 2 == 0;
}

/* ---- blur ---- */
enum { BLUR_SIGMA, BLUR_RADIUS, BLUR_BORDER, BLUR_ALPHA };

static gpuimg_status blur_finish(gpuimg_ctx *ctx, gpuimg_step *s)
{
    double sigma = s->value[BLUR_SIGMA];
    int radius;
    if (s->given & (1u << BLUR_RADIUS)) {
        radius = (int)s->value[BLUR_RADIUS];
        if (!(s->given & (1u << BLUR_SIGMA)))
            sigma = radius / 3.0;
    } else {
        radius = (int)ceil(3.0 * sigma);
        if (radius < 1)
            radius = 1;
    }
    float *w = malloc((size_t)(2 * radius + 1) * sizeof(float));
    if (!w)
        return gpuimg__fail(ctx, GPUIMG_ERR_NOMEM, "blur: out of memory");
    /* exp(-(k/σ)²/2): with a tiny σ, 2σ² would underflow to 0 and make the
     * centre weight 0/0; this form gives 1 there and 0 elsewhere. */
    double sum = 0.0;
    for (int k = -radius; k <= radius; k++)
        sum += exp(-0.5 * (k / sigma) * (k / sigma));
    for (int k = -radius; k <= radius; k++)
        w[k + radius] = (float)(exp(-0.5 * (k / sigma) * (k / sigma)) / sum);
    s->weights = w;
    s->radius = radius;
    return GPUIMG_OK;
}

static gpuimg_status blur_planes(gpuimg_backend *be, const gpuimg_step *s, const gpuimg_planes *src,
                                 gpuimg_planes *dst)
{
    return be->ops->blur(be, src, dst, s->weights, s->radius, border_of(s, BLUR_BORDER));
}

static gpuimg_status blur_apply(gpuimg_backend *be, const gpuimg_step *s, const gpuimg_planes *src,
                                gpuimg_planes *dst)
{
    if (premultiplied(s, BLUR_ALPHA, src))
        return alpha_weighted(be, s, src, dst, blur_planes);
    return blur_planes(be, s, src, dst);
}

/* Nanoseconds per channel value on one core of the CPU backend, for
 * --backend auto, which divides them among the threads (context.c). Rough
 * by design: they only have to tell a few milliseconds from a good part of
 * a second. bench/NOTES.md has the calibration: `--threads 1 --time` on a
 * 4000x3000 RGB photograph (36 M values), the kernels stage over 36 M. */
static double blur_cost(const gpuimg_step *s)
{
    return 0.4 + 2.0 * (2 * s->radius + 1) * 0.08; /* row and column taps */
}

static const gpuimg_param_info blur_params[] = {
    {.name = "sigma",
     .type = GPUIMG_PARAM_FLOAT,
     .min = 0,
     .max = 200,
     .min_exclusive = 1,
     .default_value = 2,
     .default_text = "2, or radius/3",
     .metavar = "S",
     .help = "Gaussian standard deviation in pixels"},
    {.name = "radius",
     .type = GPUIMG_PARAM_INT,
     .min = 1,
     .max = 1000,
     .default_text = "max(1, ceil(3 sigma))",
     .metavar = "R",
     .help = "kernel radius: 2R+1 taps"},
    BORDER_PARAM,
    ALPHA_PARAM,
};

/* ---- box ---- */
enum { BOX_RADIUS, BOX_BORDER, BOX_ALPHA };

/* Premultiplied values are floats, so there the box is the separable float
 * filter of 2R + 1 equal weights (the integer window sums need integers). */
static gpuimg_status box_finish(gpuimg_ctx *ctx, gpuimg_step *s)
{
    if (!s->value[BOX_ALPHA])
        return GPUIMG_OK;
    int radius = (int)s->value[BOX_RADIUS], taps = 2 * radius + 1;
    float *w = malloc((size_t)taps * sizeof(float));
    if (!w)
        return gpuimg__fail(ctx, GPUIMG_ERR_NOMEM, "box: out of memory");
    for (int k = 0; k < taps; k++)
        w[k] = 1.0f / (float)taps;
    s->weights = w;
    s->radius = radius;
    return GPUIMG_OK;
}

static gpuimg_status box_float(gpuimg_backend *be, const gpuimg_step *s, const gpuimg_planes *src,
                               gpuimg_planes *dst)
{
    return be->ops->blur(be, src, dst, s->weights, s->radius, border_of(s, BOX_BORDER));
}

static gpuimg_status box_apply(gpuimg_backend *be, const gpuimg_step *s, const gpuimg_planes *src,
                               gpuimg_planes *dst)
{
    if (premultiplied(s, BOX_ALPHA, src))
        return alpha_weighted(be, s, src, dst, box_float);
    return be->ops->box(be, src, dst, (int)s->value[BOX_RADIUS], border_of(s, BOX_BORDER));
}

static const gpuimg_param_info box_params[] = {
    {.name = "radius",
     .type = GPUIMG_PARAM_INT,
     .min = 1,
     .max = 1000,
     .required = 1,
     .metavar = "R",
     .help = "the mean over a (2R+1) x (2R+1) window"},
    BORDER_PARAM,
    ALPHA_PARAM,
};

/* ---- convolve ---- */
enum {
    CONV_KERNEL,
    CONV_NORMALIZE,
    CONV_SCALE,
    CONV_BIAS,
    CONV_ABS,
    CONV_FLIP,
    CONV_BORDER,
    CONV_ALPHA
};

static gpuimg_status convolve_finish(gpuimg_ctx *ctx, gpuimg_step *s)
{
    int kw, kh;
    gpuimg_status st = gpuimg__kernel_load(ctx, s->text[CONV_KERNEL], &s->weights, &kw, &kh);
    if (st != GPUIMG_OK)
        return st;
    size_t n = (size_t)kw * (size_t)kh;
    if (s->value[CONV_FLIP]) /* rotate by 180°: true convolution */
        for (size_t i = 0; i < n / 2; i++) {
            float t = s->weights[i];
            s->weights[i] = s->weights[n - 1 - i];
            s->weights[n - 1 - i] = t;
        }
    double scale = s->value[CONV_SCALE], sum = 0.0;
    for (size_t i = 0; i < n; i++)
        sum += s->weights[i];
    if (s->value[CONV_NORMALIZE] && sum != 0.0)
        scale = 1.0 / sum;
    if (!(fabs(scale) <= 3.4e38)) /* 1/ΣK beyond float: every pixel would be inf or NaN */
        return gpuimg__fail(ctx, GPUIMG_ERR_USAGE,
                            "normalize: the kernel's sum %g is too small to divide by", sum);
    s->conv = (gpuimg_conv){.width = kw,
                            .height = kh,
                            .weights = s->weights,
                            .scale = (float)scale,
                            .bias = (float)s->value[CONV_BIAS],
                            .absolute = s->value[CONV_ABS] != 0};
    return GPUIMG_OK;
}

static gpuimg_status convolve_planes(gpuimg_backend *be, const gpuimg_step *s,
                                     const gpuimg_planes *src, gpuimg_planes *dst)
{
    return be->ops->convolve(be, src, dst, &s->conv, border_of(s, CONV_BORDER));
}

static gpuimg_status convolve_apply(gpuimg_backend *be, const gpuimg_step *s,
                                    const gpuimg_planes *src, gpuimg_planes *dst)
{
    if (premultiplied(s, CONV_ALPHA, src))
        return alpha_weighted(be, s, src, dst, convolve_planes);
    return convolve_planes(be, s, src, dst);
}

static double convolve_cost(const gpuimg_step *s)
{
    return 0.6 + (double)s->conv.width * s->conv.height * 0.05;
}

static const gpuimg_param_info convolve_params[] = {
    {.name = "kernel",
     .type = GPUIMG_PARAM_TEXT,
     .required = 1,
     .metavar = "NAME|FILE",
     .help = "identity, box3, gaussian3, gaussian5, sharpen, laplacian, edge, emboss, "
             "sobel-x, sobel-y, prewitt-x, prewitt-y, or a kernel file"},
    {.name = "normalize",
     .type = GPUIMG_PARAM_FLAG,
     .help = "set the scale to 1/sum of the weights (when the sum is not 0; overrides --scale)"},
    {.name = "scale",
     .type = GPUIMG_PARAM_FLOAT,
     .min = -1e6,
     .max = 1e6,
     .default_value = 1,
     .default_text = "1",
     .metavar = "F",
     .help = "multiply the sum"},
    {.name = "bias",
     .type = GPUIMG_PARAM_FLOAT,
     .min = -1e6,
     .max = 1e6,
     .default_value = 0,
     .default_text = "0",
     .metavar = "F",
     .help = "add after scaling"},
    {.name = "abs", .type = GPUIMG_PARAM_FLAG, .help = "take the absolute value before rounding"},
    {.name = "flip",
     .type = GPUIMG_PARAM_FLAG,
     .help = "rotate the kernel by 180 degrees (true convolution)"},
    BORDER_PARAM,
    ALPHA_PARAM,
};

/* ---- sobel ---- */
static gpuimg_status sobel_apply(gpuimg_backend *be, const gpuimg_step *s, const gpuimg_planes *src,
                                 gpuimg_planes *dst)
{
    return be->ops->sobel(be, src, dst, border_of(s, 0));
}

static const gpuimg_param_info border_only_params[] = {BORDER_PARAM};

/* ---- geometry ---- */
static gpuimg_status transpose_apply(gpuimg_backend *be, const gpuimg_step *s,
                                     const gpuimg_planes *src, gpuimg_planes *dst)
{
    (void)s;
    return be->ops->move(be, src, dst, GPUIMG_MOVE_TRANSPOSE);
}

static void rotate_shape(const gpuimg_step *s, int w, int h, int c, int *ow, int *oh, int *oc)
{
    if ((int)s->value[0] == 1) /* 180: same shape */
        same_shape(s, w, h, c, ow, oh, oc);
    else
        swapped_shape(s, w, h, c, ow, oh, oc);
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

static gpuimg_status flip_apply(gpuimg_backend *be, const gpuimg_step *s, const gpuimg_planes *src,
                                gpuimg_planes *dst)
{
    return be->ops->move(be, src, dst,
                         (int)s->value[0] == 0 ? GPUIMG_MOVE_FLIP_H : GPUIMG_MOVE_FLIP_V);
}

static const gpuimg_param_info flip_params[] = {
    {.name = "axis",
     .type = GPUIMG_PARAM_CHOICE,
     .choices = axis_names,
     .required = 1,
     .metavar = "h|v",
     .help = "h mirrors left-right, v mirrors top-bottom"},
};

/* ---- values ---- */
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

static gpuimg_status invert_apply(gpuimg_backend *be, const gpuimg_step *s,
                                  const gpuimg_planes *src, gpuimg_planes *dst)
{
    (void)s;
    return be->ops->invert(be, src, dst);
}

static const gpuimg_param_info equalize_params[] = {
    {.name = "luma",
     .type = GPUIMG_PARAM_FLAG,
     .help = "equalize the Rec.601 luma and scale each colour by it, keeping hue"},
};

static gpuimg_status equalize_apply(gpuimg_backend *be, const gpuimg_step *s,
                                    const gpuimg_planes *src, gpuimg_planes *dst)
{
    /* --luma on gray is the per-channel equalization of its one plane */
    if (s->value[0] && src->channels == 3)
        return be->ops->equalize_luma(be, src, dst);
    return be->ops->equalize(be, src, dst);
}

/* A few loads and stores a value (box: running sums; sobel: 3x3). */
static double window_cost(const gpuimg_step *s)
{
    (void)s;
    return 1.2;
}

/* Permutations and value maps: a load and a store a value. */
static double pass_cost(const gpuimg_step *s)
{
    (void)s;
    return 1.2;
}

#define PARAMS(a) (int)(sizeof(a) / sizeof((a)[0])), a

/* The op table: one row per operation, its only source. A new operation
 * is a row here (name, summary, parameters, shape, finish, apply, CPU cost,
 * an example step the tests run on every backend, and whether it is a
 * value operation, whose alpha gpuimg__step_apply passes on), a backend
 * entry for each backend, and a golden case. */
static const gpuimg__op ops[] = {
    {.info = {"blur", "separable Gaussian blur", PARAMS(blur_params)},
     .shape = same_shape,
     .finish = blur_finish,
     .apply = blur_apply,
     .cost = blur_cost,
     .example = "blur:sigma=1.5,border=wrap"},
    {.info = {"box", "box (mean) blur", PARAMS(box_params)},
     .shape = same_shape,
     .finish = box_finish,
     .apply = box_apply,
     .cost = window_cost,
     .example = "box:radius=2,border=replicate,alpha=premultiplied"},
    {.info = {"convolve", "general 2-D convolution (kernel applied as written, like filter2D)",
              PARAMS(convolve_params)},
     .shape = same_shape,
     .finish = convolve_finish,
     .apply = convolve_apply,
     .cost = convolve_cost,
     .example = "convolve:kernel=emboss,scale=0.5,bias=8,border=reflect"},
    {.info = {"sobel", "gradient magnitude sqrt(gx^2 + gy^2) of the Sobel kernels",
              PARAMS(border_only_params)},
     .shape = same_shape,
     .apply = sobel_apply,
     .cost = window_cost,
     .example = "sobel:border=constant"},
    {.info = {"transpose", "swap rows and columns", 0, NULL},
     .shape = swapped_shape,
     .apply = transpose_apply,
     .cost = pass_cost,
     .example = "transpose"},
    {.info = {"rotate", "rotate by quarter turns, clockwise", PARAMS(rotate_params)},
     .shape = rotate_shape,
     .apply = rotate_apply,
     .cost = pass_cost,
     .example = "rotate:angle=270"},
    {.info = {"flip", "mirror left-right (h) or top-bottom (v)", PARAMS(flip_params)},
     .shape = same_shape,
     .apply = flip_apply,
     .cost = pass_cost,
     .example = "flip:axis=v"},
    {.info = {"grayscale", "Rec.601 luma (RGB -> gray, RGBA -> gray+alpha)", 0, NULL},
     .shape = gray_shape,
     .apply = grayscale_apply,
     .cost = pass_cost,
     .example = "grayscale",
     .value_op = 1},
    {.info = {"invert", "255 - v, 65535 - v at 16 bits (alpha unchanged)", 0, NULL},
     .shape = same_shape,
     .apply = invert_apply,
     .cost = pass_cost,
     .example = "invert",
     .value_op = 1},
    {.info = {"equalize", "histogram equalization per channel, or of the luma (alpha unchanged)",
              PARAMS(equalize_params)},
     .shape = same_shape,
     .apply = equalize_apply,
     .cost = pass_cost,
     .example = "equalize:luma=1",
     .value_op = 1},
};

#define NOPS (int)(sizeof ops / sizeof ops[0])

const gpuimg_op_info *gpuimg_op_at(int index)
{
    return index >= 0 && index < NOPS ? &ops[index].info : NULL;
}

static const gpuimg__op *find_op(const char *name, size_t len)
{
    for (int i = 0; i < NOPS; i++)
        if (strlen(ops[i].info.name) == len && strncmp(ops[i].info.name, name, len) == 0)
            return &ops[i];
    return NULL;
}

const char *gpuimg__op_example(int index)
{
    return index >= 0 && index < NOPS ? ops[index].example : NULL;
}

const gpuimg_op_info *gpuimg_op_find(const char *name)
{
    const gpuimg__op *op = find_op(name, strlen(name));
    return op ? &op->info : NULL;
}

double gpuimg__steps_cpu_ns(gpuimg_step *const *steps, int nsteps)
{
    double ns = 1.0; /* the copies in and out of planes */
    for (int i = 0; i < nsteps; i++)
        ns += steps[i]->op->cost(steps[i]);
    return ns;
}

void gpuimg__steps_shape(gpuimg_step *const *steps, int nsteps, int *w, int *h, int *c)
{
    for (int i = 0; i < nsteps; i++)
        steps[i]->op->shape(steps[i], *w, *h, *c, w, h, c);
}

/* ---- steps ---- */

gpuimg_status gpuimg_step_new(gpuimg_ctx *ctx, const char *name, gpuimg_step **out)
{
    *out = NULL;
    const gpuimg__op *op = find_op(name, strlen(name));
    if (!op)
        return gpuimg__fail(ctx, GPUIMG_ERR_USAGE, "unknown operation '%s'", name);
    gpuimg_step *s = calloc(1, sizeof *s);
    if (!s)
        return gpuimg__fail(ctx, GPUIMG_ERR_NOMEM, "out of memory");
    s->op = op;
    for (int i = 0; i < op->info.nparams; i++)
        s->value[i] = op->info.params[i].default_value;
    *out = s;
    return GPUIMG_OK;
}

void gpuimg_step_free(gpuimg_step *s)
{
    if (!s)
        return;
    for (int i = 0; i < GPUIMG__MAX_PARAMS; i++)
        free(s->text[i]);
    free(s->weights);
    free(s);
}

int gpuimg_parse_number(const char *text, double *out)
{
    /* [+-] digits [. digits] [e [+-] digits], with a digit on some side of
     * the point: strtod's grammar less its leading spaces, hex, inf and nan */
    const char *p = text;
    p += *p == '+' || *p == '-';
    size_t whole = strspn(p, "0123456789");
    p += whole;
    size_t frac = 0;
    if (*p == '.') {
        frac = strspn(p + 1, "0123456789");
        p += 1 + frac;
    }
    if (whole + frac == 0)
        return 0;
    if (*p == 'e' || *p == 'E') {
        p++;
        p += *p == '+' || *p == '-';
        size_t exp = strspn(p, "0123456789");
        if (exp == 0)
            return 0;
        p += exp;
    }
    if (*p != '\0')
        return 0;
    errno = 0;
    double v = strtod(text, NULL);
    if (errno == ERANGE || !isfinite(v))
        return 0;
    *out = v;
    return 1;
}

static gpuimg_status parse_number(gpuimg_ctx *ctx, const gpuimg_param_info *p, const char *text,
                                  double *out)
{
    double v;
    if (!gpuimg_parse_number(text, &v))
        return gpuimg__fail(ctx, GPUIMG_ERR_USAGE, "%s: '%s' is not a number", p->name, text);
    if (p->type == GPUIMG_PARAM_INT && v != floor(v))
        return gpuimg__fail(ctx, GPUIMG_ERR_USAGE, "%s: '%s' is not a whole number", p->name, text);
    int below = p->min_exclusive ? v <= p->min : v < p->min;
    if (below || v > p->max)
        return gpuimg__fail(ctx, GPUIMG_ERR_USAGE, "%s: %s is out of range (%g %s %s <= %g)",
                            p->name, text, p->min, p->min_exclusive ? "<" : "<=", p->name, p->max);
    *out = v;
    return GPUIMG_OK;
}

gpuimg_status gpuimg_step_set(gpuimg_ctx *ctx, gpuimg_step *s, const char *key, const char *value)
{
    const gpuimg_op_info *info = &s->op->info;
    int i = 0;
    while (i < info->nparams && strcmp(info->params[i].name, key) != 0)
        i++;
    if (i == info->nparams)
        return gpuimg__fail(ctx, GPUIMG_ERR_USAGE, "%s: unknown parameter '%s'", info->name, key);
    const gpuimg_param_info *p = &info->params[i];
    s->finished = 0;
    switch (p->type) {
    case GPUIMG_PARAM_FLOAT:
    case GPUIMG_PARAM_INT: {
        double v = 0;
        gpuimg_status st = parse_number(ctx, p, value, &v);
        if (st != GPUIMG_OK)
            return st;
        s->value[i] = v;
        break;
    }
    case GPUIMG_PARAM_CHOICE: {
        int k = 0;
        while (p->choices[k] && strcmp(p->choices[k], value) != 0)
            k++;
        if (!p->choices[k]) {
            char allowed[160] = "";
            for (int j = 0; p->choices[j]; j++) /* "90, 180 or 270" */
                snprintf(allowed + strlen(allowed), sizeof allowed - strlen(allowed), "%s%s",
                         j == 0              ? ""
                         : p->choices[j + 1] ? ", "
                                             : " or ",
                         p->choices[j]);
            return gpuimg__fail(ctx, GPUIMG_ERR_USAGE, "%s: '%s' is not one of %s", p->name, value,
                                allowed);
        }
        s->value[i] = k;
        break;
    }
    case GPUIMG_PARAM_FLAG: {
        static const char *const on[] = {"", "1", "true", "yes", "on"};
        static const char *const off[] = {"0", "false", "no", "off"};
        int v = -1;
        for (size_t k = 0; k < sizeof on / sizeof on[0]; k++)
            if (strcmp(value, on[k]) == 0)
                v = 1;
        for (size_t k = 0; k < sizeof off / sizeof off[0]; k++)
            if (strcmp(value, off[k]) == 0)
                v = 0;
        if (v < 0)
            return gpuimg__fail(ctx, GPUIMG_ERR_USAGE, "%s: '%s' is not 1/0, true/false or yes/no",
                                p->name, value);
        s->value[i] = v;
        break;
    }
    case GPUIMG_PARAM_TEXT: {
        if (!value[0])
            return gpuimg__fail(ctx, GPUIMG_ERR_USAGE, "%s: empty value", p->name);
        char *copy = strdup(value);
        if (!copy)
            return gpuimg__fail(ctx, GPUIMG_ERR_NOMEM, "out of memory");
        free(s->text[i]);
        s->text[i] = copy;
        break;
    }
    }
    s->given |= 1u << i;
    return GPUIMG_OK;
}

gpuimg_status gpuimg_step_finish(gpuimg_ctx *ctx, gpuimg_step *s)
{
    if (s->finished)
        return GPUIMG_OK;
    const gpuimg_op_info *info = &s->op->info;
    for (int i = 0; i < info->nparams; i++)
        if (info->params[i].required && !(s->given & (1u << i)))
            return gpuimg__fail(ctx, GPUIMG_ERR_USAGE, "missing --%s (%s=%s in a step)",
                                info->params[i].name, info->params[i].name,
                                info->params[i].metavar);
    free(s->weights);
    s->weights = NULL;
    if (s->op->finish) {
        gpuimg_status st = s->op->finish(ctx, s);
        if (st != GPUIMG_OK)
            return st;
    }
    s->finished = 1;
    return GPUIMG_OK;
}

gpuimg_status gpuimg_step_parse(gpuimg_ctx *ctx, const char *text, gpuimg_step **out)
{
    *out = NULL;
    const char *colon = strchr(text, ':');
    size_t len = colon ? (size_t)(colon - text) : strlen(text);
    const gpuimg__op *op = find_op(text, len);
    if (!op)
        return gpuimg__fail(ctx, GPUIMG_ERR_USAGE, "'%s': unknown operation '%.*s'", text, (int)len,
                            text);
    gpuimg_step *s;
    gpuimg_status st = gpuimg_step_new(ctx, op->info.name, &s);
    if (st != GPUIMG_OK)
        return st;
    if (colon) {
        char *rest = strdup(colon + 1);
        if (!rest) {
            gpuimg_step_free(s);
            return gpuimg__fail(ctx, GPUIMG_ERR_NOMEM, "out of memory");
        }
        char *save = NULL;
        for (char *pair = strtok_r(rest, ",", &save); pair && st == GPUIMG_OK;
             pair = strtok_r(NULL, ",", &save)) {
            pair += strspn(pair, " "); /* "blur:sigma=2, radius=3" reads as typed */
            char *eq = strchr(pair, '=');
            if (eq)
                *eq = '\0';
            st = gpuimg_step_set(ctx, s, pair, eq ? eq + 1 : "");
        }
        free(rest);
        if (st != GPUIMG_OK) {
            char detail[sizeof ctx->error];
            memcpy(detail, ctx->error, sizeof detail);
            gpuimg_step_free(s);
            return gpuimg__fail(ctx, st, "'%s': %s", text, detail);
        }
    }
    *out = s;
    return GPUIMG_OK;
}

gpuimg_status gpuimg__step_apply(gpuimg_ctx *ctx, gpuimg_backend *be, const gpuimg_step *s,
                                 const gpuimg_planes *src, gpuimg_planes *dst, int poison)
{
    int w, h, c;
    s->op->shape(s, src->width, src->height, src->channels, &w, &h, &c);
    gpuimg_status st = be->ops->planes_alloc(be, dst, w, h, c, src->depth);
    if (st == GPUIMG_OK && poison >= 0)
        st = be->ops->planes_fill(be, dst, (uint8_t)poison);
    if (st == GPUIMG_OK && s->op->value_op) {
        /* SPEC §2: value operations leave alpha (the last of 2 or 4 planes)
         * alone. Done here once: the backend sees the colour planes, and
         * alpha is copied. */
        int alpha = src->channels % 2 == 0;
        gpuimg_planes colour_src = *src, colour_dst = *dst;
        colour_src.channels -= alpha;
        colour_dst.channels -= alpha;
        st = s->op->apply(be, s, &colour_src, &colour_dst);
        if (st == GPUIMG_OK && alpha)
            st = be->ops->copy_plane(be, src->plane[src->channels - 1],
                                     dst->plane[dst->channels - 1], gpuimg__plane_bytes(src));
    } else if (st == GPUIMG_OK) {
        st = s->op->apply(be, s, src, dst);
    }
    if (st != GPUIMG_OK) {
        be->ops->planes_free(be, dst);
        return gpuimg__backend_fail(ctx, st, s->op->info.name);
    }
    return GPUIMG_OK;
}
