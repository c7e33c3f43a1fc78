/* SPDX-License-Identifier: MIT */
/* JPEG XL (io/jxl.c): both signatures recognised, `info` equal to the
 * loader, gpuimg's lossless writer read back exact at 8 and 16 bits in
 * every channel count, the codestream's orientation applied once (never
 * again from an Exif box) or kept with --no-auto-orient, and a cut file
 * refused with exit 3 and no output.
 *
 * The oriented files are written here with libjxl's encoder itself
 * (cjxl has no orientation option), and every expected pixel computed
 * here from the orientation's definition, never from gpuimg's output. */
#define _GNU_SOURCE /* memmem */
#include <check.h>
#include <jxl/encode.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "io/formats.h"
#include "io/metadata.h"
#include "testutil.h"

#define RUN(out, err, ...)                                                                         \
    tu_run((const char *const[]){tu_bin(), __VA_ARGS__, NULL}, NULL, out, err)

/* The stored picture: odd sides, wider than high, so a turn shows. */
enum { W = 23, H = 13 };

/* Stored value of pixel (x, y), channel ch, at depth bits. */
static int stored(int x, int y, int ch, int depth)
{
    int v = x * 7 + y * 13 + ch * 61 + x * y;
    return depth == 16 ? (v * 331 + 5) & 0xffff : v & 0xff;
}

/* A picture of W x H x c at depth, packed in the machine's order. */
static uint8_t *picture(int c, int depth, size_t *len)
{
    int bytes = depth / 8;
    *len = (size_t)W * H * c * bytes;
    uint8_t *p = malloc(*len);
    ck_assert_ptr_nonnull(p);
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++)
            for (int ch = 0; ch < c; ch++) {
                size_t at = ((size_t)y * W + x) * c + ch;
                int v = stored(x, y, ch, depth);
                if (bytes == 2) {
                    uint16_t s = (uint16_t)v;
                    memcpy(p + at * 2, &s, 2);
                } else {
                    p[at] = (uint8_t)v;
                }
            }
    return p;
}

/* An EXIF block (little-endian TIFF) whose IFD0 holds Orientation o. */
static const uint8_t *exif_with_orientation(int o, size_t *len)
{
    static uint8_t e[26] = {'I', 'I', 42, 0, 8, 0, 0, 0, 1, 0, 0x12, 0x01, 3, 0, 1, 0, 0, 0};
    e[18] = (uint8_t)o;
    *len = sizeof e;
    return e;
}

/* A lossless JPEG XL of picture(c, depth) written by libjxl with
 * codestream orientation o: a bare codestream, or (container, or an EXIF
 * Orientation exif_o > 0 in an Exif box, Brotli-compressed as a "brob" box
 * with brob) the ISO BMFF container. */
static uint8_t *write_jxl(int c, int depth, int o, int container, int exif_o, int brob,
                          size_t *out_len)
{
    size_t len;
    uint8_t *pix = picture(c, depth, &len);
    JxlEncoder *enc = JxlEncoderCreate(NULL);
    ck_assert_ptr_nonnull(enc);
    JxlBasicInfo b;
    JxlEncoderInitBasicInfo(&b);
    b.xsize = W, b.ysize = H;
    b.bits_per_sample = (uint32_t)depth;
    b.num_color_channels = c >= 3 ? 3 : 1;
    b.num_extra_channels = c == 2 || c == 4;
    b.alpha_bits = b.num_extra_channels ? (uint32_t)depth : 0;
    b.uses_original_profile = JXL_TRUE;
    b.orientation = (JxlOrientation)o;
    ck_assert_int_eq(JxlEncoderUseContainer(enc, container || exif_o), JXL_ENC_SUCCESS);
    ck_assert_int_eq(JxlEncoderSetBasicInfo(enc, &b), JXL_ENC_SUCCESS);
    JxlColorEncoding ce;
    JxlColorEncodingSetToSRGB(&ce, c <= 2);
    ck_assert_int_eq(JxlEncoderSetColorEncoding(enc, &ce), JXL_ENC_SUCCESS);
    if (exif_o) {
        size_t n;
        const uint8_t *e = exif_with_orientation(exif_o, &n);
        uint8_t box[4 + 26] = {0};
        memcpy(box + 4, e, n);
        ck_assert_int_eq(JxlEncoderUseBoxes(enc), JXL_ENC_SUCCESS);
        ck_assert_int_eq(JxlEncoderAddBox(enc, "Exif", box, 4 + n, brob), JXL_ENC_SUCCESS);
        JxlEncoderCloseBoxes(enc);
    }
    JxlEncoderFrameSettings *fs = JxlEncoderFrameSettingsCreate(enc, NULL);
    ck_assert_int_eq(JxlEncoderSetFrameLossless(fs, JXL_TRUE), JXL_ENC_SUCCESS);
    JxlPixelFormat pf = {(uint32_t)c, depth == 16 ? JXL_TYPE_UINT16 : JXL_TYPE_UINT8,
                         JXL_NATIVE_ENDIAN, 0};
    ck_assert_int_eq(JxlEncoderAddImageFrame(fs, &pf, pix, len), JXL_ENC_SUCCESS);
    JxlEncoderCloseInput(enc);
    size_t cap = 1 << 16, n = 0;
    uint8_t *out = malloc(cap);
    ck_assert_ptr_nonnull(out);
    JxlEncoderStatus s;
    do {
        if (cap - n < 4096) {
            out = realloc(out, cap *= 2);
            ck_assert_ptr_nonnull(out);
        }
        uint8_t *next = out + n;
        size_t avail = cap - n;
        s = JxlEncoderProcessOutput(enc, &next, &avail);
        n = (size_t)(next - out);
    } while (s == JXL_ENC_NEED_MORE_OUTPUT);
    ck_assert_int_eq(s, JXL_ENC_SUCCESS);
    JxlEncoderDestroy(enc);
    free(pix);
    *out_len = n;
    return out;
}

/* The stored pixel shown at (x, y) of the upright picture, for each
 * orientation as EXIF (and JPEG XL, which uses its values) defines it. */
static void upright_source(int o, int x, int y, int *sx, int *sy)
{
    switch (o) {
    case 1: *sx = x, *sy = y; break;
    case 2: *sx = W - 1 - x, *sy = y; break;
    case 3: *sx = W - 1 - x, *sy = H - 1 - y; break;
    case 4: *sx = x, *sy = H - 1 - y; break;
    case 5: *sx = y, *sy = x; break;
    case 6: *sx = y, *sy = H - 1 - x; break;
    case 7: *sx = W - 1 - y, *sy = H - 1 - x; break;
    default: *sx = W - 1 - y, *sy = x; break;
    }
}

/* img is the stored picture seen with orientation o (1: as stored). */
static void assert_shows(const gpuimg_image *img, int o, int c, int depth, const char *what)
{
    int turned = o >= 5;
    ck_assert_msg(img->width == (turned ? H : W) && img->height == (turned ? W : H),
                  "%s, orientation %d: %dx%d", what, o, img->width, img->height);
    ck_assert_int_eq(img->channels, c);
    ck_assert_int_eq(gpuimg_image_depth(img), depth);
    for (int y = 0; y < img->height; y++)
        for (int x = 0; x < img->width; x++) {
            int sx, sy;
            upright_source(o, x, y, &sx, &sy);
            for (int ch = 0; ch < c; ch++) {
                int got = tu_value(img, ((size_t)y * img->width + x) * c + ch);
                ck_assert_msg(got == stored(sx, sy, ch, depth),
                              "%s, orientation %d: (%d,%d) channel %d is %d, not %d", what, o, x, y,
                              ch, got, stored(sx, sy, ch, depth));
            }
        }
}

static gpuimg_ctx *ctx_with(int no_auto_orient, int lossless)
{
    gpuimg_config cfg;
    gpuimg_config_init(&cfg);
    cfg.backend = GPUIMG_BACKEND_CPU;
    cfg.no_auto_orient = no_auto_orient;
    cfg.lossless = lossless;
    gpuimg_ctx *ctx;
    ck_assert_int_eq(gpuimg_ctx_create(&cfg, &ctx), GPUIMG_OK);
    return ctx;
}

START_TEST(sniff_both_signatures)
{
    for (int container = 0; container < 2; container++) {
        size_t n;
        uint8_t *f = write_jxl(3, 8, 1, container, 0, 0, &n);
        static const uint8_t box[12] = {0, 0, 0, 12, 'J', 'X', 'L', ' ', 0xd, 0xa, 0x87, 0xa};
        ck_assert(container ? memcmp(f, box, 12) == 0 : f[0] == 0xff && f[1] == 0x0a);
        ck_assert_ptr_eq(gpuimg__sniff(f, n), &gpuimg__format_jxl);
        gpuimg_ctx *ctx = ctx_with(0, 0);
        gpuimg_file_info info;
        ck_assert_int_eq(gpuimg_probe_memory(ctx, f, n, "a.jxl", &info), GPUIMG_OK);
        ck_assert_str_eq(info.format, "jxl");
        gpuimg_ctx_destroy(ctx);
        free(f);
    }
    /* neither signature: not JPEG XL (FF 0B, a container box of another type) */
    static const uint8_t not1[] = {0xff, 0x0b, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
    static const uint8_t not2[] = {0, 0, 0, 12, 'J', 'X', 'L', 'X', 0xd, 0xa, 0x87, 0xa};
    ck_assert(gpuimg__sniff(not1, sizeof not1) != &gpuimg__format_jxl);
    ck_assert(gpuimg__sniff(not2, sizeof not2) != &gpuimg__format_jxl);
    ck_assert_int_eq(gpuimg_format_from_path("x.JXL"), GPUIMG_FORMAT_JXL);
}
END_TEST

/* Every channel count at 8 and 16 bits, from libjxl: `info` says what the
 * loader gives, and the loader gives the values written. */
START_TEST(info_equals_decode)
{
    gpuimg_ctx *ctx = ctx_with(0, 0);
    for (int depth = 8; depth <= 16; depth += 8)
        for (int c = 1; c <= 4; c++) {
            size_t n;
            uint8_t *f = write_jxl(c, depth, 1, c % 2, 0, 0, &n);
            gpuimg_file_info info;
            gpuimg_image img;
            ck_assert_int_eq(gpuimg_probe_memory(ctx, f, n, "a.jxl", &info), GPUIMG_OK);
            ck_assert_msg(gpuimg_load_memory(ctx, f, n, "a.jxl", &img) == GPUIMG_OK, "%s",
                          gpuimg_ctx_error(ctx));
            ck_assert_int_eq(info.width, img.width);
            ck_assert_int_eq(info.height, img.height);
            ck_assert_int_eq(info.channels, img.channels);
            ck_assert_int_eq(info.depth, gpuimg_image_depth(&img));
            assert_shows(&img, 1, c, depth, "libjxl's file");
            gpuimg_image_free(&img);
            free(f);
        }
    gpuimg_ctx_destroy(ctx);
}
END_TEST

/* gpuimg's writer, lossless, and its reader: the same values back. */
START_TEST(lossless_round_trip)
{
    gpuimg_ctx *ctx = ctx_with(0, 1);
    char path[512], msg[256];
    snprintf(path, sizeof path, "%s/r.jxl", tu_tmpdir());
    for (int depth = 8; depth <= 16; depth += 8)
        for (int c = 1; c <= 4; c++) {
            gpuimg_image src, back;
            tu_random_image_depth(&src, 61, 35, c, depth, (unsigned)(c * depth));
            ck_assert_msg(gpuimg_save(ctx, path, GPUIMG_FORMAT_JXL, &src) == GPUIMG_OK, "%s",
                          gpuimg_ctx_error(ctx));
            ck_assert_msg(gpuimg_load(ctx, path, &back) == GPUIMG_OK, "%s", gpuimg_ctx_error(ctx));
            ck_assert_msg(tu_images_agree(&back, &src, 1, msg, sizeof msg), "%d ch, %d bits: %s", c,
                          depth, msg);
            gpuimg_image_free(&src);
            gpuimg_image_free(&back);
        }
    gpuimg_ctx_destroy(ctx);
}
END_TEST

/* The codestream's orientation, each of 1-8: applied once by default,
 * the stored pixels with --no-auto-orient; `info` says the loader's size
 * both ways. */
START_TEST(orientation_applied_once)
{
    gpuimg_ctx *upright = ctx_with(0, 0), *raw = ctx_with(1, 0);
    for (int o = 1; o <= 8; o++) {
        size_t n;
        uint8_t *f = write_jxl(3, 8, o, 0, 0, 0, &n);
        for (int keep = 0; keep < 2; keep++) {
            gpuimg_ctx *ctx = keep ? raw : upright;
            gpuimg_image img;
            gpuimg_file_info info;
            ck_assert_int_eq(gpuimg_load_memory(ctx, f, n, "o.jxl", &img), GPUIMG_OK);
            ck_assert_int_eq(gpuimg_probe_memory(ctx, f, n, "o.jxl", &info), GPUIMG_OK);
            assert_shows(&img, keep ? 1 : o, 3, 8, keep ? "--no-auto-orient" : "upright");
            ck_assert_int_eq(info.width, img.width);
            ck_assert_int_eq(info.height, img.height);
            ck_assert_int_eq(info.orientation, 1);
            gpuimg_image_free(&img);
        }
        free(f);
    }
    gpuimg_ctx_destroy(upright);
    gpuimg_ctx_destroy(raw);
}
END_TEST

/* An Exif box saying Orientation 6 beside a codestream saying 3, plain or
 * Brotli-compressed ("brob"): the codestream's wins (ISO/IEC 18181-2),
 * applied once; the EXIF kept says 1 and an output written from it too. */
START_TEST(exif_orientation_not_applied_again)
{
    for (int brob = 0; brob < 2; brob++) {
        size_t n;
        uint8_t *f = write_jxl(3, 8, 3, 1, 6, brob, &n);
        ck_assert_msg(!brob || memmem(f, n, "brob", 4) != NULL, "no brob box written");
        gpuimg_ctx *ctx = ctx_with(0, 1);
        gpuimg_image img;
        gpuimg_file_info info;
        ck_assert_int_eq(gpuimg_load_memory(ctx, f, n, "e.jxl", &img), GPUIMG_OK);
        assert_shows(&img, 3, 3, 8, brob ? "codestream 3, brob EXIF 6" : "codestream 3, EXIF 6");
        ck_assert_ptr_nonnull(img.meta);
        ck_assert_ptr_nonnull(img.meta->exif);
        ck_assert_int_eq(img.meta->orientation, 1);
        ck_assert_int_eq(gpuimg__exif_orientation(img.meta->exif, img.meta->exif_len), 1);
        ck_assert_int_eq(gpuimg_probe_memory(ctx, f, n, "e.jxl", &info), GPUIMG_OK);
        ck_assert_int_eq(info.width, W);
        ck_assert_int_eq(info.orientation, 1);
        ck_assert_int_eq(info.exif_bytes, 26);
        /* written and read again: the same pixels, EXIF Orientation 1 */
        char path[512];
        snprintf(path, sizeof path, "%s/e2.jxl", tu_tmpdir());
        ck_assert_int_eq(gpuimg_save(ctx, path, GPUIMG_FORMAT_JXL, &img), GPUIMG_OK);
        gpuimg_image back;
        ck_assert_int_eq(gpuimg_load(ctx, path, &back), GPUIMG_OK);
        assert_shows(&back, 3, 3, 8, "written again");
        ck_assert_ptr_nonnull(back.meta);
        ck_assert_int_eq(gpuimg__exif_orientation(back.meta->exif, back.meta->exif_len), 1);
        gpuimg_image_free(&back);
        gpuimg_image_free(&img);
        gpuimg_ctx_destroy(ctx);
        free(f);
    }
}
END_TEST

/* A file cut anywhere past its signature: exit 3, and no output file. */
START_TEST(truncated_refused)
{
    size_t n;
    uint8_t *f = write_jxl(4, 16, 6, 1, 0, 0, &n);
    const char *dir = tu_tmpdir();
    char in[512], out[512];
    snprintf(in, sizeof in, "%s/cut.jxl", dir);
    snprintf(out, sizeof out, "%s/cut.png", dir);
    size_t cuts[] = {n - 1, n / 2, 40, 13};
    for (size_t i = 0; i < sizeof cuts / sizeof cuts[0]; i++) {
        tu_write_file(in, f, cuts[i]);
        char *err = NULL;
        int rc = RUN(NULL, &err, "invert", in, out);
        ck_assert_msg(rc == 3, "cut at %zu of %zu: exit %d (%s)", cuts[i], n, rc, err);
        ck_assert_msg(strstr(err, "cut.jxl") != NULL, "%s", err);
        struct stat sb;
        ck_assert_msg(stat(out, &sb) != 0, "cut at %zu: an output was written", cuts[i]);
        free(err);
    }
    free(f);
}
END_TEST

Suite *jxl_suite(void)
{
    Suite *s = suite_create("jxl");
    TCase *tc = tu_tcase("jxl");
    tcase_add_test(tc, sniff_both_signatures);
    tcase_add_test(tc, info_equals_decode);
    tcase_add_test(tc, lossless_round_trip);
    tcase_add_test(tc, orientation_applied_once);
    tcase_add_test(tc, exif_orientation_not_applied_again);
    tcase_add_test(tc, truncated_refused);
    suite_add_tcase(s, tc);
    return s;
}
