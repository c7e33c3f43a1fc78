/* SPDX-License-Identifier: MIT */
/* The codecs against independent ones: every PNG gpuimg writes is read back
 * by libpng and by stb_image, pixel for pixel; its size is held to libpng's
 * at the same level; its bytes do not depend on --threads. JPEG goes through
 * libjpeg-turbo and is checked against stb_image's reading of the same file. */
#include <libdeflate.h>
#include <png.h>
#include <stb_image.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
/* after stdio.h: it needs FILE */
#include <jpeglib.h>

#include "io/io.h"
#include "io/png/deflate_join.h"
#include "testutil.h"

static gpuimg_ctx *codec_ctx(int threads, int level)
{
    gpuimg_config cfg;
    gpuimg_config_init(&cfg);
    cfg.backend = GPUIMG_BACKEND_CPU;
    cfg.threads = threads;
    cfg.png_level = level;
    gpuimg_ctx *ctx;
    ck_assert_int_eq(gpuimg_ctx_create(&cfg, &ctx), GPUIMG_OK);
    return ctx;
}

/* Smooth, photograph-like content (gradients and a little noise), which
 * deflate compresses well and whose rows pick different filters; the
 * random images of tu_random_image hardly compress at all. */
static void smooth_image(gpuimg_image *img, int w, int h, int c, unsigned seed)
{
    ck_assert_int_eq(gpuimg_image_alloc(img, w, h, c), GPUIMG_OK);
    unsigned x = seed * 2654435761u + 7u;
    for (int y = 0; y < h; y++)
        for (int i = 0; i < w; i++)
            for (int k = 0; k < c; k++) {
                x ^= x << 13;
                x ^= x >> 17;
                x ^= x << 5;
                int v = (i * (k + 1) / 3 + y / 2 + (int)((i * y) % 97) / 16) + (int)(x >> 30);
                img->data[((size_t)y * w + i) * c + k] = (uint8_t)v;
            }
}

static char *encode_file(gpuimg_ctx *ctx, const gpuimg_image *img, const char *name, size_t *len)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", tu_tmpdir(), name);
    gpuimg_status st = gpuimg_save(ctx, path, GPUIMG_FORMAT_NONE, img);
    ck_assert_msg(st == GPUIMG_OK, "%s: %s", path, gpuimg_ctx_error(ctx));
    char *data = tu_read_file(path, len);
    ck_assert_ptr_nonnull(data);
    return data;
}

/* libpng's simplified reader: checks every CRC and the zlib stream's
 * Adler-32 and length. */
static void assert_libpng_reads(const char *data, size_t len, const gpuimg_image *want,
                                const char *what)
{
    static const png_uint_32 formats[5] = {0, PNG_FORMAT_GRAY, PNG_FORMAT_GA, PNG_FORMAT_RGB,
                                           PNG_FORMAT_RGBA};
    png_image im;
    memset(&im, 0, sizeof im);
    im.version = PNG_IMAGE_VERSION;
    ck_assert_msg(png_image_begin_read_from_memory(&im, data, len), "%s: libpng: %s", what,
                  im.message);
    ck_assert_int_eq(im.width, (png_uint_32)want->width);
    ck_assert_int_eq(im.height, (png_uint_32)want->height);
    im.format = formats[want->channels];
    size_t n = (size_t)want->width * want->height * want->channels;
    uint8_t *px = malloc(n);
    ck_assert_ptr_nonnull(px);
    ck_assert_msg(png_image_finish_read(&im, NULL, px, 0, NULL), "%s: libpng: %s", what,
                  im.message);
    ck_assert_msg(memcmp(px, want->data, n) == 0, "%s: libpng reads other pixels", what);
    free(px);
}

static void assert_stb_reads(const char *data, size_t len, const gpuimg_image *want,
                             const char *what)
{
    int w, h, c;
    uint8_t *px = stbi_load_from_memory((const uint8_t *)data, (int)len, &w, &h, &c, 0);
    ck_assert_msg(px != NULL, "%s: stb_image: %s", what, stbi_failure_reason());
    ck_assert_int_eq(w, want->width);
    ck_assert_int_eq(h, want->height);
    ck_assert_int_eq(c, want->channels);
    ck_assert_msg(memcmp(px, want->data, (size_t)w * h * c) == 0, "%s: stb reads other pixels",
                  what);
    stbi_image_free(px);
}

static void assert_reads_16(gpuimg_ctx *ctx, const char *data, size_t len, const gpuimg_image *want,
                            const char *what);

/* A written PNG read back as want by libpng and stb_image (at 16 bits,
 * through each one's 16-bit path). */
static void assert_reads_back(gpuimg_ctx *ctx, const char *data, size_t len,
                              const gpuimg_image *want, const char *what)
{
    if (gpuimg_image_depth(want) == 16) {
        assert_reads_16(ctx, data, len, want, what);
    } else {
        assert_libpng_reads(data, len, want, what);
        assert_stb_reads(data, len, want, what);
    }
}

/* Shapes that cut into one chunk, many chunks, chunks of one row (a row
 * wider than a chunk), and rows narrower than the dictionary's reach. */
START_TEST(png_read_back_by_libpng_and_stb)
{
    static const struct {
        int w, h, c, level, smooth;
    } cases[] = {
        {33, 17, 1, 6, 0},    {33, 17, 2, 6, 0},   {33, 17, 3, 6, 0},   {33, 17, 4, 6, 0},
        {1, 1, 3, 6, 0},      {700, 400, 4, 6, 1}, {700, 400, 3, 0, 1}, {700, 400, 3, 1, 1},
        {700, 400, 3, 9, 1},  {7, 40000, 3, 6, 1}, {65535, 3, 4, 6, 1}, {30000, 20, 1, 6, 0},
        {1200, 900, 2, 6, 1}, {513, 611, 3, 6, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        gpuimg_image img;
        if (cases[i].smooth)
            smooth_image(&img, cases[i].w, cases[i].h, cases[i].c, (unsigned)i);
        else
            tu_random_image(&img, cases[i].w, cases[i].h, cases[i].c, (unsigned)i);
        char what[96];
        snprintf(what, sizeof what, "%dx%dx%d level %d", cases[i].w, cases[i].h, cases[i].c,
                 cases[i].level);
        gpuimg_ctx *ctx = codec_ctx(4, cases[i].level);
        size_t len;
        char *data = encode_file(ctx, &img, "rt.png", &len);
        assert_reads_back(ctx, data, len, &img, what);
        free(data);
        gpuimg_ctx_destroy(ctx);
        gpuimg_image_free(&img);
    }
}
END_TEST

/* The cut into chunks depends on the image alone. */
START_TEST(png_bytes_do_not_depend_on_threads)
{
    gpuimg_image img;
    smooth_image(&img, 1000, 700, 3, 5);
    size_t len1, len;
    gpuimg_ctx *one = codec_ctx(1, 6);
    char *first = encode_file(one, &img, "t1.png", &len1);
    gpuimg_ctx_destroy(one);
    static const int threads[] = {2, 3, 16};
    for (size_t i = 0; i < sizeof threads / sizeof threads[0]; i++) {
        gpuimg_ctx *ctx = codec_ctx(threads[i], 6);
        char *data = encode_file(ctx, &img, "tn.png", &len);
        ck_assert_msg(len == len1 && memcmp(data, first, len) == 0,
                      "--threads %d wrote other bytes (%zu vs %zu)", threads[i], len, len1);
        free(data);
        gpuimg_ctx_destroy(ctx);
    }
    free(first);
    gpuimg_image_free(&img);
}
END_TEST

/* io/png/write.c's chunk size: the joins of the cases below fall where
 * they say only while the two agree. */
#define PNG_CHUNK_BYTES (256 * 1024)

/* Every chunk's CRC right, IEND last: libpng's simplified reader stops
 * before IEND. */
static void assert_png_crcs(const char *data, size_t len, const char *what)
{
    const uint8_t *p = (const uint8_t *)data;
    size_t at = 8;
    int iend = 0;
    while (at + 12 <= len && !iend) {
        uint32_t n = (uint32_t)p[at] << 24 | (uint32_t)p[at + 1] << 16 | p[at + 2] << 8 | p[at + 3];
        ck_assert_msg(n <= len - at - 12, "%s: chunk past the end", what);
        uint32_t crc = (uint32_t)crc32(0, p + at + 4, n + 4), want = 0;
        for (int i = 0; i < 4; i++)
            want = want << 8 | p[at + 8 + n + i];
        ck_assert_msg(crc == want, "%s: %.4s: CRC %08x, stored %08x", what,
                      (const char *)p + at + 4, crc, want);
        iend = memcmp(p + at + 4, "IEND", 4) == 0;
        at += 12 + n;
    }
    ck_assert_msg(iend && at == len, "%s: no IEND at the end", what);
}

/* Read back at 16 bits: the project's libpng path (libpng's own decoding)
 * and stb_image's 16-bit reader. */
static void assert_reads_16(gpuimg_ctx *ctx, const char *data, size_t len, const gpuimg_image *want,
                            const char *what)
{
    gpuimg_image lib;
    ck_assert_msg(gpuimg__decode_png_libpng(ctx, (const uint8_t *)data, len, "rt16.png", &lib) ==
                      GPUIMG_OK,
                  "%s: libpng: %s", what, gpuimg_ctx_error(ctx));
    char msg[256];
    ck_assert_msg(tu_images_agree(&lib, want, 1, msg, sizeof msg), "%s: libpng: %s", what, msg);
    gpuimg_image_free(&lib);
    int w, h, c;
    uint16_t *px = stbi_load_16_from_memory((const uint8_t *)data, (int)len, &w, &h, &c, 0);
    ck_assert_msg(px != NULL, "%s: stb_image: %s", what, stbi_failure_reason());
    ck_assert_int_eq(w, want->width);
    ck_assert_int_eq(h, want->height);
    ck_assert_int_eq(c, want->channels);
    ck_assert_msg(memcmp(px, want->data, (size_t)w * h * c * 2) == 0, "%s: stb reads other pixels",
                  what);
    stbi_image_free(px);
}

enum { RANDOM, CONSTANT, STRIPES, SMOOTH };

/* RANDOM: incompressible, so libdeflate ends a chunk with a stored block
 * (the join falls on a byte boundary); CONSTANT: every row alike, a chunk
 * one long run of matches; STRIPES: 5 random rows, then 3 copies of the
 * last, so chunks end in either; SMOOTH: a photograph's mix. */
static void join_image(gpuimg_image *img, int w, int h, int c, int depth, int kind, unsigned seed)
{
    tu_random_image_depth(img, w, h, c, depth, seed);
    size_t row = (size_t)w * c * (size_t)(depth / 8);
    for (int y = 0; y < h; y++) {
        uint8_t *r = img->data + (size_t)y * row;
        if (kind == CONSTANT)
            memset(r, 0x5a, row);
        else if (kind == STRIPES && y % 8 >= 5)
            memcpy(r, r - row, row);
        else if (kind == SMOOTH)
            for (size_t i = 0; i < row; i++)
                r[i] = (uint8_t)(i / 7 + (size_t)y / 3 + (r[i] >> 6));
    }
}

/* Images whose chunk joins fall on the tricky places: one chunk exactly,
 * two exactly, a last chunk of one row, and each content above, at 8 and
 * 16 bits, gray+alpha and RGB(A), at levels 0 (stored), 1, 6 and 9. */
START_TEST(png_chunk_joins_read_back)
{
    static const struct {
        int w, c, depth, chunks, extra_rows;
    } shapes[] = {
        {1000, 3, 8, 1, 0}, /* one chunk exactly */
        {1000, 3, 8, 2, 0}, /* two exactly */
        {1000, 3, 8, 2, 1}, /* and a third of one row */
        {512, 2, 8, 3, 7},  {700, 3, 16, 2, 0},  {300, 2, 16, 2, 5},
        {257, 4, 16, 1, 1}, {40000, 1, 8, 0, 9}, /* rows of 40 KB, more than the window */
    };
    static const int levels[] = {0, 1, 6, 9};
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        size_t row_len = (size_t)shapes[s].w * shapes[s].c * (size_t)(shapes[s].depth / 8) + 1;
        int rows = (int)(PNG_CHUNK_BYTES / row_len);
        int h = rows * shapes[s].chunks + shapes[s].extra_rows;
        for (int kind = RANDOM; kind <= SMOOTH; kind++) {
            gpuimg_image img;
            join_image(&img, shapes[s].w, h, shapes[s].c, shapes[s].depth, kind,
                       (unsigned)(s * 4 + kind));
            for (size_t l = 0; l < sizeof levels / sizeof levels[0]; l++) {
                char what[128];
                snprintf(what, sizeof what, "%dx%dx%d %d-bit, content %d, level %d", shapes[s].w, h,
                         shapes[s].c, shapes[s].depth, kind, levels[l]);
                gpuimg_ctx *ctx = codec_ctx(3, levels[l]);
                size_t len;
                char *data = encode_file(ctx, &img, "join.png", &len);
                assert_png_crcs(data, len, what);
                assert_reads_back(ctx, data, len, &img, what);
                free(data);
                gpuimg_ctx_destroy(ctx);
            }
            gpuimg_image_free(&img);
        }
    }
}
END_TEST

static size_t ld_compress(int level, const uint8_t *in, size_t n, uint8_t **out)
{
    struct libdeflate_compressor *z = libdeflate_alloc_compressor(level);
    ck_assert_ptr_nonnull(z);
    size_t cap = libdeflate_deflate_compress_bound(z, n) + GPUIMG__DEFLATE_UNFINISH_EXTRA;
    *out = malloc(cap);
    ck_assert_ptr_nonnull(*out);
    size_t got = libdeflate_deflate_compress(z, in, n, *out, cap);
    ck_assert_uint_gt(got, 0);
    libdeflate_free_compressor(z);
    return got;
}

/* n bytes of one of four kinds: random, smooth (short matches and
 * literals), zeros, or random then zeros. */
static void walk_data(uint8_t *d, size_t n, int kind, unsigned seed)
{
    unsigned x = seed * 2654435761u + 1u;
    for (size_t i = 0; i < n; i++) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        d[i] = kind == 0 || (kind == 3 && i < n / 2) ? (uint8_t)(x >> 24)
               : kind == 1                           ? (uint8_t)(i / 5 + (x >> 30) + i % 7)
                                                     : 0;
    }
}

/* The walker's end of libdeflate's streams is where libdeflate's own
 * decompressor stops, and so is its size; a stream unfinished and followed
 * by another inflates to both, whatever bit the first one ended on. */
START_TEST(deflate_walker_agrees_with_libdeflate)
{
    static const int levels[] = {0, 1, 6, 12};
    static const size_t sizes[] = {1, 2, 100, 3000, 70000, 300000};
    struct libdeflate_decompressor *dz = libdeflate_alloc_decompressor();
    ck_assert_ptr_nonnull(dz);
    uint8_t *a = malloc(2 * 300000), *back = malloc(2 * 300000 + 1);
    ck_assert_ptr_nonnull(a);
    ck_assert_ptr_nonnull(back);
    int ends[8] = {0}, stored_last = 0;
    for (size_t l = 0; l < sizeof levels / sizeof levels[0]; l++)
        for (int kind = 0; kind < 4; kind++)
            for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++)
                for (unsigned v = 0; v < (sizes[si] < 5000 ? 24u : 1u); v++) {
                    /* small sizes: several lengths each, for every end bit */
                    size_t n = sizes[si] + v;
                    walk_data(a, 2 * n, kind, (unsigned)(l * 100 + si * 10 + v));
                    uint8_t *z, *z2;
                    size_t zn = ld_compress(levels[l], a, n, &z);
                    gpuimg__deflate_shape sh;
                    ck_assert_msg(gpuimg__deflate_walk(z, zn, &sh) == 0,
                                  "level %d kind %d n %zu: refused", levels[l], kind, n);
                    size_t in_used, out_len;
                    ck_assert_int_eq(libdeflate_deflate_decompress_ex(dz, z, zn, back, n + 1,
                                                                      &in_used, &out_len),
                                     LIBDEFLATE_SUCCESS);
                    ck_assert_uint_eq((sh.end + 7) / 8, in_used);
                    ck_assert_uint_eq(in_used, zn);
                    ck_assert_uint_eq(sh.out_len, out_len);
                    ck_assert_uint_eq(out_len, n);
                    ck_assert_int_eq(z[sh.last_block / 8] >> sh.last_block % 8 & 1, 1);
                    ends[sh.end % 8]++;
                    /* BTYPE 00; a block takes 10 bits at least: the next byte is there */
                    unsigned hdr = (unsigned)(z[sh.last_block / 8] | z[sh.last_block / 8 + 1] << 8);
                    stored_last += (hdr >> (sh.last_block % 8 + 1) & 3) == 0;
                    /* then the second half after it */
                    size_t zn2 = ld_compress(levels[l], a + n, n, &z2);
                    size_t cap = zn + GPUIMG__DEFLATE_UNFINISH_EXTRA;
                    ck_assert_uint_eq(gpuimg__deflate_unfinish(z, zn, cap, n + 1), 0);
                    size_t head = gpuimg__deflate_unfinish(z, zn, cap, n);
                    ck_assert_uint_gt(head, 0);
                    uint8_t *joined = malloc(head + zn2);
                    ck_assert_ptr_nonnull(joined);
                    memcpy(joined, z, head);
                    memcpy(joined + head, z2, zn2);
                    ck_assert_int_eq(libdeflate_deflate_decompress_ex(dz, joined, head + zn2, back,
                                                                      2 * n + 1, &in_used,
                                                                      &out_len),
                                     LIBDEFLATE_SUCCESS);
                    ck_assert_uint_eq(in_used, head + zn2);
                    ck_assert_uint_eq(out_len, 2 * n);
                    ck_assert_msg(memcmp(back, a, 2 * n) == 0, "level %d kind %d n %zu: joined",
                                  levels[l], kind, n);
                    free(joined);
                    free(z);
                    free(z2);
                }
    for (int i = 0; i < 8; i++) /* every way a join can fall */
        ck_assert_msg(ends[i] > 0, "no stream ended at bit %d of a byte", i);
    ck_assert_int_gt(stored_last, 0);
    free(a);
    free(back);
    libdeflate_free_decompressor(dz);
}
END_TEST

/* What the walker takes, libdeflate inflates to the same end and size. */
static void assert_walk_sound(struct libdeflate_decompressor *dz, const uint8_t *z, size_t zn,
                              const char *what)
{
    gpuimg__deflate_shape sh;
    if (gpuimg__deflate_walk(z, zn, &sh) != 0)
        return;
    ck_assert_uint_le(sh.end, (uint64_t)zn * 8);
    ck_assert_uint_le(sh.last_block, sh.end);
    size_t out_cap = (size_t)sh.out_len + 1, in_used, out_len;
    uint8_t *out = malloc(out_cap);
    ck_assert_ptr_nonnull(out);
    ck_assert_msg(libdeflate_deflate_decompress_ex(dz, z, zn, out, out_cap, &in_used, &out_len) ==
                      LIBDEFLATE_SUCCESS,
                  "%s: the walker takes what libdeflate refuses", what);
    ck_assert_uint_eq(in_used, (sh.end + 7) / 8);
    ck_assert_uint_eq(out_len, sh.out_len);
    free(out);
}

/* Truncated, bit-flipped and random streams: an error or a sound walk,
 * never a read past the buffer (make test-sanitize runs this under ASan). */
START_TEST(deflate_walker_refuses_garbage)
{
    struct libdeflate_decompressor *dz = libdeflate_alloc_decompressor();
    ck_assert_ptr_nonnull(dz);
    uint8_t *a = malloc(20000);
    ck_assert_ptr_nonnull(a);
    static const int levels[] = {1, 6, 12};
    gpuimg__deflate_shape sh;
    ck_assert_int_eq(gpuimg__deflate_walk(a, 0, &sh), -1);
    for (size_t l = 0; l < sizeof levels / sizeof levels[0]; l++) {
        walk_data(a, 20000, 1, (unsigned)l);
        uint8_t *z;
        size_t zn = ld_compress(levels[l], a, 20000, &z);
        for (size_t cut = 0; cut < zn; cut++) { /* copied: ASan sees a read past the cut */
            uint8_t *t = malloc(cut ? cut : 1);
            ck_assert_ptr_nonnull(t);
            memcpy(t, z, cut);
            ck_assert_msg(gpuimg__deflate_walk(t, cut, &sh) == -1, "level %d: cut at %zu of %zu",
                          levels[l], cut, zn);
            ck_assert_uint_eq(gpuimg__deflate_unfinish(t, cut, cut + 5, 20000), 0);
            free(t);
        }
        size_t flips = zn * 8 < 4000 ? zn * 8 : 4000; /* the headers and the first symbols */
        for (size_t bit = 0; bit < flips; bit++) {
            uint8_t *t = malloc(zn);
            ck_assert_ptr_nonnull(t);
            memcpy(t, z, zn);
            t[bit / 8] ^= (uint8_t)(1u << bit % 8);
            assert_walk_sound(dz, t, zn, "bit flip");
            free(t);
        }
        /* trailing bytes: the walk stops at the end, the join refuses */
        uint8_t *t = malloc(zn + 8);
        ck_assert_ptr_nonnull(t);
        memcpy(t, z, zn);
        memset(t + zn, 0, 8);
        ck_assert_int_eq(gpuimg__deflate_walk(t, zn + 1, &sh), 0);
        ck_assert_uint_eq(gpuimg__deflate_unfinish(t, zn + 1, zn + 8, 20000), 0);
        ck_assert_uint_eq(gpuimg__deflate_unfinish(t, zn, zn, 20000) == 0,
                          (sh.end % 8) != 0); /* no room for the stored block */
        free(t);
        free(z);
    }
    unsigned x = 12345;
    for (int i = 0; i < 20000; i++) { /* random bytes of random lengths */
        size_t n = (size_t)(i % 97);
        uint8_t *t = malloc(n ? n : 1);
        ck_assert_ptr_nonnull(t);
        for (size_t k = 0; k < n; k++) {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            t[k] = (uint8_t)(x >> 24);
        }
        assert_walk_sound(dz, t, n, "random bytes");
        free(t);
    }
    free(a);
    libdeflate_free_decompressor(dz);
}
END_TEST

struct membuf {
    uint8_t *data;
    size_t len, cap;
};

static void mem_write(png_structp png, png_bytep src, size_t n)
{
    struct membuf *m = png_get_io_ptr(png);
    if (m->len + n > m->cap) {
        m->cap = (m->len + n) * 2;
        m->data = realloc(m->data, m->cap);
        ck_assert_ptr_nonnull(m->data);
    }
    memcpy(m->data + m->len, src, n);
    m->len += n;
}

static void mem_flush(png_structp png)
{
    (void)png;
}

/* The file libpng writes at this level with its default filter choice. */
static size_t libpng_size(const gpuimg_image *img, int level)
{
    static const int types[5] = {0, PNG_COLOR_TYPE_GRAY, PNG_COLOR_TYPE_GRAY_ALPHA,
                                 PNG_COLOR_TYPE_RGB, PNG_COLOR_TYPE_RGB_ALPHA};
    struct membuf m = {0};
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
    png_infop info = png_create_info_struct(png);
    ck_assert_ptr_nonnull(info);
    ck_assert_int_eq(setjmp(png_jmpbuf(png)), 0);
    png_set_write_fn(png, &m, mem_write, mem_flush);
    png_set_compression_level(png, level);
    png_set_IHDR(png, info, (png_uint_32)img->width, (png_uint_32)img->height, 8,
                 types[img->channels], PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
                 PNG_FILTER_TYPE_DEFAULT);
    png_write_info(png, info);
    for (int y = 0; y < img->height; y++)
        png_write_row(png, img->data + (size_t)y * img->width * img->channels);
    png_write_end(png, NULL);
    png_destroy_write_struct(&png, &info);
    free(m.data);
    return m.len;
}

/* Issue 6's bound: at most 3% larger than libpng at the same level, on a
 * photograph (samples/) and on smooth synthetic content, many chunks each. */
START_TEST(png_size_close_to_libpng)
{
    gpuimg_image photo, smooth;
    gpuimg_ctx *ctx = codec_ctx(4, 6);
    tu_load(ctx, tu_golden("../../samples/coffee.png"), &photo);
    gpuimg_ctx_destroy(ctx);
    smooth_image(&smooth, 1500, 1000, 3, 9);
    const gpuimg_image *images[2] = {&photo, &smooth};
    static const int levels[] = {1, 6, 9};
    for (int i = 0; i < 2; i++)
        for (size_t l = 0; l < sizeof levels / sizeof levels[0]; l++) {
            ctx = codec_ctx(4, levels[l]);
            size_t ours;
            free(encode_file(ctx, images[i], "size.png", &ours));
            size_t theirs = libpng_size(images[i], levels[l]);
            ck_assert_msg((double)ours <= 1.03 * (double)theirs,
                          "image %d level %d: %zu bytes against libpng's %zu", i, levels[l], ours,
                          theirs);
            gpuimg_ctx_destroy(ctx);
        }
    gpuimg_image_free(&photo);
    gpuimg_image_free(&smooth);
}
END_TEST

static void put_be32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

static size_t put_chunk(uint8_t *at, const char *type, const uint8_t *data, uint32_t len)
{
    put_be32(at, len);
    memcpy(at + 4, type, 4);
    if (len)
        memcpy(at + 8, data, len);
    put_be32(at + 8 + len, (uint32_t)crc32(0, at + 4, len + 4));
    return 12 + len;
}

static int paeth_predictor(int a, int b, int c)
{
    int p = a + b - c, pa = abs(p - a), pb = abs(p - b), pc = abs(p - c);
    return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

/* A PNG by hand: row y filtered with type (y + shift) % 5 (a type over 4
 * where bad_row says), deflated by zlib into IDATs of idat_len bytes. */
static uint8_t *forced_filter_png(const gpuimg_image *img, int shift, int bad_row, uLong idat_len,
                                  size_t *len)
{
    size_t n = (size_t)img->width * img->channels, raw_len = (n + 1) * img->height;
    int bpp = img->channels;
    uint8_t *raw = malloc(raw_len);
    ck_assert_ptr_nonnull(raw);
    for (int y = 0; y < img->height; y++) {
        const uint8_t *row = img->data + (size_t)y * n, *up = y ? row - n : NULL;
        uint8_t *o = raw + (size_t)y * (n + 1);
        int type = (y + shift) % 5;
        o[0] = (uint8_t)(y == bad_row ? 5 : type);
        for (size_t i = 0; i < n; i++) {
            int a = i >= (size_t)bpp ? row[i - bpp] : 0, b = up ? up[i] : 0;
            int c = up && i >= (size_t)bpp ? up[i - bpp] : 0;
            int pred = type == 0   ? 0
                       : type == 1 ? a
                       : type == 2 ? b
                       : type == 3 ? (a + b) / 2
                                   : paeth_predictor(a, b, c);
            o[1 + i] = (uint8_t)(row[i] - pred);
        }
    }
    uLong zlen = compressBound(raw_len);
    uint8_t *z = malloc(zlen);
    ck_assert_int_eq(compress2(z, &zlen, raw, raw_len, 6), Z_OK);
    free(raw);
    uint8_t *png = malloc(8 + 25 + zlen + 12 * (zlen / idat_len + 1) + 12);
    static const uint8_t sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    static const uint8_t types[5] = {0, 0, 4, 2, 6};
    memcpy(png, sig, 8);
    uint8_t ihdr[13] = {0};
    put_be32(ihdr, (uint32_t)img->width);
    put_be32(ihdr + 4, (uint32_t)img->height);
    ihdr[8] = 8;
    ihdr[9] = types[img->channels];
    size_t at = 8 + put_chunk(png + 8, "IHDR", ihdr, 13);
    for (uLong off = 0; off < zlen; off += idat_len)
        at += put_chunk(png + at, "IDAT", z + off,
                        (uint32_t)(zlen - off < idat_len ? zlen - off : idat_len));
    at += put_chunk(png + at, "IEND", NULL, 0);
    free(z);
    *len = at;
    return png;
}

/* The reader's own path (libdeflate and the wavefront unfilter) on every
 * filter type after every other, for each pixel size, on one thread and on
 * several (the larger images), and the first row of each type: the pixels
 * are the ones filtered, and libpng reads the same. */
START_TEST(png_reader_every_filter_type)
{
    static const struct {
        int w, h;
    } sizes[] = {{37, 23}, {700, 520}, {5, 60000}};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
        for (int c = 1; c <= 4; c++)
            for (int shift = 0; shift < 5; shift++) {
                if (sizes[s].h > 1000 && shift > 0)
                    continue;
                gpuimg_image img, got;
                tu_random_image(&img, sizes[s].w, sizes[s].h, c, (unsigned)(c * 5 + shift));
                size_t len;
                uint8_t *png = forced_filter_png(&img, shift, -1, 65536, &len);
                char what[96], path[512];
                snprintf(what, sizeof what, "%dx%dx%d first row type %d", sizes[s].w, sizes[s].h, c,
                         shift);
                assert_libpng_reads((const char *)png, len, &img, what);
                snprintf(path, sizeof path, "%s/forced.png", tu_tmpdir());
                tu_write_file(path, png, len);
                gpuimg_ctx *ctx = codec_ctx(4, 6);
                tu_load(ctx, path, &got);
                ck_assert_msg(got.channels == c && memcmp(got.data, img.data,
                                                          (size_t)img.width * img.height * c) == 0,
                              "%s: other pixels", what);
                gpuimg_image_free(&got);
                gpuimg_ctx_destroy(ctx);
                free(png);
                gpuimg_image_free(&img);
            }
}
END_TEST

/* A filter type over 4, in a file whose every CRC and checksum is right, is
 * refused (libpng's words), never guessed at; so is a cut inside the IDATs. */
START_TEST(png_reader_refuses_bad_filter_type)
{
    gpuimg_image img, got;
    tu_random_image(&img, 700, 520, 3, 3);
    size_t len;
    uint8_t *png = forced_filter_png(&img, 0, 300, 65536, &len);
    char path[512];
    snprintf(path, sizeof path, "%s/badfilter.png", tu_tmpdir());
    tu_write_file(path, png, len);
    gpuimg_ctx *ctx = codec_ctx(4, 6);
    ck_assert_int_eq(gpuimg_load(ctx, path, &got), GPUIMG_ERR_DECODE);
    ck_assert_msg(strstr(gpuimg_ctx_error(ctx), "damaged PNG"), "%s", gpuimg_ctx_error(ctx));
    free(png);
    png = forced_filter_png(&img, 0, -1, 65536, &len);
    tu_write_file(path, png, len / 2);
    ck_assert_int_eq(gpuimg_load(ctx, path, &got), GPUIMG_ERR_DECODE);
    ck_assert_msg(strstr(gpuimg_ctx_error(ctx), "truncated"), "%s", gpuimg_ctx_error(ctx));
    free(png);
    gpuimg_ctx_destroy(ctx);
    gpuimg_image_free(&img);
}
END_TEST

/* The file with one more chunk right after IHDR (offset 33). */
static uint8_t *with_chunk(const uint8_t *png, size_t len, const char *type, const uint8_t *data,
                           uint32_t n, size_t *out_len)
{
    uint8_t *out = malloc(len + 12 + n);
    ck_assert_ptr_nonnull(out);
    memcpy(out, png, 33);
    size_t k = put_chunk(out + 33, type, data, n);
    memcpy(out + 33 + k, png + 33, len - 33);
    *out_len = len + k;
    return out;
}

/* Files libpng refuses though every CRC is right are refused still: the
 * fast reader hands them to libpng rather than read them itself. */
START_TEST(png_reader_leaves_oddities_to_libpng)
{
    gpuimg_image img, got;
    tu_random_image(&img, 40, 30, 3, 8);
    size_t len, len1, len2;
    uint8_t *png = forced_filter_png(&img, 0, -1, 65536, &len);
    static const uint8_t palette[6] = {0, 0, 0, 255, 255, 255};
    uint8_t *one = with_chunk(png, len, "PLTE", palette, 6, &len1);
    uint8_t *two = with_chunk(one, len1, "PLTE", palette, 6, &len2);
    gpuimg_ctx *ctx = codec_ctx(2, 6);
    char path[512];
    snprintf(path, sizeof path, "%s/odd.png", tu_tmpdir());
    tu_write_file(path, one, len1); /* one suggested palette: fine */
    tu_load(ctx, path, &got);
    ck_assert_int_eq(memcmp(got.data, img.data, (size_t)40 * 30 * 3), 0);
    gpuimg_image_free(&got);
    tu_write_file(path, two, len2); /* two: libpng's "duplicate" */
    ck_assert_int_eq(gpuimg_load(ctx, path, &got), GPUIMG_ERR_DECODE);
    free(one);
    free(two);
    one = with_chunk(png, len, "ab1c", palette, 6, &len1); /* not four letters */
    tu_write_file(path, one, len1);
    ck_assert_int_eq(gpuimg_load(ctx, path, &got), GPUIMG_ERR_DECODE);
    free(one);
    free(png);
    gpuimg_ctx_destroy(ctx);
    gpuimg_image_free(&img);
}
END_TEST

static void assert_close_to_stb(const gpuimg_image *got, const char *path, int channels);

/* libjpeg-turbo's reading of a file against stb_image's: two independent
 * decoders of one file differ only by the rounding of the inverse DCT and
 * of the chroma upsampling. */
static void assert_close_to_stb(const gpuimg_image *got, const char *path, int channels)
{
    size_t len;
    char *data = tu_read_file(path, &len);
    ck_assert_ptr_nonnull(data);
    int w, h, c;
    uint8_t *px = stbi_load_from_memory((const uint8_t *)data, (int)len, &w, &h, &c, 0);
    ck_assert_ptr_nonnull(px);
    ck_assert_int_eq(c, channels);
    ck_assert_int_eq(got->channels, channels);
    ck_assert_int_eq(w, got->width);
    ck_assert_int_eq(h, got->height);
    size_t n = (size_t)w * h * c;
    double sum = 0;
    int worst = 0;
    for (size_t i = 0; i < n; i++) {
        int d = abs((int)px[i] - (int)got->data[i]);
        sum += d;
        worst = d > worst ? d : worst;
    }
    ck_assert_msg(sum / (double)n < 1.0 && worst <= 24, "%s: mean %.2f, max %d against stb", path,
                  sum / (double)n, worst);
    stbi_image_free(px);
    free(data);
}

START_TEST(jpeg_every_channel_count)
{
    gpuimg_ctx *ctx = codec_ctx(0, 6);
    gpuimg_image photo;
    tu_load(ctx, tu_golden("inputs/photo_96x64_rgba.png"), &photo);
    /* 4 -> 3 (alpha dropped), 3, 2 -> 1, 1 */
    for (int c = 4; c >= 1; c--) {
        gpuimg_image in, back;
        ck_assert_int_eq(gpuimg_image_alloc(&in, photo.width, photo.height, c), GPUIMG_OK);
        for (size_t p = 0; p < (size_t)photo.width * photo.height; p++)
            for (int k = 0; k < c; k++)
                in.data[p * c + k] = photo.data[p * 4 + (c <= 2 && k == 0 ? 1 : k)];
        char path[512];
        snprintf(path, sizeof path, "%s/c%d.jpg", tu_tmpdir(), c);
        ck_assert_msg(gpuimg_save(ctx, path, GPUIMG_FORMAT_NONE, &in) == GPUIMG_OK, "%s",
                      gpuimg_ctx_error(ctx));
        tu_load(ctx, path, &back);
        int want = c >= 3 ? 3 : 1;
        assert_close_to_stb(&back, path, want);
        double err = 0; /* and close to what was written: quality 90 */
        for (size_t p = 0; p < (size_t)in.width * in.height; p++)
            for (int k = 0; k < want; k++)
                err += abs((int)back.data[p * want + k] - (int)in.data[p * c + k]);
        err /= (double)in.width * in.height * want;
        ck_assert_msg(err < 4.0, "%d channels: mean error %.2f", c, err);
        gpuimg_image_free(&in);
        gpuimg_image_free(&back);
    }
    gpuimg_image_free(&photo);
    gpuimg_ctx_destroy(ctx);
}
END_TEST

/* A JPEG written by libjpeg itself, in the forms files come in: baseline
 * 4:2:0 and 4:4:4, gray, progressive. */
static void write_jpeg(const char *path, const gpuimg_image *img, int h_samp, int progressive)
{
    struct jpeg_compress_struct c;
    struct jpeg_error_mgr err;
    c.err = jpeg_std_error(&err);
    jpeg_create_compress(&c);
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    jpeg_stdio_dest(&c, f);
    c.image_width = (JDIMENSION)img->width;
    c.image_height = (JDIMENSION)img->height;
    c.input_components = img->channels;
    c.in_color_space = img->channels == 1 ? JCS_GRAYSCALE : JCS_RGB;
    jpeg_set_defaults(&c);
    jpeg_set_quality(&c, 90, TRUE);
    if (img->channels == 3) {
        c.comp_info[0].h_samp_factor = h_samp;
        c.comp_info[0].v_samp_factor = h_samp;
    }
    if (progressive)
        jpeg_simple_progression(&c);
    jpeg_start_compress(&c, TRUE);
    size_t stride = (size_t)img->width * img->channels;
    while (c.next_scanline < c.image_height) {
        JSAMPROW row = img->data + c.next_scanline * stride;
        jpeg_write_scanlines(&c, &row, 1);
    }
    jpeg_finish_compress(&c);
    jpeg_destroy_compress(&c);
    fclose(f);
}

/* A large JPEG read in bands on several threads is the image one band
 * gives, byte for byte, in every form; and a cut file still fails. */
START_TEST(jpeg_bands_join_exactly)
{
    static const struct {
        int c, samp, progressive;
    } forms[] = {{3, 2, 0}, {3, 1, 0}, {1, 1, 0}, {3, 2, 1}};
    gpuimg_image img;
    smooth_image(&img, 2411, 1803, 3, 4); /* 4.3 MP: above the banding size; odd sizes */
    gpuimg_image gray;
    ck_assert_int_eq(gpuimg_image_alloc(&gray, img.width, img.height, 1), GPUIMG_OK);
    for (size_t i = 0; i < (size_t)img.width * img.height; i++)
        gray.data[i] = img.data[3 * i + 1];
    gpuimg_ctx *one = codec_ctx(1, 6), *many = codec_ctx(5, 6);
    for (size_t f = 0; f < sizeof forms / sizeof forms[0]; f++) {
        char path[512];
        snprintf(path, sizeof path, "%s/band%zu.jpg", tu_tmpdir(), f);
        write_jpeg(path, forms[f].c == 1 ? &gray : &img, forms[f].samp, forms[f].progressive);
        gpuimg_image a, b;
        tu_load(one, path, &a);
        tu_load(many, path, &b);
        size_t n = (size_t)a.width * a.height * a.channels;
        ck_assert_int_eq(b.channels, forms[f].c);
        ck_assert_msg(memcmp(a.data, b.data, n) == 0, "form %zu: bands differ from one pass", f);
        assert_close_to_stb(&b, path, forms[f].c);
        gpuimg_image_free(&a);
        gpuimg_image_free(&b);
        size_t len;
        char *data = tu_read_file(path, &len);
        snprintf(path, sizeof path, "%s/cut%zu.jpg", tu_tmpdir(), f);
        tu_write_file(path, data, len * 7 / 10);
        free(data);
        ck_assert_int_eq(gpuimg_load(many, path, &b), GPUIMG_ERR_DECODE);
        ck_assert_msg(strstr(gpuimg_ctx_error(many), "truncated JPEG"), "%s",
                      gpuimg_ctx_error(many));
    }
    gpuimg_ctx_destroy(one);
    gpuimg_ctx_destroy(many);
    gpuimg_image_free(&img);
    gpuimg_image_free(&gray);
}
END_TEST

/* A file another encoder wrote (Pillow, tests/golden/formats/photo.jpg). */
START_TEST(jpeg_foreign_file_like_stb)
{
    gpuimg_ctx *ctx = codec_ctx(0, 6);
    gpuimg_image img;
    tu_load(ctx, tu_golden("formats/photo.jpg"), &img);
    assert_close_to_stb(&img, tu_golden("formats/photo.jpg"), 3);
    gpuimg_image_free(&img);
    gpuimg_ctx_destroy(ctx);
}
END_TEST

Suite *codecs_suite(void)
{
    Suite *s = suite_create("codecs");
    TCase *tc = tu_tcase("codecs");
    tcase_add_test(tc, png_read_back_by_libpng_and_stb);
    tcase_add_test(tc, png_bytes_do_not_depend_on_threads);
    tcase_add_test(tc, png_size_close_to_libpng);
    tcase_add_test(tc, png_chunk_joins_read_back);
    tcase_add_test(tc, deflate_walker_agrees_with_libdeflate);
    tcase_add_test(tc, deflate_walker_refuses_garbage);
    tcase_add_test(tc, png_reader_every_filter_type);
    tcase_add_test(tc, png_reader_refuses_bad_filter_type);
    tcase_add_test(tc, jpeg_every_channel_count);
    tcase_add_test(tc, jpeg_foreign_file_like_stb);
    tcase_add_test(tc, jpeg_bands_join_exactly);
    tcase_add_test(tc, png_reader_leaves_oddities_to_libpng);
    suite_add_tcase(s, tc);
    return s;
}
