/* SPDX-License-Identifier: MIT */
/* The one walk of a TIFF structure's IFDs over untrusted bytes: a TIFF
 * file's (tiff/exif.c, which carries its EXIF out) and an EXIF block's
 * (its Orientation in metadata.c, its tags into a TIFF in tiff/exif.c). */
#ifndef GPUIMG_WALK_TIFF_H
#define GPUIMG_WALK_TIFF_H

#include <stddef.h>
#include <stdint.h>

#include "io/bytes.h"

/* The header: "II*\0" (little-endian) or "MM\0*", then IFD0's offset. 1,
 * *le and *ifd0; 0 when data is not one. */
int gpuimg__tiff_header(const uint8_t *data, size_t size, int *le, uint64_t *ifd0);

/* An IFD: its entries (12 bytes each), as many as it declares and as
 * many of those as lie wholly inside the bytes. */
typedef struct gpuimg__tiff_ifd {
    const uint8_t *entries;
    uint32_t count, inside;
} gpuimg__tiff_ifd;

/* The IFD at offset: 1 and *out, or 0 when its count does not lie inside
 * the bytes (past the 8 of the header). */
int gpuimg__tiff_ifd_at(const uint8_t *data, size_t size, uint64_t offset, int le,
                        gpuimg__tiff_ifd *out);

#endif
