/* SPDX-License-Identifier: MIT */
/* HEIF/HEIC and AVIF through libheif (io/heif.c): recognition by the ftyp
 * brands; `info` (gpuimg_probe and the program's --json) saying the size,
 * channels and depth the loader gives; lossless writing exact at 8 bits
 * and at 16 (values of 12 bits, kept whole), gray and gray+alpha kept
 * monochrome (4:0:0), RGB and RGBA; a file whose irot/imir say "turn 90 degrees", made here with
 * libheif itself (not gpuimg's writer), read upright once, not a second
 * time for the EXIF Orientation it also carries, and stored as it is
 * under --no-auto-orient; the ICC profile, EXIF and XMP carried through;
 * damaged and truncated files refused with exit 3 and no output. The
 * x265 and aom encoders take a second or so per image on a busy machine,
 * so the images are small and the case's timeout generous. */
#define _GNU_SOURCE /* memmem */
#include <check.h>
#include <libheif/heif.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io/formats.h"
#include "io/metadata.h"
#include "testutil.h"

#define RUN(out, err, ...)                                                                         \
    tu_run((const char *const[]){tu_bin(), __VA_ARGS__, NULL}, NULL, out, err)

static const char *const exts[] = {"heic", "avif"};

static gpuimg_ctx *ctx_with(int lossless, int no_auto_orient)
{
    gpuimg_config cfg;
    gpuimg_config_init(&cfg);
    cfg.backend = GPUIMG_BACKEND_CPU;
    cfg.lossless = lossless;
    cfg.no_auto_orient = no_auto_orient;
    gpuimg_ctx *ctx;
    ck_assert_int_eq(gpuimg_ctx_create(&cfg, &ctx), GPUIMG_OK);
    return ctx;
}

static char *path_in(const char *name)
{
    static char buf[4][512];
    static int k;
    k = (k + 1) % 4;
    snprintf(buf[k], sizeof buf[k], "%s/%s", tu_tmpdir(), name);
    return buf[k];
}

/* The probe of path agrees with what it loads as, and so does `info --json`. */
static void info_agrees(gpuimg_ctx *ctx, const char *path, const gpuimg_image *img,
                        int no_auto_orient)
{
    gpuimg_file_info fi;
    ck_assert_msg(gpuimg_probe(ctx, path, &fi) == GPUIMG_OK, "%s", gpuimg_ctx_error(ctx));
    ck_assert_int_eq(fi.width, img->width);
    ck_assert_int_eq(fi.height, img->height);
    ck_assert_int_eq(fi.channels, img->channels);
    ck_assert_int_eq(fi.depth, gpuimg_image_depth(img));
    char *out = NULL;
    int rc = no_auto_orient ? RUN(&out, NULL, "info", "--no-auto-orient", path, "--json")
                            : RUN(&out, NULL, "info", path, "--json");
    ck_assert_int_eq(rc, 0);
    double v[1];
    ck_assert_int_eq(tu_json_numbers(out, "width", v, 1), 1);
    ck_assert_int_eq((int)v[0], img->width);
    ck_assert_int_eq(tu_json_numbers(out, "height", v, 1), 1);
    ck_assert_int_eq((int)v[0], img->height);
    ck_assert_int_eq(tu_json_numbers(out, "channels", v, 1), 1);
    ck_assert_int_eq((int)v[0], img->channels);
    ck_assert_int_eq(tu_json_numbers(out, "depth", v, 1), 1);
    ck_assert_int_eq((int)v[0], gpuimg_image_depth(img));
    free(out);
}

static void put_ftyp(uint8_t *d, const char *major, const char *const *compat, int n)
{
    size_t len = 16 + 4 * (size_t)n;
    memset(d, 0, 64);
    d[3] = (uint8_t)len;
    memcpy(d + 4, "ftyp", 4);
    memcpy(d + 8, major, 4);
    for (int i = 0; i < n; i++)
        memcpy(d + 16 + 4 * i, compat[i], 4);
}

START_TEST(t_sniff)
{
    uint8_t d[64];
    put_ftyp(d, "heic", (const char *const[]){"mif1", "heic"}, 2);
    ck_assert_ptr_eq(gpuimg__sniff(d, sizeof d), &gpuimg__format_heic);
    put_ftyp(d, "mif1", (const char *const[]){"mif1", "miaf"}, 2);
    ck_assert_ptr_eq(gpuimg__sniff(d, sizeof d), &gpuimg__format_heic);
    /* an AVIF lists mif1 too: its avif brand decides */
    put_ftyp(d, "mif1", (const char *const[]){"mif1", "avif"}, 2);
    ck_assert_ptr_eq(gpuimg__sniff(d, sizeof d), &gpuimg__format_avif);
    put_ftyp(d, "avis", NULL, 0);
    ck_assert_ptr_eq(gpuimg__sniff(d, sizeof d), &gpuimg__format_avif);
    put_ftyp(d, "mp41", (const char *const[]){"isom"}, 1);
    ck_assert_ptr_eq(gpuimg__sniff(d, sizeof d), NULL);
    ck_assert_int_eq(gpuimg_format_from_path("a.HEIF"), GPUIMG_FORMAT_HEIC);
    ck_assert_int_eq(gpuimg_format_from_path("a.heic"), GPUIMG_FORMAT_HEIC);
    ck_assert_int_eq(gpuimg_format_from_path("a.avif"), GPUIMG_FORMAT_AVIF);
}
END_TEST

START_TEST(t_lossless_8)
{
    gpuimg_ctx *ctx = ctx_with(1, 0);
    for (int e = 0; e < 2; e++)
        for (int c = 1; c <= 4; c++) {
            gpuimg_image img, back;
            tu_random_image(&img, 37, 21, c, (unsigned)(c * 7 + e)); /* odd sides */
            char name[32];
            snprintf(name, sizeof name, "l%d.%s", c, exts[e]);
            const char *path = path_in(name);
            ck_assert_msg(gpuimg_save(ctx, path, GPUIMG_FORMAT_NONE, &img) == GPUIMG_OK, "%s",
                          gpuimg_ctx_error(ctx));
            ck_assert_msg(gpuimg_load(ctx, path, &back) == GPUIMG_OK, "%s", gpuimg_ctx_error(ctx));
            ck_assert_int_eq(gpuimg_image_depth(&back), 8);
            char msg[256];
            ck_assert_msg(tu_images_agree(&back, &img, 1, msg, sizeof msg), "%s: %s", path, msg);
            info_agrees(ctx, path, &back, 0);
            gpuimg_image_free(&img);
            gpuimg_image_free(&back);
        }
    gpuimg_ctx_destroy(ctx);
}
END_TEST

/* 16-bit values that 12 bits hold (round(v * 65535 / 4095)) come back
 * whole: written at 12 bits, read scaled back to 16. */
START_TEST(t_lossless_16)
{
    gpuimg_ctx *ctx = ctx_with(1, 0);
    for (int e = 0; e < 2; e++)
        for (int c = 1; c <= 4; c++) {
            gpuimg_image img, back;
            tu_random_image_depth(&img, 19, 14, c, 16, (unsigned)(c + 3 * e));
            uint16_t *v = (uint16_t *)img.data;
            for (size_t i = 0; i < (size_t)19 * 14 * (size_t)c; i++)
                v[i] = (uint16_t)(((v[i] >> 4) * 65535u + 2047u) / 4095u);
            char name[32];
            snprintf(name, sizeof name, "w%d.%s", c, exts[e]);
            const char *path = path_in(name);
            ck_assert_msg(gpuimg_save(ctx, path, GPUIMG_FORMAT_NONE, &img) == GPUIMG_OK, "%s",
                          gpuimg_ctx_error(ctx));
            ck_assert_msg(gpuimg_load(ctx, path, &back) == GPUIMG_OK, "%s", gpuimg_ctx_error(ctx));
            char msg[256];
            ck_assert_msg(tu_images_agree(&back, &img, 1, msg, sizeof msg), "%s: %s", path, msg);
            info_agrees(ctx, path, &back, 0);
            gpuimg_image_free(&img);
            gpuimg_image_free(&back);
        }
    gpuimg_ctx_destroy(ctx);
}
END_TEST

START_TEST(t_lossy)
{
    gpuimg_ctx *ctx = ctx_with(0, 0);
    gpuimg_image img, back;
    ck_assert_int_eq(gpuimg_image_alloc(&img, 64, 48, 3), GPUIMG_OK);
    for (int y = 0; y < 48; y++) /* smooth: what a lossy codec keeps well */
        for (int x = 0; x < 64; x++)
            for (int k = 0; k < 3; k++)
                img.data[(y * 64 + x) * 3 + k] = (uint8_t)(40 + x * (k + 1) + y * (3 - k));
    for (int e = 0; e < 2; e++) {
        char name[32];
        snprintf(name, sizeof name, "q.%s", exts[e]);
        const char *path = path_in(name);
        ck_assert_msg(gpuimg_save(ctx, path, GPUIMG_FORMAT_NONE, &img) == GPUIMG_OK, "%s",
                      gpuimg_ctx_error(ctx));
        ck_assert_msg(gpuimg_load(ctx, path, &back) == GPUIMG_OK, "%s", gpuimg_ctx_error(ctx));
        double psnr = tu_psnr(&img, &back);
        /* quality 90 of this gradient: 31.5 dB (x265, 4:2:0), more for aom */
        ck_assert_msg(psnr >= 30, "%s: PSNR %.2f", path, psnr);
        gpuimg_image_free(&back);
    }
    gpuimg_image_free(&img);
    gpuimg_ctx_destroy(ctx);
}
END_TEST

/* A minimal little-endian EXIF block: IFD0 with Orientation o. */
static size_t exif_with_orientation(uint8_t *b, int o)
{
    static const uint8_t t[] = {'I', 'I', 42, 0, 8, 0, 0, 0, 1, 0, 0x12, 0x01, 3,
                                0,   1,   0,  0, 0, 0, 0, 0, 0, 0, 0,    0,    0};
    memcpy(b, t, sizeof t);
    b[18] = (uint8_t)o;
    return sizeof t;
}

/* A lossless HEIC or AVIF of stored, written by libheif with irot/imir
 * for orientation o (heif_encoding_options.image_orientation) and an EXIF
 * block saying Orientation o too, as phones write both. */
static void write_oriented(const char *path, const gpuimg_image *stored, int o, int avif)
{
    int w = stored->width, h = stored->height;
    struct heif_context *hc = heif_context_alloc();
    struct heif_image *im;
    ck_assert_int_eq(
        heif_image_create(w, h, heif_colorspace_RGB, heif_chroma_interleaved_RGB, &im).code, 0);
    ck_assert_int_eq(heif_image_add_plane(im, heif_channel_interleaved, w, h, 8).code, 0);
    int stride;
    uint8_t *p = heif_image_get_plane(im, heif_channel_interleaved, &stride);
    for (int y = 0; y < h; y++)
        memcpy(p + (size_t)y * (size_t)stride, stored->data + (size_t)y * (size_t)w * 3,
               (size_t)w * 3);
    struct heif_color_profile_nclx *nclx = heif_nclx_color_profile_alloc();
    nclx->matrix_coefficients = heif_matrix_coefficients_RGB_GBR; /* exact RGB */
    nclx->full_range_flag = 1;
    ck_assert_int_eq(heif_image_set_nclx_color_profile(im, nclx).code, 0);
    struct heif_encoder *enc;
    ck_assert_int_eq(heif_context_get_encoder_for_format(
                         hc, avif ? heif_compression_AV1 : heif_compression_HEVC, &enc)
                         .code,
                     0);
    heif_encoder_set_lossless(enc, 1);
    heif_encoder_set_parameter_string(enc, "chroma", "444");
    struct heif_encoding_options *opt = heif_encoding_options_alloc();
    opt->image_orientation = (enum heif_orientation)o;
    opt->macOS_compatibility_workaround_no_nclx_profile = 0;
    struct heif_image_handle *hd;
    ck_assert_int_eq(heif_context_encode_image(hc, im, enc, opt, &hd).code, 0);
    uint8_t exif[64];
    size_t n = exif_with_orientation(exif, o);
    ck_assert_int_eq(heif_context_add_exif_metadata(hc, hd, exif, (int)n).code, 0);
    ck_assert_int_eq(heif_context_write_to_file(hc, path).code, 0);
    heif_image_handle_release(hd);
    heif_encoding_options_free(opt);
    heif_encoder_release(enc);
    heif_nclx_color_profile_free(nclx);
    heif_image_release(im);
    heif_context_free(hc);
}

/* Pixel (x, y) of the upright image of stored (W x H) with EXIF
 * orientation o, from the definition: 6 is "turn 90 degrees clockwise to
 * view", 8 counter-clockwise, 3 half a turn, 2 mirrored left-right. */
static const uint8_t *upright_at(const gpuimg_image *s, int o, int x, int y)
{
    int W = s->width, H = s->height, sx = x, sy = y;
    switch (o) {
    case 2: sx = W - 1 - x; break;
    case 3: sx = W - 1 - x, sy = H - 1 - y; break;
    case 6: sx = y, sy = H - 1 - x; break;
    case 8: sx = W - 1 - y, sy = x; break;
    }
    return s->data + ((size_t)sy * (size_t)W + (size_t)sx) * 3;
}

START_TEST(t_orientation)
{
    static const int orientations[] = {6, 8, 3, 2};
    gpuimg_ctx *up = ctx_with(0, 0), *raw = ctx_with(0, 1);
    gpuimg_image s;
    tu_random_image(&s, 24, 16, 3, 5);
    for (int e = 0; e < 2; e++)
        for (size_t t = 0; t < sizeof orientations / sizeof orientations[0]; t++) {
            int o = orientations[t];
            if (e == 1 && o != 6)
                continue; /* aom is slow: one orientation is enough for AV1 */
            char name[32];
            snprintf(name, sizeof name, "o%d.%s", o, exts[e]);
            const char *path = path_in(name);
            write_oriented(path, &s, o, e);
            gpuimg_image img;
            ck_assert_msg(gpuimg_load(up, path, &img) == GPUIMG_OK, "%s", gpuimg_ctx_error(up));
            int turned = o >= 5;
            ck_assert_int_eq(img.width, turned ? 16 : 24);
            ck_assert_int_eq(img.height, turned ? 24 : 16);
            for (int y = 0; y < img.height; y++)
                for (int x = 0; x < img.width; x++)
                    ck_assert_msg(memcmp(img.data + ((size_t)y * (size_t)img.width + (size_t)x) * 3,
                                         upright_at(&s, o, x, y), 3) == 0,
                                  "%s: pixel (%d, %d) is not the upright image's", path, x, y);
            /* the EXIF's Orientation is not applied again, and says 1 */
            ck_assert_ptr_nonnull(img.meta);
            ck_assert_ptr_nonnull(img.meta->exif);
            ck_assert_int_eq(gpuimg__exif_orientation(img.meta->exif, img.meta->exif_len), 1);
            info_agrees(up, path, &img, 0);
            /* written on, it is read back as it is */
            const char *png = path_in("o.png");
            ck_assert_int_eq(gpuimg_save(up, png, GPUIMG_FORMAT_NONE, &img), GPUIMG_OK);
            gpuimg_image again;
            ck_assert_int_eq(gpuimg_load(up, png, &again), GPUIMG_OK);
            char msg[256];
            ck_assert_msg(tu_images_agree(&again, &img, 1, msg, sizeof msg), "%s", msg);
            ck_assert_int_eq(again.meta ? again.meta->orientation : 1, 1);
            gpuimg_image_free(&again);
            gpuimg_image_free(&img);
            /* --no-auto-orient: the stored pixels */
            ck_assert_msg(gpuimg_load(raw, path, &img) == GPUIMG_OK, "%s", gpuimg_ctx_error(raw));
            ck_assert_msg(tu_images_agree(&img, &s, 1, msg, sizeof msg), "%s: %s", path, msg);
            /* libheif 1.15 writes a quarter-turned image's ispe (the coded
             * size, ISO/IEC 23008-12 6.5.3) turned, so `info
             * --no-auto-orient` can say only that size for these files */
            if (o < 5)
                info_agrees(raw, path, &img, 1);
            gpuimg_image_free(&img);
        }
    gpuimg_image_free(&s);
    gpuimg_ctx_destroy(up);
    gpuimg_ctx_destroy(raw);
}
END_TEST

START_TEST(t_metadata)
{
    gpuimg_ctx *ctx = ctx_with(1, 0);
    gpuimg_image img, back;
    tu_random_image(&img, 16, 12, 3, 9);
    img.meta = calloc(1, sizeof *img.meta);
    ck_assert_ptr_nonnull(img.meta);
    uint8_t exif[64];
    size_t exif_len = exif_with_orientation(exif, 1);
    static const char xmp[] = "<x:xmpmeta xmlns:x=\"adobe:ns:meta/\"><rdf:RDF "
                              "xmlns:rdf=\"http://www.w3.org/1999/02/22-rdf-syntax-ns#\"/>"
                              "</x:xmpmeta>";
    /* any bytes do: the profile is carried, not read (but for its colour
     * space at bytes 16-19: only an RGB one goes onto RGB pixels) */
    char *icc = strdup("0123456789abcdefRGB klmnopqrstuvwxyz");
    ck_assert_ptr_nonnull(icc);
    size_t icc_len = strlen(icc);
    img.meta->icc = (uint8_t *)icc, img.meta->icc_len = icc_len;
    img.meta->exif = gpuimg__meta_copy(exif, exif_len), img.meta->exif_len = exif_len;
    img.meta->xmp = gpuimg__meta_copy((const uint8_t *)xmp, sizeof xmp - 1);
    img.meta->xmp_len = sizeof xmp - 1;
    img.meta->orientation = 1;
    for (int e = 0; e < 2; e++) {
        char name[32];
        snprintf(name, sizeof name, "m.%s", exts[e]);
        const char *path = path_in(name);
        ck_assert_msg(gpuimg_save(ctx, path, GPUIMG_FORMAT_NONE, &img) == GPUIMG_OK, "%s",
                      gpuimg_ctx_error(ctx));
        ck_assert_msg(gpuimg_load(ctx, path, &back) == GPUIMG_OK, "%s", gpuimg_ctx_error(ctx));
        ck_assert_ptr_nonnull(back.meta);
        ck_assert_uint_eq(back.meta->icc_len, icc_len);
        ck_assert_mem_eq(back.meta->icc, icc, icc_len);
        ck_assert_uint_eq(back.meta->exif_len, exif_len);
        ck_assert_mem_eq(back.meta->exif, exif, exif_len);
        ck_assert_uint_eq(back.meta->xmp_len, sizeof xmp - 1);
        ck_assert_mem_eq(back.meta->xmp, xmp, sizeof xmp - 1);
        gpuimg_file_info fi;
        ck_assert_int_eq(gpuimg_probe(ctx, path, &fi), GPUIMG_OK);
        ck_assert_uint_eq(fi.icc_bytes, icc_len);
        ck_assert_uint_eq(fi.exif_bytes, exif_len);
        ck_assert_uint_eq(fi.xmp_bytes, sizeof xmp - 1);
        gpuimg_image_free(&back);
        /* --strip: none of them */
        char *err = NULL;
        const char *bare = path_in(exts[e][0] == 'h' ? "bare.heic" : "bare.avif");
        ck_assert_int_eq(RUN(NULL, &err, "run", path, bare, "--strip"), 0);
        free(err);
        ck_assert_int_eq(gpuimg_probe(ctx, bare, &fi), GPUIMG_OK);
        ck_assert_uint_eq(fi.icc_bytes + fi.exif_bytes + fi.xmp_bytes, 0);
    }
    gpuimg_image_free(&img);
    gpuimg_ctx_destroy(ctx);
}
END_TEST

/* A file cut short, or its ftyp kept and the rest garbage: exit 3, one
 * line naming the file, no output. */
START_TEST(t_damaged)
{
    gpuimg_ctx *ctx = ctx_with(1, 0);
    gpuimg_image img;
    tu_random_image(&img, 32, 24, 3, 11);
    for (int e = 0; e < 2; e++) {
        char name[32];
        snprintf(name, sizeof name, "d.%s", exts[e]);
        char good[512];
        snprintf(good, sizeof good, "%s", path_in(name));
        ck_assert_int_eq(gpuimg_save(ctx, good, GPUIMG_FORMAT_NONE, &img), GPUIMG_OK);
        size_t len;
        char *data = tu_read_file(good, &len);
        ck_assert_ptr_nonnull(data);
        const size_t cuts[] = {len - 1, len - 40, len / 2, 40};
        for (size_t k = 0; k < sizeof cuts / sizeof cuts[0] + 1; k++) {
            snprintf(name, sizeof name, "bad%zu.%s", k, exts[e]);
            const char *bad = path_in(name);
            if (k < sizeof cuts / sizeof cuts[0]) {
                tu_write_file(bad, data, cuts[k]);
            } else { /* the boxes after ftyp garbage */
                char *copy = malloc(len);
                memcpy(copy, data, len);
                for (size_t i = 32; i < len; i++)
                    copy[i] = (char)(i * 131);
                tu_write_file(bad, copy, len);
                free(copy);
            }
            const char *out = path_in("out.png");
            unlink(out);
            char *err = NULL;
            int rc = RUN(NULL, &err, "run", bad, out);
            ck_assert_msg(rc == 3, "%s (cut to %zu): exit %d, %s", bad, k < 4 ? cuts[k] : len, rc,
                          err ? err : "");
            ck_assert_msg(err && strstr(err, bad) && strchr(err, '\n') == err + strlen(err) - 1,
                          "%s", err ? err : "");
            ck_assert_int_eq(access(out, F_OK), -1);
            free(err);
            err = NULL;
            ck_assert_int_eq(RUN(NULL, &err, "info", bad), 3);
            free(err);
        }
        /* the ispe box says a row more than the image decodes to: damaged,
         * with or without --no-auto-orient (whose size is the coded one) */
        char *ispe = NULL; /* the last: the primary's (libheif puts a grid around the tile) */
        for (char *at = data; (at = memmem(at, len - (size_t)(at - data), "ispe", 4)); at += 4)
            ispe = at;
        ck_assert_ptr_nonnull(ispe);
        ck_assert_uint_lt((size_t)(ispe - data) + 16, len);
        ispe[15]++; /* the low byte of the height, after version and flags, width */
        snprintf(name, sizeof name, "tall.%s", exts[e]);
        const char *tall = path_in(name);
        tu_write_file(tall, data, len);
        char *err = NULL;
        ck_assert_int_eq(RUN(NULL, &err, "run", tall, path_in("tall.png")), 3);
        free(err);
        err = NULL;
        ck_assert_int_eq(RUN(NULL, &err, "run", "--no-auto-orient", tall, path_in("tall.png")), 3);
        free(err);
        free(data);
    }
    gpuimg_image_free(&img);
    gpuimg_ctx_destroy(ctx);
}
END_TEST

/* fuzz_heif's findings: an AV1 stream whose colour description names an
 * unknown transfer characteristic (and one with several such). libheif 1.15.1 only warns (and its
 * strict mode leaks the decoded image and dav1d's picture): a warning is
 * an error here, with libheif's words. */
START_TEST(t_decoding_warning)
{
    const char *path = tu_golden("../fuzz/corpus/heif/fuzz_unknown_nclx_trc.avif");
    char *err = NULL;
    ck_assert_int_eq(RUN(NULL, &err, "run", path, path_in("w.png")), 3);
    ck_assert_msg(err && strstr(err, "Unknown NCLX transfer characteristics"), "%s",
                  err ? err : "");
    ck_assert_int_eq(access(path_in("w.png"), F_OK), -1);
    free(err);
    /* several warnings: libheif 1.15.1 writes them all, whatever room it
     * is given, each message replacing the one before */
    path = tu_golden("../fuzz/corpus/heif/fuzz_several_warnings.avif");
    err = NULL;
    ck_assert_int_eq(RUN(NULL, &err, "run", path, path_in("w.png")), 3);
    ck_assert_msg(err && strstr(err, "Invalid input: Unknown NCLX"), "%s", err ? err : "");
    free(err);
    /* item data dav1d refuses: an error (dav1d itself prints a line of
     * its own on stderr first, which gpuimg cannot stop; libheif 1.15's
     * dav1d plugin leaks 40 bytes there, tests/lsan.supp) */
    path = tu_golden("../fuzz/corpus/heif/fuzz_dav1d_empty_data.avif");
    err = NULL;
    ck_assert_int_eq(RUN(NULL, &err, "run", path, path_in("w.png")), 3);
    ck_assert_msg(err && strstr(err, "Decoder plugin generated an error"), "%s", err ? err : "");
    ck_assert_int_eq(access(path_in("w.png"), F_OK), -1);
    free(err);
}
END_TEST

Suite *heif_suite(void)
{
    Suite *s = suite_create("heif");
    TCase *tc = tu_tcase("heif");
    tcase_add_test(tc, t_sniff);
    tcase_add_test(tc, t_lossless_8);
    tcase_add_test(tc, t_lossless_16);
    tcase_add_test(tc, t_lossy);
    tcase_add_test(tc, t_orientation);
    tcase_add_test(tc, t_metadata);
    tcase_add_test(tc, t_damaged);
    tcase_add_test(tc, t_decoding_warning);
    suite_add_tcase(s, tc);
    return s;
}
