/* SPDX-License-Identifier: MIT */
/* A pair's two images decoded at once (same_file.h): with few pairs (one
 * 8K pair) the cores would otherwise wait on one image's inflate, which
 * no thread can share. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "compare/same_file.h"
#include "core/pool.h"
#include "io/io.h"

/* Below this many decoded bytes an image is decoded before the other: a
 * thread and a context cost more than they save. */
#define BOTH_AT_ONCE_BYTES ((uint64_t)4 << 20)

/* B's warnings, held until A has loaded. */
typedef struct held {
    char **text;
    int n, lost; /* lost: out of memory, said as one line */
} held;

static void hold(void *user, const char *message)
{
    held *h = user;
    char **more = realloc(h->text, (size_t)(h->n + 1) * sizeof *more);
    char *copy = strdup(message);
    if (more)
        h->text = more;
    if (!more || !copy) {
        free(copy);
        h->lost = 1;
        return;
    }
    h->text[h->n++] = copy;
}

typedef struct side {
    gpuimg_ctx *ctx;
    uint8_t *data;
    size_t size;
    const char *name;
    gpuimg_image *img;
    gpuimg_status st;
} side;

static void *decode_side(void *arg)
{
    side *s = arg;
    s->st = gpuimg__load_owned(s->ctx, s->data, s->size, s->name, s->img);
    return NULL;
}

gpuimg_status gpuimg__load_both(gpuimg_ctx *ctx, uint8_t *da, size_t na, const char *name_a,
                                gpuimg_image *ia, uint8_t *db, size_t nb, const char *name_b,
                                gpuimg_image *ib)
{
    memset(ib, 0, sizeof *ib);
    gpuimg_ctx *bctx = NULL;
    held h = {0};
    if (gpuimg__thread_count(ctx->cfg.threads) > 1 &&
        gpuimg__decoded_bytes(ctx, da, na) >= BOTH_AT_ONCE_BYTES &&
        gpuimg__decoded_bytes(ctx, db, nb) >= BOTH_AT_ONCE_BYTES) {
        gpuimg_config cfg = ctx->cfg;
        cfg.warn = cfg.warn ? hold : NULL;
        cfg.warn_user = &h;
        gpuimg__ctx_share share = {gpuimg__ctx_pool(ctx), gpuimg__ctx_buffers(ctx),
                                   ctx->depth_warned};
        if (gpuimg__ctx_worker(&cfg, cfg.backend, cfg.device, &share, &bctx) != GPUIMG_OK)
            bctx = NULL;
        else
            bctx->reuse_memory = ctx->reuse_memory;
    }
    /* each image on half the threads: more, and a row's thread would wait
     * for a row above whose thread lost its core to the other image */
    int file_threads = ctx->file_threads, half = gpuimg__thread_count(ctx->cfg.threads) / 2;
    if (bctx)
        bctx->file_threads = half;
    side b = {bctx, db, nb, name_b, ib, GPUIMG_OK};
    pthread_t thread;
    int apart = bctx && pthread_create(&thread, NULL, decode_side, &b) == 0;
    if (apart)
        ctx->file_threads = half;
    if (!apart) { /* one after the other, here */
        gpuimg_ctx_destroy(bctx);
        gpuimg_status st = gpuimg__load_owned(ctx, da, na, name_a, ia);
        if (st != GPUIMG_OK) {
            free(db);
            return st;
        }
        return gpuimg__load_owned(ctx, db, nb, name_b, ib);
    }
    gpuimg_status st = gpuimg__load_owned(ctx, da, na, name_a, ia);
    ctx->file_threads = file_threads;
    pthread_join(thread, NULL);
    ctx->stage_ms[GPUIMG_STAGE_DECODE] += bctx->stage_ms[GPUIMG_STAGE_DECODE];
    if (st == GPUIMG_OK) {
        for (int i = 0; i < h.n; i++)
            ctx->cfg.warn(ctx->cfg.warn_user, h.text[i]);
        if (h.lost)
            gpuimg__warn(ctx, "%s: some warnings lost (out of memory)", name_b);
        if ((st = b.st) != GPUIMG_OK)
            memcpy(ctx->error, bctx->error, sizeof ctx->error);
    }
    if (st != GPUIMG_OK) {
        gpuimg_image_free(ia);
        gpuimg_image_free(ib);
    }
    for (int i = 0; i < h.n; i++)
        free(h.text[i]);
    free(h.text);
    gpuimg_ctx_destroy(bctx);
    return st;
}
