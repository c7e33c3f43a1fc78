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

#include "io/io.h"
#include "io/walk_tiff.h"

#define EXIF_MAX 65000
#define TAG_INTEROP 0xA005
#define TAG_EXIF_IFD 0x8769
#define TAG_ORIENTATION 0x0112

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

/* IFD0's tags a camera (or an editor) writes there, carried in the block:
 * Make, Model, Orientation, Software, DateTime, Artist, Copyright, in
 * ascending order as an IFD's entries must be; all ASCII but Orientation. */
static const uint16_t IFD0_TAGS[] = {0x010F, 0x0110, TAG_ORIENTATION, 0x0131,
                                     0x0132, 0x013B, 0x8298};
#define IFD0_COUNT (sizeof IFD0_TAGS / sizeof IFD0_TAGS[0])

/* The block being built: EXIF_MAX bytes, `used` of them so far. */
typedef struct block {
    uint8_t *b;
    size_t used;
    int le;
} block;

/* Entry e of `file` (its 12 bytes checked to be inside) into slot d of the
 * block: its value in place when it fits 4 bytes, else appended to the
 * values, its offset rewritten. 0 when the value lies outside the file or
 * would not fit the block. */
static int copy_entry(block *k, uint8_t *d, const uint8_t *e, const uint8_t *file, size_t size)
{
    uint64_t bytes = (uint64_t)type_size(gpuimg__get16(e + 2, k->le)) * gpuimg__get32(e + 4, k->le);
    if (bytes <= 4) {
        memcpy(d, e, 12); /* the value itself, in place */
        return 1;
    }
    uint64_t from = gpuimg__get32(e + 8, k->le);
    uint64_t padded = bytes + (bytes & 1); /* values start on a word */
    if (from > size || bytes > size - from || padded > EXIF_MAX - k->used)
        return 0; /* the slot left as it was: the IFD's end stays 0 */
    memcpy(d, e, 8);
    memcpy(k->b + k->used, file + from, (size_t)bytes);
    put32(d + 8, (uint32_t)k->used, k->le);
    k->used += (size_t)padded;
    return 1;
}

/* Whether an IFD0 entry is one the block carries, in the form readers
 * expect: text as ASCII; Orientation a SHORT of 1-8 (metadata.c drops an
 * EXIF whose Orientation is not). */
static int ifd0_entry_wanted(const uint8_t *e, uint32_t tag, int le)
{
    uint32_t type = gpuimg__get16(e + 2, le), count = gpuimg__get32(e + 4, le);
    if (tag == TAG_ORIENTATION)
        return type == 3 && count == 1 && gpuimg__get16(e + 8, le) >= 1 &&
               gpuimg__get16(e + 8, le) <= 8;
    return type == 2 && count >= 1;
}

/* The entries of the file's IFD0 (its header's first directory, the one
 * libtiff reads) the block carries: the first of each tag, in IFD0_TAGS's
 * order. Returns how many. */
static int pick_ifd0(const uint8_t *file, size_t size, int le, uint64_t at, const uint8_t **picked)
{
    gpuimg__tiff_ifd ifd;
    if (!gpuimg__tiff_ifd_at(file, size, at, le, &ifd))
        return 0;
    int k = 0;
    for (size_t t = 0; t < IFD0_COUNT; t++)
        for (uint32_t i = 0; i < ifd.inside; i++) { /* the entries inside the file */
            const uint8_t *e = ifd.entries + 12 * (size_t)i;
            if (gpuimg__get16(e, le) != IFD0_TAGS[t])
                continue;
            if (ifd0_entry_wanted(e, IFD0_TAGS[t], le))
                picked[k++] = e;
            break;
        }
    return k;
}

/* The file's EXIF IFD, at ifd, copied into the block at `at` (its table
 * reserved up to there already): returns the entries kept. */
static uint32_t copy_exif_ifd(block *k, size_t at, const uint8_t *file, size_t size,
                              const gpuimg__tiff_ifd *ifd)
{
    uint32_t kept = 0;
    for (uint32_t i = 0; i < ifd->count; i++) {
        const uint8_t *e = ifd->entries + 12 * (size_t)i;
        uint32_t tag = gpuimg__get16(e, k->le), type = gpuimg__get16(e + 2, k->le);
        uint64_t bytes = (uint64_t)type_size(type) * gpuimg__get32(e + 4, k->le);
        if (bytes == 0 || tag == TAG_INTEROP || type == 13)
            continue; /* unknown type, empty, or another IFD */
        kept += (uint32_t)copy_entry(k, k->b + at + 2 + 12 * (size_t)kept, e, file, size);
    }
    put16(k->b + at, kept, k->le);
    return kept; /* the slots after them still 0, as calloc left them */
}

/* The EXIF IFD at offset at, when it lies inside the file whole, with at
 * most 1000 entries: 1, else 0 (0: the file has none). */
static int exif_ifd(const uint8_t *file, size_t size, uint64_t at, int le, gpuimg__tiff_ifd *ifd)
{
    return gpuimg__tiff_ifd_at(file, size, at, le, ifd) && ifd->count <= 1000 &&
           ifd->inside == ifd->count;
}

int gpuimg__tiff_exif(const uint8_t *file, size_t size, uint64_t ifd, uint8_t **out, size_t *len)
{
    *out = NULL;
    *len = 0;
    int le;
    uint64_t ifd0;
    if (!gpuimg__tiff_header(file, size, &le, &ifd0))
        return 0;
    const uint8_t *picked[IFD0_COUNT];
    int np = pick_ifd0(file, size, le, ifd0, picked);
    gpuimg__tiff_ifd sub;
    uint32_t n = exif_ifd(file, size, ifd, le, &sub) ? sub.count : 0;
    if (np == 0 && n == 0)
        return 0;
    /* header 8; IFD0 2 + 12 (np + 1) + 4, the last entry ExifIFD; then
     * the EXIF IFD 2 + 12 n + 4; then the values of both */
    size_t at = 8 + 2 + 12 * ((size_t)np + 1) + 4;
    block k = {calloc(1, EXIF_MAX), n ? at + 2 + 12 * (size_t)n + 4 : at, le};
    if (!k.b)
        return -1;
    memcpy(k.b, le ? "II*\0" : "MM\0*", 4);
    put32(k.b + 4, 8, le);
    uint32_t kept = n ? copy_exif_ifd(&k, at, file, size, &sub) : 0;
    uint32_t n0 = 0;
    for (int i = 0; i < np; i++)
        n0 += (uint32_t)copy_entry(&k, k.b + 10 + 12 * (size_t)n0, picked[i], file, size);
    if (kept) { /* ExifIFD, LONG, 1, at */
        uint8_t *d = k.b + 10 + 12 * (size_t)n0++;
        put16(d, TAG_EXIF_IFD, le);
        put16(d + 2, 4, le);
        put32(d + 4, 1, le);
        put32(d + 8, (uint32_t)at, le);
    }
    if (n0 == 0) {
        free(k.b);
        return 0;
    }
    put16(k.b + 8, n0, le); /* the next IFD's offset after it: 0, as calloc left it */
    *out = k.b;
    *len = k.used;
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
    case 3: return gpuimg__get16(v + 2 * k, le);
    case 8: return (int16_t)gpuimg__get16(v + 2 * k, le);
    case 4: return gpuimg__get32(v + 4 * k, le);
    case 9: return (int32_t)gpuimg__get32(v + 4 * k, le);
    case 5: {
        uint32_t d = gpuimg__get32(v + 8 * k + 4, le);
        return d ? gpuimg__get32(v + 8 * k, le) / (double)d : 0.0;
    }
    case 10: {
        int32_t d = (int32_t)gpuimg__get32(v + 8 * k + 4, le);
        return d ? (int32_t)gpuimg__get32(v + 8 * k, le) / (double)d : 0.0;
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

/* The block's IFD0: its offset and entry count (those inside the block),
 * and its ExifIFD entry's offset (0: none). 0 when the block is not an
 * EXIF block. */
static int block_ifd0(const uint8_t *exif, size_t size, int *le, gpuimg__tiff_ifd *ifd0,
                      uint64_t *sub)
{
    uint64_t at;
    *sub = 0;
    if (!gpuimg__tiff_header(exif, size, le, &at) ||
        !gpuimg__tiff_ifd_at(exif, size, at, *le, ifd0))
        return 0;
    for (uint32_t i = 0; i < ifd0->inside; i++) {
        const uint8_t *e = ifd0->entries + 12 * (size_t)i;
        if (gpuimg__get16(e, *le) == TAG_EXIF_IFD)
            *sub = gpuimg__get32(e + 8, *le);
    }
    return 1;
}

/* The value of entry e, bytes long: in the entry's own four bytes when it
 * fits there, else at the offset they hold; NULL when that is not all
 * inside the block. */
static const uint8_t *entry_value(const uint8_t *exif, size_t size, const uint8_t *e,
                                  uint64_t bytes, int le)
{
    if (bytes <= 4)
        return e + 8;
    uint64_t from = gpuimg__get32(e + 8, le);
    return from > size || bytes > size - from ? NULL : exif + from;
}

/* One IFD0 text entry of the block as its TIFF tag: the text up to its
 * first NUL (libtiff writes its own), none when empty. */
static void set_text(TIFF *tif, uint32_t tag, const uint8_t *exif, size_t size, const uint8_t *e,
                     int le)
{
    uint64_t count = gpuimg__get32(e + 4, le);
    const uint8_t *v = entry_value(exif, size, e, count, le);
    if (!v)
        return;
    size_t len = 0;
    while (len < count && v[len])
        len++;
    char *s = len ? malloc(len + 1) : NULL;
    if (!s)
        return;
    memcpy(s, v, len);
    s[len] = 0;
    TIFFSetField(tif, tag, s); /* libtiff keeps a copy */
    free(s);
}

int gpuimg__tiff_write_ifd0(TIFF *tif, const uint8_t *exif, size_t size)
{
    gpuimg__tiff_ifd ifd0;
    uint64_t sub;
    int le;
    if (!block_ifd0(exif, size, &le, &ifd0, &sub))
        return 0;
    for (uint32_t i = 0; i < ifd0.inside; i++) {
        const uint8_t *e = ifd0.entries + 12 * (size_t)i;
        uint32_t tag = gpuimg__get16(e, le);
        for (size_t t = 0; t < IFD0_COUNT; t++)
            if (tag == IFD0_TAGS[t] && tag != TAG_ORIENTATION && gpuimg__get16(e + 2, le) == 2)
                set_text(tif, tag, exif, size, e, le);
    }
    return sub >= 8 && sub <= size - 2;
}

int gpuimg__tiff_write_exif(TIFF *tif, const uint8_t *exif, size_t size, uint64_t *offset)
{
    gpuimg__tiff_ifd ifd0, ifd;
    uint64_t sub;
    int le;
    if (!block_ifd0(exif, size, &le, &ifd0, &sub) ||
        !gpuimg__tiff_ifd_at(exif, size, sub, le, &ifd) ||
        TIFFCreateEXIFDirectory(tif) != 0) /* 0: made */
        return 0;
    uint32_t set = 0;
    for (uint32_t i = 0; i < ifd.inside; i++) {
        const uint8_t *e = ifd.entries + 12 * (size_t)i;
        uint32_t tag = gpuimg__get16(e, le), type = gpuimg__get16(e + 2, le),
                 count = gpuimg__get32(e + 4, le);
        uint64_t bytes = (uint64_t)type_size(type) * count;
        if (bytes == 0 || tag == TAG_INTEROP || type == 13)
            continue;
        const uint8_t *v = entry_value(exif, size, e, bytes, le);
        if (v)
            set += (uint32_t)set_entry(tif, tag, type, count, v, le);
    }
    return set > 0 && TIFFWriteCustomDirectory(tif, offset) ? 1 : 0;
}
