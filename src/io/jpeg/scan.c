/* SPDX-License-Identifier: MIT */
/* The structure check of gpuimg__jpeg_scan (jpeg/scan.h), over the one
 * segment walk (walk_jpeg.h). nvJPEG's hardware
 * engine decodes what it is given and may not notice that a file was cut
 * short, so the walk checks the whole structure first: a file that would
 * make libjpeg-turbo warn about its end (an error in SPEC §2) never reaches
 * the GPU, and fails on the CPU with libjpeg's message instead. The walk
 * costs one memchr over the entropy-coded data: under a millisecond for a
 * 12-megapixel photograph. */
#include <string.h>

#include "io/bytes.h"
#include "io/jpeg/scan.h"
#include "io/walk_jpeg.h"

/* The offset just past a scan's entropy-coded data starting at i: the next
 * marker other than a stuffed 0xFF00 or a restart marker; size when none. */
static size_t skip_entropy(const uint8_t *data, size_t size, size_t i)
{
    while (i < size) {
        const uint8_t *ff = memchr(data + i, 0xFF, size - i);
        if (!ff)
            return size;
        size_t at = (size_t)(ff - data);
        if (at + 1 >= size)
            return size;
        uint8_t m = data[at + 1];
        if (m == 0x00 || (m >= 0xD0 && m <= 0xD7) || m == 0xFF) {
            i = at + 1; /* stuffing, a restart, or fill bytes before a marker */
            continue;
        }
        return at;
    }
    return size;
}

/* Whether libjpeg-turbo reads a 3-component file as YCbCr (jdapimin.c's
 * default_decompress_parms): so a JFIF file; else Adobe's transform 1 (0 is
 * RGB, and any other value a warning, which the CPU makes an error); else
 * any component identifiers but R G B. */
static int ycbcr(int jfif, int adobe, const uint8_t ids[3])
{
    if (jfif)
        return 1;
    if (adobe >= 0)
        return adobe == 1;
    return !(ids[0] == 'R' && ids[1] == 'G' && ids[2] == 'B');
}

int gpuimg__jpeg_scan(const uint8_t *data, size_t size, gpuimg__jpeg_shape *out)
{
    memset(out, 0, sizeof *out);
    if (size < 4 || data[0] != 0xFF || data[1] != 0xD8)
        return 0;
    int frame = 0, scans = 0, jfif = 0, adobe = -1; /* Adobe's transform, -1: none */
    uint8_t ids[3] = {0, 0, 0};                     /* the components' identifiers */
    size_t i = 2;
    gpuimg__jpeg_segment s;
    /* 0 from the walk: garbage between segments (libjpeg warns), or a
     * segment cut short */
    while (gpuimg__jpeg_next(data, size, &i, &s)) {
        uint8_t m = s.marker;
        if (m == 0xD9) /* EOI: whole, if it had a frame and a scan */
            return frame && scans && (out->components == 1 || ycbcr(jfif, adobe, ids));
        if (m == 0x01 || (m >= 0xD0 && m <= 0xD7))
            continue; /* no length (a restart outside a scan is odd, but harmless) */
        /* libjpeg stops at any other marker it does not know (a second SOI,
         * JPGn, RESn): the CPU says so */
        if (!((m >= 0xC0 && m <= 0xCF) || m == 0xDA || m == 0xDB || m == 0xDC || m == 0xDD ||
              (m >= 0xE0 && m <= 0xEF) || m == 0xFE) ||
            m == 0xC8)
            return 0;
        const uint8_t *seg = s.body;
        size_t n = s.len;
        if (gpuimg__jpeg_is_sof(m)) {
            /* SOFn: only Huffman baseline, extended and progressive, once */
            if (frame || (m != 0xC0 && m != 0xC1 && m != 0xC2) || n < 6)
                return 0;
            frame = 1;
            out->progressive = m == 0xC2;
            out->height = (int)gpuimg__be16(seg + 1);
            out->width = (int)gpuimg__be16(seg + 3);
            out->components = seg[5];
            /* libjpeg's side limit (JPEG_MAX_DIMENSION) is the CPU's too */
            if (seg[0] != 8 || out->width == 0 || out->height == 0 || out->width > 65500 ||
                out->height > 65500 || (out->components != 1 && out->components != 3) ||
                n < 6 + 3 * (size_t)out->components)
                return 0;
            out->hs = out->vs = 1;
            for (int c = 0; c < out->components; c++)
                ids[c] = seg[6 + 3 * c];
            if (out->components == 3) { /* luma's factors over chroma's, which must be 1 1 */
                out->hs = seg[7] >> 4;
                out->vs = seg[7] & 15;
                if (seg[10] != 0x11 || seg[13] != 0x11 || !(out->hs == 1 || out->hs == 2) ||
                    !(out->vs == 1 || out->vs == out->hs) || (out->hs == 2 && out->width < 5))
                    return 0;
            }
        } else if (m == 0xE0 && n >= 14 && memcmp(seg, "JFIF", 5) == 0) { /* as libjpeg looks */
            jfif = 1;
        } else if (m == 0xEE && n >= 12 && memcmp(seg, "Adobe", 5) == 0) {
            adobe = seg[11];
        } else if (m == 0xDA) { /* SOS, then its entropy-coded data */
            if (!frame)
                return 0;
            scans++;
            i = skip_entropy(data, size, i);
        }
    }
    return 0; /* no EOI: the file was cut */
}
