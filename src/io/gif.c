/* SPDX-License-Identifier: MIT */
/* GIF, read here: the first frame (SPEC §2). stb_image's reader, used
 * before, stopped quietly where the LZW data stopped and returned the
 * frame's missing rows as made-up pixels; here a frame whose data ends
 * before its last pixel is damaged (exit 3).
 *
 * Layout (GIF89a specification): "GIF87a" or "GIF89a", the logical screen
 * (width, height, flags; a global colour table of 2^(n+1) RGB entries when
 * flag 0x80 is set), then blocks: extensions (0x21, a label, sub-blocks;
 * the graphic control extension 0xF9 carries the transparent index), an
 * image descriptor (0x2C: left, top, width, height, flags; a local colour
 * table; interlaced rows with flag 0x40) followed by the LZW minimum code
 * size and the LZW data in sub-blocks (a length byte, then that many
 * bytes; a zero length ends them), and the trailer 0x3B.
 *
 * Output as stb_image gave it, so that nothing else changes: the logical
 * screen, RGBA; the frame's transparent pixels and those whose index lies
 * past the colour table are 0, 0, 0, 0, and so is the screen outside the
 * frame unless the screen names a background colour (fill_background).
 * Codes after the frame's last pixel are not read (a missing end code or
 * trailer is no damage); a frame outside the screen is refused, as stb
 * did; LZW code sizes are 2 to 11 (stb took up to 12, which cannot work:
 * its clear code would be the 4097th code). stb refused a stream that kept
 * using a full table ("too many codes"); that is read here, as the GIF
 * specification allows (a deferred clear code). */
#include <stdlib.h>
#include <string.h>

#include "io/bytes.h"
#include "io/formats.h"
#include "io/io.h"

#define LZW_CODES 4096

static gpuimg_status damaged(gpuimg_ctx *ctx, const char *name, const char *why)
{
    return gpuimg__fail(ctx, GPUIMG_ERR_DECODE, "%s: not a supported image (damaged GIF: %s)", name,
                        why);
}

static gpuimg_status truncated(gpuimg_ctx *ctx, const char *name)
{
    return gpuimg__fail(ctx, GPUIMG_ERR_DECODE, "%s: not a supported image (truncated GIF)", name);
}

/* The first frame, as the blocks before its data describe it. */
struct frame {
    uint64_t screen_w, screen_h;
    const uint8_t *global; /* the global colour table, or NULL */
    unsigned global_colours, background;
    uint64_t left, top, width, height;
    int interlaced, transparent; /* -1: none */
    const uint8_t *table;        /* RGB entries */
    unsigned colours;
    unsigned min_code;
    size_t data_at; /* the first LZW sub-block */
};

/* Skips sub-blocks from *at to past their zero-length end; 0 when the
 * file ends first. */
static int skip_blocks(const uint8_t *p, size_t n, size_t *at)
{
    for (;;) {
        if (*at >= n)
            return 0;
        size_t len = p[(*at)++];
        if (len == 0)
            return 1;
        if (len > n - *at)
            return 0;
        *at += len;
    }
}

/* An extension at *at (past its 0x21): a graphic control extension's
 * transparent index is kept; every extension is skipped. */
static int read_extension(const uint8_t *p, size_t n, size_t *at, int *transparent)
{
    if (*at >= n)
        return 0;
    uint8_t label = p[(*at)++];
    if (label == 0xF9 && *at < n && p[*at] >= 4 && n - *at > 4)
        *transparent = p[*at + 1] & 1 ? p[*at + 4] : -1;
    return skip_blocks(p, n, at);
}

/* A colour table of 2^(bits + 1) entries at *at when flags say there is one. */
static int read_table(const uint8_t *p, size_t n, size_t *at, unsigned flags, struct frame *f)
{
    if (!(flags & 0x80))
        return 1;
    unsigned colours = 2u << (flags & 7);
    if ((size_t)colours * 3 > n - *at)
        return 0;
    f->table = p + *at;
    f->colours = colours;
    *at += (size_t)colours * 3;
    return 1;
}

static gpuimg_status read_screen(gpuimg_ctx *ctx, const char *name, const uint8_t *p, size_t n,
                                 struct frame *f, size_t *at)
{
    memset(f, 0, sizeof *f);
    f->transparent = -1;
    if (n < 13)
        return truncated(ctx, name);
    f->screen_w = gpuimg__le16(p + 6);
    f->screen_h = gpuimg__le16(p + 8);
    *at = 13;
    if (!read_table(p, n, at, p[10], f))
        return truncated(ctx, name);
    f->global = f->table;
    f->global_colours = f->colours;
    f->background = p[11];
    return GPUIMG_OK;
}

/* The blocks up to the first image descriptor and its LZW code size. */
static gpuimg_status read_frame(gpuimg_ctx *ctx, const char *name, const uint8_t *p, size_t n,
                                struct frame *f, size_t at)
{
    for (;;) {
        if (at >= n)
            return truncated(ctx, name);
        uint8_t kind = p[at++];
        if (kind == 0x21) {
            if (!read_extension(p, n, &at, &f->transparent))
                return truncated(ctx, name);
        } else if (kind == 0x2C) {
            break;
        } else {
            return damaged(ctx, name, kind == 0x3B ? "no image" : "unknown block");
        }
    }
    if (n - at < 10)
        return truncated(ctx, name);
    f->left = gpuimg__le16(p + at), f->top = gpuimg__le16(p + at + 2);
    f->width = gpuimg__le16(p + at + 4), f->height = gpuimg__le16(p + at + 6);
    unsigned flags = p[at + 8];
    f->interlaced = (flags & 0x40) != 0;
    at += 9;
    if (!read_table(p, n, &at, flags, f))
        return truncated(ctx, name);
    if (at >= n)
        return truncated(ctx, name);
    f->min_code = p[at++];
    f->data_at = at;
    if (!f->table)
        return damaged(ctx, name, "no colour table");
    if (f->width == 0 || f->height == 0)
        return damaged(ctx, name, "empty frame");
    if (f->left + f->width > f->screen_w || f->top + f->height > f->screen_h)
        return damaged(ctx, name, "frame outside the screen");
    if (f->min_code < 2 || f->min_code > 11)
        return damaged(ctx, name, "bad LZW code size");
    return GPUIMG_OK;
}

static gpuimg_status probe(gpuimg_ctx *ctx, const char *name, const uint8_t *data, size_t size,
                           gpuimg_file_info *out)
{
    struct frame f;
    size_t at;
    gpuimg_status st = read_screen(ctx, name, data, size, &f, &at);
    if (st != GPUIMG_OK)
        return st;
    out->stored_width = (int)f.screen_w;
    out->stored_height = (int)f.screen_h;
    out->channels = 4;
    out->depth = 8;
    return GPUIMG_OK;
}

/* LZW codes from the sub-blocks, least significant bit first. */
struct bits {
    const uint8_t *p;
    size_t n, at, left; /* bytes left in the current sub-block */
    uint32_t acc;
    unsigned count;
};

/* 1 and a code, 0 at the zero-length sub-block, -1 at the file's end. */
static int read_code(struct bits *s, unsigned size, unsigned *code)
{
    while (s->count < size) {
        while (s->left == 0) {
            if (s->at >= s->n)
                return -1;
            s->left = s->p[s->at++];
            if (s->left == 0)
                return 0;
        }
        if (s->at >= s->n)
            return -1;
        s->acc |= (uint32_t)s->p[s->at++] << s->count;
        s->left--;
        s->count += 8;
    }
    *code = s->acc & ((1u << size) - 1);
    s->acc >>= size;
    s->count -= size;
    return 1;
}

/* Where the frame's next pixel goes: rows in order, or in the four passes
 * of an interlaced frame (every 8th from 0, every 8th from 4, every 4th
 * from 2, every 2nd from 1). */
struct cursor {
    const struct frame *f;
    gpuimg_image *out;
    uint64_t x, row, done, total;
    int pass;
};

static void put_pixel(struct cursor *c, unsigned index)
{
    const struct frame *f = c->f;
    if (index < f->colours && (int)index != f->transparent) {
        uint8_t *px = c->out->data + ((f->top + c->row) * f->screen_w + f->left + c->x) * 4;
        memcpy(px, f->table + 3 * index, 3);
        px[3] = 255;
    }
    c->done++;
    if (++c->x < f->width)
        return;
    c->x = 0;
    static const uint64_t start[4] = {0, 4, 2, 1}, step[4] = {8, 8, 4, 2};
    if (!f->interlaced) {
        c->row++;
        return;
    }
    c->row += step[c->pass];
    while (c->row >= f->height && c->pass < 3)
        c->row = start[++c->pass];
}

/* The screen outside the frame, as stb_image gave it (and so as before):
 * with a background index other than 0, that global colour, opaque (black
 * past the table, or with none); with 0, 0, 0, 0, 0. */
static void fill_background(const struct frame *f, gpuimg_image *out)
{
    if (f->background == 0)
        return;
    uint8_t px[4] = {0, 0, 0, 255};
    if (f->global && f->background < f->global_colours)
        memcpy(px, f->global + 3 * f->background, 3);
    for (uint64_t y = 0; y < f->screen_h; y++) {
        int band = y < f->top || y >= f->top + f->height;
        uint8_t *row = out->data + y * f->screen_w * 4;
        for (uint64_t x = 0; x < f->screen_w; x++)
            if (band || x < f->left || x >= f->left + f->width)
                memcpy(row + 4 * x, px, 4);
    }
}

struct lzw {
    uint16_t prefix[LZW_CODES];
    uint16_t suffix[LZW_CODES], first[LZW_CODES]; /* indices: up to 2047 */
    uint16_t length[LZW_CODES];
    uint16_t string[LZW_CODES];
};

/* Writes a code's string (which the table holds) until the frame is full:
 * the excess of the last string is dropped, never written elsewhere. */
static void put_string(struct lzw *t, unsigned code, struct cursor *c)
{
    unsigned len = t->length[code];
    for (unsigned i = len; i-- > 0; code = t->prefix[code])
        t->string[i] = t->suffix[code];
    for (unsigned i = 0; i < len && c->done < c->total; i++)
        put_pixel(c, t->string[i]);
}

/* The frame's pixels from its LZW data: NULL on success, or why not
 * (*short_data: the data ended before the frame's last pixel). */
static const char *decode_lzw(struct lzw *t, struct bits *s, unsigned min_code, struct cursor *c,
                              int *short_data)
{
    unsigned clear = 1u << min_code, end = clear + 1, avail = clear + 2, size = min_code + 1;
    int prev = -1;
    for (unsigned i = 0; i < clear; i++)
        t->prefix[i] = 0, t->suffix[i] = t->first[i] = (uint16_t)i, t->length[i] = 1;
    *short_data = 0;
    while (c->done < c->total) {
        unsigned code;
        int r = read_code(s, size, &code);
        if (r <= 0 || code == end)
            return *short_data = 1, "";
        if (code == clear) {
            avail = clear + 2, size = min_code + 1, prev = -1;
            continue;
        }
        if (code > avail || (code == avail && prev < 0))
            return "bad LZW code";
        if (prev >= 0 && avail < LZW_CODES) {
            /* the previous string and the first index of this one (of
             * itself, for the code being defined now) */
            t->prefix[avail] = (uint16_t)prev;
            t->suffix[avail] = t->first[code == avail ? (unsigned)prev : code];
            t->first[avail] = t->first[prev];
            t->length[avail] = (uint16_t)(t->length[prev] + 1);
            if (++avail == 1u << size && size < 12)
                size++;
        }
        put_string(t, code, c);
        prev = (int)code;
    }
    return NULL;
}

static gpuimg_status decode(gpuimg_ctx *ctx, const uint8_t *data, size_t size, const char *name,
                            gpuimg_image *out)
{
    struct frame f;
    size_t at;
    gpuimg_status st = read_screen(ctx, name, data, size, &f, &at);
    if (st == GPUIMG_OK)
        st = gpuimg__check_size(ctx, name, f.screen_w, f.screen_h);
    if (st != GPUIMG_OK)
        return st;
    /* A code of at most 12 bits gives at most 4096 pixels (about 2,730 a
     * byte): a screen of over 4096 pixels a byte of the file is no real
     * image, and is refused before its memory is asked for. */
    if (f.screen_w * f.screen_h / LZW_CODES > size - 13)
        return damaged(ctx, name, "more pixels than its data can hold");
    if ((st = read_frame(ctx, name, data, size, &f, at)) != GPUIMG_OK)
        return st;
    struct lzw *t = malloc(sizeof *t);
    if (!t)
        return gpuimg__fail(ctx, GPUIMG_ERR_NOMEM, "%s: out of memory", name);
    st = gpuimg__image_take(ctx, out, (int)f.screen_w, (int)f.screen_h, 4);
    if (st != GPUIMG_OK) {
        free(t);
        return gpuimg__fail_as(ctx, st, name);
    }
    memset(out->data, 0, f.screen_w * f.screen_h * 4);
    struct bits s = {data, size, f.data_at, 0, 0, 0};
    struct cursor c = {&f, out, 0, 0, 0, f.width * f.height, 0};
    int short_data;
    const char *why = decode_lzw(t, &s, f.min_code, &c, &short_data);
    free(t);
    if (!why) {
        fill_background(&f, out);
        return GPUIMG_OK;
    }
    gpuimg_image_free(out);
    return short_data ? truncated(ctx, name) : damaged(ctx, name, why);
}

static int is_gif(const uint8_t *p, size_t n)
{
    return n >= 6 && (memcmp(p, "GIF87a", 6) == 0 || memcmp(p, "GIF89a", 6) == 0);
}

/* Read only: its first frame, written as PNG by batch. */
const gpuimg__format gpuimg__format_gif = {
    .name = "gif",
    .extensions = {{"gif", GPUIMG_FORMAT_NONE}},
    .written_as = GPUIMG_FORMAT_PNG,
    .sniff = is_gif,
    .probe = probe,
    .decode = decode,
};
