/* SPDX-License-Identifier: MIT */
/* Metadata read from files and written into outputs (metadata.c). */
#ifndef GPUIMG_METADATA_H
#define GPUIMG_METADATA_H

#include "core/backend.h"
#include "core/metadata.h"
#include "gpuimg.h"
#include "io/formats.h"

/* EXIF's IFD0 Orientation: 1-8 (1 when absent), -1 when the block is
 * malformed or the value out of range. */
int gpuimg__exif_orientation(const uint8_t *exif, size_t n);
/* Rewrites the Orientation value in place (nothing when there is none). */
void gpuimg__exif_set_orientation(uint8_t *exif, size_t n, int orientation);

/* The profile's 'desc' text into out ("" when none). */
void gpuimg__icc_description(const uint8_t *icc, size_t n, char *out, size_t cap);
/* Why blocks of a file were dropped (static texts, each once): its
 * warnings, held until its pixels have decoded, so that a file that fails
 * says only its error (SPEC §1: one line). */
#define GPUIMG__META_NOTES 4
typedef struct gpuimg__meta_notes {
    int count;
    const char *what[GPUIMG__META_NOTES];
} gpuimg__meta_notes;
/* For a row's meta_read: notes what was dropped, each reason once; a
 * block's bytes copied (NULL: out of memory, or n 0); zlib data inflated,
 * up to 64 MiB (NULL when it does not inflate). */
void gpuimg__meta_dropped(gpuimg__meta_notes *notes, const char *what);
uint8_t *gpuimg__meta_copy(const uint8_t *p, size_t n);
uint8_t *gpuimg__meta_inflate(const uint8_t *p, size_t n, size_t *out_len);
/* The EXIF block's prefix in a JPEG APP1 segment (and in some WebPs'
 * EXIF chunks). */
#define GPUIMG__EXIF_ID "Exif\0"
#define GPUIMG__EXIF_ID_LEN 6

/* The blocks of a file of format (its row's meta_read), or NULL when it
 * has none; what does not parse is dropped, and why noted in *notes. */
gpuimg_status gpuimg__metadata_parse_quiet(gpuimg_ctx *ctx, const char *name,
                                           const gpuimg__format *format, const uint8_t *data,
                                           size_t size, gpuimg_metadata **out,
                                           gpuimg__meta_notes *notes);
/* The warnings of the notes ("NAME: WHAT dropped"). */
void gpuimg__metadata_tell(gpuimg_ctx *ctx, const char *name, const gpuimg__meta_notes *notes);
/* The same, its warnings told at once (for a caller that decodes no
 * pixels, or tells nothing else after). */
gpuimg_status gpuimg__metadata_parse(gpuimg_ctx *ctx, const char *name,
                                     const gpuimg__format *format, const uint8_t *data, size_t size,
                                     gpuimg_metadata **out);
/* EXIF orientation o (1-8) as pixel moves: the one table of the host's
 * orient() and the device's (run/jpeg_gpu.c). The host takes each output
 * pixel from the source at its coordinates, swapped (swap), then
 * mirrored (flip_x, flip_y); the device applies the moves in order (the
 * same pixels, in as few passes as its move kernels allow). */
typedef struct gpuimg__orientation {
    uint8_t swap, flip_x, flip_y;
    uint8_t moves_n;
    gpuimg_move moves[2];
} gpuimg__orientation;
extern const gpuimg__orientation gpuimg__orientations[9];

/* Gives img the metadata m (its own from now on) and turns the pixels
 * upright as m->orientation says unless --no-auto-orient (the loader, after
 * the decoder, with what its row's meta_read found; the TIFF reader, whose
 * tags libtiff reads, itself). */
gpuimg_status gpuimg__metadata_attach(gpuimg_ctx *ctx, const char *name, gpuimg_metadata *m,
                                      gpuimg_image *img);

/* What an encoder writes for img: pointers into its metadata (or into
 * *exif_copy, the EXIF with Orientation 1 when the pixels were oriented;
 * free it after writing). Nothing with --strip; no RGB profile into a gray
 * image. png_colour (gpuimg_metadata's) is for the PNG writer only: other
 * formats have no place for those chunks. */
typedef struct gpuimg__meta_out {
    const uint8_t *icc, *exif, *xmp, *png_colour;
    size_t icc_len, exif_len, xmp_len, png_colour_len;
    uint8_t *exif_copy;
} gpuimg__meta_out;
void gpuimg__metadata_for_output(const gpuimg_ctx *ctx, const gpuimg_image *img,
                                 gpuimg__meta_out *out);

#endif
