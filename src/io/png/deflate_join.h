/* SPDX-License-Identifier: MIT */
/* Joining whole raw deflate streams (RFC 1951) into one, for the PNG
 * writer: libdeflate compresses whole buffers only, and each of its outputs
 * ends the stream (its last block has BFINAL set). */
#ifndef GPUIMG_DEFLATE_JOIN_H
#define GPUIMG_DEFLATE_JOIN_H

#include <stddef.h>
#include <stdint.h>

typedef struct gpuimg__deflate_shape {
    uint64_t last_block; /* bit offset of the final block's header, its BFINAL bit */
    uint64_t end;        /* bit offset just past the final block (its end-of-block code) */
    uint64_t out_len;    /* the bytes it inflates to */
} gpuimg__deflate_shape;

/* Walks the blocks of the raw deflate stream at buf[0..len) without
 * producing its output. 0 and *shape when it is a whole valid stream ending
 * within len (bytes after its end are not looked at); -1 when it is not: a
 * bad block type, header or code, a distance reaching before the start, or
 * data running past len. Reads nothing outside buf. */
int gpuimg__deflate_walk(const uint8_t *buf, size_t len, gpuimg__deflate_shape *shape);

/* Bytes unfinish may add to a stream (an empty stored block). */
#define GPUIMG__DEFLATE_UNFINISH_EXTRA 5

/* Makes the whole raw deflate stream buf[0..len), which must inflate to
 * want bytes and end in its last byte, into the head of a longer stream: its
 * final block no longer ends the stream, and it ends on a byte boundary, so
 * that another stream's bytes may follow it. In place; cap is buf's size.
 * The new length (at most len + GPUIMG__DEFLATE_UNFINISH_EXTRA), or 0 when
 * the stream is not as said or cap is too small. */
size_t gpuimg__deflate_unfinish(uint8_t *buf, size_t len, size_t cap, uint64_t want);

#endif
