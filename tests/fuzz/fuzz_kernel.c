/* SPDX-License-Identifier: MIT */
/* Kernel files (SPEC §3): any text, parsed or refused with a message. */
#include <string.h>

#include "fuzz.h"
#include "ops/ops.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (memchr(data, 0, size)) /* the file reader refuses these as not text */
        return 0;
    char *text = fuzz_text(data, size);
    if (!text)
        return 0;
    float *w = NULL;
    int width = 0, height = 0;
    gpuimg_ctx *ctx = fuzz_ctx(1);
    if (gpuimg__kernel_parse(ctx, "fuzz.txt", text, &w, &width, &height) == GPUIMG_OK) {
        FUZZ_CHECK(width % 2 == 1 && height % 2 == 1 && width <= 63 && height <= 63, "%dx%d", width,
                   height);
        free(w);
    }
    free(text);
    return 0;
}
