/* SPDX-License-Identifier: MIT */
/* TIFF through libtiff (SPEC §2): the first page, read from memory.
 *
 * Gray, gray+alpha, RGB and RGBA of 8 or 16 bits, in strips or tiles,
 * contiguous or in separate planes, any compression libtiff decodes (none,
 * LZW, Deflate, PackBits among them) are read sample by sample; every other
 * layout (palettes, bilevel, YCbCr, CMYK, JPEG-in-TIFF) through libtiff's
 * RGBA reader, at 8 bits, except CMYK of 8 or 16 bits with a CMYK ICC
 * profile: read sample by sample too and converted to sRGB through the
 * profile by LittleCMS (SPEC §2; perceptual, as tificc does), at its depth
 * (the RGBA reader's naive inversion is for CMYK without a profile). Both give the pixels in their
 * stored order, and the Orientation tag is applied once, after, by metadata.c as for every format.
 * 16-bit samples stay 16 bits (libtiff gives them in the machine's byte order). The size is checked
 * from the header before anything is allocated; libtiff's errors and warnings come to this file's
 * handlers through TIFFOpenOptions (per file, thread safe), and any error fails the read. Written:
 * 8 or 16 bits, Deflate with the horizontal predictor, one strip per ~64 KiB, the ICC profile and
 * XMP as their tags, IFD0's text tags (Make, Model...) and EXIF's own IFD from the EXIF block
 * carried (io/tiff/exif.c reads and writes both). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tiffio.h>

#include "core/cms.h"
#include "io/formats.h"
#include "io/io.h"
#include "io/metadata.h"

static int is_tiff(const uint8_t *d, size_t n)
{
    return n >= 4 && ((d[0] == 'I' && d[1] == 'I' && d[2] == 42 && d[3] == 0) ||
                      (d[0] == 'M' && d[1] == 'M' && d[2] == 0 && d[3] == 42));
}

/* A file in memory, for libtiff's client I/O: read from `data`, or
 * written into a growing buffer. */
typedef struct memio {
    uint8_t *data;
    tsize_t size, cap, pos;
    int failed;        /* a libtiff error was reported */
    char message[200]; /* its text */
} memio;

static tsize_t mem_read(thandle_t h, tdata_t buf, tsize_t n)
{
    memio *m = (memio *)h;
    tsize_t left = m->pos < m->size ? m->size - m->pos : 0;
    if (n > left)
        n = left;
    memcpy(buf, m->data + m->pos, (size_t)n);
    m->pos += n;
    return n;
}

static tsize_t mem_write(thandle_t h, tdata_t buf, tsize_t n)
{
    memio *m = (memio *)h;
    if (m->pos + n > m->cap) {
        tsize_t cap = m->cap ? m->cap : 65536;
        while (cap < m->pos + n)
            cap *= 2;
        uint8_t *more = realloc(m->data, (size_t)cap);
        if (!more)
            return -1;
        /* zeroed: libtiff seeks past the end and writes there, and the gap
         * it leaves (a word-aligned directory) is written out as it is */
        memset(more + m->cap, 0, (size_t)(cap - m->cap));
        m->data = more;
        m->cap = cap;
    }
    memcpy(m->data + m->pos, buf, (size_t)n);
    m->pos += n;
    if (m->pos > m->size)
        m->size = m->pos;
    return n;
}

static toff_t mem_seek(thandle_t h, toff_t off, int whence)
{
    memio *m = (memio *)h;
    int64_t base = whence == SEEK_SET ? 0 : whence == SEEK_CUR ? m->pos : m->size;
    int64_t to = base + (int64_t)off;
    if (to < 0)
        return (toff_t)-1;
    m->pos = (tsize_t)to;
    return (toff_t)to;
}

static int mem_close(thandle_t h)
{
    (void)h;
    return 0;
}

static toff_t mem_size(thandle_t h)
{
    return (toff_t)((memio *)h)->size;
}

/* The file is in memory already: libtiff reads it as a mapped file. It
 * then knows the file's size for its checks (without a map it refuses an
 * uncompressed tile whose size is not a multiple of 1 KiB), and decodes
 * from these bytes without copying them; it never writes to a map. Only a
 * file opened to read is mapped. */
static int mem_map(thandle_t h, tdata_t *base, toff_t *size)
{
    memio *m = (memio *)h;
    *base = m->data;
    *size = (toff_t)m->size;
    return 1;
}

static void mem_unmap(thandle_t h, tdata_t base, toff_t size)
{
    (void)h, (void)base, (void)size;
}

static int on_error(TIFF *tif, void *user, const char *module, const char *fmt, va_list ap)
{
    (void)tif, (void)module;
    memio *m = user;
    if (!m->failed)
        vsnprintf(m->message, sizeof m->message, fmt, ap);
    m->failed = 1;
    return 1;
}

static int on_warning(TIFF *tif, void *user, const char *module, const char *fmt, va_list ap)
{
    /* libtiff warns of tags it does not know: nothing to tell the user. But
     * libjpeg's warnings come through here too (JPEG-in-TIFF), and one of
     * them is "Premature end of JPEG file", after which the rows are made
     * up: an error, as gpuimg's own JPEG reader takes every libjpeg warning. */
    if (module && strstr(module, "JPEG"))
        return on_error(tif, user, module, fmt, ap);
    (void)user, (void)fmt, (void)ap;
    return 1;
}

static TIFF *open_memory(memio *m, const char *name, const char *mode)
{
    TIFFOpenOptions *opts = TIFFOpenOptionsAlloc();
    if (!opts)
        return NULL;
    TIFFOpenOptionsSetErrorHandlerExtR(opts, on_error, m);
    TIFFOpenOptionsSetWarningHandlerExtR(opts, on_warning, m);
    TIFF *tif = TIFFClientOpenExt(name, mode, (thandle_t)m, mem_read, mem_write, mem_seek,
                                  mem_close, mem_size, mem_map, mem_unmap, opts);
    TIFFOpenOptionsFree(opts);
    return tif;
}

static gpuimg_status damaged(gpuimg_ctx *ctx, const char *name, const memio *m)
{
    /* libtiff's reads past the end of the bytes there are: a cut file */
    if (strstr(m->message, "Read error") || strstr(m->message, "Cannot read") ||
        strstr(m->message, "Can not read") || strstr(m->message, "EOF"))
        return gpuimg__fail(ctx, GPUIMG_ERR_DECODE, "%s: not a supported image (truncated TIFF)",
                            name);
    return gpuimg__fail(ctx, GPUIMG_ERR_DECODE, "%s: not a supported image (damaged TIFF%s%.150s)",
                        name, m->message[0] ? ": " : "", m->message);
}

/* Before anything is allocated: every strip (or tile) inside the file, and
 * enough of them to hold the pixels the header claims at any compression
 * libtiff reads (LZW, the best, at most 4096 values a byte), so a small
 * file declaring a huge image is refused from its tags; and tiles no
 * larger than the image needs (the decoders allocate a whole tile), with a
 * margin for writers whose tile size is fixed. */
static gpuimg_status data_present(gpuimg_ctx *ctx, const char *name, TIFF *tif, size_t size,
                                  uint64_t raw_bytes, uint64_t pixels)
{
    int tiled = TIFFIsTiled(tif);
    uint32_t n = tiled ? TIFFNumberOfTiles(tif) : TIFFNumberOfStrips(tif);
    uint64_t *offsets = NULL, *counts = NULL, total = 0;
    if (!TIFFGetField(tif, tiled ? TIFFTAG_TILEOFFSETS : TIFFTAG_STRIPOFFSETS, &offsets) ||
        !TIFFGetField(tif, tiled ? TIFFTAG_TILEBYTECOUNTS : TIFFTAG_STRIPBYTECOUNTS, &counts) ||
        !offsets || !counts)
        return gpuimg__fail(ctx, GPUIMG_ERR_DECODE,
                            "%s: not a supported image (damaged TIFF: no strips)", name);
    for (uint32_t i = 0; i < n; i++) {
        if (offsets[i] > size || counts[i] > size - offsets[i])
            return gpuimg__fail(ctx, GPUIMG_ERR_DECODE,
                                "%s: not a supported image (truncated TIFF)", name);
        total += counts[i];
    }
    if (total * 4096 < raw_bytes)
        return gpuimg__fail(ctx, GPUIMG_ERR_DECODE,
                            "%s: not a supported image (damaged TIFF: %llu bytes of data cannot "
                            "hold its pixels)",
                            name, (unsigned long long)total);
    uint32_t tw = 0, th = 0;
    if (tiled && TIFFGetField(tif, TIFFTAG_TILEWIDTH, &tw) &&
        TIFFGetField(tif, TIFFTAG_TILELENGTH, &th) &&
        (uint64_t)tw * th > (pixels > ((uint64_t)1 << 22) ? pixels : (uint64_t)1 << 22))
        return gpuimg__fail(ctx, GPUIMG_ERR_DECODE,
                            "%s: not a supported image (damaged TIFF: %ux%u tiles for %llu "
                            "pixels)",
                            name, tw, th, (unsigned long long)pixels);
    /* and in bytes: a tile's samples a pixel and bits count too (a 1x1
     * image of 100 samples in one 2048x2048 tile asked for 400 MB) */
    uint64_t unit = tiled ? TIFFTileSize64(tif) : TIFFStripSize64(tif);
    uint64_t room = raw_bytes > ((uint64_t)64 << 20) ? raw_bytes : (uint64_t)64 << 20;
    if (unit > room)
        return gpuimg__fail(ctx, GPUIMG_ERR_DECODE,
                            "%s: not a supported image (damaged TIFF: %llu-byte %s for %llu "
                            "bytes of pixels)",
                            name, (unsigned long long)unit, tiled ? "tiles" : "strips",
                            (unsigned long long)raw_bytes);
    return GPUIMG_OK;
}

/* How the pixels are read, from the tags alone: the loader reads by it and
 * `info` reports it, so that both give the same channels. */
typedef struct tiff_layout {
    int direct;    /* sample by sample: gray or RGB of 8 or 16 bits */
    int channels;  /* of the image read */
    int depth;     /* 8 or 16 */
    int spp, bits; /* in the file */
    int planes;    /* 1, or spp when the samples are in separate planes */
    int invert;    /* min-is-white gray */
    int cmyk;      /* CMYK with its profile: read as 4 samples, then converted */
} tiff_layout;

/* 1 when the file's ICC profile is a CMYK one (by its header). */
static int cmyk_profile(TIFF *tif)
{
    uint32_t len = 0;
    void *icc = NULL;
    return TIFFGetField(tif, TIFFTAG_ICCPROFILE, &len, &icc) && icc && len >= 20 &&
           memcmp((const uint8_t *)icc + 16, "CMYK", 4) == 0;
}

static void direct_layout(TIFF *tif, tiff_layout *l)
{
    uint16_t spp = 1, bits = 1, planar = PLANARCONFIG_CONTIG, photo = 0, format = SAMPLEFORMAT_UINT;
    TIFFGetFieldDefaulted(tif, TIFFTAG_SAMPLESPERPIXEL, &spp);
    TIFFGetFieldDefaulted(tif, TIFFTAG_BITSPERSAMPLE, &bits);
    TIFFGetFieldDefaulted(tif, TIFFTAG_PLANARCONFIG, &planar);
    TIFFGetFieldDefaulted(tif, TIFFTAG_SAMPLEFORMAT, &format);
    int have_photo = TIFFGetField(tif, TIFFTAG_PHOTOMETRIC, &photo);
    int gray = have_photo && (photo == PHOTOMETRIC_MINISBLACK || photo == PHOTOMETRIC_MINISWHITE);
    int rgb = have_photo && photo == PHOTOMETRIC_RGB;
    int base = gray ? 1 : 3;
    memset(l, 0, sizeof *l);
    l->spp = spp;
    l->bits = bits;
    l->planes = planar == PLANARCONFIG_SEPARATE ? spp : 1;
    l->invert = photo == PHOTOMETRIC_MINISWHITE;
    /* samples beyond gray or RGB and one alpha (up to 8 more) are not kept */
    l->direct = (gray || rgb) && (bits == 8 || bits == 16) && format == SAMPLEFORMAT_UINT &&
                spp >= base && spp <= base + 1 + 8;
    l->channels = base + (spp > base);
    l->depth = bits == 16 ? 16 : 8;
    uint16_t inks = INKSET_CMYK;
    TIFFGetFieldDefaulted(tif, TIFFTAG_INKSET, &inks);
    if (have_photo && photo == PHOTOMETRIC_SEPARATED && inks == INKSET_CMYK && spp >= 4 &&
        spp <= 4 + 8 && (bits == 8 || bits == 16) && format == SAMPLEFORMAT_UINT &&
        cmyk_profile(tif)) {
        /* samples past the four inks (an alpha among them) are not kept:
         * the profile's conversion has no alpha */
        l->direct = l->cmyk = 1;
        l->channels = 3;
    }
}

/* libtiff's RGBA reader set up for tif, in the stored order: its
 * req_orientation equal to the file's own Orientation asks it for no flip
 * (by default it flips what the tag says partly: rows for the bottom
 * orientations, columns for the right ones, never a transpose), so that
 * metadata.c applies the orientation once, as for the direct path. 0 with
 * the reason in emsg. */
static int rgba_begin(TIFF *tif, TIFFRGBAImage *img, char emsg[1024])
{
    if (!TIFFRGBAImageOK(tif, emsg) || !TIFFRGBAImageBegin(img, tif, 1, emsg))
        return 0;
    img->req_orientation = img->orientation;
    return 1;
}

/* The RGBA reader's channels: gray stays gray; an alpha only where
 * libtiff found one and its routines for that photometric carry it (those
 * for CMYK, YCbCr and palettes leave every pixel opaque). */
static int rgba_channels(const TIFFRGBAImage *img)
{
    int gray =
        img->photometric == PHOTOMETRIC_MINISBLACK || img->photometric == PHOTOMETRIC_MINISWHITE;
    int alpha = img->alpha != 0 && (gray || img->photometric == PHOTOMETRIC_RGB);
    return (gray ? 1 : 3) + alpha;
}

/* n pixels of a decoded row (l->spp samples each, or one when the samples
 * are in planes: plane p's) into row y of img from column x0. */
static void put_run(gpuimg_image *img, const tiff_layout *l, int p, int y, uint32_t x0, uint32_t n,
                    const uint8_t *src)
{
    int c = img->channels, per = l->planes == 1 ? l->spp : 1;
    unsigned top = l->bits == 16 ? 65535 : 255;
    uint8_t *row = img->data + (size_t)y * gpuimg__row_bytes(img);
    for (uint32_t x = 0; x < n; x++)
        for (int s = 0; s < per; s++) {
            int ch = l->planes == 1 ? s : p; /* gray or RGB, then the alpha */
            if (ch >= c)
                continue; /* samples beyond the alpha are not kept */
            size_t k = (size_t)x * per + s, at = (size_t)(x0 + x) * c + ch;
            unsigned v = l->bits == 16 ? ((const uint16_t *)src)[k] : src[k];
            if (l->invert && ch == 0)
                v = top - v;
            if (l->bits == 16)
                ((uint16_t *)row)[at] = (uint16_t)v;
            else
                row[at] = (uint8_t)v;
        }
}

/* The direct path in strips: scanline by scanline. 1, or 0 on a read
 * error. */
static int read_strips(TIFF *tif, gpuimg_image *img, const tiff_layout *l)
{
    tmsize_t line = TIFFScanlineSize(tif);
    uint64_t need = (uint64_t)img->width * (l->planes == 1 ? l->spp : 1) * (l->bits / 8);
    uint8_t *buf = line > 0 && (uint64_t)line >= need ? malloc((size_t)line) : NULL;
    if (!buf)
        return 0;
    int ok = 1;
    for (int p = 0; ok && p < l->planes; p++)
        for (int y = 0; ok && y < img->height; y++) {
            ok = TIFFReadScanline(tif, buf, (uint32_t)y, (uint16_t)p) >= 0;
            if (ok)
                put_run(img, l, p, y, 0, (uint32_t)img->width, buf);
        }
    free(buf);
    return ok;
}

/* The direct path in tiles: each tile whole, its part inside the image
 * kept (edge tiles reach past it). 1, or 0 on a read error. */
static int read_tiles(TIFF *tif, gpuimg_image *img, const tiff_layout *l)
{
    uint32_t tw = 0, th = 0, w = (uint32_t)img->width, h = (uint32_t)img->height;
    TIFFGetField(tif, TIFFTAG_TILEWIDTH, &tw);
    TIFFGetField(tif, TIFFTAG_TILELENGTH, &th);
    tmsize_t size = TIFFTileSize(tif), row = TIFFTileRowSize(tif);
    uint64_t need = (uint64_t)tw * (l->planes == 1 ? l->spp : 1) * (l->bits / 8);
    if (tw == 0 || th == 0 || row <= 0 || (uint64_t)row < need || size / row < (tmsize_t)th)
        return 0;
    uint8_t *buf = malloc((size_t)size);
    int ok = buf != NULL;
    for (int p = 0; ok && p < l->planes; p++)
        for (uint64_t ty = 0; ok && ty < h; ty += th)
            for (uint64_t tx = 0; ok && tx < w; tx += tw) {
                ok = TIFFReadTile(tif, buf, (uint32_t)tx, (uint32_t)ty, 0, (uint16_t)p) >= 0;
                uint64_t rows = h - ty < th ? h - ty : th, cols = w - tx < tw ? w - tx : tw;
                for (uint64_t r = 0; ok && r < rows; r++)
                    put_run(img, l, p, (int)(ty + r), (uint32_t)tx, (uint32_t)cols,
                            buf + (size_t)r * (size_t)row);
            }
    free(buf);
    return ok;
}

/* The RGBA reader's raster (ABGR words, the stored order) into img. 1, or
 * 0 on a read error. */
static int read_rgba(TIFFRGBAImage *rgba, gpuimg_image *img)
{
    size_t n = (size_t)img->width * (size_t)img->height;
    uint32_t *raster = malloc(n * sizeof *raster);
    int ok = raster && TIFFRGBAImageGet(rgba, raster, (uint32_t)img->width, (uint32_t)img->height);
    int c = img->channels, alpha = c == 2 || c == 4;
    for (size_t i = 0; ok && i < n; i++) {
        uint32_t px = raster[i];
        uint8_t *d = img->data + i * (size_t)c;
        d[0] = (uint8_t)TIFFGetR(px);
        if (c >= 3) {
            d[1] = (uint8_t)TIFFGetG(px);
            d[2] = (uint8_t)TIFFGetB(px);
        }
        if (alpha)
            d[c - 1] = (uint8_t)TIFFGetA(px);
    }
    free(raster);
    return ok;
}

/* What libtiff read of the first directory: the profile, XMP, the EXIF
 * block (IFD0's text tags and the EXIF IFD, io/tiff/exif.c) and the
 * Orientation tag. NULL only when memory ran out. */
static gpuimg_metadata *read_metadata(TIFF *tif, const uint8_t *data, size_t size)
{
    uint32_t icc_len = 0, xmp_len = 0;
    void *icc = NULL, *xmp = NULL;
    uint16_t orientation = ORIENTATION_TOPLEFT;
    uint64_t exif_ifd = 0; /* none: IFD0's tags may still make a block */
    TIFFGetField(tif, TIFFTAG_ICCPROFILE, &icc_len, &icc);
    TIFFGetField(tif, TIFFTAG_XMLPACKET, &xmp_len, &xmp);
    TIFFGetField(tif, TIFFTAG_EXIFIFD, &exif_ifd);
    TIFFGetFieldDefaulted(tif, TIFFTAG_ORIENTATION, &orientation);
    gpuimg_metadata *meta = calloc(1, sizeof *meta);
    if (!meta)
        return NULL;
    if (icc && icc_len && (meta->icc = malloc(icc_len)))
        memcpy(meta->icc, icc, meta->icc_len = icc_len);
    if (xmp && xmp_len && (meta->xmp = malloc(xmp_len)))
        memcpy(meta->xmp, xmp, meta->xmp_len = xmp_len);
    if ((icc && icc_len && !meta->icc) || (xmp && xmp_len && !meta->xmp) ||
        gpuimg__tiff_exif(data, size, exif_ifd, &meta->exif, &meta->exif_len) < 0) {
        gpuimg_metadata_free(meta);
        return NULL;
    }
    /* orientation in the file's own tag, not in EXIF */
    meta->orientation = orientation >= 1 && orientation <= 8 ? orientation : 1;
    return meta;
}

/* A CMYK file with its profile: the four inks read as the direct path
 * reads samples, into an image of their own, then through the profile to
 * RGB into out. */
static gpuimg_status read_cmyk(gpuimg_ctx *ctx, const char *name, TIFF *tif, memio *m,
                               const tiff_layout *l, uint32_t w, uint32_t h, gpuimg_image *out)
{
    uint32_t len = 0;
    void *icc = NULL;
    TIFFGetField(tif, TIFFTAG_ICCPROFILE, &len, &icc);
    void *cms = gpuimg__cms_cmyk_to_srgb(icc, len, 0, l->depth);
    if (!cms)
        return gpuimg__fail(ctx, GPUIMG_ERR_DECODE,
                            "%s: not a supported image (TIFF: its CMYK profile does not parse)",
                            name);
    gpuimg_image inks;
    gpuimg_status st = gpuimg_image_alloc_depth(&inks, (int)w, (int)h, 4, l->depth);
    if (st == GPUIMG_OK &&
        (st = gpuimg__image_take_depth(ctx, out, (int)w, (int)h, 3, l->depth)) != GPUIMG_OK)
        gpuimg_image_free(&inks);
    if (st != GPUIMG_OK) {
        gpuimg__cms_free(cms);
        return gpuimg__fail_as(ctx, st, name);
    }
    int ok = TIFFIsTiled(tif) ? read_tiles(tif, &inks, l) : read_strips(tif, &inks, l);
    for (uint32_t y = 0; ok && !m->failed && y < h; y++)
        gpuimg__cms_rows(cms, inks.data + (size_t)y * gpuimg__row_bytes(&inks),
                         out->data + (size_t)y * gpuimg__row_bytes(out), w);
    gpuimg_image_free(&inks);
    gpuimg__cms_free(cms);
    if (ok && !m->failed)
        return GPUIMG_OK;
    gpuimg_image_free(out);
    return m->failed ? damaged(ctx, name, m)
                     : gpuimg__fail(ctx, GPUIMG_ERR_NOMEM, "%s: out of memory", name);
}

/* The pixels into out, allocated here by the layout (and, for the RGBA
 * reader, by what libtiff makes of the file). */
static gpuimg_status read_pixels(gpuimg_ctx *ctx, const char *name, TIFF *tif, memio *m, uint32_t w,
                                 uint32_t h, gpuimg_image *out)
{
    tiff_layout l;
    direct_layout(tif, &l);
    if (l.cmyk)
        return read_cmyk(ctx, name, tif, m, &l, w, h, out);
    TIFFRGBAImage rgba;
    char emsg[1024] = "";
    if (!l.direct && !rgba_begin(tif, &rgba, emsg))
        return gpuimg__fail(ctx, GPUIMG_ERR_DECODE, "%s: not a supported image (TIFF: %.150s)",
                            name, m->failed ? m->message : emsg);
    int c = l.direct ? l.channels : rgba_channels(&rgba);
    gpuimg_status st =
        gpuimg__image_take_depth(ctx, out, (int)w, (int)h, c, l.direct ? l.depth : 8);
    if (st != GPUIMG_OK) {
        if (!l.direct)
            TIFFRGBAImageEnd(&rgba);
        return gpuimg__fail_as(ctx, st, name);
    }
    int ok;
    if (l.direct) {
        ok = TIFFIsTiled(tif) ? read_tiles(tif, out, &l) : read_strips(tif, out, &l);
    } else {
        ok = read_rgba(&rgba, out);
        TIFFRGBAImageEnd(&rgba);
    }
    if (ok && !m->failed)
        return GPUIMG_OK;
    gpuimg_image_free(out);
    return m->failed ? damaged(ctx, name, m)
                     : gpuimg__fail(ctx, GPUIMG_ERR_NOMEM, "%s: out of memory", name);
}

gpuimg_status gpuimg__decode_tiff(gpuimg_ctx *ctx, const uint8_t *data, size_t size,
                                  const char *name, gpuimg_image *out)
{
    memset(out, 0, sizeof *out);
    memio m = {.data = (uint8_t *)data, .size = (tsize_t)size};
    TIFF *tif = open_memory(&m, name, "r");
    if (!tif)
        return damaged(ctx, name, &m);
    uint32_t w = 0, h = 0;
    uint16_t spp = 1, bits = 1;
    TIFFGetField(tif, TIFFTAG_IMAGEWIDTH, &w);
    TIFFGetField(tif, TIFFTAG_IMAGELENGTH, &h);
    TIFFGetFieldDefaulted(tif, TIFFTAG_SAMPLESPERPIXEL, &spp);
    TIFFGetFieldDefaulted(tif, TIFFTAG_BITSPERSAMPLE, &bits);
    gpuimg_status st = gpuimg__check_size(ctx, name, w, h);
    if (st == GPUIMG_OK && m.failed)
        st = damaged(ctx, name, &m);
    if (st == GPUIMG_OK)
        st = data_present(ctx, name, tif, size, (uint64_t)w * h * spp * bits / 8, (uint64_t)w * h);
    if (st == GPUIMG_OK)
        st = read_pixels(ctx, name, tif, &m, w, h, out);
    gpuimg_metadata *meta = st == GPUIMG_OK ? read_metadata(tif, data, size) : NULL;
    TIFFClose(tif);
    if (st != GPUIMG_OK)
        return st;
    if (!meta || m.failed) {
        gpuimg_metadata_free(meta);
        gpuimg_image_free(out);
        return m.failed ? damaged(ctx, name, &m)
                        : gpuimg__fail(ctx, GPUIMG_ERR_NOMEM, "%s: out of memory", name);
    }
    if ((st = gpuimg__metadata_attach(ctx, name, meta, out)) != GPUIMG_OK)
        gpuimg_image_free(out);
    return st;
}

/* Sets IFD0's ExifIFD entry (written as 0) to the EXIF directory's offset,
 * in the bytes libtiff wrote (classic TIFF, its own byte order). */
static int point_exif_ifd(memio *m, uint64_t at)
{
    const uint8_t *d = m->data;
    int le = d[0] == 'I';
    uint32_t ifd =
        le ? (uint32_t)d[4] | (uint32_t)d[5] << 8 | (uint32_t)d[6] << 16 | (uint32_t)d[7] << 24
           : gpuimg__be32(d + 4);
    if (at > UINT32_MAX || ifd + 2 > (uint64_t)m->size)
        return 0;
    unsigned n = le ? d[ifd] | d[ifd + 1] << 8 : d[ifd] << 8 | d[ifd + 1];
    for (unsigned i = 0; i < n && ifd + 2 + 12 * (uint64_t)(i + 1) <= (uint64_t)m->size; i++) {
        uint8_t *e = m->data + ifd + 2 + 12 * i;
        if ((le ? e[0] | e[1] << 8 : e[0] << 8 | e[1]) != TIFFTAG_EXIFIFD)
            continue;
        for (int k = 0; k < 4; k++)
            e[8 + k] = (uint8_t)(at >> (le ? 8 * k : 24 - 8 * k));
        return 1;
    }
    return 0;
}

/* The Orientation tag written: the pixels' own when they were kept as
 * stored (--no-auto-orient), so that readers still turn them upright;
 * 1 when they were turned on reading, or when no metadata is written. */
static int stored_orientation(const gpuimg_ctx *ctx, const gpuimg_image *img)
{
    const gpuimg_metadata *m = img->meta;
    if (!m || m->oriented || ctx->cfg.strip || m->orientation < 1 || m->orientation > 8)
        return ORIENTATION_TOPLEFT;
    return m->orientation;
}

gpuimg_status gpuimg__encode_tiff(gpuimg_ctx *ctx, FILE *f, const char *name, gpuimg_format format,
                                  const gpuimg_image *img)
{
    (void)format;
    memio m = {0};
    TIFF *tif = open_memory(&m, name, "w");
    if (!tif)
        return gpuimg__fail(ctx, GPUIMG_ERR_NOMEM, "%s: cannot start TIFF", name);
    int c = img->channels, w = img->width, h = img->height, depth = gpuimg_image_depth(img);
    TIFFSetField(tif, TIFFTAG_IMAGEWIDTH, (uint32_t)w);
    TIFFSetField(tif, TIFFTAG_IMAGELENGTH, (uint32_t)h);
    TIFFSetField(tif, TIFFTAG_SAMPLESPERPIXEL, (uint16_t)c);
    TIFFSetField(tif, TIFFTAG_BITSPERSAMPLE, (uint16_t)depth);
    TIFFSetField(tif, TIFFTAG_PLANARCONFIG, PLANARCONFIG_CONTIG);
    TIFFSetField(tif, TIFFTAG_PHOTOMETRIC, c >= 3 ? PHOTOMETRIC_RGB : PHOTOMETRIC_MINISBLACK);
    TIFFSetField(tif, TIFFTAG_ORIENTATION, (uint16_t)stored_orientation(ctx, img));
    TIFFSetField(tif, TIFFTAG_COMPRESSION, COMPRESSION_ADOBE_DEFLATE);
    TIFFSetField(tif, TIFFTAG_PREDICTOR, PREDICTOR_HORIZONTAL);
    TIFFSetField(tif, TIFFTAG_ZIPQUALITY, ctx->cfg.png_level > 0 ? ctx->cfg.png_level : 1);
    if (c == 2 || c == 4) {
        uint16_t alpha = EXTRASAMPLE_UNASSALPHA;
        TIFFSetField(tif, TIFFTAG_EXTRASAMPLES, 1, &alpha);
    }
    size_t row = gpuimg__row_bytes(img);
    uint32_t rows = (uint32_t)(65536 / row + 1);
    TIFFSetField(tif, TIFFTAG_ROWSPERSTRIP, rows < (uint32_t)h ? rows : (uint32_t)h);
    gpuimg__meta_out meta;
    gpuimg__metadata_for_output(ctx, img, &meta);
    if (meta.icc)
        TIFFSetField(tif, TIFFTAG_ICCPROFILE, (uint32_t)meta.icc_len, meta.icc);
    if (meta.xmp)
        TIFFSetField(tif, TIFFTAG_XMLPACKET, (uint32_t)meta.xmp_len, meta.xmp);
    /* EXIF's IFD0 text tags (Make, Model...) are TIFF's own, set here;
     * its EXIF IFD is a directory of its own: IFD0 gets its ExifIFD tag now
     * (0, the place kept), the EXIF directory is written after the
     * image's, and the tag's value is set in the bytes once both are out */
    int exif_ifd = meta.exif && gpuimg__tiff_write_ifd0(tif, meta.exif, meta.exif_len);
    if (exif_ifd)
        TIFFSetField(tif, TIFFTAG_EXIFIFD, (uint64_t)0);
    /* each row through a copy: the horizontal predictor differences the
     * buffer it is given in place, and img is the caller's */
    uint8_t *copy = malloc(row);
    int ok = copy != NULL;
    for (int y = 0; ok && y < h; y++) {
        memcpy(copy, img->data + (size_t)y * row, row);
        ok = TIFFWriteScanline(tif, copy, (uint32_t)y, 0) >= 0;
    }
    free(copy);
    uint64_t exif_at = 0;
    if (ok && exif_ifd && (ok = TIFFWriteDirectory(tif)) != 0) {
        if (!gpuimg__tiff_write_exif(tif, meta.exif, meta.exif_len, &exif_at))
            exif_at = 0;               /* nothing libtiff takes: the tag stays 0, as readers skip */
        ok = TIFFSetDirectory(tif, 0); /* leaves no directory of its own open to write */
    }
    free(meta.exif_copy);
    TIFFClose(tif); /* writes the directory */
    if (ok && !m.failed && exif_at)
        ok = point_exif_ifd(&m, exif_at);
    gpuimg_status st = GPUIMG_OK;
    if (!ok || m.failed)
        st = gpuimg__fail(ctx, GPUIMG_ERR_IO, "%s: cannot write TIFF%s%.150s", name,
                          m.message[0] ? ": " : "", m.message);
    else if ((errno = 0, fwrite(m.data, 1, (size_t)m.size, f) != (size_t)m.size))
        st = gpuimg__fail(ctx, GPUIMG_ERR_IO, "%s: write failed: %s", name,
                          strerror(errno ? errno : EIO));
    free(m.data);
    return st;
}

/* The channels gpuimg__decode_tiff gives, from the tags: its own layout,
 * and for the RGBA reader what libtiff makes of the file. A file that
 * reader refuses (the loader fails on it) is reported by its samples. */
static int loaded_channels(TIFF *tif)
{
    tiff_layout l;
    direct_layout(tif, &l);
    if (l.direct)
        return l.channels;
    TIFFRGBAImage rgba;
    char emsg[1024];
    if (rgba_begin(tif, &rgba, emsg)) {
        int c = rgba_channels(&rgba);
        TIFFRGBAImageEnd(&rgba);
        return c;
    }
    uint16_t extra = 0, *kinds = NULL;
    TIFFGetField(tif, TIFFTAG_EXTRASAMPLES, &extra, &kinds);
    return (l.spp - extra >= 3 ? 3 : 1) + (extra > 0);
}

/* The tags alone, its metadata's sizes and orientation with them (libtiff
 * reads them: the row has no meta_read). */
static gpuimg_status probe(gpuimg_ctx *ctx, const char *name, const uint8_t *data, size_t size,
                           gpuimg_file_info *o)
{
    memio m = {.data = (uint8_t *)data, .size = (tsize_t)size};
    TIFF *tif = open_memory(&m, name, "r");
    if (!tif)
        return damaged(ctx, name, &m);
    uint32_t w = 0, h = 0, icc_len = 0, xmp_len = 0;
    uint16_t bits = 1, orientation = 1;
    void *icc = NULL, *xmp = NULL;
    TIFFGetField(tif, TIFFTAG_IMAGEWIDTH, &w);
    TIFFGetField(tif, TIFFTAG_IMAGELENGTH, &h);
    TIFFGetFieldDefaulted(tif, TIFFTAG_BITSPERSAMPLE, &bits);
    TIFFGetFieldDefaulted(tif, TIFFTAG_ORIENTATION, &orientation);
    if (TIFFGetField(tif, TIFFTAG_ICCPROFILE, &icc_len, &icc) && icc)
        gpuimg__icc_description(icc, icc_len, o->profile, sizeof o->profile);
    TIFFGetField(tif, TIFFTAG_XMLPACKET, &xmp_len, &xmp);
    uint64_t exif_ifd = 0;
    uint8_t *exif = NULL;
    size_t exif_len = 0;
    TIFFGetField(tif, TIFFTAG_EXIFIFD, &exif_ifd);
    gpuimg__tiff_exif(data, size, exif_ifd, &exif, &exif_len);
    free(exif);            /* its size is what info reports */
    int failed = m.failed; /* what the RGBA reader's set-up reports is not the probe's */
    o->channels = loaded_channels(tif);
    TIFFClose(tif);
    if (failed)
        return damaged(ctx, name, &m);
    o->stored_width = w <= 0x7fffffff ? (int)w : 0;
    o->stored_height = h <= 0x7fffffff ? (int)h : 0;
    o->depth = bits;
    o->orientation = orientation >= 1 && orientation <= 8 ? orientation : 1;
    o->icc_bytes = icc ? icc_len : 0;
    o->xmp_bytes = xmp ? xmp_len : 0;
    o->exif_bytes = exif_len;
    return GPUIMG_OK;
}

const gpuimg__format gpuimg__format_tiff = {
    .name = "tiff",
    .extensions = {{"tif", GPUIMG_FORMAT_TIFF}, {"tiff", GPUIMG_FORMAT_TIFF}},
    .holds_16 = 1,
    .sniff = is_tiff,
    .probe = probe,
    .decode = gpuimg__decode_tiff,
    .encode = gpuimg__encode_tiff,
    .meta_write = 1,
};
