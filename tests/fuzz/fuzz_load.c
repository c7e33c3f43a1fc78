/* SPDX-License-Identifier: MIT */
/* Every row of the format table through gpuimg_load_memory, as a file of
 * any name reaches it: the row by its signature (gpuimg__sniff), its
 * metadata reader, then its decoder (PNG: both readers). A decoded image's
 * every byte is read (so that valgrind or MSan would see one left
 * unwritten). */
#include <string.h>

#include "fuzz.h"

/* Where the sum of the pixels goes, so that none is skipped. */
volatile unsigned fuzz_sink;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    gpuimg_ctx *ctx = fuzz_ctx(2);
    gpuimg_image img;
    if (gpuimg_load_memory(ctx, data, size, "fuzz", &img) != GPUIMG_OK)
        return 0;
    FUZZ_CHECK(img.channels >= 1 && img.channels <= 4 && img.width > 0 && img.height > 0,
               "%dx%d, %d channels", img.width, img.height, img.channels);
    size_t n = (size_t)img.width * (size_t)img.height * (size_t)img.channels;
    unsigned sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += img.data[i];
    fuzz_sink = sum;
    gpuimg_image_free(&img);
    return 0;
}
