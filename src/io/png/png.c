/* SPDX-License-Identifier: MIT */
/* PNG reading through libpng: it checks every chunk's CRC and the stream's
 * completeness (stb_image does neither). Writing is io/png/write.c. */
#define _POSIX_C_SOURCE 200809L /* strnlen */
#include <errno.h>
#include <libdeflate.h>
#include <png.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

#include "io/formats.h"
#include "io/io.h"
#include "io/metadata.h"
#include "io/walk_png.h"

struct png_job {
    gpuimg_ctx *ctx;
    const char *name;
    const uint8_t *data;
    size_t size, pos;
    int hit_end; /* the reader ran out of bytes: truncated file */
    char message[200];
};

static void on_error(png_structp png, png_const_charp msg)
{
    struct png_job *job = png_get_error_ptr(png);
    snprintf(job->message, sizeof job->message, "%s", msg);
    png_longjmp(png, 1);
}

static void on_warning(png_structp png, png_const_charp msg)
{
    (void)png;
    (void)msg; /* ancillary-chunk complaints: libpng recovers, and so do we */
}

static void read_bytes(png_structp png, png_bytep dst, size_t len)
{
    struct png_job *job = png_get_io_ptr(png);
    if (len > job->size - job->pos) {
        job->hit_end = 1;
        png_error(png, "unexpected end of file");
    }
    memcpy(dst, job->data + job->pos, len);
    job->pos += len;
}

static int is_png(const uint8_t *data, size_t size)
{
    return size >= 8 && png_sig_cmp(data, 0, 8) == 0;
}

gpuimg_status gpuimg__decode_png(gpuimg_ctx *ctx, const uint8_t *data, size_t size,
                                 const char *name, gpuimg_image *out)
{
    /* The size is refused from IHDR (always the first chunk, right after the
     * 8-byte signature) before libpng reads on: png_read_info would read up
     * to the first IDAT and could fail for another reason first. */
    if (size >= 24 && memcmp(data + 12, "IHDR", 4) == 0) {
        gpuimg_status st =
            gpuimg__check_size(ctx, name, gpuimg__be32(data + 16), gpuimg__be32(data + 20));
        if (st == GPUIMG_ERR_TOO_LARGE)
            return st;
    }
    int fast = gpuimg__decode_png_fast(ctx, data, size, out);
    if (fast > 0)
        return GPUIMG_OK;
    if (fast < 0)
        return gpuimg__fail(ctx, GPUIMG_ERR_NOMEM, "%s: out of memory", name);
    /* A chunk that claims more bytes than the file has left is a cut file.
     * Said here, before libpng, which would first allocate what an ancillary
     * chunk claims (a fuzzed iTXt of 1.8 GB in a 302-byte file) whatever
     * png_set_chunk_malloc_max says. */
    gpuimg__png_chunk c;
    for (size_t pos = 8; gpuimg__png_next(data, size, &pos, &c);)
        if (memcmp(c.type, "IEND", 4) == 0)
            break;
    if (c.cut)
        return gpuimg__fail(ctx, GPUIMG_ERR_DECODE, "%s: not a supported image (truncated PNG)",
                            name);
    return gpuimg__decode_png_libpng(ctx, data, size, name, out);
}

gpuimg_status gpuimg__decode_png_libpng(gpuimg_ctx *ctx, const uint8_t *data, size_t size,
                                        const char *name, gpuimg_image *out)
{
    memset(out, 0, sizeof *out);
    /* The callbacks write into job between setjmp and longjmp; on the heap,
     * behind a pointer that never changes, its contents stay defined. */
    struct png_job *job = calloc(1, sizeof *job);
    png_structp png =
        job ? png_create_read_struct(PNG_LIBPNG_VER_STRING, job, on_error, on_warning) : NULL;
    png_infop info = png ? png_create_info_struct(png) : NULL;
    if (!info) {
        png_destroy_read_struct(&png, NULL, NULL);
        free(job);
        return gpuimg__fail(ctx, GPUIMG_ERR_NOMEM, "%s: out of memory", name);
    }
    *job = (struct png_job){.ctx = ctx, .name = name, .data = data, .size = size};
    /* Set inside the setjmp region, so volatile keeps them valid after a longjmp. */
    gpuimg_image *volatile img = NULL;
    png_bytep *volatile rows = NULL;
    gpuimg_status volatile st = GPUIMG_ERR_DECODE;

    if (setjmp(png_jmpbuf(png))) {
        if (st == GPUIMG_ERR_DECODE) {
            if (job->hit_end)
                gpuimg__fail(ctx, st, "%s: not a supported image (truncated PNG)", name);
            else
                gpuimg__fail(ctx, st, "%s: not a supported image (damaged PNG: %s)", name,
                             job->message);
        }
        goto done;
    }
    png_set_read_fn(png, job, read_bytes);
    /* Our own limits apply (checked below with a clear message); libpng's
     * default 1,000,000 would only give a vaguer one. */
    png_set_user_limits(png, 0x7fffffff, 0x7fffffff);
    /* An ancillary chunk's inflated text or profile: 64 MiB holds any real
     * one (libpng's own limit is higher, or none). */
    png_set_chunk_malloc_max(png, (png_alloc_size_t)64 << 20);
    png_read_info(png, info);
    png_uint_32 w = png_get_image_width(png, info), h = png_get_image_height(png, info);
    if ((st = gpuimg__check_size(ctx, name, w, h)) != GPUIMG_OK)
        goto done;
    st = GPUIMG_ERR_DECODE;
    /* 16-bit samples stay 16 bits (SPEC §2), in the machine's byte order. */
    int depth = png_get_bit_depth(png, info) == 16 ? 16 : 8;
    png_set_expand(png); /* palette -> RGB, gray < 8 bits -> 8, tRNS -> alpha */
    if (depth == 16) {
        const uint16_t one = 1;
        if (*(const uint8_t *)&one == 1)
            png_set_swap(png); /* PNG stores big-endian */
    }
    png_set_interlace_handling(png);
    png_read_update_info(png, info);
    int channels = png_get_channels(png, info);
    size_t row = (size_t)w * (size_t)channels * (depth / 8);
    if (channels < 1 || channels > 4 || png_get_rowbytes(png, info) != row) {
        gpuimg__fail(ctx, st, "%s: not a supported image (unexpected PNG layout)", name);
        goto done;
    }
    img = out;
    gpuimg_status ast = gpuimg__image_take_depth(ctx, img, (int)w, (int)h, channels, depth);
    if (ast != GPUIMG_OK) {
        st = ast;
        gpuimg__fail_as(ctx, st, name);
        goto done;
    }
    rows = malloc(sizeof(png_bytep) * h);
    if (!rows) {
        st = GPUIMG_ERR_NOMEM;
        gpuimg__fail(ctx, st, "%s: out of memory", name);
        goto done;
    }
    for (png_uint_32 y = 0; y < h; y++)
        rows[y] = img->data + (size_t)y * row;
    png_read_image(png, rows);
    png_read_end(png, NULL); /* reads up to IEND: a cut after the pixels still fails */
    st = GPUIMG_OK;
done:
    free(rows);
    png_destroy_read_struct(&png, &info, NULL);
    free(job);
    if (st != GPUIMG_OK && img)
        gpuimg_image_free(img);
    return st;
}

static gpuimg_status unreadable(gpuimg_ctx *ctx, const char *name)
{
    return gpuimg__fail(ctx, GPUIMG_ERR_DECODE, "%s: not a supported image (damaged PNG header)",
                        name);
}

static gpuimg_status probe(gpuimg_ctx *ctx, const char *name, const uint8_t *d, size_t n,
                           gpuimg_file_info *o)
{
    if (n < 33 || memcmp(d + 12, "IHDR", 4) != 0)
        return unreadable(ctx, name);
    static const int channels_of[7] = {1, 0, 3, 3, 2, 0, 4};
    int type = d[25];
    o->stored_width = (int)gpuimg__be32(d + 16) > 0 ? (int)gpuimg__be32(d + 16) : 0;
    o->stored_height = (int)gpuimg__be32(d + 20) > 0 ? (int)gpuimg__be32(d + 20) : 0;
    o->depth = d[24];
    if (type > 6 || !channels_of[type])
        return unreadable(ctx, name);
    o->channels = channels_of[type];
    /* tRNS becomes alpha (gray 2, colour and palette 4) */
    gpuimg__png_chunk c;
    for (size_t pos = 33; gpuimg__png_next(d, n, &pos, &c) && memcmp(c.type, "IDAT", 4) != 0;)
        if (memcmp(c.type, "tRNS", 4) == 0)
            o->channels = type == 0 ? 2 : 4;
    return GPUIMG_OK;
}

/* One image, its size bounded, unless an APNG (an acTL chunk before the
 * first IDAT, among the chunks in head): its frames are not. */
static int stream_size(gpuimg_ctx *ctx, const uint8_t *head, size_t len, uint64_t *width,
                       uint64_t *height)
{
    gpuimg__png_chunk c;
    for (size_t pos = 8; gpuimg__png_next(head, len, &pos, &c) && memcmp(c.type, "IDAT", 4) != 0;)
        if (memcmp(c.type, "acTL", 4) == 0)
            return 0;
    return gpuimg__stream_size_of_header(ctx, head, len, width, height);
}

static const char XMP_KEY[] = "XML:com.adobe.xmp";

/* The colour chunks kept besides iCCP (SPEC §2), each with the only length
 * the PNG specification allows it. */
static const struct {
    char type[5];
    uint32_t len;
} COLOUR_CHUNKS[4] = {{"gAMA", 4}, {"cHRM", 32}, {"sRGB", 1}, {"cICP", 4}};

/* Appends chunk c (type, length, data) to m->png_colour when it is the
 * first of its kind, before the IDATs, of its one length and whole (its
 * CRC right: libpng, which decodes the pixels, drops an ancillary chunk
 * with a bad CRC, so the output does not get one the image did not use).
 * 0 out of memory. */
static int keep_colour(gpuimg__meta_notes *notes, const gpuimg__png_chunk *c, unsigned *seen,
                       gpuimg_metadata *m)
{
    for (unsigned i = 0; i < 4; i++) {
        if (memcmp(c->type, COLOUR_CHUNKS[i].type, 4) != 0)
            continue;
        if (*seen & 1u << i)
            return 1;
        *seen |= 1u << i;
        uint32_t crc = libdeflate_crc32(0, c->type, (size_t)c->len + 4);
        /* sRGB's one byte is a rendering intent, 0-3 */
        if (c->len != COLOUR_CHUNKS[i].len || crc != gpuimg__be32(c->body + c->len) ||
            (i == 2 && c->body[0] > 3)) {
            gpuimg__meta_dropped(notes, "PNG colour chunk (gAMA, cHRM, sRGB or cICP: damaged)");
            return 1;
        }
        uint8_t *more = realloc(m->png_colour, m->png_colour_len + 8 + c->len);
        if (!more)
            return 0;
        memcpy(more + m->png_colour_len, c->type - 4, 8 + (size_t)c->len);
        m->png_colour = more;
        m->png_colour_len += 8 + c->len;
        return 1;
    }
    return 1;
}

/* iCCP, eXIf and iTXt XML:com.adobe.xmp; every block keeps the first of
 * its kind. Then gAMA, cHRM, sRGB and cICP as they stand (keep_colour). */
static int meta_read(gpuimg__meta_notes *notes, const uint8_t *data, size_t size,
                     gpuimg_metadata *m)
{
    gpuimg__png_chunk c;
    unsigned colour_seen = 0;
    int after_idat = 0;
    for (size_t pos = 8; gpuimg__png_next(data, size, &pos, &c);) {
        const uint8_t *type = c.type, *body = c.body;
        uint32_t len = c.len;
        if (memcmp(type, "IDAT", 4) == 0)
            after_idat = 1; /* the colour chunks are only valid before it */
        if (!after_idat && !keep_colour(notes, &c, &colour_seen, m))
            return 0;
        if (memcmp(type, "iCCP", 4) == 0 && !m->icc) {
            size_t key = strnlen((const char *)body, len < 80 ? len : 80);
            if (key >= 1 && key < 80 && len >= key + 3 && body[key + 1] == 0) {
                m->icc = gpuimg__meta_inflate(body + key + 2, len - key - 2, &m->icc_len);
                if (!m->icc)
                    gpuimg__meta_dropped(notes, "ICC profile (iCCP does not inflate)");
            } else {
                gpuimg__meta_dropped(notes, "ICC profile (damaged iCCP)");
            }
        } else if (memcmp(type, "eXIf", 4) == 0 && !m->exif && len > 0) {
            if (!(m->exif = gpuimg__meta_copy(body, len)))
                return 0;
            m->exif_len = len;
        } else if (memcmp(type, "iTXt", 4) == 0 && !m->xmp && len > sizeof XMP_KEY + 3 &&
                   memcmp(body, XMP_KEY, sizeof XMP_KEY) == 0) {
            /* keyword\0, compression flag, method, language\0, translated\0, text */
            const uint8_t *p = body + sizeof XMP_KEY, *end = body + len;
            int compressed = p[0];
            p += 2;
            for (int field = 0; field < 2 && p < end; field++) {
                const uint8_t *nul = memchr(p, 0, (size_t)(end - p));
                p = nul ? nul + 1 : end;
            }
            if (p < end && !compressed) {
                if (!(m->xmp = gpuimg__meta_copy(p, (size_t)(end - p))))
                    return 0;
                m->xmp_len = (size_t)(end - p);
            } else if (p < end) {
                m->xmp = gpuimg__meta_inflate(p, (size_t)(end - p), &m->xmp_len);
                if (!m->xmp)
                    gpuimg__meta_dropped(notes, "XMP (iTXt does not inflate)");
            }
        } else if (memcmp(type, "IEND", 4) == 0) {
            break;
        }
    }
    return 1;
}

static gpuimg_status encode(gpuimg_ctx *ctx, FILE *f, const char *name, gpuimg_format format,
                            const gpuimg_image *img)
{
    (void)format;
    return gpuimg__encode_png(ctx, f, name, img);
}

const gpuimg__format gpuimg__format_png = {
    .name = "png",
    .extensions = {{"png", GPUIMG_FORMAT_PNG}},
    .holds_16 = 1,
    .sniff = is_png,
    .probe = probe,
    .stream_size = stream_size,
    .decode = gpuimg__decode_png,
    .encode = encode,
    .meta_read = meta_read,
    .meta_write = 1,
};
