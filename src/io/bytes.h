/* SPDX-License-Identifier: MIT */
/* Fixed-width fields of untrusted files, read byte by byte (no alignment,
 * no host byte order): the one set every format's reader uses. The caller
 * has checked that the bytes are there. */
#ifndef GPUIMG_IO_BYTES_H
#define GPUIMG_IO_BYTES_H

#include <stdint.h>

static inline uint32_t gpuimg__le16(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8;
}

static inline uint32_t gpuimg__be16(const uint8_t *p)
{
    return (uint32_t)p[0] << 8 | p[1];
}

static inline uint32_t gpuimg__le32(const uint8_t *p)
{
    return gpuimg__le16(p) | gpuimg__le16(p + 2) << 16;
}

static inline uint32_t gpuimg__be32(const uint8_t *p)
{
    return gpuimg__be16(p) << 16 | gpuimg__be16(p + 2);
}

static inline uint64_t gpuimg__be64(const uint8_t *p)
{
    return (uint64_t)gpuimg__be32(p) << 32 | gpuimg__be32(p + 4);
}

/* In a byte order known only at run time (TIFF and EXIF: le 1 for "II"). */
static inline uint32_t gpuimg__get16(const uint8_t *p, int le)
{
    return le ? gpuimg__le16(p) : gpuimg__be16(p);
}

static inline uint32_t gpuimg__get32(const uint8_t *p, int le)
{
    return le ? gpuimg__le32(p) : gpuimg__be32(p);
}

#endif
