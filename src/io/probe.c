/* SPDX-License-Identifier: MIT */
/* gpuimg_probe: what a file holds, from its header and metadata only, as
 * ImageMagick's identify and libvips' vipsheader tell it. Each format's
 * header is read where its decoder reads it; every length is checked
 * against the bytes there are (these are untrusted files, fuzzed as
 * fuzz_info). */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <webp/decode.h>

#include "io/io.h"
#include "io/stb_image.h"
#include "io/metadata.h"

static gpuimg_status unreadable(gpuimg_ctx *ctx, const char *name, const char *why)
{
    return gpuimg__fail(ctx, GPUIMG_ERR_DECODE, "%s: not a supported image (%s)", name, why);
}

static gpuimg_status png_header(gpuimg_ctx *ctx, const char *name, const uint8_t *d, size_t n,
                                gpuimg_file_info *o)
{
    if (n < 33 || memcmp(d + 12, "IHDR", 4) != 0)
        return unreadable(ctx, name, "damaged PNG header");
    static const int channels_of[7] = {1, 0, 3, 3, 2, 0, 4};
    int type = d[25];
    o->stored_width = (int)gpuimg__be32(d + 16) > 0 ? (int)gpuimg__be32(d + 16) : 0;
    o->stored_height = (int)gpuimg__be32(d + 20) > 0 ? (int)gpuimg__be32(d + 20) : 0;
    o->depth = d[24];
    if (type > 6 || !channels_of[type])
        return unreadable(ctx, name, "damaged PNG header");
    o->channels = channels_of[type];
    /* tRNS becomes alpha (gray 2, colour and palette 4) */
    for (size_t pos = 33; n - pos >= 12;) {
        uint32_t len = gpuimg__be32(d + pos);
        if (len > n - pos - 12 || memcmp(d + pos + 4, "IDAT", 4) == 0)
            break;
        if (memcmp(d + pos + 4, "tRNS", 4) == 0)
            o->channels = type == 0 ? 2 : 4;
        pos += 12 + (size_t)len;
    }
    return GPUIMG_OK;
}

static gpuimg_status jpeg_header(gpuimg_ctx *ctx, const char *name, const uint8_t *d, size_t n,
                                 gpuimg_file_info *o)
{
    for (size_t pos = 2; pos + 4 <= n && d[pos] == 0xFF;) {
        uint8_t m = d[pos + 1];
        if (m == 0xFF) {
            pos++;
            continue;
        }
        size_t len = (size_t)d[pos + 2] << 8 | d[pos + 3];
        /* SOF0-15 but DHT (C4), JPG (C8) and DAC (CC) */
        if (m >= 0xC0 && m <= 0xCF && m != 0xC4 && m != 0xC8 && m != 0xCC) {
            if (len < 8 || pos + 2 + len > n)
                break;
            const uint8_t *f = d + pos + 4;
            o->depth = f[0];
            o->stored_height = f[1] << 8 | f[2];
            o->stored_width = f[3] << 8 | f[4];
            o->channels = f[5] == 1 ? 1 : 3; /* CMYK and YCCK are read as RGB */
            return GPUIMG_OK;
        }
        if (m == 0xDA || m == 0xD9 || len < 2)
            break;
        pos += 2 + len;
    }
    return unreadable(ctx, name, "no JPEG frame header");
}

/* The loader's own header walk (io_pnm.c): its grammar, its limits and
 * its raster check, so that info and load agree on every PNM. */
static gpuimg_status pnm_header(gpuimg_ctx *ctx, const char *name, const uint8_t *d, size_t n,
                                gpuimg_file_info *o)
{
    gpuimg__pnm_head h;
    gpuimg_status st = gpuimg__pnm_header(ctx, d, n, name, 1, &h);
    if (st != GPUIMG_OK)
        return st;
    o->stored_width = (int)h.width; /* within GPUIMG_MAX_SIDE: checked */
    o->stored_height = (int)h.height;
    o->channels = h.channels;
    o->depth = h.maxval > 255 ? 16 : 8;
    return GPUIMG_OK;
}

/* The loader's test of a WebP (io_webp.c): damaged and animated ones fail. */
static gpuimg_status webp_header(gpuimg_ctx *ctx, const char *name, const uint8_t *d, size_t n,
                                 gpuimg_file_info *o)
{
    WebPBitstreamFeatures wf;
    gpuimg_status st = gpuimg__webp_features(ctx, d, n, name, &wf);
    if (st != GPUIMG_OK)
        return st;
    o->stored_width = wf.width, o->stored_height = wf.height;
    o->channels = wf.has_alpha ? 4 : 3, o->depth = 8;
    return GPUIMG_OK;
}

static gpuimg_status psd_header(gpuimg_ctx *ctx, const char *name, const uint8_t *d, size_t n,
                                gpuimg_file_info *o)
{
    if (n < 26)
        return unreadable(ctx, name, "truncated PSD");
    int ch = d[12] << 8 | d[13];
    o->stored_height = (int)(gpuimg__be32(d + 14) & 0xffffff);
    o->stored_width = (int)(gpuimg__be32(d + 18) & 0xffffff);
    o->depth = d[22] << 8 | d[23];
    o->channels = ch >= 4 ? 4 : 3;
    return GPUIMG_OK;
}

int gpuimg__probe_header(gpuimg_ctx *ctx, const uint8_t *data, size_t size, gpuimg_file_info *o)
{
    /* the file's own load, later, says what is wrong with it, once */
    char error[sizeof ctx->error];
    memcpy(error, ctx->error, sizeof error);
    void (*warn)(void *, const char *) = ctx->cfg.warn;
    ctx->cfg.warn = NULL;
    int ok = gpuimg_probe_memory(ctx, data, size, "", o) == GPUIMG_OK;
    ctx->cfg.warn = warn;
    memcpy(ctx->error, error, sizeof error);
    return ok;
}

gpuimg_status gpuimg_probe_memory(gpuimg_ctx *ctx, const void *data, size_t size, const char *name,
                                  gpuimg_file_info *o)
{
    const uint8_t *d = data;
    memset(o, 0, sizeof *o);
    o->orientation = 1;
    gpuimg__codec codec = size ? gpuimg__sniff(d, size) : GPUIMG__CODEC_NONE;
    gpuimg_status st = GPUIMG_OK;
    switch (codec) {
    case GPUIMG__CODEC_PNG: o->format = "png", st = png_header(ctx, name, d, size, o); break;
    case GPUIMG__CODEC_JPEG: o->format = "jpeg", st = jpeg_header(ctx, name, d, size, o); break;
    case GPUIMG__CODEC_PNM: o->format = "pnm", st = pnm_header(ctx, name, d, size, o); break;
    case GPUIMG__CODEC_PSD: o->format = "psd", st = psd_header(ctx, name, d, size, o); break;
    case GPUIMG__CODEC_TIFF:
        o->format = "tiff";
        if ((st = gpuimg__probe_tiff(ctx, name, d, size, o)) != GPUIMG_OK)
            return st;
        break;
    case GPUIMG__CODEC_WEBP: o->format = "webp", st = webp_header(ctx, name, d, size, o); break;
    case GPUIMG__CODEC_BMP: o->format = "bmp", st = gpuimg__probe_bmp(ctx, name, d, size, o); break;
    case GPUIMG__CODEC_GIF: o->format = "gif", st = gpuimg__probe_gif(ctx, name, d, size, o); break;
    case GPUIMG__CODEC_TGA: {
        o->format = "tga";
        int w, h, c;
        if (size > 0x7fffffff || !gpuimg__stbi_info(d, (int)size, &w, &h, &c))
            return unreadable(ctx, name, "damaged header");
        o->stored_width = w, o->stored_height = h, o->channels = c, o->depth = 8;
        break;
    }
    default: return unreadable(ctx, name, size ? "unknown format" : "empty file");
    }
    if (st != GPUIMG_OK)
        return st;
    if (o->stored_width <= 0 || o->stored_height <= 0)
        return unreadable(ctx, name, "a side of zero or over 65535 pixels in the header");
    gpuimg_metadata *m = NULL;
    if ((st = gpuimg__metadata_parse(ctx, name, codec, d, size, &m)) != GPUIMG_OK)
        return st;
    if (m) {
        o->orientation = m->orientation;
        o->icc_bytes = m->icc_len;
        o->exif_bytes = m->exif_len;
        o->xmp_bytes = m->xmp_len;
        if (m->icc)
            gpuimg__icc_description(m->icc, m->icc_len, o->profile, sizeof o->profile);
        gpuimg_metadata_free(m);
    }
    int turned = o->orientation >= 5 && !ctx->cfg.no_auto_orient;
    o->width = turned ? o->stored_height : o->stored_width;
    o->height = turned ? o->stored_width : o->stored_height;
    return GPUIMG_OK;
}

/* A stream (stdin, a FIFO, a device): its bytes read whole, within the
 * loader's bounds (gpuimg__read_file), since nothing can seek in it. */
static gpuimg_status probe_stream(gpuimg_ctx *ctx, const char *path, gpuimg_file_info *out)
{
    uint8_t *data;
    size_t size;
    gpuimg_status st = gpuimg__read_file(ctx, path, &data, &size);
    if (st == GPUIMG_OK)
        st = gpuimg_probe_memory(ctx, data, size, strcmp(path, "-") == 0 ? "<stdin>" : path, out);
    free(data);
    return st;
}

gpuimg_status gpuimg_probe(gpuimg_ctx *ctx, const char *path, gpuimg_file_info *out)
{
    memset(out, 0, sizeof *out);
    struct stat sb;
    /* what it is before it is opened: opening a FIFO takes its writer's data */
    if (strcmp(path, "-") == 0 ||
        (stat(path, &sb) == 0 && !S_ISREG(sb.st_mode) && !S_ISDIR(sb.st_mode)))
        return probe_stream(ctx, path, out);
    if (stat(path, &sb) == 0 && S_ISDIR(sb.st_mode))
        return gpuimg__fail(ctx, GPUIMG_ERR_IO, "%s: is a directory", path);
    /* A regular file is read whole, within the loader's bounds, as the
     * loader reads it, so every walker finds what it points at (a TIFF's
     * directory after its pixels, a WebP's EXIF chunk after its
     * bitstream). Not mapped: a file cut short while it is probed (rewritten
     * in place) would raise SIGBUS and end an `info` of a whole folder. */
    uint8_t *data;
    size_t size;
    gpuimg_status st = gpuimg__read_folder_file(ctx, path, 0, 0, &data, &size);
    if (st == GPUIMG_OK)
        st = gpuimg_probe_memory(ctx, data, size, path, out);
    free(data);
    return st;
}
