/* SPDX-License-Identifier: MIT */
/* Orientation and metadata (SPEC §2): every EXIF orientation read upright
 * (against Pillow's exif_transpose, tests/golden/expected/oriented.tsv);
 * ICC, EXIF and XMP written into PNG and JPEG and read back by libpng and
 * libjpeg themselves; carried through blur, run and batch; --strip; an RGB
 * profile kept out of a gray output; malformed blocks dropped with a
 * warning, never a failed load. */
#define _GNU_SOURCE /* memmem */
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <jpeglib.h>
#include <png.h>
#include <tiffio.h>
#include <zlib.h>

#include "testutil.h"

#define RUN(out, err, ...)                                                                         \
    tu_run((const char *const[]){tu_bin(), __VA_ARGS__, NULL}, NULL, out, err)

START_TEST(orientations_read_upright)
{
    char *list = tu_read_file(tu_golden("expected/oriented.tsv"), NULL);
    ck_assert_ptr_nonnull(list);
    gpuimg_ctx *ctx = tu_ctx();
    gpuimg_config cfg;
    gpuimg_config_init(&cfg);
    cfg.backend = GPUIMG_BACKEND_CPU;
    cfg.no_auto_orient = 1;
    gpuimg_ctx *raw_ctx;
    ck_assert_int_eq(gpuimg_ctx_create(&cfg, &raw_ctx), GPUIMG_OK);
    int n = 0;
    char *save = NULL;
    for (char *line = strtok_r(list, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        char file[256], expected[256], tol[16];
        if (line[0] == '#' || sscanf(line, "%255s %255s %15s", file, expected, tol) != 3)
            continue;
        int o = file[strlen("inputs/oriented_")] - '0';
        gpuimg_image got, want, raw;
        tu_load(ctx, tu_golden(file), &got);
        tu_load(ctx, tu_golden(expected), &want);
        ck_assert_ptr_nonnull(got.meta);
        ck_assert_int_eq(got.meta->orientation, o);
        ck_assert_int_eq(got.meta->oriented, o > 1);
        gpuimg_compare_result r;
        ck_assert_int_eq(gpuimg_compare(ctx, &got, &want, NULL, &r, NULL), GPUIMG_OK);
        ck_assert_msg(!r.size_differs, "%s: %dx%d upright, %dx%d expected", file, got.width,
                      got.height, want.width, want.height);
        /* the same libjpeg-turbo decodes both: identical pixels for JPEG too */
        ck_assert_msg(r.identical, "%s: max_diff %d", file, r.max_diff);
        /* --no-auto-orient: the stored pixels, the tag left as it was */
        tu_load(raw_ctx, tu_golden(file), &raw);
        ck_assert_int_eq(raw.width, o >= 5 ? got.height : got.width);
        ck_assert_int_eq(raw.meta->orientation, o);
        ck_assert_int_eq(raw.meta->oriented, 0);
        gpuimg_image_free(&raw);
        gpuimg_image_free(&got);
        gpuimg_image_free(&want);
        n++;
    }
    ck_assert_int_eq(n, 32); /* 8 orientations of JPEG, PNG, WebP and TIFF */
    free(list);
    gpuimg_ctx_destroy(ctx);
    gpuimg_ctx_destroy(raw_ctx);
}
END_TEST

/* A little-endian EXIF block: IFD0 with Orientation o and Make "gpuimg". */
static size_t make_exif(uint8_t *b, int o)
{
    static const uint8_t head[8] = {'I', 'I', 42, 0, 8, 0, 0, 0};
    memcpy(b, head, 8);
    b[8] = 2, b[9] = 0; /* two entries */
    uint8_t *e = b + 10;
    /* Make: ASCII, 7 bytes at offset 38 */
    uint8_t make[12] = {0x0f, 0x01, 2, 0, 7, 0, 0, 0, 38, 0, 0, 0};
    uint8_t orient[12] = {0x12, 0x01, 3, 0, 1, 0, 0, 0, (uint8_t)o, 0, 0, 0};
    memcpy(e, make, 12);
    memcpy(e + 12, orient, 12);
    memset(e + 24, 0, 4); /* no next IFD */
    memcpy(b + 38, "gpuimg", 7);
    return 45;
}

/* An ICC profile of n bytes (n >= 132) that libpng's checks accept: a
 * display profile header (RGB or gray data, XYZ connection space, D50), no
 * tags, the rest filler. */
static uint8_t *make_icc(size_t n, int rgb)
{
    uint8_t *p = calloc(n, 1);
    for (size_t i = 132; i < n; i++)
        p[i] = (uint8_t)(i * 31 + 7);
    p[0] = (uint8_t)(n >> 24), p[1] = (uint8_t)(n >> 16), p[2] = (uint8_t)(n >> 8),
    p[3] = (uint8_t)n;
    p[8] = 2, p[9] = 0x10; /* version 2.1 */
    memcpy(p + 12, "mntr", 4);
    memcpy(p + 16, rgb ? "RGB " : "GRAY", 4);
    memcpy(p + 20, "XYZ ", 4);
    memcpy(p + 36, "acsp", 4);
    static const uint8_t d50[12] = {0, 0, 0xF6, 0xD6, 0, 1, 0, 0, 0, 0, 0xD3, 0x2D};
    memcpy(p + 68, d50, 12);
    return p; /* bytes 128-131: no tags */
}

static const char XMP[] = "<x:xmpmeta xmlns:x=\"adobe:ns:meta/\"><rdf:RDF/></x:xmpmeta>";

/* A picture with metadata, as if read from a file (icc_len: > 65519
 * makes JPEG split it over APP2 chunks). */
static void picture_with_metadata(gpuimg_image *img, size_t icc_len)
{
    tu_random_image(img, 40, 30, 3, 77);
    img->meta = calloc(1, sizeof *img->meta);
    img->meta->icc = make_icc(icc_len, 1);
    img->meta->icc_len = icc_len;
    img->meta->exif = malloc(64);
    img->meta->exif_len = make_exif(img->meta->exif, 1);
    img->meta->xmp = (uint8_t *)strdup(XMP);
    img->meta->xmp_len = strlen(XMP);
    img->meta->orientation = 1;
}

struct jerr {
    struct jpeg_error_mgr pub;
    jmp_buf jump;
};

static void jerr_exit(j_common_ptr c)
{
    longjmp(((struct jerr *)c->err)->jump, 1);
}

/* What libjpeg itself finds in a JPEG file's markers. */
static void libjpeg_reads(const char *path, const gpuimg_metadata *want)
{
    FILE *f = fopen(path, "rb");
    ck_assert_ptr_nonnull(f);
    struct jpeg_decompress_struct d;
    struct jerr e;
    d.err = jpeg_std_error(&e.pub);
    e.pub.error_exit = jerr_exit;
    ck_assert_int_eq(setjmp(e.jump), 0);
    jpeg_create_decompress(&d);
    jpeg_stdio_src(&d, f);
    jpeg_save_markers(&d, JPEG_APP0 + 1, 0xffff);
    jpeg_save_markers(&d, JPEG_APP0 + 2, 0xffff);
    jpeg_read_header(&d, TRUE);
    JOCTET *icc = NULL;
    unsigned icc_len = 0;
    ck_assert(jpeg_read_icc_profile(&d, &icc, &icc_len));
    ck_assert_uint_eq(icc_len, want->icc_len);
    ck_assert_mem_eq(icc, want->icc, icc_len);
    free(icc);
    int exif = 0, xmp = 0;
    for (jpeg_saved_marker_ptr m = d.marker_list; m; m = m->next) {
        if (m->marker == JPEG_APP0 + 1 && m->data_length > 6 && !memcmp(m->data, "Exif\0\0", 6)) {
            ck_assert_uint_eq(m->data_length - 6, want->exif_len);
            ck_assert_mem_eq(m->data + 6, want->exif, want->exif_len);
            exif++;
        }
        if (m->marker == JPEG_APP0 + 1 && m->data_length > 29 &&
            !memcmp(m->data, "http://ns.adobe.com/xap/1.0/", 29)) {
            ck_assert_uint_eq(m->data_length - 29, want->xmp_len);
            ck_assert_mem_eq(m->data + 29, want->xmp, want->xmp_len);
            xmp++;
        }
    }
    ck_assert_int_eq(exif, 1);
    ck_assert_int_eq(xmp, 1);
    jpeg_destroy_decompress(&d);
    fclose(f);
}

/* What libpng itself finds in a PNG file's chunks. */
static void libpng_reads(const char *path, const gpuimg_metadata *want)
{
    FILE *f = fopen(path, "rb");
    ck_assert_ptr_nonnull(f);
    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
    png_infop info = png_create_info_struct(png);
    ck_assert_int_eq(setjmp(png_jmpbuf(png)), 0);
    png_init_io(png, f);
    png_read_info(png, info);
    png_charp name;
    int method;
    png_bytep icc;
    png_uint_32 icc_len;
    ck_assert(png_get_iCCP(png, info, &name, &method, &icc, &icc_len));
    ck_assert_uint_eq(icc_len, want->icc_len);
    ck_assert_mem_eq(icc, want->icc, icc_len);
    png_bytep exif;
    png_uint_32 exif_len;
    ck_assert(png_get_eXIf_1(png, info, &exif_len, &exif));
    ck_assert_uint_eq(exif_len, want->exif_len);
    ck_assert_mem_eq(exif, want->exif, exif_len);
    png_textp text;
    int ntext = 0, xmp = 0;
    png_get_text(png, info, &text, &ntext);
    for (int i = 0; i < ntext; i++)
        if (strcmp(text[i].key, "XML:com.adobe.xmp") == 0) {
            ck_assert_uint_eq(text[i].itxt_length, want->xmp_len);
            ck_assert_mem_eq(text[i].text, want->xmp, want->xmp_len);
            xmp++;
        }
    ck_assert_int_eq(xmp, 1);
    png_destroy_read_struct(&png, &info, NULL);
    fclose(f);
}

START_TEST(written_and_read_back)
{
    gpuimg_ctx *ctx = tu_ctx();
    for (int big = 0; big <= 1; big++) {
        gpuimg_image img;
        picture_with_metadata(&img, big ? 150000 : 3000); /* 150000: three APP2 chunks */
        char png[512], jpg[512];
        snprintf(png, sizeof png, "%s/m%d.png", tu_tmpdir(), big);
        snprintf(jpg, sizeof jpg, "%s/m%d.jpg", tu_tmpdir(), big);
        ck_assert_int_eq(gpuimg_save(ctx, png, GPUIMG_FORMAT_NONE, &img), GPUIMG_OK);
        ck_assert_int_eq(gpuimg_save(ctx, jpg, GPUIMG_FORMAT_NONE, &img), GPUIMG_OK);
        libpng_reads(png, img.meta);
        libjpeg_reads(jpg, img.meta);
        for (int k = 0; k < 2; k++) { /* and gpuimg's own reading of them */
            gpuimg_image back;
            tu_load(ctx, k ? jpg : png, &back);
            ck_assert_ptr_nonnull(back.meta);
            ck_assert_uint_eq(back.meta->icc_len, img.meta->icc_len);
            ck_assert_mem_eq(back.meta->icc, img.meta->icc, img.meta->icc_len);
            ck_assert_uint_eq(back.meta->exif_len, img.meta->exif_len);
            ck_assert_uint_eq(back.meta->xmp_len, img.meta->xmp_len);
            gpuimg_image_free(&back);
        }
        gpuimg_image_free(&img);
    }
    gpuimg_ctx_destroy(ctx);
}
END_TEST

/* Reads path's metadata as gpuimg_load does; NULL when it has none. */
static gpuimg_metadata *meta_of(const char *path, int *w, int *h)
{
    gpuimg_ctx *ctx = tu_ctx();
    gpuimg_image img;
    tu_load(ctx, path, &img);
    gpuimg_metadata *m = img.meta;
    img.meta = NULL;
    *w = img.width;
    *h = img.height;
    gpuimg_image_free(&img);
    gpuimg_ctx_destroy(ctx);
    return m;
}

START_TEST(carried_through_commands)
{
    /* a phone-style JPEG: stored sideways (Orientation 6), with a profile */
    gpuimg_ctx *ctx = tu_ctx();
    gpuimg_image img;
    picture_with_metadata(&img, 3000);
    img.meta->exif_len = make_exif(img.meta->exif, 6);
    char in[600], dir[512], outdir[512];
    snprintf(dir, sizeof dir, "%s/in", tu_tmpdir());
    snprintf(outdir, sizeof outdir, "%s/out", tu_tmpdir());
    mkdir(dir, 0777);
    snprintf(in, sizeof in, "%s/phone.jpg", dir);
    ck_assert_int_eq(gpuimg_save(ctx, in, GPUIMG_FORMAT_NONE, &img), GPUIMG_OK);
    gpuimg_ctx_destroy(ctx);
    const char *outs[] = {"blur.jpg", "blur.png", "run.png", "strip.jpg", "gray.png", NULL};
    char path[6][600];
    for (int i = 0; outs[i]; i++)
        snprintf(path[i], sizeof path[i], "%s/%s", tu_tmpdir(), outs[i]);
    char *out, *err;
    ck_assert_int_eq(RUN(&out, &err, "blur", in, path[0]), 0);
    free(out), free(err);
    ck_assert_int_eq(RUN(&out, &err, "blur", in, path[1]), 0);
    free(out), free(err);
    ck_assert_int_eq(RUN(&out, &err, "run", in, path[2], "invert", "rotate:angle=180"), 0);
    free(out), free(err);
    ck_assert_int_eq(RUN(&out, &err, "--strip", "blur", in, path[3]), 0);
    free(out), free(err);
    ck_assert_int_eq(RUN(&out, &err, "grayscale", in, path[4]), 0);
    free(out), free(err);
    ck_assert_int_eq(RUN(&out, &err, "batch", dir, outdir, "blur"), 0);
    free(out), free(err);
    snprintf(path[5], sizeof path[5], "%s/phone.jpg", outdir);
    for (int i = 0; i < 6; i++) {
        int w, h;
        gpuimg_metadata *m = meta_of(path[i], &w, &h);
        ck_assert_msg(w == 30 && h == 40, "%s: %dx%d: not upright", path[i], w, h);
        if (i == 3) { /* --strip */
            ck_assert_ptr_null(m);
            continue;
        }
        ck_assert_msg(m != NULL, "%s: no metadata", path[i]);
        ck_assert_int_eq(m->orientation, 1); /* the pixels are upright now: so says the tag */
        ck_assert_uint_eq(m->xmp_len, strlen(XMP));
        if (i == 4) /* gray: the RGB profile stays behind */
            ck_assert_ptr_null(m->icc);
        else
            ck_assert_uint_eq(m->icc_len, 3000);
        gpuimg_metadata_free(m);
    }
    gpuimg_image_free(&img);
}
END_TEST

/* Appends a PNG chunk into buf at *at. */
static void put_chunk(uint8_t *buf, size_t *at, const char *type, const uint8_t *data, size_t len)
{
    uint8_t *p = buf + *at;
    p[0] = (uint8_t)(len >> 24), p[1] = (uint8_t)(len >> 16), p[2] = (uint8_t)(len >> 8);
    p[3] = (uint8_t)len;
    memcpy(p + 4, type, 4);
    memcpy(p + 8, data, len);
    uLong crc = crc32(crc32(0, p + 4, 4), data, (uInt)len);
    p[8 + len] = (uint8_t)(crc >> 24), p[9 + len] = (uint8_t)(crc >> 16);
    p[10 + len] = (uint8_t)(crc >> 8), p[11 + len] = (uint8_t)crc;
    *at += 12 + len;
}

START_TEST(malformed_blocks_are_dropped)
{
    size_t len;
    uint8_t *png = (uint8_t *)tu_read_file(tu_golden("inputs/rand_12x12_rgb.png"), &len);
    ck_assert_ptr_nonnull(png);
    /* after IHDR: an eXIf whose IFD points past its end, an iCCP that does not inflate */
    uint8_t *bad = malloc(len + 200);
    size_t at = 33;
    memcpy(bad, png, 33);
    static const uint8_t exif[12] = {'I', 'I', 42, 0, 0xff, 0xff, 0, 0, 1, 2, 3, 4};
    put_chunk(bad, &at, "eXIf", exif, sizeof exif);
    static const uint8_t iccp[16] = {'x', 0, 0, 0x78, 0x9c, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};
    put_chunk(bad, &at, "iCCP", iccp, sizeof iccp);
    memcpy(bad + at, png + 33, len - 33);
    char path[512];
    snprintf(path, sizeof path, "%s/bad_meta.png", tu_tmpdir());
    tu_write_file(path, bad, at + len - 33);
    char *out, *err, dst[600];
    snprintf(dst, sizeof dst, "%s/ok.png", tu_tmpdir());
    ck_assert_int_eq(RUN(&out, &err, "invert", path, dst), 0); /* the pixels still load */
    ck_assert_ptr_nonnull(strstr(err, "EXIF (malformed"));
    ck_assert_ptr_nonnull(strstr(err, "ICC profile"));
    free(out), free(err);
    int w, h;
    ck_assert_ptr_null(meta_of(dst, &w, &h)); /* and nothing unreadable is passed on */
    /* a JPEG whose ICC profile lacks its second APP2 chunk */
    uint8_t *jpg = (uint8_t *)tu_read_file(tu_golden("formats/photo.jpg"), &len);
    ck_assert_ptr_nonnull(jpg);
    uint8_t *cut = malloc(len + 64);
    static const uint8_t app2[] = {0xFF, 0xE2, 0, 24, 'I', 'C', 'C', '_', 'P', 'R', 'O', 'F', 'I',
                                   'L',  'E',  0, 1,  2,   9,   9,   9,   9,   9,   9,   9,   9};
    memcpy(cut, jpg, 2);
    memcpy(cut + 2, app2, sizeof app2);
    memcpy(cut + 2 + sizeof app2, jpg + 2, len - 2);
    snprintf(path, sizeof path, "%s/cut_icc.jpg", tu_tmpdir());
    tu_write_file(path, cut, len + sizeof app2);
    snprintf(dst, sizeof dst, "%s/ok.jpg", tu_tmpdir());
    ck_assert_int_eq(RUN(&out, &err, "invert", path, dst), 0);
    ck_assert_ptr_nonnull(strstr(err, "APP2 chunk is missing"));
    free(out), free(err);
    free(cut);
    free(jpg);
    free(bad);
    free(png);
}
END_TEST

/* The chunks of a PNG file of the given types, before its first IDAT, as
 * they stand (length, type, data; CRCs left out), into out; their bytes. */
static size_t chunks_of(const char *path, const char *const *types, uint8_t *out, size_t cap)
{
    size_t len, at = 8, n = 0;
    uint8_t *d = (uint8_t *)tu_read_file(path, &len);
    ck_assert_ptr_nonnull(d);
    while (at + 12 <= len && memcmp(d + at + 4, "IDAT", 4) != 0) {
        size_t l =
            (size_t)d[at] << 24 | (size_t)d[at + 1] << 16 | (size_t)d[at + 2] << 8 | d[at + 3];
        ck_assert_uint_le(l, len - at - 12);
        for (int i = 0; types[i]; i++)
            if (memcmp(d + at + 4, types[i], 4) == 0) {
                ck_assert_uint_le(n + 8 + l, cap);
                memcpy(out + n, d + at, 8 + l);
                n += 8 + l;
            }
        at += 12 + l;
    }
    free(d);
    return n;
}

/* rand_12x12_rgb.png with chunks put after its IHDR (each given as type
 * and data, a NULL type ending the list), written to tmpdir/name. */
typedef struct {
    const char *type;
    const uint8_t *data;
    size_t len;
} chunk_spec;
static void png_with(const char *name, const chunk_spec *chunks, char *path, size_t cap)
{
    size_t len;
    uint8_t *png = (uint8_t *)tu_read_file(tu_golden("inputs/rand_12x12_rgb.png"), &len);
    ck_assert_ptr_nonnull(png);
    uint8_t *b = malloc(len + 4096);
    size_t at = 33;
    memcpy(b, png, 33);
    for (int i = 0; chunks[i].type; i++)
        put_chunk(b, &at, chunks[i].type, chunks[i].data, chunks[i].len);
    memcpy(b + at, png + 33, len - 33);
    snprintf(path, cap, "%s/%s", tu_tmpdir(), name);
    tu_write_file(path, b, at + len - 33);
    free(b);
    free(png);
}

static const uint8_t GAMA[4] = {0, 0, 0xB1, 0x8F}; /* 1/2.2 */
static const uint8_t CHRM[32] = {
    0, 0, 0x7A, 0x26, 0, 0, 0x80, 0x84, 0, 0, 0xFA, 0,    0, 0, 0x80, 0xE8,
    0, 0, 0x75, 0x30, 0, 0, 0xEA, 0x60, 0, 0, 0x3A, 0x98, 0, 0, 0x17, 0x70}; /* sRGB's */
static const uint8_t SRGB[1] = {0};                                          /* perceptual */
static const uint8_t CICP[4] = {9, 16, 0, 1}; /* BT.2020 primaries, PQ, RGB, full range */

/* SPEC §2: PNG's gAMA, cHRM, sRGB and cICP are kept like iCCP: written
 * back byte for byte into PNG outputs, through one step and several; not
 * with --strip; not into other formats; sRGB not beside an iCCP. */
START_TEST(png_colour_chunks_kept)
{
    static const char *const colour[] = {"gAMA", "cHRM", "sRGB", "cICP", NULL};
    static const char *const icc_only[] = {"iCCP", NULL};
    uint8_t *want = malloc(4096), *got = malloc(4096);
    char in[3][600], dst[600], *out, *err;
    const chunk_spec sets[3][4] = {
        {{"gAMA", GAMA, 4}, {"cHRM", CHRM, 32}, {NULL, NULL, 0}},
        {{"sRGB", SRGB, 1}, {"gAMA", GAMA, 4}, {NULL, NULL, 0}},
        {{"cICP", CICP, 4}, {NULL, NULL, 0}},
    };
    for (int k = 0; k < 3; k++) {
        char name[32];
        snprintf(name, sizeof name, "colour%d.png", k);
        png_with(name, sets[k], in[k], sizeof in[k]);
        size_t n = chunks_of(in[k], colour, want, 4096);
        ck_assert_uint_gt(n, 0);
        const char *cmds[3][4] = {{"blur", in[k], dst, NULL},
                                  {"run", in[k], dst, "invert"},
                                  {"grayscale", in[k], dst, NULL}};
        for (int c = 0; c < 3; c++) {
            snprintf(dst, sizeof dst, "%s/colour%d_%d.png", tu_tmpdir(), k, c);
            if (cmds[c][3])
                ck_assert_int_eq(RUN(&out, &err, cmds[c][0], cmds[c][1], cmds[c][2], cmds[c][3],
                                     "rotate:angle=90"),
                                 0);
            else
                ck_assert_int_eq(RUN(&out, &err, cmds[c][0], cmds[c][1], cmds[c][2]), 0);
            ck_assert_str_eq(err, ""); /* nothing dropped */
            free(out), free(err);
            /* the same chunks, in the same order, byte for byte (gray too:
             * each of them describes gray samples as well) */
            ck_assert_uint_eq(chunks_of(dst, colour, got, 4096), n);
            ck_assert_mem_eq(got, want, n);
        }
        snprintf(dst, sizeof dst, "%s/colour%d_strip.png", tu_tmpdir(), k);
        ck_assert_int_eq(RUN(&out, &err, "--strip", "blur", in[k], dst), 0);
        free(out), free(err);
        ck_assert_uint_eq(chunks_of(dst, colour, got, 4096), 0);
        snprintf(dst, sizeof dst, "%s/colour%d.jpg", tu_tmpdir(), k);
        ck_assert_int_eq(RUN(&out, &err, "blur", in[k], dst), 0);
        ck_assert_str_eq(err, "");
        free(out), free(err);
        int w, h;
        ck_assert_ptr_null(meta_of(dst, &w, &h)); /* a JPEG has no place for them */
    }
    /* iCCP and sRGB in one file (the specification says not to): the
     * profile wins, the sRGB chunk is left out, gAMA stays */
    size_t icc_len = 600;
    uint8_t *icc = make_icc(icc_len, 1);
    uLongf zlen = compressBound(icc_len);
    uint8_t *iccp = malloc(14 + zlen);
    memcpy(iccp, "ICC Profile", 12);
    iccp[12] = 0;
    ck_assert_int_eq(compress2(iccp + 13, &zlen, icc, icc_len, 9), Z_OK);
    const chunk_spec both[] = {
        {"sRGB", SRGB, 1}, {"gAMA", GAMA, 4}, {"iCCP", iccp, 13 + zlen}, {NULL, NULL, 0}};
    char path[600];
    png_with("icc_srgb.png", both, path, sizeof path);
    snprintf(dst, sizeof dst, "%s/icc_srgb_out.png", tu_tmpdir());
    ck_assert_int_eq(RUN(&out, &err, "blur", path, dst), 0);
    free(out), free(err);
    ck_assert_uint_gt(chunks_of(dst, icc_only, got, 4096), 0);
    static const char *const srgb[] = {"sRGB", NULL}, *const gama[] = {"gAMA", NULL};
    ck_assert_uint_eq(chunks_of(dst, srgb, got, 4096), 0);
    ck_assert_uint_eq(chunks_of(dst, gama, got, 4096), 12);
    ck_assert_mem_eq(got + 8, GAMA, 4);
    int w, h;
    gpuimg_metadata *m = meta_of(dst, &w, &h);
    ck_assert_ptr_nonnull(m);
    ck_assert_uint_eq(m->icc_len, icc_len);
    gpuimg_metadata_free(m);
    /* damaged ones are dropped, with a warning, the image still read: a
     * gAMA of the wrong length, a cHRM whose CRC is wrong; a second sRGB
     * is not taken either (the first of each kind counts) */
    static const uint8_t long_gama[5] = {0, 0, 0xB1, 0x8F, 0};
    const chunk_spec bad[] = {{"gAMA", long_gama, 5},
                              {"cHRM", CHRM, 32},
                              {"sRGB", SRGB, 1},
                              {"sRGB", (const uint8_t *)"\1", 1},
                              {NULL, NULL, 0}};
    png_with("bad_colour.png", bad, path, sizeof path);
    size_t len;
    uint8_t *b = (uint8_t *)tu_read_file(path, &len);
    b[33 + 17 + 8 + 31] ^= 1; /* the cHRM's last data byte: its CRC no longer matches */
    tu_write_file(path, b, len);
    free(b);
    snprintf(dst, sizeof dst, "%s/bad_colour_out.png", tu_tmpdir());
    ck_assert_int_eq(RUN(&out, &err, "blur", path, dst), 0);
    ck_assert_ptr_nonnull(strstr(err, "PNG colour chunk"));
    free(out), free(err);
    ck_assert_uint_eq(chunks_of(dst, colour, got, 4096), 9);
    ck_assert_mem_eq(got + 4, "sRGB", 4);
    ck_assert_int_eq(got[8], 0);
    /* a gAMA after the pixel data is not a colour chunk PNG knows: left */
    uint8_t *plain = (uint8_t *)tu_read_file(tu_golden("inputs/rand_12x12_rgb.png"), &len);
    ck_assert_ptr_nonnull(plain);
    b = malloc(len + 64);
    memcpy(b, plain, len - 12);
    size_t at = len - 12;
    put_chunk(b, &at, "gAMA", GAMA, 4);
    memcpy(b + at, plain + len - 12, 12); /* IEND */
    snprintf(path, sizeof path, "%s/late_gama.png", tu_tmpdir());
    tu_write_file(path, b, at + 12);
    free(b);
    free(plain);
    snprintf(dst, sizeof dst, "%s/late_gama_out.png", tu_tmpdir());
    ck_assert_int_eq(RUN(&out, &err, "blur", path, dst), 0);
    free(out), free(err);
    ck_assert_uint_eq(chunks_of(dst, colour, got, 4096), 0);
    /* batch carries them like run: the folder's copy of colour0.png */
    char dir[520], outdir[520];
    snprintf(dir, sizeof dir, "%s/colour_in", tu_tmpdir());
    snprintf(outdir, sizeof outdir, "%s/colour_out", tu_tmpdir());
    ck_assert_int_eq(mkdir(dir, 0777), 0);
    snprintf(path, sizeof path, "%s/c.png", dir);
    b = (uint8_t *)tu_read_file(in[0], &len);
    tu_write_file(path, b, len);
    free(b);
    ck_assert_int_eq(RUN(&out, &err, "batch", dir, outdir, "blur"), 0);
    free(out), free(err);
    snprintf(dst, sizeof dst, "%s/c.png", outdir);
    size_t n = chunks_of(in[0], colour, want, 4096);
    ck_assert_uint_eq(chunks_of(dst, colour, got, 4096), n);
    ck_assert_mem_eq(got, want, n);
    free(iccp);
    free(icc);
    free(want);
    free(got);
}
END_TEST

/* An ICC profile with a 'desc' tag: v2 textDescription (ASCII) or v4
 * multiLocalizedUnicode (UTF-16BE). */
static uint8_t *icc_with_desc(const char *text, int v4, size_t *n)
{
    size_t len = strlen(text), body = v4 ? 28 + 2 * len : 12 + len + 1;
    *n = 144 + body;
    uint8_t *p = make_icc(*n, 1);
    memset(p + 128, 0, 16);
    p[131] = 1; /* one tag: desc at 144 */
    memcpy(p + 132, "desc", 4);
    p[138] = 144 >> 8, p[139] = 144 & 0xff;
    p[142] = (uint8_t)(body >> 8), p[143] = (uint8_t)body;
    uint8_t *d = p + 144;
    memset(d, 0, body);
    if (v4) {
        memcpy(d, "mluc", 4);
        d[11] = 1, d[15] = 12;     /* one record of 12 bytes */
        memcpy(d + 16, "enUS", 4); /* language, country */
        d[23] = (uint8_t)(2 * len), d[27] = 28;
        for (size_t k = 0; k < len; k++)
            d[28 + 2 * k + 1] = (uint8_t)text[k];
    } else {
        memcpy(d, "desc", 4);
        d[11] = (uint8_t)(len + 1);
        memcpy(d + 12, text, len);
    }
    return p;
}

START_TEST(info_from_headers)
{
    gpuimg_ctx *ctx = tu_ctx();
    for (int v4 = 0; v4 <= 1; v4++) {
        gpuimg_image img;
        picture_with_metadata(&img, 3000);
        free(img.meta->icc);
        img.meta->icc =
            icc_with_desc(v4 ? "Display P3" : "Adobe RGB (1998)", v4, &img.meta->icc_len);
        img.meta->exif_len = make_exif(img.meta->exif, 8);
        char path[512];
        snprintf(path, sizeof path, "%s/p%d.%s", tu_tmpdir(), v4, v4 ? "jpg" : "png");
        ck_assert_int_eq(gpuimg_save(ctx, path, GPUIMG_FORMAT_NONE, &img), GPUIMG_OK);
        gpuimg_file_info f;
        ck_assert_int_eq(gpuimg_probe(ctx, path, &f), GPUIMG_OK);
        ck_assert_str_eq(f.format, v4 ? "jpeg" : "png");
        ck_assert_int_eq(f.stored_width, 40);
        ck_assert_int_eq(f.width, 30); /* orientation 8: read turned */
        ck_assert_int_eq(f.orientation, 8);
        ck_assert_int_eq(f.channels, 3);
        ck_assert_int_eq(f.depth, 8);
        ck_assert_uint_eq(f.icc_bytes, img.meta->icc_len);
        ck_assert_str_eq(f.profile, v4 ? "Display P3" : "Adobe RGB (1998)");
        ck_assert_uint_eq(f.xmp_bytes, strlen(XMP));
        char *out, *err;
        ck_assert_int_eq(RUN(&out, &err, "info", path), 0);
        ck_assert_ptr_nonnull(strstr(out, "30x40 (stored 40x30, orientation 8)"));
        free(out), free(err);
        gpuimg_image_free(&img);
    }
    /* every format's header; an unreadable file: its record, exit 3, the rest go on */
    char *out, *err;
    ck_assert_int_eq(RUN(&out, &err, "info", "--json", tu_golden("inputs/rand_31x29_ga.png"),
                         "/nonexistent.png", tu_golden("formats/photo.jpg")),
                     3);
    ck_assert_ptr_nonnull(strstr(out, "\"channels\": 2"));
    ck_assert_ptr_nonnull(strstr(out, "\"file\": \"/nonexistent.png\", \"error\": "));
    ck_assert_ptr_nonnull(strstr(out, "\"format\": \"jpeg\""));
    ck_assert_ptr_nonnull(strstr(err, "/nonexistent.png"));
    free(out), free(err);
    gpuimg_ctx_destroy(ctx);
}
END_TEST

START_TEST(webp_read_and_written)
{
    gpuimg_config cfg;
    gpuimg_config_init(&cfg);
    cfg.backend = GPUIMG_BACKEND_CPU;
    cfg.lossless = 1;
    gpuimg_ctx *lossless, *ctx = tu_ctx();
    ck_assert_int_eq(gpuimg_ctx_create(&cfg, &lossless), GPUIMG_OK);
    /* lossless is exact: the colour under alpha 0 too */
    gpuimg_image rgba, back;
    tu_random_image(&rgba, 37, 21, 4, 5);
    for (size_t i = 3; i < 37 * 21 * 4; i += 16)
        rgba.data[i] = 0;
    char path[512];
    snprintf(path, sizeof path, "%s/exact.webp", tu_tmpdir());
    ck_assert_int_eq(gpuimg_save(lossless, path, GPUIMG_FORMAT_NONE, &rgba), GPUIMG_OK);
    tu_load(ctx, path, &back);
    ck_assert_int_eq(back.channels, 4);
    ck_assert_mem_eq(back.data, rgba.data, 37 * 21 * 4);
    gpuimg_image_free(&back);
    /* lossy at --jpeg-quality: close; gray comes back as (nearly) equal R, G, B */
    gpuimg_image gray;
    tu_load(ctx, tu_golden("inputs/camera_64x48_gray.png"), &gray);
    snprintf(path, sizeof path, "%s/gray.webp", tu_tmpdir());
    ck_assert_int_eq(gpuimg_save(ctx, path, GPUIMG_FORMAT_NONE, &gray), GPUIMG_OK);
    tu_load(ctx, path, &back);
    ck_assert_int_eq(back.channels, 3);
    gpuimg_compare_result r;
    ck_assert_int_eq(gpuimg_compare(ctx, &back, &gray, NULL, &r, NULL), GPUIMG_OK);
    ck_assert_msg(r.mae < 4.0, "lossy WebP mae %.3f", r.mae);
    int spread = 0; /* lossy YUV rounds the three apart by a little at most */
    for (size_t i = 0; i < 64 * 48; i++) {
        int lo = back.data[3 * i], hi = lo;
        for (int k = 1; k < 3; k++) {
            lo = back.data[3 * i + k] < lo ? back.data[3 * i + k] : lo;
            hi = back.data[3 * i + k] > hi ? back.data[3 * i + k] : hi;
        }
        spread = hi - lo > spread ? hi - lo : spread;
    }
    ck_assert_int_le(spread, 3);
    gpuimg_image_free(&back);
    /* metadata as chunks, read back; a cut file is refused */
    gpuimg_image img;
    picture_with_metadata(&img, 3000);
    snprintf(path, sizeof path, "%s/meta.webp", tu_tmpdir());
    ck_assert_int_eq(gpuimg_save(ctx, path, GPUIMG_FORMAT_NONE, &img), GPUIMG_OK);
    tu_load(ctx, path, &back);
    ck_assert_ptr_nonnull(back.meta);
    ck_assert_uint_eq(back.meta->icc_len, 3000);
    ck_assert_mem_eq(back.meta->icc, img.meta->icc, 3000);
    ck_assert_uint_eq(back.meta->exif_len, img.meta->exif_len);
    ck_assert_mem_eq(back.meta->exif, img.meta->exif, img.meta->exif_len);
    ck_assert_uint_eq(back.meta->xmp_len, strlen(XMP));
    gpuimg_image_free(&back);
    size_t len;
    char *data = tu_read_file(path, &len);
    ck_assert_int_eq(gpuimg_load_memory(ctx, data, len / 2, "cut.webp", &back), GPUIMG_ERR_DECODE);
    ck_assert_ptr_nonnull(strstr(gpuimg_ctx_error(ctx), "WebP"));
    free(data);
    ck_assert(gpuimg_is_image_path("x/photo.webp"));
    ck_assert_int_eq(gpuimg_format_from_path("out.webp"), GPUIMG_FORMAT_WEBP);
    gpuimg_image_free(&img);
    gpuimg_image_free(&gray);
    gpuimg_image_free(&rgba);
    gpuimg_ctx_destroy(lossless);
    gpuimg_ctx_destroy(ctx);
}
END_TEST

START_TEST(tiff_tags)
{
    gpuimg_ctx *ctx = tu_ctx();
    /* the profile and XMP as TIFF's tags, read back by libtiff */
    gpuimg_image img;
    picture_with_metadata(&img, 3000);
    char path[512];
    snprintf(path, sizeof path, "%s/meta.tif", tu_tmpdir());
    ck_assert_int_eq(gpuimg_save(ctx, path, GPUIMG_FORMAT_NONE, &img), GPUIMG_OK);
    TIFF *t = TIFFOpen(path, "r");
    ck_assert_ptr_nonnull(t);
    uint32_t n = 0;
    void *p = NULL;
    ck_assert(TIFFGetField(t, TIFFTAG_ICCPROFILE, &n, &p));
    ck_assert_uint_eq(n, 3000);
    ck_assert_mem_eq(p, img.meta->icc, 3000);
    ck_assert(TIFFGetField(t, TIFFTAG_XMLPACKET, &n, &p));
    ck_assert_uint_eq(n, strlen(XMP));
    uint16_t compression = 0;
    TIFFGetField(t, TIFFTAG_COMPRESSION, &compression);
    ck_assert_int_eq(compression, COMPRESSION_ADOBE_DEFLATE);
    TIFFClose(t);
    gpuimg_image back;
    tu_load(ctx, path, &back);
    ck_assert_mem_eq(back.data, img.data, 40 * 30 * 3); /* Deflate: lossless */
    ck_assert_uint_eq(back.meta->icc_len, 3000);
    gpuimg_image_free(&back);
    /* the Orientation tag: 6 (stored turned a quarter anticlockwise) read upright */
    snprintf(path, sizeof path, "%s/turned.tif", tu_tmpdir());
    t = TIFFOpen(path, "w");
    TIFFSetField(t, TIFFTAG_IMAGEWIDTH, (uint32_t)40);
    TIFFSetField(t, TIFFTAG_IMAGELENGTH, (uint32_t)30);
    TIFFSetField(t, TIFFTAG_SAMPLESPERPIXEL, (uint16_t)3);
    TIFFSetField(t, TIFFTAG_BITSPERSAMPLE, (uint16_t)8);
    TIFFSetField(t, TIFFTAG_PHOTOMETRIC, PHOTOMETRIC_RGB);
    TIFFSetField(t, TIFFTAG_ORIENTATION, (uint16_t)6);
    for (uint32_t y = 0; y < 30; y++)
        ck_assert_int_ge(TIFFWriteScanline(t, img.data + (size_t)y * 40 * 3, y, 0), 0);
    TIFFClose(t);
    tu_load(ctx, path, &back);
    ck_assert_int_eq(back.width, 30);
    ck_assert_int_eq(back.height, 40);
    ck_assert_int_eq(back.meta->orientation, 6);
    /* 90 clockwise: the stored top-left pixel ends top-right */
    ck_assert_mem_eq(back.data + 29 * 3, img.data, 3);
    gpuimg_image_free(&back);
    gpuimg_image_free(&img);
    gpuimg_ctx_destroy(ctx);
}
END_TEST

/* A 4x2 gray TIFF, little-endian, made byte by byte: IFD0 at 8 with the
 * image's tags and ExifIFD, the EXIF IFD after it with DateTimeOriginal
 * (20 bytes, out of line) and ExposureTime 1/250 (a rational, out of
 * line), then the values and the pixels. exif_at overrides the ExifIFD
 * offset and count its entry count (a malformed file). Returns the size. */
static size_t tiff_with_exif(uint8_t *b, uint32_t exif_at, uint16_t count)
{
    memset(b, 0, 512);
    memcpy(b, "II*\0\x08\0\0\0", 8);
    struct {
        uint16_t tag, type;
        uint32_t count, value;
    } ifd0[] = {{256, 3, 1, 4}, {257, 3, 1, 2},        {258, 3, 1, 8}, {259, 3, 1, 1},
                {262, 3, 1, 1}, {273, 4, 1, 300},      {277, 3, 1, 1}, {278, 3, 1, 2},
                {279, 4, 1, 8}, {34665, 4, 1, exif_at}},
      exif[] = {{33434, 5, 1, 250}, {36867, 2, 20, 260}};
    size_t at = 8;
    b[at] = 10;
    at += 2;
    for (int i = 0; i < 10; i++, at += 12) {
        memcpy(b + at, &ifd0[i].tag, 2); /* the test machines are little-endian */
        memcpy(b + at + 2, &ifd0[i].type, 2);
        memcpy(b + at + 4, &ifd0[i].count, 4);
        memcpy(b + at + 8, &ifd0[i].value, 4);
    }
    at += 4; /* no next IFD: the EXIF IFD starts at 134 */
    b[134] = (uint8_t)count;
    b[135] = (uint8_t)(count >> 8);
    for (int i = 0; i < 2; i++) {
        memcpy(b + 136 + 12 * i, &exif[i].tag, 2);
        memcpy(b + 136 + 12 * i + 2, &exif[i].type, 2);
        memcpy(b + 136 + 12 * i + 4, &exif[i].count, 4);
        memcpy(b + 136 + 12 * i + 8, &exif[i].value, 4);
    }
    const uint32_t rational[2] = {1, 250};
    memcpy(b + 250, rational, 8);
    memcpy(b + 260, "2026:11:24 10:00:00", 20);
    for (int i = 0; i < 8; i++)
        b[300 + i] = (uint8_t)(30 * i);
    return 308;
}

/* TIFF keeps EXIF in an IFD of its own: it is read into one block (its
 * values copied and their offsets rewritten), carried into a JPEG and into
 * a TIFF's own EXIF IFD, and a malformed one is left out without failing
 * the image. */
START_TEST(tiff_exif_ifd)
{
    gpuimg_ctx *ctx = tu_ctx();
    uint8_t file[512];
    char path[512], out[512];
    snprintf(path, sizeof path, "%s/exif.tif", tu_tmpdir());
    tu_write_file(path, file, tiff_with_exif(file, 134, 2));
    gpuimg_image img;
    tu_load(ctx, path, &img);
    ck_assert_int_eq(img.width, 4);
    ck_assert_int_eq(img.data[7], 210);
    ck_assert_ptr_nonnull(img.meta);
    ck_assert_ptr_nonnull(img.meta->exif);
    ck_assert_ptr_nonnull(memmem(img.meta->exif, img.meta->exif_len, "2026:11:24 10:00:00", 20));
    gpuimg_image_free(&img);
    snprintf(out, sizeof out, "%s/exif.jpg", tu_tmpdir());
    ck_assert_int_eq(RUN(NULL, NULL, "invert", path, out), 0);
    tu_load(ctx, out, &img); /* read back from the JPEG's APP1 */
    ck_assert(img.meta && img.meta->exif);
    const uint8_t *e = img.meta->exif;
    ck_assert_ptr_nonnull(memmem(e, img.meta->exif_len, "2026:11:24 10:00:00", 20));
    /* ExposureTime's rational, found through the rewritten offset */
    uint32_t ifd, n16, off;
    memcpy(&ifd, e + 18, 4); /* IFD0's one entry: ExifIFD */
    n16 = e[ifd] | e[ifd + 1] << 8;
    ck_assert_uint_eq(n16, 2);
    ck_assert_int_eq(e[ifd + 2] | e[ifd + 3] << 8, 33434);
    memcpy(&off, e + ifd + 2 + 8, 4);
    ck_assert_uint_lt(off + 8, img.meta->exif_len);
    uint32_t r[2];
    memcpy(r, e + off, 8);
    ck_assert_uint_eq(r[0], 1);
    ck_assert_uint_eq(r[1], 250);
    gpuimg_image_free(&img);
    /* and into a TIFF: an EXIF directory of its own, read back by libtiff */
    snprintf(out, sizeof out, "%s/exif_out.tif", tu_tmpdir());
    ck_assert_int_eq(RUN(NULL, NULL, "invert", path, out), 0);
    TIFF *t = TIFFOpen(out, "r");
    ck_assert_ptr_nonnull(t);
    uint64_t at = 0;
    ck_assert(TIFFGetField(t, TIFFTAG_EXIFIFD, &at) && at > 0);
    ck_assert(TIFFReadEXIFDirectory(t, at));
    char *when = NULL;
    ck_assert(TIFFGetField(t, EXIFTAG_DATETIMEORIGINAL, &when));
    ck_assert_str_eq(when, "2026:11:24 10:00:00");
    float exposure = 0; /* libtiff keeps EXIF's rationals as floats */
    ck_assert(TIFFGetField(t, EXIFTAG_EXPOSURETIME, &exposure));
    ck_assert_float_eq_tol(exposure, 1.0f / 250, 1e-6f);
    TIFFClose(t);
    tu_load(ctx, out, &img); /* the pixels still there, inverted */
    ck_assert_int_eq(img.data[7], 255 - 210);
    gpuimg_image_free(&img);
    /* the IFD outside the file, or claiming 60000 entries: no EXIF, the image read */
    static const uint32_t bad_at[] = {5000, 134};
    static const uint16_t bad_count[] = {2, 60000};
    for (int k = 0; k < 2; k++) {
        tu_write_file(path, file, tiff_with_exif(file, bad_at[k], bad_count[k]));
        gpuimg_image bad;
        ck_assert_int_eq(gpuimg_load(ctx, path, &bad), GPUIMG_OK); /* the pixels are sound */
        ck_assert_int_eq(bad.data[7], 210);
        ck_assert(!bad.meta || !bad.meta->exif);
        gpuimg_image_free(&bad);
    }
    gpuimg_ctx_destroy(ctx);
}
END_TEST

Suite *metadata_suite(void)
{
    Suite *s = suite_create("metadata");
    TCase *tc = tu_tcase("metadata");
    tcase_add_test(tc, orientations_read_upright);
    tcase_add_test(tc, written_and_read_back);
    tcase_add_test(tc, carried_through_commands);
    tcase_add_test(tc, malformed_blocks_are_dropped);
    tcase_add_test(tc, png_colour_chunks_kept);
    tcase_add_test(tc, info_from_headers);
    tcase_add_test(tc, webp_read_and_written);
    tcase_add_test(tc, tiff_tags);
    tcase_add_test(tc, tiff_exif_ifd);
    suite_add_tcase(s, tc);
    return s;
}
