/* SPDX-License-Identifier: MIT */
/* The format table: a format is one row, defined in the format's own file
 * (png/png.c, jpeg/jpeg.c, tiff/tiff.c, webp.c, pnm.c, bmp.c, gif.c,
 * psd.c, tga.c, jxl.c, heif.c) and listed once in formats.c. How a file is recognised,
 * its header read for `info` and for the library's sizing, its pixels and
 * metadata read and written, its extensions, --format, batch's choice of
 * files and of output names, and every message that lists formats come
 * from the rows, as stb's test/info/load triple and libvips' foreign
 * classes keep a format's knowledge in one place. A row is its own
 * identity: a pointer to it is what a sniffed file is. */
#ifndef GPUIMG_IO_FORMATS_H
#define GPUIMG_IO_FORMATS_H

#include <stdio.h>

#include "core/internal.h"

struct gpuimg__meta_notes;

/* An extension (no dot, lower case) and what a file so named is written
 * as: GPUIMG_FORMAT_NONE when the format is only read (batch writes such a
 * file as the row's written_as). */
typedef struct gpuimg__extension {
    const char *name;
    gpuimg_format writes;
} gpuimg__extension;

typedef struct gpuimg__format {
    const char *name; /* as `info` and the messages say it */
    /* the first of each gpuimg_format is the one written */
    gpuimg__extension extensions[3];
    gpuimg_format written_as; /* what batch writes a read-only extension's files as */
    int holds_16;             /* its writer keeps 16-bit values */
    /* 1: no signature of its own (TGA), tried after every row that has one */
    int guessed;
    /* 1 when data (its first bytes; 18 do for any row) is this format */
    int (*sniff)(const uint8_t *data, size_t size);
    /* The header alone (gpuimg_probe_memory fills the rest): the stored
     * size, channels and depth the decoder would give, or an error naming
     * the file. */
    gpuimg_status (*probe)(gpuimg_ctx *ctx, const char *name, const uint8_t *data, size_t size,
                           gpuimg_file_info *out);
    /* The size of the one image a stream whose first bytes are head holds,
     * when that image bounds the stream's length: 1, or 0 (no header in
     * head, or a format whose streams hold more: pages, frames, layers,
     * plain PNM's whitespace). NULL: never. No error is left set. */
    int (*stream_size)(gpuimg_ctx *ctx, const uint8_t *head, size_t len, uint64_t *width,
                       uint64_t *height);
    gpuimg_status (*decode)(gpuimg_ctx *ctx, const uint8_t *data, size_t size, const char *name,
                            gpuimg_image *out);
    /* NULL: read only. format: the extension's gpuimg_format (PPM or PGM). */
    gpuimg_status (*encode)(gpuimg_ctx *ctx, FILE *f, const char *name, gpuimg_format format,
                            const gpuimg_image *img);
    /* the largest packed image its writer takes, in bytes; 0: no limit */
    uint64_t encode_max_bytes;
    /* Its ICC, EXIF and XMP blocks into m (metadata.c's parse calls it
     * before the decoder): 0 out of memory; what does not parse dropped
     * and noted. NULL: none, or read by its decoder (TIFF, whose tags
     * libtiff reads). */
    int (*meta_read)(struct gpuimg__meta_notes *notes, const uint8_t *data, size_t size,
                     gpuimg_metadata *m);
    /* 1: its encoder writes the image's ICC, EXIF and XMP
     * (gpuimg__metadata_for_output) */
    int meta_write;
} gpuimg__format;

extern const gpuimg__format gpuimg__format_png, gpuimg__format_jpeg, gpuimg__format_bmp,
    gpuimg__format_tga, gpuimg__format_pnm, gpuimg__format_webp, gpuimg__format_tiff,
    gpuimg__format_gif, gpuimg__format_psd, gpuimg__format_jxl, gpuimg__format_heic,
    gpuimg__format_avif;

/* Every row, NULL-terminated, in the order the format lists give them. */
extern const gpuimg__format *const gpuimg__formats[];

/* The row of a file's first bytes, or NULL. */
const gpuimg__format *gpuimg__sniff(const uint8_t *data, size_t size);
/* The row of an extension (no dot, any case) and the extension's entry,
 * or NULL. */
const gpuimg__format *gpuimg__format_of_extension(const char *ext, const gpuimg__extension **entry);
/* The row that writes format, and the extension written, or NULL. */
const gpuimg__format *gpuimg__format_writing(gpuimg_format format, const char **ext);

/* A stream_size for the formats whose header, read by their probe, bounds
 * the stream (probe.c). */
int gpuimg__stream_size_of_header(gpuimg_ctx *ctx, const uint8_t *head, size_t len, uint64_t *width,
                                  uint64_t *height);

#endif
