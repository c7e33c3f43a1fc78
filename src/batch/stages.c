/* SPDX-License-Identifier: MIT */
/* A batch's stages (batch.h): the decoders, the device stage's workers and
 * their opening, the encode jobs, and the CPU batch's file jobs. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "batch/batch.h"
#include "core/host_buffers.h"
#include "core/trace.h"
#include "io/io.h"
#include "io/metadata.h"

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
 * will take it (run/route.c: a JPEG it may decode), whose bytes and
 * metadata the item keeps instead. */
static gpuimg_status read_for_device(gpuimg_ctx *ctx, batch *b, const char *input, item *it)
{
    uint8_t *data;
    size_t size;
    double t0 = gpuimg__now_ms();
    gpuimg_status st = read_admitted(ctx, b, input, it, &data, &size);
    t0 = gpuimg__trace_since("read", t0);
    if (st != GPUIMG_OK)
        return st;
    int on_device = 0;
    st = gpuimg__route_decode(ctx, atomic_load(&b->device_jpeg), input, data, size, &it->jf,
                              &on_device);
    gpuimg__trace_since("structure walk", t0);
    if (st != GPUIMG_OK)
        free(data);
    else if (on_device) {
        it->bytes = data;
        it->size = size;
        it->jf.name = NULL; /* input is this function's; the decode needs no name */
    } else
        st = gpuimg__load_owned(ctx, data, size, input, &it->image);
    return st;
}

void *gpuimg__decode_worker(void *arg)
{
    worker *w = arg;
    batch *b = w->b;
    for (;;) {
        size_t i = atomic_fetch_add(&b->next, 1);
        if (i >= b->plan.files.n || gpuimg__batch_stopping(b))
            break;
        if (b->plan.skip[i]) /* reported as skipped before the start */
            continue;
        double t0 = gpuimg__now_ms();
        gpuimg__gate_enter(b);
        gpuimg__trace_since("wait: gate", t0);
        if (gpuimg__batch_stopping(b)) { /* it may have come while this thread waited */
            gpuimg__gate_leave(b, NULL);
            break;
        }
        item *it = gpuimg__batch_item(b, i);
        if (!it)
            continue;
        char input[PATH_BUF];
        snprintf(input, sizeof input, "%s/%s", b->opt->in_dir, b->plan.files.rel[i]);
        if (read_for_device(w->ctx, b, input, it) != GPUIMG_OK) {
            gpuimg__batch_report(b, i, GPUIMG_BATCH_FAILED, gpuimg_ctx_error(w->ctx));
            gpuimg__gate_leave(b, it);
            continue;
        }
        if (gpuimg__batch_stopping(b)) { /* stopped while it waited for the budget: not counted */
            gpuimg__gate_leave(b, it);
            break;
        }
        t0 = gpuimg__now_ms();
        gpuimg__queue_push(&b->to_device, it);
        gpuimg__trace_since("wait: queue full", t0);
    }
    gpuimg__queue_producer_done(&b->to_device);
    return NULL;
}

static void encode_job(gpuimg_task *task);

/* A worker context's stages into the batch's sums (--time). */
void gpuimg__add_timings(batch *b, const gpuimg_ctx *ctx)
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

/* Once the steps are done the item holds its output alone: the budget it
 * took for its decoded input is given back down to that (a thumbnail
 * batch's memory then follows its small outputs, and more files start). */
static void output_charged(batch *b, item *it)
{
    const gpuimg_image *o = &it->out.image;
    uint64_t held = it->out.jpeg ? (uint64_t)it->out.jpeg_len
                                 : (uint64_t)o->width * o->height * o->channels *
                                       (gpuimg_image_depth(o) == 16 ? 2 : 1);
    if (held < it->taken) {
        gpuimg__budget_give(&b->budget, it->taken - held);
        it->taken = held;
    }
}

/* One item's run on a device worker, from its planes (cur: decoded there,
 * or NULL: the item's image, uploaded now), then its encode job queued;
 * or, without a JPEG codec on the device, gpuimg_run as it always was. */
static void run_item(worker *w, int jpeg_device, item *it, gpuimg_planes *cur)
{
    batch *b = w->b;
    gpuimg_ctx *ctx = w->ctx;
    if (atomic_load(&gpuimg__batch_cancelled) || atomic_load(&b->abort)) {
        if (cur)
            ctx->backend->ops->planes_free(ctx->backend, cur);
        gpuimg__gate_leave(b, it); /* cancelled: not started, not counted */
        return;
    }
    gpuimg_status st = GPUIMG_OK;
    if (!jpeg_device && !cur) {
        gpuimg_image out;
        st = gpuimg__run_planned(ctx, ctx->backend, &b->steps, &it->image, NULL, &out);
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
            st = gpuimg__planes_finish(ctx, ctx->backend, cur, b->steps.steps, b->steps.nsteps,
                                       meta, gpuimg_format_from_path(b->plan.outputs[it->index]),
                                       jpeg_device, &it->out);
        else
            gpuimg_metadata_free(meta);
    }
    if (st != GPUIMG_OK) {
        gpuimg__batch_report(b, it->index, GPUIMG_BATCH_FAILED, gpuimg_ctx_error(ctx));
        gpuimg__gate_leave(b, it);
        return;
    }
    output_charged(b, it);
    it->task.run = encode_job;
    gpuimg__pool_job(b->pool, &it->task);
}

/* Up to b->jpeg_batch items taken together: the JPEGs for the device's
 * decoder in one call. After it each item holds its image (decoded on the
 * CPU, here when nvJPEG refused it or the device has no codec, or by a
 * decoder thread) or its planes (on_planes); one that failed is reported,
 * out of the gate, and NULL in group. A file that fails to decode fails
 * alone (a failure of the device itself fails the group's JPEGs). */
static void decode_group(worker *w, int jpeg_device, item **group, int m)
{
    batch *b = w->b;
    gpuimg__jpeg_file *files[JPEG_BATCH_MAX];
    gpuimg_planes planes[JPEG_BATCH_MAX];
    int refused[JPEG_BATCH_MAX], slot[JPEG_BATCH_MAX], k = 0;
    for (int i = 0; i < m; i++) {
        slot[i] = -1;
        if (group[i]->bytes && jpeg_device) {
            slot[i] = k;
            files[k++] = &group[i]->jf;
        }
    }
    if (atomic_load(&gpuimg__batch_cancelled)) { /* not started, not counted */
        for (int i = 0; i < m; i++) {
            if (group[i]->on_planes) /* decoded by another worker of this device */
                w->ctx->backend->ops->planes_free(w->ctx->backend, &group[i]->planes);
            group[i]->on_planes = 0;
            gpuimg__gate_leave(b, group[i]);
            group[i] = NULL;
        }
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
                gpuimg__batch_report(b, it->index, GPUIMG_BATCH_FAILED, gpuimg_ctx_error(w->ctx));
                gpuimg__gate_leave(b, it);
                group[i] = NULL;
            }
        } else if (it->bytes) {
            free(it->bytes); /* decoded on the device: now its warnings */
            it->bytes = NULL;
            it->planes = planes[j];
            it->on_planes = 1;
            if (it->jf.notes.count) {
                char input[PATH_BUF];
                snprintf(input, sizeof input, "%s/%s", b->opt->in_dir,
                         b->plan.files.rel[it->index]);
                gpuimg__metadata_tell(w->ctx, input, &it->jf.notes);
            }
        }
    }
}

/* A finishing worker's items: each run from its planes or its image. */
static void finish_group(worker *w, int jpeg_device, item **group, int m)
{
    for (int i = 0; i < m; i++) {
        item *it = group[i];
        if (!it)
            continue;
        int on_planes = it->on_planes;
        it->on_planes = 0; /* run_item frees them */
        run_item(w, jpeg_device, it, on_planes ? &it->planes : NULL);
    }
}

/* The items a worker takes at once: up to b->jpeg_batch JPEGs waiting for
 * the device's decoder, else one. */
static int take_group(worker *w, item **group)
{
    batch *b = w->b;
    double t0 = gpuimg__now_ms();
    item *it = gpuimg__queue_pop(w->in);
    gpuimg__trace_since("wait: queue empty", t0);
    if (!it)
        return 0;
    group[0] = it;
    int m = 1;
    while (it->bytes && m < b->jpeg_batch && (group[m] = gpuimg__queue_take(w->in, 0)) != NULL)
        m++;
    return m;
}

void gpuimg__device_ready(batch *b, int order)
{
    if (!b->device_ready)
        return;
    pthread_mutex_lock(&b->ready_lock);
    b->device_ready[order] = 1;
    pthread_cond_broadcast(&b->ready_changed);
    pthread_mutex_unlock(&b->ready_lock);
}

/* A worker of the second device or a later one waits for the device
 * before it (batch.h: device_ready). */
static void wait_turn(worker *w)
{
    batch *b = w->b;
    if (!b->device_ready || w->order == 0)
        return;
    double t0 = gpuimg__now_ms();
    pthread_mutex_lock(&b->ready_lock);
    while (!b->device_ready[w->order - 1])
        pthread_cond_wait(&b->ready_changed, &b->ready_lock);
    pthread_mutex_unlock(&b->ready_lock);
    gpuimg__trace_since("wait: the device before", t0);
}

void *gpuimg__device_worker(void *arg)
{
    worker *w = arg;
    batch *b = w->b;
    gpuimg_backend *be;
    wait_turn(w);
    /* Each worker sets up its own nvJPEG codec here, all at once (the
     * handles are shared, and each makes only the state it uses): the
     * first ready says for the decoders whether JPEGs are kept for the
     * device. Under --jpeg-codec gpu the opening has checked it already. */
    int has_jpeg = gpuimg__plan_has_jpeg(b, 0);
    int jpeg_device = atomic_load(&b->device_jpeg) != 0 && has_jpeg &&
                      gpuimg__backend(w->ctx, &be) == GPUIMG_OK &&
                      gpuimg__jpeg_device(w->ctx, be) == 1;
    if (has_jpeg) {
        int unknown = -1;
        atomic_compare_exchange_strong(&b->device_jpeg, &unknown, jpeg_device);
    }
    item *group[JPEG_BATCH_MAX];
    int m, first = 1;
    while ((m = take_group(w, group)) > 0) {
        decode_group(w, jpeg_device, group, m);
        if (w->decodes && first) /* its state is made: the next device's turn */
            gpuimg__device_ready(b, w->order);
        first = 0;
        if (!w->decodes) {
            finish_group(w, jpeg_device, group, m);
            continue;
        }
        /* the planes whole (their orientation's kernels ran on this
         * worker's stream) before another worker's stream reads them */
        gpuimg_backend *dbe = w->ctx->backend;
        gpuimg_status st = dbe && dbe->ops->synchronize ? dbe->ops->synchronize(dbe) : GPUIMG_OK;
        if (st != GPUIMG_OK)
            gpuimg__backend_fail(w->ctx, st, "JPEG decode");
        for (int i = 0; i < m; i++) {
            item *it = group[i];
            if (it && st != GPUIMG_OK) { /* a failure of the device: the group's files fail */
                if (it->on_planes)
                    dbe->ops->planes_free(dbe, &it->planes);
                it->on_planes = 0;
                gpuimg__batch_report(b, it->index, GPUIMG_BATCH_FAILED, gpuimg_ctx_error(w->ctx));
                gpuimg__gate_leave(b, it);
            } else if (it) {
                gpuimg__queue_push(w->out, it);
            }
        }
    }
    if (w->decodes) {
        gpuimg__queue_producer_done(w->out);
        gpuimg__device_ready(b, w->order); /* if it never decoded */
    }
    /* done: its device resources go now, beside the other workers' last
     * images, not one after another at the end */
    double t0 = gpuimg__now_ms();
    gpuimg__add_timings(b, w->ctx);
    gpuimg_ctx_destroy(w->ctx);
    w->ctx = NULL;
    gpuimg__trace_since("teardown", t0);
    return NULL;
}

static encoder *encoder_take(batch *b)
{
    pthread_mutex_lock(&b->encoders_lock);
    encoder *e = b->idle_encoders;
    if (e)
        b->idle_encoders = e->next_idle;
    pthread_mutex_unlock(&b->encoders_lock);
    if (e)
        return e;
    /* codec work never touches a device; a PNG's chunks are its pieces on
     * the one pool */
    gpuimg__ctx_share share = {b->pool, b->buffers, b->depth_warned};
    if (!(e = calloc(1, sizeof *e)) ||
        gpuimg__ctx_worker(&b->cfg, GPUIMG_BACKEND_CPU, 0, &share, &e->ctx) != GPUIMG_OK) {
        free(e);
        return NULL;
    }
    gpuimg__plan_shrink(e->ctx, &b->steps);
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
        gpuimg__batch_report(b, it->index, GPUIMG_BATCH_FAILED, why);
    } else if (gpuimg__output_save(e->ctx, out, GPUIMG_FORMAT_NONE, &it->out, 0) != GPUIMG_OK) {
        gpuimg__batch_report(b, it->index, GPUIMG_BATCH_FAILED, gpuimg_ctx_error(e->ctx));
    } else {
        gpuimg__batch_report(b, it->index, GPUIMG_BATCH_DONE, NULL);
    }
}

/* One file's encode job, on a pool worker. */
static void encode_job(gpuimg_task *task)
{
    item *it = (item *)task;
    batch *b = it->b;
    if (atomic_load(&gpuimg__batch_cancelled)) {
        gpuimg__gate_leave(b, it);
        return;
    }
    encoder *e = encoder_take(b);
    if (!e) {
        gpuimg__batch_report(b, it->index, GPUIMG_BATCH_FAILED, "out of memory");
    } else {
        double t0 = gpuimg__now_ms();
        save_item(b, e, it);
        gpuimg__trace_since("write", t0);
        encoder_give(b, e);
    }
    gpuimg__gate_leave(b, it); /* frees the item, and with it this task */
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
    if (gpuimg__batch_stopping(b)) { /* not started: not counted */
        gpuimg__gate_leave(b, it);
        return;
    }
    encoder *e = encoder_take(b);
    char input[PATH_BUF];
    snprintf(input, sizeof input, "%s/%s", b->opt->in_dir, b->plan.files.rel[it->index]);
    gpuimg_image out;
    gpuimg_backend *be;
    uint8_t *data;
    size_t size;
    double t0 = gpuimg__now_ms();
    gpuimg_status rd = e ? read_admitted(e->ctx, b, input, it, &data, &size) : GPUIMG_ERR_NOMEM;
    gpuimg__trace_since("read", t0);
    if (!e) {
        gpuimg__batch_report(b, it->index, GPUIMG_BATCH_FAILED, "out of memory");
    } else if (rd != GPUIMG_OK) {
        gpuimg__batch_report(b, it->index, GPUIMG_BATCH_FAILED, gpuimg_ctx_error(e->ctx));
    } else if (gpuimg__batch_stopping(
                   b)) { /* stopped while it waited for the budget: not started */
        free(data);
    } else if (gpuimg__load_owned(e->ctx, data, size, input, &it->image) != GPUIMG_OK ||
               gpuimg__backend(e->ctx, &be) != GPUIMG_OK ||
               gpuimg__run_planned(e->ctx, be, &b->steps, &it->image, &it->image, &out) !=
                   GPUIMG_OK) {
        gpuimg_image_free(&it->image);
        gpuimg__batch_report(b, it->index, GPUIMG_BATCH_FAILED, gpuimg_ctx_error(e->ctx));
    } else {
        gpuimg_image_free(&it->image); /* when the run did not free it already */
        it->out.image = out;
        output_charged(b, it);
        t0 = gpuimg__now_ms();
        save_item(b, e, it);
        gpuimg__trace_since("write", t0);
    }
    if (e)
        encoder_give(b, e);
    gpuimg__gate_leave(b, it);
}

/* Queues every file as a job, in sorted order, as the gate lets it. */
void gpuimg__feed_pool(batch *b)
{
    for (size_t i = 0; i < b->plan.files.n && !gpuimg__batch_stopping(b); i++) {
        if (b->plan.skip[i])
            continue;
        gpuimg__gate_enter(b);
        item *it = gpuimg__batch_item(b, i);
        if (!it)
            continue;
        it->task.run = file_job;
        gpuimg__pool_job(b->pool, &it->task);
    }
}

/* One device's workers opened (its CUDA context made by the first), on a
 * thread of its own: the devices open side by side. */
typedef struct device_opening {
    batch *b;
    worker *ws; /* per of them */
    int per, device, cuda;
    gpuimg_status st;
    char error[512];
} device_opening;

static void *open_one_device(void *arg)
{
    device_opening *d = arg;
    batch *b = d->b;
    double t0 = gpuimg__now_ms();
    /* the buffers before it opens: a CUDA one pins them; the CPU's
     * operations split over the batch's pool, not one each */
    gpuimg__ctx_share share = {d->cuda ? NULL : b->pool, b->buffers, b->depth_warned};
    for (int k = 0; k < d->per && d->st == GPUIMG_OK; k++) {
        worker *w = &d->ws[k];
        const char *name;
        if ((d->st = gpuimg__ctx_worker(&b->cfg, d->cuda ? GPUIMG_BACKEND_CUDA : GPUIMG_BACKEND_CPU,
                                        d->device, &share, &w->ctx)) != GPUIMG_OK) {
            snprintf(d->error, sizeof d->error, "batch: cannot create a context: %s",
                     gpuimg_ctx_error(NULL));
            break;
        }
        w->b = b;
        w->device = d->device;
        gpuimg__plan_shrink(w->ctx, &b->steps);
        if ((d->st = gpuimg_ctx_backend(w->ctx, &name)) != GPUIMG_OK) {
            snprintf(d->error, sizeof d->error, "%s", gpuimg_ctx_error(w->ctx));
            gpuimg_ctx_destroy(w->ctx);
            w->ctx = NULL;
        }
    }
    gpuimg__trace_since("open device", t0);
    return NULL;
}

static gpuimg_status open_device_workers(gpuimg_ctx *ctx, batch *b, const char *backend,
                                         worker **out, int *count, int jobs)
{
    const gpuimg_batch_options *opt = b->opt;
    int cuda = strcmp(backend, "cuda") == 0;
    int ndev = !cuda ? 1 : opt->devices ? opt->ndevices : opt->ndevices < 0 ? 64 : 1;
    if (!cuda)
        b->decoders = 0; /* "auto" took the CPU: nothing to decode on a device */
    int per = cuda ? b->streams + b->decoders : jobs;
    if (cuda && opt->ndevices < 0 && !opt->devices) { /* "all": as many as there are */
        int present = gpuimg__cuda_device_count();
        ndev = present > 0 ? present : 1;
    }
    worker *ws = calloc((size_t)ndev * (size_t)per, sizeof *ws);
    device_opening *d = calloc((size_t)ndev, sizeof *d);
    pthread_t *threads = calloc((size_t)ndev, sizeof *threads);
    int *started = calloc((size_t)ndev, sizeof *started);
    *out = ws;
    *count = 0;
    if (!ws || !d || !threads || !started) {
        free(d);
        free(threads);
        free(started);
        return gpuimg__fail(ctx, GPUIMG_ERR_NOMEM, "batch: out of memory");
    }
    for (int i = 0; i < ndev; i++) {
        d[i] = (device_opening){.b = b, .ws = ws + (size_t)i * per, .per = per, .cuda = cuda};
        d[i].device = !cuda               ? 0
                      : opt->devices      ? opt->devices[i]
                      : opt->ndevices < 0 ? i
                                          : b->cfg.device;
        /* the first here, the others beside it */
        started[i] = i > 0 && pthread_create(&threads[i], NULL, open_one_device, &d[i]) == 0;
    }
    if (ndev > 0)
        open_one_device(&d[0]);
    for (int i = 1; i < ndev; i++)
        if (started[i])
            pthread_join(threads[i], NULL);
        else
            open_one_device(&d[i]);
    /* The workers in device order, those of a device that failed left out;
     * a failure is the batch's (an explicit list, or the first device) */
    gpuimg_status st = GPUIMG_OK;
    int n = 0, all = opt->ndevices < 0 && !opt->devices;
    for (int i = 0; i < ndev; i++) {
        if (d[i].st != GPUIMG_OK) {
            for (int k = 0; k < per; k++)
                gpuimg_ctx_destroy(d[i].ws[k].ctx);
            /* "all": a device after the first that cannot be had is left out */
            if ((all && i > 0 && d[i].st == GPUIMG_ERR_NO_DEVICE) || st != GPUIMG_OK)
                continue;
            st = d[i].cuda
                     ? gpuimg__fail(ctx, d[i].st, "batch: device %d: %s", d[i].device, d[i].error)
                     : gpuimg__fail(ctx, d[i].st, "%s", d[i].error);
            continue;
        }
        for (int k = 0; k < per; k++) /* forward: n never passes i * per + k */
            ws[n++] = d[i].ws[k];
    }
    free(d);
    free(threads);
    free(started);
    *count = n;
    return st;
}

/* Whether the plan reads JPEG files (inputs 1), or reads or writes any
 * (inputs 0), by their names. */
int gpuimg__plan_has_jpeg(const batch *b, int inputs)
{
    for (size_t i = 0; i < b->plan.files.n; i++)
        if (gpuimg_format_from_path(b->plan.files.rel[i]) == GPUIMG_FORMAT_JPEG ||
            (!inputs && gpuimg_format_from_path(b->plan.outputs[i]) == GPUIMG_FORMAT_JPEG))
            return 1;
    return 0;
}

void *gpuimg__open_devices(void *arg)
{
    devices_opening *o = arg;
    const char *backend; /* auto resolves once, here, with its one notice */
    o->st = gpuimg_ctx_backend(o->ctx, &backend);
    if (o->st == GPUIMG_OK)
        o->st = open_device_workers(o->ctx, o->b, backend, &o->dev, &o->ndev, o->jobs);
    /* nvJPEG is each worker's to set up, on its own thread (device_worker);
     * --jpeg-codec gpu needs it for sure before any file is touched: the
     * first device's first worker says for all (one library) */
    if (o->st == GPUIMG_OK && o->ndev > 0 && o->b->cfg.jpeg_codec == GPUIMG_JPEG_GPU &&
        gpuimg__plan_has_jpeg(o->b, 0)) {
        double t0 = gpuimg__now_ms();
        int jpeg = gpuimg__jpeg_device(o->dev[0].ctx, o->dev[0].ctx->backend);
        gpuimg__trace_since("nvJPEG (checked)", t0);
        if (jpeg < 0)
            o->st = gpuimg__fail(o->ctx, GPUIMG_ERR_NO_DEVICE, "batch: %s",
                                 gpuimg_ctx_error(o->dev[0].ctx));
        atomic_store(&o->b->device_jpeg, jpeg > 0);
    } else if (!gpuimg__plan_has_jpeg(o->b, 0) || o->ndev == 0) {
        atomic_store(&o->b->device_jpeg, 0);
    }
    return NULL;
}
