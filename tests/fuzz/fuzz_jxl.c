/* SPDX-License-Identifier: MIT */
/* JPEG XL through libjxl (io/jxl.c), as gpuimg_load_memory reaches it: any
 * bytes, made JPEG XL when they are not (a bare codestream's FF 0A put in
 * front; an input that starts with either signature is fed as it is, so
 * the container seeds' boxes stay reachable): the codestream's headers,
 * frames and orientation, the container's Exif, "xml " and Brotli "brob"
 * boxes (meta_read's walk), the ICC profile, animations refused. What
 * decodes must:
 *  - be told the same by gpuimg_probe_memory (`gpuimg info`): the size,
 *    channels, depth, and orientation 1 (libjxl turned the pixels);
 *  - keep Orientation 1 in its EXIF (never a second turn);
 *  - written lossless read back to the same pixels, channels and depth,
 *    with the same EXIF and XMP (the profile is not compared: libjxl may
 *    store an sRGB-equivalent one as its enumerated sRGB, read back as
 *    none). */
#define _POSIX_C_SOURCE 200809L /* open_memstream */
#include <string.h>

#include "fuzz.h"
#include "io/formats.h"
#include "io/io.h"
#include "io/metadata.h"

/* The lossless encoder costs about a second a megapixel under ASan: the
 * round trip of small images finds as much. */
#define ROUND_TRIP_PIXELS ((uint64_t)1 << 16)

static void round_trip(gpuimg_ctx *ctx, const gpuimg_image *img)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    FUZZ_CHECK(f != NULL, "open_memstream");
    gpuimg_status st = gpuimg__format_jxl.encode(ctx, f, "fuzz.jxl", GPUIMG_FORMAT_JXL, img);
    FUZZ_CHECK(fclose(f) == 0 && st == GPUIMG_OK, "encode: %s", gpuimg_ctx_error(ctx));
    gpuimg_image back;
    st = gpuimg_load_memory(ctx, buf, len, "fuzz.jxl", &back);
    FUZZ_CHECK(st == GPUIMG_OK, "the JPEG XL written does not read back: %s",
               gpuimg_ctx_error(ctx));
    FUZZ_CHECK(fuzz_same_image(img, &back),
               "the lossless JPEG XL written reads back other pixels (%dx%dx%d, %d bits as "
               "%dx%dx%d, %d bits)",
               img->width, img->height, img->channels, gpuimg_image_depth(img), back.width,
               back.height, back.channels, gpuimg_image_depth(&back));
    gpuimg__meta_out m; /* what the encoder was given */
    gpuimg__metadata_for_output(ctx, img, &m);
    const uint8_t *icc = back.meta ? back.meta->icc : NULL;
    size_t icc_len = back.meta ? back.meta->icc_len : 0;
    const char *differs =
        fuzz_meta_differs(back.meta, icc, icc_len, m.exif, m.exif_len, 1, m.xmp, m.xmp_len);
    FUZZ_CHECK(!differs, "the JPEG XL written reads back another %s", differs);
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
    int as_is = gpuimg__format_jxl.sniff(data, size);
    size_t n = as_is ? size : size + 2;
    uint8_t *jxl = malloc(n ? n : 1);
    if (!jxl)
        return 0;
    if (!as_is)
        jxl[0] = 0xff, jxl[1] = 0x0a;
    if (size)
        memcpy(jxl + (as_is ? 0 : 2), data, size);
    gpuimg_image img;
    if (gpuimg_load_memory(ctx, jxl, n, "fuzz.jxl", &img) != GPUIMG_OK) {
        free(jxl);
        return 0;
    }
    int depth = gpuimg_image_depth(&img);
    FUZZ_CHECK(img.width > 0 && img.height > 0 && img.channels >= 1 && img.channels <= 4 &&
                   (depth == 8 || depth == 16),
               "%dx%dx%d, %d bits", img.width, img.height, img.channels, depth);
    int orientation = img.meta ? img.meta->orientation : 1;
    FUZZ_CHECK(orientation == 1, "orientation %d after libjxl turned the pixels", orientation);
    if (img.meta && img.meta->exif)
        FUZZ_CHECK(gpuimg__exif_orientation(img.meta->exif, img.meta->exif_len) == 1,
                   "the EXIF kept says Orientation %d",
                   gpuimg__exif_orientation(img.meta->exif, img.meta->exif_len));
    gpuimg_file_info info;
    gpuimg_status st = gpuimg_probe_memory(ctx, jxl, n, "fuzz.jxl", &info);
    FUZZ_CHECK(st == GPUIMG_OK, "info refuses a JPEG XL that loads: %s", gpuimg_ctx_error(ctx));
    FUZZ_CHECK(info.width == img.width && info.height == img.height &&
                   info.channels == img.channels && info.depth == depth && info.orientation == 1,
               "info says %dx%dx%d, %d bits, orientation %d; the JPEG XL loads %dx%dx%d, %d bits",
               info.width, info.height, info.channels, info.depth, info.orientation, img.width,
               img.height, img.channels, depth);
    free(jxl);
    if ((uint64_t)img.width * (uint64_t)img.height <= ROUND_TRIP_PIXELS)
        round_trip(ctx, &img);
    gpuimg_image_free(&img);
    return 0;
}
