/* SPDX-License-Identifier: MIT */
/* PNG reading, fast path: the common PNG (8 bits per channel, gray, gray +
 * alpha, RGB or RGBA, not interlaced, no tRNS) read without libpng.
 *
 * libpng inflates with zlib and unfilters one row after another on one
 * core. Here:
 *  - every chunk's CRC is checked (libdeflate's CRC-32, folded with
 *    carry-less multiplies), and the IDATs' data gathered into one buffer;
 *  - libdeflate inflates it in one call (about twice zlib's speed, since it
 *    sees the whole input and output at once), checking the Adler-32 and
 *    that the data is exactly one filter byte plus one row per row;
 *  - the rows are unfiltered by every thread of the pool at once, as a
 *    wavefront: a thread claims the next row, and walks it in spans of
 *    SPAN bytes, each started only once the row above has finished the
 *    same span (Up, Average and Paeth read the row above at x and x - bpp).
 *    Claiming rows in order means the row a thread waits for is always
 *    held by a thread that is running, so any number of threads, from one,
 *    finishes; and None and Sub rows do not wait at all.
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
    const uint8_t *filtered; /* h rows of 1 + n bytes */
    uint8_t *out;            /* h rows of n bytes */
    size_t n;
    int h, bpp;
    atomic_int next_row;
    atomic_int bad;      /* a filter type over 4 */
    atomic_size_t *done; /* bytes of each row unfiltered so far */
} unfilter_job;

typedef struct unfilter_piece {
    gpuimg_task task;
    unfilter_job *job;
} unfilter_piece;

/* The filter types. The first row's "row above" is all zeros (up NULL). */
enum { NONE, SUB, UP, AVERAGE, PAETH };

/* Bytes [i0, i1) of one row, both multiples of bpp; up is the row above
 * (NULL for the first, whose row above is all zeros). bpp is a constant at
 * every call site, so each loop compiles for its pixel size. Sub, Average
 * and Paeth depend on the pixel to the left, a chain no SIMD can break, so
 * their loops go a pixel at a time with the left (a) and upper-left (c)
 * pixels in registers, one independent chain per channel: reading them back
 * from the row would put a store-to-load forward (about 5 cycles) on every
 * link. Paeth is branchless: its choice is a coin toss on a photograph. */
static inline __attribute__((always_inline)) void unfilter_span(int type, const uint8_t *f,
                                                                uint8_t *r, const uint8_t *up,
                                                                size_t i0, size_t i1, const int bpp)
{
    int a[4] = {0, 0, 0, 0}, c[4] = {0, 0, 0, 0};
    /* Only a Paeth row reads the row above's upper-left: a None or Sub row
     * does not wait for the row above, which may still be being written. */
    for (int k = 0; k < bpp && i0 > 0; k++) {
        a[k] = r[i0 - bpp + k];
        c[k] = up && type == PAETH ? up[i0 - bpp + k] : 0;
    }
    if (type == NONE || (!up && type == UP)) {
        memcpy(r + i0, f + i0, i1 - i0);
    } else if (type == UP) {
        for (size_t i = i0; i < i1; i++)
            r[i] = (uint8_t)(f[i] + up[i]);
    } else if (type == SUB || (!up && type == PAETH)) { /* Paeth of a, 0, 0 is a */
        for (size_t i = i0; i < i1; i += bpp)
            for (int k = 0; k < bpp; k++)
                r[i + k] = (uint8_t)(a[k] = (uint8_t)(f[i + k] + a[k]));
    } else if (!up) { /* Average of the first row */
        for (size_t i = i0; i < i1; i += bpp)
            for (int k = 0; k < bpp; k++)
                r[i + k] = (uint8_t)(a[k] = (uint8_t)(f[i + k] + (a[k] >> 1)));
    } else if (type == AVERAGE) {
        for (size_t i = i0; i < i1; i += bpp)
            for (int k = 0; k < bpp; k++)
                r[i + k] = (uint8_t)(a[k] = (uint8_t)(f[i + k] + ((a[k] + up[i + k]) >> 1)));
    } else { /* Paeth: p = a + b - c; whichever of a, b, c is nearest p, in that order */
        for (size_t i = i0; i < i1; i += bpp)
            for (int k = 0; k < bpp; k++) {
                int b = up[i + k];
                int pa = abs(b - c[k]), pb = abs(a[k] - c[k]), pc = abs(a[k] + b - 2 * c[k]);
                int pred = pb <= pc ? b : c[k];
                pred = pa <= pb && pa <= pc ? a[k] : pred;
                r[i + k] = (uint8_t)(a[k] = (uint8_t)(f[i + k] + pred));
                c[k] = b;
            }
    }
}

static void wait_for(atomic_size_t *done, size_t want)
{
    for (unsigned spins = 0; atomic_load_explicit(done, memory_order_acquire) < want; spins++)
        if (spins > 64) /* the row above's thread may have lost its core */
            sched_yield();
}

static void unfilter_rows(gpuimg_task *task)
{
    unfilter_job *j = ((unfilter_piece *)task)->job;
    size_t n = j->n;
    for (;;) {
        int y = atomic_fetch_add(&j->next_row, 1);
        if (y >= j->h)
            break;
        const uint8_t *f = j->filtered + (size_t)y * (n + 1);
        uint8_t *r = j->out + (size_t)y * n;
        const uint8_t *up = y ? r - n : NULL; /* the first row's is all zeros */
        int type = f[0];
        f++;
        if (type > PAETH) {
            atomic_store(&j->bad, 1);
            type = NONE; /* still finish the row: the rows below wait on it */
        }
        int waits = y > 0 && (type == UP || type == AVERAGE || type == PAETH);
        size_t span = SPAN - SPAN % (size_t)j->bpp; /* whole pixels */
        for (size_t i0 = 0; i0 < n; i0 += span) {
            size_t i1 = i0 + span < n ? i0 + span : n;
            if (waits)
                wait_for(&j->done[y - 1], i1);
            switch (j->bpp) {
            case 1: unfilter_span(type, f, r, up, i0, i1, 1); break;
            case 2: unfilter_span(type, f, r, up, i0, i1, 2); break;
            case 3: unfilter_span(type, f, r, up, i0, i1, 3); break;
            default: unfilter_span(type, f, r, up, i0, i1, 4); break;
            }
            atomic_store_explicit(&j->done[y], i1, memory_order_release);
        }
    }
}

/* Unfilters on every thread of the pool (the caller's included). */
static int unfilter(gpuimg_pool *pool, const uint8_t *filtered, gpuimg_image *img)
{
    unfilter_job j = {.filtered = filtered,
                      .out = img->data,
                      .n = (size_t)img->width * (size_t)img->channels,
                      .h = img->height,
                      .bpp = img->channels};
    atomic_init(&j.next_row, 0);
    atomic_init(&j.bad, 0);
    j.done = malloc((size_t)img->height * sizeof *j.done);
    int threads = gpuimg__pool_workers(pool) + 1;
    if (j.n * (size_t)j.h < PARALLEL_BYTES)
        threads = 1;
    unfilter_piece *pieces = malloc((size_t)threads * sizeof *pieces);
    if (!j.done || !pieces) {
        free(j.done);
        free(pieces);
        return 0;
    }
    for (int y = 0; y < img->height; y++)
        atomic_init(&j.done[y], 0);
    if (threads == 1)
        pool = NULL; /* runs at once, here */
    for (int i = 0; i < threads; i++) {
        pieces[i] = (unfilter_piece){.task.run = unfilter_rows, .job = &j};
        gpuimg__pool_piece(pool, &pieces[i].task);
    }
    for (int i = 0; i < threads; i++)
        gpuimg__pool_wait(pool, &pieces[i].task);
    free(pieces);
    free(j.done);
    return !atomic_load(&j.bad);
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
    uint8_t *idat = malloc(size);
    size_t idat_len = 0, pos = 8;
    int idats = 0, in_run = 0, ended = 0, palettes = 0;
    gpuimg__png_chunk chunk;
    while (idat && !ended && gpuimg__png_next(data, size, &pos, &chunk)) {
        uint32_t len = chunk.len;
        const uint8_t *type = chunk.type;
        if (!letters(type) ||
            libdeflate_crc32(0, type, (size_t)len + 4) != gpuimg__be32(type + 4 + len))
            break;
        int is_idat = memcmp(type, "IDAT", 4) == 0;
        if (is_idat) {
            if (idats && !in_run)
                break; /* IDATs apart: libpng refuses that */
            memcpy(idat + idat_len, type + 4, len);
            idat_len += len;
            idats++;
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
    uint8_t *filtered =
        ended && idats && idat_len > 0 && idat[0] == 0x78 ? malloc(filtered_len) : NULL;
    int ok = 0;
    if (filtered) {
        struct libdeflate_decompressor *d = libdeflate_alloc_decompressor();
        size_t used = 0, got = 0;
        ok = d &&
             libdeflate_zlib_decompress_ex(d, idat, idat_len, filtered, filtered_len, &used,
                                           &got) == LIBDEFLATE_SUCCESS &&
             used == idat_len && got == filtered_len;
        libdeflate_free_decompressor(d);
    }
    free(idat);
    /* Every row's filter type checked before the file's bytes may go: from
     * here on nothing falls back to libpng, which would read them. */
    for (uint32_t y = 0; ok && y < h; y++)
        ok = filtered[(size_t)y * (n + 1)] <= PAETH;
    if (!ok) {
        free(filtered);
        return 0;
    }
    gpuimg__input_release(ctx, data); /* the file's bytes, when they are ours: a lower peak */
    if (gpuimg__image_take(ctx, out, (int)w, (int)h, c) != GPUIMG_OK) {
        free(filtered);
        return -1;
    }
    if (!unfilter(gpuimg__ctx_pool(ctx), filtered, out)) { /* out of memory only */
        gpuimg_image_free(out);
        free(filtered);
        return -1;
    }
    free(filtered);
    return 1;
}
