/* SPDX-License-Identifier: MIT */
/* gpuimg_probe: what a file holds, from its header and metadata only, as
 * ImageMagick's identify and libvips' vipsheader tell it. Each format's
 * header is read by its row (formats.h), where its decoder reads it; every length is checked
 * against the bytes there are (these are untrusted files, fuzzed as
 * fuzz_info). */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "io/formats.h"
#include "io/io.h"
#include "io/metadata.h"

static gpuimg_status unreadable(gpuimg_ctx *ctx, const char *name, const char *why)
{
    return gpuimg__fail(ctx, GPUIMG_ERR_DECODE, "%s: not a supported image (%s)", name, why);
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

int gpuimg__stream_size_of_header(gpuimg_ctx *ctx, const uint8_t *head, size_t len, uint64_t *width,
                                  uint64_t *height)
{
    gpuimg_file_info info;
    if (!gpuimg__probe_header(ctx, head, len, &info))
        return 0;
    *width = (uint64_t)(info.stored_width > 0 ? info.stored_width : 0);
    *height = (uint64_t)(info.stored_height > 0 ? info.stored_height : 0);
    return 1;
}

uint64_t gpuimg__decoded_bytes(gpuimg_ctx *ctx, const uint8_t *data, size_t size)
{
    gpuimg_file_info info;
    if (!gpuimg__probe_header(ctx, data, size, &info))
        return 0; /* the decoder says why */
    int depth = ctx->cfg.depth ? ctx->cfg.depth : info.depth > 8 ? 16 : 8;
    return (uint64_t)info.stored_width * (uint64_t)info.stored_height *
           (uint64_t)(info.channels > 0 ? info.channels : 4) * (uint64_t)(depth / 8);
}

gpuimg_status gpuimg_probe_memory(gpuimg_ctx *ctx, const void *data, size_t size, const char *name,
                                  gpuimg_file_info *o)
{
    const uint8_t *d = data;
    memset(o, 0, sizeof *o);
    o->orientation = 1;
    const gpuimg__format *format = size ? gpuimg__sniff(d, size) : NULL;
    if (!format)
        return unreadable(ctx, name, size ? "unknown format" : "empty file");
    o->format = format->name;
    gpuimg_status st = format->probe(ctx, name, d, size, o);
    if (st != GPUIMG_OK)
        return st;
    if (o->stored_width <= 0 || o->stored_height <= 0)
        return unreadable(ctx, name, "a side of zero or over 65535 pixels in the header");
    gpuimg_metadata *m = NULL;
    if ((st = gpuimg__metadata_parse(ctx, name, format, d, size, &m)) != GPUIMG_OK)
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
    int turned = gpuimg__turned(ctx, o->orientation);
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
