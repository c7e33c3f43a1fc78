/* SPDX-License-Identifier: MIT */
/* A TIFF file's EXIF, as the standalone block the other formats carry
 * (SPEC §2): a TIFF header in the file's byte order, an IFD0 of one entry
 * (ExifIFD) and a copy of the file's EXIF IFD with its values after it,
 * their offsets rewritten for the new block. TIFF keeps EXIF in an IFD of
 * its own, pointed at by tag 34665 of the image's IFD; JPEG's APP1, PNG's
 * eXIf and WebP's EXIF chunk need it as one block.
 *
 * Untrusted bytes: every offset and count is checked against the file, an
 * entry of an unknown type or one pointing at another IFD (Interoperability,
 * whose own offsets would need rewriting) is left out, and the block is
 * kept under 64 KiB, the most a JPEG segment holds. */
#include <stdlib.h>
#include <string.h>

#include "io.h"

#define EXIF_MAX 65000
#define TAG_INTEROP 0xA005

static uint32_t get16(const uint8_t *p, int le)
{
    return le ? (uint32_t)p[0] | (uint32_t)p[1] << 8 : (uint32_t)p[0] << 8 | p[1];
}

static uint32_t get32(const uint8_t *p, int le)
{
    return le ? get16(p, 1) | get16(p + 2, 1) << 16 : get16(p, 0) << 16 | get16(p + 2, 0);
}

static void put16(uint8_t *p, uint32_t v, int le)
{
    p[le ? 0 : 1] = (uint8_t)v;
    p[le ? 1 : 0] = (uint8_t)(v >> 8);
}

static void put32(uint8_t *p, uint32_t v, int le)
{
    put16(p + (le ? 0 : 2), v & 0xFFFF, le);
    put16(p + (le ? 2 : 0), v >> 16, le);
}

/* Bytes of one value of a TIFF type; 0 for a type not known. */
static uint32_t type_size(uint32_t type)
{
    static const uint8_t sizes[14] = {0, 1, 1, 2, 4, 8, 1, 1, 2, 4, 8, 4, 8, 4};
    return type < 14 ? sizes[type] : 0;
}

int gpuimg__tiff_exif(const uint8_t *file, size_t size, uint64_t ifd, uint8_t **out, size_t *len)
{
    *out = NULL;
    *len = 0;
    if (size < 8 || ifd < 8 || ifd > size - 2)
        return 0;
    int le = file[0] == 'I';
    uint32_t n = get16(file + ifd, le);
    if (n == 0 || n > 1000 || (uint64_t)ifd + 2 + 12 * (uint64_t)n > size)
        return 0;
    /* header 8, IFD0 2 + 12 + 4, then the EXIF IFD: 2 + 12 n + 4, values */
    size_t at = 26, head = at + 2 + 12 * (size_t)n + 4, used = head;
    uint8_t *b = calloc(1, EXIF_MAX);
    if (!b)
        return -1;
    memcpy(b, le ? "II*\0" : "MM\0*", 4);
    put32(b + 4, 8, le);
    put16(b + 8, 1, le);
    put16(b + 10, 0x8769, le); /* ExifIFD, LONG, 1, at 26 */
    put16(b + 12, 4, le);
    put32(b + 14, 1, le);
    put32(b + 18, (uint32_t)at, le);
    uint32_t kept = 0;
    for (uint32_t i = 0; i < n; i++) {
        const uint8_t *e = file + ifd + 2 + 12 * (uint64_t)i;
        uint32_t tag = get16(e, le), type = get16(e + 2, le), count = get32(e + 4, le);
        uint64_t bytes = (uint64_t)type_size(type) * count;
        if (bytes == 0 || tag == TAG_INTEROP || type == 13)
            continue; /* unknown type, empty, or another IFD */
        uint8_t *d = b + at + 2 + 12 * (size_t)kept;
        memcpy(d, e, 8);
        if (bytes <= 4) {
            memcpy(d + 8, e + 8, 4); /* the value itself, in place */
        } else {
            uint64_t from = get32(e + 8, le);
            if (from > size || bytes > size - from || bytes > EXIF_MAX - used)
                continue; /* outside the file, or too much to carry */
            memcpy(b + used, file + from, (size_t)bytes);
            put32(d + 8, (uint32_t)used, le);
            used += (size_t)bytes + (bytes & 1); /* values start on a word */
        }
        kept++;
    }
    if (kept == 0) {
        free(b);
        return 0;
    }
    put16(b + at, kept, le);
    /* the entries were written packed: close the gap before the values */
    size_t table = at + 2 + 12 * (size_t)kept;
    memset(b + table, 0, head - table);
    *out = b;
    *len = used;
    return 1;
}
