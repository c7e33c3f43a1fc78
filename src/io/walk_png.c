/* SPDX-License-Identifier: MIT */
#include "io/walk_png.h"

int gpuimg__png_next(const uint8_t *data, size_t size, size_t *pos, gpuimg__png_chunk *out)
{
    size_t at = *pos;
    out->cut = 0;
    if (at > size || size - at < 8)
        return 0;
    uint32_t len = gpuimg__be32(data + at);
    out->cut = len > size - at - 8;
    if (size - at < 12 || len > size - at - 12)
        return 0;
    out->type = data + at + 4;
    out->body = data + at + 8;
    out->len = len;
    *pos = at + 12 + (size_t)len;
    return 1;
}
