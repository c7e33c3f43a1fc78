/* SPDX-License-Identifier: MIT */
/* The op table: every image -> image operation, one row each, in the order
 * `gpuimg --help` lists them. A row (src/ops/NAME.c's gpuimg__op_NAME)
 * holds the name, summary, parameters with types, ranges and defaults,
 * shape, finish, apply, CPU cost, an example step the tests run on every
 * backend, and whether it is a value operation, whose alpha
 * gpuimg__step_apply passes on. A new operation is its file, its row here,
 * a golden case and a man page entry; a per-value one needs no backend
 * code (its finish builds a table for map_lut). */
#include <string.h>

#include "ops/ops.h"

static const gpuimg__op *const ops[] = {
    &gpuimg__op_blur,      &gpuimg__op_box,       &gpuimg__op_convolve, &gpuimg__op_sobel,
    &gpuimg__op_transpose, &gpuimg__op_rotate,    &gpuimg__op_flip,     &gpuimg__op_grayscale,
    &gpuimg__op_invert,    &gpuimg__op_equalize,  &gpuimg__op_gamma,    &gpuimg__op_resize,
    &gpuimg__op_crop,      &gpuimg__op_thumbnail, &gpuimg__op_unsharp,  &gpuimg__op_colour,
};

#define NOPS (int)(sizeof ops / sizeof ops[0])

const gpuimg_op_info *gpuimg_op_at(int index)
{
    return index >= 0 && index < NOPS ? &ops[index]->info : NULL;
}

const gpuimg__op *gpuimg__op_named(const char *name, size_t len)
{
    for (int i = 0; i < NOPS; i++)
        if (strlen(ops[i]->info.name) == len && strncmp(ops[i]->info.name, name, len) == 0)
            return ops[i];
    return NULL;
}

const char *gpuimg__op_example(int index)
{
    return index >= 0 && index < NOPS ? ops[index]->example : NULL;
}

const gpuimg_op_info *gpuimg_op_find(const char *name)
{
    const gpuimg__op *op = gpuimg__op_named(name, strlen(name));
    return op ? &op->info : NULL;
}
