/* SPDX-License-Identifier: MIT */
/* An image's metadata (SPEC §2): the ICC colour profile, EXIF and XMP as
 * each format's row reads them (its meta_read: PNG's iCCP, eXIf and iTXt
 * XML:com.adobe.xmp, JPEG's APP2 ICC_PROFILE and APP1 Exif and XMP, WebP's
 * chunks), the EXIF Orientation applied to the pixels, and what goes back
 * into an output.
 *
 * These are untrusted bytes, read by hand: every offset is checked against
 * the block it points into, a block that does not parse is dropped with a
 * warning (its image still loads), and nothing here can fail a load but
 * memory. */
#include <libdeflate.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "core/metadata.h"
#include "io/bytes.h"
#include "io/formats.h"
#include "io/metadata.h"
#include "io/walk_tiff.h"

/* Profiles larger than this are refused (the largest real ones, CMYK
 * device links, are a few MB). */
#define MAX_PROFILE ((size_t)64 << 20)

/* ---- EXIF: the TIFF structure, IFD0's Orientation (tag 0x0112) ---- */

/* The Orientation entry's value field in exif, or NULL: 0 and *malformed
 * when the structure does not hold together. */
static uint8_t *orientation_entry(uint8_t *exif, size_t n, int *le, int *malformed)
{
    *malformed = 1;
    uint64_t at;
    gpuimg__tiff_ifd ifd;
    if (!gpuimg__tiff_header(exif, n, le, &at) || !gpuimg__tiff_ifd_at(exif, n, at, *le, &ifd) ||
        ifd.inside < ifd.count)
        return NULL;
    *malformed = 0;
    for (unsigned i = 0; i < ifd.count; i++) {
        uint8_t *e = exif + (ifd.entries - exif) + 12 * (size_t)i;
        if (gpuimg__get16(e, *le) == 0x0112) {
            /* SHORT, count 1: the value sits in the entry's first two bytes */
            if (gpuimg__get16(e + 2, *le) != 3 || gpuimg__get32(e + 4, *le) != 1) {
                *malformed = 1;
                return NULL;
            }
            return e + 8;
        }
    }
    return NULL;
}

int gpuimg__exif_orientation(const uint8_t *exif, size_t n)
{
    int le, malformed;
    uint8_t *v = orientation_entry((uint8_t *)exif, n, &le, &malformed);
    if (malformed)
        return -1;
    unsigned o = v ? gpuimg__get16(v, le) : 1;
    return o >= 1 && o <= 8 ? (int)o : -1;
}

void gpuimg__exif_set_orientation(uint8_t *exif, size_t n, int orientation)
{
    int le, malformed;
    uint8_t *v = orientation_entry(exif, n, &le, &malformed);
    if (!v)
        return;
    v[le ? 0 : 1] = (uint8_t)orientation;
    v[le ? 1 : 0] = 0;
}

/* ---- ICC: the data colour space, header bytes 16-19 ---- */

/* The profile's description: its 'desc' tag, as ICC v2 (textDescription,
 * ASCII) or v4 (multiLocalizedUnicode, UTF-16BE: the first record, its
 * non-ASCII characters as '?') writes it. "" when there is none. */
void gpuimg__icc_description(const uint8_t *icc, size_t n, char *out, size_t cap)
{
    if (cap == 0)
        return;
    out[0] = '\0';
    if (n < 132)
        return;
    uint32_t count = gpuimg__get32(icc + 128, 0);
    if (count > (n - 132) / 12)
        return;
    for (uint32_t i = 0; i < count; i++) {
        const uint8_t *t = icc + 132 + 12 * (size_t)i;
        uint32_t at = gpuimg__get32(t + 4, 0), len = gpuimg__get32(t + 8, 0);
        if (memcmp(t, "desc", 4) != 0 || at > n || len > n - at || len < 12)
            continue;
        const uint8_t *d = icc + at;
        size_t k = 0;
        if (memcmp(d, "desc", 4) == 0) {
            uint32_t chars = gpuimg__get32(d + 8, 0);
            for (uint32_t j = 0; j < chars && 12 + j < len && d[12 + j] && k + 1 < cap; j++)
                out[k++] = d[12 + j] >= 0x20 && d[12 + j] < 0x7f ? (char)d[12 + j] : '?';
        } else if (memcmp(d, "mluc", 4) == 0 && len >= 28 && gpuimg__get32(d + 8, 0) >= 1) {
            uint32_t bytes = gpuimg__get32(d + 20, 0), off = gpuimg__get32(d + 24, 0);
            if (off <= len && bytes <= len - off)
                for (uint32_t j = 0; j + 1 < bytes && k + 1 < cap; j += 2) {
                    unsigned ch = gpuimg__get16(d + off + j, 0);
                    if (ch == 0)
                        break;
                    out[k++] = ch >= 0x20 && ch < 0x7f ? (char)ch : '?';
                }
        }
        out[k] = '\0';
        return;
    }
}

/* ---- the formats' blocks: their rows' meta_read ---- */

uint8_t *gpuimg__meta_inflate(const uint8_t *p, size_t n, size_t *out_len)
{
    struct libdeflate_decompressor *d = libdeflate_alloc_decompressor();
    uint8_t *buf = NULL;
    for (size_t cap = n * 4 + 4096; d && cap <= MAX_PROFILE * 2; cap *= 2) {
        uint8_t *more = realloc(buf, cap);
        if (!more)
            break;
        buf = more;
        enum libdeflate_result r = libdeflate_zlib_decompress(d, p, n, buf, cap, out_len);
        if (r == LIBDEFLATE_SUCCESS && *out_len <= MAX_PROFILE) {
            libdeflate_free_decompressor(d);
            return buf;
        }
        if (r != LIBDEFLATE_INSUFFICIENT_SPACE)
            break;
    }
    libdeflate_free_decompressor(d);
    free(buf);
    *out_len = 0; /* libdeflate may have set it before it found the data bad */
    return NULL;
}

void gpuimg__meta_dropped(gpuimg__meta_notes *notes, const char *what)
{
    for (int i = 0; i < notes->count; i++)
        if (strcmp(notes->what[i], what) == 0)
            return;
    if (notes->count < GPUIMG__META_NOTES)
        notes->what[notes->count++] = what;
}

void gpuimg__metadata_tell(gpuimg_ctx *ctx, const char *name, const gpuimg__meta_notes *notes)
{
    for (int i = 0; i < notes->count; i++)
        gpuimg__warn(ctx, "%s: %s dropped", name, notes->what[i]);
}

/* ---- reading, and orienting ---- */

const gpuimg__orientation gpuimg__orientations[9] = {
    [0] = {0, 0, 0, 0, {0}},
    [1] = {0, 0, 0, 0, {0}},
    [2] = {0, 1, 0, 1, {GPUIMG_MOVE_FLIP_H}},
    [3] = {0, 1, 1, 1, {GPUIMG_MOVE_ROTATE180}},
    [4] = {0, 0, 1, 1, {GPUIMG_MOVE_FLIP_V}},
    [5] = {1, 0, 0, 1, {GPUIMG_MOVE_TRANSPOSE}},
    [6] = {1, 0, 1, 1, {GPUIMG_MOVE_ROTATE90}},
    [7] = {1, 1, 1, 2, {GPUIMG_MOVE_TRANSPOSE, GPUIMG_MOVE_ROTATE180}},
    [8] = {1, 1, 0, 1, {GPUIMG_MOVE_ROTATE270}},
};

/* Moves pixels as EXIF orientation o (2-8) says, into a new image. */
static gpuimg_status orient(gpuimg_ctx *ctx, gpuimg_image *img, int o)
{
    const gpuimg__orientation *turn = &gpuimg__orientations[o];
    int w = img->width, h = img->height, c = img->channels, swap = turn->swap;
    size_t px = (size_t)c * gpuimg_image_value_size(img); /* bytes of a pixel */
    gpuimg_image out;
    gpuimg_status st =
        gpuimg__image_take_depth(ctx, &out, swap ? h : w, swap ? w : h, c, gpuimg_image_depth(img));
    if (st != GPUIMG_OK)
        return st;
    int ow = out.width, oh = out.height;
    for (int y = 0; y < oh; y++) {
        uint8_t *d = out.data + (size_t)y * ow * px;
        for (int x = 0; x < ow; x++, d += px) {
            int sx = swap ? y : x, sy = swap ? x : y; /* where the output pixel comes from */
            if (turn->flip_x)
                sx = w - 1 - sx;
            if (turn->flip_y)
                sy = h - 1 - sy;
            memcpy(d, img->data + ((size_t)sy * w + sx) * px, px);
        }
    }
    out.meta = img->meta;
    img->meta = NULL;
    gpuimg_image_free(img);
    *img = out;
    return GPUIMG_OK;
}

gpuimg_status gpuimg__metadata_parse_quiet(gpuimg_ctx *ctx, const char *name,
                                           const gpuimg__format *format, const uint8_t *data,
                                           size_t size, gpuimg_metadata **out,
                                           gpuimg__meta_notes *notes)
{
    *out = NULL;
    memset(notes, 0, sizeof *notes);
    gpuimg_metadata *m = calloc(1, sizeof *m);
    if (!m)
        return gpuimg__fail(ctx, GPUIMG_ERR_NOMEM, "%s: out of memory", name);
    m->orientation = 1;
    if (format->meta_read && !format->meta_read(notes, data, size, m)) {
        gpuimg_metadata_free(m);
        return gpuimg__fail(ctx, GPUIMG_ERR_NOMEM, "%s: out of memory", name);
    }
    if (m->exif) {
        int o = gpuimg__exif_orientation(m->exif, m->exif_len);
        if (o < 0) { /* kept out of outputs too: a block nothing can read */
            gpuimg__meta_dropped(notes, "EXIF (malformed; its orientation is ignored)");
            free(m->exif);
            m->exif = NULL;
            m->exif_len = 0;
        } else {
            m->orientation = o;
        }
    }
    if (!m->icc && !m->exif && !m->xmp && !m->png_colour)
        gpuimg_metadata_free(m);
    else
        *out = m;
    return GPUIMG_OK;
}

gpuimg_status gpuimg__metadata_parse(gpuimg_ctx *ctx, const char *name,
                                     const gpuimg__format *format, const uint8_t *data, size_t size,
                                     gpuimg_metadata **out)
{
    gpuimg__meta_notes notes;
    gpuimg_status st = gpuimg__metadata_parse_quiet(ctx, name, format, data, size, out, &notes);
    if (st == GPUIMG_OK)
        gpuimg__metadata_tell(ctx, name, &notes);
    return st;
}

gpuimg_status gpuimg__metadata_attach(gpuimg_ctx *ctx, const char *name, gpuimg_metadata *m,
                                      gpuimg_image *img)
{
    gpuimg_metadata_free(img->meta);
    img->meta = m;
    if (m->orientation > 1 && !ctx->cfg.no_auto_orient) {
        gpuimg_status st = orient(ctx, img, m->orientation);
        if (st != GPUIMG_OK)
            return gpuimg__fail_as(ctx, st, name);
        img->meta->oriented = 1;
    }
    return GPUIMG_OK;
}

/* ---- writing ---- */

void gpuimg__metadata_for_output(const gpuimg_ctx *ctx, const gpuimg_image *img,
                                 gpuimg__meta_out *out)
{
    memset(out, 0, sizeof *out);
    const gpuimg_metadata *m = img->meta;
    if (!m || ctx->cfg.strip)
        return;
    /* a profile goes only onto pixels of its colour space: an RGB one onto
     * colour, a gray one onto gray, never a CMYK one (SPEC §2: a CMYK
     * file's pixels are RGB once read) */
    if (m->icc && m->icc_len >= 20 &&
        memcmp(m->icc + 16, img->channels >= 3 ? "RGB " : "GRAY", 4) == 0) {
        out->icc = m->icc;
        out->icc_len = m->icc_len;
    }
    if (m->exif && m->oriented &&
        (out->exif_copy = gpuimg__meta_copy(m->exif, m->exif_len)) != NULL)
        gpuimg__exif_set_orientation(out->exif_copy, m->exif_len, 1);
    if (m->exif && (!m->oriented || out->exif_copy)) { /* never the unfixed tag */
        out->exif = out->exif_copy ? out->exif_copy : m->exif;
        out->exif_len = m->exif_len;
    }
    out->xmp = m->xmp;
    out->xmp_len = m->xmp_len;
    /* For a gray output too: gAMA, cHRM, sRGB and cICP all describe gray
     * samples as well (the PNG specification allows each with every colour
     * type). Which of them may stand beside an iCCP is the writer's. */
    out->png_colour = m->png_colour;
    out->png_colour_len = m->png_colour_len;
}
