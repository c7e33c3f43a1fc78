/* SPDX-License-Identifier: MIT */
/* STEP texts (run, batch): parsed and finished, or refused. A kernel named
 * by path is read as the CLI would (only regular files are read). A
 * finished step's output shape is computed for a few input shapes (a
 * resize's or crop's arithmetic on sizes from the text), and a thumbnail's
 * shrink on load. */
#include <string.h>

#include "fuzz.h"
#include "ops/ops.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_text(data, size);
    if (!text)
        return 0;
    gpuimg_ctx *ctx = fuzz_ctx(1);
    gpuimg_step *step;
    if (gpuimg_step_parse(ctx, text, &step) == GPUIMG_OK) {
        if (gpuimg_step_finish(ctx, step) == GPUIMG_OK) {
            static const int shapes[][2] = {{1, 1}, {7, 3}, {4000, 3000}, {65535, 1}};
            for (int i = 0; i < 4; i++) {
                int w = shapes[i][0], h = shapes[i][1], c = 3;
                gpuimg__steps_shape(&step, 1, &w, &h, &c);
                if (w < 1 || h < 1 || w > 65535 || h > 65535)
                    __builtin_trap(); /* a shape no image can have */
                gpuimg__thumbnail_shrink(step, shapes[i][0], shapes[i][1]);
            }
        }
        gpuimg_step_free(step);
    }
    free(text);
    return 0;
}
