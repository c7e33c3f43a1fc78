/* SPDX-License-Identifier: MIT */
/* The host image: allocation with overflow checks, channel widening.
 *
 * Large pixel buffers are recycled. glibc serves anything over 32 MiB (a
 * 4000x3000 RGB image is 36 MB) with fresh pages from the kernel, which it
 * zeroes and faults in one 4 KiB page at a time on first touch: in a batch
 * of such images that was a third of all CPU time, spent in the kernel. A
 * freed buffer of SPARE_MIN bytes or more waits in a small shelf for the
 * next image of exactly its size (a batch's images mostly are), already
 * mapped; it is cleared as calloc's would be. The shelf is open only while
 * a batch runs, holds at most SPARE_BYTES, and is emptied when the last
 * batch ends, so a program's memory outside batches is what it frees. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "image.h"
#include "internal.h"

size_t gpuimg__image_bytes(int width, int height, int channels)
{
    if (width <= 0 || height <= 0 || channels <= 0)
        return 0;
    size_t n = (size_t)width;
    if (n > SIZE_MAX / (size_t)height)
        return 0;
    n *= (size_t)height;
    if (n > SIZE_MAX / (size_t)channels)
        return 0;
    return n * (size_t)channels;
}

#define SPARE_MIN ((size_t)4 << 20)
#define SPARES 8
#define SPARE_BYTES ((size_t)1 << 30)

static pthread_mutex_t spare_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
    uint8_t *data;
    size_t bytes;
} spares[SPARES];
static size_t shelved;  /* bytes on the shelf */
static int shelf_users; /* batches running */

static uint8_t *take_spare(size_t bytes)
{
    uint8_t *p = NULL;
    pthread_mutex_lock(&spare_lock);
    for (int i = 0; i < SPARES && !p; i++)
        if (spares[i].data && spares[i].bytes == bytes) {
            p = spares[i].data;
            spares[i].data = NULL;
            shelved -= bytes;
        }
    pthread_mutex_unlock(&spare_lock);
    if (p)
        memset(p, 0, bytes);
    return p;
}

/* Shelves the buffer, displacing one when the shelf is full; frees it
 * instead when no batch runs or it would take the shelf over its bytes. */
static void shelve(uint8_t *p, size_t bytes)
{
    static unsigned next;
    uint8_t *drop = p;
    pthread_mutex_lock(&spare_lock);
    if (shelf_users > 0) {
        int slot = -1;
        for (int i = 0; i < SPARES && slot < 0; i++)
            if (!spares[i].data)
                slot = i;
        if (slot < 0)
            slot = (int)(next++ % SPARES);
        size_t after = shelved - (spares[slot].data ? spares[slot].bytes : 0) + bytes;
        if (after <= SPARE_BYTES) {
            drop = spares[slot].data;
            spares[slot].data = p;
            spares[slot].bytes = bytes;
            shelved = after;
        }
    }
    pthread_mutex_unlock(&spare_lock);
    free(drop);
}

void gpuimg__image_spares_open(void)
{
    pthread_mutex_lock(&spare_lock);
    shelf_users++;
    pthread_mutex_unlock(&spare_lock);
}

void gpuimg__image_spares_release(void)
{
    pthread_mutex_lock(&spare_lock);
    if (--shelf_users == 0) {
        for (int i = 0; i < SPARES; i++) {
            free(spares[i].data);
            spares[i].data = NULL;
        }
        shelved = 0;
    }
    pthread_mutex_unlock(&spare_lock);
}

gpuimg_status gpuimg_image_alloc(gpuimg_image *img, int width, int height, int channels)
{
    memset(img, 0, sizeof *img);
    if (channels < 1 || channels > 4)
        return GPUIMG_ERR_USAGE;
    size_t bytes = gpuimg__image_bytes(width, height, channels);
    if (bytes == 0)
        return GPUIMG_ERR_TOO_LARGE;
    img->data = bytes >= SPARE_MIN ? take_spare(bytes) : NULL;
    if (!img->data)
        img->data = calloc(bytes, 1);
    if (!img->data)
        return GPUIMG_ERR_NOMEM;
    img->width = width;
    img->height = height;
    img->channels = channels;
    return GPUIMG_OK;
}

void gpuimg_image_free(gpuimg_image *img)
{
    if (!img)
        return;
    size_t bytes = gpuimg__image_bytes(img->width, img->height, img->channels);
    if (img->data && bytes >= SPARE_MIN)
        shelve(img->data, bytes);
    else
        free(img->data);
    memset(img, 0, sizeof *img);
}

gpuimg_status gpuimg__image_widen(const gpuimg_image *src, int color, int alpha, gpuimg_image *dst)
{
    int src_color = src->channels >= 3, src_alpha = src->channels % 2 == 0;
    int out_c = (color ? 3 : 1) + (alpha ? 1 : 0);
    gpuimg_status st = gpuimg_image_alloc(dst, src->width, src->height, out_c);
    if (st != GPUIMG_OK)
        return st;
    size_t n = (size_t)src->width * (size_t)src->height;
    for (size_t i = 0; i < n; i++) {
        const uint8_t *s = src->data + i * (size_t)src->channels;
        uint8_t *d = dst->data + i * (size_t)out_c;
        for (int c = 0; c < (color ? 3 : 1); c++)
            d[c] = src_color ? s[c] : s[0];
        if (alpha)
            d[out_c - 1] = src_alpha ? s[src->channels - 1] : 255;
    }
    return GPUIMG_OK;
}

gpuimg_status gpuimg__check_size(gpuimg_ctx *ctx, const char *name, uint64_t width, uint64_t height)
{
    if (width == 0 || height == 0)
        return gpuimg__fail(ctx, GPUIMG_ERR_DECODE, "%s: not a supported image (zero size)", name);
    if (width > GPUIMG_MAX_SIDE || height > GPUIMG_MAX_SIDE)
        return gpuimg__fail(ctx, GPUIMG_ERR_TOO_LARGE,
                            "%s: image too large (%llux%llu; a side may be at most %d pixels)",
                            name, (unsigned long long)width, (unsigned long long)height,
                            GPUIMG_MAX_SIDE);
    if (width * height > ctx->cfg.max_pixels)
        return gpuimg__fail(ctx, GPUIMG_ERR_TOO_LARGE,
                            "%s: image too large (%llux%llu is over --max-pixels %llu)", name,
                            (unsigned long long)width, (unsigned long long)height,
                            (unsigned long long)ctx->cfg.max_pixels);
    gpuimg__header_read(ctx, width, height);
    return GPUIMG_OK;
}
