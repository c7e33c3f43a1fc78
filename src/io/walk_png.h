/* SPDX-License-Identifier: MIT */
/* The one walk of a PNG's chunks over untrusted bytes: the readers, the
 * metadata layer, `info` and the loader's stream bound all take their
 * chunks from it. */
#ifndef GPUIMG_WALK_PNG_H
#define GPUIMG_WALK_PNG_H

#include <stddef.h>
#include <stdint.h>

#include "io/bytes.h"

typedef struct gpuimg__png_chunk {
    const uint8_t *type, *body; /* body: len bytes, then the CRC's 4 */
    uint32_t len;
    /* set when the walk stopped at a chunk whose declared length runs past
     * the file (its header there, its body cut): a truncated file */
    int cut;
} gpuimg__png_chunk;

/* The chunk at *pos (start at 8, after the signature), whole with its
 * CRC: 1 and *pos moved past it; 0 when fewer than its 12 bytes are left,
 * out->cut telling whether its declared body runs past the file. The CRC
 * is not checked here. */
int gpuimg__png_next(const uint8_t *data, size_t size, size_t *pos, gpuimg__png_chunk *out);

#endif
