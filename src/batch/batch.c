/* SPDX-License-Identifier: MIT */
/* gpuimg_batch: every image of a folder through a pipeline (SPEC §5).
 *
 * Decoding, the device stage and encoding overlap, so that the CPU's codec
 * work hides the device's:
 *
 *   decode threads --> device stage --> encode jobs on the pool
 *   (jobs of them)    (4 per GPU, or    (jobs workers, shared by files
 *                      jobs on the CPU)   and by each PNG's chunks)
 *
 * Each device-stage worker owns a context, and with it a backend instance:
 * on CUDA its own stream and scratch, so the copies of one image overlap
 * the kernels of another. Every worker's context shares the batch's host
 * buffers (host_buffers.h): a decoder takes one, the device stage gives it
 * back and takes one for the output, the encoder gives that back; pinned
 * once, they carry image after image. Encoding is one pool: a file
 * is a job, a PNG's chunks are its pieces, and a job that waits for its
 * pieces runs pieces meanwhile (pool.h), so a batch of few large PNGs keeps
 * every core on their chunks and a batch of many small files keeps every
 * core on files. A counting gate caps the images between decode and the
 * end of encode, so memory stays flat whatever the folder's size. Files
 * start in sorted path order; a bad file is reported and counted and the
 * rest go on.
 *
 * With nvJPEG on the device (jpeg_gpu.h), a JPEG is not decoded by the
 * decode threads: they read it and its markers, and the item carries its
 * compressed bytes. Each device worker takes up to JPEG_BATCH such items
 * at once and hands them to nvJPEG in one call (the hardware engine spreads
 * them over its cores), then runs each from its planes and encodes a JPEG
 * output there too, so the encode job only writes bytes. While one worker's
 * batch decodes, the others' kernels and encodes run.
 *
 * On the CPU backend there is no device to hide: a file is one job on the
 * pool instead, and its codec and operation pieces share that pool
 * (file_job), so the threads never outnumber --jobs. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "batch/plan.h"
#include "core/budget.h"
#include "core/host_buffers.h"
#include "core/internal.h"
#include "io/io.h"
#include "run/jpeg_gpu.h"
#include "io/metadata.h"
#include "core/pool.h"

/* Device-stage workers per GPU: while one waits for its image's copies,
 * the others' kernels run (four kept an H100 fed where two left it
 * waiting). */
#define STREAMS_PER_DEVICE 4
/* JPEG files one device worker hands nvJPEG at once: the hardware engine
 * spreads a batch over its cores (an H100 has seven), and four workers'
 * batches keep it fed while each worker's kernels and encodes run. */
#define JPEG_BATCH 8
#define PATH_BUF GPUIMG__PATH_BUF

static atomic_int batch_cancelled;

void gpuimg_batch_cancel(void)
{
    atomic_store(&batch_cancelled, 1);
}

/* ---- bounded queues and the in-flight gate ---- */

typedef struct item {
    gpuimg_task task; /* first: an item is its own encode job */
    struct batch *b;
    size_t index;
    gpuimg_image image; /* decoded on the CPU, or */
    uint8_t *bytes;     /* the file, for the device's decoder (jf) */
    size_t size;
    gpuimg__jpeg_file jf;
    gpuimg__output out; /* the device stage's result, for the encode job */
    uint64_t taken;     /* of the batch's memory budget, until the item is freed */
} item;

typedef struct queue {
    item **slots;
    size_t cap, head, count;
    int producers; /* still running; the queue is closed at zero */
    pthread_mutex_t lock;
    pthread_cond_t changed;
} queue;

static int queue_init(queue *q, size_t cap, int producers)
{
    memset(q, 0, sizeof *q);
    q->slots = calloc(cap, sizeof *q->slots);
    q->cap = cap;
    q->producers = producers;
    pthread_mutex_init(&q->lock, NULL);
    pthread_cond_init(&q->changed, NULL);
    return q->slots != NULL;
}

static void queue_destroy(queue *q)
{
    free(q->slots);
    pthread_mutex_destroy(&q->lock);
    pthread_cond_destroy(&q->changed);
}

static void queue_push(queue *q, item *it)
{
    pthread_mutex_lock(&q->lock);
    while (q->count == q->cap)
        pthread_cond_wait(&q->changed, &q->lock);
    q->slots[(q->head + q->count++) % q->cap] = it;
    pthread_cond_broadcast(&q->changed);
    pthread_mutex_unlock(&q->lock);
}

/* The next item; when the queue is empty, NULL at once (wait 0), or (wait
 * 1) after waiting for one, NULL once every producer has finished. */
static item *queue_take(queue *q, int wait)
{
    pthread_mutex_lock(&q->lock);
    while (wait && q->count == 0 && q->producers > 0)
        pthread_cond_wait(&q->changed, &q->lock);
    item *it = NULL;
    if (q->count > 0) {
        it = q->slots[q->head];
        q->head = (q->head + 1) % q->cap;
        q->count--;
        pthread_cond_broadcast(&q->changed);
    }
    pthread_mutex_unlock(&q->lock);
    return it;
}

static item *queue_pop(queue *q)
{
    return queue_take(q, 1);
}

static void queue_producer_done(queue *q)
{
    pthread_mutex_lock(&q->lock);
    q->producers--;
    pthread_cond_broadcast(&q->changed);
    pthread_mutex_unlock(&q->lock);
}

/* ---- the run ---- */

typedef struct batch {
    const gpuimg_batch_options *opt;
    gpuimg_config cfg; /* for the workers' contexts */
    int *depth_warned; /* the batch's context's: one "written at 8 bits" */
    gpuimg__plan plan;
    atomic_size_t next; /* the next file to decode */
    atomic_int stop;    /* --fail-fast tripped */
    atomic_int abort;   /* the device stage failed to start: drop everything */
    /* whether the device stage decodes and encodes JPEG (nvJPEG): -1 until
     * it has opened; the decoders keep a JPEG's bytes for it unless 0 */
    atomic_int device_jpeg;
    queue to_device;
    gpuimg_pool *pool;            /* the encode jobs and their pieces */
    int one_pool;                 /* the CPU batch: a file is one job (file_job) */
    gpuimg_host_buffers *buffers; /* every image's pixels, lent to every context */
    /* the encoders' contexts, one per job running at once, reused */
    pthread_mutex_t encoders_lock;
    struct encoder *idle_encoders, *encoders;
    /* the gate: images between the start of decode and the end of encode */
    pthread_mutex_t gate_lock;
    pthread_cond_t gate_open;
    int in_flight, max_in_flight;
    /* and the images' decoded bytes among them (budget.h) */
    gpuimg__budget budget;
    /* events and counts */
    pthread_mutex_t report_lock;
    gpuimg_batch_summary sum;
    uint64_t finished, bytes_done;
    /* --time: every worker's stages, summed (under report_lock) */
    double stage_ms[GPUIMG_STAGE_COUNT];
} batch;

typedef struct worker {
    batch *b;
    gpuimg_ctx *ctx;
    pthread_t thread;
    int started;
} worker;

static int stopping(batch *b)
{
    return atomic_load(&batch_cancelled) || atomic_load(&b->stop);
}

static void report(batch *b, size_t index, gpuimg_batch_outcome outcome, const char *error)
{
    pthread_mutex_lock(&b->report_lock);
    b->finished++;
    if (outcome != GPUIMG_BATCH_SKIPPED)
        b->bytes_done += b->plan.bytes[index];
    if (outcome == GPUIMG_BATCH_DONE)
        b->sum.processed++;
    else if (outcome == GPUIMG_BATCH_FAILED)
        b->sum.failed++;
    else
        b->sum.skipped++;
    if (outcome == GPUIMG_BATCH_FAILED && b->opt->fail_fast)
        atomic_store(&b->stop, 1);
    if (b->opt->on_event) {
        char input[PATH_BUF];
        snprintf(input, sizeof input, "%s/%s", b->opt->in_dir, b->plan.files.rel[index]);
        gpuimg_batch_event ev = {
            outcome,     input,        b->plan.outputs[index], error,
            b->finished, b->sum.total, b->bytes_done,          b->plan.total_bytes};
        b->opt->on_event(b->opt->user, &ev);
    }
    pthread_mutex_unlock(&b->report_lock);
}

static void gate_enter(batch *b)
{
    pthread_mutex_lock(&b->gate_lock);
    while (b->in_flight >= b->max_in_flight)
        pthread_cond_wait(&b->gate_open, &b->gate_lock);
    b->in_flight++;
    pthread_mutex_unlock(&b->gate_lock);
}

static void gate_leave(batch *b, item *it)
{
    if (it) {
        gpuimg_image_free(&it->image);
        free(it->bytes);
        gpuimg__jpeg_file_free(&it->jf);
        gpuimg__output_free(&it->out);
        gpuimg__budget_give(&b->budget, it->taken);
    }
    free(it);
    pthread_mutex_lock(&b->gate_lock);
    b->in_flight--;
    pthread_cond_signal(&b->gate_open);
    pthread_mutex_unlock(&b->gate_lock);
}

/* File i's item, once it is through the gate; NULL (reported, and out of
 * the gate again) when out of memory. */
static item *new_item(batch *b, size_t i)
{
    item *it = calloc(1, sizeof *it);
    if (!it) {
        report(b, i, GPUIMG_BATCH_FAILED, "out of memory");
        gate_leave(b, NULL);
        return NULL;
    }
    it->index = i;
    it->b = b;
    return it;
}

/* A file's bytes, read (a regular file reached from IN_DIR without a
 * symbolic link: folder_file.c) and admitted to the memory budget by the
 * size they decode to. */
static gpuimg_status read_admitted(gpuimg_ctx *ctx, batch *b, const char *input, item *it,
                                   uint8_t **data, size_t *size)
{
    gpuimg_status st = gpuimg__read_folder_file(ctx, input, strlen(b->opt->in_dir), 1, data, size);
    if (st != GPUIMG_OK)
        return st;
    uint64_t need = gpuimg__decoded_bytes(ctx, *data, *size);
    if ((st = gpuimg__budget_take(&b->budget, ctx, input, need)) != GPUIMG_OK) {
        free(*data);
        *data = NULL;
        return st;
    }
    it->taken = need;
    return GPUIMG_OK;
}

/* A decoder's part: the file read, and decoded unless the device's decoder
 * will take it (a JPEG it may decode, jpeg_gpu.h), whose bytes and
 * metadata the item keeps instead. */
static gpuimg_status read_for_device(gpuimg_ctx *ctx, batch *b, const char *input, item *it)
{
    uint8_t *data;
    size_t size;
    gpuimg_status st = read_admitted(ctx, b, input, it, &data, &size);
    if (st != GPUIMG_OK)
        return st;
    if (atomic_load(&b->device_jpeg) == 0 || b->cfg.jpeg_codec == GPUIMG_JPEG_CPU)
        return gpuimg__load_owned(ctx, data, size, input, &it->image);
    int eligible = 0;
    if ((st = gpuimg__jpeg_probe(ctx, input, data, size, &it->jf, &eligible)) != GPUIMG_OK)
        free(data);
    else if (eligible) {
        it->bytes = data;
        it->size = size;
        it->jf.name = NULL; /* input is this function's; the decode needs no name */
    } else
        st = gpuimg__load_owned(ctx, data, size, input, &it->image);
    return st;
}

static void *decode_worker(void *arg)
{
    worker *w = arg;
    batch *b = w->b;
    for (;;) {
        size_t i = atomic_fetch_add(&b->next, 1);
        if (i >= b->plan.files.n || stopping(b))
            break;
        if (b->plan.skip[i]) /* reported as skipped before the start */
            continue;
        gate_enter(b);
        if (stopping(b)) { /* it may have come while this thread waited */
            gate_leave(b, NULL);
            break;
        }
        item *it = new_item(b, i);
        if (!it)
            continue;
        char input[PATH_BUF];
        snprintf(input, sizeof input, "%s/%s", b->opt->in_dir, b->plan.files.rel[i]);
        if (read_for_device(w->ctx, b, input, it) != GPUIMG_OK) {
            report(b, i, GPUIMG_BATCH_FAILED, gpuimg_ctx_error(w->ctx));
            gate_leave(b, it);
            continue;
        }
        if (stopping(b)) { /* stopped while it waited for the budget: not counted */
            gate_leave(b, it);
            break;
        }
        queue_push(&b->to_device, it);
    }
    queue_producer_done(&b->to_device);
    return NULL;
}

static void encode_job(gpuimg_task *task);

/* A worker context's stages into the batch's sums (--time). */
static void add_timings(batch *b, const gpuimg_ctx *ctx)
{
    if (!ctx)
        return;
    double ms[GPUIMG_STAGE_COUNT];
    gpuimg_ctx_timings(ctx, ms);
    pthread_mutex_lock(&b->report_lock);
    for (int s = 0; s < GPUIMG_STAGE_COUNT; s++)
        b->stage_ms[s] += ms[s];
    pthread_mutex_unlock(&b->report_lock);
}

/* One item's run on a device worker, from its planes (cur: decoded there,
 * or NULL: the item's image, uploaded now), then its encode job queued;
 * or, without a JPEG codec on the device, gpuimg_run as it always was. */
static void run_item(worker *w, int jpeg_device, item *it, gpuimg_planes *cur)
{
    batch *b = w->b;
    gpuimg_ctx *ctx = w->ctx;
    if (atomic_load(&batch_cancelled) || atomic_load(&b->abort)) {
        if (cur)
            ctx->backend->ops->planes_free(ctx->backend, cur);
        gate_leave(b, it); /* cancelled: not started, not counted */
        return;
    }
    gpuimg_status st = GPUIMG_OK;
    if (!jpeg_device) {
        gpuimg_image out;
        st = gpuimg_run(ctx, &it->image, b->opt->steps, b->opt->nsteps, &out);
        gpuimg_image_free(&it->image);
        it->out.image = out;
    } else {
        gpuimg_planes up;
        gpuimg_metadata *meta;
        if (cur) {
            meta = it->jf.meta;
            it->jf.meta = NULL;
        } else {
            st = gpuimg__upload(ctx, ctx->backend, &it->image, &up);
            cur = &up;
            meta = it->image.meta;
            it->image.meta = NULL;
            gpuimg_image_free(&it->image); /* the upload has finished reading it */
        }
        if (st == GPUIMG_OK)
            st = gpuimg__planes_finish(ctx, ctx->backend, cur, b->opt->steps, b->opt->nsteps, meta,
                                       gpuimg_format_from_path(b->plan.outputs[it->index]), 1,
                                       &it->out);
        else
            gpuimg_metadata_free(meta);
    }
    if (st != GPUIMG_OK) {
        report(b, it->index, GPUIMG_BATCH_FAILED, gpuimg_ctx_error(ctx));
        gate_leave(b, it);
        return;
    }
    it->task.run = encode_job;
    gpuimg__pool_job(b->pool, &it->task);
}

/* Up to JPEG_BATCH items taken together: the JPEGs for the device's
 * decoder in one call, then each item run in the order taken. A file
 * nvJPEG refuses is decoded on the CPU here, and one that fails to decode
 * fails alone (a failure of the device itself fails the group). */
static void run_group(worker *w, int jpeg_device, item **group, int m)
{
    batch *b = w->b;
    gpuimg__jpeg_file *files[JPEG_BATCH];
    gpuimg_planes planes[JPEG_BATCH];
    int refused[JPEG_BATCH], slot[JPEG_BATCH], k = 0;
    for (int i = 0; i < m; i++) {
        slot[i] = -1;
        if (group[i]->bytes && jpeg_device) {
            slot[i] = k;
            files[k++] = &group[i]->jf;
        }
    }
    if (atomic_load(&batch_cancelled)) { /* not started, not counted */
        for (int i = 0; i < m; i++)
            gate_leave(b, group[i]);
        return;
    }
    gpuimg_status st = GPUIMG_OK;
    if (k)
        st = gpuimg__jpeg_decode(w->ctx, w->ctx->backend, k, files, planes, refused);
    for (int i = 0; i < m; i++) {
        item *it = group[i];
        int j = slot[i];
        if (it->bytes && (j < 0 || st != GPUIMG_OK || refused[j])) {
            /* the CPU decodes it: no codec on the device, or nvJPEG said no */
            gpuimg__jpeg_file_free(&it->jf);
            char input[PATH_BUF];
            snprintf(input, sizeof input, "%s/%s", b->opt->in_dir, b->plan.files.rel[it->index]);
            gpuimg_status ld = st; /* a device failure fails the group's JPEGs */
            if (ld == GPUIMG_OK) {
                ld = gpuimg__load_owned(w->ctx, it->bytes, it->size, input, &it->image);
                it->bytes = NULL; /* freed by the load */
            }
            if (ld != GPUIMG_OK) {
                report(b, it->index, GPUIMG_BATCH_FAILED, gpuimg_ctx_error(w->ctx));
                gate_leave(b, it);
                continue;
            }
            j = -1;
        } else if (it->bytes) {
            free(it->bytes); /* decoded on the device: now its warnings */
            it->bytes = NULL;
            if (it->jf.notes.count) {
                char input[PATH_BUF];
                snprintf(input, sizeof input, "%s/%s", b->opt->in_dir,
                         b->plan.files.rel[it->index]);
                gpuimg__metadata_tell(w->ctx, input, &it->jf.notes);
            }
        }
        run_item(w, jpeg_device, it, j >= 0 ? &planes[j] : NULL);
    }
}

static void *device_worker(void *arg)
{
    worker *w = arg;
    batch *b = w->b;
    gpuimg_backend *be;
    /* each worker's backend keeps its own nvJPEG states (the handles are shared) */
    int jpeg_device = atomic_load(&b->device_jpeg) == 1 &&
                      gpuimg__backend(w->ctx, &be) == GPUIMG_OK &&
                      gpuimg__jpeg_device(w->ctx, be) == 1;
    item *it;
    while ((it = queue_pop(&b->to_device)) != NULL) {
        item *group[JPEG_BATCH] = {it};
        int m = 1;
        while (it->bytes && m < JPEG_BATCH && (group[m] = queue_take(&b->to_device, 0)) != NULL)
            m++;
        run_group(w, jpeg_device, group, m);
    }
    return NULL;
}

/* An encoder's context: made when a job finds none idle, kept for the next
 * job (so there are as many as jobs ever ran at once), destroyed at the
 * end with its timings counted. */
typedef struct encoder {
    gpuimg_ctx *ctx;
    struct encoder *next_idle, *next;
} encoder;

static encoder *encoder_take(batch *b)
{
    pthread_mutex_lock(&b->encoders_lock);
    encoder *e = b->idle_encoders;
    if (e)
        b->idle_encoders = e->next_idle;
    pthread_mutex_unlock(&b->encoders_lock);
    if (e)
        return e;
    gpuimg_config cpu = b->cfg;
    cpu.backend = GPUIMG_BACKEND_CPU; /* codec work never touches a device */
    if (!(e = calloc(1, sizeof *e)) || gpuimg_ctx_create(&cpu, &e->ctx) != GPUIMG_OK) {
        free(e);
        return NULL;
    }
    e->ctx->pool = b->pool;  /* lent: a PNG's chunks are its pieces */
    e->ctx->split_files = 0; /* (the one pool: each job has a file of its own) */
    e->ctx->reuse_memory = 1;
    e->ctx->depth_warned = b->depth_warned;
    e->ctx->buffers = b->buffers;
    pthread_mutex_lock(&b->encoders_lock);
    e->next = b->encoders;
    b->encoders = e;
    pthread_mutex_unlock(&b->encoders_lock);
    return e;
}

static void encoder_give(batch *b, encoder *e)
{
    pthread_mutex_lock(&b->encoders_lock);
    e->next_idle = b->idle_encoders;
    b->idle_encoders = e;
    pthread_mutex_unlock(&b->encoders_lock);
}

/* Writes an item's output with an encoder's context and reports it. */
static void save_item(batch *b, encoder *e, item *it)
{
    const char *out = b->plan.outputs[it->index];
    char parents[PATH_BUF];
    snprintf(parents, sizeof parents, "%s", out);
    if (gpuimg__make_parents(parents) != 0) {
        char why[PATH_BUF + 64];
        snprintf(why, sizeof why, "%s: cannot create its folder: %s", out, strerror(errno));
        report(b, it->index, GPUIMG_BATCH_FAILED, why);
    } else if (gpuimg__output_save(e->ctx, out, GPUIMG_FORMAT_NONE, &it->out) != GPUIMG_OK) {
        report(b, it->index, GPUIMG_BATCH_FAILED, gpuimg_ctx_error(e->ctx));
    } else {
        report(b, it->index, GPUIMG_BATCH_DONE, NULL);
    }
}

/* One file's encode job, on a pool worker. */
static void encode_job(gpuimg_task *task)
{
    item *it = (item *)task;
    batch *b = it->b;
    if (atomic_load(&batch_cancelled)) {
        gate_leave(b, it);
        return;
    }
    encoder *e = encoder_take(b);
    if (!e) {
        report(b, it->index, GPUIMG_BATCH_FAILED, "out of memory");
    } else {
        save_item(b, e, it);
        encoder_give(b, e);
    }
    gate_leave(b, it); /* frees the item, and with it this task */
}

/* ---- the CPU batch: one pool for everything ----
 *
 * On the CPU backend the stages above would be three sets of threads, each
 * of every core, contending. Instead a file is one job on the pool, read,
 * run and written by one context; the pieces inside it (a PNG's rows and
 * chunks, an operation's bands) go to the same pool, and idle workers take
 * them before another file (pool.h). So exactly --jobs threads compute,
 * and a batch of one large image still spreads over all of them. */
static void file_job(gpuimg_task *task)
{
    item *it = (item *)task;
    batch *b = it->b;
    if (stopping(b)) { /* not started: not counted */
        gate_leave(b, it);
        return;
    }
    encoder *e = encoder_take(b);
    char input[PATH_BUF];
    snprintf(input, sizeof input, "%s/%s", b->opt->in_dir, b->plan.files.rel[it->index]);
    gpuimg_image out;
    uint8_t *data;
    size_t size;
    if (!e) {
        report(b, it->index, GPUIMG_BATCH_FAILED, "out of memory");
    } else if (read_admitted(e->ctx, b, input, it, &data, &size) != GPUIMG_OK) {
        report(b, it->index, GPUIMG_BATCH_FAILED, gpuimg_ctx_error(e->ctx));
    } else if (stopping(b)) { /* stopped while it waited for the budget: not started */
        free(data);
    } else if (gpuimg__load_owned(e->ctx, data, size, input, &it->image) != GPUIMG_OK ||
               gpuimg_run_consume(e->ctx, &it->image, b->opt->steps, b->opt->nsteps, &out) !=
                   GPUIMG_OK) {
        report(b, it->index, GPUIMG_BATCH_FAILED, gpuimg_ctx_error(e->ctx));
    } else {
        it->out.image = out;
        save_item(b, e, it);
    }
    if (e)
        encoder_give(b, e);
    gate_leave(b, it);
}

/* Queues every file as a job, in sorted order, as the gate lets it. */
static void feed_pool(batch *b)
{
    for (size_t i = 0; i < b->plan.files.n && !stopping(b); i++) {
        if (b->plan.skip[i])
            continue;
        gate_enter(b);
        item *it = new_item(b, i);
        if (!it)
            continue;
        it->task.run = file_job;
        gpuimg__pool_job(b->pool, &it->task);
    }
}

/* Whether CUDA could open at all: a build with it, and the NVIDIA driver's
 * control device, present wherever a CUDA device is (containers that are
 * given one included). Where it is missing "auto" can only be the CPU, and
 * the batch takes the one pool at once. */
static int cuda_possible(void)
{
    return gpuimg__cuda_backend()->planes_alloc != NULL && access("/dev/nvidiactl", F_OK) == 0;
}

/* Contexts for the device stage: one per stream of each device, opened now
 * so that a missing device stops the batch before any file is touched. */
static gpuimg_status open_device_workers(gpuimg_ctx *ctx, batch *b, const char *backend,
                                         worker **out, int *count, int jobs)
{
    const gpuimg_batch_options *opt = b->opt;
    int cuda = strcmp(backend, "cuda") == 0;
    int ndev = !cuda ? 1 : opt->devices ? opt->ndevices : opt->ndevices < 0 ? 64 : 1;
    int per = cuda ? STREAMS_PER_DEVICE : jobs;
    worker *ws = calloc((size_t)ndev * (size_t)per, sizeof *ws);
    if (!ws)
        return gpuimg__fail(ctx, GPUIMG_ERR_NOMEM, "batch: out of memory");
    int n = 0;
    gpuimg_status st = GPUIMG_OK;
    for (int d = 0; d < ndev && st == GPUIMG_OK; d++) {
        gpuimg_config cfg = b->cfg;
        cfg.backend = cuda ? GPUIMG_BACKEND_CUDA : GPUIMG_BACKEND_CPU;
        cfg.device = !cuda               ? 0
                     : opt->devices      ? opt->devices[d]
                     : opt->ndevices < 0 ? d
                                         : cfg.device;
        for (int k = 0; k < per && st == GPUIMG_OK; k++) {
            const char *name;
            if ((st = gpuimg_ctx_create(&cfg, &ws[n].ctx)) != GPUIMG_OK) {
                gpuimg__fail(ctx, st, "batch: cannot create a context");
                break;
            }
            ws[n].b = b;
            ws[n].ctx->buffers = b->buffers; /* before it opens: a CUDA one pins them */
            if (!cuda) /* the CPU's operations split over the batch's pool, not one each */
                ws[n].ctx->pool = b->pool;
            ws[n].ctx->reuse_memory = 1;
            if ((st = gpuimg_ctx_backend(ws[n].ctx, &name)) != GPUIMG_OK) {
                /* "all": the first device that is not there ends the list */
                if (opt->ndevices < 0 && !opt->devices && d > 0 && st == GPUIMG_ERR_NO_DEVICE) {
                    gpuimg_ctx_destroy(ws[n].ctx);
                    ws[n].ctx = NULL;
                    st = GPUIMG_OK;
                    d = ndev;
                    break;
                }
                gpuimg__fail(ctx, st, "batch: device %d: %s", cfg.device,
                             gpuimg_ctx_error(ws[n].ctx));
                gpuimg_ctx_destroy(ws[n].ctx);
                ws[n].ctx = NULL;
                break;
            }
            n++;
        }
    }
    *out = ws;
    *count = n;
    return st;
}

/* The device stage's opening, on a thread of its own (gpuimg_batch). It
 * writes the batch's context (its error, the one "auto" notice) while the
 * main thread only starts the decoders and waits for it. */
typedef struct devices_opening {
    gpuimg_ctx *ctx;
    batch *b;
    int jobs;
    worker *dev;
    int ndev;
    gpuimg_status st;
} devices_opening;

/* Whether the plan reads JPEG files (inputs 1), or reads or writes any
 * (inputs 0), by their names. */
static int plan_has_jpeg(const batch *b, int inputs)
{
    for (size_t i = 0; i < b->plan.files.n; i++)
        if (gpuimg_format_from_path(b->plan.files.rel[i]) == GPUIMG_FORMAT_JPEG ||
            (!inputs && gpuimg_format_from_path(b->plan.outputs[i]) == GPUIMG_FORMAT_JPEG))
            return 1;
    return 0;
}

static void *open_devices(void *arg)
{
    devices_opening *o = arg;
    const char *backend; /* auto resolves once, here, with its one notice */
    o->st = gpuimg_ctx_backend(o->ctx, &backend);
    if (o->st == GPUIMG_OK)
        o->st = open_device_workers(o->ctx, o->b, backend, &o->dev, &o->ndev, o->jobs);
    /* nvJPEG on the first device's first worker says for all (one library);
     * set up only when a JPEG is read or written (it takes about a second) */
    int jpeg = 0;
    if (o->st == GPUIMG_OK && o->ndev > 0 && plan_has_jpeg(o->b, 0) &&
        (jpeg = gpuimg__jpeg_device(o->dev[0].ctx, o->dev[0].ctx->backend)) < 0)
        o->st = gpuimg__fail(o->ctx, GPUIMG_ERR_NO_DEVICE, "batch: %s",
                             gpuimg_ctx_error(o->dev[0].ctx));
    atomic_store(&o->b->device_jpeg, jpeg > 0);
    return NULL;
}

static gpuimg_status make_out_dir(gpuimg_ctx *ctx, const char *out_dir)
{
    char path[PATH_BUF];
    snprintf(path, sizeof path, "%s/", out_dir);
    struct stat sb;
    if (gpuimg__make_parents(path) != 0 || stat(out_dir, &sb) != 0 || !S_ISDIR(sb.st_mode))
        return gpuimg__fail(ctx, GPUIMG_ERR_IO, "%s: cannot create the folder: %s", out_dir,
                            strerror(errno));
    return GPUIMG_OK;
}

/* The run: the workers and their contexts, the queue, the pool. */
typedef struct run {
    int jobs;
    worker *dec;        /* the decode threads, one context each */
    devices_opening dv; /* the device stage */
} run;

/* Makes the decoders' contexts, the encode pool and the queue; opens the
 * device stage on a thread of its own while the decoders start (starting
 * CUDA takes about 0.3 s), then starts the device workers. Nothing is
 * written before the device stage is open; if it cannot open, the batch
 * stops with its error and what was decoded is dropped. */
static gpuimg_status run_start(gpuimg_ctx *ctx, batch *b, run *r)
{
    const gpuimg_batch_options *opt = b->opt;
    r->jobs = gpuimg__thread_count(opt->jobs);
    r->dv = (devices_opening){.ctx = ctx, .b = b, .jobs = r->jobs};
    if (b->cfg.backend == GPUIMG_BACKEND_CPU ||
        (b->cfg.backend == GPUIMG_BACKEND_AUTO && !cuda_possible())) {
        const char *backend; /* "auto" says once that it takes the CPU */
        gpuimg_status st = gpuimg_ctx_backend(ctx, &backend);
        if (st != GPUIMG_OK)
            return st;
        if (b->cfg.jpeg_codec == GPUIMG_JPEG_GPU && plan_has_jpeg(b, 0))
            return gpuimg__fail(ctx, GPUIMG_ERR_NO_DEVICE,
                                "--jpeg-codec gpu: no CUDA device (the batch runs on the CPU)");
        b->one_pool = 1;
        b->max_in_flight = 2 * r->jobs; /* queued jobs hold no pixels yet */
        b->pool = gpuimg__pool_create(r->jobs);
        b->buffers = gpuimg__host_buffers_create();
        int queued = queue_init(&b->to_device, 1, 0); /* unused; run_stop frees it */
        if (!queued || !b->pool || !b->buffers)
            return gpuimg__fail(ctx, GPUIMG_ERR_NOMEM, "batch: out of memory");
        if (gpuimg__pool_workers(b->pool) == 0)
            return gpuimg__fail(ctx, GPUIMG_ERR_NOMEM, "batch: cannot start threads");
        return GPUIMG_OK;
    }
    /* Sized before the device stage is known: as many workers as it will
     * have on one GPU (all of the CPU's when the CPU is named). */
    int planned = b->cfg.backend == GPUIMG_BACKEND_CPU ? r->jobs
                  : opt->devices                       ? STREAMS_PER_DEVICE * opt->ndevices
                                                       : STREAMS_PER_DEVICE;
    /* JPEGs for the device's decoder wait as compressed bytes, a tenth of
     * their pixels: room for each worker's group of them as well */
    int group = b->cfg.jpeg_codec != GPUIMG_JPEG_CPU && plan_has_jpeg(b, 1) ? JPEG_BATCH : 0;
    b->max_in_flight = 2 * r->jobs + (group + 2) * planned;
    /* first, so that run_stop may always free it; no producer until the
     * decoders start, so that run_abort never waits on one */
    int queued = queue_init(&b->to_device, (size_t)((group ? group : 2) * planned), 0);
    atomic_store(&b->device_jpeg, -1); /* known once the device stage opens */
    b->pool = gpuimg__pool_create(r->jobs);
    b->buffers = gpuimg__host_buffers_create();
    if (!queued || !b->pool || !b->buffers || !(r->dec = calloc((size_t)r->jobs, sizeof *r->dec)))
        return gpuimg__fail(ctx, GPUIMG_ERR_NOMEM, "batch: out of memory");
    for (int i = 0; i < r->jobs; i++) {
        gpuimg_config cpu = b->cfg;
        cpu.backend = GPUIMG_BACKEND_CPU; /* codec workers never touch a device */
        gpuimg_status st = gpuimg_ctx_create(&cpu, &r->dec[i].ctx);
        if (st != GPUIMG_OK)
            return gpuimg__fail(ctx, st, "batch: cannot create a context");
        r->dec[i].b = b;
        /* The decoders lend the pool (a PNG's rows unfilter on it); each
         * has a file of its own, so none splits one (JPEG bands). */
        r->dec[i].ctx->pool = b->pool;
        r->dec[i].ctx->split_files = 0;
        r->dec[i].ctx->buffers = b->buffers;
    }
    b->to_device.producers = r->jobs; /* no thread runs yet */
    pthread_t opener;
    int opening = pthread_create(&opener, NULL, open_devices, &r->dv) == 0;
    if (!opening)
        open_devices(&r->dv);
    for (int i = 0; i < r->jobs; i++)
        r->dec[i].started = pthread_create(&r->dec[i].thread, NULL, decode_worker, &r->dec[i]) == 0;
    /* A thread that could not start is a producer that will never finish. */
    for (int i = 0; i < r->jobs; i++)
        if (!r->dec[i].started)
            queue_producer_done(&b->to_device);
    if (opening)
        pthread_join(opener, NULL);
    gpuimg_status st = r->dv.st;
    int started = 0;
    for (int i = 0; st == GPUIMG_OK && i < r->dv.ndev; i++)
        started += r->dv.dev[i].started =
            pthread_create(&r->dv.dev[i].thread, NULL, device_worker, &r->dv.dev[i]) == 0;
    if (st == GPUIMG_OK && (started == 0 || gpuimg__pool_workers(b->pool) == 0))
        st = gpuimg__fail(ctx, GPUIMG_ERR_NOMEM, "batch: cannot start threads");
    return st;
}

/* After a failed start: stops the decoders and drops what they queued,
 * since no device worker will take it. */
static void run_abort(batch *b)
{
    atomic_store(&b->stop, 1);
    atomic_store(&b->abort, 1);
    for (item *it; (it = queue_pop(&b->to_device)) != NULL;)
        gate_leave(b, it);
}

/* Waits for the threads: the decoders, then the device workers (who leave
 * when the queue is empty and every decoder done), then the encode pool,
 * which runs what is left; frees the run. */
static void run_stop(batch *b, run *r)
{
    for (int i = 0; r->dec && i < r->jobs; i++)
        if (r->dec[i].started)
            pthread_join(r->dec[i].thread, NULL);
    for (int i = 0; i < r->dv.ndev; i++)
        if (r->dv.dev[i].started)
            pthread_join(r->dv.dev[i].thread, NULL);
    gpuimg__pool_destroy(b->pool); /* after the last job was queued */
    queue_destroy(&b->to_device);
    for (int i = 0; r->dec && i < r->jobs; i++) {
        add_timings(b, r->dec[i].ctx);
        gpuimg_ctx_destroy(r->dec[i].ctx);
    }
    for (int i = 0; i < r->dv.ndev; i++) {
        add_timings(b, r->dv.dev[i].ctx);
        gpuimg_ctx_destroy(r->dv.dev[i].ctx);
    }
    for (encoder *e = b->encoders, *next; e; e = next) {
        next = e->next;
        add_timings(b, e->ctx);
        gpuimg_ctx_destroy(e->ctx);
        free(e);
    }
    free(r->dec);
    free(r->dv.dev);
    /* last: every image is freed, and no context may pin any more */
    gpuimg__host_buffers_release(b->buffers);
}

gpuimg_status gpuimg_batch(gpuimg_ctx *ctx, const gpuimg_batch_options *opt,
                           gpuimg_batch_summary *summary)
{
    memset(summary, 0, sizeof *summary);
    double t0 = gpuimg__now_ms();
    batch b;
    memset(&b, 0, sizeof b);
    b.opt = opt;
    b.cfg = ctx->cfg;
    b.depth_warned = ctx->depth_warned;
    gpuimg_status st = gpuimg__plan_batch(ctx, opt, &b.plan);
    if (st != GPUIMG_OK)
        return st;
    pthread_mutex_init(&b.gate_lock, NULL);
    pthread_cond_init(&b.gate_open, NULL);
    pthread_mutex_init(&b.report_lock, NULL);
    pthread_mutex_init(&b.encoders_lock, NULL);
    gpuimg__budget_init(&b.budget, gpuimg__budget_of(&ctx->cfg));
    b.sum.total = b.plan.files.n;
    b.sum.ignored = b.plan.ignored;
    /* Unreadable subfolders: failures, reported like files (not in total). */
    for (size_t i = 0; i < b.plan.bad_folders.n; i++) {
        b.sum.failed++;
        if (opt->on_event) {
            const char *why = b.plan.bad_folders.rel[i];
            gpuimg_batch_event ev = {GPUIMG_BATCH_FAILED, why, NULL, why, 0, 0, 0, 0};
            opt->on_event(opt->user, &ev);
        }
    }
    if ((st = make_out_dir(ctx, opt->out_dir)) == GPUIMG_OK) {
        for (size_t i = 0; i < b.plan.files.n; i++)
            if (b.plan.skip[i])
                report(&b, i, GPUIMG_BATCH_SKIPPED, NULL);
        run r = {0};
        st = run_start(ctx, &b, &r);
        if (st != GPUIMG_OK)
            run_abort(&b);
        else if (b.one_pool)
            feed_pool(&b);
        run_stop(&b, &r);
    }
    gpuimg__plan_free(&b.plan);
    pthread_mutex_destroy(&b.gate_lock);
    pthread_cond_destroy(&b.gate_open);
    pthread_mutex_destroy(&b.report_lock);
    pthread_mutex_destroy(&b.encoders_lock);
    gpuimg__budget_destroy(&b.budget);
    /* Cleared at the end, not the start: a signal that came while the batch
     * was being set up still stops it. */
    b.sum.cancelled = atomic_exchange(&batch_cancelled, 0);
    b.sum.seconds = (gpuimg__now_ms() - t0) / 1000.0;
    for (int s = 0; s < GPUIMG_STAGE_COUNT; s++) /* --time: the workers' stages, summed */
        ctx->stage_ms[s] += b.stage_ms[s];
    *summary = b.sum;
    return st;
}
