/* SPDX-License-Identifier: MIT */
/* PNG writing on every core.
 *
 * The rows are cut into chunks of about CHUNK_BYTES of filtered data. The
 * cut depends on the image alone, so the file is the same byte for byte
 * whatever --threads is. One pool piece per chunk:
 *  - filters each row as libpng does by default: of None, Sub, Up, Average
 *    and Paeth, the one whose bytes, read as signed, have the least sum of
 *    absolute values;
 *  - deflates the chunk with libdeflate, a stream of its own: libdeflate
 *    takes whole buffers only and has no preset dictionary, but at the
 *    same level it deflates filtered rows about three times as fast as
 *    zlib, for files about 1% larger (bench/NOTES.md);
 *  - makes that stream, unless it is the last, the head of a longer one:
 *    the BFINAL bit of its last block cleared and, where its end-of-block
 *    code ends inside a byte, an empty stored block to the byte boundary
 *    (deflate_join.c says why that is sound and how it finds the bits);
 *  - and computes its Adler-32 and its IDAT's CRC.
 * The pieces, one after the other behind a two-byte zlib header, are one
 * deflate stream; its Adler-32 is the chunks' joined by adler32_combine.
 * Each piece goes out in an IDAT of its own as soon as it and those before
 * it are done, so writing overlaps the deflating of later chunks.
 *
 * Filtering a chunk's first row needs the row above it, read from the
 * image: the chunks never wait for one another. */
#include <errno.h>
#include <libdeflate.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "core/pool.h"
#include "io/bytes.h"
#include "io/io.h"
#include "io/metadata.h"
#include "io/png/deflate_join.h"

/* Each chunk's matches start from nothing, yet on a photograph the file
 * grows by less than 0.02% at 256 KiB against 2 MiB chunks (bench/NOTES.md):
 * the per-chunk costs (a compressor's tables, at most 5 bytes of join) are
 * small even here, and an 8K photograph (99.5 MB) makes 380 pieces, a
 * 12-megapixel one 143, to share evenly between 16 cores. */
#define CHUNK_BYTES (256 * 1024)

typedef struct chunk {
    gpuimg_task task; /* first: the pool hands back its address */
    const gpuimg_image *img;
    int level;
    int y0, y1;      /* its rows */
    int first, last; /* the stream's header goes before it; the stream ends in it */
    uint8_t *out;    /* the IDAT's data */
    size_t out_len;
    uint32_t adler, crc; /* of its filtered bytes; of "IDAT" and out */
    int failed;          /* 1: out of memory; 2: the compressor or the join refused */
} chunk;

/* A filtered byte's cost in libpng's heuristic: its distance from zero
 * read as a signed byte. */
static unsigned cost(uint8_t v)
{
    return v < 128 ? v : 256u - v;
}

/* One row's filter type and bytes into out[0..n]; prev is the row above,
 * all zeros for the first. try holds 4 rows of n bytes of scratch.
 * Filtering reads only the original pixels, so unlike unfiltering every
 * byte is independent: the loops below have no branches and no carried
 * dependency, and vectorize (the Makefile asks for it on this file). */
static void filter_row(const uint8_t *restrict row, const uint8_t *restrict prev, size_t n, int bpp,
                       uint8_t *restrict out, uint8_t *restrict try)
{
    uint8_t *restrict sub = try, *restrict up = try + n, *restrict avg = try + 2 * n,
                      *restrict pae = try + 3 * n;
    size_t first = (size_t)bpp < n ? (size_t)bpp : n;
    for (size_t i = 0; i < first; i++) { /* no left neighbour: a = c = 0 */
        sub[i] = row[i];
        up[i] = pae[i] = (uint8_t)(row[i] - prev[i]); /* Paeth of 0, b, 0 is b */
        avg[i] = (uint8_t)(row[i] - (prev[i] >> 1));
    }
    for (size_t i = first; i < n; i++) {
        int a = row[i - bpp], b = prev[i], c = prev[i - bpp];
        int pa = abs(b - c), pb = abs(a - c), pc = abs(a + b - 2 * c);
        int pred = pb <= pc ? b : c;
        pred = pa <= pb && pa <= pc ? a : pred;
        sub[i] = (uint8_t)(row[i] - a);
        up[i] = (uint8_t)(row[i] - b);
        avg[i] = (uint8_t)(row[i] - ((a + b) >> 1));
        pae[i] = (uint8_t)(row[i] - pred);
    }
    /* A row is at most 524280 bytes (65535 16-bit RGBA pixels), each byte
     * costing at most 128: each sum fits 32 bits. */
    unsigned s[5] = {0, 0, 0, 0, 0};
    for (size_t i = 0; i < n; i++) {
        s[0] += cost(row[i]);
        s[1] += cost(sub[i]);
        s[2] += cost(up[i]);
        s[3] += cost(avg[i]);
        s[4] += cost(pae[i]);
    }
    int best = 0; /* ties go to the earlier filter, as in libpng */
    for (int f = 1; f < 5; f++)
        if (s[f] < s[best])
            best = f;
    out[0] = (uint8_t)best;
    memcpy(out + 1, best == 0 ? row : try + (size_t)(best - 1) * n, n);
}

/* zlib's own header for a 32 KiB window at this level (RFC 1950: FLEVEL is
 * advisory; the check bits make the 16-bit value a multiple of 31). */
static unsigned zlib_header(int level)
{
    unsigned flevel = level < 2 ? 0 : level < 6 ? 1 : level == 6 ? 2 : 3;
    unsigned h = 0x78u << 8 | flevel << 6;
    return h + 31 - h % 31;
}

/* Row y's bytes as PNG stores them: the image's own at 8 bits; at 16 bits
 * big-endian, written into swap (n bytes), whatever the machine's order. */
static const uint8_t *png_row(const gpuimg_image *img, int y, size_t n, uint8_t *swap)
{
    const uint8_t *row = img->data + (size_t)y * n;
    if (img->depth != 16)
        return row;
    const uint16_t *v = (const uint16_t *)row;
    for (size_t i = 0; i < n / 2; i++) {
        swap[2 * i] = (uint8_t)(v[i] >> 8);
        swap[2 * i + 1] = (uint8_t)v[i];
    }
    return swap;
}

static void deflate_chunk(gpuimg_task *task)
{
    chunk *c = (chunk *)task;
    const gpuimg_image *img = c->img;
    size_t n = gpuimg__row_bytes(img), row_len = n + 1;
    int bpp = img->channels * (int)gpuimg_image_value_size(img);
    size_t own = (size_t)(c->y1 - c->y0) * row_len;
    /* try: 4 rows of filter scratch, a row of zeros, 2 rows of 16-bit swaps */
    uint8_t *filtered = malloc(own), *try = malloc(7 * n);
    struct libdeflate_compressor *z = NULL;
    if (!filtered || !try)
        goto fail;
    uint8_t *zeros = try + 4 * n, *swap[2] = {try + 5 * n, try + 6 * n};
    memset(zeros, 0, n);
    /* row y's swap is swap[y & 1], so the row above's is still there */
    const uint8_t *prev = c->y0 ? png_row(img, c->y0 - 1, n, swap[(c->y0 - 1) & 1]) : zeros;
    for (int y = c->y0; y < c->y1; y++) {
        const uint8_t *row = png_row(img, y, n, swap[y & 1]);
        filter_row(row, prev, n, bpp, filtered + (size_t)(y - c->y0) * row_len, try);
        prev = row;
    }
    c->adler = libdeflate_adler32(1, filtered, own);

    /* The user's level is libdeflate's (0: stored blocks). */
    if (!(z = libdeflate_alloc_compressor(c->level)))
        goto fail;
    size_t head = c->first ? 2 : 0, tail = c->last ? 4 : GPUIMG__DEFLATE_UNFINISH_EXTRA;
    size_t cap = head + libdeflate_deflate_compress_bound(z, own) + tail;
    if (!(c->out = malloc(cap)))
        goto fail;
    if (c->first) {
        unsigned h = zlib_header(c->level);
        c->out[0] = (uint8_t)(h >> 8);
        c->out[1] = (uint8_t)h;
    }
    c->failed = 2; /* from here on, only the compressor or the join can refuse */
    size_t got = libdeflate_deflate_compress(z, filtered, own, c->out + head, cap - head - tail);
    /* The join also checks that the stream inflates to own bytes: a wrong
     * stream fails the write rather than make a file no reader takes. */
    if (got && !c->last)
        got = gpuimg__deflate_unfinish(c->out + head, got, cap - head, own);
    if (!got)
        goto fail;
    c->failed = 0;
    c->out_len = head + got;
    c->crc = libdeflate_crc32(libdeflate_crc32(0, "IDAT", 4), c->out, c->out_len);
    libdeflate_free_compressor(z);
    free(filtered);
    free(try);
    return;
fail:
    libdeflate_free_compressor(z);
    free(filtered);
    free(try);
    free(c->out);
    c->out = NULL;
    if (!c->failed)
        c->failed = 1; /* a malloc */
}

static void put32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

/* One chunk of the file: length, type, data, CRC (computed here unless the
 * caller has it). */
static int write_chunk(FILE *f, const char *type, const uint8_t *data, size_t len, uint32_t crc,
                       int have_crc)
{
    uint8_t head[8], tail[4];
    put32(head, (uint32_t)len);
    memcpy(head + 4, type, 4);
    if (!have_crc) { /* libdeflate_crc32 of a NULL buffer is 0, not the running value */
        crc = libdeflate_crc32(0, head + 4, 4);
        if (len)
            crc = libdeflate_crc32(crc, data, len);
    }
    put32(tail, (uint32_t)crc);
    return fwrite(head, 1, 8, f) == 8 && (len == 0 || fwrite(data, 1, len, f) == len) &&
           fwrite(tail, 1, 4, f) == 4;
}

/* The image's metadata chunks, between IHDR and the first IDAT: the
 * colour chunks read from a PNG (gAMA, cHRM, sRGB, cICP, in their file's
 * order: the specification only asks that they come before PLTE and IDAT),
 * iCCP (the profile, zlib), eXIf, and iTXt XML:com.adobe.xmp
 * (uncompressed, as Adobe's tools write it). 0 with errno on a write
 * error, -1 out of memory. */
static int write_metadata(const gpuimg_ctx *ctx, FILE *f, const gpuimg_image *img)
{
    gpuimg__meta_out m;
    gpuimg__metadata_for_output(ctx, img, &m);
    int ok = 1;
    /* png_colour holds whole chunks (type, length, data) the reader
     * checked; each gets its CRC again here. */
    for (size_t at = 0; ok && at + 8 <= m.png_colour_len;) {
        const uint8_t *c = m.png_colour + at;
        uint32_t len = gpuimg__be32(c);
        if (len > m.png_colour_len - at - 8)
            break;
        char type[4];
        memcpy(type, c + 4, 4);
        /* An sRGB chunk must not stand beside an iCCP, which wins (PNG
         * specification, sRGB) */
        if (!(m.icc && memcmp(type, "sRGB", 4) == 0))
            ok = write_chunk(f, type, c + 8, len, 0, 0);
        at += 8 + (size_t)len;
    }
    if (ok && m.icc) {
        static const char name[] = "ICC Profile"; /* then its NUL and method 0 */
        uLongf zlen = compressBound((uLong)m.icc_len);
        uint8_t *body = malloc(sizeof name + 1 + zlen);
        if (!body || compress2(body + sizeof name + 1, &zlen, m.icc, (uLong)m.icc_len, 9) != Z_OK) {
            free(body);
            free(m.exif_copy);
            return -1;
        }
        memcpy(body, name, sizeof name);
        body[sizeof name] = 0;
        ok = write_chunk(f, "iCCP", body, sizeof name + 1 + zlen, 0, 0);
        free(body);
    }
    if (ok && m.exif)
        ok = write_chunk(f, "eXIf", m.exif, m.exif_len, 0, 0);
    if (ok && m.xmp) {
        static const char key[] = "XML:com.adobe.xmp"; /* NUL, flag 0, method 0, "", "" */
        size_t head = sizeof key + 4;
        uint8_t *body = malloc(head + m.xmp_len);
        if (!body) {
            free(m.exif_copy);
            return -1;
        }
        memcpy(body, key, sizeof key);
        memset(body + sizeof key, 0, 4);
        memcpy(body + head, m.xmp, m.xmp_len);
        ok = write_chunk(f, "iTXt", body, head + m.xmp_len, 0, 0);
        free(body);
    }
    free(m.exif_copy);
    return ok;
}

gpuimg_status gpuimg__encode_png(gpuimg_ctx *ctx, FILE *f, const char *name,
                                 const gpuimg_image *img)
{
    static const uint8_t color_types[5] = {0, 0, 4, 2, 6}; /* gray, gray+alpha, RGB, RGBA */
    size_t n = gpuimg__row_bytes(img), row_len = n + 1;
    int rows = (int)(CHUNK_BYTES / row_len) > 0 ? (int)(CHUNK_BYTES / row_len) : 1;
    size_t count = ((size_t)img->height + (size_t)rows - 1) / (size_t)rows;
    chunk *chunks = calloc(count, sizeof *chunks);
    if (!chunks)
        return gpuimg__fail(ctx, GPUIMG_ERR_NOMEM, "%s: out of memory", name);
    gpuimg_pool *pool = gpuimg__ctx_pool(ctx);
    for (size_t i = 0; i < count; i++) {
        chunk *c = &chunks[i];
        c->task.run = deflate_chunk;
        c->img = img;
        c->level = ctx->cfg.png_level;
        c->y0 = (int)i * rows;
        c->y1 = c->y0 + rows < img->height ? c->y0 + rows : img->height;
        c->first = i == 0;
        c->last = i + 1 == count;
        gpuimg__pool_piece(pool, &c->task);
    }

    static const uint8_t signature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    uint8_t ihdr[13] = {0};
    put32(ihdr, (uint32_t)img->width);
    put32(ihdr + 4, (uint32_t)img->height);
    ihdr[8] = (uint8_t)gpuimg_image_depth(img); /* compression, filter, interlace stay 0 */
    ihdr[9] = color_types[img->channels];
    int io_ok = fwrite(signature, 1, 8, f) == 8 && write_chunk(f, "IHDR", ihdr, 13, 0, 0);
    int meta = io_ok ? write_metadata(ctx, f, img) : 1;
    io_ok = io_ok && meta == 1;
    int write_errno = io_ok ? 0 : errno; /* kept: later calls may change errno */
    int failed = 0;
    uLong adler = 1;
    for (size_t i = 0; i < count; i++) {
        chunk *c = &chunks[i];
        gpuimg__pool_wait(pool, &c->task); /* every piece, even after a failure */
        if (!failed)
            failed = c->failed;
        if (!failed) {
            size_t own = (size_t)(c->y1 - c->y0) * row_len;
            adler = adler32_combine(adler, c->adler, (z_off_t)own);
            if (c->last) { /* the stream's trailer, big-endian, ends the last IDAT */
                put32(c->out + c->out_len, (uint32_t)adler);
                c->crc = libdeflate_crc32(c->crc, c->out + c->out_len, 4);
                c->out_len += 4;
            }
            if (io_ok && !(io_ok = write_chunk(f, "IDAT", c->out, c->out_len, c->crc, 1)))
                write_errno = errno;
        }
        free(c->out);
    }
    free(chunks);
    if (io_ok && !(io_ok = write_chunk(f, "IEND", NULL, 0, 0, 0)))
        write_errno = errno;
    if (meta < 0)
        return gpuimg__fail(ctx, GPUIMG_ERR_NOMEM, "%s: out of memory", name);
    if (failed == 1)
        return gpuimg__fail(ctx, GPUIMG_ERR_NOMEM, "%s: out of memory while compressing", name);
    if (failed)
        return gpuimg__fail(ctx, GPUIMG_ERR_INTERNAL, "%s: compressing the pixels failed", name);
    if (!io_ok)
        return gpuimg__fail(ctx, GPUIMG_ERR_IO, "%s: cannot write PNG (%s)", name,
                            strerror(write_errno ? write_errno : EIO));
    return GPUIMG_OK;
}
