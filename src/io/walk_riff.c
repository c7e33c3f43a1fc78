/* SPDX-License-Identifier: MIT */
#include <string.h>

#include "io/walk_riff.h"

static size_t le32(const uint8_t *p)
{
    return (size_t)p[0] | (size_t)p[1] << 8 | (size_t)p[2] << 16 | (size_t)p[3] << 24;
}

int gpuimg__riff_next(const uint8_t *data, size_t size, size_t *pos, gpuimg__riff_chunk *out)
{
    if (size < 12 || memcmp(data, "RIFF", 4) != 0)
        return 0;
    /* bytes after the RIFF's declared end are not the file's (libwebp
     * ignores them too) */
    size_t end = le32(data + 4) < size - 8 ? 8 + le32(data + 4) : size;
    size_t at = *pos;
    if (at > end || end - at < 8)
        return 0;
    size_t len = le32(data + at + 4);
    if (len > end - at - 8)
        return 0;
    out->fourcc = data + at;
    out->body = data + at + 8;
    out->len = len;
    /* the declared size and the pad byte of an odd one: never what the
     * body holds (an EXIF body's "Exif\0\0" included) */
    *pos = at + 8 + len + (len & 1);
    return 1;
}
