/* SPDX-License-Identifier: MIT */
/* Host pixel buffers (host_buffers.h): a set of idle buffers under a lock.
 *
 * Why reuse at all: glibc serves anything over 32 MiB (a 4000x3000 RGB
 * image is 36 MB) with fresh pages from the kernel, zeroed and faulted in
 * one 4 KiB page at a time on first touch; in a batch of such images that
 * was a third of all CPU time. Why pin: a pageable buffer crosses PCIe
 * through the driver's own staging in small pieces, at a fraction of the
 * link's rate, and pinning costs about as much as a copy, so it is paid
 * once per buffer, not per image. */
#include <pthread.h>
#include <stdlib.h>

#include "core/big_alloc.h"
#include "core/host_buffers.h"

/* Idle buffers kept at most: as many, and as many bytes. A batch's gate
 * holds fewer images than this in flight, so its steady state allocates
 * nothing; a context used for one image keeps its two. */
#define KEEP_BUFFERS 8
#define KEEP_BYTES ((size_t)1 << 30)
#define PAGE 4096

struct gpuimg_buffer {
    gpuimg_host_buffers *set;
    uint8_t *data;
    size_t bytes;                        /* capacity, a whole number of pages */
    const gpuimg_backend_ops *pinned_by; /* NULL: pageable */
    int busy;                            /* being pinned on another thread */
    struct gpuimg_buffer *next;          /* in the idle list */
};

struct gpuimg_host_buffers {
    pthread_mutex_t lock;
    int refs;     /* the owner's, and one per buffer out of the list */
    int released; /* by the owner: buffers given back are freed */
    const gpuimg_backend_ops *pinner;
    struct gpuimg_buffer *idle;
    int nidle;
    size_t idle_bytes;
};

gpuimg_host_buffers *gpuimg__host_buffers_create(void)
{
    gpuimg_host_buffers *hb = calloc(1, sizeof *hb);
    if (!hb)
        return NULL;
    pthread_mutex_init(&hb->lock, NULL);
    hb->refs = 1;
    return hb;
}

static void destroy_buffer(struct gpuimg_buffer *buf)
{
    if (buf->pinned_by)
        buf->pinned_by->host_unregister(buf->data);
    gpuimg__big_free(buf->data, buf->bytes);
    free(buf);
}

/* Drops one reference (under the lock); 1 when it was the last. */
static int unref(gpuimg_host_buffers *hb)
{
    return --hb->refs == 0;
}

static void destroy_set(gpuimg_host_buffers *hb)
{
    pthread_mutex_destroy(&hb->lock);
    free(hb);
}

void gpuimg__host_buffers_release(gpuimg_host_buffers *hb)
{
    if (!hb)
        return;
    pthread_mutex_lock(&hb->lock);
    struct gpuimg_buffer *idle = hb->idle;
    hb->idle = NULL;
    hb->nidle = 0;
    hb->idle_bytes = 0;
    hb->released = 1;
    int last = unref(hb);
    pthread_mutex_unlock(&hb->lock);
    while (idle) { /* the owner joined its opener: none is busy */
        struct gpuimg_buffer *next = idle->next;
        destroy_buffer(idle);
        idle = next;
    }
    if (last)
        destroy_set(hb);
}

void gpuimg__host_buffers_pin_with(gpuimg_host_buffers *hb, const gpuimg_backend_ops *ops)
{
    if (!hb || !ops->host_register)
        return;
    pthread_mutex_lock(&hb->lock);
    if (!hb->pinner)
        hb->pinner = ops;
    pthread_mutex_unlock(&hb->lock);
}

static void pin(struct gpuimg_buffer *buf, const gpuimg_backend_ops *ops)
{
    if (ops && ops->host_register && !buf->pinned_by &&
        ops->host_register(buf->data, buf->bytes) == GPUIMG_OK)
        buf->pinned_by = ops;
}

static struct gpuimg_buffer *make_buffer(gpuimg_host_buffers *hb, size_t bytes)
{
    size_t pages = bytes / PAGE + (bytes % PAGE != 0);
    if (pages == 0 || pages > SIZE_MAX / PAGE)
        return NULL;
    struct gpuimg_buffer *buf = calloc(1, sizeof *buf);
    /* Whole pages, page-aligned: pinning works on pages, and a buffer
     * shares none with other memory that could be freed under it. */
    if (buf && !(buf->data = gpuimg__big_alloc(pages * PAGE, PAGE))) {
        free(buf);
        return NULL;
    }
    if (buf) {
        buf->set = hb;
        buf->bytes = pages * PAGE;
    }
    return buf;
}

/* The idle buffer that fits best, at most a quarter too large, unlinked
 * (under the lock). */
static struct gpuimg_buffer *unlink_fit(gpuimg_host_buffers *hb, size_t bytes)
{
    struct gpuimg_buffer **best = NULL;
    for (struct gpuimg_buffer **p = &hb->idle; *p; p = &(*p)->next)
        if ((*p)->bytes >= bytes && (*p)->bytes - bytes <= bytes / 4 &&
            (!best || (*p)->bytes < (*best)->bytes))
            best = p;
    if (!best)
        return NULL;
    struct gpuimg_buffer *buf = *best;
    *best = buf->next;
    buf->next = NULL;
    hb->nidle--;
    hb->idle_bytes -= buf->bytes;
    return buf;
}

struct gpuimg_buffer *gpuimg__buffer_take(gpuimg_host_buffers *hb, size_t bytes)
{
    pthread_mutex_lock(&hb->lock);
    struct gpuimg_buffer *buf = unlink_fit(hb, bytes);
    const gpuimg_backend_ops *pinner = hb->pinner;
    hb->refs++;
    pthread_mutex_unlock(&hb->lock);
    if (!buf && !(buf = make_buffer(hb, bytes))) {
        pthread_mutex_lock(&hb->lock);
        hb->refs--; /* never the last: the owner, who takes, holds one */
        pthread_mutex_unlock(&hb->lock);
        return NULL;
    }
    if (!buf->busy)
        pin(buf, pinner);
    return buf;
}

void gpuimg__buffer_pin(struct gpuimg_buffer *buf)
{
    pthread_mutex_lock(&buf->set->lock);
    const gpuimg_backend_ops *pinner = buf->set->pinner;
    int busy = buf->busy;
    pthread_mutex_unlock(&buf->set->lock);
    if (!busy)
        pin(buf, pinner);
}

static void give(struct gpuimg_buffer *buf, int keep)
{
    if (!buf)
        return;
    gpuimg_host_buffers *hb = buf->set;
    struct gpuimg_buffer *drop = NULL; /* a list, destroyed outside the lock */
    pthread_mutex_lock(&hb->lock);
    if (hb->released || (!keep && !buf->busy)) {
        buf->next = drop;
        drop = buf;
    } else {
        buf->next = hb->idle;
        hb->idle = buf;
        hb->nidle++;
        hb->idle_bytes += buf->bytes;
    }
    /* Over the limits, the oldest idle buffers go (the newest one's size is
     * the likeliest to come again); a busy one stays: its pinner uses it. */
    while (hb->nidle > KEEP_BUFFERS || hb->idle_bytes > KEEP_BYTES) {
        struct gpuimg_buffer **oldest = NULL;
        for (struct gpuimg_buffer **p = &hb->idle; *p; p = &(*p)->next)
            if (!(*p)->busy && *p != buf)
                oldest = p;
        if (!oldest)
            break;
        struct gpuimg_buffer *old = *oldest;
        *oldest = old->next;
        hb->nidle--;
        hb->idle_bytes -= old->bytes;
        old->next = drop;
        drop = old;
    }
    int last = unref(hb);
    pthread_mutex_unlock(&hb->lock);
    while (drop) {
        struct gpuimg_buffer *next = drop->next;
        destroy_buffer(drop);
        drop = next;
    }
    if (last)
        destroy_set(hb);
}

void gpuimg__buffer_give(struct gpuimg_buffer *buf)
{
    give(buf, 1);
}

void gpuimg__buffer_discard(struct gpuimg_buffer *buf)
{
    give(buf, 0);
}

uint8_t *gpuimg__buffer_data(const struct gpuimg_buffer *buf)
{
    return buf->data;
}

struct gpuimg_buffer *gpuimg__buffer_prepare(gpuimg_host_buffers *hb, size_t bytes)
{
    struct gpuimg_buffer *buf = make_buffer(hb, bytes);
    if (!buf)
        return NULL;
    buf->busy = 1;
    pthread_mutex_lock(&hb->lock);
    buf->next = hb->idle;
    hb->idle = buf;
    hb->nidle++;
    hb->idle_bytes += buf->bytes;
    pthread_mutex_unlock(&hb->lock);
    return buf;
}

void gpuimg__buffer_pin_now(struct gpuimg_buffer *buf, const gpuimg_backend_ops *ops)
{
    /* busy keeps every other thread from pinning or freeing it meanwhile;
     * pinned_by is read by others only once busy is clear, under the lock. */
    pin(buf, ops);
    pthread_mutex_lock(&buf->set->lock);
    buf->busy = 0;
    pthread_mutex_unlock(&buf->set->lock);
}
