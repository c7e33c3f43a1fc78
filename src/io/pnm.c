/* SPDX-License-Identifier: MIT */
/* PPM and PGM, read and written here.
 *
 * Reading follows netpbm's grammar: the magic (P2, P3 plain; P5, P6
 * binary), then width, height and maxval separated by whitespace, where a
 * comment runs from '#' to the end of its line (a newline or a carriage
 * return), then exactly one whitespace byte and the raster. Samples are one
 * byte below maxval 256, else two (big-endian). Every size is checked
 * against the file before anything is allocated, a sample over maxval is
 * an error, and so is every byte the raster lacks: nothing is padded.
 * A maxval other than 255 is scaled to 8 bits, round(v * 255 / maxval).
 *
 * Writing: binary PPM (P6) and PGM (P5). They carry neither alpha nor, for
 * PGM, colour, so alpha is dropped and colour becomes Rec.601 luma (what
 * ImageMagick does when asked for these formats). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/arith.h"
#include "io/formats.h"
#include "io/io.h"

static int is_space(uint8_t c)
{
    return c == ' ' || (c >= '\t' && c <= '\r');
}

/* Skips whitespace and comments; the position after them. */
static size_t skip_blanks(const uint8_t *p, size_t n, size_t i)
{
    for (;;) {
        while (i < n && is_space(p[i]))
            i++;
        if (i >= n || p[i] != '#')
            return i;
        while (i < n && p[i] != '\n' && p[i] != '\r')
            i++;
    }
}

/* A decimal number at p[*i], at most limit; 0 when there is none, it is
 * larger, or it runs into the end of the file (*cut then set). */
static int read_uint(const uint8_t *p, size_t n, size_t *i, uint32_t limit, uint32_t *out, int *cut)
{
    size_t k = *i;
    uint64_t v = 0;
    if (k >= n) {
        *cut = 1;
        return 0;
    }
    if (p[k] < '0' || p[k] > '9')
        return 0;
    while (k < n && p[k] >= '0' && p[k] <= '9') {
        v = v * 10 + (uint64_t)(p[k++] - '0');
        if (v > limit)
            return 0;
    }
    *i = k;
    *out = (uint32_t)v;
    return 1;
}

/* P2, P3 (plain) and P5, P6 (binary) PGM and PPM; PBM and PAM are not
 * read. */
static int is_pnm(const uint8_t *p, size_t n)
{
    return n >= 3 && p[0] == 'P' && strchr("2356", p[1]) && p[1] &&
           (p[2] == ' ' || (p[2] >= '\t' && p[2] <= '\r') || p[2] == '#');
}

static gpuimg_status pnm_error(gpuimg_ctx *ctx, const char *name, const char *why)
{
    return gpuimg__fail(ctx, GPUIMG_ERR_DECODE, "%s: not a supported image (%s)", name, why);
}

typedef struct pnm_head {
    uint32_t width, height, maxval;
    int channels, plain; /* plain: P2 or P3, the samples in decimal */
    size_t raster;       /* where the samples start */
} pnm_head;

/* A PNM's header as the loader reads it (and `info` with it, so that info
 * and load agree on every PNM): the grammar, gpuimg__check_size, and
 * (whole) a raster that fits the file; fails naming the file. Not whole:
 * the header alone, of a file's first bytes. */
static gpuimg_status header(gpuimg_ctx *ctx, const uint8_t *p, size_t n, const char *name,
                            int whole, pnm_head *h)
{
    memset(h, 0, sizeof *h);
    if (n < 3) /* the magic and one whitespace byte (is_pnm's test) */
        return pnm_error(ctx, name, "truncated PNM");
    h->plain = p[1] == '2' || p[1] == '3';
    h->channels = p[1] == '3' || p[1] == '6' ? 3 : 1;
    /* width, height, maxval; a side over 2^31 is as wrong as one over 65535 */
    uint32_t v[3];
    const uint32_t limits[3] = {INT32_MAX, INT32_MAX, 65535};
    size_t i = 2;
    for (int k = 0; k < 3; k++) {
        int cut = 0;
        i = skip_blanks(p, n, i);
        if (!read_uint(p, n, &i, limits[k], &v[k], &cut))
            return pnm_error(ctx, name, cut ? "truncated PNM" : "damaged PNM header");
    }
    if (v[2] == 0)
        return pnm_error(ctx, name, "damaged PNM header: maxval 0");
    gpuimg_status st = gpuimg__check_size(ctx, name, v[0], v[1]);
    if (st != GPUIMG_OK)
        return st;
    if (i >= n)
        return pnm_error(ctx, name, "truncated PNM");
    if (!is_space(p[i]))
        return pnm_error(ctx, name, "damaged PNM header");
    i++; /* the one whitespace byte before the raster */
    uint64_t values = (uint64_t)v[0] * v[1] * (uint64_t)h->channels;
    /* binary: every byte of the raster; plain: a digit and a separator a
     * value at least (the last one's separator may be missing) */
    uint64_t need = h->plain ? 2 * values - 1 : values * (v[2] > 255 ? 2 : 1);
    if (whole && need > n - i)
        return pnm_error(ctx, name, "truncated PNM");
    h->width = v[0], h->height = v[1], h->maxval = v[2];
    h->raster = i;
    return GPUIMG_OK;
}

static gpuimg_status decode(gpuimg_ctx *ctx, const uint8_t *p, size_t n, const char *name,
                            gpuimg_image *out)
{
    pnm_head h;
    gpuimg_status st = header(ctx, p, n, name, 1, &h);
    if (st != GPUIMG_OK)
        return st;
    int plain = h.plain;
    size_t i = h.raster;
    uint64_t values = (uint64_t)h.width * h.height * (uint64_t)h.channels, maxval = h.maxval;
    int wide = maxval > 255;
    /* maxval over 255 is a 16-bit image (SPEC §2), scaled to 0..65535. */
    uint64_t top = wide ? 65535 : 255;
    if ((st = gpuimg__image_take_depth(ctx, out, (int)h.width, (int)h.height, h.channels,
                                       wide ? 16 : 8)) != GPUIMG_OK)
        return gpuimg__fail_as(ctx, st, name);
    uint8_t *d = out->data;
    uint16_t *d16 = (uint16_t *)out->data;
    const uint8_t *s = p + i;
    if (!plain && maxval == 255) {
        memcpy(d, s, values);
        return GPUIMG_OK;
    }
    for (uint64_t k = 0; k < values; k++) {
        uint32_t x;
        if (plain) {
            int cut = 0;
            i = skip_blanks(p, n, i); /* read_uint took every digit: a separator follows */
            if (!read_uint(p, n, &i, (uint32_t)maxval, &x, &cut)) {
                gpuimg_image_free(out);
                return pnm_error(ctx, name,
                                 cut ? "truncated PNM"
                                     : "damaged PNM: a sample is not a number "
                                       "or is over maxval");
            }
        } else {
            x = wide ? (uint32_t)s[2 * k] << 8 | s[2 * k + 1] : s[k];
            if (x > maxval) {
                gpuimg_image_free(out);
                return pnm_error(ctx, name, "damaged PNM: a sample is over maxval");
            }
        }
        uint64_t scaled = (x * 2 * top + maxval) / (2 * maxval); /* round(x * top / maxval) */
        if (wide)
            d16[k] = (uint16_t)scaled;
        else
            d[k] = (uint8_t)scaled;
    }
    return GPUIMG_OK;
}

static gpuimg_status encode(gpuimg_ctx *ctx, FILE *f, const char *name, gpuimg_format format,
                            const gpuimg_image *img)
{
    int out_c = format == GPUIMG_FORMAT_PPM ? 3 : 1, in_c = img->channels;
    int color = in_c >= 3, wide = gpuimg_image_depth(img) == 16;
    size_t row_bytes = (size_t)img->width * (size_t)out_c * (wide ? 2 : 1);
    uint8_t *row = malloc(row_bytes);
    if (!row)
        return gpuimg__fail(ctx, GPUIMG_ERR_NOMEM, "%s: out of memory", name);
    int ok = fprintf(f, "P%c\n%d %d\n%d\n", out_c == 3 ? '6' : '5', img->width, img->height,
                     wide ? 65535 : 255) > 0;
    for (int y = 0; ok && y < img->height; y++) {
        const uint8_t *s8 = img->data + (size_t)y * gpuimg__row_bytes(img);
        const uint16_t *s16 = (const uint16_t *)s8;
        for (int x = 0; x < img->width; x++) {
            size_t k = (size_t)x * (size_t)in_c;
            uint32_t v[3];
            for (int c = 0; c < 3; c++) {
                size_t j = k + (size_t)(color ? c : 0);
                v[c] = wide ? s16[j] : s8[j];
            }
            if (out_c == 1 && color)
                v[0] = wide ? gpuimg__luma16(v[0], v[1], v[2]) : gpuimg__luma(v[0], v[1], v[2]);
            for (int c = 0; c < out_c; c++) {
                size_t at = (size_t)x * (size_t)out_c + (size_t)c;
                if (wide) { /* PNM stores big-endian */
                    row[2 * at] = (uint8_t)(v[c] >> 8);
                    row[2 * at + 1] = (uint8_t)v[c];
                } else {
                    row[at] = (uint8_t)v[c];
                }
            }
        }
        ok = fwrite(row, 1, row_bytes, f) == row_bytes;
    }
    free(row);
    if (!ok)
        return gpuimg__fail(ctx, GPUIMG_ERR_IO, "%s: write failed: %s", name, strerror(errno));
    return GPUIMG_OK;
}

static gpuimg_status probe(gpuimg_ctx *ctx, const char *name, const uint8_t *d, size_t n,
                           gpuimg_file_info *o)
{
    pnm_head h;
    gpuimg_status st = header(ctx, d, n, name, 1, &h);
    if (st != GPUIMG_OK)
        return st;
    o->stored_width = (int)h.width; /* within GPUIMG_MAX_SIDE: checked */
    o->stored_height = (int)h.height;
    o->channels = h.channels;
    o->depth = h.maxval > 255 ? 16 : 8;
    return GPUIMG_OK;
}

/* Binary PNM (P5, P6) is one image, its size bounded, its header alone
 * read (the raster lies past head); plain PNM may hold any whitespace. */
static int stream_size(gpuimg_ctx *ctx, const uint8_t *head, size_t len, uint64_t *width,
                       uint64_t *height)
{
    pnm_head h;
    if ((head[1] != '5' && head[1] != '6') || header(ctx, head, len, "", 0, &h) != GPUIMG_OK)
        return 0;
    *width = h.width, *height = h.height;
    return 1;
}

/* PPM and PGM are written (the format chooses); a .pnm is read and
 * written by batch as PPM. */
const gpuimg__format gpuimg__format_pnm = {
    .name = "pnm",
    .extensions = {{"ppm", GPUIMG_FORMAT_PPM},
                   {"pgm", GPUIMG_FORMAT_PGM},
                   {"pnm", GPUIMG_FORMAT_NONE}},
    .written_as = GPUIMG_FORMAT_PPM,
    .holds_16 = 1,
    .sniff = is_pnm,
    .probe = probe,
    .stream_size = stream_size,
    .decode = decode,
    .encode = encode,
};
