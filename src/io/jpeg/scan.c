/* SPDX-License-Identifier: MIT */
/* The structure check of gpuimg__jpeg_scan (jpeg/scan.h), over the one
 * segment walk (walk_jpeg.h) and the entropy walk (jpeg/entropy.h).
 * nvJPEG's hardware engine decodes what it is given and does not notice
 * that a scan's data ends early, so the whole file is checked first: a
 * file that would make libjpeg-turbo warn (an error in SPEC §2) never
 * reaches the GPU, and fails on the CPU with libjpeg's message instead.
 * Only a baseline or extended sequential file with one scan of every
 * component is walked to its last MCU; a progressive one (whose scans
 * refine each other) goes to the CPU, which decides. */
#include <stdlib.h>
#include <string.h>

#include "io/bytes.h"
#include "io/jpeg/entropy.h"
#include "io/jpeg/scan.h"
#include "io/walk_jpeg.h"

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

/* The frame's components as SOF gave them. */
typedef struct frame {
    int n;
    uint8_t id[3], h[3], v[3], tq[3];
} frame;

/* DQT's body (len bytes) as libjpeg's get_dqt reads it: the tables it
 * defines marked in *defined (bit i: table i); 0 where libjpeg stops, or
 * for a table cut short (which it pads). */
static int quant_define(const uint8_t *seg, size_t len, unsigned *defined)
{
    while (len > 0) {
        int n = seg[0] & 15, bytes = seg[0] >> 4 ? 2 : 1;
        size_t need = 1 + 64 * (size_t)bytes;
        if (n > 3 || len < need)
            return 0;
        *defined |= 1u << n;
        seg += need;
        len -= need;
    }
    return 1;
}

static uint32_t ceil_div(uint64_t a, uint64_t b)
{
    return (uint32_t)((a + b - 1) / b);
}

/* SOS's body (len bytes) against the frame: the one scan of a sequential
 * file, every component in the frame's order, all 64 coefficients; 0 for
 * any other (libjpeg-turbo may read it, or stop: the CPU decides). */
static int scan_layout(const uint8_t *seg, size_t len, const frame *f, int width, int height,
                       unsigned interval, gpuimg__scan_layout *out)
{
    int ns = len ? seg[0] : 0;
    if (ns != f->n || len != 4 + 2 * (size_t)ns)
        return 0;
    for (int c = 0; c < ns; c++) {
        if (seg[1 + 2 * c] != f->id[c])
            return 0;
        out->dc_table[c] = seg[2 + 2 * c] >> 4;
        out->ac_table[c] = seg[2 + 2 * c] & 15;
    }
    const uint8_t *tail = seg + 1 + 2 * ns; /* Ss Se Ah:Al */
    if (tail[0] != 0 || tail[1] != 63 || tail[2] != 0)
        return 0;
    int hmax = 1, vmax = 1;
    for (int c = 0; c < f->n; c++) {
        hmax = f->h[c] > hmax ? f->h[c] : hmax;
        vmax = f->v[c] > vmax ? f->v[c] : vmax;
    }
    out->restart_interval = interval;
    if (ns == 1) { /* one block an MCU, over the component's own blocks */
        out->blocks = 1;
        out->block_comp[0] = 0;
        out->mcus_per_row = ceil_div((uint64_t)width * f->h[0], 8 * (uint64_t)hmax);
        out->mcu_rows = ceil_div((uint64_t)height * f->v[0], 8 * (uint64_t)vmax);
        return 1;
    }
    out->blocks = 0;
    for (int c = 0; c < ns; c++)
        for (int k = 0; k < f->h[c] * f->v[c]; k++) {
            if (out->blocks == GPUIMG__SCAN_BLOCKS)
                return 0;
            out->block_comp[out->blocks++] = (uint8_t)c;
        }
    out->mcus_per_row = ceil_div((uint64_t)width, 8 * (uint64_t)hmax);
    out->mcu_rows = ceil_div((uint64_t)height, 8 * (uint64_t)vmax);
    return 1;
}

static int scan_file(const uint8_t *data, size_t size, gpuimg__jpeg_shape *out,
                     gpuimg__huff_tables *tables)
{
    int scans = 0, jfif = 0, adobe = -1; /* Adobe's transform, -1: none */
    frame f = {0};
    unsigned interval = 0, quant = 0; /* DRI's interval; the DQT tables defined */
    /* libjpeg-turbo settles the colour space at the first SOS, from the
     * markers before it (default_decompress_parms): those after do not count */
    int colour_ok = 0;
    size_t i = 2;
    gpuimg__jpeg_segment s;
    /* 0 from the walk: garbage between segments (libjpeg warns), or a
     * segment cut short */
    while (gpuimg__jpeg_next(data, size, &i, &s)) {
        uint8_t m = s.marker;
        if (m == 0xD9) /* EOI: whole, if it had a frame and a scan read as YCbCr */
            return f.n && scans && colour_ok;
        if (m == 0x01 || (m >= 0xD0 && m <= 0xD7))
            continue; /* no length (a restart outside a scan is odd, but harmless) */
        /* libjpeg stops at any other marker it does not know (a second SOI,
         * JPGn, RESn): the CPU says so */
        if (!((m >= 0xC0 && m <= 0xCF) || m == 0xDA || m == 0xDB || m == 0xDC || m == 0xDD ||
              (m >= 0xE0 && m <= 0xEF) || m == 0xFE) ||
            m == 0xC8)
            return 0;
        /* DAC: arithmetic coding's conditioning, which libjpeg checks (and
         * stops at) though a Huffman file has no use for it */
        if (m == 0xCC)
            return 0;
        const uint8_t *seg = s.body;
        size_t n = s.len;
        if (gpuimg__jpeg_is_sof(m)) {
            /* SOFn: only Huffman baseline, extended and progressive, once */
            if (f.n || (m != 0xC0 && m != 0xC1 && m != 0xC2) || n < 6)
                return 0;
            out->progressive = m == 0xC2;
            out->height = (int)gpuimg__be16(seg + 1);
            out->width = (int)gpuimg__be16(seg + 3);
            out->components = seg[5];
            /* libjpeg's side limit (JPEG_MAX_DIMENSION) is the CPU's too,
             * and its length must be exactly the components' */
            if (seg[0] != 8 || out->width == 0 || out->height == 0 || out->width > 65500 ||
                out->height > 65500 || (out->components != 1 && out->components != 3) ||
                n != 6 + 3 * (size_t)out->components)
                return 0;
            f.n = out->components;
            for (int c = 0; c < f.n; c++) {
                f.id[c] = seg[6 + 3 * c];
                f.h[c] = seg[7 + 3 * c] >> 4;
                f.v[c] = seg[7 + 3 * c] & 15;
                f.tq[c] = seg[8 + 3 * c];
                if (f.h[c] < 1 || f.h[c] > 4 || f.v[c] < 1 || f.v[c] > 4 || f.tq[c] > 3)
                    return 0;
                for (int k = 0; k < c; k++)
                    if (f.id[k] == f.id[c])
                        return 0;
            }
            out->hs = out->vs = 1;
            if (out->components == 3) { /* luma's factors over chroma's, which must be 1 1 */
                out->hs = f.h[0];
                out->vs = f.v[0];
                if (seg[10] != 0x11 || seg[13] != 0x11 || !(out->hs == 1 || out->hs == 2) ||
                    !(out->vs == 1 || out->vs == out->hs) || (out->hs == 2 && out->width < 5))
                    return 0;
            }
        } else if (m == 0xC4) { /* DHT: the tables the scan's codes are read with */
            if (!gpuimg__huff_define(tables, seg, n))
                return 0;
        } else if (m == 0xDB) { /* DQT: the scan's components must find theirs */
            if (!quant_define(seg, n, &quant))
                return 0;
        } else if (m == 0xDD) { /* DRI */
            if (n != 2)
                return 0;
            interval = gpuimg__be16(seg);
        } else if (m == 0xE0 && n >= 14 && memcmp(seg, "JFIF", 5) == 0) { /* as libjpeg looks */
            jfif = 1;
            if (seg[5] != 1) /* "unknown JFIF revision number": a warning */
                return 0;
        } else if (m == 0xEE && n >= 12 && memcmp(seg, "Adobe", 5) == 0) {
            adobe = seg[11];
        } else if (m == 0xDA) { /* SOS, then its entropy-coded data walked */
            gpuimg__scan_layout layout;
            if (f.n && !scans)
                colour_ok = out->components == 1 || ycbcr(jfif, adobe, f.id);
            for (int c = 0; c < f.n; c++)
                if (!(quant >> f.tq[c] & 1)) /* libjpeg: "quantization table not defined" */
                    return 0;
            if (!f.n || out->progressive || scans++ ||
                !scan_layout(seg, n, &f, out->width, out->height, interval, &layout) ||
                !(i = gpuimg__jpeg_walk_scan(data, size, i, tables, &layout)))
                return 0;
        }
    }
    return 0; /* no EOI: the file was cut */
}

int gpuimg__jpeg_scan(const uint8_t *data, size_t size, gpuimg__jpeg_shape *out)
{
    memset(out, 0, sizeof *out);
    if (size < 4 || data[0] != 0xFF || data[1] != 0xD8)
        return 0;
    gpuimg__huff_tables *tables = gpuimg__huff_tables_new();
    int whole = tables && scan_file(data, size, out, tables);
    free(tables);
    return whole;
}
