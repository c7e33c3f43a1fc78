/* SPDX-License-Identifier: MIT */
/* The context: configuration, lazy backend start, error details, timings. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/host_buffers.h"
#include "core/internal.h"
#include "core/pool.h"
#include "core/trace.h"
#include "core/utf8.h"

/* A backend being opened on another thread (gpuimg_ctx_expect). The thread
 * writes only here; the context adopts the result on its own thread. Beside
 * it, once the decoder knows the image's layout, a second thread pins the
 * buffer being decoded into and the one the download will fill: pinning
 * 100 MB costs tens of milliseconds (most of it faulting in the output's
 * fresh pages), which would otherwise land in upload and download. It does
 * not wait for the device to open: the runtime pins with or without it. */
#define OPENER_BUFFERS 2
struct backend_opener {
    pthread_t thread;
    const gpuimg_backend_ops *ops;
    int device;
    gpuimg_backend *backend;
    gpuimg_status st;
    double ms;
    char msg[256];
    pthread_t pin_thread;
    int pinning; /* pin_thread runs */
    struct gpuimg_buffer *pin[OPENER_BUFFERS];
};

static void *open_in_background(void *arg)
{
    struct backend_opener *o = arg;
    double t0 = gpuimg__now_ms();
    o->st = o->ops->open(&o->backend, o->device, o->msg, sizeof o->msg);
    o->ms = gpuimg__now_ms() - t0;
    return NULL;
}

static void *pin_in_background(void *arg)
{
    struct backend_opener *o = arg;
    for (int i = 0; i < OPENER_BUFFERS; i++)
        if (o->pin[i]) /* busy until this: nobody else pins or frees them */
            gpuimg__buffer_pin_now(o->pin[i], o->ops);
    return NULL;
}

void gpuimg__ctx_pin_beside(gpuimg_ctx *ctx, size_t in_bytes, size_t out_bytes)
{
    struct backend_opener *o = ctx->opener;
    gpuimg_host_buffers *hb = gpuimg__ctx_buffers(ctx);
    if (!o || !hb || o->pinning)
        return;
    size_t bytes[OPENER_BUFFERS] = {in_bytes, out_bytes};
    for (int i = 0; i < OPENER_BUFFERS; i++)
        o->pin[i] = bytes[i] ? gpuimg__buffer_prepare(hb, bytes[i]) : NULL;
    o->pinning = pthread_create(&o->pin_thread, NULL, pin_in_background, o) == 0;
    if (!o->pinning)
        pin_in_background(o); /* no thread: here, in the decode's time */
}

static void join_opener(gpuimg_ctx *ctx, struct backend_opener **result)
{
    *result = ctx->opener;
    if (ctx->opener) {
        pthread_join(ctx->opener->thread, NULL);
        if (ctx->opener->pinning)
            pthread_join(ctx->opener->pin_thread, NULL);
    }
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

const char *gpuimg_ctx_stage_name(const gpuimg_ctx *ctx, gpuimg_stage s)
{
    if (ctx->backend && ctx->backend->ops == &gpuimg__cpu_backend) {
        if (s == GPUIMG_STAGE_UPLOAD)
            return "deinterleave";
        if (s == GPUIMG_STAGE_DOWNLOAD)
            return "interleave";
    }
    return gpuimg_stage_name(s);
}

void gpuimg_config_init(gpuimg_config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->backend = GPUIMG_BACKEND_AUTO;
    cfg->png_level = 6;
    cfg->jpeg_quality = 90;
    cfg->max_pixels = GPUIMG_DEFAULT_MAX_PIXELS;
}

/* Why this thread's last gpuimg_ctx_create failed: gpuimg_ctx_error(NULL). */
static _Thread_local char create_error[160];

__attribute__((format(printf, 2, 3))) static gpuimg_status create_fail(gpuimg_status st,
                                                                       const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(create_error, sizeof create_error, fmt, ap);
    va_end(ap);
    return st;
}

/* The first field of c that gpuimg_ctx_create refuses, or GPUIMG_OK. */
static gpuimg_status check_config(const gpuimg_config *c)
{
    gpuimg_status usage = GPUIMG_ERR_USAGE;
    if (c->backend != GPUIMG_BACKEND_AUTO && c->backend != GPUIMG_BACKEND_CPU &&
        c->backend != GPUIMG_BACKEND_CUDA)
        return create_fail(usage, "backend %d is not a gpuimg_backend_kind", (int)c->backend);
    if (c->png_level < 0 || c->png_level > 9)
        return create_fail(usage, "png_level %d is out of range (0-9)", c->png_level);
    if (c->jpeg_quality < 1 || c->jpeg_quality > 100)
        return create_fail(usage, "jpeg_quality %d is out of range (1-100)", c->jpeg_quality);
    if (c->threads < 0)
        return create_fail(usage, "threads %d is negative (0: one per core)", c->threads);
    if (c->device < 0)
        return create_fail(usage, "device %d is negative", c->device);
    if (c->depth != 0 && c->depth != 8 && c->depth != 16)
        return create_fail(usage, "depth %d is not 0, 8 or 16", c->depth);
    if ((unsigned)c->jpeg_codec > GPUIMG_JPEG_GPU)
        return create_fail(usage, "jpeg_codec %d is not a gpuimg_jpeg_codec", (int)c->jpeg_codec);
    /* nvJPEG runs on the CUDA device: asking for it and for the CPU is a contradiction */
    if (c->jpeg_codec == GPUIMG_JPEG_GPU && c->backend == GPUIMG_BACKEND_CPU)
        return create_fail(usage, "jpeg_codec GPU needs the CUDA backend, not the CPU's");
    return GPUIMG_OK;
}

gpuimg_status gpuimg_ctx_create(const gpuimg_config *cfg, gpuimg_ctx **out)
{
    *out = NULL;
    gpuimg_config c;
    if (cfg)
        c = *cfg;
    else
        gpuimg_config_init(&c);
    gpuimg_status st = check_config(&c);
    if (st != GPUIMG_OK)
        return st;
    if (c.max_pixels == 0)
        c.max_pixels = GPUIMG_DEFAULT_MAX_PIXELS;
    gpuimg_ctx *ctx = calloc(1, sizeof *ctx);
    if (!ctx)
        return create_fail(GPUIMG_ERR_NOMEM, "out of memory for a context");
    ctx->cfg = c;
    ctx->split_files = 1;
    ctx->reuse_memory = !c.single_image;
    ctx->depth_warned = &ctx->depth_warned_own;
    *out = ctx;
    return GPUIMG_OK;
}

gpuimg_status gpuimg__ctx_worker(const gpuimg_config *cfg, gpuimg_backend_kind backend, int device,
                                 const gpuimg__ctx_share *share, gpuimg_ctx **out)
{
    gpuimg_config c = *cfg;
    c.backend = backend;
    c.device = device;
    /* a codec worker never touches the device: --jpeg-codec gpu is for the
     * batch's device stage to hold to, not a contradiction here (its
     * decoders still keep JPEGs for the device) */
    if (backend == GPUIMG_BACKEND_CPU && c.jpeg_codec == GPUIMG_JPEG_GPU)
        c.jpeg_codec = GPUIMG_JPEG_AUTO;
    gpuimg_status st = gpuimg_ctx_create(&c, out);
    if (st != GPUIMG_OK)
        return st;
    gpuimg_ctx *ctx = *out;
    /* lent, not owned (own_pool, own_buffers stay 0): the batch frees them */
    ctx->pool = share->pool;
    ctx->buffers = share->buffers;
    ctx->split_files = 0; /* each worker has a file of its own */
    ctx->reuse_memory = 1;
    if (share->depth_warned)
        ctx->depth_warned = share->depth_warned;
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
    if (ctx->own_buffers)
        gpuimg__host_buffers_release(ctx->buffers);
    free(ctx);
}

gpuimg_host_buffers *gpuimg__ctx_buffers(gpuimg_ctx *ctx)
{
    if (!ctx->buffers) {
        ctx->buffers = gpuimg__host_buffers_create();
        ctx->own_buffers = ctx->buffers != NULL;
        if (ctx->buffers && ctx->backend)
            gpuimg__host_buffers_pin_with(ctx->buffers, ctx->backend->ops);
    }
    return ctx->buffers;
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
    return ctx ? ctx->error : create_error;
}

void gpuimg_ctx_timings(const gpuimg_ctx *ctx, double ms[GPUIMG_STAGE_COUNT])
{
    memcpy(ms, ctx->stage_ms, sizeof ctx->stage_ms);
}

void gpuimg_escape_controls(const char *text, char *out, size_t cap)
{
    size_t j = 0;
    for (const char *p = text; cap > 0 && *p;) {
        char esc[8];
        uint32_t cp;
        int len = gpuimg__utf8_next(p, &cp);
        size_t k = (size_t)len;
        /* a character is copied whole; a control (C0, DEL, and C1, which
         * some terminals obey too) and a byte that is not UTF-8 become
         * escapes, so the line stays one valid line of text */
        if (len > 0 && cp >= 0x20 && cp != 0x7f && (cp < 0x80 || cp > 0x9f))
            memcpy(esc, p, k);
        else if (len == 1 && (cp == '\n' || cp == '\r' || cp == '\t'))
            k = (size_t)snprintf(esc, sizeof esc, "\\%c",
                                 cp == '\n'   ? 'n'
                                 : cp == '\r' ? 'r'
                                              : 't');
        else {
            k = (size_t)snprintf(esc, sizeof esc, "\\x%02x", (unsigned char)*p);
            len = 1;
        }
        if (j + k >= cap)
            break;
        memcpy(out + j, esc, k);
        j += k;
        p += len;
    }
    if (cap > 0)
        out[j] = '\0';
}

gpuimg_status gpuimg__fail(gpuimg_ctx *ctx, gpuimg_status st, const char *fmt, ...)
{
    char text[sizeof ctx->error];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    if (n >= (int)sizeof text)
        gpuimg__utf8_trim(text); /* cut: not mid-character */
    gpuimg_escape_controls(text, ctx->error, sizeof ctx->error);
    return st;
}

gpuimg_status gpuimg__fail_as(gpuimg_ctx *ctx, gpuimg_status st, const char *what)
{
    return gpuimg__fail(ctx, st, "%s: %s", what, gpuimg_strerror(st));
}

gpuimg_status gpuimg__fail_errno(gpuimg_ctx *ctx, const char *what)
{
    return gpuimg__fail(ctx, GPUIMG_ERR_IO, "%s: %s", what, strerror(errno));
}

static void warn_va(gpuimg_ctx *ctx, const char *fmt, va_list ap)
{
    char text[512], line[512];
    vsnprintf(text, sizeof text, fmt, ap);
    gpuimg_escape_controls(text, line, sizeof line);
    ctx->cfg.warn(ctx->cfg.warn_user, line);
}

void gpuimg__warn(gpuimg_ctx *ctx, const char *fmt, ...)
{
    if (!ctx->cfg.warn)
        return;
    va_list ap;
    va_start(ap, fmt);
    warn_va(ctx, fmt, ap);
    va_end(ap);
}

void gpuimg__warn_once(gpuimg_ctx *ctx, int *flag, const char *fmt, ...)
{
    if (!ctx->cfg.warn || __atomic_exchange_n(flag, 1, __ATOMIC_RELAXED))
        return;
    va_list ap;
    va_start(ap, fmt);
    warn_va(ctx, fmt, ap);
    va_end(ap);
}

void gpuimg__stage_done(gpuimg_ctx *ctx, gpuimg_stage stage, double t0)
{
    double t1 = gpuimg__now_ms();
    ctx->stage_ms[stage] += t1 - t0;
    gpuimg__trace(gpuimg_stage_name(stage), t0, t1);
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
    return gpuimg__fail_as(ctx, st, what);
}

/* A backend's opening, here or on the opener's thread, made the context's. */
static gpuimg_status adopt(gpuimg_ctx *ctx, const gpuimg_backend_ops *ops, gpuimg_status st,
                           gpuimg_backend *be, double ms, const char *msg)
{
    ctx->stage_ms[GPUIMG_STAGE_INIT] += ms;
    gpuimg__trace("init (device)", gpuimg__now_ms() - ms, gpuimg__now_ms());
    ctx->backend = st == GPUIMG_OK ? be : NULL;
    if (ctx->backend && ops == &gpuimg__cpu_backend) /* it computes on the context's threads */
        ctx->backend->pool = gpuimg__ctx_pool(ctx);
    if (ctx->backend && ctx->buffers) /* from now on its buffers are pinned, if it pins */
        gpuimg__host_buffers_pin_with(ctx->buffers, be->ops);
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

void gpuimg__ctx_expect_work(gpuimg_ctx *ctx, double ns_per_value, gpuimg__shape_fn shape,
                             const void *what, int count)
{
    ctx->expect_ns = ns_per_value;
    ctx->expect_shape = shape;
    ctx->expect_what = what;
    ctx->expect_count = count;
}

/* The CPU backend's wall time for work of cpu_ns on one core, spread over
 * the context's threads; three quarters of each thread past the first
 * counts (bands that end apart, a halo made twice, shared memory
 * bandwidth: bench/NOTES.md measured 1.6-1.8x on two cores, 9-12x on
 * sixteen). */
static double cpu_wall_ns(const gpuimg_ctx *ctx, double cpu_ns)
{
    return cpu_ns / (1.0 + 0.75 * (gpuimg__thread_count(ctx->cfg.threads) - 1));
}

void gpuimg__header_read(gpuimg_ctx *ctx, uint64_t width, uint64_t height)
{
    if (ctx->expect_ns <= 0 || ctx->backend || ctx->opener)
        return;
    gpuimg_backend_kind want = ctx->cfg.backend;
    /* One channel: gpuimg_run will count the real ones, never fewer, so
     * "auto" then takes the device this started. */
    int device =
        want == GPUIMG_BACKEND_CUDA ||
        (want == GPUIMG_BACKEND_AUTO &&
         cpu_wall_ns(ctx, (double)width * (double)height * ctx->expect_ns) >= GPUIMG_AUTO_CPU_NS);
    ctx->expect_ns = 0; /* once: for the next image only */
    struct backend_opener *o = device ? calloc(1, sizeof *o) : NULL;
    if (!o) {
        ctx->expect_shape = NULL;
        return; /* then it opens when first needed, as without expect */
    }
    o->ops = gpuimg__cuda_backend();
    o->device = ctx->cfg.device;
    if (pthread_create(&o->thread, NULL, open_in_background, o) != 0) {
        free(o);
        ctx->expect_shape = NULL;
        return;
    }
    ctx->opener = o;
}

gpuimg_status gpuimg__backend(gpuimg_ctx *ctx, gpuimg_backend **out)
{
    if (!ctx->backend) {
        gpuimg_backend_kind want = ctx->cfg.backend;
        if (want != GPUIMG_BACKEND_AUTO) {
            gpuimg_status st = open_backend(
                ctx, want == GPUIMG_BACKEND_CPU ? &gpuimg__cpu_backend : gpuimg__cuda_backend());
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
    if (!ctx->backend && ctx->cfg.backend == GPUIMG_BACKEND_AUTO &&
        cpu_wall_ns(ctx, cpu_ns) < GPUIMG_AUTO_CPU_NS) {
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

int gpuimg_backend_from_name(const char *name, gpuimg_backend_kind *out)
{
    for (int k = GPUIMG_BACKEND_AUTO; k <= GPUIMG_BACKEND_CUDA; k++)
        if (strcmp(name, gpuimg_backend_kind_name((gpuimg_backend_kind)k)) == 0) {
            *out = (gpuimg_backend_kind)k;
            return 1;
        }
    return 0;
}

const char *gpuimg_backend_kind_name(gpuimg_backend_kind kind)
{
    switch (kind) {
    case GPUIMG_BACKEND_AUTO: return "auto";
    case GPUIMG_BACKEND_CPU: return "cpu";
    case GPUIMG_BACKEND_CUDA: return "cuda";
    }
    return "?";
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
