/* SPDX-License-Identifier: MIT */
/* TGA through stb_image (stb_image.c: its only decoder in the
 * program); BMP and TGA written through stb_image_write (Debian's libstb).
 * BMP and GIF are read by bmp.c and gif.c.
 *
 * Before stb sees a file, its header is checked here against the format's
 * own rules and against the file's size: the sides and --max-pixels, the
 * bytes the pixels need (uncompressed data must be there in full;
 * compressed data can shrink the pixels only so far). stb reads a file
 * through callbacks here, so that a decoder asking for bytes past the end
 * marks the file truncated; stb itself reads zeros there and says
 * nothing. */
#include <errno.h>
#include <limits.h>
#include <stb_image_write.h>
#include <stdlib.h>
#include <string.h>

#include "io/bytes.h"
#include "io/formats.h"
#include "io/io.h"
#include "io/stb_image.h"

struct reader {
    const uint8_t *data;
    size_t size, pos;
    int over_read; /* the decoder wanted more than the file holds */
};

static int read_cb(void *user, char *dst, int n)
{
    struct reader *r = user;
    size_t left = r->size - r->pos, k = (size_t)n < left ? (size_t)n : left;
    if (n > 0 && k == 0)
        r->over_read = 1;
    memcpy(dst, r->data + r->pos, k);
    r->pos += k;
    return (int)k;
}

static void skip_cb(void *user, int n)
{
    struct reader *r = user;
    if (n < 0) {
        size_t back = (size_t) - (long)n;
        r->pos = back > r->pos ? 0 : r->pos - back;
    } else if ((size_t)n > r->size - r->pos) {
        r->over_read = 1;
        r->pos = r->size;
    } else {
        r->pos += (size_t)n;
    }
}

static int eof_cb(void *user)
{
    struct reader *r = user;
    return r->pos >= r->size;
}

static const gpuimg__stbi_callbacks callbacks = {read_cb, skip_cb, eof_cb};

static gpuimg_status damaged(gpuimg_ctx *ctx, const char *name, const char *why)
{
    return gpuimg__fail(ctx, GPUIMG_ERR_DECODE, "%s: not a supported image (damaged TGA: %s)", name,
                        why);
}

static gpuimg_status truncated(gpuimg_ctx *ctx, const char *name)
{
    return gpuimg__fail(ctx, GPUIMG_ERR_DECODE, "%s: not a supported image (truncated TGA)", name);
}

static int plausible(const uint8_t *p, size_t n)
{
    /* stb_image's own test (stbi__tga_test), which decides what stb takes
     * for a TGA: a colour map type of 0 or 1 (so no other format's
     * signature passes), an image type that fits it, and pixel sizes. */
    if (n < 18 || p[1] > 1)
        return 0;
    int indexed = p[1] == 1, type = p[2], bits = p[16];
    if (indexed ? type != 1 && type != 9 : type != 2 && type != 3 && type != 10 && type != 11)
        return 0;
    if (indexed && p[7] != 8 && p[7] != 15 && p[7] != 16 && p[7] != 24 && p[7] != 32)
        return 0;
    if (gpuimg__le16(p + 12) < 1 || gpuimg__le16(p + 14) < 1)
        return 0;
    if (indexed && bits != 8 && bits != 16)
        return 0;
    return bits == 8 || bits == 15 || bits == 16 || bits == 24 || bits == 32;
}

/* What a file's header promises, checked against the file before stb
 * allocates anything. */
struct promise {
    uint64_t width, height;
    uint64_t data_at;   /* where the pixel data starts */
    uint64_t raw_bytes; /* bytes the data takes uncompressed; 0: compressed */
    /* compressed: at most this many pixel values a byte of data can hold */
    uint64_t ratio, values;
};

/* TGA: an 18-byte header, an id, a colour map, then pixels raw or in RLE
 * packets (a packet of 1 + pixel bytes makes at most 128 pixels). */
static gpuimg_status check_tga(gpuimg_ctx *ctx, const char *name, const uint8_t *p,
                               struct promise *pr)
{
    pr->width = gpuimg__le16(p + 12);
    pr->height = gpuimg__le16(p + 14);
    gpuimg_status st = gpuimg__check_size(ctx, name, pr->width, pr->height);
    if (st != GPUIMG_OK)
        return st;
    int indexed = p[1] == 1, rle = p[2] >= 8;
    uint64_t at = 18 + p[0];
    if (indexed) {
        uint64_t len = gpuimg__le16(p + 5), entry = (p[7] + 7u) / 8;
        if (len == 0)
            return damaged(ctx, name, "empty colour map");
        at += gpuimg__le16(p + 3) + len * entry; /* stb skips the first entry's index in bytes */
    }
    pr->data_at = at;
    if (rle) {
        pr->ratio = 128;
        pr->values = pr->width * pr->height;
    } else {
        pr->raw_bytes = pr->width * pr->height * ((p[16] + 7u) / 8);
    }
    return GPUIMG_OK;
}

static gpuimg_status decode(gpuimg_ctx *ctx, const uint8_t *data, size_t size, const char *name,
                            gpuimg_image *out)
{
    if (size > INT_MAX)
        return gpuimg__fail(ctx, GPUIMG_ERR_TOO_LARGE, "%s: file too large for stb_image", name);
    struct promise pr = {0};
    gpuimg_status st = check_tga(ctx, name, data, &pr);
    if (st != GPUIMG_OK)
        return st;
    if (pr.data_at > size || pr.raw_bytes > size - pr.data_at)
        return truncated(ctx, name);
    if (pr.ratio && pr.values / pr.ratio > size - pr.data_at)
        return damaged(ctx, name, "more pixels than its data can hold");

    struct reader r = {data, size, 0, 0};
    int w, h, comp;
    uint8_t *pixels = gpuimg__stbi_load(&callbacks, &r, &w, &h, &comp);
    if (!pixels)
        return r.over_read ? truncated(ctx, name)
                           : gpuimg__fail(ctx, GPUIMG_ERR_DECODE, "%s: not a supported image (%s)",
                                          name, gpuimg__stbi_failure_reason());
    if (r.over_read || comp < 1 || comp > 4 || (uint64_t)w != pr.width ||
        (uint64_t)h != pr.height) {
        free(pixels);
        return r.over_read ? truncated(ctx, name)
                           : damaged(ctx, name, "the decoder disagrees with the header");
    }
    st = gpuimg__image_take(ctx, out, w, h, comp);
    if (st != GPUIMG_OK) {
        free(pixels);
        return gpuimg__fail_as(ctx, st, name);
    }
    memcpy(out->data, pixels, gpuimg__image_bytes(w, h, comp));
    free(pixels);
    return GPUIMG_OK;
}

struct sink {
    FILE *f;
    int failed, error;
};

static void write_cb(void *user, void *data, int size)
{
    struct sink *s = user;
    if (!s->failed && fwrite(data, 1, (size_t)size, s->f) != (size_t)size) {
        s->failed = 1;
        s->error = errno;
    }
}

gpuimg_status gpuimg__encode_stb(gpuimg_ctx *ctx, FILE *f, const char *name, gpuimg_format format,
                                 const gpuimg_image *img)
{
    struct sink s = {f, 0, 0};
    int ok = 0, w = img->width, h = img->height, c = img->channels;
    switch (format) {
    case GPUIMG_FORMAT_BMP: ok = stbi_write_bmp_to_func(write_cb, &s, w, h, c, img->data); break;
    case GPUIMG_FORMAT_TGA: ok = stbi_write_tga_to_func(write_cb, &s, w, h, c, img->data); break;
    default: return gpuimg__fail(ctx, GPUIMG_ERR_INTERNAL, "%s: no stb writer", name);
    }
    if (!ok || s.failed)
        return gpuimg__fail(ctx, GPUIMG_ERR_IO, "%s: write failed: %s", name,
                            s.failed ? strerror(s.error) : "stb_image_write refused the image");
    return GPUIMG_OK;
}

static gpuimg_status probe(gpuimg_ctx *ctx, const char *name, const uint8_t *d, size_t n,
                           gpuimg_file_info *o)
{
    int w, h, c;
    if (n > 0x7fffffff || !gpuimg__stbi_info(d, (int)n, &w, &h, &c))
        return gpuimg__fail(ctx, GPUIMG_ERR_DECODE, "%s: not a supported image (damaged header)",
                            name);
    o->stored_width = w, o->stored_height = h, o->channels = c, o->depth = 8;
    return GPUIMG_OK;
}

/* No signature: what stb_image takes for a TGA, tried after every format
 * that has one. */
const gpuimg__format gpuimg__format_tga = {
    .name = "tga",
    .extensions = {{"tga", GPUIMG_FORMAT_TGA}},
    .guessed = 1,
    .sniff = plausible,
    .probe = probe,
    .stream_size = gpuimg__stream_size_of_header,
    .decode = decode,
    .encode = gpuimg__encode_stb,
    .encode_max_bytes = GPUIMG__STB_WRITE_MAX,
};
