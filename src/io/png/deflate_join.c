/* SPDX-License-Identifier: MIT */
/* Joining libdeflate's whole streams into one (deflate_join.h).
 *
 * A deflate stream is a sequence of blocks, bit after bit; the first bit of
 * each block's header, BFINAL, says whether the stream ends with it. So two
 * streams A and B read as one when A's final block has BFINAL cleared and B's
 * first block starts at the bit where A's final block ends. B's bytes are to
 * be copied as they are, so that bit must be on a byte boundary: when A's
 * last end-of-block code ends inside a byte, an empty stored block (header
 * 000, zero bits to the boundary, LEN 0000, NLEN FFFF) gets there, as zlib's
 * full flush does. The bits of A's last byte after its end are padding,
 * zero as libdeflate writes them and zeroed here anyway.
 *
 * Where the final block starts and where it ends is known only by walking
 * every block: a Huffman block's length is nowhere in the stream, only its
 * end-of-block code, after all its symbols. The walker decodes symbols (no
 * output) with the codes of each block's header. It reads only streams this
 * program has just compressed, but it checks what an inflater checks
 * (zlib's rules for codes; lengths, distances and block types in range;
 * nothing past the buffer), so a surprise is an error, never a wrong cut;
 * and the caller checks that the stream inflates to the bytes it gave and
 * ends in its last byte, which a wrong walk could hardly also satisfy. */
#include <string.h>

#include "io/png/deflate_join.h"

/* Codes of up to FAST_BITS bits decode with one look-up in a table that
 * says at once what the symbol is and how many bits it takes with its extra
 * bits; longer codes (rare: they are the rare symbols) decode bit by bit, as
 * puff does, to the same entry. */
#define FAST_BITS 11
#define MAX_BITS 15

/* A table entry: base << 16 | 1 << 15 | kind << 13 | extra bits << 9 | code
 * length << 5 | code length + extra bits. For a literal (and a code-length
 * symbol) base is the symbol, for a length or a distance the value before
 * its extra bits. Bit 15 is always set: 0 says no code of up to FAST_BITS
 * bits starts so (or, from decode_slow, none at all). */
enum { LITERAL, MATCH, END, BAD };
enum { CODES, LITLEN, DIST }; /* the three alphabets */
#define E_TOTAL(e) ((e)&31)
#define E_LEN(e) ((e) >> 5 & 15)
#define E_EXTRA(e) ((e) >> 9 & 15)
#define E_KIND(e) ((e) >> 13 & 3)
#define E_BASE(e) ((e) >> 16)

typedef struct huff {
    uint32_t fast[1 << FAST_BITS];
    uint16_t count[MAX_BITS + 1]; /* codes of each length */
    uint16_t symbol[288];         /* symbols in canonical order */
    int alphabet;
} huff;

/* The stream's bits, least significant first. Past the end it reads zeros
 * (pos counts them too): a decode never reads outside the buffer, and the
 * walk checks its position against the end instead. */
typedef struct bits {
    const uint8_t *p;
    size_t len, pos; /* pos: the next byte to load */
    uint64_t buf;    /* cnt bits, then possibly part of byte pos again */
    unsigned cnt;
} bits;

/* At least 56 bits in buf afterwards: more than the most one length and
 * distance pair takes (15 + 5 + 15 + 13). */
static inline void refill(bits *b)
{
    if (b->cnt > 56)
        return;
    if (b->pos <= b->len && b->len - b->pos >= 8) {
        uint64_t w;
        memcpy(&w, b->p + b->pos, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
        w = __builtin_bswap64(w); /* the stream is little-endian */
#endif
        /* The bytes wholly taken are counted; the part of the next one
         * that fits is OR'ed in again when it is loaded: the same bits. */
        b->buf |= w << b->cnt;
        b->pos += (63 - b->cnt) >> 3;
        b->cnt |= 56;
        return;
    }
    while (b->cnt <= 56) {
        uint64_t v = b->pos < b->len ? b->p[b->pos] : 0;
        b->buf |= v << b->cnt;
        b->pos++;
        b->cnt += 8;
    }
}

static inline unsigned take(bits *b, unsigned n)
{
    unsigned v = (unsigned)(b->buf & ((1ull << n) - 1));
    b->buf >>= n;
    b->cnt -= n;
    return v;
}

/* The bit offset reached. */
static inline uint64_t at_bit(const bits *b)
{
    return (uint64_t)b->pos * 8 - b->cnt;
}

static const uint16_t len_base[29] = {3,  4,  5,  6,   7,   8,   9,   10,  11, 13,
                                      15, 17, 19, 23,  27,  31,  35,  43,  51, 59,
                                      67, 83, 99, 115, 131, 163, 195, 227, 258};
static const uint8_t len_extra[29] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2,
                                      2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0};
static const uint16_t dist_base[30] = {
    1,   2,   3,   4,   5,   7,    9,    13,   17,   25,   33,   49,   65,    97,    129,
    193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577};
static const uint8_t dist_extra[30] = {0, 0, 0, 0, 1, 1, 2, 2,  3,  3,  4,  4,  5,  5,  6,
                                       6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13};

static uint32_t entry(int alphabet, unsigned sym, unsigned len)
{
    unsigned kind = LITERAL, extra = 0, base = sym;
    if (alphabet == LITLEN && sym >= 256) {
        kind = sym == 256 ? END : sym - 257 < 29 ? MATCH : BAD; /* 286, 287: no lengths */
        if (kind == MATCH) {
            extra = len_extra[sym - 257];
            base = len_base[sym - 257];
        }
    } else if (alphabet == DIST) {
        kind = sym < 30 ? MATCH : BAD; /* 30, 31: no distances */
        if (kind == MATCH) {
            extra = dist_extra[sym];
            base = dist_base[sym];
        }
    }
    return (uint32_t)base << 16 | 1u << 15 | kind << 13 | extra << 9 | len << 5 | (len + extra);
}

/* Builds h from the code lengths; zlib's inflate_table rules: -1 for an
 * over-subscribed code, or an incomplete one unless it is a single code of
 * one bit (a distance code may be so) or has no codes at all (then any use
 * of it fails). The code lengths' own code must be complete. */
static int build(huff *h, int alphabet, const uint8_t *lens, unsigned n)
{
    h->alphabet = alphabet;
    memset(h->count, 0, sizeof h->count);
    for (unsigned i = 0; i < n; i++)
        h->count[lens[i]]++;
    h->count[0] = 0;
    int left = 1;
    unsigned max = 0, used = 0;
    for (unsigned len = 1; len <= MAX_BITS; len++) {
        left = 2 * left - h->count[len];
        if (left < 0)
            return -1;
        if (h->count[len])
            max = len;
        used += h->count[len];
    }
    if (left > 0 && used && (alphabet == CODES || max != 1))
        return -1;
    uint16_t offs[MAX_BITS + 1];
    offs[1] = 0;
    for (unsigned len = 1; len < MAX_BITS; len++)
        offs[len + 1] = (uint16_t)(offs[len] + h->count[len]);
    for (unsigned i = 0; i < n; i++)
        if (lens[i])
            h->symbol[offs[lens[i]]++] = (uint16_t)i;
    memset(h->fast, 0, sizeof h->fast);
    unsigned code = 0, idx = 0; /* canonical: codes count up, one length after another */
    for (unsigned len = 1; len <= FAST_BITS; len++, code <<= 1)
        for (unsigned k = 0; k < h->count[len]; k++, idx++, code++) {
            unsigned r = 0; /* the code as it arrives: most significant bit first */
            for (unsigned i = 0; i < len; i++)
                r |= (code >> i & 1) << (len - 1 - i);
            uint32_t e = entry(alphabet, h->symbol[idx], len);
            for (unsigned f = r; f < 1u << FAST_BITS; f += 1u << len)
                h->fast[f] = e;
        }
    return 0;
}

/* puff's decode, for codes the table does not hold: the entry of the code
 * buf starts with, or 0 when its 15 bits are no code. buf is passed by value
 * so that the walk's bit reader stays in registers. */
static uint32_t decode_slow(const huff *h, uint64_t buf)
{
    int code = 0, first = 0, index = 0;
    for (unsigned len = 1; len <= MAX_BITS; len++) {
        code |= (int)(buf & 1);
        buf >>= 1;
        int count = h->count[len];
        if (code - count < first)
            return entry(h->alphabet, h->symbol[index + (code - first)], len);
        index += count;
        first = (first + count) << 1;
        code <<= 1;
    }
    return 0;
}

static inline uint32_t lookup(const huff *h, uint64_t buf)
{
    uint32_t e = h->fast[buf & ((1u << FAST_BITS) - 1)];
    return e ? e : decode_slow(h, buf);
}

/* The next symbol's entry, its code taken but not its extra bits, or 0.
 * Needs 15 bits in b (refill). */
static inline uint32_t decode(bits *b, const huff *h)
{
    uint32_t e = lookup(h, b->buf);
    if (e)
        take(b, E_LEN(e));
    return e;
}

/* A length's or distance's value, its extra bits taken. */
static inline unsigned value(bits *b, uint32_t e)
{
    return E_BASE(e) + take(b, E_EXTRA(e));
}

/* A dynamic block's header: its two codes into lit and dist. */
static int read_codes(bits *b, huff *lit, huff *dist)
{
    static const uint8_t order[19] = {16, 17, 18, 0, 8,  7, 9,  6, 10, 5,
                                      11, 4,  12, 3, 13, 2, 14, 1, 15};
    refill(b);
    unsigned nlit = 257 + take(b, 5), ndist = 1 + take(b, 5), ncl = 4 + take(b, 4);
    if (nlit > 286 || ndist > 30)
        return -1;
    uint8_t lens[286 + 30] = {0}, cl[19] = {0};
    for (unsigned i = 0; i < ncl; i++) {
        refill(b);
        cl[order[i]] = (uint8_t)take(b, 3);
    }
    if (build(dist, CODES, cl, 19)) /* dist holds the code lengths' code for now */
        return -1;
    for (unsigned i = 0; i < nlit + ndist;) {
        refill(b);
        uint32_t e = decode(b, dist);
        if (!e)
            return -1;
        unsigned sym = E_BASE(e);
        if (sym < 16) {
            lens[i++] = (uint8_t)sym;
            continue;
        }
        unsigned rep, val = 0;
        if (sym == 16) {
            if (i == 0)
                return -1;
            val = lens[i - 1];
            rep = 3 + take(b, 2);
        } else if (sym == 17) {
            rep = 3 + take(b, 3);
        } else {
            rep = 11 + take(b, 7);
        }
        if (rep > nlit + ndist - i)
            return -1;
        while (rep--)
            lens[i++] = (uint8_t)val;
    }
    if (lens[256] == 0) /* no end-of-block code: the block could not end */
        return -1;
    return build(lit, LITLEN, lens, nlit) || build(dist, DIST, lens + nlit, ndist) ? -1 : 0;
}

static void fixed_codes(huff *lit, huff *dist)
{
    uint8_t lens[288];
    memset(lens, 8, 144);
    memset(lens + 144, 9, 112);
    memset(lens + 256, 7, 24);
    memset(lens + 280, 8, 8);
    build(lit, LITLEN, lens, 288);
    memset(lens, 5, 32); /* 30 and 31 are codes, refused when used */
    build(dist, DIST, lens, 32);
}

/* A Huffman block's symbols up to its end-of-block code; *out grows by the
 * bytes they stand for. The hot loop of the walk: it works on a copy of the
 * reader in locals, which the compiler keeps in registers (through b, every
 * byte load could alias it), and takes a symbol's code and extra bits in
 * one shift. */
static int walk_symbols(bits *b, const huff *lit, const huff *dist, uint64_t *out)
{
    bits r = *b;
    uint64_t n = *out;
    int ok = 0;
    for (;;) {
        if (r.cnt <= 56) {
            refill(&r);
            if (r.pos > r.len + 8) /* decoding the zeros past the end */
                break;
        }
        uint32_t e = lookup(lit, r.buf);
        if (!e)
            break;
        if (E_KIND(e) == LITERAL) {
            r.buf >>= E_TOTAL(e);
            r.cnt -= E_TOTAL(e);
            n++;
            continue;
        }
        if (E_KIND(e) != MATCH) {
            if (E_KIND(e) == END) {
                take(&r, E_TOTAL(e));
                ok = 1;
            }
            break;
        }
        unsigned length = E_BASE(e) + (unsigned)(r.buf >> E_LEN(e) & ((1u << E_EXTRA(e)) - 1));
        r.buf >>= E_TOTAL(e);
        r.cnt -= E_TOTAL(e);
        if (!(e = decode(&r, dist)) || E_KIND(e) != MATCH)
            break;
        unsigned distance = value(&r, e);
        if (distance > n) /* before the stream's start: it has no dictionary */
            break;
        n += length;
    }
    *b = r;
    *out = n;
    return ok ? 0 : -1;
}

int gpuimg__deflate_walk(const uint8_t *buf, size_t len, gpuimg__deflate_shape *shape)
{
    bits b = {buf, len, 0, 0, 0};
    uint64_t out = 0, limit = (uint64_t)len * 8;
    huff lit, dist;
    for (;;) {
        uint64_t start = at_bit(&b);
        if (start + 3 > limit)
            return -1;
        refill(&b);
        unsigned final = take(&b, 1), type = take(&b, 2);
        if (type == 0) {
            take(&b, b.cnt & 7); /* to the byte boundary */
            uint64_t at = at_bit(&b) / 8;
            if (at + 4 > len)
                return -1;
            unsigned n = buf[at] | buf[at + 1] << 8, check = buf[at + 2] | buf[at + 3] << 8;
            if (n != (~check & 0xffffu) || n > len - at - 4)
                return -1;
            b.pos = (size_t)(at + 4 + n);
            b.buf = 0;
            b.cnt = 0;
            out += n;
        } else if (type == 3) {
            return -1;
        } else {
            if (type == 1)
                fixed_codes(&lit, &dist);
            else if (read_codes(&b, &lit, &dist))
                return -1;
            if (walk_symbols(&b, &lit, &dist, &out))
                return -1;
        }
        if (at_bit(&b) > limit)
            return -1;
        if (final) {
            shape->last_block = start;
            shape->end = at_bit(&b);
            shape->out_len = out;
            return 0;
        }
    }
}

size_t gpuimg__deflate_unfinish(uint8_t *buf, size_t len, size_t cap, uint64_t want)
{
    gpuimg__deflate_shape s;
    if (gpuimg__deflate_walk(buf, len, &s) || s.out_len != want || (s.end + 7) / 8 != len)
        return 0;
    buf[s.last_block / 8] &= (uint8_t) ~(1u << s.last_block % 8);
    unsigned used = (unsigned)(s.end % 8);
    if (used == 0) /* already on a byte boundary: the next block may start there */
        return len;
    /* The empty stored block's header (000) and padding: the last byte's
     * bits from the end on are zero, and a zero byte more when the header
     * does not fit in them. */
    size_t extra = used > 5 ? 5 : 4;
    if (cap < len || cap - len < extra)
        return 0;
    buf[len - 1] &= (uint8_t)((1u << used) - 1);
    if (used > 5)
        buf[len++] = 0;
    static const uint8_t empty[4] = {0, 0, 0xff, 0xff};
    memcpy(buf + len, empty, 4);
    return len + 4;
}
