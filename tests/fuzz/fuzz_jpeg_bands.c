/* SPDX-License-Identifier: MIT */
/* JPEG read in bands (each band skips the rows above it) against one pass:
 * the same verdict, and on success the same bytes. Read at 1/2, 1/4 or
 * 1/8 (a thumbnail's shrink on load): the same verdict, and the size
 * libjpeg-turbo's DCT scaling gives, ceil(side / f). And the marker walk
 * that decides what the GPU's decoder is given (io/jpeg/scan.c, with the
 * metadata parse of gpuimg__jpeg_probe): it reads only the input, a file
 * it passes is one libjpeg-turbo decodes without a warning, and with the
 * shape it said. */
#include <string.h>

#include "fuzz.h"
#include "io/formats.h"
#include "io/io.h"
#include "run/jpeg_gpu.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!gpuimg__format_jpeg.sniff(data, size))
        return 0;
    gpuimg_ctx *ctx = fuzz_ctx(1);
    gpuimg_image one, bands;
    gpuimg_status a = gpuimg__decode_jpeg_bands(ctx, data, size, "fuzz", &one, 1);
    int k = 2 + (int)(size % 5);
    gpuimg_status b = gpuimg__decode_jpeg_bands(ctx, data, size, "fuzz", &bands, k);
    FUZZ_CHECK(a == b, "one pass: %s; %d bands: %s", gpuimg_strerror(a), k, gpuimg_strerror(b));
    gpuimg__jpeg_file f;
    int eligible = 0;
    if (gpuimg__jpeg_probe(ctx, "fuzz", data, size, &f, &eligible) == GPUIMG_OK && eligible) {
        /* never a file the CPU refuses: the GPU's decoder would make up
         * its pixels (the entropy walk, io/jpeg/entropy.c) */
        FUZZ_CHECK(a == GPUIMG_OK, "the walk passes a file the CPU refuses: %s",
                   gpuimg_ctx_error(ctx));
        FUZZ_CHECK(a != GPUIMG_OK || (one.width == f.shape.width && one.height == f.shape.height &&
                                      one.channels == f.shape.components),
                   "scan says %dx%dx%d, libjpeg-turbo decodes %dx%dx%d", f.shape.width,
                   f.shape.height, f.shape.components, one.width, one.height, one.channels);
        gpuimg__jpeg_file_free(&f);
    }
    int sf = 2 << (size % 3);
    gpuimg_image small;
    ctx->jpeg_shrink = sf;
    gpuimg_status c = gpuimg__decode_jpeg_bands(ctx, data, size, "fuzz", &small, 1);
    ctx->jpeg_shrink = 1;
    FUZZ_CHECK(a == c, "one pass: %s; at 1/%d: %s", gpuimg_strerror(a), sf, gpuimg_strerror(c));
    if (c == GPUIMG_OK) {
        FUZZ_CHECK(a != GPUIMG_OK || (small.width == (one.width + sf - 1) / sf &&
                                      small.height == (one.height + sf - 1) / sf),
                   "%dx%d at 1/%d decodes %dx%d", one.width, one.height, sf, small.width,
                   small.height);
        gpuimg_image_free(&small);
    }
    if (a == GPUIMG_OK) {
        FUZZ_CHECK(fuzz_same_image(&one, &bands), "%d bands differ from one pass", k);
        gpuimg_image_free(&one);
        gpuimg_image_free(&bands);
    }
    return 0;
}
