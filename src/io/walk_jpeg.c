/* SPDX-License-Identifier: MIT */
#include "io/walk_jpeg.h"

int gpuimg__jpeg_next(const uint8_t *data, size_t size, size_t *pos, gpuimg__jpeg_segment *out)
{
    size_t at = *pos;
    while (at < size && size - at >= 2 && data[at] == 0xFF && data[at + 1] == 0xFF)
        at++; /* fill bytes */
    if (at > size || size - at < 2 || data[at] != 0xFF)
        return 0;
    uint8_t m = data[at + 1];
    out->marker = m;
    out->body = data + at + 2;
    out->len = 0;
    if (m == 0xD8 || m == 0xD9 || m == 0x01 || (m >= 0xD0 && m <= 0xD7)) {
        *pos = at + 2;
        return 1;
    }
    if (size - at < 4)
        return 0;
    size_t len = (size_t)data[at + 2] << 8 | data[at + 3];
    if (len < 2 || len > size - at - 2)
        return 0;
    out->body = data + at + 4;
    out->len = len - 2;
    *pos = at + 2 + len;
    return 1;
}
