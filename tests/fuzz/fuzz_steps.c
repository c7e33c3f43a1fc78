/* SPDX-License-Identifier: MIT */
/* STEP texts (run, batch): parsed and finished, or refused. A kernel named
 * by path is read as the CLI would (only regular files are read). */
#include <string.h>

#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_text(data, size);
    if (!text)
        return 0;
    gpuimg_ctx *ctx = fuzz_ctx(1);
    gpuimg_step *step;
    if (gpuimg_step_parse(ctx, text, &step) == GPUIMG_OK) {
        gpuimg_step_finish(ctx, step);
        gpuimg_step_free(step);
    }
    free(text);
    return 0;
}
