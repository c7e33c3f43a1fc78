/* SPDX-License-Identifier: MIT */
/* Codecs behind gpuimg_load/gpuimg_save. Each decoder turns its library's
 * conventions (libpng's longjmp, stb's NULL + reason) into a gpuimg status
 * and a detail naming the file. */
#ifndef GPUIMG_IO_H
#define GPUIMG_IO_H

#include <stdio.h>

#include "core/internal.h"

/* A PNG's big-endian 32-bit field. */
static inline uint32_t gpuimg__be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* The decoders, one per format SPEC §2 lists, chosen by a file's own
 * signature (never by its name): nothing else reaches a decoder. */
typedef enum gpuimg__codec {
    GPUIMG__CODEC_NONE,
    GPUIMG__CODEC_PNG,
    GPUIMG__CODEC_JPEG,
    GPUIMG__CODEC_PNM,
    GPUIMG__CODEC_BMP,
    GPUIMG__CODEC_GIF,
    GPUIMG__CODEC_PSD,
    GPUIMG__CODEC_TGA,
    GPUIMG__CODEC_WEBP,
    GPUIMG__CODEC_TIFF,
} gpuimg__codec;

/* The codec for a file's first bytes (at least 18 of them for TGA, which
 * has no signature), or NONE. */
gpuimg__codec gpuimg__sniff(const uint8_t *data, size_t size);
/* A file's (or "-": stdin's) bytes, malloc'ed; and gpuimg_load of bytes so
 * read, which it frees (possibly early, as the decoder is done with them). */
gpuimg_status gpuimg__read_file(gpuimg_ctx *ctx, const char *path, uint8_t **out, size_t *size);
/* A folder's file, path being ROOT/REL with ROOT its first root_len bytes
 * (folder_file.c): opened only as a regular file, and with strict (an
 * untrusted folder) reached from ROOT without a symbolic link; *fd and
 * what fstat says of it, or an I/O error naming path. */
struct stat;
gpuimg_status gpuimg__open_folder_file(gpuimg_ctx *ctx, const char *path, size_t root_len,
                                       int strict, int *fd, struct stat *sb);
/* gpuimg_probe_memory for the library's own sizing of a file it is about
 * to read or decode: 1 and *info, or 0; no warning said, no error left. */
int gpuimg__probe_header(gpuimg_ctx *ctx, const uint8_t *data, size_t size, gpuimg_file_info *info);
/* gpuimg__read_file of such a file. */
gpuimg_status gpuimg__read_folder_file(gpuimg_ctx *ctx, const char *path, size_t root_len,
                                       int strict, uint8_t **out, size_t *size);
gpuimg_status gpuimg__load_owned(gpuimg_ctx *ctx, uint8_t *data, size_t size, const char *name,
                                 gpuimg_image *out);

int gpuimg__is_png(const uint8_t *data, size_t size);
/* TIFF (io_tiff.c): "II*\0" or "MM\0*"; its probe reads the tags alone. */
int gpuimg__is_tiff(const uint8_t *data, size_t size);
gpuimg_status gpuimg__decode_tiff(gpuimg_ctx *ctx, const uint8_t *data, size_t size,
                                  const char *name, gpuimg_image *out);
gpuimg_status gpuimg__encode_tiff(gpuimg_ctx *ctx, FILE *f, const char *name, gpuimg_format format,
                                  const gpuimg_image *img);
gpuimg_status gpuimg__probe_tiff(gpuimg_ctx *ctx, const char *name, const uint8_t *data,
                                 size_t size, gpuimg_file_info *out);
/* A TIFF file's EXIF as a standalone EXIF block (tiff_exif.c), malloc'ed:
 * IFD0's Make, Model, Orientation, Software, DateTime, Artist and
 * Copyright, and the EXIF IFD at offset ifd (0: none). 1 and the block, 0
 * when there is nothing to carry, -1 out of memory. */
int gpuimg__tiff_exif(const uint8_t *file, size_t size, uint64_t ifd, uint8_t **out, size_t *len);
/* The other way, into tif (a struct tiff *): an EXIF block's IFD0 text
 * tags set as the image directory's own, before it is written (1 when the
 * block has an EXIF IFD too); then its EXIF IFD written, after the image
 * directory, as the EXIF directory: 1 and its offset, or 0 when nothing
 * could be written. */
struct tiff;
int gpuimg__tiff_write_ifd0(struct tiff *tif, const uint8_t *exif, size_t size);
int gpuimg__tiff_write_exif(struct tiff *tif, const uint8_t *exif, size_t size, uint64_t *offset);
/* WebP (io_webp.c): "RIFF" .... "WEBP". */
int gpuimg__is_webp(const uint8_t *data, size_t size);
/* One chunk of a WebP file's RIFF container: its FourCC and its body as
 * its header declares it (the padding byte of an odd size not counted). */
typedef struct gpuimg__riff_chunk {
    const uint8_t *fourcc, *body;
    size_t len;
} gpuimg__riff_chunk;
/* The chunk at *pos (start at 12, after "RIFF" size "WEBP") and *pos moved
 * past it by its declared size and padding, whatever its body holds: 1, or
 * 0 at the end of the RIFF (the smaller of its size field and the file) or
 * at a chunk that runs past it. The one walk of these chunks. */
int gpuimg__riff_next(const uint8_t *data, size_t size, size_t *pos, gpuimg__riff_chunk *out);
/* The features of a still WebP as the loader reads them: a damaged or
 * animated one fails, naming the file. */
struct WebPBitstreamFeatures;
gpuimg_status gpuimg__webp_features(gpuimg_ctx *ctx, const uint8_t *data, size_t size,
                                    const char *name, struct WebPBitstreamFeatures *out);
gpuimg_status gpuimg__decode_webp(gpuimg_ctx *ctx, const uint8_t *data, size_t size,
                                  const char *name, gpuimg_image *out);
gpuimg_status gpuimg__encode_webp(gpuimg_ctx *ctx, FILE *f, const char *name, gpuimg_format format,
                                  const gpuimg_image *img);
/* stb_image's test for what it takes as a TGA (no other format passes it). */
int gpuimg__tga_plausible(const uint8_t *data, size_t size);
/* The common PNG without libpng (io_png_inflate.c): 1 and the image, or 0,
 * with nothing set, for anything it does not take or finds wrong (libpng
 * then reads data), or -1 when it ran out of memory after it had freed the
 * file's bytes (gpuimg__input_release): nothing set, nothing to fall back
 * on. */
int gpuimg__decode_png_fast(gpuimg_ctx *ctx, const uint8_t *data, size_t size, gpuimg_image *out);
gpuimg_status gpuimg__decode_png(gpuimg_ctx *ctx, const uint8_t *data, size_t size,
                                 const char *name, gpuimg_image *out);
/* libpng alone: every PNG the fast reader leaves, and the fuzz harness's
 * reference for the ones it takes. */
gpuimg_status gpuimg__decode_png_libpng(gpuimg_ctx *ctx, const uint8_t *data, size_t size,
                                        const char *name, gpuimg_image *out);
int gpuimg__is_jpeg(const uint8_t *data, size_t size);
/* A JPEG file already encoded (the GPU's, without metadata) written to path
 * ("-": stdout) as gpuimg_save writes one: atomically, with the metadata
 * of hdr (an image of the output's shape; its pixels are not read). */
gpuimg_status gpuimg__save_jpeg_bytes(gpuimg_ctx *ctx, const char *path, const uint8_t *jpeg,
                                      size_t len, const gpuimg_image *hdr);
gpuimg_status gpuimg__decode_jpeg(gpuimg_ctx *ctx, const uint8_t *data, size_t size,
                                  const char *name, gpuimg_image *out);
/* The same in exactly `bands` bands read one after another on this thread:
 * the fuzz harness holds bands to one pass with it. */
gpuimg_status gpuimg__decode_jpeg_bands(gpuimg_ctx *ctx, const uint8_t *data, size_t size,
                                        const char *name, gpuimg_image *out, int bands);
/* Binary and plain PPM and PGM (io_pnm.c). */
typedef struct gpuimg__pnm_head {
    uint32_t width, height, maxval;
    int channels, plain; /* plain: P2 or P3, the samples in decimal */
    size_t raster;       /* where the samples start */
} gpuimg__pnm_head;
/* A PNM's header as the loader reads it (and `info` with it): the grammar,
 * gpuimg__check_size, and (whole) a raster that fits the file; fails
 * naming the file. Not whole: the header alone, of a file's first bytes. */
gpuimg_status gpuimg__pnm_header(gpuimg_ctx *ctx, const uint8_t *data, size_t size,
                                 const char *name, int whole, gpuimg__pnm_head *out);
gpuimg_status gpuimg__decode_pnm(gpuimg_ctx *ctx, const uint8_t *data, size_t size,
                                 const char *name, gpuimg_image *out);
/* PSD's composite image (io_psd.c). */
gpuimg_status gpuimg__decode_psd(gpuimg_ctx *ctx, const uint8_t *data, size_t size,
                                 const char *name, gpuimg_image *out);
/* BMP (io_bmp.c): every BMP Suite calls good, bounds-checked; its probe
 * gives the channels the decoder gives. */
gpuimg_status gpuimg__decode_bmp(gpuimg_ctx *ctx, const uint8_t *data, size_t size,
                                 const char *name, gpuimg_image *out);
gpuimg_status gpuimg__probe_bmp(gpuimg_ctx *ctx, const char *name, const uint8_t *data, size_t size,
                                gpuimg_file_info *out);
/* GIF's first frame (io_gif.c), RGBA; data ending early is damaged. */
gpuimg_status gpuimg__decode_gif(gpuimg_ctx *ctx, const uint8_t *data, size_t size,
                                 const char *name, gpuimg_image *out);
gpuimg_status gpuimg__probe_gif(gpuimg_ctx *ctx, const char *name, const uint8_t *data, size_t size,
                                gpuimg_file_info *out);
/* TGA through stb_image, the header checked first (io_stb.c). */
gpuimg_status gpuimg__decode_tga(gpuimg_ctx *ctx, const uint8_t *data, size_t size,
                                 const char *name, gpuimg_image *out);

gpuimg_status gpuimg__encode_png(gpuimg_ctx *ctx, FILE *f, const char *name,
                                 const gpuimg_image *img);
gpuimg_status gpuimg__encode_jpeg(gpuimg_ctx *ctx, FILE *f, const char *name,
                                  const gpuimg_image *img);
gpuimg_status gpuimg__encode_stb(gpuimg_ctx *ctx, FILE *f, const char *name, gpuimg_format format,
                                 const gpuimg_image *img);
gpuimg_status gpuimg__encode_pnm(gpuimg_ctx *ctx, FILE *f, const char *name, gpuimg_format format,
                                 const gpuimg_image *img);

#endif
