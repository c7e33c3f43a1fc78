/* SPDX-License-Identifier: MIT */
/* An image whose EXIF block is the input (as a JPEG's APP1 or a PNG's eXIf
 * would bring it) written as TIFF: its EXIF IFD set entry by entry through
 * libtiff (io/tiff/exif.c), then the file read back, which must give the same
 * pixels; the block's offsets and counts are the untrusted part. */
#define _POSIX_C_SOURCE 200809L /* open_memstream */
#include <string.h>

#include "fuzz.h"
#include "io/io.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    gpuimg_ctx *ctx = fuzz_ctx(1);
    gpuimg_image img;
    FUZZ_CHECK(gpuimg_image_alloc(&img, 5, 3, 3) == GPUIMG_OK, "alloc");
    for (size_t i = 0; i < 5 * 3 * 3; i++)
        img.data[i] = (uint8_t)(i * 17);
    gpuimg_metadata meta = {.exif = (uint8_t *)data, .exif_len = size, .orientation = 1};
    img.meta = &meta;
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    FUZZ_CHECK(f != NULL, "open_memstream");
    gpuimg_status st = gpuimg__encode_tiff(ctx, f, "fuzz.tif", GPUIMG_FORMAT_TIFF, &img);
    FUZZ_CHECK(fclose(f) == 0 && st == GPUIMG_OK, "encode: %s", gpuimg_ctx_error(ctx));
    gpuimg_image back;
    st = gpuimg_load_memory(ctx, buf, len, "fuzz.tif", &back);
    FUZZ_CHECK(st == GPUIMG_OK, "the TIFF written does not read back: %s", gpuimg_ctx_error(ctx));
    img.meta = NULL;
    FUZZ_CHECK(fuzz_same_image(&back, &img), "the TIFF written reads back other pixels");
    gpuimg_image_free(&back);
    gpuimg_image_free(&img);
    free(buf);
    return 0;
}
