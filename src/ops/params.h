/* SPDX-License-Identifier: MIT */
/* What the operation files (src/ops/NAME.c) share: the border and alpha
 * parameters, the common shapes and CPU costs, --alpha premultiplied around
 * a float filter, and the value table of a per-value operation. */
#ifndef GPUIMG_OPS_PARAMS_H
#define GPUIMG_OPS_PARAMS_H

#include "ops/ops.h"

/* A parameter list and its length, as gpuimg_op_info takes them. */
#define PARAMS(a) (int)(sizeof(a) / sizeof((a)[0])), a

/* --border: its value is a gpuimg_border (gpuimg__border_of). */
extern const char *const gpuimg__border_names[];
#define BORDER_PARAM                                                                               \
    {                                                                                              \
        .name = "border", .type = GPUIMG_PARAM_CHOICE, .choices = gpuimg__border_names,            \
        .default_text = "reflect101", .metavar = "MODE",                                           \
        .help = "reflect101, reflect, replicate, wrap or constant"                                 \
    }

/* --alpha, the last parameter of blur, box and convolve */
extern const char *const gpuimg__alpha_names[];
#define ALPHA_PARAM                                                                                \
    {                                                                                              \
        .name = "alpha", .type = GPUIMG_PARAM_CHOICE, .choices = gpuimg__alpha_names,              \
        .default_text = "independent", .metavar = "MODE",                                          \
        .help = "premultiplied (colour weighted by alpha: no dark fringes) or independent"         \
    }

/* Whether the step's parameter i was set. */
#define GIVEN(s, i) (((s)->given >> (i)) & 1u)

static inline gpuimg_border gpuimg__border_of(const gpuimg_step *s, int index)
{
    return (gpuimg_border)(int)s->value[index];
}

/* Shapes: the input's, and rows and columns swapped. */
void gpuimg__same_shape(const gpuimg_step *s, int w, int h, int c, int *ow, int *oh, int *oc);
void gpuimg__swapped_shape(const gpuimg_step *s, int w, int h, int c, int *ow, int *oh, int *oc);

/* Nanoseconds per channel value on one core of the CPU backend, for
 * --backend auto, which divides them among the threads (context.c). Rough
 * by design: they only have to tell a few milliseconds from a good part of
 * a second. bench/NOTES.md has the calibration: `--threads 1 --time` on a
 * 4000x3000 RGB photograph (36 M values), the kernels stage over 36 M.
 * window_cost: a few loads and stores a value (box: running sums; sobel:
 * 3x3); pass_cost: permutations and value maps, a load and a store a
 * value. */
double gpuimg__window_cost(const gpuimg_step *s);
double gpuimg__pass_cost(const gpuimg_step *s);

/* A filter of float planes (GPUIMG_DEPTH_FLOAT) in and out. */
typedef gpuimg_status (*gpuimg_float_filter)(gpuimg_backend *be, const gpuimg_step *s,
                                             const gpuimg_planes *src, gpuimg_planes *dst);
/* Whether the step's --alpha (parameter index) is premultiplied and src
 * has alpha to weigh by. */
int gpuimg__premultiplied(const gpuimg_step *s, int index, const gpuimg_planes *src);
/* --alpha premultiplied (SPEC §2) on planes with alpha: premultiplied into
 * float planes, filtered there, divided by the filtered alpha into dst. */
gpuimg_status gpuimg__alpha_weighted(gpuimg_backend *be, const gpuimg_step *s,
                                     const gpuimg_planes *src, gpuimg_planes *dst,
                                     gpuimg_float_filter filter);

/* "1,2.5,3": up to most comma-separated numbers into out; their count,
 * or -1 when one is not a number or there are more. */
int gpuimg__parse_numbers(const char *text, int most, double *out);

/* The normalized Gaussian of SPEC §3's blur into s->weights and
 * s->radius (blur.c): radius R, or max(1, ceil(3 sigma)) when R is 0. */
gpuimg_status gpuimg__gaussian(gpuimg_ctx *ctx, gpuimg_step *s, double sigma, int radius);

/* A per-value operation (a value_op whose result depends on the value
 * alone): its result for value v at a depth whose largest value is top
 * (255 or 65535), between 0 and top. */
typedef uint32_t (*gpuimg_value_fn)(const gpuimg_step *s, uint32_t v, uint32_t top);
/* Its finish: fn tabulated once into s->lut8 and s->lut16. */
gpuimg_status gpuimg__lut_build(gpuimg_ctx *ctx, gpuimg_step *s, gpuimg_value_fn fn);
/* Its apply: the table through the backend's map_lut, no backend code of
 * its own. */
gpuimg_status gpuimg__lut_apply(gpuimg_backend *be, const gpuimg_step *s, const gpuimg_planes *src,
                                gpuimg_planes *dst);

#endif
