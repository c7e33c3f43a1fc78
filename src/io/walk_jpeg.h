/* SPDX-License-Identifier: MIT */
/* The one walk of a JPEG's marker segments over untrusted bytes: the
 * header probe, the metadata layer and the device's structure check
 * (jpeg/scan.c, for nvJPEG) take their segments from it. */
#ifndef GPUIMG_WALK_JPEG_H
#define GPUIMG_WALK_JPEG_H

#include <stddef.h>
#include <stdint.h>

typedef struct gpuimg__jpeg_segment {
    uint8_t marker;
    const uint8_t *body; /* after the length field: len bytes */
    size_t len;          /* 0 for a marker without one (SOI, EOI, RSTn, TEM) */
} gpuimg__jpeg_segment;

/* The marker at *pos (start at 2, after SOI), fill bytes (0xFF) before it
 * skipped, and its segment when it has one: 1 and *pos moved past it (for
 * SOS: to its entropy-coded data, which the caller skips); 0 when *pos is
 * not at a marker or the segment's length is under 2 or runs past the
 * file. */
int gpuimg__jpeg_next(const uint8_t *data, size_t size, size_t *pos, gpuimg__jpeg_segment *out);

/* SOF0-15 but DHT (C4), JPG (C8) and DAC (CC): a frame header. */
static inline int gpuimg__jpeg_is_sof(uint8_t m)
{
    return m >= 0xC0 && m <= 0xCF && m != 0xC4 && m != 0xC8 && m != 0xCC;
}

#endif
