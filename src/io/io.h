/* SPDX-License-Identifier: MIT */
/* Codecs behind gpuimg_load/gpuimg_save. Each decoder turns its library's
 * conventions (libpng's longjmp, stb's NULL + reason) into a gpuimg status
 * and a detail naming the file. What a format is (its signature, header,
 * decoder, encoder, metadata, extensions) is its row (formats.h); this is
 * the loader's and the formats' shared pieces. */
#ifndef GPUIMG_IO_H
#define GPUIMG_IO_H

#include <limits.h>
#include <stdio.h>

#include "core/internal.h"
#include "io/walk_png.h"

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
/* The bytes the image whose file is data decodes to, from its header
 * (gpuimg_probe_memory): width x height x channels x bytes per value at
 * the depth ctx loads it; 0 when the header cannot be read (the decoder
 * then says why). A folder's run admits images by it (core/budget.h). */
uint64_t gpuimg__decoded_bytes(gpuimg_ctx *ctx, const uint8_t *data, size_t size);
/* gpuimg__read_file of such a file. */
gpuimg_status gpuimg__read_folder_file(gpuimg_ctx *ctx, const char *path, size_t root_len,
                                       int strict, uint8_t **out, size_t *size);
gpuimg_status gpuimg__load_owned(gpuimg_ctx *ctx, uint8_t *data, size_t size, const char *name,
                                 gpuimg_image *out);

gpuimg_status gpuimg__decode_tiff(gpuimg_ctx *ctx, const uint8_t *data, size_t size,
                                  const char *name, gpuimg_image *out);
gpuimg_status gpuimg__encode_tiff(gpuimg_ctx *ctx, FILE *f, const char *name, gpuimg_format format,
                                  const gpuimg_image *img);
/* A TIFF file's EXIF as a standalone EXIF block (io/tiff/exif.c), malloc'ed:
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
gpuimg_status gpuimg__encode_webp(gpuimg_ctx *ctx, FILE *f, const char *name, gpuimg_format format,
                                  const gpuimg_image *img);
/* The common PNG without libpng (io/png/inflate.c): 1 and the image, or 0,
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
/* A JPEG file already encoded (the GPU's, without metadata) written to path
 * ("-": stdout) as gpuimg_save writes one: atomically, with the metadata
 * of hdr (an image of the output's shape; its pixels are not read). */
gpuimg_status gpuimg__save_jpeg_bytes(gpuimg_ctx *ctx, const char *path, const uint8_t *jpeg,
                                      size_t len, const gpuimg_image *hdr, int checked);
/* gpuimg_save; checked: path already passed gpuimg_check_output for this
 * write (gpuimg_process_file checks before any work), not checked again. */
gpuimg_status gpuimg__save(gpuimg_ctx *ctx, const char *path, gpuimg_format format,
                           const gpuimg_image *img, int checked);
gpuimg_status gpuimg__decode_jpeg(gpuimg_ctx *ctx, const uint8_t *data, size_t size,
                                  const char *name, gpuimg_image *out);
/* The same in exactly `bands` bands read one after another on this thread:
 * the fuzz harness holds bands to one pass with it. */
gpuimg_status gpuimg__decode_jpeg_bands(gpuimg_ctx *ctx, const uint8_t *data, size_t size,
                                        const char *name, gpuimg_image *out, int bands);
gpuimg_status gpuimg__encode_jpeg(gpuimg_ctx *ctx, FILE *f, const char *name,
                                  const gpuimg_image *img);
gpuimg_status gpuimg__encode_png(gpuimg_ctx *ctx, FILE *f, const char *name,
                                 const gpuimg_image *img);
/* BMP and TGA through stb_image_write (tga.c), which indexes with int:
 * images of at most GPUIMG__STB_WRITE_MAX bytes. */
gpuimg_status gpuimg__encode_stb(gpuimg_ctx *ctx, FILE *f, const char *name, gpuimg_format format,
                                 const gpuimg_image *img);
#define GPUIMG__STB_WRITE_MAX ((uint64_t)INT_MAX)

#endif
