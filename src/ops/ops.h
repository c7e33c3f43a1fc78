/* SPDX-License-Identifier: MIT */
/* The op table's internals: what a step holds and how an op runs on planes.
 * Each operation is one file, src/ops/NAME.c, defining its row
 * gpuimg__op_NAME; table.c lists the rows, step.c is the STEP language. */
#ifndef GPUIMG_OPS_H
#define GPUIMG_OPS_H

#include "core/internal.h"

#define GPUIMG__MAX_PARAMS 8
#define GPUIMG__MAX_KERNEL 63

typedef struct gpuimg__op gpuimg__op;

struct gpuimg_step {
    const gpuimg__op *op;
    double value[GPUIMG__MAX_PARAMS]; /* FLOAT, INT, FLAG (0/1), CHOICE (index) */
    char *text[GPUIMG__MAX_PARAMS];   /* TEXT */
    unsigned given;                   /* bit i: parameter i was set */
    int finished;
    /* Filled by finish: the blur's or convolution's weights. */
    float *weights;
    int radius;
    gpuimg_conv conv;
    /* Filled by a per-value operation's finish (params.h's
     * gpuimg__lut_build): its result for every value, 256 entries at 8
     * bits and 65536 at 16, applied by the backend's map_lut. */
    uint8_t *lut8;
    uint16_t *lut16;
    /* Filled by a resize's, thumbnail's or crop's finish: the box W x H
     * (box[0], box[1]) or crop's rectangle X, Y, W, H, and --background
     * (0..255 units; background_n values, 0 when not given). */
    int box[4];
    double background[4];
    int background_n;
    /* Set on a per-image copy of a thumbnail step when the decoder shrank
     * the image on load (SPEC §3): the size it had in the file, oriented,
     * which the output's size is computed from. 0: the input's own. */
    int from_w, from_h;
    /* colour: the target profile and the conversions made so far, one per
     * source profile (colour.c); and on a per-image copy of the step, the
     * conversion this image takes. */
    struct gpuimg__colour_cache *colour_cache;
    const struct gpuimg__colour_entry *colour;
    int colour_owned; /* 1: that conversion is this copy's alone (the cache was full) */
};

struct gpuimg__op {
    gpuimg_op_info info;
    /* Output shape for an input shape. */
    void (*shape)(const gpuimg_step *s, int w, int h, int c, int *ow, int *oh, int *oc);
    /* Rejects an input the step cannot take (crop's rectangle outside it)
     * with a usage error naming it; may be NULL. */
    gpuimg_status (*check)(gpuimg_ctx *ctx, const gpuimg_step *s, int w, int h);
    /* Checks combinations and derives what apply needs; may be NULL. */
    gpuimg_status (*finish)(gpuimg_ctx *ctx, gpuimg_step *s);
    gpuimg_status (*apply)(gpuimg_backend *be, const gpuimg_step *s, const gpuimg_planes *src,
                           gpuimg_planes *dst);
    /* Nanoseconds per channel value on the CPU backend (--backend auto). */
    double (*cost)(const gpuimg_step *s);
    /* A step with parameters other than the defaults: the tests run it on
     * every backend, through the STEP syntax. */
    const char *example;
    /* 1: a value operation: apply sees colour planes only, and alpha is
     * copied (gpuimg__step_apply), for every backend alike. */
    int value_op;
    /* A step whose work depends on the image's colour profile (colour):
     * fills the per-image copy of s for the profile icc (NULL: none) of an
     * image of channels, and says the profile the image has after it
     * (*out_icc, the step's own bytes). NULL for the others. */
    gpuimg_status (*for_profile)(gpuimg_ctx *ctx, gpuimg_step *copy, const uint8_t *icc,
                                 size_t icc_len, int channels, const uint8_t **out_icc,
                                 size_t *out_len);
    /* Frees what for_profile made for that copy alone, once it has been
     * applied (NULL: nothing). */
    void (*release)(gpuimg_step *copy);
};

/* The op table's rows (table.c orders them), one per file src/ops/NAME.c. */
extern const gpuimg__op gpuimg__op_blur, gpuimg__op_box, gpuimg__op_convolve, gpuimg__op_sobel,
    gpuimg__op_transpose, gpuimg__op_rotate, gpuimg__op_flip, gpuimg__op_grayscale,
    gpuimg__op_invert, gpuimg__op_equalize, gpuimg__op_gamma, gpuimg__op_resize, gpuimg__op_crop,
    gpuimg__op_thumbnail, gpuimg__op_unsharp, gpuimg__op_colour;

/* colour's cache of conversions (finish makes it; freed with the step). */
void gpuimg__colour_cache_free(struct gpuimg__colour_cache *cache);
/* 1 when s is a colour step, with the profile its outputs carry (the
 * step's own bytes); 0 for any other step. */
int gpuimg__colour_target(const gpuimg_step *s, const uint8_t **icc, size_t *len);

/* The factor (1, 2, 4 or 8) a JPEG of w x h (as the file holds it,
 * oriented) may be decoded smaller by for a first step s (SPEC §3's shrink
 * on load): 1 unless s is a thumbnail that allows it. */
int gpuimg__thumbnail_shrink(const gpuimg_step *s, int w, int h);

/* The row of the operation named by name's first len bytes, or NULL. */
const gpuimg__op *gpuimg__op_named(const char *name, size_t len);
/* The example step of the op table's row index, or NULL past the end. */
const char *gpuimg__op_example(int index);

/* Runs one finished step through the backend: dst is allocated here with the
 * step's output shape; when poison >= 0 it is filled with that byte first
 * (the tests use it to catch pixels a kernel never writes). */
gpuimg_status gpuimg__step_apply(gpuimg_ctx *ctx, gpuimg_backend *be, const gpuimg_step *s,
                                 const gpuimg_planes *src, gpuimg_planes *dst, int poison);

/* Convolution kernels: a named one (SPEC §3's table) or a kernel file.
 * *weights is malloc'ed, row-major. */
gpuimg_status gpuimg__kernel_load(gpuimg_ctx *ctx, const char *name_or_path, float **weights,
                                  int *width, int *height);
/* A kernel file's text (modified in place), path naming it in messages. */
gpuimg_status gpuimg__kernel_parse(gpuimg_ctx *ctx, const char *path, char *text, float **weights,
                                   int *width, int *height);

/* Estimated nanoseconds of one core per channel value of finished steps,
 * the copies in and out of planes included. */
double gpuimg__steps_cpu_ns(gpuimg_step *const *steps, int nsteps);
/* The shape finished steps turn w x h x c into, in place. */
void gpuimg__steps_shape(gpuimg_step *const *steps, int nsteps, int *w, int *h, int *c);

#endif
