/* SPDX-License-Identifier: MIT */
/* HEIF/HEIC and AVIF through libheif (SPEC §2), two rows over one code:
 * HEVC in HEIF (.heic, .heif) and AV1 in HEIF (.avif). Read: the primary
 * image, 8 bits, or 10/12 bits scaled to 16 (round(v * 65535 / (2^b - 1))),
 * its transforms (irot, imir, clap) applied by libheif unless
 * --no-auto-orient. Written lossy at --jpeg-quality, or lossless with
 * --lossless (4:4:4, identity matrix, full range: exact, tests/check_heif.c),
 * 16-bit images at the most bits the encoder takes (12, or 10 for an x265
 * without 12), alpha kept, the image's ICC profile, EXIF and XMP added.
 *
 * Gray: a monochrome (4:0:0) coded image is read as gray (with its alpha,
 * gray+alpha), which the row finds in the file's hvcC or av1C itself
 * (libheif 1.15 has no header-only way: `info` must say what the decoder
 * gives); gray is written monochrome, which x265 and aom both code.
 *
 * Orientation: a HEIF's irot/imir are its orientation; an EXIF
 * Orientation inside it is informative only (MIAF, ISO/IEC 23000-22 7.3.6.7)
 * and would turn the pixels a second time. The row's EXIF is read with its
 * Orientation set to 1: the loader's attach does nothing more, outputs say
 * 1, and `info` reports the size libheif decodes: the ispe size under
 * --no-auto-orient, whose pixels then carry no orientation at all (a file
 * libheif 1.15 wrote with a quarter turn has the turned size in its ispe,
 * against ISO/IEC 23008-12; its loader takes the decoded size). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#ifndef GPUIMG_NO_HEIF
#include <libheif/heif.h>
#endif

#include "io/formats.h"
#include "io/io.h"
#include "io/metadata.h"

/* ---- recognising ---- */

/* 1 HEIC, 2 AVIF, 0 neither: the ftyp box's major and compatible brands.
 * An AVIF brand wins over the HEIF ones (an AVIF lists mif1 too). */
static int kind_of(const uint8_t *d, size_t n)
{
    if (n < 16 || memcmp(d + 4, "ftyp", 4) != 0)
        return 0;
    size_t len = (size_t)d[0] << 24 | (size_t)d[1] << 16 | (size_t)d[2] << 8 | d[3];
    if (len < 16 || len > 4096)
        return 0;
    if (len > n)
        len = n; /* the brands there are */
    static const char *const heic[] = {"heic", "heix", "hevc", "hevx",
                                       "heim", "heis", "mif1", "msf1"};
    int kind = 0;
    /* major brand at 8, minor version at 12, compatible brands from 16 */
    for (size_t at = 8; at + 4 <= len; at += at == 8 ? 8 : 4) {
        if (memcmp(d + at, "avif", 4) == 0 || memcmp(d + at, "avis", 4) == 0)
            return 2;
        for (size_t k = 0; k < sizeof heic / sizeof heic[0]; k++)
            if (memcmp(d + at, heic[k], 4) == 0)
                kind = 1;
    }
    return kind;
}

static int is_heic(const uint8_t *d, size_t n)
{
    return kind_of(d, n) == 1;
}

static int is_avif(const uint8_t *d, size_t n)
{
    return kind_of(d, n) == 2;
}

#ifndef GPUIMG_NO_HEIF

/* ---- reading ---- */

/* A file's context and primary image (both to release), or 0 with
 * libheif's error in why. The data must outlive them (read without copy). */
static int open_primary(const uint8_t *data, size_t size, struct heif_context **hc,
                        struct heif_image_handle **h, char *why, size_t why_len)
{
    *h = NULL;
    if (!(*hc = heif_context_alloc())) {
        snprintf(why, why_len, "out of memory");
        return 0;
    }
    /* libheif's own bound on a side (its default is 32768^2 pixels): the
     * library's largest side, so nothing larger is even parsed further */
    heif_context_set_maximum_image_size_limit(*hc, GPUIMG_MAX_SIDE);
    struct heif_error e = heif_context_read_from_memory_without_copy(*hc, data, size, NULL);
    if (e.code == heif_error_Ok)
        e = heif_context_get_primary_image_handle(*hc, h);
    if (e.code != heif_error_Ok) {
        /* the message is the context's: copied before it is freed */
        snprintf(why, why_len, "%s", e.message && *e.message ? e.message : "damaged");
        heif_context_free(*hc);
        *hc = NULL;
        *h = NULL;
        return 0;
    }
    return 1;
}

static void close_primary(struct heif_context *hc, struct heif_image_handle *h)
{
    if (h)
        heif_image_handle_release(h);
    heif_context_free(hc);
}

/* ---- monochrome: the coded image's configuration ----
 *
 * libheif 1.15 cannot say from a handle whether the coded image is
 * monochrome (heif_image_handle_get_preferred_decoding_colorspace came in
 * 1.17), so the row reads it from the file's boxes, for `info` and the
 * decoder alike: the primary item's hvcC (chroma_format_idc 0) or av1C
 * (mono_chrome), or those of the first image it is derived from (a grid's
 * tile). Anything that does not parse is colour: libheif then says what
 * is wrong when it decodes. */

#define FOURCC(s) ((uint32_t)(s)[0] << 24 | (uint32_t)(s)[1] << 16 | (uint32_t)(s)[2] << 8 | (s)[3])

static uint32_t be(const uint8_t *p, int bytes)
{
    uint32_t v = 0;
    for (int i = 0; i < bytes; i++)
        v = v << 8 | p[i];
    return v;
}

/* The box at *pos (before end): its type and body [*body, *body_end);
 * *pos moves past it. 0 when none fits. */
static int next_box(const uint8_t *d, size_t end, size_t *pos, uint32_t *type, size_t *body,
                    size_t *body_end)
{
    if (*pos > end || end - *pos < 8)
        return 0;
    uint64_t size = be(d + *pos, 4);
    size_t header = 8;
    *type = be(d + *pos + 4, 4);
    if (size == 1) { /* a 64-bit size */
        if (end - *pos < 16)
            return 0;
        size = (uint64_t)be(d + *pos + 8, 4) << 32 | be(d + *pos + 12, 4);
        header = 16;
    } else if (size == 0) { /* to the end */
        size = end - *pos;
    }
    if (size < header || size > end - *pos)
        return 0;
    *body = *pos + header;
    *body_end = *pos + (size_t)size;
    *pos = *body_end;
    return 1;
}

/* The meta box's children that the walk needs. */
typedef struct boxes {
    const uint8_t *d;
    size_t ipco, ipco_end, ipma, ipma_end, iref, iref_end;
} boxes;

/* 1 monochrome, 0 colour, -1: item has no hvcC or av1C. */
static int item_monochrome(const boxes *b, uint32_t item)
{
    const uint8_t *d = b->d;
    if (b->ipma_end - b->ipma < 8)
        return -1;
    int version = d[b->ipma], wide = d[b->ipma + 3] & 1, id_bytes = version < 1 ? 2 : 4;
    uint32_t entries = be(d + b->ipma + 4, 4);
    size_t at = b->ipma + 8;
    for (uint32_t k = 0; k < entries; k++) {
        if (b->ipma_end - at < (size_t)id_bytes + 1)
            return -1;
        uint32_t id = be(d + at, id_bytes);
        int n = d[at + (size_t)id_bytes];
        at += (size_t)id_bytes + 1;
        if (b->ipma_end - at < (size_t)n * (wide ? 2 : 1))
            return -1;
        for (int i = 0; i < n && id == item; i++) {
            uint32_t index =
                wide ? be(d + at + 2 * (size_t)i, 2) & 0x7fff : d[at + (size_t)i] & 0x7f;
            size_t pos = b->ipco, body, body_end;
            uint32_t type = 0;
            for (uint32_t j = 1;
                 j <= index && next_box(d, b->ipco_end, &pos, &type, &body, &body_end); j++)
                if (j == index && type == FOURCC("hvcC") && body_end - body > 16)
                    return (d[body + 16] & 3) == 0; /* chroma_format_idc */
                else if (j == index && type == FOURCC("av1C") && body_end - body > 2)
                    return (d[body + 2] >> 4) & 1; /* mono_chrome */
        }
        at += (size_t)n * (wide ? 2 : 1);
    }
    return -1;
}

/* The first item that item is derived from ('dimg'), or 0. */
static uint32_t first_derived(const boxes *b, uint32_t item)
{
    const uint8_t *d = b->d;
    if (b->iref_end - b->iref < 4)
        return 0;
    int id_bytes = d[b->iref] == 0 ? 2 : 4;
    size_t pos = b->iref + 4, body, body_end;
    uint32_t type;
    while (next_box(d, b->iref_end, &pos, &type, &body, &body_end))
        if (type == FOURCC("dimg") && body_end - body >= (size_t)id_bytes * 2 + 2 &&
            be(d + body, id_bytes) == item && be(d + body + id_bytes, 2) > 0)
            return be(d + body + id_bytes + 2, id_bytes);
    return 0;
}

static int coded_monochrome(const uint8_t *d, size_t n)
{
    size_t pos = 0, body, body_end, meta = 0, meta_end = 0;
    uint32_t type;
    while (next_box(d, n, &pos, &type, &body, &body_end))
        if (type == FOURCC("meta")) {
            meta = body + 4, meta_end = body_end; /* after version and flags */
            break;
        }
    if (meta_end < meta + 8)
        return 0;
    boxes b = {d, 0, 0, 0, 0, 0, 0};
    uint32_t primary = 0;
    for (pos = meta; next_box(d, meta_end, &pos, &type, &body, &body_end);) {
        if (type == FOURCC("pitm") && body_end - body >= 6)
            primary = d[body] == 0           ? be(d + body + 4, 2)
                      : body_end - body >= 8 ? be(d + body + 4, 4)
                                             : 0;
        else if (type == FOURCC("iref") && !b.iref_end)
            b.iref = body, b.iref_end = body_end;
        else if (type == FOURCC("iprp"))
            for (size_t p = body, cb, ce; next_box(d, body_end, &p, &type, &cb, &ce);) {
                if (type == FOURCC("ipco") && !b.ipco_end)
                    b.ipco = cb, b.ipco_end = ce;
                else if (type == FOURCC("ipma") && !b.ipma_end)
                    b.ipma = cb, b.ipma_end = ce;
            }
    }
    /* the primary item, or the image it is made of (a grid's first tile,
     * an identity or overlay's first input): two steps at most */
    for (int step = 0; step < 3 && primary; step++) {
        int mono = item_monochrome(&b, primary);
        if (mono >= 0)
            return mono;
        primary = first_derived(&b, primary);
    }
    return 0;
}

/* What the decoder gives: the size as decoded (transforms applied, or the
 * coded size under --no-auto-orient), channels and depth. */
static gpuimg_status layout(gpuimg_ctx *ctx, const char *name, struct heif_image_handle *h,
                            int mono, int *w, int *hh, int *c, int *bits)
{
    *w = ctx->cfg.no_auto_orient ? heif_image_handle_get_ispe_width(h)
                                 : heif_image_handle_get_width(h);
    *hh = ctx->cfg.no_auto_orient ? heif_image_handle_get_ispe_height(h)
                                  : heif_image_handle_get_height(h);
    *c = (mono ? 1 : 3) + (heif_image_handle_has_alpha_channel(h) ? 1 : 0);
    *bits = heif_image_handle_get_luma_bits_per_pixel(h);
    if (*bits < 8 || *bits > 16)
        return gpuimg__fail(ctx, GPUIMG_ERR_DECODE,
                            "%s: not a supported image (HEIF of %d bits per value)", name, *bits);
    if (*w <= 0 || *hh <= 0 || *w > GPUIMG_MAX_SIDE || *hh > GPUIMG_MAX_SIDE)
        return gpuimg__fail(ctx, GPUIMG_ERR_DECODE,
                            "%s: not a supported image (HEIF of %dx%d pixels)", name, *w, *hh);
    return GPUIMG_OK;
}

static gpuimg_status damaged(gpuimg_ctx *ctx, const char *name, const char *why)
{
    return gpuimg__fail(ctx, GPUIMG_ERR_DECODE, "%s: not a supported image (HEIF: %s)", name, why);
}

static gpuimg_status probe(gpuimg_ctx *ctx, const char *name, const uint8_t *d, size_t n,
                           gpuimg_file_info *o)
{
    struct heif_context *hc;
    struct heif_image_handle *h;
    char why[256];
    if (!open_primary(d, n, &hc, &h, why, sizeof why))
        return damaged(ctx, name, why);
    int w, hh, c, bits;
    gpuimg_status st = layout(ctx, name, h, coded_monochrome(d, n), &w, &hh, &c, &bits);
    close_primary(hc, h);
    if (st != GPUIMG_OK)
        return st;
    /* "stored" is the decoded size: the orientation is libheif's, never
     * EXIF's (metadata below), so probe.c swaps nothing */
    o->stored_width = w, o->stored_height = hh;
    o->channels = c, o->depth = bits > 8 ? 16 : 8;
    return GPUIMG_OK;
}

/* A copy of a block (*dst NULL before), 0 out of memory. */
static int keep(const uint8_t *p, size_t n, uint8_t **dst, size_t *dst_len)
{
    if (n == 0)
        return 1;
    if (!(*dst = gpuimg__meta_copy(p, n)))
        return 0;
    *dst_len = n;
    return 1;
}

/* The primary image's ICC profile (an nclx-only file has none), its first
 * EXIF block (past the 4-byte offset to its TIFF header), Orientation set
 * to 1 (the file's header comment says why), and its XMP. */
static int meta_read(gpuimg__meta_notes *notes, const uint8_t *data, size_t size,
                     gpuimg_metadata *m)
{
    struct heif_context *hc;
    struct heif_image_handle *h;
    char why[256];
    if (!open_primary(data, size, &hc, &h, why, sizeof why))
        return 1; /* the decoder says what is wrong */
    int ok = 1;
    enum heif_color_profile_type t = heif_image_handle_get_color_profile_type(h);
    size_t icc_len = heif_image_handle_get_raw_color_profile_size(h);
    if ((t == heif_color_profile_type_prof || t == heif_color_profile_type_rICC) && icc_len) {
        uint8_t *icc = malloc(icc_len);
        ok = icc != NULL;
        if (ok && heif_image_handle_get_raw_color_profile(h, icc).code == heif_error_Ok)
            m->icc = icc, m->icc_len = icc_len;
        else
            free(icc);
    }
    int blocks = heif_image_handle_get_number_of_metadata_blocks(h, NULL);
    heif_item_id *ids = blocks > 0 ? calloc((size_t)blocks, sizeof *ids) : NULL;
    if (blocks > 0 && !ids)
        ok = 0;
    if (ids)
        blocks = heif_image_handle_get_list_of_metadata_block_IDs(h, NULL, ids, blocks);
    for (int i = 0; ok && ids && i < blocks; i++) {
        const char *type = heif_image_handle_get_metadata_type(h, ids[i]);
        const char *content = heif_image_handle_get_metadata_content_type(h, ids[i]);
        int exif = type && strcmp(type, "Exif") == 0 && !m->exif;
        int xmp = type && strcmp(type, "mime") == 0 && content &&
                  strcmp(content, "application/rdf+xml") == 0 && !m->xmp;
        if (!exif && !xmp)
            continue;
        size_t n = heif_image_handle_get_metadata_size(h, ids[i]);
        uint8_t *block = n ? malloc(n) : NULL;
        if (n && !block) {
            ok = 0;
            break;
        }
        if (!block || heif_image_handle_get_metadata(h, ids[i], block).code != heif_error_Ok) {
            free(block);
            continue;
        }
        if (xmp) {
            ok = keep(block, n, &m->xmp, &m->xmp_len);
        } else {
            /* ISO/IEC 23008-12 A.2.1: a 32-bit offset from after itself
             * to the TIFF header */
            uint32_t skip =
                n >= 4 ? (uint32_t)block[0] << 24 | block[1] << 16 | block[2] << 8 | block[3] : 0;
            if (n < 4 || skip > n - 4)
                gpuimg__meta_dropped(notes, "EXIF (malformed HEIF Exif block)");
            else if ((ok = keep(block + 4 + skip, n - 4 - skip, &m->exif, &m->exif_len)) &&
                     m->exif && gpuimg__exif_orientation(m->exif, m->exif_len) > 1)
                gpuimg__exif_set_orientation(m->exif, m->exif_len, 1);
        }
        free(block);
    }
    free(ids);
    close_primary(hc, h);
    return ok;
}

/* count values a pixel of a decoded plane (step values apart, of bits
 * each: bytes, or 16-bit values, little-endian when le, else the host's)
 * into channels off.. of out, scaled to out's depth as
 * round(v * (2^depth - 1) / (2^bits - 1)), exactly. */
static void copy_plane(gpuimg_image *out, int off, int count, const uint8_t *p, int stride,
                       int bits, int step, int le)
{
    int w = out->width, c = out->channels, depth = gpuimg_image_depth(out);
    uint32_t max = (1u << bits) - 1, out_max = (1u << depth) - 1;
    for (int y = 0; y < out->height; y++) {
        const uint8_t *row = p + (size_t)y * (size_t)stride;
        for (int x = 0; x < w; x++)
            for (int k = 0; k < count; k++) {
                size_t i = (size_t)x * (size_t)step + (size_t)k;
                uint32_t v;
                if (bits <= 8) {
                    v = row[i];
                } else if (le) {
                    v = (uint32_t)row[2 * i] | (uint32_t)row[2 * i + 1] << 8;
                } else {
                    uint16_t u;
                    memcpy(&u, row + 2 * i, 2);
                    v = u;
                }
                if (v > max)
                    v = max; /* a value past its bits (a damaged stream) */
                if (bits != depth)
                    v = (v * out_max + max / 2) / max;
                size_t o = ((size_t)y * (size_t)w + (size_t)x) * (size_t)c + (size_t)(off + k);
                if (depth == 16)
                    ((uint16_t *)out->data)[o] = (uint16_t)v;
                else
                    out->data[o] = (uint8_t)v;
            }
    }
}

/* A decoded plane: the stride, bits and size checked against what the
 * image is to be (w x h, values of more than 8 bits when wide); NULL when
 * it is not that (a damaged file, or libheif's surprise). */
static const uint8_t *plane_of(const struct heif_image *im, enum heif_channel ch, int w, int h,
                               int values, int wide, int *stride, int *bits)
{
    *stride = 0;
    const uint8_t *p = heif_image_get_plane_readonly(im, ch, stride);
    *bits = heif_image_get_bits_per_pixel_range(im, ch);
    if (!p || heif_image_get_width(im, ch) != w || heif_image_get_height(im, ch) != h ||
        *bits < 8 || *bits > 16 || (wide && *bits <= 8) || *stride <= 0 ||
        (size_t)*stride < (size_t)w * (size_t)values * (*bits > 8 ? 2 : 1))
        return NULL;
    return p;
}

static gpuimg_status decode(gpuimg_ctx *ctx, const uint8_t *data, size_t size, const char *name,
                            gpuimg_image *out)
{
    memset(out, 0, sizeof *out);
    struct heif_context *hc;
    struct heif_image_handle *h;
    char why[256];
    if (!open_primary(data, size, &hc, &h, why, sizeof why))
        return damaged(ctx, name, why);
    int w, hh, c, bits;
    int mono = coded_monochrome(data, size);
    gpuimg_status st = layout(ctx, name, h, mono, &w, &hh, &c, &bits);
    if (st == GPUIMG_OK)
        st = gpuimg__check_size(ctx, name, (uint64_t)w, (uint64_t)hh);
    struct heif_decoding_options *opt = st == GPUIMG_OK ? heif_decoding_options_alloc() : NULL;
    if (st == GPUIMG_OK && !opt)
        st = gpuimg__fail(ctx, GPUIMG_ERR_NOMEM, "%s: out of memory", name);
    struct heif_image *im = NULL;
    if (st == GPUIMG_OK) {
        opt->ignore_transformations = ctx->cfg.no_auto_orient ? 1 : 0;
        /* Not strict_decoding: in 1.15.1 its early returns leak the
         * decoded image (and dav1d's picture; found by fuzz_heif). The
         * warnings it would have failed on are errors below instead:
         * damaged data is never made-up pixels (SPEC §2). */
        opt->strict_decoding = 0;
        /* Interleaved RGB(A) for gray too: libheif 1.15 turns some gray
         * files (x265's) into RGB planes on decoding, from which it has
         * no conversion back to monochrome; their R, G and B are Y. */
        int rgb_c = mono ? c + 2 : c;
        enum heif_chroma chroma =
            bits > 8 ? (rgb_c == 4 ? heif_chroma_interleaved_RRGGBBAA_LE
                                   : heif_chroma_interleaved_RRGGBB_LE)
                     : (rgb_c == 4 ? heif_chroma_interleaved_RGBA : heif_chroma_interleaved_RGB);
        struct heif_error e = heif_decode_image(h, &im, heif_colorspace_RGB, chroma, opt);
        if (e.code != heif_error_Ok) {
            st = damaged(ctx, name, e.message && *e.message ? e.message : "damaged");
            im = NULL;
        }
    }
    heif_decoding_options_free(opt);
    /* libheif 1.15.1 fills every warning whatever room it is given, each
     * message replacing the one before: room for all, the last message */
    int warnings = im ? heif_image_get_decoding_warnings(im, 0, NULL, 0) : 0;
    struct heif_error *wn = warnings > 0 ? calloc((size_t)warnings, sizeof *wn) : NULL;
    if (warnings > 0 && st == GPUIMG_OK)
        st = !wn ? gpuimg__fail(ctx, GPUIMG_ERR_NOMEM, "%s: out of memory", name)
             : heif_image_get_decoding_warnings(im, 0, wn, warnings) == warnings &&
                     wn[warnings - 1].message && *wn[warnings - 1].message
                 ? damaged(ctx, name, wn[warnings - 1].message)
                 : damaged(ctx, name, "a decoding warning");
    free(wn);
    enum heif_channel first = heif_channel_interleaved;
    int rgb_c = mono ? c + 2 : c;
    /* Under --no-auto-orient the size is the coded image's, which the
     * ispe box should say; libheif 1.15's own writer puts the turned size
     * there for a quarter turn, so the sides may come swapped (any other
     * size is a damaged file, refused below). */
    if (st == GPUIMG_OK && ctx->cfg.no_auto_orient && heif_image_get_width(im, first) == hh &&
        heif_image_get_height(im, first) == w) {
        int t = w;
        w = hh, hh = t;
    }
    int stride = 0, got_bits = 0;
    const uint8_t *p =
        st == GPUIMG_OK ? plane_of(im, first, w, hh, rgb_c, bits > 8, &stride, &got_bits) : NULL;
    if (st == GPUIMG_OK && !p)
        st = damaged(ctx, name, "the decoded image is not the size or depth its header says");
    if (st == GPUIMG_OK &&
        (st = gpuimg__image_take_depth(ctx, out, w, hh, c, bits > 8 ? 16 : 8)) != GPUIMG_OK)
        gpuimg__fail_as(ctx, st, name);
    if (st == GPUIMG_OK && !mono)
        copy_plane(out, 0, c, p, stride, got_bits, c, 1);
    if (st == GPUIMG_OK && mono) { /* R for Y, and the alpha */
        copy_plane(out, 0, 1, p, stride, got_bits, rgb_c, 1);
        if (c == 2)
            copy_plane(out, 1, 1, p + 3 * (got_bits > 8 ? 2 : 1), stride, got_bits, rgb_c, 1);
    }
    if (im)
        heif_image_release(im);
    close_primary(hc, h);
    return st;
}

/* ---- writing ---- */

static struct heif_error write_file(struct heif_context *hc, const void *data, size_t size,
                                    void *user)
{
    (void)hc;
    struct heif_error e = {heif_error_Ok, heif_suberror_Unspecified, ""};
    errno = 0;
    if (fwrite(data, 1, size, (FILE *)user) != size) {
        e.code = heif_error_Encoding_error;
        e.subcode = heif_suberror_Cannot_write_output_data;
        e.message = "write failed";
    }
    return e;
}

/* Value k of pixel at of img, at bits (8, 10 or 12): 16-bit values as
 * round(v * (2^bits - 1) / 65535). */
static uint32_t value_at(const gpuimg_image *img, size_t at, int bits)
{
    if (gpuimg_image_depth(img) != 16)
        return img->data[at];
    uint32_t v = ((const uint16_t *)img->data)[at];
    return bits == 16 ? v : (v * ((1u << bits) - 1) + 32767u) / 65535u;
}

/* Values of img's channels from..from+count (a pixel's values step apart
 * in the plane) into a plane of bits: bytes, or 16-bit values in the host's
 * order (planes) or little-endian (le: the interleaved chroma). */
static void fill_plane(uint8_t *p, int stride, const gpuimg_image *img, int from, int count,
                       int step, int bits, int le)
{
    int w = img->width, c = img->channels;
    for (int y = 0; y < img->height; y++) {
        uint8_t *row = p + (size_t)y * (size_t)stride;
        for (int x = 0; x < w; x++)
            for (int k = 0; k < count; k++) {
                size_t at = ((size_t)y * (size_t)w + (size_t)x) * (size_t)c + (size_t)(from + k);
                uint32_t v = value_at(img, at, bits);
                size_t o = (size_t)x * (size_t)step + (size_t)k;
                if (bits == 8) {
                    row[o] = (uint8_t)v;
                } else if (le) {
                    row[2 * o] = (uint8_t)v, row[2 * o + 1] = (uint8_t)(v >> 8);
                } else {
                    uint16_t u = (uint16_t)v;
                    memcpy(row + 2 * o, &u, 2);
                }
            }
    }
}

/* img (8 or 16 bits) as a libheif image at bits (8, 10 or 12): RGB(A)
 * interleaved, or gray as monochrome Y (and alpha) planes, which x265 and
 * aom both code as 4:0:0. */
static struct heif_image *heif_of(const gpuimg_image *img, int bits)
{
    int w = img->width, h = img->height, c = img->channels;
    struct heif_image *im;
    if (c <= 2) {
        if (heif_image_create(w, h, heif_colorspace_monochrome, heif_chroma_monochrome, &im).code !=
            heif_error_Ok)
            return NULL;
        for (int k = 0; k < c; k++) {
            enum heif_channel ch = k == 0 ? heif_channel_Y : heif_channel_Alpha;
            int stride;
            uint8_t *p;
            if (heif_image_add_plane(im, ch, w, h, bits).code != heif_error_Ok ||
                !(p = heif_image_get_plane(im, ch, &stride))) {
                heif_image_release(im);
                return NULL;
            }
            fill_plane(p, stride, img, k, 1, 1, bits, 0);
        }
        return im;
    }
    enum heif_chroma chroma =
        bits > 8
            ? (c == 4 ? heif_chroma_interleaved_RRGGBBAA_LE : heif_chroma_interleaved_RRGGBB_LE)
            : (c == 4 ? heif_chroma_interleaved_RGBA : heif_chroma_interleaved_RGB);
    if (heif_image_create(w, h, heif_colorspace_RGB, chroma, &im).code != heif_error_Ok)
        return NULL;
    int stride;
    uint8_t *p;
    if (heif_image_add_plane(im, heif_channel_interleaved, w, h, bits).code != heif_error_Ok ||
        !(p = heif_image_get_plane(im, heif_channel_interleaved, &stride))) {
        heif_image_release(im);
        return NULL;
    }
    fill_plane(p, stride, img, 0, c, c, bits, 1);
    return im;
}

/* The file's metadata, as every writer adds it (nothing with --strip). */
static struct heif_error add_metadata(const gpuimg_ctx *ctx, struct heif_context *hc,
                                      struct heif_image_handle *h, struct heif_image *im,
                                      const gpuimg_image *img, int before)
{
    gpuimg__meta_out m;
    gpuimg__metadata_for_output(ctx, img, &m);
    struct heif_error e = {heif_error_Ok, heif_suberror_Unspecified, ""};
    if (before) { /* the profile is the image's, set before it is encoded */
        if (m.icc)
            e = heif_image_set_raw_color_profile(im, "prof", m.icc, m.icc_len);
    } else {
        if (m.exif)
            e = heif_context_add_exif_metadata(hc, h, m.exif, (int)m.exif_len);
        if (e.code == heif_error_Ok && m.xmp)
            e = heif_context_add_XMP_metadata(hc, h, m.xmp, (int)m.xmp_len);
    }
    free(m.exif_copy);
    return e;
}

/* One encode of img at bits into a fresh context written to f. */
static struct heif_error encode_at(gpuimg_ctx *ctx, FILE *f, gpuimg_format format,
                                   const gpuimg_image *img, int bits, int *nomem, char *msg,
                                   size_t msg_len)
{
    struct heif_error e = {heif_error_Memory_allocation_error, heif_suberror_Unspecified,
                           "out of memory"};
    *nomem = 0;
    struct heif_context *hc = heif_context_alloc();
    struct heif_image *im = hc ? heif_of(img, bits) : NULL;
    struct heif_encoding_options *opt = im ? heif_encoding_options_alloc() : NULL;
    struct heif_color_profile_nclx *nclx = opt ? heif_nclx_color_profile_alloc() : NULL;
    struct heif_encoder *enc = NULL;
    struct heif_image_handle *h = NULL;
    if (!nclx) {
        *nomem = 1;
        goto done;
    }
    e = heif_context_get_encoder_for_format(
        hc, format == GPUIMG_FORMAT_AVIF ? heif_compression_AV1 : heif_compression_HEVC, &enc);
    if (e.code != heif_error_Ok) {
        enc = NULL;
        goto done;
    }
    if (ctx->cfg.lossless) {
        /* exact RGB: lossless coding of 4:4:4 planes holding R, G and B
         * themselves (identity matrix, full range), no YCbCr rounding */
        e = heif_encoder_set_lossless(enc, 1);
        if (e.code == heif_error_Ok)
            e = heif_encoder_set_parameter_string(enc, "chroma", "444");
        heif_nclx_color_profile_set_matrix_coefficients(nclx, 0);
        heif_nclx_color_profile_set_color_primaries(nclx, 1);
        heif_nclx_color_profile_set_transfer_characteristics(nclx, 13);
        nclx->full_range_flag = 1;
        /* 1.15.1 converts and labels by the input image's nclx (its
         * HEVC path ignores output_nclx_profile, kept for later versions),
         * and leaves the nclx box out by default (a macOS workaround): a
         * reader would then take the planes for BT.601 YCbCr */
        opt->output_nclx_profile = nclx;
        opt->macOS_compatibility_workaround_no_nclx_profile = 0;
        if (e.code == heif_error_Ok)
            e = heif_image_set_nclx_color_profile(im, nclx);
    } else {
        e = heif_encoder_set_lossy_quality(enc, ctx->cfg.jpeg_quality);
    }
    if (e.code == heif_error_Ok)
        e = add_metadata(ctx, hc, NULL, im, img, 1);
    if (e.code == heif_error_Ok)
        e = heif_context_encode_image(hc, im, enc, opt, &h);
    if (e.code == heif_error_Ok)
        e = add_metadata(ctx, hc, h, im, img, 0);
    if (e.code == heif_error_Ok) {
        struct heif_writer writer = {1, write_file};
        e = heif_context_write(hc, &writer, f);
    }
done:
    /* the message is the context's (or the encoder's): copied before they go */
    snprintf(msg, msg_len, "%s", e.message && *e.message ? e.message : "encoder error");
    e.message = msg;
    if (h)
        heif_image_handle_release(h);
    if (enc)
        heif_encoder_release(enc);
    if (nclx)
        heif_nclx_color_profile_free(nclx);
    heif_encoding_options_free(opt);
    if (im)
        heif_image_release(im);
    heif_context_free(hc);
    return e;
}

static gpuimg_status encode(gpuimg_ctx *ctx, FILE *f, const char *name, gpuimg_format format,
                            const gpuimg_image *img)
{
    const char *what = format == GPUIMG_FORMAT_AVIF ? "AVIF" : "HEIC";
    if (!heif_have_encoder_for_format(format == GPUIMG_FORMAT_AVIF ? heif_compression_AV1
                                                                   : heif_compression_HEVC))
        return gpuimg__fail(ctx, GPUIMG_ERR_IO,
                            "%s: cannot write %s (libheif has no %s encoder here)", name, what,
                            format == GPUIMG_FORMAT_AVIF ? "AV1" : "HEVC");
    /* 16 bits at the most the encoder takes: 12 (aom; x265 where built
     * with it), else 10 */
    static const int depths16[] = {12, 10};
    int tries = gpuimg_image_depth(img) == 16 ? 2 : 1;
    struct heif_error e = {heif_error_Ok, heif_suberror_Unspecified, ""};
    int nomem = 0;
    char msg[256];
    /* a refused depth fails in the encoder, before anything is written */
    for (int i = 0; i < tries; i++) {
        int bits = tries == 1 ? 8 : depths16[i];
        e = encode_at(ctx, f, format, img, bits, &nomem, msg, sizeof msg);
        if (e.code == heif_error_Ok || nomem || e.subcode == heif_suberror_Cannot_write_output_data)
            break;
    }
    if (e.code == heif_error_Ok)
        return GPUIMG_OK;
    if (nomem || e.code == heif_error_Memory_allocation_error)
        return gpuimg__fail(ctx, GPUIMG_ERR_NOMEM, "%s: out of memory", name);
    if (e.subcode == heif_suberror_Cannot_write_output_data)
        return gpuimg__fail(ctx, GPUIMG_ERR_IO, "%s: write failed: %s", name,
                            strerror(errno ? errno : EIO));
    return gpuimg__fail(ctx, GPUIMG_ERR_IO, "%s: cannot write %s (libheif: %s)", name, what, msg);
}

#else /* GPUIMG_NO_HEIF: a build without libheif (make dist). The rows                             \
       * stay, so that a HEIC or AVIF is still recognised and named, and                           \
       * every read or write of one fails saying why. */

static gpuimg_status probe(gpuimg_ctx *ctx, const char *name, const uint8_t *d, size_t n,
                           gpuimg_file_info *out)
{
    (void)out;
    return gpuimg__fail(ctx, GPUIMG_ERR_DECODE,
                        "%s: this build of gpuimg has no HEIF support (no libheif): %s cannot "
                        "be read",
                        name, kind_of(d, n) == 2 ? "AVIF" : "HEIC");
}

static gpuimg_status decode(gpuimg_ctx *ctx, const uint8_t *data, size_t size, const char *name,
                            gpuimg_image *out)
{
    (void)out;
    return probe(ctx, name, data, size, NULL);
}

static gpuimg_status encode(gpuimg_ctx *ctx, FILE *f, const char *name, gpuimg_format format,
                            const gpuimg_image *img)
{
    (void)f, (void)img;
    return gpuimg__fail(ctx, GPUIMG_ERR_FORMAT,
                        "%s: this build of gpuimg has no HEIF support (no libheif): %s cannot "
                        "be written",
                        name, format == GPUIMG_FORMAT_AVIF ? "AVIF" : "HEIC");
}

/* nothing read: the decoder says why */
static int meta_read(gpuimg__meta_notes *notes, const uint8_t *data, size_t size,
                     gpuimg_metadata *m)
{
    (void)notes, (void)data, (void)size, (void)m;
    return 1;
}

#endif

const gpuimg__format gpuimg__format_heic = {
    .name = "heic",
    .extensions = {{"heic", GPUIMG_FORMAT_HEIC}, {"heif", GPUIMG_FORMAT_HEIC}},
    .holds_16 = 1, /* 10 or 12 bits: a 10/12-bit file round-trips exactly */
    .sniff = is_heic,
    .probe = probe,
    .decode = decode,
    .encode = encode,
    .meta_read = meta_read,
    .meta_write = 1,
};

const gpuimg__format gpuimg__format_avif = {
    .name = "avif",
    .extensions = {{"avif", GPUIMG_FORMAT_AVIF}},
    .holds_16 = 1,
    .sniff = is_avif,
    .probe = probe,
    .decode = decode,
    .encode = encode,
    .meta_read = meta_read,
    .meta_write = 1,
};
