/* SPDX-License-Identifier: MIT */
/* JPEG read in bands (each band skips the rows above it) against one pass:
 * the same verdict, and on success the same bytes. */
#include <string.h>

#include "fuzz.h"
#include "io.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!gpuimg__is_jpeg(data, size))
        return 0;
    gpuimg_ctx *ctx = fuzz_ctx(1);
    gpuimg_image one, bands;
    gpuimg_status a = gpuimg__decode_jpeg_bands(ctx, data, size, "fuzz", &one, 1);
    int k = 2 + (int)(size % 5);
    gpuimg_status b = gpuimg__decode_jpeg_bands(ctx, data, size, "fuzz", &bands, k);
    FUZZ_CHECK(a == b, "one pass: %s; %d bands: %s", gpuimg_strerror(a), k, gpuimg_strerror(b));
    if (a == GPUIMG_OK) {
        FUZZ_CHECK(fuzz_same_image(&one, &bands), "%d bands differ from one pass", k);
        gpuimg_image_free(&one);
        gpuimg_image_free(&bands);
    }
    return 0;
}
