/* SPDX-License-Identifier: MIT */
/* WebP through libwebp (io/webp.c), as gpuimg_load_memory reaches it: any
 * bytes, made a RIFF WebP ("RIFF", the size of the bytes there are,
 * "WEBP") so that mutations reach the chunks rather than the container's
 * two checks (fuzz_load keeps those under the fuzzer): VP8 and VP8L
 * bitstreams, VP8X with ALPH, ICCP, EXIF and XMP chunks (metadata.c's
 * walk), animations refused, the pixels turned upright as the EXIF
 * Orientation says. What decodes must:
 *  - be told the same by gpuimg_probe_memory (`gpuimg info`): the upright
 *    size, the channels and the orientation;
 *  - written lossless and exact (--webp-lossless) read back to the same
 *    pixels, upright (Orientation 1), with the same profile, EXIF and XMP.
 *    An RGBA image without a transparent pixel may come back RGB: libwebp
 *    leaves out an alpha plane that is all 255, as the format allows. */
#define _POSIX_C_SOURCE 200809L /* open_memstream */
#include <string.h>

#include "fuzz.h"
#include "io/io.h"
#include "io/metadata.h"

/* The lossless encoder takes about a second a megapixel under ASan; the
 * round trip of larger images (up to the 16383 x 256 or so that fit in
 * fuzz_ctx's 2^22 pixels) would slow the run and find nothing more. */
#define ROUND_TRIP_PIXELS ((uint64_t)1 << 18)

/* b is a's pixels, or (RGBA a, RGB b) a's colours with every alpha 255. */
static int same_pixels(const gpuimg_image *a, const gpuimg_image *b)
{
    if (a->channels == b->channels || a->width != b->width || a->height != b->height)
        return fuzz_same_image(a, b);
    if (a->channels != 4 || b->channels != 3)
        return 0;
    size_t n = (size_t)a->width * (size_t)a->height;
    for (size_t i = 0; i < n; i++)
        if (memcmp(a->data + 4 * i, b->data + 3 * i, 3) != 0 || a->data[4 * i + 3] != 255)
            return 0;
    return 1;
}

static void round_trip(gpuimg_ctx *ctx, const gpuimg_image *img)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    FUZZ_CHECK(f != NULL, "open_memstream");
    gpuimg_status st = gpuimg__encode_webp(ctx, f, "fuzz.webp", GPUIMG_FORMAT_WEBP, img);
    FUZZ_CHECK(fclose(f) == 0 && st == GPUIMG_OK, "encode: %s", gpuimg_ctx_error(ctx));
    gpuimg_image back;
    st = gpuimg_load_memory(ctx, buf, len, "fuzz.webp", &back);
    FUZZ_CHECK(st == GPUIMG_OK, "the WebP written does not read back: %s", gpuimg_ctx_error(ctx));
    FUZZ_CHECK(same_pixels(img, &back),
               "the lossless WebP written reads back other pixels (%dx%dx%d as %dx%dx%d)",
               img->width, img->height, img->channels, back.width, back.height, back.channels);
    gpuimg__meta_out m; /* what the encoder was given */
    gpuimg__metadata_for_output(ctx, img, &m);
    const char *differs =
        fuzz_meta_differs(back.meta, m.icc, m.icc_len, m.exif, m.exif_len, 1, m.xmp, m.xmp_len);
    FUZZ_CHECK(!differs, "the WebP written reads back another %s", differs);
    free(m.exif_copy);
    gpuimg_image_free(&back);
    free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static gpuimg_ctx *ctx;
    if (!ctx) {
        gpuimg_config cfg;
        gpuimg_config_init(&cfg);
        cfg.lossless = 1;
        ctx = fuzz_ctx_with(&cfg);
    }
    if (size < 12 || size - 8 > UINT32_MAX)
        return 0;
    uint8_t *webp = malloc(size);
    if (!webp)
        return 0;
    memcpy(webp, data, size);
    memcpy(webp, "RIFF", 4);
    for (int i = 0; i < 4; i++)
        webp[4 + i] = (uint8_t)((size - 8) >> (8 * i));
    memcpy(webp + 8, "WEBP", 4);
    gpuimg_image img;
    if (gpuimg_load_memory(ctx, webp, size, "fuzz.webp", &img) != GPUIMG_OK) {
        free(webp);
        return 0;
    }
    FUZZ_CHECK(img.width > 0 && img.height > 0 && (img.channels == 3 || img.channels == 4) &&
                   gpuimg_image_depth(&img) == 8,
               "%dx%dx%d, %d bits", img.width, img.height, img.channels, gpuimg_image_depth(&img));
    int orientation = img.meta ? img.meta->orientation : 1;
    FUZZ_CHECK(orientation >= 1 && orientation <= 8, "orientation %d", orientation);
    gpuimg_file_info info;
    gpuimg_status st = gpuimg_probe_memory(ctx, webp, size, "fuzz.webp", &info);
    FUZZ_CHECK(st == GPUIMG_OK, "info refuses a WebP that loads: %s", gpuimg_ctx_error(ctx));
    FUZZ_CHECK(info.width == img.width && info.height == img.height &&
                   info.channels == img.channels && info.orientation == orientation,
               "info says %dx%dx%d, orientation %d; the WebP loads %dx%dx%d, orientation %d",
               info.width, info.height, info.channels, info.orientation, img.width, img.height,
               img.channels, orientation);
    free(webp);
    if ((uint64_t)img.width * (uint64_t)img.height <= ROUND_TRIP_PIXELS)
        round_trip(ctx, &img);
    gpuimg_image_free(&img);
    return 0;
}
