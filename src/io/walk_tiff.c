/* SPDX-License-Identifier: MIT */
#include <string.h>

#include "io/walk_tiff.h"

int gpuimg__tiff_header(const uint8_t *data, size_t size, int *le, uint64_t *ifd0)
{
    if (size < 8 || !(memcmp(data, "II*\0", 4) == 0 || memcmp(data, "MM\0*", 4) == 0))
        return 0;
    *le = data[0] == 'I';
    *ifd0 = gpuimg__get32(data + 4, *le);
    return 1;
}

int gpuimg__tiff_ifd_at(const uint8_t *data, size_t size, uint64_t offset, int le,
                        gpuimg__tiff_ifd *out)
{
    if (size < 8 || offset < 8 || offset > size - 2)
        return 0;
    out->entries = data + offset + 2;
    out->count = gpuimg__get16(data + offset, le);
    uint64_t room = (size - offset - 2) / 12;
    out->inside = out->count < room ? out->count : (uint32_t)room;
    return 1;
}
