/* SPDX-License-Identifier: MIT */
/* PNG reading, fast path: the common PNG (8 bits per channel, gray, gray +
 * alpha, RGB or RGBA, not interlaced, no tRNS) read without libpng.
 *
 * libpng inflates with zlib and unfilters one row after another on one
 * core. Here:
 *  - every chunk's CRC is checked (libdeflate's CRC-32, folded with
 *    carry-less multiplies), and the IDATs' data joined into one stream
 *    (in place in the loader's own bytes: idat_join);
 *  - libdeflate inflates it in one call (about twice zlib's speed, since it
 *    sees the whole input and output at once), checking the Adler-32 and
 *    that the data is exactly one filter byte plus one row per row, into
 *    the image's own buffer, whose start the rows are then unfiltered to
 *    in place (no second image's memory to fault in and write);
 *  - the rows are unfiltered by every thread of the pool at once, as a
 *    wavefront: a thread claims the next row (or the next two, when both
 *    chain from pixel to pixel: chain_span2), and walks it in spans of
 *    SPAN bytes, each started only once the row above has finished the
 *    same span (Up, Average and Paeth read the row above at x and x - bpp).
 *    Claiming rows in order means the row a thread waits for is always
 *    held by a thread that is running, so any number of threads, from one,
 *    finishes; and None and Sub rows do not wait at all. Up goes 16 bytes
 *    at a time, Sub, Average and Paeth a pixel at a time in SSE2 (SSE4.1
 *    where the machine has it).
 * Anything else, or anything wrong or unusual (a bad CRC, a chunk type
 * that is not four letters, a second PLTE, a zlib window under 32 KiB, a
 * short or overlong stream, an unknown filter), returns 0 and the caller
 * goes to libpng, which reads every PNG and words the error. */
#define _POSIX_C_SOURCE 200809L
#include <libdeflate.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#include <smmintrin.h>
#endif

#include "core/big_alloc.h"
#include "core/pool.h"
#include "io/io.h"
#include "io/walk_png.h"

/* Small enough that an 8K row (23040 bytes) has 22 spans, so 16 threads
 * can each be on a different row; large enough that the release store and
 * acquire load per span cost nothing. */
#define SPAN 1024
/* Below this many bytes of pixels, one thread: the pool's start-up would
 * cost more than it saves. */
#define PARALLEL_BYTES (1u << 20)

/* A chunk type is four ASCII letters; libpng refuses anything else. */
static int letters(const uint8_t *t)
{
    for (int i = 0; i < 4; i++)
        if (!((t[i] >= 'A' && t[i] <= 'Z') || (t[i] >= 'a' && t[i] <= 'z')))
            return 0;
    return 1;
}

typedef struct unfilter_job {
    /* One buffer: the image's rows, packed, from its start (out row y at
     * y n), and the inflated stream (row y's filter byte and n bytes) from
     * off on, so that the rows unfilter in place with no second image's
     * memory. Row y's output lies below its own input, so a row consumes
     * its input before it overwrites any of it; it may overwrite rows
     * above's input, and waits for those rows to finish first (rows at
     * least off / (n + 1) above: long done, with off a row per thread). */
    uint8_t *buf;
    size_t n, off;
    int h, bpp;
    atomic_int next_row;
    atomic_int bad;      /* a filter type over 4 */
    atomic_size_t *done; /* bytes of each row unfiltered so far */
} unfilter_job;

typedef struct unfilter_job_piece {
    gpuimg_task task;
    unfilter_job *job;
} unfilter_job_piece;

/* The filter types. The first row's "row above" is all zeros (up NULL). */
enum { NONE, SUB, UP, AVERAGE, PAETH };

#if defined(__SSE2__)
/* One pixel of bpp bytes as 16-bit lanes, and back: Sub, Average and Paeth
 * depend on the pixel to the left, a chain no SIMD breaks, so they go a
 * pixel at a time with its channels side by side in one register (the
 * left pixel a and upper-left c stay in registers). Paeth is branchless
 * (libpng's SSE2 formulation): its choice is a coin toss on a photograph. */
static inline __m128i load_px(const uint8_t *p, const int bpp)
{
    uint32_t v = 0;
    memcpy(&v, p, (size_t)bpp);
    return _mm_unpacklo_epi8(_mm_cvtsi32_si128((int)v), _mm_setzero_si128());
}

static inline void store_px(uint8_t *p, __m128i v, const int bpp)
{
    uint32_t x = (uint32_t)_mm_cvtsi128_si32(_mm_packus_epi16(v, v));
    memcpy(p, &x, (size_t)bpp);
}

/* A pixel of 3 bytes read and written as 4 where the fourth is the next
 * pixel's of the same span (a 3-byte copy goes through the stack, and the
 * 4-byte load after two partial stores stalls): the fourth lane's value
 * is never used, and the next pixel's byte written is rewritten next. */
static inline __m128i load_px4(const uint8_t *p)
{
    uint32_t v;
    memcpy(&v, p, 4);
    return _mm_unpacklo_epi8(_mm_cvtsi32_si128((int)v), _mm_setzero_si128());
}

static inline void store_px4(uint8_t *p, __m128i v)
{
    uint32_t x = (uint32_t)_mm_cvtsi128_si32(_mm_packus_epi16(v, v));
    memcpy(p, &x, 4);
}

static inline __m128i abs16(__m128i x)
{
    return _mm_max_epi16(x, _mm_sub_epi16(_mm_setzero_si128(), x));
}

static inline __m128i choose(__m128i mask, __m128i yes, __m128i no)
{
    return _mm_or_si128(_mm_and_si128(mask, yes), _mm_andnot_si128(mask, no));
}

#if defined(__x86_64__) || defined(__i386__)
/* The same in one instruction each where SSE4.1 is (every x86-64 since
 * 2008): a quarter off Paeth's chain. The row loop is built twice, and
 * the machine's picked when a decode starts (X86_41: 1 in the second). */
#define SSE41 __attribute__((target("sse4.1")))
#define X86_41 1
static inline SSE41 __m128i abs16_41(__m128i x)
{
    return _mm_abs_epi16(x);
}

static inline SSE41 __m128i choose_41(__m128i mask, __m128i yes, __m128i no)
{
    return _mm_blendv_epi8(no, yes, mask);
}
#else
#define X86_41 0
#define abs16_41 abs16
#define choose_41 choose
#endif

/* One pixel of Sub, Average (up NULL: the first row) or Paeth: the next a. */
static inline __attribute__((always_inline)) __m128i chain_px(int type, __m128i a, __m128i *c,
                                                              __m128i b, __m128i x, const int v41)
{
    if (type == SUB)
        return _mm_add_epi8(a, x); /* lanes stay bytes */
    if (type == AVERAGE)
        return _mm_add_epi8(_mm_srli_epi16(_mm_add_epi16(a, b), 1), x);
    /* Paeth: p = a + b - c; whichever of a, b, c is nearest p, in that order */
    __m128i bc = _mm_sub_epi16(b, *c), ac = _mm_sub_epi16(a, *c);
    __m128i pa, pb, pc, pred;
    if (v41) {
        pa = abs16_41(bc), pb = abs16_41(ac), pc = abs16_41(_mm_add_epi16(bc, ac));
    } else {
        pa = abs16(bc), pb = abs16(ac), pc = abs16(_mm_add_epi16(bc, ac));
    }
    __m128i least = _mm_min_epi16(_mm_min_epi16(pa, pb), pc);
    __m128i is_a = _mm_cmpeq_epi16(least, pa), is_b = _mm_cmpeq_epi16(least, pb);
    if (v41)
        pred = choose_41(is_a, a, choose_41(is_b, b, *c));
    else
        pred = choose(is_a, a, choose(is_b, b, *c));
    *c = b;
    return _mm_add_epi8(pred, x);
}

/* Sub, Average (up may be NULL: the first row) and Paeth (up not NULL)
 * over bytes [i0, i1) of a row, whole pixels; r may lie below f in the
 * same buffer (each pixel is read before its store). */
static inline __attribute__((always_inline)) void chain_span(int type, const uint8_t *f, uint8_t *r,
                                                             const uint8_t *up, size_t i0,
                                                             size_t i1, const int bpp,
                                                             const int v41)
{
    __m128i a = _mm_setzero_si128(), c = _mm_setzero_si128(), zero = _mm_setzero_si128();
    if (i0 > 0) {
        a = load_px(r + i0 - bpp, bpp);
        c = up && type == PAETH ? load_px(up + i0 - bpp, bpp) : c;
    }
    size_t i = i0;
    if (bpp == 3) /* all but the span's last pixel 4 bytes at a time */
        for (; i + 3 < i1; i += 3) {
            __m128i b = up && type != SUB ? load_px4(up + i) : zero;
            a = chain_px(type, a, &c, b, load_px4(f + i), v41);
            store_px4(r + i, a);
        }
    for (; i < i1; i += bpp) {
        __m128i b = up && type != SUB ? load_px(up + i, bpp) : zero;
        a = chain_px(type, a, &c, b, load_px(f + i, bpp), v41);
        store_px(r + i, a, bpp);
    }
}

/* Two rows' spans at once (types Sub, Average or Paeth, the first not the
 * image's first row): the second (t1, f1, r1, whose row above is r0) one
 * pixel behind the first, its upper pixels taken from the first's
 * registers. A chain's pixel waits on the one before it, some 8 cycles;
 * two chains in flight do twice the work in that time. In place, the
 * second row's stores reach only the first's input it has read. */
static inline __attribute__((always_inline)) void
chain_span2(int t0, const uint8_t *f0, uint8_t *r0, const uint8_t *up0, int t1, const uint8_t *f1,
            uint8_t *r1, size_t i0, size_t i1, const int bpp, const int v41)
{
    __m128i zero = _mm_setzero_si128(), a0 = zero, c0 = zero, a1 = zero;
    if (i0 > 0) {
        a0 = load_px(r0 + i0 - bpp, bpp);
        c0 = t0 == PAETH ? load_px(up0 + i0 - bpp, bpp) : zero;
        a1 = load_px(r1 + i0 - bpp, bpp);
    }
    __m128i c1 = a0; /* the second row's upper-left: the first's pixel before */
    __m128i b = t0 != SUB ? load_px(up0 + i0, bpp) : zero;
    a0 = chain_px(t0, a0, &c0, b, load_px(f0 + i0, bpp), v41);
    store_px(r0 + i0, a0, bpp);
    size_t i = i0 + bpp, last = i1 - bpp;
    if (bpp == 3) /* 4 bytes at a time but for the span's last pixel */
        for (; i < last; i += 3) {
            __m128i above = a0;
            b = t0 != SUB ? load_px4(up0 + i) : zero;
            a0 = chain_px(t0, a0, &c0, b, load_px4(f0 + i), v41);
            store_px4(r0 + i, a0);
            a1 = chain_px(t1, a1, &c1, above, load_px4(f1 + i - 3), v41);
            store_px4(r1 + i - 3, a1);
        }
    for (; i < i1; i += bpp) {
        __m128i above = a0;
        b = t0 != SUB ? load_px(up0 + i, bpp) : zero;
        a0 = chain_px(t0, a0, &c0, b, load_px(f0 + i, bpp), v41);
        store_px(r0 + i, a0, bpp);
        a1 = chain_px(t1, a1, &c1, above, load_px(f1 + i - bpp, bpp), v41);
        store_px(r1 + i - bpp, a1, bpp);
    }
    a1 = chain_px(t1, a1, &c1, a0, load_px(f1 + last, bpp), v41);
    store_px(r1 + last, a1, bpp);
}
#endif

/* Bytes [i0, i1) of one row, both multiples of bpp; up is the row above
 * (NULL for the first, whose row above is all zeros). bpp is a constant at
 * every call site, so each loop compiles for its pixel size. The output r
 * may lie below the input f in the same buffer: every byte is read before
 * the store that could reach it. */
static inline __attribute__((always_inline)) void unfilter_span(int type, const uint8_t *f,
                                                                uint8_t *r, const uint8_t *up,
                                                                size_t i0, size_t i1, const int bpp,
                                                                const int v41)
{
    if (type == NONE || (!up && type == UP)) {
        memmove(r + i0, f + i0, i1 - i0);
        return;
    }
    if (type == UP) {
        size_t i = i0;
#if defined(__SSE2__)
        /* 16 bytes at a time (GCC's -O2 leaves this loop a byte at a time):
         * each block is read whole before its store, which reaches only
         * input bytes below it */
        for (; i + 16 <= i1; i += 16) {
            __m128i sum = _mm_add_epi8(_mm_loadu_si128((const __m128i *)(f + i)),
                                       _mm_loadu_si128((const __m128i *)(up + i)));
            _mm_storeu_si128((__m128i *)(r + i), sum);
        }
#endif
        for (; i < i1; i++)
            r[i] = (uint8_t)(f[i] + up[i]);
        return;
    }
    if (!up && type == PAETH)
        type = SUB; /* Paeth of a, 0, 0 is a */
#if defined(__SSE2__)
    if (bpp > 1) {
        chain_span(type, f, r, up, i0, i1, bpp, v41);
        return;
    }
#else
    (void)v41;
#endif
    if (bpp > 1) { /* without SSE2: the left pixels read back */
        for (size_t i = i0; i < i1; i++) {
            int a = i >= (size_t)bpp ? r[i - bpp] : 0, b = up ? up[i] : 0;
            int c = up && i >= (size_t)bpp ? up[i - bpp] : 0;
            int pa = abs(b - c), pb = abs(a - c), pc = abs(a + b - 2 * c);
            int pred = type == SUB            ? a
                       : type == AVERAGE      ? (a + b) >> 1
                       : pa <= pb && pa <= pc ? a
                       : pb <= pc             ? b
                                              : c;
            r[i] = (uint8_t)(f[i] + pred);
        }
        return;
    }
    /* one byte a pixel: one chain, in a register */
    int a = i0 > 0 ? r[i0 - 1] : 0, c = i0 > 0 && up && type == PAETH ? up[i0 - 1] : 0;
    if (type == SUB) {
        for (size_t i = i0; i < i1; i++)
            r[i] = (uint8_t)(a = (uint8_t)(f[i] + a));
    } else if (type == AVERAGE) {
        for (size_t i = i0; i < i1; i++)
            r[i] = (uint8_t)(a = (uint8_t)(f[i] + ((a + (up ? up[i] : 0)) >> 1)));
    } else {
        for (size_t i = i0; i < i1; i++) {
            int b = up[i];
            int pa = abs(b - c), pb = abs(a - c), pc = abs(a + b - 2 * c);
            int pred = pb <= pc ? b : c;
            pred = pa <= pb && pa <= pc ? a : pred;
            r[i] = (uint8_t)(a = (uint8_t)(f[i] + pred));
            c = b;
        }
    }
}

#if defined(__SSE2__)
/* Sub, Average and Paeth: a chain from pixel to pixel. */
static int chains(int type)
{
    return type == SUB || type == AVERAGE || type == PAETH;
}
#endif

static void wait_for(atomic_size_t *done, size_t want)
{
    for (unsigned spins = 0; atomic_load_explicit(done, memory_order_acquire) < want; spins++)
        if (spins > 64) /* the row above's thread may have lost its core */
            sched_yield();
}

static inline __attribute__((always_inline)) void unfilter_rows_in(gpuimg_task *task, const int v41)
{
    unfilter_job *j = ((unfilter_job_piece *)task)->job;
    size_t n = j->n, rec = n + 1, off = j->off;
    for (;;) {
        int y = atomic_fetch_add(&j->next_row, 1);
        if (y >= j->h)
            break;
        const uint8_t *f = j->buf + off + (size_t)y * rec;
        uint8_t *r = j->buf + (size_t)y * n;
        const uint8_t *up = y ? r - n : NULL; /* the first row's is all zeros */
        int type = f[0];
        f++;
        if (type > PAETH) {
            atomic_store(&j->bad, 1);
            type = NONE; /* still finish the row: the rows below wait on it */
        }
        /* The rows above whose input this row's output covers, finished:
         * from the one holding byte y n to the one holding byte (y+1) n - 1. */
        size_t lo = (size_t)y * n, hi = lo + n;
        if (hi > off) {
            size_t k0 = lo > off ? (lo - off) / rec : 0, k1 = (hi - 1 - off) / rec;
            for (size_t k = k0; k <= k1 && k < (size_t)y; k++)
                wait_for(&j->done[k], n);
        }
        size_t span = SPAN - SPAN % (size_t)j->bpp; /* whole pixels */
#if defined(__SSE2__)
        /* This row and the next together (chain_span2) when both chain
         * and no other thread has taken the next */
        int next = y + 1 < j->h ? f[n] : NONE, expect = y + 1;
        if (j->bpp > 1 && y > 0 && chains(type) && chains(next) &&
            atomic_compare_exchange_strong(&j->next_row, &expect, y + 2)) {
            /* the next row's output over rows above's input (this row's
             * own, read ahead of it, aside) */
            lo = hi, hi = lo + n;
            if (hi > off) {
                size_t k0 = lo > off ? (lo - off) / rec : 0, k1 = (hi - 1 - off) / rec;
                for (size_t k = k0; k <= k1 && k < (size_t)y; k++)
                    wait_for(&j->done[k], n);
            }
            for (size_t i0 = 0; i0 < n; i0 += span) {
                size_t i1 = i0 + span < n ? i0 + span : n;
                if (type != SUB)
                    wait_for(&j->done[y - 1], i1);
                switch (j->bpp) {
                case 2: chain_span2(type, f, r, up, next, f + rec, r + n, i0, i1, 2, v41); break;
                case 3: chain_span2(type, f, r, up, next, f + rec, r + n, i0, i1, 3, v41); break;
                default: chain_span2(type, f, r, up, next, f + rec, r + n, i0, i1, 4, v41); break;
                }
                atomic_store_explicit(&j->done[y], i1, memory_order_release);
                atomic_store_explicit(&j->done[y + 1], i1, memory_order_release);
            }
            continue;
        }
#endif
        int waits = y > 0 && (type == UP || type == AVERAGE || type == PAETH);
        for (size_t i0 = 0; i0 < n; i0 += span) {
            size_t i1 = i0 + span < n ? i0 + span : n;
            if (waits)
                wait_for(&j->done[y - 1], i1);
            switch (j->bpp) {
            case 1: unfilter_span(type, f, r, up, i0, i1, 1, v41); break;
            case 2: unfilter_span(type, f, r, up, i0, i1, 2, v41); break;
            case 3: unfilter_span(type, f, r, up, i0, i1, 3, v41); break;
            default: unfilter_span(type, f, r, up, i0, i1, 4, v41); break;
            }
            atomic_store_explicit(&j->done[y], i1, memory_order_release);
        }
    }
}

static void unfilter_rows(gpuimg_task *task)
{
    unfilter_rows_in(task, 0);
}

#if X86_41
static SSE41 void unfilter_rows_41(gpuimg_task *task)
{
    unfilter_rows_in(task, 1);
}
#endif

/* The row loop for this machine. */
static void (*unfilter_rows_here(void))(gpuimg_task *)
{
#if X86_41
    __builtin_cpu_init();
    if (__builtin_cpu_supports("sse4.1"))
        return unfilter_rows_41;
#endif
    return unfilter_rows;
}

/* The threads that unfilter an image of bytes bytes (the caller's included). */
static int unfilter_threads(gpuimg_ctx *ctx, gpuimg_pool *pool, size_t bytes)
{
    int threads = bytes < PARALLEL_BYTES ? 1 : gpuimg__pool_workers(pool) + 1;
    return ctx->file_threads > 0 && threads > ctx->file_threads ? ctx->file_threads : threads;
}

/* Unfilters the stream at buf + off into buf's start, on threads threads
 * of the pool (the caller's included). 0 out of memory or a bad filter. */
static int unfilter(gpuimg_pool *pool, int threads, uint8_t *buf, size_t off, gpuimg_image *img)
{
    unfilter_job j = {.buf = buf,
                      .off = off,
                      .n = (size_t)img->width * (size_t)img->channels,
                      .h = img->height,
                      .bpp = img->channels};
    atomic_init(&j.next_row, 0);
    atomic_init(&j.bad, 0);
    j.done = malloc((size_t)img->height * sizeof *j.done);
    unfilter_job_piece *pieces = malloc((size_t)threads * sizeof *pieces);
    if (!j.done || !pieces) {
        free(j.done);
        free(pieces);
        return 0;
    }
    for (int y = 0; y < img->height; y++)
        atomic_init(&j.done[y], 0);
    if (threads == 1)
        pool = NULL; /* runs at once, here */
    void (*rows)(gpuimg_task *) = unfilter_rows_here();
    for (int i = 0; i < threads; i++) {
        pieces[i] = (unfilter_job_piece){.task.run = rows, .job = &j};
        gpuimg__pool_piece(pool, &pieces[i].task);
    }
    for (int i = 0; i < threads; i++)
        gpuimg__pool_wait(pool, &pieces[i].task);
    free(pieces);
    free(j.done);
    return !atomic_load(&j.bad);
}

/* The IDATs' data as one stream, for libdeflate. The file's bytes, when
 * they are the loader's (freed once decoded: ctx->input_owned), are
 * rearranged in place: each IDAT's data moved down over the 12 bytes (the
 * CRC before, the chunk header) that part it from the previous one's,
 * those bytes kept, to be put back should the stream not decode and
 * libpng read the file. A 34 MB stream then costs a move, not 34 MB of
 * fresh pages and a copy. Other bytes (a caller's) are copied. */
typedef struct idat_stream {
    uint8_t *data;       /* the stream */
    uint8_t *copy;       /* data when a copy (big_alloc) */
    uint8_t (*gaps)[12]; /* in place: the bytes before each IDAT's data but the first */
} idat_stream;

/* first: the first IDAT's data; lens: the run's n lengths. 0 out of memory. */
static int idat_join(idat_stream *s, int in_place, const uint8_t *first, const uint32_t *lens,
                     int n, size_t total)
{
    memset(s, 0, sizeof *s);
    if (!in_place) {
        /* huge pages from 4 MB on (big_alloc.h): fewer faults */
        if (!(s->copy = gpuimg__big_alloc(total, 64)))
            return 0;
        size_t at = 0;
        for (int i = 0; i < n; first += lens[i] + 12, i++) {
            memcpy(s->copy + at, first, lens[i]);
            at += lens[i];
        }
        s->data = s->copy;
        return 1;
    }
    if (n > 1 && !(s->gaps = malloc((size_t)(n - 1) * sizeof *s->gaps)))
        return 0;
    /* the bytes are the loader's: writable (const only for callers' bytes) */
    uint8_t *src = (uint8_t *)first + lens[0], *dst = src;
    for (int i = 1; i < n; i++) {
        src += 12;
        memcpy(s->gaps[i - 1], src - 12, 12); /* not yet reached: dst <= src - 12 i */
        memmove(dst, src, lens[i]);
        dst += lens[i];
        src += lens[i];
    }
    s->data = (uint8_t *)first;
    return 1;
}

/* The file's bytes as they were (idat_join in place undone, in reverse:
 * each IDAT's data back up, then its 12 bytes before it), or the copy freed. */
static void idat_undo(idat_stream *s, const uint32_t *lens, int n)
{
    if (s->copy) {
        size_t total = 0;
        for (int i = 0; i < n; i++)
            total += lens[i];
        gpuimg__big_free(s->copy, total);
        return;
    }
    size_t now = 0, was = 0; /* IDAT i's data's offset from the first's, moved and as it was */
    for (int i = 0; i < n; i++) {
        now += i ? lens[i - 1] : 0;
        was += i ? lens[i - 1] + 12 : 0;
    }
    for (int i = n - 1; i > 0; i--) {
        memmove(s->data + was, s->data + now, lens[i]);
        memcpy(s->data + was - 12, s->gaps[i - 1], 12);
        now -= lens[i - 1];
        was -= lens[i - 1] + 12;
    }
    free(s->gaps);
}

static void idat_done(idat_stream *s, size_t total)
{
    if (s->copy)
        gpuimg__big_free(s->copy, total);
    free(s->gaps);
}

int gpuimg__decode_png_fast(gpuimg_ctx *ctx, const uint8_t *data, size_t size, gpuimg_image *out)
{
    static const int channels_of[7] = {1, 0, 3, 0, 2, 0, 4}; /* by colour type; 0: not here */
    if (size < 8 + 25 || gpuimg__be32(data + 8) != 13 || memcmp(data + 12, "IHDR", 4) != 0)
        return 0;
    const uint8_t *ihdr = data + 16;
    uint32_t w = gpuimg__be32(ihdr), h = gpuimg__be32(ihdr + 4);
    if (ihdr[8] != 8 || ihdr[9] > 6 || !channels_of[ihdr[9]] || ihdr[10] || ihdr[11] || ihdr[12])
        return 0;
    if (gpuimg__check_size(ctx, "", w, h) != GPUIMG_OK)
        return 0;
    int c = channels_of[ihdr[9]];
    size_t n = (size_t)w * (size_t)c, filtered_len = (size_t)h * (n + 1);

    /* The chunks: CRCs, the IDATs (one run of them), IEND last. */
    uint32_t *lens = NULL;
    const uint8_t *first = NULL;
    size_t idat_len = 0, pos = 8, cap = 0;
    int idats = 0, in_run = 0, ended = 0, palettes = 0;
    gpuimg__png_chunk chunk;
    while (!ended && gpuimg__png_next(data, size, &pos, &chunk)) {
        uint32_t len = chunk.len;
        const uint8_t *type = chunk.type;
        if (!letters(type) ||
            libdeflate_crc32(0, type, (size_t)len + 4) != gpuimg__be32(type + 4 + len))
            break;
        int is_idat = memcmp(type, "IDAT", 4) == 0;
        if (is_idat) {
            if (idats && !in_run)
                break; /* IDATs apart: libpng refuses that */
            if ((size_t)idats == cap) {
                cap = cap ? 2 * cap : 64;
                uint32_t *more = realloc(lens, cap * sizeof *lens);
                if (!more)
                    break;
                lens = more;
            }
            first = idats ? first : type + 4;
            lens[idats++] = len;
            idat_len += len;
        } else if (memcmp(type, "IEND", 4) == 0) {
            ended = 1;
        } else if (type == data + 12) {
            /* IHDR, read above */
        } else if (memcmp(type, "tRNS", 4) == 0 || (type[0] & 0x20) == 0) {
            /* tRNS would become an alpha channel. A critical chunk other
             * than a colour image's suggested palette (PLTE before the
             * IDATs, 1 to 256 entries: libpng refuses an empty one, even
             * where it is only a hint), one libpng may not know or may
             * refuse, is libpng's to judge. */
            int palette_hint = memcmp(type, "PLTE", 4) == 0 && !idats && (ihdr[9] & 2) &&
                               len >= 3 && len <= 768 && len % 3 == 0 && palettes++ == 0;
            if (!palette_hint)
                break;
        }
        in_run = is_idat;
    }
    /* 0x78: deflate with a 32 KiB window. A smaller declared window is
     * libpng's to hold the stream to (libdeflate ignores it). */
    idat_stream st = {0};
    if (!(ended && idats && idat_len > 0 && first[0] == 0x78) ||
        !idat_join(&st, ctx->input_owned == data, first, lens, idats, idat_len)) {
        free(lens);
        return 0;
    }
    /* The stream inflates into the image's own buffer, a row per thread
     * above where the pixels will lie (unfilter). */
    gpuimg_pool *pool = gpuimg__ctx_pool(ctx);
    int threads = unfilter_threads(ctx, pool, n * h);
    size_t off = (size_t)threads * (n + 1), room = off + filtered_len;
    if (gpuimg__image_take_room(ctx, out, (int)w, (int)h, c, 8, room) != GPUIMG_OK) {
        idat_undo(&st, lens, idats);
        free(lens);
        return -1;
    }
    uint8_t *filtered = out->data + off;
    struct libdeflate_decompressor *d = libdeflate_alloc_decompressor();
    size_t used = 0, got = 0;
    int ok = d &&
             libdeflate_zlib_decompress_ex(d, st.data, idat_len, filtered, filtered_len, &used,
                                           &got) == LIBDEFLATE_SUCCESS &&
             used == idat_len && got == filtered_len;
    libdeflate_free_decompressor(d);
    /* Every row's filter type checked before the file's bytes may go: from
     * here on nothing falls back to libpng, which would read them. */
    for (uint32_t y = 0; ok && y < h; y++)
        ok = filtered[(size_t)y * (n + 1)] <= PAETH;
    if (!ok) {
        gpuimg_image_free(out);
        idat_undo(&st, lens, idats); /* the file as it was, for libpng */
        free(lens);
        return 0;
    }
    idat_done(&st, idat_len);
    free(lens);
    gpuimg__input_release(ctx, data); /* the file's bytes, when they are ours: a lower peak */
    if (!unfilter(pool, threads, out->data, off, out)) { /* out of memory only */
        gpuimg_image_free(out);
        return -1;
    }
    return 1;
}
