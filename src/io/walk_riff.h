/* SPDX-License-Identifier: MIT */
/* The one walk of a RIFF container's chunks (WebP's) over untrusted
 * bytes. */
#ifndef GPUIMG_WALK_RIFF_H
#define GPUIMG_WALK_RIFF_H

#include <stddef.h>
#include <stdint.h>

/* One chunk: its FourCC and its body as its header declares it (the
 * padding byte of an odd size not counted). */
typedef struct gpuimg__riff_chunk {
    const uint8_t *fourcc, *body;
    size_t len;
} gpuimg__riff_chunk;

/* The chunk at *pos (start at 12, after "RIFF" size FORM) and *pos moved
 * past it by its declared size and padding, whatever its body holds: 1, or
 * 0 at the end of the RIFF (the smaller of its size field and the file),
 * at a chunk that runs past it, or in a file that is no RIFF. */
int gpuimg__riff_next(const uint8_t *data, size_t size, size_t *pos, gpuimg__riff_chunk *out);

#endif
