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
 * kept under 64 KiB, the most a JPEG segment holds.
 *
 * Writing goes the other way: the block's EXIF IFD entries set one by one
 * in libtiff's EXIF directory (each in the form libtiff's definition of its
 * tag takes; an entry whose type differs from it is left out), written as
 * a custom directory that IFD0's ExifIFD tag then points at. */
#include <stdlib.h>
#include <string.h>

#include <tiffio.h>

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

/* ---- writing: an EXIF block's EXIF IFD as libtiff's EXIF directory ---- */

/* Element k of an entry's values as a double (rationals divided). */
static double element(const uint8_t *v, uint32_t type, uint32_t k, int le)
{
    switch (type) {
    case 1:
    case 7: return v[k];
    case 6: return (int8_t)v[k];
    case 3: return get16(v + 2 * k, le);
    case 8: return (int16_t)get16(v + 2 * k, le);
    case 4: return get32(v + 4 * k, le);
    case 9: return (int32_t)get32(v + 4 * k, le);
    case 5: {
        uint32_t d = get32(v + 8 * k + 4, le);
        return d ? get32(v + 8 * k, le) / (double)d : 0.0;
    }
    case 10: {
        int32_t d = (int32_t)get32(v + 8 * k + 4, le);
        return d ? (int32_t)get32(v + 8 * k, le) / (double)d : 0.0;
    }
    default: return 0.0;
    }
}

/* One entry through TIFFSetField in the form libtiff's field definition
 * takes (its set size: a float or a double for a rational, 1-8 bytes for
 * an integer; a count before the values when it passes one); 0 when the
 * entry does not match libtiff's definition of its tag. */
static int set_entry(TIFF *tif, uint32_t tag, uint32_t type, uint32_t count, const uint8_t *v,
                     int le)
{
    const TIFFField *f = TIFFFindField(tif, tag, TIFF_ANY);
    if (!f || (uint32_t)TIFFFieldDataType(f) != type || count == 0)
        return 0;
    if (type == 2) { /* ASCII: a terminated copy */
        char *s = malloc((size_t)count + 1);
        if (!s)
            return 0;
        memcpy(s, v, count);
        s[count] = 0;
        int ok = TIFFFieldPassCount(f) ? TIFFSetField(tif, tag, count + 1, s)
                                       : TIFFSetField(tif, tag, s);
        free(s);
        return ok;
    }
    int size = TIFFFieldSetGetSize(f), real = type == 5 || type == 10 || type == 11 || type == 12;
    int passes = TIFFFieldPassCount(f), wants = TIFFFieldWriteCount(f);
    if (!passes && wants == 1 && count == 1) { /* one value, by value */
        double d = element(v, type, 0, le);
        if (real)
            return TIFFSetField(tif, tag, d);
        if (size == 8)
            return TIFFSetField(tif, tag, (uint64_t)d);
        if (size == 4)
            return TIFFSetField(tif, tag, (uint32_t)(int64_t)d);
        return TIFFSetField(tif, tag, (int)d);
    }
    if (!passes && (wants < 1 || (uint32_t)wants != count))
        return 0; /* a fixed count the entry does not have */
    if (size != 1 && size != 2 && size != 4 && size != 8)
        return 0;
    uint8_t *a = malloc((size_t)count * (size_t)size);
    if (!a)
        return 0;
    for (uint32_t k = 0; k < count; k++) {
        double d = element(v, type, k, le);
        uint8_t *p = a + (size_t)k * (size_t)size;
        if (real && size == 4) {
            float x = (float)d;
            memcpy(p, &x, 4);
        } else if (real) {
            memcpy(p, &d, 8);
        } else if (size == 1) {
            *p = (uint8_t)(int64_t)d;
        } else if (size == 2) {
            uint16_t x = (uint16_t)(int64_t)d;
            memcpy(p, &x, 2);
        } else if (size == 4) {
            uint32_t x = (uint32_t)(int64_t)d;
            memcpy(p, &x, 4);
        } else {
            uint64_t x = (uint64_t)(int64_t)d;
            memcpy(p, &x, 8);
        }
    }
    int ok = !passes                            ? TIFFSetField(tif, tag, a)
             : TIFFFieldSetGetCountSize(f) == 4 ? TIFFSetField(tif, tag, count, a)
             : count <= 65535                   ? TIFFSetField(tif, tag, (int)count, a)
                                                : 0;
    free(a);
    return ok;
}

int gpuimg__tiff_write_exif(TIFF *tif, const uint8_t *exif, size_t size, uint64_t *offset)
{
    if (size < 8 || !gpuimg__is_tiff(exif, size))
        return 0;
    int le = exif[0] == 'I';
    uint64_t ifd0 = get32(exif + 4, le), sub = 0;
    if (ifd0 < 8 || ifd0 > size - 2)
        return 0;
    uint32_t n0 = get16(exif + ifd0, le);
    for (uint32_t i = 0; i < n0 && ifd0 + 2 + 12 * (uint64_t)(i + 1) <= size; i++) {
        const uint8_t *e = exif + ifd0 + 2 + 12 * (uint64_t)i;
        if (get16(e, le) == 0x8769)
            sub = get32(e + 8, le);
    }
    if (sub < 8 || sub > size - 2 || TIFFCreateEXIFDirectory(tif) != 0) /* 0: made */
        return 0;
    uint32_t n = get16(exif + sub, le), set = 0;
    for (uint32_t i = 0; i < n && sub + 2 + 12 * (uint64_t)(i + 1) <= size; i++) {
        const uint8_t *e = exif + sub + 2 + 12 * (uint64_t)i;
        uint32_t tag = get16(e, le), type = get16(e + 2, le), count = get32(e + 4, le);
        uint64_t bytes = (uint64_t)type_size(type) * count;
        if (bytes == 0 || tag == TAG_INTEROP || type == 13)
            continue;
        const uint8_t *v = e + 8;
        if (bytes > 4) {
            uint64_t from = get32(e + 8, le);
            if (from > size || bytes > size - from)
                continue;
            v = exif + from;
        }
        set += (uint32_t)set_entry(tif, tag, type, count, v, le);
    }
    return set > 0 && TIFFWriteCustomDirectory(tif, offset) ? 1 : 0;
}
