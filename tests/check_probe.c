/* SPDX-License-Identifier: MIT */
/* `gpuimg info` (gpuimg_probe) against the loader (issue 23, items 8 and
 * 9): a TIFF whose directory follows more than 4 MiB of pixels, a WebP
 * whose EXIF chunk follows its bitstream, an EXIF chunk with JPEG's
 * "Exif\0\0" prefix that must not shift the chunk walk (nor let a chunk
 * header forged in its payload be taken), PNM headers read by one parser,
 * and a file that fails saying one line, not a metadata warning first. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <webp/encode.h>

#include "testutil.h"

#define RUN(out, err, ...)                                                                         \
    tu_run((const char *const[]){tu_bin(), __VA_ARGS__, NULL}, NULL, out, err)

/* The probe of path and its load agree on everything info reports. */
static void assert_probe_is_load(gpuimg_ctx *ctx, const char *path)
{
    gpuimg_file_info f;
    ck_assert_msg(gpuimg_probe(ctx, path, &f) == GPUIMG_OK, "%s: %s", path, gpuimg_ctx_error(ctx));
    gpuimg_image img;
    tu_load(ctx, path, &img);
    ck_assert_int_eq(f.width, img.width);
    ck_assert_int_eq(f.height, img.height);
    ck_assert_int_eq(f.channels, img.channels);
    ck_assert_int_eq(f.depth, gpuimg_image_depth(&img));
    ck_assert_int_eq(f.orientation, img.meta ? img.meta->orientation : 1);
    gpuimg_image_free(&img);
}

static off_t file_size(const char *path)
{
    struct stat sb;
    ck_assert_int_eq(stat(path, &sb), 0);
    return sb.st_size;
}

/* libtiff writes the directory after the pixels: info used to read the
 * first 4 MiB only and called every larger TIFF truncated. */
START_TEST(tiff_over_4mib)
{
    gpuimg_ctx *ctx = tu_ctx();
    static const struct {
        int w, h, c, depth;
    } shapes[] = {{1400, 1100, 3, 8}, {700, 800, 4, 16}};
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
        gpuimg_image img;
        tu_random_image_depth(&img, shapes[i].w, shapes[i].h, shapes[i].c, shapes[i].depth,
                              (unsigned)i + 11);
        char path[512];
        snprintf(path, sizeof path, "%s/big%zu.tif", tu_tmpdir(), i);
        ck_assert_int_eq(gpuimg_save(ctx, path, GPUIMG_FORMAT_NONE, &img), GPUIMG_OK);
        gpuimg_image_free(&img);
        ck_assert_int_gt(file_size(path), (off_t)4 << 20); /* noise does not deflate */
        assert_probe_is_load(ctx, path);
        gpuimg_file_info f;
        ck_assert_int_eq(gpuimg_probe(ctx, path, &f), GPUIMG_OK);
        ck_assert_str_eq(f.format, "tiff");
        ck_assert_int_eq(f.width, shapes[i].w);
        ck_assert_int_eq(f.depth, shapes[i].depth);
        char *out, *err;
        ck_assert_int_eq(RUN(&out, &err, "info", path), 0);
        ck_assert_str_eq(err, "");
        free(out), free(err);
    }
    gpuimg_ctx_destroy(ctx);
}
END_TEST

/* ---- WebP files put together by hand ---- */

static void le32(uint8_t *p, size_t v)
{
    p[0] = (uint8_t)v, p[1] = (uint8_t)(v >> 8), p[2] = (uint8_t)(v >> 16),
    p[3] = (uint8_t)(v >> 24);
}

/* Appends a RIFF chunk (and its pad byte) at *at. */
static void put_chunk(uint8_t *buf, size_t *at, const char *fourcc, const void *body, size_t len)
{
    memcpy(buf + *at, fourcc, 4);
    le32(buf + *at + 4, len);
    memcpy(buf + *at + 8, body, len);
    *at += 8 + len;
    if (len & 1)
        buf[(*at)++] = 0;
}

/* EXIF (its TIFF structure): IFD0 with Orientation o alone; 26 bytes. */
static size_t exif_block(uint8_t *p, int o)
{
    static const uint8_t head[] = {'I', 'I', 42, 0, 8, 0, 0, 0, 1, 0, 0x12, 0x01, 3, 0, 1, 0, 0, 0};
    memcpy(p, head, sizeof head);
    p[18] = (uint8_t)o, p[19] = 0, p[20] = p[21] = 0; /* the value, padded */
    p[22] = p[23] = p[24] = p[25] = 0;                /* no next IFD */
    return 26;
}

static const char XMP[] = "<x:xmpmeta xmlns:x='adobe:ns:meta/'/>";

/* A lossless WebP of a w x h noise image, as libwebp's encoder writes it
 * (RIFF, VP8L); *len its size; WebPFree it. */
static uint8_t *encoded(int w, int h, size_t *len)
{
    gpuimg_image img;
    tu_random_image(&img, w, h, 3, 5);
    uint8_t *out = NULL;
    *len = WebPEncodeLosslessRGB(img.data, w, h, w * 3, &out);
    ck_assert_uint_gt(*len, 20);
    ck_assert_int_eq(memcmp(out + 12, "VP8L", 4), 0);
    gpuimg_image_free(&img);
    return out;
}

/* A VP8X WebP of the w x h bitstream in src, with EXIF (exif_len bytes)
 * after the bitstream and, when xmp, an XMP chunk after it; then tail (raw
 * bytes inside the RIFF). Its size in *len; free it. */
static uint8_t *webp_with_exif(const uint8_t *src, size_t src_len, int w, int h,
                               const uint8_t *exif, size_t exif_len, int xmp, const uint8_t *tail,
                               size_t tail_len, size_t *len)
{
    uint8_t *f = calloc(1, src_len + exif_len + tail_len + 256);
    size_t at = 12;
    memcpy(f, "RIFF\0\0\0\0WEBP", 12);
    uint8_t vp8x[10] = {0x08 | (xmp ? 0x04 : 0)}; /* EXIF and XMP flags */
    vp8x[4] = (uint8_t)(w - 1), vp8x[5] = (uint8_t)((w - 1) >> 8);
    vp8x[7] = (uint8_t)(h - 1), vp8x[8] = (uint8_t)((h - 1) >> 8);
    put_chunk(f, &at, "VP8X", vp8x, sizeof vp8x);
    memcpy(f + at, src + 12, src_len - 12); /* the VP8L chunk, as encoded */
    at += src_len - 12;
    put_chunk(f, &at, "EXIF", exif, exif_len);
    if (xmp)
        put_chunk(f, &at, "XMP ", XMP, strlen(XMP));
    if (tail_len)
        memcpy(f + at, tail, tail_len);
    at += tail_len;
    le32(f + 4, at - 8);
    *len = at;
    return f;
}

static const char *write_temp(const char *name, const void *data, size_t len)
{
    static char path[512];
    snprintf(path, sizeof path, "%s/%s", tu_tmpdir(), name);
    tu_write_file(path, data, len);
    return path;
}

/* libwebpmux writes EXIF after the bitstream; info read it only when it
 * fell within its first 4 MiB. Orientation 6: the size read turned. */
START_TEST(webp_exif_after_bitstream)
{
    gpuimg_ctx *ctx = tu_ctx();
    /* over 4 MiB of bitstream before the EXIF chunk */
    size_t src_len;
    uint8_t *src = encoded(1400, 1100, &src_len);
    ck_assert_uint_gt(src_len, (size_t)4 << 20);
    uint8_t exif[32];
    size_t exif_len = exif_block(exif, 6), len;
    uint8_t *f = webp_with_exif(src, src_len, 1400, 1100, exif, exif_len, 0, NULL, 0, &len);
    const char *path = write_temp("late_exif.webp", f, len);
    gpuimg_file_info info;
    ck_assert_int_eq(gpuimg_probe(ctx, path, &info), GPUIMG_OK);
    ck_assert_str_eq(info.format, "webp");
    ck_assert_int_eq(info.orientation, 6);
    ck_assert_int_eq(info.stored_width, 1400);
    ck_assert_int_eq(info.width, 1100); /* turned, as the loader turns it */
    ck_assert_int_eq(info.height, 1400);
    ck_assert_uint_eq(info.exif_bytes, exif_len);
    assert_probe_is_load(ctx, path);
    char *out, *err;
    ck_assert_int_eq(RUN(&out, &err, "info", path), 0);
    ck_assert_msg(strstr(out, "1100x1400 (stored 1400x1100, orientation 6)"), "%s", out);
    free(out), free(err);
    free(f);
    WebPFree(src);
    gpuimg_ctx_destroy(ctx);
}
END_TEST

/* An EXIF payload with JPEG's "Exif\0\0" prefix: the walk goes on by the
 * chunk's declared size (the XMP after it found), the prefix stripped
 * from the EXIF kept, and a chunk header forged in the payload's last
 * bytes, where a walk 6 bytes short would land, never taken. */
START_TEST(webp_exif_prefix_keeps_the_walk)
{
    gpuimg_ctx *ctx = tu_ctx();
    size_t src_len, len;
    uint8_t *src = encoded(5, 3, &src_len);
    /* "Exif\0\0", the TIFF block, filler, then "ICCP" and its length's low
     * bytes as the payload's last 6 */
    uint8_t exif[64] = {'E', 'x', 'i', 'f', 0, 0};
    size_t n = 6 + exif_block(exif + 6, 6);
    memset(exif + n, 0xAB, 8);
    n += 8;
    memcpy(exif + n, "ICCP\x04\x00", 6);
    n += 6;
    for (int xmp = 0; xmp <= 1; xmp++) {
        /* without XMP: the forged header's last two bytes and its body
         * follow in the RIFF, as a short walk would read them */
        static const uint8_t tail[] = {0, 0, 'E', 'V', 'I', 'L', 0, 0};
        uint8_t *f =
            webp_with_exif(src, src_len, 5, 3, exif, n, xmp, tail, xmp ? 0 : sizeof tail, &len);
        const char *path = write_temp(xmp ? "prefix_xmp.webp" : "prefix_forged.webp", f, len);
        gpuimg_file_info info;
        ck_assert_int_eq(gpuimg_probe(ctx, path, &info), GPUIMG_OK);
        ck_assert_int_eq(info.orientation, 6);
        ck_assert_int_eq(info.width, 3);
        ck_assert_uint_eq(info.exif_bytes, n - 6); /* the prefix is not EXIF */
        ck_assert_uint_eq(info.icc_bytes, 0);      /* nothing forged taken */
        ck_assert_uint_eq(info.xmp_bytes, xmp ? strlen(XMP) : 0);
        assert_probe_is_load(ctx, path);
        gpuimg_image img;
        tu_load(ctx, path, &img);
        ck_assert_ptr_nonnull(img.meta);
        ck_assert_ptr_null(img.meta->icc);
        ck_assert_uint_eq(img.meta->xmp_len, xmp ? strlen(XMP) : 0);
        ck_assert_int_eq(memcmp(img.meta->exif, "II*", 3), 0);
        gpuimg_image_free(&img);
        free(f);
    }
    /* an odd-sized prefixed payload: its pad byte skipped, the XMP found */
    uint8_t *f = webp_with_exif(src, src_len, 5, 3, exif, n - 1, 1, NULL, 0, &len);
    const char *path = write_temp("odd.webp", f, len);
    gpuimg_file_info info;
    ck_assert_int_eq(gpuimg_probe(ctx, path, &info), GPUIMG_OK);
    ck_assert_uint_eq(info.xmp_bytes, strlen(XMP));
    ck_assert_uint_eq(info.exif_bytes, n - 7);
    assert_probe_is_load(ctx, path);
    free(f);
    WebPFree(src);
    gpuimg_ctx_destroy(ctx);
}
END_TEST

/* ---- PNM: one header parser for info and the loader ---- */

static void assert_pnm_agrees(gpuimg_ctx *ctx, const char *head, size_t raster, int ok)
{
    size_t hl = strlen(head), len = hl + raster;
    uint8_t *file = malloc(len + 1);
    memcpy(file, head, hl);
    memset(file + hl, '1', raster); /* digits and in range for a plain file's maxval */
    for (size_t i = 1; i < raster; i += 2)
        file[hl + i] = ' ';
    gpuimg_file_info f;
    gpuimg_image img;
    gpuimg_status probed = gpuimg_probe_memory(ctx, file, len, "t.pnm", &f);
    char why[512];
    snprintf(why, sizeof why, "%s", gpuimg_ctx_error(ctx));
    gpuimg_status loaded = gpuimg_load_memory(ctx, file, len, "t.pnm", &img);
    ck_assert_msg((probed == GPUIMG_OK) == ok && (loaded == GPUIMG_OK) == ok,
                  "'%s': probe %s (%s), load %s (%s)", head, gpuimg_strerror(probed), why,
                  gpuimg_strerror(loaded), gpuimg_ctx_error(ctx));
    ck_assert_int_eq(probed, loaded);
    if (ok) {
        ck_assert_int_eq(f.width, img.width);
        ck_assert_int_eq(f.height, img.height);
        ck_assert_int_eq(f.channels, img.channels);
        ck_assert_int_eq(f.depth, gpuimg_image_depth(&img));
        gpuimg_image_free(&img);
    } else {
        ck_assert_str_eq(why, gpuimg_ctx_error(ctx)); /* the same reason */
    }
    /* and as a file, through gpuimg_probe and gpuimg_load */
    const char *path = write_temp("h.pnm", file, len);
    ck_assert_int_eq(gpuimg_probe(ctx, path, &f) == GPUIMG_OK, ok);
    if (ok)
        assert_probe_is_load(ctx, path);
    free(file);
}

START_TEST(pnm_headers_agree)
{
    gpuimg_ctx *ctx = tu_ctx();
    assert_pnm_agrees(ctx, "P6\n# c\n 3\t2\r\n255\n", 18, 1);
    assert_pnm_agrees(ctx, "P5 #x\n2\v2\f255 ", 4, 1); /* \v and \f are whitespace too */
    assert_pnm_agrees(ctx, "P5\n# a\r# b\n2 2\n# c\n65535\t", 8, 1);
    assert_pnm_agrees(ctx, "P2\n2 1\n#c\r1000\n", 3, 1);
    assert_pnm_agrees(ctx, "P3\n1\n1\n7\n", 5, 1);
    assert_pnm_agrees(ctx, "P6 3 2 255", 0, 0);       /* no whitespace after maxval */
    assert_pnm_agrees(ctx, "P6 3 2 255\n", 17, 0);    /* a byte short */
    assert_pnm_agrees(ctx, "P6 3 2 0\n", 18, 0);      /* maxval 0 */
    assert_pnm_agrees(ctx, "P5 1 1 255x", 1, 0);      /* not whitespace after maxval */
    assert_pnm_agrees(ctx, "P5 1 1 70000\n", 2, 0);   /* maxval over 65535 */
    assert_pnm_agrees(ctx, "P6 70000 1 255\n", 3, 0); /* a side over 65535 */
    assert_pnm_agrees(ctx, "P6 3 # 2 255\n", 0, 0);   /* the comment ate the height */
    assert_pnm_agrees(ctx, "P5 -1 1 255\n", 1, 0);
    assert_pnm_agrees(ctx, "P5 99999999999 1 255\n", 1, 0);
    gpuimg_ctx_destroy(ctx);
}
END_TEST

/* ---- one line for a file that fails ---- */

static int one_line(const char *s)
{
    const char *nl = strchr(s, '\n');
    return nl && nl[1] == '\0' && strncmp(s, "gpuimg: ", 8) == 0;
}

/* Appends a PNG chunk (CRC included) at *at. */
static void png_chunk(uint8_t *buf, size_t *at, const char *type, const uint8_t *data, size_t len);

START_TEST(failed_file_says_one_line)
{
    size_t len;
    uint8_t *png = (uint8_t *)tu_read_file(tu_golden("inputs/rand_12x12_rgb.png"), &len);
    ck_assert_ptr_nonnull(png);
    /* after IHDR an eXIf whose IFD points past its end; the pixels cut short */
    uint8_t *bad = malloc(len + 64);
    size_t at = 33;
    memcpy(bad, png, 33);
    static const uint8_t exif[12] = {'I', 'I', 42, 0, 0xff, 0xff, 0, 0, 1, 2, 3, 4};
    png_chunk(bad, &at, "eXIf", exif, sizeof exif);
    memcpy(bad + at, png + 33, len - 33);
    const char *dir = tu_tmpdir();
    char path[512], cut[512], dst[512];
    snprintf(path, sizeof path, "%s/bad_meta.png", dir);
    tu_write_file(path, bad, at + len - 33);
    snprintf(cut, sizeof cut, "%s/bad_both.png", dir);
    tu_write_file(cut, bad, at + (len - 33) / 2);
    snprintf(dst, sizeof dst, "%s/out.png", dir);
    char *out, *err;
    /* the metadata alone: the image loads, with its warning */
    ck_assert_int_eq(RUN(&out, &err, "invert", path, dst), 0);
    ck_assert_msg(strstr(err, "EXIF (malformed") && one_line(err), "%s", err);
    free(out), free(err);
    /* the pixels too: the error alone */
    ck_assert_int_eq(RUN(&out, &err, "invert", cut, dst), 3);
    ck_assert_msg(one_line(err) && strstr(err, "bad_both.png") && !strstr(err, "warning"), "%s",
                  err);
    free(out), free(err);
    /* a WebP: EXIF that does not parse, a bitstream cut short */
    size_t src_len, wlen;
    uint8_t *src = encoded(64, 64, &src_len);
    uint8_t *f = webp_with_exif(src, src_len, 64, 64, exif, sizeof exif, 0, NULL, 0, &wlen);
    snprintf(path, sizeof path, "%s/bad_meta.webp", dir);
    tu_write_file(path, f, wlen);
    ck_assert_int_eq(RUN(&out, &err, "invert", path, dst), 0);
    ck_assert_msg(strstr(err, "EXIF (malformed") && one_line(err), "%s", err);
    free(out), free(err);
    /* the VP8L chunk's body cut inside, the chunks after it kept whole */
    size_t vp8l = 12 + 18, keep = 40;
    uint8_t *short_f = malloc(wlen);
    memcpy(short_f, f, vp8l + 8 + keep);
    le32(short_f + vp8l + 4, keep);
    size_t tail_at = vp8l + 8 + (src_len - 20); /* after the VP8L chunk and its pad */
    size_t rest = wlen - tail_at;
    memcpy(short_f + vp8l + 8 + keep, f + tail_at, rest);
    size_t slen = vp8l + 8 + keep + rest;
    le32(short_f + 4, slen - 8);
    snprintf(cut, sizeof cut, "%s/bad_both.webp", dir);
    tu_write_file(cut, short_f, slen);
    ck_assert_int_eq(RUN(&out, &err, "invert", cut, dst), 3);
    ck_assert_msg(one_line(err) && strstr(err, "bad_both.webp") && !strstr(err, "warning"), "%s",
                  err);
    free(out), free(err);
    /* a JPEG: the same EXIF in APP1 (said once, not once when its markers
     * are read and again when it decodes), then its scan cut short */
    size_t jlen;
    uint8_t *jpg = (uint8_t *)tu_read_file(tu_golden("inputs/oriented_1.jpg"), &jlen);
    ck_assert_ptr_nonnull(jpg);
    uint8_t *jbad = malloc(jlen + 64);
    static const uint8_t app1[4] = {0xff, 0xe1, 0, 2 + 6 + sizeof exif};
    memcpy(jbad, jpg, 2);
    memcpy(jbad + 2, app1, 4);
    memcpy(jbad + 6, "Exif\0\0", 6);
    memcpy(jbad + 12, exif, sizeof exif);
    size_t head = 12 + sizeof exif;
    memcpy(jbad + head, jpg + 2, jlen - 2);
    snprintf(path, sizeof path, "%s/bad_meta.jpg", dir);
    tu_write_file(path, jbad, head + jlen - 2);
    ck_assert_int_eq(RUN(&out, &err, "invert", path, dst), 0);
    ck_assert_msg(strstr(err, "EXIF (malformed") && one_line(err), "%s", err);
    free(out), free(err);
    snprintf(cut, sizeof cut, "%s/bad_both.jpg", dir);
    tu_write_file(cut, jbad, head + (jlen - 2) * 2 / 3);
    ck_assert_int_eq(RUN(&out, &err, "invert", cut, dst), 3);
    ck_assert_msg(one_line(err) && strstr(err, "bad_both.jpg") && !strstr(err, "warning"), "%s",
                  err);
    free(out), free(err);
    free(jbad), free(jpg);
    free(short_f), free(f), free(bad), free(png);
    WebPFree(src);
}
END_TEST

static void png_chunk(uint8_t *buf, size_t *at, const char *type, const uint8_t *data, size_t len)
{
    /* CRC-32 (PNG's, of the type and the data), bit by bit: a few bytes */
    uint8_t *p = buf + *at;
    p[0] = (uint8_t)(len >> 24), p[1] = (uint8_t)(len >> 16), p[2] = (uint8_t)(len >> 8);
    p[3] = (uint8_t)len;
    memcpy(p + 4, type, 4);
    memcpy(p + 8, data, len);
    uint32_t crc = 0xffffffffu;
    for (size_t i = 4; i < 8 + len; i++) {
        crc ^= p[i];
        for (int k = 0; k < 8; k++)
            crc = crc & 1 ? (crc >> 1) ^ 0xedb88320u : crc >> 1;
    }
    crc ^= 0xffffffffu;
    p[8 + len] = (uint8_t)(crc >> 24), p[9 + len] = (uint8_t)(crc >> 16);
    p[10 + len] = (uint8_t)(crc >> 8), p[11 + len] = (uint8_t)crc;
    *at += 12 + len;
}

/* info reads standard input whole ("-"), as the loader does. */
START_TEST(info_from_stdin)
{
    const char *args[] = {tu_bin(), "info", "-", NULL};
    char *out, *err;
    ck_assert_int_eq(tu_run(args, tu_golden("inputs/rand_31x29_ga.png"), &out, &err), 0);
    ck_assert_msg(strstr(out, "31x29"), "%s%s", out, err);
    free(out), free(err);
}
END_TEST

Suite *probe_suite(void)
{
    Suite *s = suite_create("probe");
    TCase *tc = tu_tcase("probe");
    tcase_add_test(tc, tiff_over_4mib);
    tcase_add_test(tc, webp_exif_after_bitstream);
    tcase_add_test(tc, webp_exif_prefix_keeps_the_walk);
    tcase_add_test(tc, pnm_headers_agree);
    tcase_add_test(tc, failed_file_says_one_line);
    tcase_add_test(tc, info_from_stdin);
    suite_add_tcase(s, tc);
    return s;
}
