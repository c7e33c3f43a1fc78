/* SPDX-License-Identifier: MIT */
/* The PNG writer's round trip: an image made of the input (its first bytes
 * the size, channels, depth and level, the rest the pixels) is written, then
 * read back by libpng and, at 8 bits, by the project's reader, each to the
 * same values. */
#define _POSIX_C_SOURCE 200809L /* open_memstream */
#include <string.h>

#include "fuzz.h"
#include "io/io.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 4)
        return 0;
    int w = 1 + data[0] % 96, h = 1 + data[1] % 96, c = 1 + data[2] % 4;
    int depth = data[2] & 4 ? 16 : 8;
    gpuimg_image img;
    if (gpuimg_image_alloc_depth(&img, w, h, c, depth) != GPUIMG_OK)
        return 0;
    size_t n = (size_t)w * h * c * (size_t)(depth / 8);
    for (size_t i = 0; i < n; i++) /* the rest of the input, repeated */
        img.data[i] = size > 4 ? data[4 + i % (size - 4)] : (uint8_t)i;
    gpuimg_config cfg;
    gpuimg_config_init(&cfg);
    cfg.backend = GPUIMG_BACKEND_CPU;
    cfg.threads = 1 + data[3] / 10 % 4;
    cfg.png_level = data[3] % 10;
    gpuimg_ctx *ctx;
    FUZZ_CHECK(gpuimg_ctx_create(&cfg, &ctx) == GPUIMG_OK, "context");
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    FUZZ_CHECK(f != NULL, "open_memstream");
    gpuimg_status st = gpuimg__encode_png(ctx, f, "fuzz.png", &img);
    FUZZ_CHECK(fclose(f) == 0 && st == GPUIMG_OK, "encode: %s", gpuimg_ctx_error(ctx));
    gpuimg_image lib, fast;
    memset(&fast, 0, sizeof fast);
    st = gpuimg__decode_png_libpng(ctx, (const uint8_t *)buf, len, "fuzz.png", &lib);
    FUZZ_CHECK(st == GPUIMG_OK, "libpng refuses the PNG written: %s", gpuimg_ctx_error(ctx));
    FUZZ_CHECK(fuzz_same_image(&lib, &img), "libpng reads other pixels");
    if (depth == 8) { /* the fast reader takes 8 bits only */
        FUZZ_CHECK(gpuimg__decode_png_fast(ctx, (const uint8_t *)buf, len, &fast) > 0,
                   "the fast reader refuses the PNG written");
        FUZZ_CHECK(fuzz_same_image(&fast, &img), "the fast reader reads other pixels");
    }
    gpuimg_image_free(&lib);
    gpuimg_image_free(&fast);
    free(buf);
    gpuimg_image_free(&img);
    gpuimg_ctx_destroy(ctx);
    return 0;
}
