/* SPDX-License-Identifier: MIT */
/* TIFF through libtiff from memory (io/tiff/tiff.c), as gpuimg_load_memory
 * reaches it: any bytes, the signature made TIFF's (the byte order the
 * first byte says), so that mutations reach the directory rather than
 * dying at the sniff (fuzz_load keeps that under the fuzzer). Both reading
 * paths (sample by sample: gray/RGB +-alpha, 8/16 bits, strips, planes;
 * libtiff's RGBA reader: tiles, palettes, bilevel, CMYK, YCbCr, odd
 * depths), the profile, XMP and EXIF IFD (io/tiff/exif.c), and the pixels
 * turned upright as the Orientation tag says. What decodes must:
 *  - be told the same by gpuimg_probe_memory (`gpuimg info`): the upright
 *    size, the orientation and the channels, which info says are "as
 *    gpuimg reads it";
 *  - written by the TIFF encoder (Deflate and the predictor, the metadata
 *    carried) read back to the same pixels at the same depth, upright
 *    (Orientation 1), with the same profile and XMP (the EXIF IFD is set
 *    entry by entry through libtiff, so not byte for byte: fuzz_tiff_exif
 *    holds that writer to its own property). */
#define _POSIX_C_SOURCE 200809L /* open_memstream */
#include <string.h>

#include "fuzz.h"
#include "io/io.h"
#include "io/metadata.h"

/* The write-read round trip of larger images (the 2^22 pixels fuzz_ctx
 * allows, which the fuzzer reaches from a few KB of LZW) costs seconds
 * under ASan and finds nothing a smaller one would not: skipped. */
#define ROUND_TRIP_PIXELS ((uint64_t)1 << 18)

static void round_trip(gpuimg_ctx *ctx, const gpuimg_image *img)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    FUZZ_CHECK(f != NULL, "open_memstream");
    gpuimg_status st = gpuimg__encode_tiff(ctx, f, "fuzz.tif", GPUIMG_FORMAT_TIFF, img);
    FUZZ_CHECK(fclose(f) == 0 && st == GPUIMG_OK, "encode: %s", gpuimg_ctx_error(ctx));
    gpuimg_image back;
    st = gpuimg_load_memory(ctx, buf, len, "fuzz.tif", &back);
    FUZZ_CHECK(st == GPUIMG_OK, "the TIFF written does not read back: %s", gpuimg_ctx_error(ctx));
    FUZZ_CHECK(fuzz_same_image(&back, img),
               "the TIFF written reads back other pixels (%dx%dx%d, %d bits, as %dx%dx%d, %d bits)",
               img->width, img->height, img->channels, gpuimg_image_depth(img), back.width,
               back.height, back.channels, gpuimg_image_depth(&back));
    gpuimg__meta_out m; /* what the encoder was given */
    gpuimg__metadata_for_output(ctx, img, &m);
    const char *differs =
        fuzz_meta_differs(back.meta, m.icc, m.icc_len, NULL, 0, 0, m.xmp, m.xmp_len);
    FUZZ_CHECK(!differs, "the TIFF written reads back another %s", differs);
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
        cfg.png_level = 1; /* the encoder's Deflate level: speed, the format is the same */
        ctx = fuzz_ctx_with(&cfg);
    }
    if (size < 8)
        return 0;
    uint8_t *tif = malloc(size);
    if (!tif)
        return 0;
    memcpy(tif, data, size);
    memcpy(tif, tif[0] == 'M' ? "MM\0*" : "II*\0", 4);
    gpuimg_image img;
    if (gpuimg_load_memory(ctx, tif, size, "fuzz.tif", &img) != GPUIMG_OK) {
        free(tif);
        return 0;
    }
    int depth = gpuimg_image_depth(&img);
    FUZZ_CHECK(img.width > 0 && img.height > 0 && img.channels >= 1 && img.channels <= 4 &&
                   (depth == 8 || depth == 16),
               "%dx%dx%d, %d bits", img.width, img.height, img.channels, depth);
    /* the TIFF reader always gives its metadata (the orientation at least) */
    FUZZ_CHECK(img.meta && img.meta->orientation >= 1 && img.meta->orientation <= 8,
               "orientation %d", img.meta ? img.meta->orientation : 0);
    gpuimg_file_info info;
    gpuimg_status st = gpuimg_probe_memory(ctx, tif, size, "fuzz.tif", &info);
    FUZZ_CHECK(st == GPUIMG_OK, "info refuses a TIFF that loads: %s", gpuimg_ctx_error(ctx));
    FUZZ_CHECK(info.width == img.width && info.height == img.height &&
                   info.orientation == img.meta->orientation,
               "info says %dx%d, orientation %d; the TIFF loads %dx%d, orientation %d", info.width,
               info.height, info.orientation, img.width, img.height, img.meta->orientation);
    FUZZ_CHECK(info.channels == img.channels, "info says %d channels; the TIFF loads %d",
               info.channels, img.channels);
    free(tif);
    if ((uint64_t)img.width * (uint64_t)img.height <= ROUND_TRIP_PIXELS)
        round_trip(ctx, &img);
    gpuimg_image_free(&img);
    return 0;
}
