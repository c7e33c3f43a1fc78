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
 * (file_job), so the threads never outnumber --jobs.
 *
 * The parts: plan.c decides everything before a thread starts, queue.c
 * holds the queue and the gate, stages.c the stages' threads and jobs,
 * and this file starts and stops them. */
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

#include "batch/batch.h"
#include "core/host_buffers.h"
#include "io/io.h"
#include "ops/ops.h"

/* Whether CUDA could open at all: a build with it, and the NVIDIA driver's
 * control device, present wherever a CUDA device is (containers that are
 * given one included). Where it is missing "auto" can only be the CPU, and
 * the batch takes the one pool at once. */
static int cuda_possible(void)
{
    return gpuimg__cuda_backend()->planes_alloc != NULL && access("/dev/nvidiactl", F_OK) == 0;
}

/* Under "auto": a batch whose first step is a thumbnail that shrinks its
 * JPEGs on load (SPEC §3) runs on the CPU. libjpeg-turbo decodes those
 * JPEGs on either backend (route.c), and the device would be left a few
 * small resizes for its start-up and copies: on an H100, 400 photographs
 * to 224x224 took 1.2 s on its 16 cores and 2.4 s with the device. The
 * first JPEG's header and the size asked decide, as they decide the shrink. */
static int shrinks_on_load(gpuimg_ctx *ctx, batch *b)
{
    if (b->steps.nsteps == 0)
        return 0;
    for (size_t i = 0; i < b->plan.files.n; i++) {
        if (gpuimg_format_from_path(b->plan.files.rel[i]) != GPUIMG_FORMAT_JPEG)
            continue;
        char path[PATH_BUF];
        gpuimg_file_info fi;
        snprintf(path, sizeof path, "%s/%s", b->opt->in_dir, b->plan.files.rel[i]);
        int shrinks = gpuimg_probe(ctx, path, &fi) == GPUIMG_OK &&
                      gpuimg__thumbnail_shrink(b->steps.steps[0], fi.width, fi.height) > 1;
        ctx->error[0] = '\0'; /* a file that cannot be read fails in its turn */
        return shrinks;
    }
    return 0;
}

/* Contexts for the device stage: one per stream of each device, opened now
 * so that a missing device stops the batch before any file is touched. */

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

/* A benchmark's knob (batch.h): the environment's value in least..most,
 * else the default. */
static int knob(const char *name, int fallback, int least, int most)
{
    const char *v = getenv(name);
    char *end;
    long n = v && *v ? strtol(v, &end, 10) : -1;
    return v && *v && !*end && n >= least && n <= most ? (int)n : fallback;
}

/* The run: the workers and their contexts, the queue, the pool. */
typedef struct run {
    int jobs;
    worker *dec;        /* the decode threads, one context each */
    devices_opening dv; /* the device stage */
} run;

/* The device stage's queues: per device, where it decodes JPEG, its first
 * b->decoders workers read the decoders' queue and feed a queue of their
 * own, which the device's other (finishing) workers read; elsewhere every
 * worker reads the decoders' queue. The opening lists the workers device
 * by device. */
static gpuimg_status wire_devices(gpuimg_ctx *ctx, batch *b, devices_opening *dv)
{
    int groups = 0;
    for (int i = 0; i < dv->ndev; i++)
        groups += i == 0 || dv->dev[i].device != dv->dev[i - 1].device;
    if (b->decoders && groups &&
        (!(b->decoded = calloc((size_t)groups, sizeof *b->decoded)) ||
         !(b->device_ready = calloc((size_t)groups, sizeof *b->device_ready))))
        return gpuimg__fail(ctx, GPUIMG_ERR_NOMEM, "batch: out of memory");
    int g = -1, k = 0;
    for (int i = 0; i < dv->ndev; i++) {
        worker *w = &dv->dev[i];
        if (i == 0 || w->device != dv->dev[i - 1].device) {
            g++;
            k = 0;
            if (b->decoders) {
                if (!gpuimg__queue_init(&b->decoded[g], (size_t)(2 * b->jpeg_batch), b->decoders))
                    return gpuimg__fail(ctx, GPUIMG_ERR_NOMEM, "batch: out of memory");
                b->ndecoded = g + 1;
            }
        }
        w->order = g;
        w->decodes = b->decoders && k < b->decoders;
        w->in = b->decoders && !w->decodes ? &b->decoded[g] : &b->to_device;
        w->out = w->decodes ? &b->decoded[g] : NULL;
        k++;
    }
    return GPUIMG_OK;
}

/* Makes the decoders' contexts, the encode pool and the queue; opens the
 * device stage on a thread of its own while the decoders start (starting
 * CUDA takes about 0.3 s), then starts the device workers. Nothing is
 * written before the device stage is open; if it cannot open, the batch
 * stops with its error and what was decoded is dropped. */
static gpuimg_status run_start(gpuimg_ctx *ctx, batch *b, run *r)
{
    const gpuimg_batch_options *opt = b->opt;
    r->jobs = gpuimg__thread_count(opt->jobs);
    b->streams = knob("GPUIMG_STREAMS", STREAMS_PER_DEVICE, 1, 16);
    b->jpeg_batch = knob("GPUIMG_JPEG_BATCH", JPEG_BATCH, 1, JPEG_BATCH_MAX);
    /* decoding workers only where the device may decode JPEG (the opening
     * drops them when the backend turns out to be the CPU) */
    b->decoders = knob("GPUIMG_DECODERS", DECODERS_PER_DEVICE, 0, 4);
    if (b->cfg.jpeg_codec == GPUIMG_JPEG_CPU || !gpuimg__plan_has_jpeg(b, 1))
        b->decoders = 0;
    r->dv = (devices_opening){.ctx = ctx, .b = b, .jobs = r->jobs};
    if (b->cfg.backend == GPUIMG_BACKEND_AUTO && b->cfg.jpeg_codec != GPUIMG_JPEG_GPU &&
        cuda_possible() && shrinks_on_load(ctx, b))
        ctx->cfg.backend = b->cfg.backend = GPUIMG_BACKEND_CPU; /* the device not even opened */
    if (b->cfg.backend == GPUIMG_BACKEND_CPU ||
        (b->cfg.backend == GPUIMG_BACKEND_AUTO && !cuda_possible())) {
        const char *backend; /* "auto" says once that it takes the CPU */
        gpuimg_status st = gpuimg_ctx_backend(ctx, &backend);
        if (st != GPUIMG_OK)
            return st;
        if (b->cfg.jpeg_codec == GPUIMG_JPEG_GPU && gpuimg__plan_has_jpeg(b, 0))
            return gpuimg__fail(ctx, GPUIMG_ERR_NO_DEVICE,
                                "--jpeg-codec gpu: no CUDA device (the batch runs on the CPU)");
        b->one_pool = 1;
        b->max_in_flight = 2 * r->jobs; /* queued jobs hold no pixels yet */
        b->pool = gpuimg__pool_create(r->jobs);
        b->buffers = gpuimg__host_buffers_create();
        int queued = gpuimg__queue_init(&b->to_device, 1, 0); /* unused; run_stop frees it */
        if (!queued || !b->pool || !b->buffers)
            return gpuimg__fail(ctx, GPUIMG_ERR_NOMEM, "batch: out of memory");
        if (gpuimg__pool_workers(b->pool) == 0)
            return gpuimg__fail(ctx, GPUIMG_ERR_NOMEM, "batch: cannot start threads");
        return GPUIMG_OK;
    }
    /* Sized before the device stage is known: as many workers as it will
     * have on one GPU (all of the CPU's when the CPU is named). */
    int per = b->streams + b->decoders;
    int planned = b->cfg.backend == GPUIMG_BACKEND_CPU ? r->jobs
                  : opt->devices                       ? per * opt->ndevices
                                                       : per;
    /* JPEGs for the device's decoder wait as compressed bytes, a tenth of
     * their pixels: room for each worker's group of them as well */
    int group =
        b->cfg.jpeg_codec != GPUIMG_JPEG_CPU && gpuimg__plan_has_jpeg(b, 1) ? b->jpeg_batch : 0;
    b->max_in_flight = 2 * r->jobs + (group + 2) * planned;
    /* first, so that run_stop may always free it; no producer until the
     * decoders start, so that run_abort never waits on one */
    int queued = gpuimg__queue_init(&b->to_device, (size_t)((group ? group : 2) * planned), 0);
    atomic_store(&b->device_jpeg, -1); /* known once the device stage opens */
    b->pool = gpuimg__pool_create(r->jobs);
    b->buffers = gpuimg__host_buffers_create();
    if (!queued || !b->pool || !b->buffers || !(r->dec = calloc((size_t)r->jobs, sizeof *r->dec)))
        return gpuimg__fail(ctx, GPUIMG_ERR_NOMEM, "batch: out of memory");
    /* codec workers never touch a device; they lend the pool (a PNG's rows
     * unfilter on it), and each has a file of its own, so none splits one
     * (JPEG bands) */
    gpuimg__ctx_share share = {b->pool, b->buffers, b->depth_warned};
    for (int i = 0; i < r->jobs; i++) {
        gpuimg_status st =
            gpuimg__ctx_worker(&b->cfg, GPUIMG_BACKEND_CPU, 0, &share, &r->dec[i].ctx);
        if (st != GPUIMG_OK)
            return gpuimg__fail(ctx, st, "batch: cannot create a context: %s",
                                gpuimg_ctx_error(NULL));
        r->dec[i].b = b;
        gpuimg__plan_shrink(r->dec[i].ctx, &b->steps); /* a thumbnail's JPEGs shrink on load */
    }
    b->to_device.producers = r->jobs; /* no thread runs yet */
    pthread_t opener;
    int opening = pthread_create(&opener, NULL, gpuimg__open_devices, &r->dv) == 0;
    if (!opening)
        gpuimg__open_devices(&r->dv);
    for (int i = 0; i < r->jobs; i++)
        r->dec[i].started =
            pthread_create(&r->dec[i].thread, NULL, gpuimg__decode_worker, &r->dec[i]) == 0;
    /* A thread that could not start is a producer that will never finish. */
    for (int i = 0; i < r->jobs; i++)
        if (!r->dec[i].started)
            gpuimg__queue_producer_done(&b->to_device);
    if (opening)
        pthread_join(opener, NULL);
    gpuimg_status st = r->dv.st;
    if (st == GPUIMG_OK)
        st = wire_devices(ctx, b, &r->dv);
    /* The finishing workers first; a device's decoding workers only where
     * one of its finishing workers runs (else what they decode would wait
     * for ever), and a decoding worker that cannot start is a producer
     * that will never finish. */
    int started = 0, decoding = 0;
    for (int i = 0; st == GPUIMG_OK && i < r->dv.ndev; i++) {
        worker *w = &r->dv.dev[i];
        if (!w->decodes)
            started += w->started = pthread_create(&w->thread, NULL, gpuimg__device_worker, w) == 0;
    }
    for (int i = 0; st == GPUIMG_OK && i < r->dv.ndev; i++) {
        worker *w = &r->dv.dev[i];
        if (!w->decodes)
            continue;
        int finisher = 0;
        for (int k = 0; k < r->dv.ndev; k++)
            finisher |=
                r->dv.dev[k].order == w->order && !r->dv.dev[k].decodes && r->dv.dev[k].started;
        w->started = finisher && pthread_create(&w->thread, NULL, gpuimg__device_worker, w) == 0;
        started += w->started;
        decoding += w->started;
        if (!w->started) {
            gpuimg__queue_producer_done(w->out);
            gpuimg__device_ready(b, w->order);
        }
    }
    /* where JPEGs wait for decoding workers, some must run, or none is read */
    if (st == GPUIMG_OK && (started == 0 || (b->decoders && r->dv.ndev > 0 && !decoding) ||
                            gpuimg__pool_workers(b->pool) == 0))
        st = gpuimg__fail(ctx, GPUIMG_ERR_NOMEM, "batch: cannot start threads");
    return st;
}

/* After a failed start: stops the decoders and drops what they queued,
 * since no device worker will take it. */
static void run_abort(batch *b)
{
    atomic_store(&b->stop, 1);
    atomic_store(&b->abort, 1);
    for (item *it; (it = gpuimg__queue_pop(&b->to_device)) != NULL;)
        gpuimg__gate_leave(b, it);
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
    gpuimg__queue_destroy(&b->to_device);
    for (int i = 0; i < b->ndecoded; i++)
        gpuimg__queue_destroy(&b->decoded[i]);
    free(b->decoded);
    free(b->device_ready);
    for (int i = 0; r->dec && i < r->jobs; i++) {
        gpuimg__add_timings(b, r->dec[i].ctx);
        gpuimg_ctx_destroy(r->dec[i].ctx);
    }
    for (int i = 0; i < r->dv.ndev; i++) {
        gpuimg__add_timings(b, r->dv.dev[i].ctx);
        gpuimg_ctx_destroy(r->dv.dev[i].ctx);
    }
    for (encoder *e = b->encoders, *next; e; e = next) {
        next = e->next;
        gpuimg__add_timings(b, e->ctx);
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
    gpuimg_status st = gpuimg__plan_steps(ctx, opt->steps, opt->nsteps, &b.steps);
    if (st != GPUIMG_OK || (st = gpuimg__plan_batch(ctx, opt, &b.plan)) != GPUIMG_OK)
        return st;
    pthread_mutex_init(&b.gate_lock, NULL);
    pthread_cond_init(&b.gate_open, NULL);
    pthread_mutex_init(&b.report_lock, NULL);
    pthread_mutex_init(&b.encoders_lock, NULL);
    pthread_mutex_init(&b.ready_lock, NULL);
    pthread_cond_init(&b.ready_changed, NULL);
    gpuimg__budget_init(&b.budget, gpuimg__budget_of(&ctx->cfg));
    b.sum.total = b.plan.files.n;
    b.sum.ignored = b.plan.ignored.count;
    b.sum.ignored_named = b.plan.ignored.named;
    for (int i = 0; i < b.plan.ignored.named; i++) {
        char *name = b.sum.ignored_names[i];
        size_t room = sizeof b.sum.ignored_names[i];
        if ((size_t)snprintf(name, room, "%s", b.plan.ignored.first[i]) >= room) {
            size_t cut = room - 4; /* not inside a UTF-8 character */
            while (cut > 0 && ((unsigned char)name[cut] & 0xC0) == 0x80)
                cut--;
            memcpy(name + cut, "...", 4);
        }
    }
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
                gpuimg__batch_report(&b, i, GPUIMG_BATCH_SKIPPED, NULL);
        run r = {0};
        st = run_start(ctx, &b, &r);
        if (st != GPUIMG_OK)
            run_abort(&b);
        else if (b.one_pool)
            gpuimg__feed_pool(&b);
        run_stop(&b, &r);
    }
    gpuimg__plan_free(&b.plan);
    pthread_mutex_destroy(&b.gate_lock);
    pthread_cond_destroy(&b.gate_open);
    pthread_mutex_destroy(&b.report_lock);
    pthread_mutex_destroy(&b.encoders_lock);
    pthread_mutex_destroy(&b.ready_lock);
    pthread_cond_destroy(&b.ready_changed);
    gpuimg__budget_destroy(&b.budget);
    /* Cleared at the end, not the start: a signal that came while the batch
     * was being set up still stops it. */
    b.sum.cancelled = atomic_exchange(&gpuimg__batch_cancelled, 0);
    b.sum.seconds = (gpuimg__now_ms() - t0) / 1000.0;
    for (int s = 0; s < GPUIMG_STAGE_COUNT; s++) /* --time: the workers' stages, summed */
        ctx->stage_ms[s] += b.stage_ms[s];
    *summary = b.sum;
    return st;
}
