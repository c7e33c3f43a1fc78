/* SPDX-License-Identifier: MIT */
#include <string.h>

#include "io/bytes.h"
#include "io/walk_riff.h"

/* a field as size_t, so that sums with it cannot wrap at 32 bits */
static size_t le32(const uint8_t *p)
{
    return gpuimg__le32(p);
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
