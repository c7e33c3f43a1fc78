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
 * Gray: libheif 1.15 has no way to tell a monochrome coded image from its
 * handle (heif_image_handle_get_preferred_decoding_colorspace came in
 * 1.17), and `info` must say what the decoder gives without decoding; so
 * every HEIF is read as RGB(A), and gray is written widened to RGB (read
 * back as RGB), as the WebP row does.
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

#include <libheif/heif.h>

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

/* What the decoder gives: the size as decoded (transforms applied, or the
 * coded size under --no-auto-orient), channels and depth. */
static gpuimg_status layout(gpuimg_ctx *ctx, const char *name, struct heif_image_handle *h, int *w,
                            int *hh, int *c, int *bits)
{
    *w = ctx->cfg.no_auto_orient ? heif_image_handle_get_ispe_width(h)
                                 : heif_image_handle_get_width(h);
    *hh = ctx->cfg.no_auto_orient ? heif_image_handle_get_ispe_height(h)
                                  : heif_image_handle_get_height(h);
    *c = heif_image_handle_has_alpha_channel(h) ? 4 : 3;
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
    gpuimg_status st = layout(ctx, name, h, &w, &hh, &c, &bits);
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
    gpuimg_status st = layout(ctx, name, h, &w, &hh, &c, &bits);
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
        enum heif_chroma chroma =
            bits > 8
                ? (c == 4 ? heif_chroma_interleaved_RRGGBBAA_LE : heif_chroma_interleaved_RRGGBB_LE)
                : (c == 4 ? heif_chroma_interleaved_RGBA : heif_chroma_interleaved_RGB);
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
    int stride = 0;
    const uint8_t *p =
        im ? heif_image_get_plane_readonly(im, heif_channel_interleaved, &stride) : NULL;
    int got_bits = im ? heif_image_get_bits_per_pixel_range(im, heif_channel_interleaved) : 0;
    /* Under --no-auto-orient the size is the coded image's, which the
     * ispe box should say; libheif 1.15's own writer puts the turned size
     * there for a quarter turn, so the sides may come swapped (any other
     * size is a damaged file, refused below). */
    if (st == GPUIMG_OK && p && ctx->cfg.no_auto_orient &&
        heif_image_get_width(im, heif_channel_interleaved) == hh &&
        heif_image_get_height(im, heif_channel_interleaved) == w) {
        int t = w;
        w = hh, hh = t;
    }
    if (st == GPUIMG_OK &&
        (!p || heif_image_get_width(im, heif_channel_interleaved) != w ||
         heif_image_get_height(im, heif_channel_interleaved) != hh ||
         (bits > 8) != (got_bits > 8) || got_bits > 16 || got_bits < 8 || stride <= 0 ||
         (size_t)stride < (size_t)w * (size_t)c * (bits > 8 ? 2 : 1)))
        st = damaged(ctx, name, "the decoded image is not the size or depth its header says");
    if (st == GPUIMG_OK &&
        (st = gpuimg__image_take_depth(ctx, out, w, hh, c, bits > 8 ? 16 : 8)) != GPUIMG_OK)
        gpuimg__fail_as(ctx, st, name);
    if (st == GPUIMG_OK && bits <= 8) {
        for (int y = 0; y < hh; y++)
            memcpy(out->data + (size_t)y * (size_t)w * (size_t)c, p + (size_t)y * (size_t)stride,
                   (size_t)w * (size_t)c);
    } else if (st == GPUIMG_OK) {
        uint32_t max = (1u << got_bits) - 1;
        uint16_t *dst = (uint16_t *)out->data;
        for (int y = 0; y < hh; y++) {
            const uint8_t *row = p + (size_t)y * (size_t)stride;
            for (size_t i = 0; i < (size_t)w * (size_t)c; i++) {
                uint32_t v = (uint32_t)row[2 * i] | (uint32_t)row[2 * i + 1] << 8;
                if (v > max)
                    v = max; /* a value past its bits (a damaged stream) */
                /* round(v * 65535 / max), exactly */
                *dst++ = (uint16_t)((v * 65535u + max / 2) / max);
            }
        }
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

/* img (8 or 16 bits, 1-4 channels) as a libheif RGB(A) image at bits (8,
 * 10 or 12): gray widened, 16-bit values to round(v * (2^bits - 1) / 65535). */
static struct heif_image *heif_of(const gpuimg_image *img, int bits)
{
    int w = img->width, h = img->height, c = img->channels, oc = c == 2 || c == 4 ? 4 : 3;
    enum heif_chroma chroma =
        bits > 8
            ? (oc == 4 ? heif_chroma_interleaved_RRGGBBAA_LE : heif_chroma_interleaved_RRGGBB_LE)
            : (oc == 4 ? heif_chroma_interleaved_RGBA : heif_chroma_interleaved_RGB);
    struct heif_image *im;
    if (heif_image_create(w, h, heif_colorspace_RGB, chroma, &im).code != heif_error_Ok)
        return NULL;
    int stride;
    uint8_t *p;
    if (heif_image_add_plane(im, heif_channel_interleaved, w, h, bits).code != heif_error_Ok ||
        !(p = heif_image_get_plane(im, heif_channel_interleaved, &stride))) {
        heif_image_release(im);
        return NULL;
    }
    uint32_t max = (1u << bits) - 1;
    int wide = gpuimg_image_depth(img) == 16;
    for (int y = 0; y < h; y++) {
        uint8_t *row = p + (size_t)y * (size_t)stride;
        for (int x = 0; x < w; x++) {
            size_t at = ((size_t)y * (size_t)w + (size_t)x) * (size_t)c;
            for (int k = 0; k < oc; k++) {
                /* gray's value for R, G and B; its alpha last */
                int from = c >= 3 ? k : (k < 3 ? 0 : 1);
                uint32_t v = wide ? ((const uint16_t *)img->data)[at + (size_t)from]
                                  : img->data[at + (size_t)from];
                size_t o = (size_t)x * (size_t)oc + (size_t)k;
                if (bits == 8) {
                    row[o] = (uint8_t)v;
                } else {
                    v = (v * max + 32767u) / 65535u; /* round(v * max / 65535) */
                    row[2 * o] = (uint8_t)v, row[2 * o + 1] = (uint8_t)(v >> 8);
                }
            }
        }
    }
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
