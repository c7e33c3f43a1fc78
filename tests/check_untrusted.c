/* SPDX-License-Identifier: MIT */
/* Untrusted files and arguments: one regression test for each class of
 * finding of the fuzzing round (the issue "Untrusted images"), each failing
 * on the code before the fix. A file is decoded by the one decoder its own
 * signature names, only after its header has been checked against the
 * file; nothing a decoder did not write reaches an output; names are
 * printed on one line whatever they hold; numbers are read whole. */
#define _GNU_SOURCE /* memmem */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
/* jpeglib.h needs stdio.h first */
#include <jpeglib.h>

#include <tiffio.h>
#include <zlib.h>

#include "io/io.h"
#include "testutil.h"

static gpuimg_status load_bytes(gpuimg_ctx *ctx, const void *data, size_t len, gpuimg_image *img)
{
    return gpuimg_load_memory(ctx, data, len, "test-file", img);
}

/* Decoding fails with status st and a message holding needle. */
static void assert_refused(gpuimg_ctx *ctx, const void *data, size_t len, gpuimg_status st,
                           const char *needle, const char *what)
{
    gpuimg_image img;
    gpuimg_status got = load_bytes(ctx, data, len, &img);
    ck_assert_msg(got == st, "%s: status %s (%s), expected %s", what, gpuimg_strerror(got),
                  got == GPUIMG_OK ? "decoded" : gpuimg_ctx_error(ctx), gpuimg_strerror(st));
    ck_assert_msg(strstr(gpuimg_ctx_error(ctx), needle), "%s: '%s' lacks '%s'", what,
                  gpuimg_ctx_error(ctx), needle);
    ck_assert_ptr_null(img.data);
}

/* 1. A binary PGM whose header comment ends with a carriage return, short
 * of its raster: stb read it with the pixels it lacked uninitialised. */
START_TEST(pnm_comment_ending_in_cr_truncated)
{
    gpuimg_ctx *ctx = tu_ctx();
    /* over stb's 128-byte read buffer, so that its last read comes up short
     * rather than empty (an empty one it did notice) */
    static const char head[] = "P5\n# written by a scanner\r16 16\n255\n";
    uint8_t file[300];
    size_t h = strlen(head);
    memcpy(file, head, h);
    for (int i = 0; i < 256; i++)
        file[h + i] = (uint8_t)(i * 7 + 3);
    for (size_t cut = 1; cut <= 64; cut++)
        assert_refused(ctx, file, h + 256 - cut, GPUIMG_ERR_DECODE, "truncated PNM", "PGM cut");
    gpuimg_image img;
    ck_assert_int_eq(load_bytes(ctx, file, h + 256, &img), GPUIMG_OK);
    ck_assert_int_eq(img.width, 16);
    ck_assert_int_eq(img.channels, 1);
    ck_assert_int_eq(memcmp(img.data, file + h, 256), 0);
    gpuimg_image_free(&img);
    gpuimg_ctx_destroy(ctx);
}
END_TEST

/* ...and in a batch, where those pixels held the previous image's bytes. */
START_TEST(pnm_truncated_in_batch_leaks_nothing)
{
    const char *dir = tu_tmpdir();
    char in[512], out[512], path[600];
    snprintf(in, sizeof in, "%s/in", dir);
    snprintf(out, sizeof out, "%s/out", dir);
    ck_assert_int_eq(mkdir(in, 0755), 0);
    gpuimg_ctx *ctx = tu_ctx();
    gpuimg_image big;
    tu_random_image(&big, 64, 64, 1, 7);
    snprintf(path, sizeof path, "%s/a.pgm", in);
    ck_assert_int_eq(gpuimg_save(ctx, path, GPUIMG_FORMAT_NONE, &big), GPUIMG_OK);
    static const char head[] = "P5\n#\r64 64\n255\n";
    uint8_t cut[4096];
    memcpy(cut, head, sizeof head - 1);
    memset(cut + sizeof head - 1, 9, sizeof cut - (sizeof head - 1)); /* 4096 - 15 of 4096 */
    snprintf(path, sizeof path, "%s/b.pgm", in);
    tu_write_file(path, cut, sizeof cut);
    const char *args[] = {tu_bin(), "batch", in, out, "--jobs", "1", "--backend", "cpu", NULL};
    char *err = NULL;
    ck_assert_int_eq(tu_run(args, NULL, NULL, &err), 1);
    ck_assert_msg(strstr(err, "b.pgm") && strstr(err, "truncated PNM"), "%s", err);
    snprintf(path, sizeof path, "%s/b.pgm", out);
    struct stat sb;
    ck_assert_int_ne(stat(path, &sb), 0);
    free(err);
    gpuimg_image_free(&big);
    gpuimg_ctx_destroy(ctx);
}
END_TEST

/* netpbm's grammar: plain and binary, comments, maxvals other than 255
 * scaled, 16 bits reduced with rounding, samples over maxval refused, and
 * every truncation of every kind refused. */
START_TEST(pnm_grammar)
{
    gpuimg_ctx *ctx = tu_ctx();
    gpuimg_image img;
    static const char plain[] = "P3 # plain\n2 1 15\n0 5 15\n15 0 7\n";
    ck_assert_int_eq(load_bytes(ctx, plain, sizeof plain - 1, &img), GPUIMG_OK);
    static const uint8_t want[6] = {0, 85, 255, 255, 0, 119};
    ck_assert_int_eq(img.channels, 3);
    ck_assert_int_eq(memcmp(img.data, want, 6), 0);
    gpuimg_image_free(&img);
    static const char gray[] = "P2\n3 1\n255\n0 128\n7";
    ck_assert_int_eq(load_bytes(ctx, gray, sizeof gray - 1, &img), GPUIMG_OK);
    ck_assert_int_eq(img.data[1], 128);
    ck_assert_int_eq(img.data[2], 7);
    gpuimg_image_free(&img);
    static const uint8_t deep[] = {'P', '5', ' ', '2',  ' ',  '1',  ' ',  '6', '5',
                                   '5', '3', '5', '\n', 0x80, 0x00, 0xFF, 0xFF};
    ck_assert_int_eq(load_bytes(ctx, deep, sizeof deep, &img), GPUIMG_OK);
    ck_assert_int_eq(img.depth, 16); /* maxval 65535: 16 bits, as stored */
    ck_assert_int_eq(((const uint16_t *)img.data)[0], 0x8000);
    ck_assert_int_eq(((const uint16_t *)img.data)[1], 65535);
    gpuimg_image_free(&img);
    static const uint8_t odd[] = {'P', '5', ' ', '1', ' ',  '1',  ' ',
                                  '1', '0', '0', '0', '\n', 0x01, 0xF4};
    ck_assert_int_eq(load_bytes(ctx, odd, sizeof odd, &img), GPUIMG_OK);
    ck_assert_int_eq(img.depth, 16); /* maxval 1000: scaled to 0..65535 */
    ck_assert_int_eq(((const uint16_t *)img.data)[0], (500 * 65535 * 2 + 1000) / 2000);
    gpuimg_image_free(&img);
    static const char over[] = "P5 1 1 100\n\200";
    assert_refused(ctx, over, sizeof over - 1, GPUIMG_ERR_DECODE, "over maxval", "P5 over");
    static const char over_plain[] = "P2 1 1 100\n101\n";
    assert_refused(ctx, over_plain, sizeof over_plain - 1, GPUIMG_ERR_DECODE, "over maxval",
                   "P2 over");
    static const char huge[] = "P6 99999999999 1 255\n";
    assert_refused(ctx, huge, sizeof huge - 1, GPUIMG_ERR_DECODE, "header", "side overflow");
    static const char wide[] = "P6 70000 1 255\n";
    assert_refused(ctx, wide, sizeof wide - 1, GPUIMG_ERR_TOO_LARGE, "70000", "side limit");
    const char *const files[] = {plain, gray};
    for (int f = 0; f < 2; f++) /* every cut short of the last value's digit */
        for (size_t len = 1; len < strlen(files[f]) - (f == 0); len++) {
            gpuimg_status st = load_bytes(ctx, files[f], len, &img);
            ck_assert_msg(st == GPUIMG_ERR_DECODE, "%s cut at %zu: %s", files[f], len,
                          gpuimg_strerror(st));
        }
    for (size_t len = 1; len < sizeof deep; len++)
        ck_assert_int_eq(load_bytes(ctx, deep, len, &img), GPUIMG_ERR_DECODE);
    gpuimg_ctx_destroy(ctx);
}
END_TEST

/* A w x h CMYK (or, asked, YCCK) JPEG at quality 100 from libjpeg, with or
 * without Adobe's APP14 marker (whose values are inverted). */
static uint8_t *cmyk_jpeg(const uint8_t *cmyk, int w, int h, int ycck, int adobe, size_t *len)
{
    struct jpeg_compress_struct c;
    struct jpeg_error_mgr err;
    c.err = jpeg_std_error(&err);
    jpeg_create_compress(&c);
    unsigned char *buf = NULL;
    unsigned long size = 0;
    jpeg_mem_dest(&c, &buf, &size);
    c.image_width = (JDIMENSION)w;
    c.image_height = (JDIMENSION)h;
    c.input_components = 4;
    c.in_color_space = JCS_CMYK;
    jpeg_set_defaults(&c);
    jpeg_set_colorspace(&c, ycck ? JCS_YCCK : JCS_CMYK);
    c.write_Adobe_marker = adobe ? TRUE : FALSE;
    jpeg_set_quality(&c, 100, TRUE);
    for (int i = 0; i < c.num_components; i++)
        c.comp_info[i].h_samp_factor = c.comp_info[i].v_samp_factor = 1;
    jpeg_start_compress(&c, TRUE);
    while (c.next_scanline < c.image_height) {
        JSAMPROW row = (JSAMPROW)(cmyk + (size_t)c.next_scanline * (size_t)w * 4);
        jpeg_write_scanlines(&c, &row, 1);
    }
    jpeg_finish_compress(&c);
    jpeg_destroy_compress(&c);
    *len = size;
    return buf;
}

/* 2. CMYK and YCCK JPEGs through libjpeg-turbo (stb read them with its
 * decoder state uncleared), converted to RGB with and without Adobe's
 * inversion; the expected pixels come from the CMYK values written. */
START_TEST(jpeg_cmyk_through_libjpeg)
{
    enum { W = 48, H = 32 };
    static uint8_t cmyk[W * H * 4];
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            uint8_t *p = cmyk + (y * W + x) * 4;
            p[0] = (uint8_t)(x * 5);
            p[1] = (uint8_t)(y * 7);
            p[2] = (uint8_t)(128 + (x - y));
            p[3] = (uint8_t)(40 + x + y);
        }
    gpuimg_ctx *ctx = tu_ctx();
    for (int ycck = 0; ycck < 2; ycck++)
        for (int adobe = 0; adobe < 2; adobe++) {
            if (ycck && !adobe)
                continue; /* YCCK is only told apart by the Adobe marker */
            size_t len;
            uint8_t *file = cmyk_jpeg(cmyk, W, H, ycck, adobe, &len);
            gpuimg_image img;
            ck_assert_msg(load_bytes(ctx, file, len, &img) == GPUIMG_OK, "%s",
                          gpuimg_ctx_error(ctx));
            ck_assert_int_eq(img.channels, 3);
            int worst = 0;
            for (int i = 0; i < W * H; i++) {
                const uint8_t *p = cmyk + 4 * i;
                double k = adobe ? p[3] : 255 - p[3];
                for (int c = 0; c < 3; c++) {
                    double v = adobe ? p[c] : 255 - p[c];
                    int d = abs((int)img.data[3 * i + c] - (int)(v * k / 255 + 0.5));
                    worst = d > worst ? d : worst;
                }
            }
            ck_assert_msg(worst <= 6, "ycck %d adobe %d: off by %d", ycck, adobe, worst);
            gpuimg_image_free(&img);
            free(file);
        }
    gpuimg_ctx_destroy(ctx);
}
END_TEST

/* The first byte past a marker's two-byte length, or NULL. */
static uint8_t *marker(uint8_t *file, size_t len, uint8_t code)
{
    for (size_t i = 2; i + 4 < len; i++)
        if (file[i] == 0xFF && file[i + 1] == code)
            return file + i + 4;
    return NULL;
}

/* A CMYK scan naming a Huffman table that was never defined: stb decoded
 * garbage (or crashed); libjpeg says so. */
START_TEST(jpeg_cmyk_undefined_huffman_table)
{
    uint8_t cmyk[16 * 16 * 4];
    memset(cmyk, 90, sizeof cmyk);
    size_t len;
    uint8_t *file = cmyk_jpeg(cmyk, 16, 16, 0, 1, &len);
    uint8_t *sos = marker(file, len, 0xDA);
    ck_assert_ptr_nonnull(sos);
    sos[2] = 0x33; /* the first component's DC and AC tables: number 3 */
    gpuimg_ctx *ctx = tu_ctx();
    assert_refused(ctx, file, len, GPUIMG_ERR_DECODE, "damaged JPEG", "undefined table");
    gpuimg_ctx_destroy(ctx);
    free(file);
}
END_TEST

/* Sides over libjpeg's 65500 pixels: refused both ways with a message that
 * says why (stb read and wrote them before). */
START_TEST(jpeg_sides_over_65500_refused)
{
    gpuimg_ctx *ctx = tu_ctx();
    gpuimg_image img;
    tu_random_image(&img, 16, 8, 3, 3);
    char path[600], dir[512];
    snprintf(dir, sizeof dir, "%s", tu_tmpdir());
    snprintf(path, sizeof path, "%s/small.jpg", dir);
    ck_assert_int_eq(gpuimg_save(ctx, path, GPUIMG_FORMAT_NONE, &img), GPUIMG_OK);
    gpuimg_image_free(&img);
    size_t len;
    uint8_t *file = (uint8_t *)tu_read_file(path, &len);
    uint8_t *sof = marker(file, len, 0xC0);
    ck_assert_ptr_nonnull(sof);
    sof[3] = 0xFF; /* width 65535 (height 8) */
    sof[4] = 0xFF;
    assert_refused(ctx, file, len, GPUIMG_ERR_TOO_LARGE, "65500", "wide JPEG");
    free(file);
    ck_assert_int_eq(gpuimg_image_alloc(&img, 65501, 2, 1), GPUIMG_OK);
    memset(img.data, 7, 65501 * 2);
    snprintf(path, sizeof path, "%s/wide.jpg", dir);
    ck_assert_int_eq(gpuimg_save(ctx, path, GPUIMG_FORMAT_NONE, &img), GPUIMG_ERR_TOO_LARGE);
    ck_assert_ptr_nonnull(strstr(gpuimg_ctx_error(ctx), "65500"));
    ck_assert_int_eq(tu_count_entries(dir), 1);
    gpuimg_image_free(&img);
    gpuimg_ctx_destroy(ctx);
}
END_TEST

/* 3. Formats SPEC does not list never reach a decoder, whatever the file
 * is called: a Softimage PIC (stb crashed: CVE-2023-43898), a truncated RLE
 * Radiance HDR (stb hung: CVE-2021-42715), PBM and PAM. */
static size_t softimage_pic(uint8_t *f)
{
    memset(f, 0, 120);
    static const uint8_t magic[4] = {0x53, 0x80, 0xF6, 0x34};
    memcpy(f, magic, 4);
    memcpy(f + 88, "PICT", 4);
    f[89 + 3] = 0; /* width and height 1 at 92..95 */
    f[93] = 1;
    f[95] = 1;
    f[104] = 0; /* channel packets: one, with chained 0 and no channels */
    return 120;
}

START_TEST(unlisted_formats_unreachable)
{
    uint8_t pic[120];
    size_t pic_len = softimage_pic(pic);
    static const char hdr[] = "#?RADIANCE\nFORMAT=32-bit_rle_rgbe\n\n-Y 8 +X 64\n\002\002\000\100";
    static const char pbm[] = "P4 8 1\n\377";
    static const char pam[] = "P7\nWIDTH 1\nHEIGHT 1\nDEPTH 1\nMAXVAL 255\nENDHDR\n\001";
    const struct {
        const char *name;
        const void *data;
        size_t len;
    } files[] = {{"pic.tga", pic, pic_len},
                 {"hdr.png", hdr, sizeof hdr - 1},
                 {"bitmap.pgm", pbm, sizeof pbm - 1},
                 {"arbitrary.ppm", pam, sizeof pam - 1}};
    const char *dir = tu_tmpdir();
    char in[512], out[512];
    snprintf(in, sizeof in, "%s/in", dir);
    snprintf(out, sizeof out, "%s/out", dir);
    ck_assert_int_eq(mkdir(in, 0755), 0);
    gpuimg_ctx *ctx = tu_ctx();
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        assert_refused(ctx, files[i].data, files[i].len, GPUIMG_ERR_DECODE, "unknown format",
                       files[i].name);
        char path[600];
        snprintf(path, sizeof path, "%s/%s", in, files[i].name);
        tu_write_file(path, files[i].data, files[i].len);
    }
    /* A batch of them and one good image: each refused, the good one done,
     * and the summary printed (the PIC file took the process down before). */
    gpuimg_image img;
    tu_random_image(&img, 5, 5, 3, 1);
    char path[600];
    snprintf(path, sizeof path, "%s/good.png", in);
    ck_assert_int_eq(gpuimg_save(ctx, path, GPUIMG_FORMAT_NONE, &img), GPUIMG_OK);
    gpuimg_image_free(&img);
    const char *args[] = {tu_bin(), "batch", in, out, "invert", "--backend", "cpu", NULL};
    char *err = NULL;
    ck_assert_int_eq(tu_run(args, NULL, NULL, &err), 1);
    ck_assert_msg(strstr(err, "1 processed, 4 failed"), "%s", err);
    free(err);
    ck_assert_int_eq(tu_count_entries(out), 1);
    gpuimg_ctx_destroy(ctx);
}
END_TEST

static void put16(uint8_t *p, unsigned v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}

static void put32(uint8_t *p, unsigned v)
{
    put16(p, v & 0xFFFF);
    put16(p + 2, v >> 16);
}

/* An 8-bit 4x2 BMP with a two-entry palette and the given indices. */
static size_t bmp8(uint8_t *f, const uint8_t idx[8])
{
    memset(f, 0, 70);
    f[0] = 'B';
    f[1] = 'M';
    put32(f + 2, 70);
    put32(f + 10, 62); /* 14 + 40 + 2 palette entries of 4 */
    put32(f + 14, 40);
    put32(f + 18, 4);
    put32(f + 22, 2);
    put16(f + 26, 1);
    put16(f + 28, 8);
    put32(f + 46, 2);
    static const uint8_t pal[8] = {10, 20, 30, 0, 200, 150, 100, 0};
    memcpy(f + 54, pal, 8);
    memcpy(f + 62, idx, 8);
    return 70;
}

/* 4. What a header claims is checked against the file before a decoder
 * allocates: a GIF of a few dozen bytes claiming 30000 x 30000 (3.6 GB for
 * stb's buffers), short raw data; and a BMP palette index past its palette
 * (stb read it from an uninitialised stack array). */
START_TEST(headers_checked_before_decoding)
{
    gpuimg_ctx *ctx = tu_ctx();
    uint8_t gif[48] = "GIF89a";
    put16(gif + 6, 30000);
    put16(gif + 8, 30000);
    gif[10] = 0x80; /* a global colour table of 2 entries */
    gif[19] = ',';
    put16(gif + 24, 30000);
    put16(gif + 26, 30000);
    gif[29] = 2; /* LZW minimum code size */
    assert_refused(ctx, gif, sizeof gif, GPUIMG_ERR_DECODE, "more pixels than its data", "GIF");

    uint8_t bmp[70];
    static const uint8_t fine[8] = {0, 1, 1, 0, 1, 0, 0, 1};
    gpuimg_image img;
    ck_assert_int_eq(load_bytes(ctx, bmp, bmp8(bmp, fine), &img), GPUIMG_OK);
    /* bottom-up: the top row is the second of the file, index 1 first */
    static const uint8_t top[6] = {100, 150, 200, 30, 20, 10};
    ck_assert_int_eq(img.channels, 3);
    ck_assert_int_eq(memcmp(img.data, top, 6), 0);
    gpuimg_image_free(&img);
    static const uint8_t past[8] = {0, 1, 1, 0, 1, 0, 200, 1};
    assert_refused(ctx, bmp, bmp8(bmp, past), GPUIMG_ERR_DECODE, "palette index", "BMP index");
    for (size_t cut = 1; cut <= 8; cut++)
        assert_refused(ctx, bmp, bmp8(bmp, fine) - cut, GPUIMG_ERR_DECODE, "truncated BMP",
                       "BMP cut");
    put32(bmp + 10, 60); /* a palette of 1.5 entries */
    assert_refused(ctx, bmp, 70, GPUIMG_ERR_DECODE, "palette", "BMP palette");
    gpuimg_ctx_destroy(ctx);
}
END_TEST

/* A w x 1 RGBA PSD, 8 bits, raw or with each row one PackBits literal run. */
static size_t psd_rgba(uint8_t *f, const uint8_t *planes, int w, int packbits)
{
    static const uint8_t head[26] = {'8', 'B', 'P', 'S', 0, 1, 0, 0, 0, 0, 0, 0, 0,
                                     4,   0,   0,   0,   1, 0, 0, 0, 0, 0, 8, 0, 3};
    memcpy(f, head, 26);
    f[21] = (uint8_t)w;
    memset(f + 26, 0, 12); /* three empty sections */
    size_t at = 38;
    f[at++] = 0;
    f[at++] = (uint8_t)packbits;
    if (!packbits) {
        memcpy(f + at, planes, (size_t)w * 4);
        return at + (size_t)w * 4;
    }
    for (int c = 0; c < 4; c++) { /* row lengths */
        f[at++] = 0;
        f[at++] = (uint8_t)(w + 1);
    }
    for (int c = 0; c < 4; c++) {
        f[at++] = (uint8_t)(w - 1);
        memcpy(f + at, planes + c * w, (size_t)w);
        at += (size_t)w;
    }
    return at;
}

/* PSD is read by the project: stb_image's reader converted out-of-range
 * floats to bytes (undefined; UBSan stopped the fuzzer at once) when it
 * took the white matte off a composite with alpha. */
START_TEST(psd_matte_removed_in_range)
{
    /* R, G, B, A planes of 3 pixels */
    static const uint8_t planes[12] = {200, 10, 255, 200, 10, 255, 200, 10, 255, 128, 128, 0};
    uint8_t f[128];
    gpuimg_ctx *ctx = tu_ctx();
    for (int packbits = 0; packbits < 2; packbits++) {
        gpuimg_image img;
        size_t len = psd_rgba(f, planes, 3, packbits);
        ck_assert_msg(load_bytes(ctx, f, len, &img) == GPUIMG_OK, "%s", gpuimg_ctx_error(ctx));
        ck_assert_int_eq(img.channels, 4);
        /* C = 255 (c - 255 + a) / a, rounded and clamped; a = 0 left alone */
        static const uint8_t want[12] = {145, 145, 145, 128, 0, 0, 0, 128, 255, 255, 255, 0};
        ck_assert_int_eq(memcmp(img.data, want, 12), 0);
        gpuimg_image_free(&img);
        for (size_t cut = 1; cut < len - 38; cut++)
            assert_refused(ctx, f, len - cut, GPUIMG_ERR_DECODE, "PSD", "PSD cut");
    }
    size_t len = psd_rgba(f, planes, 3, 1);
    f[40 + 8] = 1; /* the first row: a run of 2 where the row is 3 wide */
    assert_refused(ctx, f, len, GPUIMG_ERR_DECODE, "does not decode", "PSD row");
    gpuimg_ctx_destroy(ctx);
}
END_TEST

/* 5. Names with control characters are escaped in every message: one bad
 * file cannot forge a line of a batch's output. */
START_TEST(control_characters_escaped)
{
    const char *dir = tu_tmpdir();
    char in[512], out[512], path[700];
    snprintf(in, sizeof in, "%s/in", dir);
    snprintf(out, sizeof out, "%s/out", dir);
    ck_assert_int_eq(mkdir(in, 0755), 0);
    snprintf(path, sizeof path, "%s/x\ngpuimg: batch: 9 processed, 0 failed\r\033[2K.png", in);
    tu_write_file(path, "not an image", 12);
    const char *args[] = {tu_bin(), "batch", in, out, "--backend", "cpu", NULL};
    char *err = NULL;
    ck_assert_int_eq(tu_run(args, NULL, NULL, &err), 1);
    int lines = 0;
    for (const char *p = err; *p; p++)
        lines += *p == '\n';
    ck_assert_msg(lines == 3, "%d lines: %s", lines, err); /* the error, the summary, failed: */
    ck_assert_msg(strstr(err, "x\\ngpuimg: batch: 9 processed, 0 failed\\r\\x1b[2K.png"), "%s",
                  err);
    ck_assert_ptr_null(strchr(err, '\r'));
    ck_assert_ptr_null(strchr(err, '\033'));
    free(err);
    char dst[600];
    snprintf(dst, sizeof dst, "%s/one.png", dir);
    const char *one[] = {tu_bin(), "invert", path, dst, "--backend", "cpu", NULL};
    ck_assert_int_eq(tu_run(one, NULL, NULL, &err), 3);
    ck_assert_msg(strchr(err, '\n') == err + strlen(err) - 1, "%s", err);
    free(err);
}
END_TEST

/* Every number is read whole: no leading space, hex, trailing text, or a
 * value cut to fit a buffer; a K/N shard past int's range is refused. */
START_TEST(numbers_parsed_strictly)
{
    char long_zeros[100];
    memset(long_zeros, '0', 70);
    snprintf(long_zeros + 70, sizeof long_zeros - 70, "1junk");
    /* "A": an image; "B": an output path */
    const char *const bad[][6] = {
        {"blur", "A", "B", "--sigma", " 2"},
        {"blur", "A", "B", "--sigma", "0x2"},
        {"blur", "A", "B", "--sigma", "2 "},
        {"blur", "A", "B", "--sigma", "1e"},
        {"blur", "A", "B", "--sigma", "nan"},
        {"blur", "A", "B", "--sigma", "infinity"},
        {"invert", "A", "B", "--threads", "+"},
        {"compare", "A", "A", "--max-differing", long_zeros},
        {"compare", "A", "A", "--max-differing", "%"},
        {"run", "A", "B", "blur:sigma=0x1"},
    };
    char a[512], b[512];
    snprintf(a, sizeof a, "%s", tu_golden("inputs/photo_257x131_rgb.png"));
    snprintf(b, sizeof b, "%s/o.png", tu_tmpdir());
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        const char *args[8] = {tu_bin()};
        int n = 1;
        for (int k = 0; k < 6 && bad[i][k]; k++)
            args[n++] = strcmp(bad[i][k], "A") == 0   ? a
                        : strcmp(bad[i][k], "B") == 0 ? b
                                                      : bad[i][k];
        char *err = NULL;
        int rc = tu_run(args, NULL, NULL, &err);
        ck_assert_msg(rc == 2, "%s %s '%s': exit %d: %s", bad[i][0], bad[i][3],
                      bad[i][4] ? bad[i][4] : "", rc, err);
        free(err);
    }
    char in[512], out[512];
    snprintf(in, sizeof in, "%s/in", tu_tmpdir());
    snprintf(out, sizeof out, "%s/out", tu_tmpdir());
    ck_assert_int_eq(mkdir(in, 0755), 0);
    const char *const shards[] = {"99999999999/3", "1/99999999999", "-0/2", "1/1", "0/2x", "1.0/2"};
    for (size_t i = 0; i < sizeof shards / sizeof shards[0]; i++) {
        const char *args[] = {tu_bin(), "batch", in, out, "--shard", shards[i], NULL};
        ck_assert_msg(tu_run(args, NULL, NULL, NULL) == 2, "--shard %s", shards[i]);
    }
    const char *ok[] = {tu_bin(), "compare", a, a, "--max-differing", "1e1", NULL};
    ck_assert_int_eq(tu_run(ok, NULL, NULL, NULL), 0);
}
END_TEST

/* An empty folder is an empty batch (qsort was handed NULL before: the
 * sanitizer build failed here). */
START_TEST(empty_folder_is_empty_batch)
{
    char in[512], out[512];
    snprintf(in, sizeof in, "%s/in", tu_tmpdir());
    snprintf(out, sizeof out, "%s/out", tu_tmpdir());
    ck_assert_int_eq(mkdir(in, 0755), 0);
    const char *args[] = {tu_bin(), "batch", in, out, "invert", "--backend", "cpu", NULL};
    char *err = NULL;
    ck_assert_int_eq(tu_run(args, NULL, NULL, &err), 0);
    ck_assert_msg(strstr(err, "0 processed, 0 failed, 0 skipped of 0"), "%s", err);
    free(err);
    ck_assert_int_eq(tu_count_entries(out), 0);
}
END_TEST

/* Fuzzer finding (the metadata seeds): a 302-byte PNG whose iTXt claims
 * 1.8 GB. libpng allocated what the chunk claimed before finding the file
 * short (2 GB of memory for a cut file); chunk lengths are now checked
 * against the file first. The record of it: tests/fuzz/corpus/load. */
START_TEST(png_chunk_longer_than_file)
{
    gpuimg_ctx *ctx = tu_ctx();
    size_t len;
    char path[1024];
    snprintf(path, sizeof path, "%s/../../tests/fuzz/corpus/load/regress-itxt-claims-1.8GB.png",
             tu_golden(""));
    char *data = tu_read_file(path, &len);
    ck_assert_ptr_nonnull(data);
    gpuimg_image img;
    ck_assert_int_eq(gpuimg_load_memory(ctx, data, len, "cut.png", &img), GPUIMG_ERR_DECODE);
    ck_assert_str_eq(gpuimg_ctx_error(ctx), "cut.png: not a supported image (truncated PNG)");
    free(data);
    gpuimg_ctx_destroy(ctx);
}
END_TEST

/* Review findings on the TIFF reader. A JPEG-in-TIFF whose strip's byte
 * count stops inside its entropy-coded data: libjpeg says "Premature end
 * of JPEG file" as a warning, which libtiff passed on as one, and the rows
 * after the cut were made up (flat gray) with exit 0. */
START_TEST(tiff_jpeg_cut_short)
{
    gpuimg_ctx *ctx = tu_ctx();
    char path[1024];
    snprintf(path, sizeof path, "%s/fuzz/corpus/tiff/pil_rgb_jpeg.tif", tu_golden(".."));
    size_t len;
    uint8_t *tif = (uint8_t *)tu_read_file(path, &len);
    ck_assert_ptr_nonnull(tif);
    gpuimg_image img;
    ck_assert_int_eq(gpuimg_load_memory(ctx, tif, len, "whole.tif", &img), GPUIMG_OK);
    gpuimg_image_free(&img);
    /* IFD0's StripByteCounts (tag 279, one LONG): to 60% of itself */
    uint32_t ifd = tif[4] | tif[5] << 8 | (uint32_t)tif[6] << 16 | (uint32_t)tif[7] << 24;
    int n = tif[ifd] | tif[ifd + 1] << 8, cut = 0;
    for (int i = 0; i < n; i++) {
        uint8_t *e = tif + ifd + 2 + 12 * i;
        if ((e[0] | e[1] << 8) == 279) {
            uint32_t count = e[8] | e[9] << 8 | (uint32_t)e[10] << 16 | (uint32_t)e[11] << 24;
            count = count * 6 / 10;
            e[8] = (uint8_t)count, e[9] = (uint8_t)(count >> 8), e[10] = (uint8_t)(count >> 16);
            e[11] = (uint8_t)(count >> 24);
            cut = 1;
        }
    }
    ck_assert(cut);
    ck_assert_int_eq(gpuimg_load_memory(ctx, tif, len, "cut.tif", &img), GPUIMG_ERR_DECODE);
    ck_assert_msg(strstr(gpuimg_ctx_error(ctx), "cut.tif"), "%s", gpuimg_ctx_error(ctx));
    free(tif);
    gpuimg_ctx_destroy(ctx);
}
END_TEST

/* A 1x1 image in one 2048x2048 tile of 20 samples a pixel: 80 MiB asked
 * for 20 bytes of pixels (the tile's samples and bits were not counted,
 * only its sides). Refused from the tags. */
START_TEST(tiff_tile_bytes_bounded)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/tile.tif", tu_tmpdir());
    TIFF *t = TIFFOpen(path, "w");
    ck_assert_ptr_nonnull(t);
    TIFFSetField(t, TIFFTAG_IMAGEWIDTH, 1);
    TIFFSetField(t, TIFFTAG_IMAGELENGTH, 1);
    TIFFSetField(t, TIFFTAG_SAMPLESPERPIXEL, 20);
    TIFFSetField(t, TIFFTAG_BITSPERSAMPLE, 8);
    TIFFSetField(t, TIFFTAG_PHOTOMETRIC, PHOTOMETRIC_MINISBLACK);
    TIFFSetField(t, TIFFTAG_PLANARCONFIG, PLANARCONFIG_CONTIG);
    TIFFSetField(t, TIFFTAG_COMPRESSION, COMPRESSION_ADOBE_DEFLATE);
    TIFFSetField(t, TIFFTAG_TILEWIDTH, 2048);
    TIFFSetField(t, TIFFTAG_TILELENGTH, 2048);
    size_t tile = (size_t)TIFFTileSize(t);
    ck_assert_uint_eq(tile, (size_t)2048 * 2048 * 20);
    uint8_t *zeros = calloc(1, tile);
    ck_assert_ptr_nonnull(zeros);
    ck_assert_int_ge(TIFFWriteEncodedTile(t, 0, zeros, (tmsize_t)tile), 0);
    free(zeros);
    TIFFClose(t);
    gpuimg_ctx *ctx = tu_ctx();
    gpuimg_image img;
    ck_assert_int_eq(gpuimg_load(ctx, path, &img), GPUIMG_ERR_DECODE);
    ck_assert_msg(strstr(gpuimg_ctx_error(ctx), "83886080-byte tiles"), "%s",
                  gpuimg_ctx_error(ctx));
    gpuimg_ctx_destroy(ctx);
}
END_TEST

/* Fuzzer finding (fuzz_metadata): a PNG whose compressed XMP (iTXt) fails
 * its Adler-32 after inflating. The reader kept the XMP's length with no
 * bytes, and copying the metadata (--depth 16, a run's output) read 58
 * bytes from NULL. The block is dropped whole now, with its warning. */
static const uint8_t xmp_bad_adler[] = {
    0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52,
    0x00, 0x00, 0x00, 0x03, 0x00, 0x00, 0x00, 0x02, 0x08, 0x02, 0x00, 0x00, 0x00, 0x12, 0x16, 0xf1,
    0x4d, 0x00, 0x00, 0x00, 0x1a, 0x65, 0x58, 0x49, 0x66, 0x49, 0x49, 0x2a, 0x00, 0x08, 0x00, 0x00,
    0x00, 0x01, 0x00, 0x12, 0x01, 0x03, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0xbd, 0x8d, 0x18, 0x30, 0x00, 0x00, 0x00, 0x4d, 0x69, 0x54, 0x58, 0x74, 0x58,
    0x4d, 0x4c, 0x3a, 0x63, 0x6f, 0x6d, 0x2e, 0x61, 0x64, 0x6f, 0x62, 0x65, 0x2e, 0x78, 0x6d, 0x70,
    0x00, 0x01, 0x00, 0x00, 0x00, 0x78, 0x9c, 0xb3, 0xa9, 0xb0, 0xaa, 0xc8, 0x2d, 0xc8, 0x4d, 0x2d,
    0x49, 0x54, 0xa8, 0xc8, 0xcd, 0xc9, 0x2b, 0xb6, 0xaa, 0xb0, 0x55, 0x4a, 0x4c, 0xc9, 0x4f, 0x4a,
    0xb5, 0x02, 0xb2, 0x41, 0xc2, 0xfa, 0x4a, 0x76, 0x36, 0x45, 0x29, 0x69, 0x56, 0x41, 0x2e, 0x6e,
    0xfa, 0x76, 0x36, 0xfa, 0x70, 0xe5, 0x76, 0x00, 0x61, 0x93, 0x14, 0xd9, 0x5f, 0x6a, 0xa1, 0x9b,
    0x00, 0x00, 0x00, 0x14, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9c, 0x63, 0x60, 0x60, 0x64, 0x62, 0x66,
    0x61, 0x65, 0x63, 0xe7, 0x80, 0x33, 0x38, 0x01, 0x02, 0x99, 0x00, 0x52, 0xe0, 0x10, 0xb6, 0x80,
    0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4e, 0x44, 0xae, 0x42, 0x60, 0x82,
};

START_TEST(png_xmp_that_does_not_inflate_dropped)
{
    gpuimg_config cfg;
    gpuimg_config_init(&cfg);
    cfg.depth = 16; /* the load copies the metadata into the converted image */
    gpuimg_ctx *ctx;
    ck_assert_int_eq(gpuimg_ctx_create(&cfg, &ctx), GPUIMG_OK);
    gpuimg_image img;
    ck_assert_int_eq(gpuimg_load_memory(ctx, xmp_bad_adler, sizeof xmp_bad_adler, "xmp.png", &img),
                     GPUIMG_OK);
    ck_assert_int_eq(img.width, 3);
    ck_assert_int_eq(gpuimg_image_depth(&img), 16);
    gpuimg_image_free(&img);
    gpuimg_file_info info;
    ck_assert_int_eq(
        gpuimg_probe_memory(ctx, xmp_bad_adler, sizeof xmp_bad_adler, "xmp.png", &info), GPUIMG_OK);
    ck_assert_uint_eq(info.xmp_bytes, 0);
    ck_assert_uint_gt(info.exif_bytes, 0);
    gpuimg_ctx_destroy(ctx);
}
END_TEST

/* Fuzzer finding (fuzz_png, in CI): an RGBA PNG with an empty PLTE chunk.
 * libpng refuses any empty palette ("Invalid palette"), even a colour
 * image's optional hint; the fast reader took it as the hint it skips. It
 * now leaves a hint of other than 1-256 entries to libpng; one that is
 * valid is still skipped, and the pixels are the file's. */
START_TEST(png_empty_palette_hint)
{
    gpuimg_ctx *ctx = tu_ctx();
    char path[1024];
    snprintf(path, sizeof path, "%s/rgba.png", tu_tmpdir());
    gpuimg_image img, got;
    tu_random_image(&img, 13, 7, 4, 5);
    ck_assert_int_eq(gpuimg_save(ctx, path, GPUIMG_FORMAT_NONE, &img), GPUIMG_OK);
    size_t len;
    uint8_t *png = (uint8_t *)tu_read_file(path, &len);
    ck_assert_ptr_nonnull(png);
    static const size_t entries[] = {0, 1, 256, 257};
    for (int k = 0; k < 4; k++) { /* 0 and 1 byte short of an entry; 1 and 256 entries */
        size_t n = k == 1 ? 4 : 3 * entries[k]; /* k 1: 4 bytes, not whole entries */
        uint8_t *with = malloc(len + 12 + n);
        size_t at = 8 + 25; /* after the signature and IHDR */
        memcpy(with, png, at);
        uint8_t *c = with + at;
        c[0] = (uint8_t)(n >> 24), c[1] = (uint8_t)(n >> 16), c[2] = (uint8_t)(n >> 8),
        c[3] = (uint8_t)n;
        memcpy(c + 4, "PLTE", 4);
        for (size_t i = 0; i < n; i++)
            c[8 + i] = (uint8_t)(i * 37);
        uLong crc = crc32(0, c + 4, (uInt)(4 + n));
        c[8 + n] = (uint8_t)(crc >> 24), c[9 + n] = (uint8_t)(crc >> 16),
              c[10 + n] = (uint8_t)(crc >> 8), c[11 + n] = (uint8_t)crc;
        memcpy(c + 12 + n, png + at, len - at);
        gpuimg_status st = gpuimg_load_memory(ctx, with, len + 12 + n, "hint.png", &got);
        if (k == 2) { /* 256 entries: a valid hint, skipped */
            ck_assert_int_eq(st, GPUIMG_OK);
            char msg[256];
            ck_assert_msg(tu_images_agree(&got, &img, 1, msg, sizeof msg), "%s", msg);
            gpuimg_image_free(&got);
        } else { /* libpng's verdict, whatever it is, and never the fast reader's pixels */
            gpuimg_image fast;
            memset(&fast, 0, sizeof fast);
            ck_assert_int_le(gpuimg__decode_png_fast(ctx, with, len + 12 + n, &fast), 0);
            if (st == GPUIMG_OK)
                gpuimg_image_free(&got);
            else
                ck_assert_msg(strstr(gpuimg_ctx_error(ctx), "hint.png") != NULL, "%s",
                              gpuimg_ctx_error(ctx));
            if (k == 0)
                ck_assert_int_eq(st, GPUIMG_ERR_DECODE); /* "Invalid palette" */
        }
        free(with);
    }
    free(png);
    gpuimg_image_free(&img);
    gpuimg_ctx_destroy(ctx);
}
END_TEST

/* A TIFF written with libtiff directly: w x h, spp samples of 8 bits,
 * contiguous or separate planes, rows of pixel x y sample s = x*7+y*3+s*50;
 * rows_per_strip rows a strip. */
static void write_tiff(const char *path, uint32_t w, uint32_t h, int spp, int separate,
                       uint32_t rows_per_strip)
{
    TIFF *t = TIFFOpen(path, "w");
    ck_assert_ptr_nonnull(t);
    TIFFSetField(t, TIFFTAG_IMAGEWIDTH, w);
    TIFFSetField(t, TIFFTAG_IMAGELENGTH, h);
    TIFFSetField(t, TIFFTAG_SAMPLESPERPIXEL, (uint16_t)spp);
    TIFFSetField(t, TIFFTAG_BITSPERSAMPLE, (uint16_t)8);
    TIFFSetField(t, TIFFTAG_PHOTOMETRIC, spp >= 3 ? PHOTOMETRIC_RGB : PHOTOMETRIC_MINISBLACK);
    TIFFSetField(t, TIFFTAG_PLANARCONFIG, separate ? PLANARCONFIG_SEPARATE : PLANARCONFIG_CONTIG);
    TIFFSetField(t, TIFFTAG_ROWSPERSTRIP, rows_per_strip);
    TIFFSetField(t, TIFFTAG_COMPRESSION, COMPRESSION_LZW);
    uint8_t *row = malloc((size_t)w * (size_t)spp);
    for (int p = 0; p < (separate ? spp : 1); p++)
        for (uint32_t y = 0; y < h; y++) {
            for (uint32_t x = 0; x < w; x++)
                for (int s = 0; s < (separate ? 1 : spp); s++)
                    row[x * (separate ? 1 : spp) + s] = (uint8_t)(x * 7 + y * 3 + (s + p) * 50);
            ck_assert_int_ge(TIFFWriteScanline(t, row, y, (uint16_t)p), 0);
        }
    free(row);
    TIFFClose(t);
}

START_TEST(tiff_layouts_and_lies)
{
    gpuimg_ctx *ctx = tu_ctx();
    char path[512];
    /* separate planes read as the contiguous file does */
    gpuimg_image planar, contig;
    snprintf(path, sizeof path, "%s/planar.tif", tu_tmpdir());
    write_tiff(path, 29, 13, 3, 1, 4);
    tu_load(ctx, path, &planar);
    snprintf(path, sizeof path, "%s/contig.tif", tu_tmpdir());
    write_tiff(path, 29, 13, 3, 0, 4);
    tu_load(ctx, path, &contig);
    ck_assert_int_eq(planar.channels, 3);
    ck_assert_mem_eq(planar.data, contig.data, 29 * 13 * 3);
    ck_assert_uint_eq(contig.data[(5 * 29 + 4) * 3 + 2], (uint8_t)(4 * 7 + 5 * 3 + 100));
    gpuimg_image_free(&planar);
    gpuimg_image_free(&contig);
    /* a header over 65535 a side, refused before anything is decoded */
    snprintf(path, sizeof path, "%s/wide.tif", tu_tmpdir());
    write_tiff(path, 70000, 1, 1, 0, 1);
    gpuimg_image img;
    ck_assert_int_eq(gpuimg_load(ctx, path, &img), GPUIMG_ERR_TOO_LARGE);
    ck_assert_ptr_nonnull(strstr(gpuimg_ctx_error(ctx), "70000"));
    /* a bomb: a tiny file whose tags claim 30000 x 30000 pixels, refused from its tags */
    uint8_t lie[] = {'I',  'I',  42, 0, 8,    0, 0,    0,    8,    0,    0x00, 0x01,
                     4,    0,    1,  0, 0,    0, 0x30, 0x75, 0,    0,             /* width 30000 */
                     0x01, 0x01, 4,  0, 1,    0, 0,    0,    0x30, 0x75, 0,    0, /* height 30000 */
                     0x02, 0x01, 3,  0, 1,    0, 0,    0,    8,    0,    0,    0, /* 8 bits */
                     0x03, 0x01, 3,  0, 1,    0, 0,    0,    5,    0,    0,    0, /* LZW */
                     0x06, 0x01, 3,  0, 1,    0, 0,    0,    1,    0,    0,    0, /* min-is-black */
                     0x11, 0x01, 4,  0, 1,    0, 0,    0,    110,  0,    0,    0, /* strip at 110 */
                     0x16, 0x01, 4,  0, 1,    0, 0,    0,    0x30, 0x75, 0,    0, /* one strip */
                     0x17, 0x01, 4,  0, 1,    0, 0,    0,    16,   0,    0,    0, /* of 16 bytes */
                     0,    0,    0,  0, 0x80, 0, 0,    0,    0,    0,    0,    0,
                     0,    0,    0,  0, 0,    0, 0,    0};
    ck_assert_int_eq(gpuimg_load_memory(ctx, lie, sizeof lie, "lie.tif", &img), GPUIMG_ERR_DECODE);
    ck_assert_ptr_nonnull(strstr(gpuimg_ctx_error(ctx), "cannot hold its pixels"));
    /* a strip offset past the end of the file: a cut file */
    lie[78] = 0xff, lie[79] = 0x7f; /* StripOffsets, the sixth entry: 10 + 5 * 12 + 8 */
    ck_assert_int_eq(gpuimg_load_memory(ctx, lie, sizeof lie, "lie.tif", &img), GPUIMG_ERR_DECODE);
    ck_assert_ptr_nonnull(strstr(gpuimg_ctx_error(ctx), "truncated TIFF"));
    gpuimg_ctx_destroy(ctx);
}
END_TEST

Suite *untrusted_suite(void)
{
    Suite *s = suite_create("untrusted");
    TCase *tc = tu_tcase("untrusted");
    tcase_add_test(tc, pnm_comment_ending_in_cr_truncated);
    tcase_add_test(tc, pnm_truncated_in_batch_leaks_nothing);
    tcase_add_test(tc, pnm_grammar);
    tcase_add_test(tc, jpeg_cmyk_through_libjpeg);
    tcase_add_test(tc, jpeg_cmyk_undefined_huffman_table);
    tcase_add_test(tc, jpeg_sides_over_65500_refused);
    tcase_add_test(tc, unlisted_formats_unreachable);
    tcase_add_test(tc, headers_checked_before_decoding);
    tcase_add_test(tc, psd_matte_removed_in_range);
    tcase_add_test(tc, control_characters_escaped);
    tcase_add_test(tc, numbers_parsed_strictly);
    tcase_add_test(tc, empty_folder_is_empty_batch);
    tcase_add_test(tc, png_chunk_longer_than_file);
    tcase_add_test(tc, png_empty_palette_hint);
    tcase_add_test(tc, png_xmp_that_does_not_inflate_dropped);
    tcase_add_test(tc, tiff_jpeg_cut_short);
    tcase_add_test(tc, tiff_tile_bytes_bounded);
    tcase_add_test(tc, tiff_layouts_and_lies);
    suite_add_tcase(s, tc);
    return s;
}
