/* SPDX-License-Identifier: MIT */
/* HEIF/HEIC and AVIF through libheif (io/heif.c), as gpuimg_load_memory
 * reaches them: any bytes (the seeds are heif-enc's files, whose ftyp box
 * the mutations mostly keep), so libheif's box parser, libde265 and dav1d,
 * the row's metadata walk (ICC, Exif item with its offset, XMP) and its
 * own walk to the coded image's configuration (monochrome or not) see
 * them. What decodes must:
 *  - be 8-bit or 16-bit gray, gray+alpha, RGB or RGBA (gray as the
 *    coded image's hvcC or av1C says, read by the row's own box walk),
 *    its EXIF (if any) saying Orientation 1 (the file's transforms are
 *    its orientation, applied once);
 *  - be told the same by gpuimg_probe_memory (`gpuimg info`): the size,
 *    the channels and the depth, with and without --no-auto-orient.
 * No round trip through the writers: x265 and aom take a good part of a
 * second per image under ASan, which would stall the run. */
#include <string.h>

#include "fuzz.h"
#include "io/metadata.h"

static gpuimg_ctx *ctx_of(int no_auto_orient)
{
    static gpuimg_ctx *ctx[2];
    if (!ctx[no_auto_orient]) {
        gpuimg_config cfg;
        gpuimg_config_init(&cfg);
        cfg.no_auto_orient = no_auto_orient;
        ctx[no_auto_orient] = fuzz_ctx_with(&cfg);
    }
    return ctx[no_auto_orient];
}

static void one(int no_auto_orient, const uint8_t *data, size_t size)
{
    gpuimg_ctx *ctx = ctx_of(no_auto_orient);
    gpuimg_image img;
    if (gpuimg_load_memory(ctx, data, size, "fuzz.heic", &img) != GPUIMG_OK)
        return;
    int depth = gpuimg_image_depth(&img);
    FUZZ_CHECK(img.width > 0 && img.height > 0 && img.channels >= 1 && img.channels <= 4 &&
                   (depth == 8 || depth == 16),
               "%dx%dx%d, %d bits", img.width, img.height, img.channels, depth);
    FUZZ_CHECK(!img.meta || img.meta->orientation == 1, "orientation %d", img.meta->orientation);
    FUZZ_CHECK(!img.meta || !img.meta->exif ||
                   gpuimg__exif_orientation(img.meta->exif, img.meta->exif_len) == 1,
               "the EXIF read says Orientation %d",
               gpuimg__exif_orientation(img.meta->exif, img.meta->exif_len));
    gpuimg_file_info info;
    gpuimg_status st = gpuimg_probe_memory(ctx, data, size, "fuzz.heic", &info);
    FUZZ_CHECK(st == GPUIMG_OK, "info refuses a HEIF that loads: %s", gpuimg_ctx_error(ctx));
    /* under --no-auto-orient a quarter-turned file libheif 1.15 wrote has
     * its turned size in ispe (io/heif.c): only the area must agree */
    int sides = no_auto_orient ? (info.width == img.width && info.height == img.height) ||
                                     (info.width == img.height && info.height == img.width)
                               : info.width == img.width && info.height == img.height;
    FUZZ_CHECK(sides && info.channels == img.channels && info.depth == depth,
               "info says %dx%dx%d at %d bits; the HEIF loads %dx%dx%d at %d (no-auto-orient %d)",
               info.width, info.height, info.channels, info.depth, img.width, img.height,
               img.channels, depth, no_auto_orient);
    gpuimg_image_free(&img);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    one(0, data, size);
    one(1, data, size);
    return 0;
}
