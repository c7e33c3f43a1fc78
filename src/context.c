/* SPDX-License-Identifier: MIT */
/* The context: configuration, lazy backend start, error details, timings. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "internal.h"
#include "ops.h"
#include "pool.h"

/* A backend being opened on another thread (gpuimg_ctx_expect). The thread
 * writes only here; the context adopts the result on its own thread. */
struct backend_opener {
    pthread_t thread;
    const gpuimg_backend_ops *ops;
    int device;
    gpuimg_backend *backend;
    gpuimg_status st;
    double ms;
    char msg[256];
};

static void *open_in_background(void *arg)
{
    struct backend_opener *o = arg;
    double t0 = gpuimg__now_ms();
    o->st = o->ops->open(&o->backend, o->device, o->msg, sizeof o->msg);
    o->ms = gpuimg__now_ms() - t0;
    return NULL;
}

static void join_opener(gpuimg_ctx *ctx, struct backend_opener **result)
{
    *result = ctx->opener;
    if (ctx->opener)
        pthread_join(ctx->opener->thread, NULL);
    ctx->opener = NULL;
}

const char *gpuimg_strerror(gpuimg_status st)
{
    switch (st) {
    case GPUIMG_OK: return "success";
    case GPUIMG_ERR_USAGE: return "invalid argument";
    case GPUIMG_ERR_FORMAT: return "unsupported output format";
    case GPUIMG_ERR_IO: return "input/output error";
    case GPUIMG_ERR_DECODE: return "not a supported image";
    case GPUIMG_ERR_TOO_LARGE: return "image too large";
    case GPUIMG_ERR_NOMEM: return "out of memory";
    case GPUIMG_ERR_NO_DEVICE: return "no usable device";
    case GPUIMG_ERR_DEVICE: return "device error";
    case GPUIMG_ERR_INTERNAL: return "internal error";
    }
    return "unknown status";
}

const char *gpuimg_stage_name(gpuimg_stage s)
{
    static const char *const names[GPUIMG_STAGE_COUNT] = {"init",    "decode",   "upload",
                                                          "kernels", "download", "encode"};
    return (unsigned)s < GPUIMG_STAGE_COUNT ? names[s] : "?";
}

void gpuimg_config_init(gpuimg_config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->backend = "auto";
    cfg->png_level = 6;
    cfg->jpeg_quality = 90;
    cfg->max_pixels = GPUIMG_DEFAULT_MAX_PIXELS;
}

gpuimg_status gpuimg_ctx_create(const gpuimg_config *cfg, gpuimg_ctx **out)
{
    *out = NULL;
    gpuimg_config c;
    if (cfg)
        c = *cfg;
    else
        gpuimg_config_init(&c);
    if (!c.backend)
        c.backend = "auto";
    if (strcmp(c.backend, "auto") != 0 && !gpuimg__backend_by_name(c.backend))
        return GPUIMG_ERR_USAGE;
    if (c.png_level < 0 || c.png_level > 9 || c.jpeg_quality < 1 || c.jpeg_quality > 100 ||
        c.threads < 0 || c.device < 0)
        return GPUIMG_ERR_USAGE;
    if (c.max_pixels == 0)
        c.max_pixels = GPUIMG_DEFAULT_MAX_PIXELS;
    gpuimg_ctx *ctx = calloc(1, sizeof *ctx);
    if (!ctx)
        return GPUIMG_ERR_NOMEM;
    ctx->cfg = c;
    ctx->split_files = 1;
    *out = ctx;
    return GPUIMG_OK;
}

void gpuimg_ctx_destroy(gpuimg_ctx *ctx)
{
    if (!ctx)
        return;
    struct backend_opener *o;
    join_opener(ctx, &o);
    if (o && o->st == GPUIMG_OK)
        o->ops->close(o->backend);
    free(o);
    if (ctx->backend)
        ctx->backend->ops->close(ctx->backend);
    if (ctx->own_pool)
        gpuimg__pool_destroy(ctx->pool);
    free(ctx);
}

gpuimg_pool *gpuimg__ctx_pool(gpuimg_ctx *ctx)
{
    if (!ctx->pool) {
        /* The calling thread works too while it waits: one fewer worker. */
        ctx->pool = gpuimg__pool_create(gpuimg__thread_count(ctx->cfg.threads) - 1);
        ctx->own_pool = ctx->pool != NULL;
    }
    return ctx->pool;
}

const char *gpuimg_ctx_error(const gpuimg_ctx *ctx)
{
    return ctx->error;
}

void gpuimg_ctx_timings(const gpuimg_ctx *ctx, double ms[GPUIMG_STAGE_COUNT])
{
    memcpy(ms, ctx->stage_ms, sizeof ctx->stage_ms);
}

void gpuimg_escape_controls(const char *text, char *out, size_t cap)
{
    size_t j = 0;
    for (const unsigned char *p = (const unsigned char *)text; cap > 0 && *p; p++) {
        char esc[8];
        if (*p >= 0x20 && *p != 0x7f)
            snprintf(esc, sizeof esc, "%c", *p);
        else if (*p == '\n' || *p == '\r' || *p == '\t')
            snprintf(esc, sizeof esc, "\\%c", *p == '\n' ? 'n' : *p == '\r' ? 'r' : 't');
        else
            snprintf(esc, sizeof esc, "\\x%02x", *p);
        size_t k = strlen(esc);
        if (j + k >= cap)
            break;
        memcpy(out + j, esc, k);
        j += k;
    }
    if (cap > 0)
        out[j] = '\0';
}

gpuimg_status gpuimg__fail(gpuimg_ctx *ctx, gpuimg_status st, const char *fmt, ...)
{
    char text[sizeof ctx->error];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    gpuimg_escape_controls(text, ctx->error, sizeof ctx->error);
    return st;
}

void gpuimg__warn(gpuimg_ctx *ctx, const char *fmt, ...)
{
    if (!ctx->cfg.warn)
        return;
    char text[512], line[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    gpuimg_escape_controls(text, line, sizeof line);
    ctx->cfg.warn(ctx->cfg.warn_user, line);
}

double gpuimg__now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

gpuimg_status gpuimg__backend_fail(gpuimg_ctx *ctx, gpuimg_status st, const char *what)
{
    const char *detail = ctx->backend ? ctx->backend->message : "";
    if (detail[0])
        return gpuimg__fail(ctx, st, "%s: %s", what, detail);
    return gpuimg__fail(ctx, st, "%s: %s", what, gpuimg_strerror(st));
}

/* A backend's opening, here or on the opener's thread, made the context's. */
static gpuimg_status adopt(gpuimg_ctx *ctx, const gpuimg_backend_ops *ops, gpuimg_status st,
                           gpuimg_backend *be, double ms, const char *msg)
{
    ctx->stage_ms[GPUIMG_STAGE_INIT] += ms;
    ctx->backend = st == GPUIMG_OK ? be : NULL;
    if (st != GPUIMG_OK)
        return gpuimg__fail(ctx, st, "%s backend: %s", ops->name,
                            msg[0] ? msg : gpuimg_strerror(st));
    return GPUIMG_OK;
}

static gpuimg_status open_backend(gpuimg_ctx *ctx, const gpuimg_backend_ops *ops)
{
    struct backend_opener *o;
    join_opener(ctx, &o);
    if (o && o->ops == ops) { /* opened while the image decoded */
        gpuimg_status st = adopt(ctx, ops, o->st, o->backend, o->ms, o->msg);
        free(o);
        return st;
    }
    if (o && o->st == GPUIMG_OK)
        o->ops->close(o->backend);
    free(o);
    char msg[256] = "";
    gpuimg_backend *be = NULL;
    double t0 = gpuimg__now_ms();
    gpuimg_status st = ops->open(&be, ctx->cfg.device, msg, sizeof msg);
    return adopt(ctx, ops, st, be, gpuimg__now_ms() - t0, msg);
}

gpuimg_status gpuimg_ctx_expect(gpuimg_ctx *ctx, gpuimg_step *const *steps, int nsteps)
{
    for (int i = 0; i < nsteps; i++) {
        gpuimg_status st = gpuimg_step_finish(ctx, steps[i]);
        if (st != GPUIMG_OK)
            return st;
    }
    ctx->expect_ns = gpuimg__steps_cpu_ns(steps, nsteps); /* as gpuimg_run estimates it */
    return GPUIMG_OK;
}

void gpuimg__header_read(gpuimg_ctx *ctx, uint64_t width, uint64_t height)
{
    if (ctx->expect_ns <= 0 || ctx->backend || ctx->opener)
        return;
    const char *want = ctx->cfg.backend;
    /* One channel: gpuimg_run will count the real ones, never fewer, so
     * "auto" then takes the device this started. */
    int device = strcmp(want, "cuda") == 0 ||
                 (strcmp(want, "auto") == 0 &&
                  (double)width * (double)height * ctx->expect_ns >= GPUIMG_AUTO_CPU_NS);
    ctx->expect_ns = 0; /* once: for the next image only */
    struct backend_opener *o = device ? calloc(1, sizeof *o) : NULL;
    if (!o)
        return; /* then it opens when first needed, as without expect */
    o->ops = gpuimg__cuda_backend();
    o->device = ctx->cfg.device;
    if (pthread_create(&o->thread, NULL, open_in_background, o) != 0) {
        free(o);
        return;
    }
    ctx->opener = o;
}

gpuimg_status gpuimg__backend(gpuimg_ctx *ctx, gpuimg_backend **out)
{
    if (!ctx->backend) {
        const char *want = ctx->cfg.backend;
        if (strcmp(want, "auto") != 0) {
            gpuimg_status st = open_backend(ctx, gpuimg__backend_by_name(want));
            if (st != GPUIMG_OK)
                return st;
        } else {
            gpuimg_status st = open_backend(ctx, gpuimg__cuda_backend());
            if (st != GPUIMG_OK) {
                gpuimg__warn(ctx, "%s; using the CPU backend", ctx->error);
                st = open_backend(ctx, &gpuimg__cpu_backend);
                if (st != GPUIMG_OK)
                    return st;
            }
        }
    }
    *out = ctx->backend;
    return GPUIMG_OK;
}

gpuimg_status gpuimg__backend_for(gpuimg_ctx *ctx, double cpu_ns, gpuimg_backend **out)
{
    if (!ctx->backend && strcmp(ctx->cfg.backend, "auto") == 0 && cpu_ns < GPUIMG_AUTO_CPU_NS) {
        gpuimg_status st = open_backend(ctx, &gpuimg__cpu_backend);
        if (st != GPUIMG_OK)
            return st;
    }
    return gpuimg__backend(ctx, out);
}

gpuimg_status gpuimg_ctx_backend(gpuimg_ctx *ctx, const char **name)
{
    gpuimg_backend *be;
    gpuimg_status st = gpuimg__backend(ctx, &be);
    *name = st == GPUIMG_OK ? be->ops->name : NULL;
    return st;
}

const gpuimg_backend_ops *gpuimg__backend_by_name(const char *name)
{
    if (strcmp(name, "cpu") == 0)
        return &gpuimg__cpu_backend;
    if (strcmp(name, "cuda") == 0)
        return gpuimg__cuda_backend();
    return NULL;
}

gpuimg_status gpuimg_backend_probe(const char *name, int device, char *text, size_t len)
{
    const gpuimg_backend_ops *ops = gpuimg__backend_by_name(name);
    if (!ops) {
        snprintf(text, len, "unknown backend '%s'", name);
        return GPUIMG_ERR_USAGE;
    }
    gpuimg_backend *be = NULL;
    text[0] = '\0';
    gpuimg_status st = ops->open(&be, device, text, len);
    if (st != GPUIMG_OK)
        return st;
    if (ops->describe)
        ops->describe(be, text, len);
    ops->close(be);
    return GPUIMG_OK;
}
