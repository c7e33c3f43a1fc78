/* SPDX-License-Identifier: MIT */
/* BMP, read here (SPEC §2: every BMP that BMP Suite calls good). stb_image
 * read the high byte of a plain 32-bit BMP as alpha (BMP Suite's
 * rgb32fakealpha came out nearly all transparent), refused a palette
 * before 16/24/32-bit pixels and RLE, and read a palette index past the
 * palette from its stack; this reader checks every length against the
 * bytes there are.
 *
 * Layout (Microsoft's BITMAPINFOHEADER and BITMAPV5HEADER pages, BMP
 * Suite): a 14-byte file header ("BM", size, reserved, the pixel data's
 * offset), an info header whose size says which one it is (12: OS/2 v1's
 * BITMAPCOREHEADER, 16-bit sides, 3-byte palette entries; 16 and 64: OS/2
 * v2; 40: INFO; 52, 56: INFO with RGB and RGBA masks; 108: V4; 124: V5),
 * the masks (after a 40-byte header with BI_BITFIELDS or
 * BI_ALPHABITFIELDS), the palette, then the pixels: rows bottom-up (or
 * top-down for a negative height), each padded to 4 bytes, or an RLE
 * stream.
 *
 * What comes out, predictable from the header alone (gpuimg info tells
 * the same): palette images RGB; 16 and 32 bits RGBA when the header gives
 * an alpha mask (BI_BITFIELDS with a V3+ header, or BI_ALPHABITFIELDS),
 * else RGB: without a mask the fourth byte of a 32-bit pixel is padding,
 * whatever it holds. Choices where BMP Suite leaves room:
 * - an alpha mask whose every pixel has alpha 0 is opaque, as Chromium and
 *   Firefox read such files (writers that fill the mask without meaning it);
 * - pixels an RLE stream never sets (its delta and end-of-line escapes skip
 *   them, or it ends early with end-of-bitmap) are black, opaque: the
 *   output stays RGB, as for every palette image, where BMP Suite's
 *   reference shows them transparent and Windows leaves them unpainted;
 * - a palette index past the palette is refused (damaged), as before:
 *   BMP Suite calls pal8badindex questionable, not good;
 * - bfSize is not read (BMP Suite: filesize-bad is readable); the pixel
 *   data must be there in full, padding of the last row included. */
#include <stdlib.h>
#include <string.h>

#include "io/bytes.h"
#include "io/formats.h"
#include "io/io.h"

enum { BI_RGB = 0, BI_RLE8 = 1, BI_RLE4 = 2, BI_BITFIELDS = 3, BI_ALPHABITFIELDS = 6 };

/* One colour field of a 16- or 32-bit pixel. */
struct field {
    uint32_t mask;
    unsigned shift;
    uint32_t max; /* the field's largest value, mask >> shift; 0: no field */
};

struct bmp {
    uint32_t header; /* the info header's size */
    uint64_t width, height;
    int top_down;
    unsigned bpp, compression;
    struct field fields[4]; /* R, G, B, A */
    uint64_t palette_at;    /* where the palette (or, past 8 bits, nothing) starts */
    unsigned entry;         /* bytes of a palette entry: 3 (OS/2 v1) or 4 */
    uint64_t colours;       /* palette entries the header asks for */
    uint64_t data_at;
    int channels;
};

static gpuimg_status damaged(gpuimg_ctx *ctx, const char *name, const char *why)
{
    return gpuimg__fail(ctx, GPUIMG_ERR_DECODE, "%s: not a supported image (damaged BMP: %s)", name,
                        why);
}

static gpuimg_status truncated(gpuimg_ctx *ctx, const char *name)
{
    return gpuimg__fail(ctx, GPUIMG_ERR_DECODE, "%s: not a supported image (truncated BMP)", name);
}

/* A mask must be one run of bits inside the pixel: a field's value is then
 * (v & mask) >> shift, of max + 1 levels. */
static int set_field(struct field *f, uint32_t mask, unsigned bpp)
{
    memset(f, 0, sizeof *f);
    if (mask == 0)
        return 1;
    if (bpp < 32 && mask >> bpp)
        return 0;
    unsigned shift = 0;
    while (!(mask >> shift & 1))
        shift++;
    uint32_t max = mask >> shift;
    if ((max & ((uint64_t)max + 1)) != 0) /* not contiguous */
        return 0;
    f->mask = mask;
    f->shift = shift;
    f->max = max;
    return 1;
}

/* The masks of a BI_BITFIELDS or BI_ALPHABITFIELDS image, or the defaults
 * of BI_RGB (5-5-5 at 16 bits, 8-8-8 at 32, no alpha). */
static gpuimg_status read_masks(gpuimg_ctx *ctx, const char *name, const uint8_t *p, size_t n,
                                struct bmp *b)
{
    uint32_t m[4] = {0, 0, 0, 0};
    if (b->compression == BI_RGB) {
        if (b->bpp == 16)
            m[0] = 0x7C00, m[1] = 0x03E0, m[2] = 0x001F;
        else
            m[0] = 0xFF0000, m[1] = 0xFF00, m[2] = 0xFF;
    } else {
        /* in the header from 52 bytes on (alpha from 56); after a 40-byte
         * one, three masks (four with BI_ALPHABITFIELDS) of their own */
        int alpha = b->compression == BI_ALPHABITFIELDS;
        if (b->header == 52 && alpha)
            return damaged(ctx, name, "no alpha mask in a 52-byte header");
        int count = alpha || b->header >= 56 ? 4 : 3;
        uint64_t at = 14 + 40;
        if (b->header == 40)
            b->palette_at += 4 * (uint64_t)count;
        if (b->palette_at > n)
            return truncated(ctx, name);
        for (int i = 0; i < count; i++)
            m[i] = gpuimg__le32(p + at + 4 * i);
    }
    for (int i = 0; i < 4; i++)
        if (!set_field(&b->fields[i], m[i], b->bpp))
            return damaged(ctx, name, "bad bit fields");
    b->channels = b->fields[3].max ? 4 : 3;
    return GPUIMG_OK;
}

/* The compression, checked against the bit depth and header. */
static gpuimg_status check_compression(gpuimg_ctx *ctx, const char *name, const struct bmp *b)
{
    unsigned c = b->compression, bpp = b->bpp;
    int ok = c == BI_RGB || (c == BI_RLE8 && bpp == 8) || (c == BI_RLE4 && bpp == 4) ||
             ((c == BI_BITFIELDS || c == BI_ALPHABITFIELDS) && (bpp == 16 || bpp == 32));
    /* OS/2 v2's 3 and 4 are Huffman 1-D and RLE24 */
    if (c >= 3 && b->header == 64)
        ok = 0;
    if (!ok && (c == BI_RLE8 || c == BI_RLE4 || c == BI_BITFIELDS || c == BI_ALPHABITFIELDS))
        return damaged(ctx, name, "compression does not fit the bit depth");
    if (!ok)
        return gpuimg__fail(ctx, GPUIMG_ERR_DECODE,
                            "%s: not a supported image (BMP compression %u is not read)", name, c);
    if (b->top_down && (c == BI_RLE8 || c == BI_RLE4))
        return damaged(ctx, name, "top-down RLE");
    return GPUIMG_OK;
}

/* Everything the headers say, checked against each other and the file's
 * first n bytes (the pixel data's own length is the decoder's to check). */
static gpuimg_status parse(gpuimg_ctx *ctx, const char *name, const uint8_t *p, size_t n,
                           struct bmp *b)
{
    memset(b, 0, sizeof *b);
    if (n < 18)
        return truncated(ctx, name);
    b->header = gpuimg__le32(p + 14);
    uint32_t h = b->header;
    if (h != 12 && h != 16 && h != 40 && h != 52 && h != 56 && h != 64 && h != 108 && h != 124)
        return damaged(ctx, name, "unknown header size");
    if (n < 14 + (uint64_t)h)
        return truncated(ctx, name);
    int64_t w, height;
    unsigned planes;
    if (h == 12) {
        w = gpuimg__le16(p + 18);
        height = gpuimg__le16(p + 20);
        planes = gpuimg__le16(p + 22);
        b->bpp = gpuimg__le16(p + 24);
    } else {
        w = (int32_t)gpuimg__le32(p + 18);
        height = (int32_t)gpuimg__le32(p + 22);
        planes = gpuimg__le16(p + 26);
        b->bpp = gpuimg__le16(p + 28);
        b->compression = h >= 40 ? gpuimg__le32(p + 30) : BI_RGB;
    }
    unsigned bpp = b->bpp;
    /* JPEG and PNG inside a BMP (printer data) have no bit depth of their own */
    if ((b->compression == 4 || b->compression == 5) && h != 64)
        return gpuimg__fail(ctx, GPUIMG_ERR_DECODE,
                            "%s: not a supported image (BMP compression %u is not read)", name,
                            b->compression);
    if (planes != 1 ||
        (bpp != 1 && bpp != 2 && bpp != 4 && bpp != 8 && bpp != 16 && bpp != 24 && bpp != 32))
        return damaged(ctx, name, "bad bit depth");
    if (w < 0 || height == INT32_MIN)
        return damaged(ctx, name, "bad size");
    b->width = (uint64_t)w;
    b->top_down = height < 0;
    b->height = (uint64_t)(height < 0 ? -height : height);
    gpuimg_status st = check_compression(ctx, name, b);
    if (st != GPUIMG_OK)
        return st;
    b->entry = h == 12 ? 3 : 4;
    b->palette_at = 14 + (uint64_t)h;
    b->channels = 3;
    if (bpp == 16 || bpp == 32) {
        if ((st = read_masks(ctx, name, p, n, b)) != GPUIMG_OK)
            return st;
    } else if (bpp <= 8) {
        uint64_t used = h >= 40 ? gpuimg__le32(p + 46) : 0;
        b->colours = used == 0 || used > (1u << bpp) ? 1u << bpp : used;
    }
    b->data_at = gpuimg__le32(p + 10);
    if (b->data_at < b->palette_at)
        return damaged(ctx, name, "pixel data offset inside the header");
    return GPUIMG_OK;
}

static gpuimg_status probe(gpuimg_ctx *ctx, const char *name, const uint8_t *data, size_t size,
                           gpuimg_file_info *out)
{
    struct bmp b;
    gpuimg_status st = parse(ctx, name, data, size, &b);
    if (st != GPUIMG_OK)
        return st;
    /* a side past 65535 reads as 0, which the probe reports as such */
    out->stored_width = b.width <= GPUIMG_MAX_SIDE ? (int)b.width : 0;
    out->stored_height = b.height <= GPUIMG_MAX_SIDE ? (int)b.height : 0;
    out->channels = b.channels;
    out->depth = 8;
    return GPUIMG_OK;
}

/* The palette as RGB: the entries the header asks for, as many of them as
 * lie between the headers and the pixel data. */
static gpuimg_status read_palette(gpuimg_ctx *ctx, const char *name, const uint8_t *p, size_t n,
                                  const struct bmp *b, uint8_t rgb[256][3], unsigned *count)
{
    uint64_t end = b->data_at < n ? b->data_at : n;
    uint64_t present = (end - b->palette_at) / b->entry;
    *count = (unsigned)(b->colours < present ? b->colours : present);
    if (*count == 0)
        return damaged(ctx, name, "bad palette");
    for (unsigned i = 0; i < *count; i++) {
        const uint8_t *e = p + b->palette_at + (uint64_t)i * b->entry;
        rgb[i][0] = e[2];
        rgb[i][1] = e[1];
        rgb[i][2] = e[0];
    }
    return GPUIMG_OK;
}

static gpuimg_status bad_index(gpuimg_ctx *ctx, const char *name)
{
    return damaged(ctx, name, "palette index past the palette");
}

/* Row y of the output for the y-th row stored. */
static uint8_t *out_row(const struct bmp *b, gpuimg_image *out, uint64_t y)
{
    uint64_t r = b->top_down ? y : b->height - 1 - y;
    return out->data + r * b->width * (uint64_t)b->channels;
}

/* 1, 2, 4 or 8-bit indices of one stored row through the palette; 0 when
 * one is past it. */
static int palette_row(const uint8_t *src, uint64_t w, unsigned bpp, const uint8_t pal[256][3],
                       unsigned count, uint8_t *dst)
{
    unsigned per_byte = 8 / bpp, mask = (1u << bpp) - 1;
    for (uint64_t x = 0; x < w; x++, dst += 3) {
        unsigned k = (unsigned)(x % per_byte);
        unsigned index = src[x / per_byte] >> (8 - bpp * (k + 1)) & mask;
        if (index >= count)
            return 0;
        memcpy(dst, pal[index], 3);
    }
    return 1;
}

/* A field's value scaled exactly to 8 bits: round(v * 255 / max). */
static uint8_t scale(const struct field *f, uint32_t v)
{
    if (!f->max)
        return 0;
    uint64_t x = (v & f->mask) >> f->shift;
    return f->max == 255 ? (uint8_t)x : (uint8_t)((x * 255 + f->max / 2) / f->max);
}

static void masked_row(const uint8_t *src, uint64_t w, const struct bmp *b, uint8_t *dst)
{
    int c = b->channels;
    for (uint64_t x = 0; x < w; x++, dst += c) {
        uint32_t v = b->bpp == 16 ? gpuimg__le16(src + 2 * x) : gpuimg__le32(src + 4 * x);
        for (int i = 0; i < c; i++)
            dst[i] = scale(&b->fields[i], v);
    }
}

/* An alpha mask that no pixel uses (every alpha 0) was not meant: opaque. */
static void opaque_if_unused(gpuimg_image *out, uint64_t pixels)
{
    for (uint64_t i = 0; i < pixels; i++)
        if (out->data[4 * i + 3])
            return;
    for (uint64_t i = 0; i < pixels; i++)
        out->data[4 * i + 3] = 255;
}

static gpuimg_status take(gpuimg_ctx *ctx, const char *name, const struct bmp *b, gpuimg_image *out)
{
    gpuimg_status st = gpuimg__image_take(ctx, out, (int)b->width, (int)b->height, b->channels);
    return st == GPUIMG_OK ? st : gpuimg__fail_as(ctx, st, name);
}

static gpuimg_status decode_rows(gpuimg_ctx *ctx, const char *name, const uint8_t *p, size_t n,
                                 const struct bmp *b, gpuimg_image *out)
{
    uint64_t stride = (b->width * b->bpp + 31) / 32 * 4;
    if (b->data_at > n || stride * b->height > n - b->data_at)
        return truncated(ctx, name);
    uint8_t pal[256][3];
    unsigned count = 0;
    gpuimg_status st;
    if (b->bpp <= 8 && (st = read_palette(ctx, name, p, n, b, pal, &count)) != GPUIMG_OK)
        return st;
    if ((st = take(ctx, name, b, out)) != GPUIMG_OK)
        return st;
    for (uint64_t y = 0; y < b->height; y++) {
        const uint8_t *src = p + b->data_at + y * stride;
        uint8_t *dst = out_row(b, out, y);
        if (b->bpp <= 8) {
            if (!palette_row(src, b->width, b->bpp, pal, count, dst)) {
                gpuimg_image_free(out);
                return bad_index(ctx, name);
            }
        } else if (b->bpp == 24) {
            for (uint64_t x = 0; x < b->width; x++)
                dst[3 * x] = src[3 * x + 2], dst[3 * x + 1] = src[3 * x + 1],
                        dst[3 * x + 2] = src[3 * x];
        } else {
            masked_row(src, b->width, b, dst);
        }
    }
    if (b->channels == 4)
        opaque_if_unused(out, b->width * b->height);
    return GPUIMG_OK;
}

/* An RLE8 or RLE4 stream (Microsoft's "Bitmap Compression"): pairs of a
 * count and a colour (RLE4: two alternating indices), or 0 and an escape:
 * 0 end of line, 1 end of bitmap, 2 a delta (right dx, up dy), 3-255 that
 * many literal indices padded to a 16-bit word. Walked twice: once with
 * out NULL, which checks the whole stream before anything is allocated,
 * then to paint. A run past its row's end, a delta past the image, or a
 * stream that ends before end-of-bitmap while rows are left is damaged. */
struct rle {
    const uint8_t *p;
    size_t n, at;
    const struct bmp *b;
    const uint8_t (*pal)[3];
    unsigned count;
    gpuimg_image *out;
    uint64_t x, y;
};

/* Paints index v at the cursor (checked already to lie in the image). */
static int rle_put(struct rle *r, unsigned v)
{
    if (v >= r->count)
        return 0;
    if (r->out)
        memcpy(out_row(r->b, r->out, r->y) + 3 * r->x, r->pal[v], 3);
    r->x++;
    return 1;
}

/* One escape (0 then e); 1 at end of bitmap, 0 to go on, -1 damaged with
 * *why set. */
static int rle_escape(struct rle *r, unsigned e, const char **why)
{
    const struct bmp *b = r->b;
    if (e == 0) {
        r->x = 0;
        if (++r->y > b->height)
            return *why = "RLE past the image's last row", -1;
        return 0;
    }
    if (e == 1)
        return 1;
    if (e == 2) {
        if (r->n - r->at < 2)
            return *why = NULL, -1;
        r->x += r->p[r->at];
        r->y += r->p[r->at + 1];
        r->at += 2;
        if (r->x > b->width || r->y > b->height)
            return *why = "RLE delta past the image", -1;
        return 0;
    }
    uint64_t bytes = b->bpp == 8 ? e : (e + 1) / 2;
    bytes += bytes & 1;
    if (r->n - r->at < bytes)
        return *why = NULL, -1;
    if (r->y >= b->height || e > b->width - r->x)
        return *why = "RLE run past the row's end", -1;
    const uint8_t *s = r->p + r->at;
    for (unsigned i = 0; i < e; i++)
        if (!rle_put(r, b->bpp == 8 ? s[i] : (s[i / 2] >> (i % 2 ? 0 : 4)) & 15))
            return *why = "palette index past the palette", -1;
    r->at += bytes;
    return 0;
}

static gpuimg_status rle_walk(gpuimg_ctx *ctx, const char *name, struct rle *r)
{
    const struct bmp *b = r->b;
    r->at = b->data_at;
    r->x = r->y = 0;
    for (;;) {
        if (r->n - r->at < 2) /* no end of bitmap: complete only once every row was reached */
            return r->y >= b->height ? GPUIMG_OK : truncated(ctx, name);
        unsigned count = r->p[r->at], v = r->p[r->at + 1];
        r->at += 2;
        if (count == 0) {
            const char *why = NULL;
            int done = rle_escape(r, v, &why);
            if (done < 0)
                return why ? damaged(ctx, name, why) : truncated(ctx, name);
            if (done)
                return GPUIMG_OK;
            continue;
        }
        if (r->y >= b->height || count > b->width - r->x)
            return damaged(ctx, name, "RLE run past the row's end");
        for (unsigned i = 0; i < count; i++)
            if (!rle_put(r, b->bpp == 8 ? v : i % 2 ? v & 15 : v >> 4))
                return bad_index(ctx, name);
    }
}

static gpuimg_status decode_rle(gpuimg_ctx *ctx, const char *name, const uint8_t *p, size_t n,
                                const struct bmp *b, gpuimg_image *out)
{
    if (b->data_at > n)
        return truncated(ctx, name);
    uint8_t pal[256][3];
    struct rle r = {p, n, 0, b, pal, 0, NULL, 0, 0};
    gpuimg_status st = read_palette(ctx, name, p, n, b, pal, &r.count);
    if (st == GPUIMG_OK)
        st = rle_walk(ctx, name, &r);
    if (st == GPUIMG_OK)
        st = take(ctx, name, b, out);
    if (st != GPUIMG_OK)
        return st;
    /* what the stream skips is black (see the top of the file) */
    memset(out->data, 0, b->width * b->height * 3);
    r.out = out;
    return rle_walk(ctx, name, &r); /* checked already: it paints and succeeds */
}

static gpuimg_status decode(gpuimg_ctx *ctx, const uint8_t *data, size_t size, const char *name,
                            gpuimg_image *out)
{
    struct bmp b;
    gpuimg_status st = parse(ctx, name, data, size, &b);
    if (st == GPUIMG_OK)
        st = gpuimg__check_size(ctx, name, b.width, b.height);
    if (st != GPUIMG_OK)
        return st;
    if (b.compression == BI_RLE8 || b.compression == BI_RLE4)
        return decode_rle(ctx, name, data, size, &b, out);
    return decode_rows(ctx, name, data, size, &b, out);
}

static int is_bmp(const uint8_t *p, size_t n)
{
    return n >= 2 && p[0] == 'B' && p[1] == 'M';
}

const gpuimg__format gpuimg__format_bmp = {
    .name = "bmp",
    .extensions = {{"bmp", GPUIMG_FORMAT_BMP}},
    .sniff = is_bmp,
    .probe = probe,
    .stream_size = gpuimg__stream_size_of_header,
    .decode = decode,
    .encode = gpuimg__encode_stb,
    .encode_max_bytes = GPUIMG__STB_WRITE_MAX,
};
