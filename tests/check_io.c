/* SPDX-License-Identifier: MIT */
/* Image I/O: round trips through every written format, 16-bit reduction,
 * and every kind of bad input mapped to its status before any pixel is
 * trusted; failed writes leave nothing behind. */
#define _GNU_SOURCE /* memmem */
#include <ctype.h>
#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "io/formats.h"
#include "testutil.h"

static void save_ok(gpuimg_ctx *ctx, const char *path, const gpuimg_image *img)
{
    gpuimg_status st = gpuimg_save(ctx, path, GPUIMG_FORMAT_NONE, img);
    ck_assert_msg(st == GPUIMG_OK, "%s: %s", path, gpuimg_ctx_error(ctx));
}

START_TEST(round_trip_lossless)
{
    static const struct {
        const char *ext;
        int channels[4];
    } formats[] = {{"png", {1, 2, 3, 4}}, {"tga", {1, 2, 3, 4}}, {"bmp", {3, 4, 0, 0}},
                   {"ppm", {3, 0, 0, 0}}, {"pgm", {1, 0, 0, 0}}, {"tif", {1, 2, 3, 4}}};
    const char *dir = tu_tmpdir();
    gpuimg_ctx *ctx = tu_ctx();
    for (size_t f = 0; f < sizeof formats / sizeof formats[0]; f++)
        for (int k = 0; k < 4 && formats[f].channels[k]; k++) {
            int c = formats[f].channels[k];
            gpuimg_image in, back;
            tu_random_image(&in, 33, 17, c, (unsigned)(f * 4 + k));
            char path[512], msg[256];
            snprintf(path, sizeof path, "%s/rt%d.%s", dir, c, formats[f].ext);
            size_t bytes = (size_t)33 * 17 * c;
            uint8_t *before = malloc(bytes);
            memcpy(before, in.data, bytes);
            save_ok(ctx, path, &in);
            ck_assert_msg(memcmp(before, in.data, bytes) == 0, "%s: saving changed the image",
                          path); /* as libtiff's predictor once did, in place */
            free(before);
            tu_load(ctx, path, &back);
            ck_assert_msg(tu_images_agree(&back, &in, 1, msg, sizeof msg), "%s: %s", path, msg);
            gpuimg_image_free(&in);
            gpuimg_image_free(&back);
        }
    gpuimg_ctx_destroy(ctx);
}
END_TEST

START_TEST(round_trip_jpeg)
{
    const char *dir = tu_tmpdir();
    gpuimg_config cfg;
    gpuimg_config_init(&cfg);
    cfg.backend = GPUIMG_BACKEND_CPU;
    cfg.jpeg_quality = 95;
    gpuimg_ctx *ctx;
    ck_assert_int_eq(gpuimg_ctx_create(&cfg, &ctx), GPUIMG_OK);
    gpuimg_image in, back;
    tu_load(ctx, tu_golden("inputs/photo_257x131_rgb.png"), &in);
    char path[512];
    snprintf(path, sizeof path, "%s/photo.jpg", dir);
    save_ok(ctx, path, &in);
    tu_load(ctx, path, &back);
    ck_assert_int_eq(back.width, in.width);
    ck_assert_int_eq(back.channels, 3);
    double err = 0;
    for (size_t i = 0; i < (size_t)in.width * in.height * 3; i++)
        err += abs((int)back.data[i] - (int)in.data[i]);
    err /= (double)in.width * in.height * 3;
    ck_assert_msg(err < 3.0, "JPEG q95 mean error %.2f", err);
    gpuimg_image_free(&in);
    gpuimg_image_free(&back);
    gpuimg_ctx_destroy(ctx);
}
END_TEST

static void write_png16(const char *path, int w, int h)
{
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
    png_infop info = png_create_info_struct(png);
    png_init_io(png, f);
    png_set_IHDR(png, info, (png_uint_32)w, (png_uint_32)h, 16, PNG_COLOR_TYPE_GRAY,
                 PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_write_info(png, info);
    uint8_t *row = malloc((size_t)w * 2);
    for (int y = 0; y < h; y++) {
        for (int x = 0; x < w; x++) { /* big-endian 16-bit samples */
            unsigned v = (unsigned)(x * 65535 / (w - 1));
            row[2 * x] = (uint8_t)(v >> 8);
            row[2 * x + 1] = (uint8_t)v;
        }
        png_write_row(png, row);
    }
    png_write_end(png, NULL);
    png_destroy_write_struct(&png, &info);
    free(row);
    fclose(f);
}

static int warnings;
static void count_warning(void *user, const char *msg)
{
    (void)user;
    ck_assert_ptr_nonnull(strstr(msg, "16-bit"));
    warnings++;
}

/* A 16-bit PNG stays 16 bits through PNG, PGM and TIFF; written to JPEG it
 * is reduced with one warning however many are written; --depth 8 reads
 * it rounded (not truncated) to 8 bits, silently. */
START_TEST(png16_kept_or_reduced)
{
    const char *dir = tu_tmpdir();
    char path[512], out[512];
    snprintf(path, sizeof path, "%s/deep.png", dir);
    write_png16(path, 300, 2);
    gpuimg_config cfg;
    gpuimg_config_init(&cfg);
    cfg.backend = GPUIMG_BACKEND_CPU;
    cfg.warn = count_warning;
    gpuimg_ctx *ctx;
    ck_assert_int_eq(gpuimg_ctx_create(&cfg, &ctx), GPUIMG_OK);
    gpuimg_image img, back;
    tu_load(ctx, path, &img);
    ck_assert_int_eq(warnings, 0);
    ck_assert_int_eq(img.channels, 1);
    ck_assert_int_eq(img.depth, 16);
    for (int x = 0; x < 300; x++)
        ck_assert_int_eq(((const uint16_t *)img.data)[x], x * 65535 / 299);
    static const char *const deep_formats[] = {"png", "pgm", "tif"};
    for (int f = 0; f < 3; f++) {
        snprintf(out, sizeof out, "%s/again.%s", dir, deep_formats[f]);
        ck_assert_int_eq(gpuimg_save(ctx, out, GPUIMG_FORMAT_NONE, &img), GPUIMG_OK);
        tu_load(ctx, out, &back);
        ck_assert_int_eq(back.depth, 16);
        ck_assert_mem_eq(back.data, img.data, 300 * 2 * 2);
        gpuimg_image_free(&back);
    }
    ck_assert_int_eq(warnings, 0);
    for (int k = 0; k < 2; k++) {
        snprintf(out, sizeof out, "%s/eight%d.jpg", dir, k);
        ck_assert_int_eq(gpuimg_save(ctx, out, GPUIMG_FORMAT_NONE, &img), GPUIMG_OK);
    }
    ck_assert_int_eq(warnings, 1);
    gpuimg_image_free(&img);
    gpuimg_ctx_destroy(ctx);

    cfg.depth = 8;
    ck_assert_int_eq(gpuimg_ctx_create(&cfg, &ctx), GPUIMG_OK);
    tu_load(ctx, path, &img);
    ck_assert_int_eq(img.depth, 8);
    for (int x = 0; x < 300; x++) { /* rounded, not truncated, to 8 bits */
        unsigned v = (unsigned)(x * 65535 / 299);
        ck_assert_int_eq(img.data[x], (int)((v * 255u + 32767u) / 65535u));
    }
    ck_assert_int_eq(warnings, 1);
    gpuimg_image_free(&img);
    gpuimg_ctx_destroy(ctx);
}
END_TEST

/* A PNG of one IHDR claiming w x h, with valid CRCs, and nothing else. */
static size_t png_header_only(uint8_t *buf, uint32_t w, uint32_t h)
{
    static const uint8_t sig[8] = {137, 80, 78, 71, 13, 10, 26, 10};
    uint8_t chunk[25] = {0, 0, 0, 13, 'I', 'H', 'D', 'R'};
    for (int i = 0; i < 4; i++) {
        chunk[8 + i] = (uint8_t)(w >> (24 - 8 * i));
        chunk[12 + i] = (uint8_t)(h >> (24 - 8 * i));
    }
    chunk[16] = 8; /* depth */
    chunk[17] = 2; /* RGB */
    uLong crc = crc32(0, chunk + 4, 17);
    for (int i = 0; i < 4; i++)
        chunk[21 + i] = (uint8_t)(crc >> (24 - 8 * i));
    memcpy(buf, sig, 8);
    memcpy(buf + 8, chunk, 25);
    return 33;
}

/* Makes the kinds of bad input of the issue; shared with the CLI suite. */
void make_bad_inputs(const char *dir)
{
    char path[512];
    size_t len;
    char *png = tu_read_file(tu_golden("inputs/photo_257x131_rgb.png"), &len);
    ck_assert_ptr_nonnull(png);
    snprintf(path, sizeof path, "%s/empty.png", dir);
    tu_write_file(path, "", 0);
    snprintf(path, sizeof path, "%s/truncated.png", dir);
    tu_write_file(path, png, len / 2);
    /* IHDR's CRC (bytes 29-32) altered: the data is fine, the CRC is not */
    png[30] ^= 0x55;
    snprintf(path, sizeof path, "%s/badcrc.png", dir);
    tu_write_file(path, png, len);
    png[30] ^= 0x55;
    /* compressed pixel data altered: the deflate stream breaks */
    char *idat = memmem(png, len, "IDAT", 4);
    ck_assert_ptr_nonnull(idat);
    idat[20] ^= 0x55;
    snprintf(path, sizeof path, "%s/damaged.png", dir);
    tu_write_file(path, png, len);
    free(png);

    uint8_t noise[4096];
    unsigned x = 12345;
    for (size_t i = 0; i < sizeof noise; i++) {
        x = x * 1103515245u + 12345u;
        noise[i] = (uint8_t)(x >> 16);
    }
    snprintf(path, sizeof path, "%s/noise.png", dir);
    tu_write_file(path, noise, sizeof noise);
    uint8_t huge[64];
    snprintf(path, sizeof path, "%s/huge.png", dir);
    tu_write_file(path, huge, png_header_only(huge, 100000, 100000));

    gpuimg_ctx *ctx = tu_ctx();
    gpuimg_image img;
    tu_load(ctx, tu_golden("inputs/photo_257x131_rgb.png"), &img);
    snprintf(path, sizeof path, "%s/good.jpg", dir);
    save_ok(ctx, path, &img);
    gpuimg_image_free(&img);
    gpuimg_ctx_destroy(ctx);
    char *jpg = tu_read_file(path, &len);
    snprintf(path, sizeof path, "%s/truncated.jpg", dir);
    tu_write_file(path, jpg, len * 6 / 10);
    free(jpg);
    snprintf(path, sizeof path, "%s/folder.png", dir);
    ck_assert_int_eq(mkdir(path, 0755), 0);
}

START_TEST(bad_inputs)
{
    static const struct {
        const char *name;
        gpuimg_status st;
        const char *needle;
    } cases[] = {
        {"empty.png", GPUIMG_ERR_DECODE, "empty file"},
        {"truncated.png", GPUIMG_ERR_DECODE, "truncated PNG"},
        {"badcrc.png", GPUIMG_ERR_DECODE, "CRC"},
        {"damaged.png", GPUIMG_ERR_DECODE, "damaged PNG"},
        {"noise.png", GPUIMG_ERR_DECODE, "not a supported image"},
        {"huge.png", GPUIMG_ERR_TOO_LARGE, "100000x100000"},
        {"truncated.jpg", GPUIMG_ERR_DECODE, "truncated JPEG"},
        {"folder.png", GPUIMG_ERR_IO, "is a directory"},
        {"missing.png", GPUIMG_ERR_IO, "No such file"},
    };
    const char *dir = tu_tmpdir();
    make_bad_inputs(dir);
    gpuimg_ctx *ctx = tu_ctx();
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char path[512];
        snprintf(path, sizeof path, "%s/%s", dir, cases[i].name);
        gpuimg_image img;
        gpuimg_status st = gpuimg_load(ctx, path, &img);
        ck_assert_msg(st == cases[i].st, "%s: status %s, expected %s", cases[i].name,
                      gpuimg_strerror(st), gpuimg_strerror(cases[i].st));
        ck_assert_msg(strstr(gpuimg_ctx_error(ctx), cases[i].needle) &&
                          strstr(gpuimg_ctx_error(ctx), cases[i].name),
                      "%s: message '%s' lacks '%s' or the file name", cases[i].name,
                      gpuimg_ctx_error(ctx), cases[i].needle);
        ck_assert_ptr_null(img.data);
    }
    gpuimg_ctx_destroy(ctx);
}
END_TEST

START_TEST(max_pixels)
{
    gpuimg_config cfg;
    gpuimg_config_init(&cfg);
    cfg.backend = GPUIMG_BACKEND_CPU;
    cfg.max_pixels = 257 * 131 - 1;
    gpuimg_ctx *ctx;
    ck_assert_int_eq(gpuimg_ctx_create(&cfg, &ctx), GPUIMG_OK);
    gpuimg_image img;
    ck_assert_int_eq(gpuimg_load(ctx, tu_golden("inputs/photo_257x131_rgb.png"), &img),
                     GPUIMG_ERR_TOO_LARGE);
    ck_assert_ptr_nonnull(strstr(gpuimg_ctx_error(ctx), "--max-pixels"));
    gpuimg_ctx_destroy(ctx);
}
END_TEST

START_TEST(failed_saves_leave_nothing)
{
    const char *dir = tu_tmpdir();
    char path[512], blocker[512];
    gpuimg_ctx *ctx = tu_ctx();
    gpuimg_image img;
    tu_random_image(&img, 8, 8, 3, 1);

    snprintf(path, sizeof path, "%s/out.gif", dir);
    ck_assert_int_eq(gpuimg_save(ctx, path, GPUIMG_FORMAT_NONE, &img), GPUIMG_ERR_FORMAT);
    ck_assert_ptr_nonnull(strstr(gpuimg_ctx_error(ctx), "png, jpg"));

    snprintf(path, sizeof path, "%s/no/such/folder/out.png", dir);
    ck_assert_int_eq(gpuimg_save(ctx, path, GPUIMG_FORMAT_NONE, &img), GPUIMG_ERR_IO);

    /* a parent that is a regular file: unwritable even for root */
    snprintf(blocker, sizeof blocker, "%s/file", dir);
    tu_write_file(blocker, "x", 1);
    snprintf(path, sizeof path, "%s/file/out.png", dir);
    ck_assert_int_eq(gpuimg_save(ctx, path, GPUIMG_FORMAT_NONE, &img), GPUIMG_ERR_IO);

    snprintf(path, sizeof path, "%s/sub.png", dir);
    ck_assert_int_eq(mkdir(path, 0755), 0);
    ck_assert_int_eq(gpuimg_save(ctx, path, GPUIMG_FORMAT_NONE, &img), GPUIMG_ERR_IO);

    ck_assert_int_eq(tu_count_entries(dir), 2); /* "file" and "sub.png" only */
    ck_assert_int_eq(tu_count_entries(path), 0);

    /* an existing file is replaced whole, with ordinary permissions */
    snprintf(path, sizeof path, "%s/keep.png", dir);
    tu_write_file(path, "old", 3);
    save_ok(ctx, path, &img);
    struct stat sb;
    ck_assert_int_eq(stat(path, &sb), 0);
    ck_assert_int_gt(sb.st_size, 3);
    ck_assert_int_ne(sb.st_mode & 0044, 0);
    ck_assert_int_eq(tu_count_entries(dir), 3);
    gpuimg_image_free(&img);
    gpuimg_ctx_destroy(ctx);
}
END_TEST

/* Cut to 60%, the same file is refused as truncated, never padded. */
static void assert_truncation_refused(gpuimg_ctx *ctx, const char *dir, const char *file)
{
    size_t len;
    char *data = tu_read_file(tu_golden(file), &len), path[512];
    ck_assert_ptr_nonnull(data);
    snprintf(path, sizeof path, "%s/cut-%s", dir, strrchr(file, '/') + 1);
    tu_write_file(path, data, len * 6 / 10);
    free(data);
    gpuimg_image img;
    ck_assert_msg(gpuimg_load(ctx, path, &img) == GPUIMG_ERR_DECODE, "%s: cut file accepted", file);
    ck_assert_msg(strstr(gpuimg_ctx_error(ctx), "truncated"), "%s: %s", file,
                  gpuimg_ctx_error(ctx));
}

/* Every cut of 1 to 300 bytes off the end either fails to decode or, where
 * only a trailer went (TGA's footer, GIF's last byte, JPEG's end marker),
 * gives exactly the full file's pixels: never padding or stale memory. */
static void assert_cuts_never_garble(gpuimg_ctx *ctx, const char *dir, const char *file,
                                     const gpuimg_image *full)
{
    size_t len;
    char *data = tu_read_file(tu_golden(file), &len), path[512];
    snprintf(path, sizeof path, "%s/sweep-%s", dir, strrchr(file, '/') + 1);
    for (size_t cut = 1; cut <= 300 && cut < len; cut++) {
        tu_write_file(path, data, len - cut);
        gpuimg_image img;
        if (gpuimg_load(ctx, path, &img) != GPUIMG_OK)
            continue;
        char msg[256];
        ck_assert_msg(tu_images_agree(&img, full, 1, msg, sizeof msg),
                      "%s cut by %zu bytes decoded to other pixels: %s", file, cut, msg);
        gpuimg_image_free(&img);
    }
    free(data);
}

/* Files written by other encoders (tests/golden/formats/, made by Pillow and
 * by hand for PSD) decode to the pixels Pillow reads from them. */
START_TEST(foreign_files)
{
    const char *dir = tu_tmpdir();
    char *list = tu_read_file(tu_golden("formats/formats.tsv"), NULL);
    ck_assert_ptr_nonnull(list);
    gpuimg_ctx *ctx = tu_ctx();
    int n = 0;
    char *save = NULL;
    for (char *line = strtok_r(list, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        char file[256], expected[256], tol[16];
        if (line[0] == '#' || sscanf(line, "%255s %255s %15s", file, expected, tol) != 3)
            continue;
        gpuimg_image got, want;
        tu_load(ctx, tu_golden(file), &got);
        tu_load(ctx, tu_golden(expected), &want);
        /* Pillow's reading of a 16-bit file is at 8 bits: compared at the golden's */
        gpuimg_image narrow;
        ck_assert_int_eq(gpuimg_image_convert_depth(&got, want.depth ? want.depth : 8, &narrow),
                         GPUIMG_OK);
        gpuimg_compare_result r;
        ck_assert_int_eq(gpuimg_compare(ctx, &narrow, &want, NULL, &r, NULL), GPUIMG_OK);
        gpuimg_image_free(&narrow);
        ck_assert_msg(!r.size_differs, "%s: %dx%d", file, got.width, got.height);
        if (strcmp(tol, "exact") == 0)
            ck_assert_msg(r.max_diff == 0, "%s: max_diff %d", file, r.max_diff);
        else
            ck_assert_msg(r.max_diff <= 12 && r.mae <= 1.5, "%s: max_diff %d, mae %.3f", file,
                          r.max_diff, r.mae);
        assert_truncation_refused(ctx, dir, file);
        assert_cuts_never_garble(ctx, dir, file, &got);
        gpuimg_image_free(&got);
        gpuimg_image_free(&want);
        n++;
    }
    ck_assert_int_ge(n, 9);
    free(list);
    gpuimg_ctx_destroy(ctx);
}
END_TEST

/* PGM turns colour into Rec.601 luma; PPM widens gray; both drop alpha. */
START_TEST(pnm_conversions)
{
    const char *dir = tu_tmpdir();
    gpuimg_ctx *ctx = tu_ctx();
    gpuimg_image rgba, gray, back;
    tu_random_image(&rgba, 9, 7, 4, 5);
    tu_random_image(&gray, 9, 7, 1, 6);
    char path[512];
    snprintf(path, sizeof path, "%s/luma.pgm", dir);
    save_ok(ctx, path, &rgba);
    tu_load(ctx, path, &back);
    ck_assert_int_eq(back.channels, 1);
    for (int i = 0; i < 63; i++) {
        const uint8_t *p = rgba.data + 4 * i;
        ck_assert_int_eq(back.data[i], (299 * p[0] + 587 * p[1] + 114 * p[2] + 500) / 1000);
    }
    gpuimg_image_free(&back);
    snprintf(path, sizeof path, "%s/wide.ppm", dir);
    save_ok(ctx, path, &gray);
    tu_load(ctx, path, &back);
    ck_assert_int_eq(back.channels, 3);
    for (int i = 0; i < 63; i++)
        for (int k = 0; k < 3; k++)
            ck_assert_int_eq(back.data[3 * i + k], gray.data[i]);
    gpuimg_image_free(&back);
    gpuimg_image_free(&rgba);
    gpuimg_image_free(&gray);
    gpuimg_ctx_destroy(ctx);
}
END_TEST

START_TEST(format_names)
{
    ck_assert_int_eq(gpuimg_format_from_path("a/b.PNG"), GPUIMG_FORMAT_PNG);
    ck_assert_int_eq(gpuimg_format_from_path("x.jpeg"), GPUIMG_FORMAT_JPEG);
    ck_assert_int_eq(gpuimg_format_from_name("jpg"), GPUIMG_FORMAT_JPEG);
    ck_assert_int_eq(gpuimg_format_from_path("x.pgm"), GPUIMG_FORMAT_PGM);
    ck_assert_int_eq(gpuimg_format_from_path("x.tif"), GPUIMG_FORMAT_TIFF);
    ck_assert_int_eq(gpuimg_format_from_path("x.tiff"), GPUIMG_FORMAT_TIFF);
    ck_assert_int_eq(gpuimg_format_from_path("x.jp2"), GPUIMG_FORMAT_NONE);
    ck_assert_int_eq(gpuimg_format_from_path("x.WebP"), GPUIMG_FORMAT_WEBP);
    ck_assert_int_eq(gpuimg_format_from_path("dir.png/x"), GPUIMG_FORMAT_NONE);
    ck_assert_int_eq(gpuimg_format_from_path("png"), GPUIMG_FORMAT_NONE);
    ck_assert_int_eq(gpuimg_format_from_name("x.png"), GPUIMG_FORMAT_NONE);
    ck_assert_int_eq(gpuimg_format_from_name("pnm"), GPUIMG_FORMAT_NONE); /* read, not written */
    ck_assert_str_eq(gpuimg_format_list(),
                     "png, jpg, jpeg, bmp, tga, ppm, pgm, webp, tif, tiff, jxl, heic, heif, avif");
    ck_assert_str_eq(gpuimg_format_read_list(), "png, jpg, jpeg, bmp, tga, ppm, pgm, webp, tif, "
                                                "tiff, jxl, heic, heif, avif, pnm, gif, psd");
    ck_assert(gpuimg_is_image_path("a/b.GIF"));
    ck_assert(!gpuimg_is_image_path("a/.b.png")); /* hidden: our own temporaries among them */
    ck_assert(!gpuimg_is_image_path("notes.txt"));
    ck_assert(!gpuimg_is_image_path("png"));
    ck_assert_int_eq(gpuimg_format_written_for("x.psd"), GPUIMG_FORMAT_PNG);
    ck_assert_int_eq(gpuimg_format_written_for("d/x.pnm"), GPUIMG_FORMAT_PPM);
    ck_assert_int_eq(gpuimg_format_written_for("x.jpeg"), GPUIMG_FORMAT_JPEG);
    ck_assert_int_eq(gpuimg_format_written_for("x.txt"), GPUIMG_FORMAT_NONE);
    ck_assert_str_eq(gpuimg_format_extension(GPUIMG_FORMAT_JPEG), "jpg");
    ck_assert_ptr_null(gpuimg_format_extension(GPUIMG_FORMAT_NONE));
}
END_TEST

/* The text of help between from and to, lower-cased, or "" when absent. */
static void help_between(const char *help, const char *from, const char *to, char *out, size_t cap)
{
    const char *a = strstr(help, from), *b = a ? strstr(a, to) : NULL;
    size_t n = a && b ? (size_t)(b - a) : 0;
    n = n < cap - 1 ? n : cap - 1;
    for (size_t i = 0; i < n; i++)
        out[i] = (char)tolower((unsigned char)a[i]);
    out[n] = '\0';
}

/* Every row of the format table: its extensions map back to it (any case)
 * and to what it writes; a read-only row is written as a format some row
 * writes; every writable extension round-trips a small image through
 * gpuimg_save, and what was written is recognised as the row's by sniff,
 * read by its probe at its size and loaded back at it; the format lists,
 * 16-bit holding and the help text's format sentences agree with the
 * rows. */
START_TEST(format_table)
{
    gpuimg_ctx *ctx = tu_ctx();
    char *help = NULL, *err = NULL;
    ck_assert_int_eq(tu_run((const char *const[]){tu_bin(), "--help", NULL}, NULL, &help, &err), 0);
    char strip[256], depth[256];
    help_between(help, "EXIF and XMP go into", "outputs)", strip, sizeof strip);
    help_between(help, "v * 257;", "hold 8 bits", depth, sizeof depth);
    ck_assert(strip[0] && depth[0]);
    int rows = 0;
    for (const gpuimg__format *const *f = gpuimg__formats; *f; f++, rows++) {
        const gpuimg__format *r = *f;
        ck_assert_msg(r->name && r->sniff && r->probe && r->decode, "row %d incomplete", rows);
        ck_assert_msg(r->extensions[0].name, "%s: no extension", r->name);
        int writes = 0, reads_only = 0;
        for (size_t k = 0; k < 3 && r->extensions[k].name; k++) {
            const gpuimg__extension *e = &r->extensions[k], *found = NULL;
            char upper[16], path[64];
            for (size_t i = 0; i <= strlen(e->name); i++)
                upper[i] = (char)toupper((unsigned char)e->name[i]);
            ck_assert_ptr_eq(gpuimg__format_of_extension(upper, &found), r);
            ck_assert_ptr_eq(found, e);
            snprintf(path, sizeof path, "d/x.%s", e->name);
            ck_assert(gpuimg_is_image_path(path));
            ck_assert_int_eq(gpuimg_format_from_path(path), e->writes);
            ck_assert(strstr(gpuimg_format_read_list(), e->name));
            if (e->writes == GPUIMG_FORMAT_NONE) {
                reads_only = 1;
                ck_assert_int_eq(gpuimg_format_written_for(path), r->written_as);
                ck_assert_msg(gpuimg__format_writing(r->written_as, NULL), "%s: written as %d",
                              r->name, r->written_as);
                continue;
            }
            writes = 1;
            ck_assert_ptr_eq(gpuimg__format_writing(e->writes, NULL), r);
            ck_assert(strstr(gpuimg_format_list(), e->name));
            ck_assert_int_eq(gpuimg__format_holds_16(e->writes), r->holds_16);
            /* a small image through the writer, and back */
            snprintf(path, sizeof path, "%s/table.%s", tu_tmpdir(), e->name);
            gpuimg_image img, back;
            tu_random_image(&img, 7, 5, 3, (unsigned)rows * 31 + (unsigned)k);
            ck_assert_msg(gpuimg_save(ctx, path, GPUIMG_FORMAT_NONE, &img) == GPUIMG_OK, "%s: %s",
                          path, gpuimg_ctx_error(ctx));
            size_t len;
            char *bytes = tu_read_file(path, &len);
            ck_assert_ptr_eq(gpuimg__sniff((const uint8_t *)bytes, len), r);
            gpuimg_file_info info;
            ck_assert_msg(gpuimg_probe_memory(ctx, bytes, len, path, &info) == GPUIMG_OK, "%s: %s",
                          path, gpuimg_ctx_error(ctx));
            ck_assert_str_eq(info.format, r->name);
            ck_assert_int_eq(info.width, 7);
            ck_assert_int_eq(info.height, 5);
            ck_assert_msg(gpuimg_load_memory(ctx, bytes, len, path, &back) == GPUIMG_OK, "%s: %s",
                          path, gpuimg_ctx_error(ctx));
            ck_assert_int_eq(back.width, 7);
            ck_assert_int_eq(back.height, 5);
            gpuimg_image_free(&back);
            gpuimg_image_free(&img);
            free(bytes);
            unlink(path);
        }
        ck_assert_msg(!writes == !r->encode,
                      "%s: an encoder without a written extension, or "
                      "the reverse",
                      r->name);
        ck_assert_msg(reads_only == (r->written_as != GPUIMG_FORMAT_NONE),
                      "%s: written_as set without a read-only extension, or the reverse", r->name);
        /* --help's --strip and --depth sentences name the rows that carry
         * metadata and the written ones that hold only 8 bits */
        ck_assert_msg(!!strstr(strip, r->name) == (r->meta_write && writes),
                      "%s: help says metadata goes into '%s'", r->name, strip);
        ck_assert_msg(!!strstr(depth, r->name) == (writes && !r->holds_16),
                      "%s: help says '%s' hold 8 bits", r->name, depth);
    }
    ck_assert_int_ge(rows, 9);
    free(help);
    free(err);
    gpuimg_ctx_destroy(ctx);
}
END_TEST

START_TEST(backend_kinds)
{
    static const char *const names[] = {"auto", "cpu", "cuda"};
    for (int k = 0; k < 3; k++) {
        gpuimg_backend_kind kind = (gpuimg_backend_kind)-1;
        ck_assert(gpuimg_backend_from_name(names[k], &kind));
        ck_assert_int_eq(kind, k);
        ck_assert_str_eq(gpuimg_backend_kind_name(kind), names[k]);
    }
    gpuimg_backend_kind kind = GPUIMG_BACKEND_CPU;
    ck_assert(!gpuimg_backend_from_name("gpu", &kind));
    ck_assert(!gpuimg_backend_from_name("CPU", &kind));
    ck_assert_int_eq(kind, GPUIMG_BACKEND_CPU); /* untouched */
    ck_assert_str_eq(gpuimg_backend_kind_name((gpuimg_backend_kind)7), "?");
    gpuimg_config cfg;
    gpuimg_config_init(&cfg);
    ck_assert_int_eq(cfg.backend, GPUIMG_BACKEND_AUTO);
    cfg.backend = (gpuimg_backend_kind)7;
    gpuimg_ctx *ctx = NULL;
    ck_assert_int_eq(gpuimg_ctx_create(&cfg, &ctx), GPUIMG_ERR_USAGE);
    ck_assert_ptr_null(ctx);
}
END_TEST

Suite *io_suite(void)
{
    Suite *s = suite_create("io");
    TCase *tc = tu_tcase("io");
    tcase_add_test(tc, round_trip_lossless);
    tcase_add_test(tc, backend_kinds);
    tcase_add_test(tc, round_trip_jpeg);
    tcase_add_test(tc, png16_kept_or_reduced);
    tcase_add_test(tc, bad_inputs);
    tcase_add_test(tc, max_pixels);
    tcase_add_test(tc, failed_saves_leave_nothing);
    tcase_add_test(tc, foreign_files);
    tcase_add_test(tc, pnm_conversions);
    tcase_add_test(tc, format_names);
    tcase_add_test(tc, format_table);
    suite_add_tcase(s, tc);
    return s;
}
