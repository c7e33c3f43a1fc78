/* SPDX-License-Identifier: MIT */
/* A sequential scan's entropy-coded data walked symbol by symbol, as
 * libjpeg-turbo's Huffman decoder (jdhuff.c) reads it, without computing a
 * coefficient: the GPU's decoder is given only a file whose every MCU is
 * there (jpeg/scan.h).
 *
 * Why: nvJPEG's hardware engine decodes a scan whose data ends early (a
 * file cut and closed with EOI, a restart interval cut short) and fills
 * the rest with made-up pixels, where libjpeg-turbo warns (an error in
 * SPEC §2). The walk answers the question libjpeg-turbo's warnings answer:
 * each code is one its tables define (else "bad Huffman code"), no code or
 * extra bits reach past the data before the next marker (else "premature
 * end of data segment"), each restart interval ends at its RSTn with no
 * whole byte left over (else "extraneous bytes" or a resync). A file that
 * passes decodes on the CPU without a warning; where the walk cannot be as
 * sure (a whole byte left at the end of the scan, which libjpeg-turbo's
 * read-ahead may or may not see, tables it would take from the standard)
 * it says no, and the CPU decides.
 *
 * Speed: the coefficients' values are never needed, so each table entry
 * holds the code's length plus its extra bits, and a symbol is one lookup
 * and one shift; bytes are loaded eight at a time where no 0xFF is among
 * them. About a fifth of libjpeg-turbo's Huffman pass (which skips the
 * inverse DCT already): see bench/NOTES.md. */
#include <stdlib.h>
#include <string.h>

#include "io/bytes.h"
#include "io/jpeg/entropy.h"

enum { FAST_BITS = 10, MULTI_BITS = 13 };

/* An entry: bit 15 set, the bits a symbol takes (code and extra bits) in
 * bits 0-4, and for an AC table the coefficients it moves past in bits
 * 5-9 (0: end of block). A code longer than FAST_BITS has no entry. */
typedef struct huff {
    int defined;
    int32_t maxcode[18]; /* libjpeg's: the largest code of each length, -1 none */
    int32_t valoffset[18];
    uint8_t huffval[256];
    uint16_t fast[1 << FAST_BITS];
    /* AC only: the symbols whose codes and extra bits all lie in the next
     * MULTI_BITS, up to and with an end of block: their bits in bits 0-3,
     * the coefficients they move past in bits 4-10, bit 11 set when the
     * last is the end of block; 0 when even the first does not fit. Two
     * symbols a lookup, about, on a photograph: a symbol alone is one
     * load and one shift, a chain the table's latency bounds. */
    uint16_t multi[1 << MULTI_BITS];
} huff;

struct gpuimg__huff_tables {
    huff dc[4], ac[4];
};

/* Bits of one segment (between markers), read from p to end, where end
 * is the 0xFF that begins the marker: so every 0xFF before it is a
 * stuffed byte (0xFF, then fill 0xFFs, then 0x00). buf holds n bits at its
 * top; the bits below them are zero or the next bytes' own. */
typedef struct bits {
    const uint8_t *p, *end;
    uint64_t buf;
    int n;
} bits;

/* Bytes one at a time: near a stuffed 0xFF or the segment's end. */
static void refill_slow(bits *b)
{
    while (b->n <= 56 && b->p < b->end) {
        uint8_t c = *b->p++;
        if (c == 0xFF) { /* stuffed: fill bytes, then the 0x00 (absent at a cut end) */
            while (b->p < b->end && *b->p == 0xFF)
                b->p++;
            if (b->p < b->end)
                b->p++;
        }
        b->buf |= (uint64_t)c << (56 - b->n);
        b->n += 8;
        if (b->end - b->p >= 8)
            return; /* the fast way again */
    }
}

/* At least 57 bits in buf, or every byte of the segment. Eight bytes with
 * no 0xFF among them go in at once, as many whole ones as fit (the rest
 * of the eighth's bits are the next bytes' own, below n). */
static inline void refill(bits *b)
{
    while (b->n <= 56 && b->p < b->end) {
        if (b->end - b->p >= 8) {
            uint64_t v = gpuimg__be64(b->p), x = ~v;
            if (!((x - 0x0101010101010101ull) & ~x & 0x8080808080808080ull)) {
                int k = (64 - b->n) >> 3;
                b->buf |= v >> b->n;
                b->n += 8 * k;
                b->p += k;
                return;
            }
        }
        refill_slow(b);
    }
}

/* What a symbol means to the walk: the extra bits after its code (a DC
 * symbol is their count; an AC symbol's low nibble), and for AC the
 * coefficients it moves past (its run and itself; 16 for ZRL; 0 for an
 * end of block). */
static int symbol_extra(int sym, int dc, int *adv)
{
    int extra = dc ? sym : sym & 15;
    *adv = dc ? 0 : extra ? (sym >> 4) + 1 : (sym >> 4) == 15 ? 16 : 0;
    return extra;
}

/* libjpeg's jpeg_make_d_derived_tbl and its checks; 0 where libjpeg
 * stops (bad table). */
static int make_table(huff *h, const uint8_t counts[16], const uint8_t *vals, int nvals, int dc)
{
    uint8_t size[257];
    int32_t code[256];
    int p = 0;
    for (int l = 1; l <= 16; l++) {
        if (p + counts[l - 1] > 256)
            return 0;
        for (int i = 0; i < counts[l - 1]; i++)
            size[p++] = (uint8_t)l;
    }
    size[p] = 0; /* p is nvals: the counts' sum, checked by the caller */
    int32_t c = 0;
    int si = size[0];
    for (int k = 0; size[k];) {
        while (size[k] == si)
            code[k++] = c++;
        if (c >= (int32_t)1 << si)
            return 0;
        c <<= 1;
        si++;
    }
    p = 0;
    for (int l = 1; l <= 16; l++) {
        if (counts[l - 1]) {
            h->valoffset[l] = p - code[p];
            p += counts[l - 1];
            h->maxcode[l] = code[p - 1];
        } else {
            h->maxcode[l] = -1;
        }
    }
    h->valoffset[17] = 0;
    h->maxcode[17] = 0xFFFFF;
    memset(h->huffval, 0, sizeof h->huffval);
    memcpy(h->huffval, vals, (size_t)nvals);
    memset(h->fast, 0, sizeof h->fast);
    for (int k = 0; k < nvals; k++) {
        if (dc && vals[k] > 15)
            return 0;
        int adv, extra = symbol_extra(vals[k], dc, &adv);
        if (size[k] > FAST_BITS)
            continue;
        int shift = FAST_BITS - size[k];
        uint16_t e = (uint16_t)(0x8000 | adv << 5 | (size[k] + extra));
        for (int32_t i = code[k] << shift; i < (code[k] + 1) << shift; i++)
            h->fast[i] = e;
    }
    if (!dc)
        for (int v = 0; v < 1 << MULTI_BITS; v++) {
            int pos = 0, moved = 0, eob = 0;
            while (!eob && moved < 64) {
                /* the FAST_BITS at pos, zeros past the index's bits: a code
                 * resolved within them is the code (prefix property) */
                unsigned e =
                    h->fast[(v << pos) >> (MULTI_BITS - FAST_BITS) & ((1 << FAST_BITS) - 1)];
                int t = (int)(e & 31), adv = (int)(e >> 5 & 31);
                if (!e || pos + t > MULTI_BITS)
                    break;
                pos += t; /* t >= 1: pos > 0 once a symbol fits */
                eob = adv == 0;
                moved += adv;
            }
            h->multi[v] = pos ? (uint16_t)(pos | moved << 4 | eob << 11) : 0;
        }
    h->defined = 1;
    return 1;
}

int gpuimg__huff_define(gpuimg__huff_tables *t, const uint8_t *seg, size_t len)
{
    /* jdmarker.c's get_dht: tables one after another, each whole */
    while (len > 16) {
        int index = seg[0];
        uint8_t counts[16];
        int count = 0;
        for (int i = 0; i < 16; i++)
            count += counts[i] = seg[1 + i];
        seg += 17;
        len -= 17;
        if (count > 256 || (size_t)count > len)
            return 0;
        int ac = index & 0x10;
        index &= ~0x10;
        if (index < 0 || index > 3)
            return 0;
        if (!make_table(ac ? &t->ac[index] : &t->dc[index], counts, seg, count, !ac))
            return 0;
        seg += count;
        len -= (size_t)count;
    }
    return len == 0;
}

gpuimg__huff_tables *gpuimg__huff_tables_new(void)
{
    return calloc(1, sizeof(gpuimg__huff_tables));
}

/* A code longer than FAST_BITS, bit by bit as jpeg_huff_decode reads it:
 * the bits it takes with its extra bits (dc) or its coefficients moved
 * (ac, in *adv), or -1 for a code the table lacks. */
static int slow_symbol(const huff *h, uint64_t buf, int dc, int *adv)
{
    int l = FAST_BITS + 1;
    int32_t code = (int32_t)(buf >> (64 - l));
    while (code > h->maxcode[l]) {
        l++;
        code = (int32_t)(buf >> (64 - l));
    }
    if (l > 16)
        return -1;
    return l + symbol_extra(h->huffval[(code + h->valoffset[l]) & 0xFF], dc, adv);
}

/* One symbol and its extra bits taken: the coefficients moved (ac), or -1
 * where libjpeg-turbo would warn (a code past the data, or none). Bits
 * past the data are zero, so a code the table resolves within n bits is
 * the code libjpeg-turbo reads there. */
static inline int take(bits *b, const huff *h, int dc)
{
    if (b->n < 32)
        refill(b);
    unsigned e = h->fast[b->buf >> (64 - FAST_BITS)];
    int t, adv;
    if (e) {
        t = (int)(e & 31);
        adv = (int)(e >> 5 & 31);
    } else if ((t = slow_symbol(h, b->buf, dc, &adv)) < 0) {
        return -1;
    }
    if (t > b->n)
        return -1;
    b->buf <<= t;
    b->n -= t;
    return adv;
}

/* One MCU's blocks: 0, or -1 where libjpeg-turbo would warn. The bit
 * state lives in a local copy, so that it stays in registers. */
static int walk_mcu(bits *state, const huff *const *dc, const huff *const *ac, int blocks)
{
    bits b = *state;
    for (int k = 0; k < blocks; k++) {
        if (take(&b, dc[k], 1) < 0)
            return -1;
        for (int i = 1; i < 64;) {
            if (b.n < 32)
                refill(&b);
            unsigned e = ac[k]->multi[b.buf >> (64 - MULTI_BITS)];
            int t = (int)(e & 15), moved = (int)(e >> 4 & 127);
            /* whole within the data, and the block not ended among them
             * without an end of block (else the next block's symbols) */
            if (e && t <= b.n && i + moved < 64) {
                b.buf <<= t;
                b.n -= t;
                i += moved;
                if (e & 1 << 11)
                    break;
                continue;
            }
            int adv = take(&b, ac[k], 0);
            if (adv <= 0) {
                if (adv < 0)
                    return -1;
                break; /* end of block */
            }
            i += adv;
        }
    }
    *state = b;
    return 0;
}

/* The 0xFF that begins the marker ending the entropy-coded data at i (fill
 * bytes before a marker are part of it), or size when none. */
static size_t marker_at(const uint8_t *data, size_t size, size_t i)
{
    while (i < size) {
        const uint8_t *ff = memchr(data + i, 0xFF, size - i);
        if (!ff)
            return size;
        size_t at = (size_t)(ff - data), k = at + 1;
        while (k < size && data[k] == 0xFF)
            k++;
        if (k >= size)
            return size;
        if (data[k] != 0x00)
            return at;
        i = k + 1;
    }
    return size;
}

/* Where the marker's code is, past the fill bytes at end (the 0xFF
 * marker_at found); size when the file ends first. */
static size_t code_at(const uint8_t *data, size_t size, size_t end)
{
    while (end < size && data[end] == 0xFF)
        end++;
    return end;
}

/* Whether a segment was used up: every whole byte of it read, under a
 * byte of bits left (the encoder's padding). */
static int used_up(const bits *b)
{
    return b->p >= b->end && b->n < 8;
}

size_t gpuimg__jpeg_walk_scan(const uint8_t *data, size_t size, size_t pos,
                              const gpuimg__huff_tables *t, const gpuimg__scan_layout *s)
{
    const huff *dc[GPUIMG__SCAN_BLOCKS], *ac[GPUIMG__SCAN_BLOCKS];
    for (int k = 0; k < s->blocks; k++) {
        int c = s->block_comp[k];
        if (s->dc_table[c] > 3 || s->ac_table[c] > 3 || !t->dc[s->dc_table[c]].defined ||
            !t->ac[s->ac_table[c]].defined)
            return 0; /* libjpeg would take the standard tables, or stop */
        dc[k] = &t->dc[s->dc_table[c]];
        ac[k] = &t->ac[s->ac_table[c]];
    }
    uint64_t mcus = (uint64_t)s->mcus_per_row * s->mcu_rows;
    unsigned interval = s->restart_interval, to_go = interval, next_rst = 0;
    size_t end = marker_at(data, size, pos);
    bits b = {data + pos, data + end, 0, 0};
    for (uint64_t m = 0; m < mcus; m++) {
        if (interval && to_go == 0) { /* the interval ends at RSTn, the next in turn */
            if (!used_up(&b))
                return 0;
            size_t at = code_at(data, size, end);
            if (at >= size || data[at] != 0xD0 + next_rst)
                return 0;
            next_rst = (next_rst + 1) & 7;
            pos = at + 1;
            end = marker_at(data, size, pos);
            b = (bits){data + pos, data + end, 0, 0};
            to_go = interval;
        }
        if (walk_mcu(&b, dc, ac, s->blocks) < 0)
            return 0;
        to_go--;
    }
    /* the scan's last byte read, and a marker (not a restart) after it */
    size_t at = code_at(data, size, end);
    return !used_up(&b) || at >= size || (data[at] >= 0xD0 && data[at] <= 0xD7) ? 0 : end;
}
