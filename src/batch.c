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
 * on CUDA its own stream, pinned staging buffer and scratch, so the copies
 * of one image overlap the kernels of another. Encoding is one pool: a file
 * is a job, a PNG's chunks are its pieces, and a job that waits for its
 * pieces runs pieces meanwhile (pool.h), so a batch of few large PNGs keeps
 * every core on their chunks and a batch of many small files keeps every
 * core on files. A counting gate caps the images between decode and the
 * end of encode, so memory stays flat whatever the folder's size. Files
 * start in sorted path order; a bad file is reported and counted and the
 * rest go on. */
#define _DEFAULT_SOURCE /* DT_DIR, realpath */
#include <dirent.h>
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

#include "internal.h"
#include "pool.h"

/* Device-stage workers per GPU. Each one's own work is mostly CPU copies
 * between the image and its pinned staging buffer, so four keep a GPU fed
 * where two left it waiting on those copies. */
#define STREAMS_PER_DEVICE 4
/* A folder plus a relative path: longer than any real path, never truncated. */
#define PATH_BUF (2 * PATH_MAX + 2)

static atomic_int batch_cancelled;

void gpuimg_batch_cancel(void)
{
    atomic_store(&batch_cancelled, 1);
}

/* ---- the file list ---- */

typedef struct file_list {
    char **rel; /* paths relative to IN_DIR */
    size_t n, cap;
} file_list;

static gpuimg_status list_add(gpuimg_ctx *ctx, file_list *l, const char *rel)
{
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 256;
        char **bigger = realloc(l->rel, cap * sizeof *bigger);
        if (!bigger)
            return gpuimg__fail(ctx, GPUIMG_ERR_NOMEM, "batch: out of memory");
        l->rel = bigger;
        l->cap = cap;
    }
    if (!(l->rel[l->n] = strdup(rel)))
        return gpuimg__fail(ctx, GPUIMG_ERR_NOMEM, "batch: out of memory");
    l->n++;
    return GPUIMG_OK;
}

static void list_free(file_list *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->rel[i]);
    free(l->rel);
}

/* Collects the image files under root/rel; skip is OUT_DIR (dev, ino), never
 * entered, so outputs inside IN_DIR are not read back as inputs. */
static gpuimg_status walk(gpuimg_ctx *ctx, const char *root, const char *rel, int recursive,
                          const struct stat *skip, file_list *out, file_list *bad_folders)
{
    /* On the heap: a tree hundreds of folders deep recurses that deep. */
    struct {
        char path[PATH_BUF], child[PATH_BUF], full[2 * PATH_BUF];
    } *buf = malloc(sizeof *buf);
    if (!buf)
        return gpuimg__fail(ctx, GPUIMG_ERR_NOMEM, "batch: out of memory");
    char *path = buf->path, *child = buf->child, *full = buf->full;
    snprintf(path, PATH_BUF, "%s%s%s", root, rel[0] ? "/" : "", rel);
    DIR *d = opendir(path);
    if (!d) {
        /* IN_DIR itself stops the batch; a subfolder is one more bad input:
         * reported, counted as failed, and the rest go on. */
        gpuimg_status st = GPUIMG_OK;
        if (!rel[0]) {
            st = gpuimg__fail(ctx, GPUIMG_ERR_IO, "%s: %s", path, strerror(errno));
        } else {
            char why[PATH_BUF + 128];
            snprintf(why, sizeof why, "%s: %s (folder skipped)", path, strerror(errno));
            st = list_add(ctx, bad_folders, why);
        }
        free(buf);
        return st;
    }
    gpuimg_status st = GPUIMG_OK;
    struct dirent *e;
    while (st == GPUIMG_OK && (e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        snprintf(child, PATH_BUF, "%s%s%s", rel, rel[0] ? "/" : "", e->d_name);
        snprintf(full, 2 * PATH_BUF, "%s/%s", root, child);
        struct stat sb;
        if (lstat(full, &sb) != 0)
            continue;
        if (S_ISDIR(sb.st_mode)) { /* symbolic links to folders are not followed: no loops */
            if (recursive && !(sb.st_dev == skip->st_dev && sb.st_ino == skip->st_ino))
                st = walk(ctx, root, child, recursive, skip, out, bad_folders);
        } else if (gpuimg_is_image_path(e->d_name)) {
            st = list_add(ctx, out, child);
        }
    }
    closedir(d);
    free(buf);
    return st;
}

static int by_path(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* OUT_DIR/rel, its extension replaced when format is set, or when the input's
 * format has no writer (the format table's choice: GIF and PSD become PNG). */
static void output_path(const char *out_dir, const char *rel, gpuimg_format format, char *buf,
                        size_t len)
{
    const char *slash = strrchr(rel, '/'), *dot = strrchr(slash ? slash : rel, '.');
    const char *ext = gpuimg_format_extension(
        format != GPUIMG_FORMAT_NONE ? format : gpuimg_format_written_for(rel));
    if (format == GPUIMG_FORMAT_NONE && dot && gpuimg_format_from_path(rel) != GPUIMG_FORMAT_NONE)
        ext = NULL; /* a written format keeps its own extension (.jpeg stays .jpeg) */
    if (ext && dot)
        snprintf(buf, len, "%s/%.*s.%s", out_dir, (int)(dot - rel), rel, ext);
    else
        snprintf(buf, len, "%s/%s", out_dir, rel);
}

/* mkdir -p for the folder part of path, inside a folder known to exist. */
static int make_parents(char *path)
{
    for (char *p = strchr(path + 1, '/'); p; p = strchr(p + 1, '/')) {
        *p = '\0';
        int ok = mkdir(path, 0777) == 0 || errno == EEXIST;
        *p = '/';
        if (!ok)
            return -1;
    }
    return 0;
}

/* ---- bounded queues and the in-flight gate ---- */

typedef struct item {
    gpuimg_task task; /* first: an item is its own encode job */
    struct batch *b;
    size_t index;
    gpuimg_image image;
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

/* NULL once the queue is empty and every producer has finished. */
static item *queue_pop(queue *q)
{
    pthread_mutex_lock(&q->lock);
    while (q->count == 0 && q->producers > 0)
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
    file_list files;
    char **outputs;
    atomic_size_t next; /* the next file to decode */
    atomic_int stop;    /* --fail-fast tripped */
    atomic_int abort;   /* the device stage failed to start: drop everything */
    queue to_device;
    gpuimg_pool *pool; /* the encode jobs and their pieces */
    /* the gate: images between the start of decode and the end of encode */
    pthread_mutex_t gate_lock;
    pthread_cond_t gate_open;
    int in_flight, max_in_flight;
    /* events and counts */
    pthread_mutex_t report_lock;
    gpuimg_batch_summary sum;
    uint64_t finished;
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
        snprintf(input, sizeof input, "%s/%s", b->opt->in_dir, b->files.rel[index]);
        gpuimg_batch_event ev = {outcome, input,       b->outputs[index],
                                 error,   b->finished, b->sum.total};
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
    if (it)
        gpuimg_image_free(&it->image);
    free(it);
    pthread_mutex_lock(&b->gate_lock);
    b->in_flight--;
    pthread_cond_signal(&b->gate_open);
    pthread_mutex_unlock(&b->gate_lock);
}

static void *decode_worker(void *arg)
{
    worker *w = arg;
    batch *b = w->b;
    for (;;) {
        size_t i = atomic_fetch_add(&b->next, 1);
        if (i >= b->files.n || stopping(b))
            break;
        if (!b->outputs[i]) /* skipped while listing */
            continue;
        gate_enter(b);
        if (stopping(b)) { /* it may have come while this thread waited */
            gate_leave(b, NULL);
            break;
        }
        item *it = calloc(1, sizeof *it);
        char input[PATH_BUF];
        snprintf(input, sizeof input, "%s/%s", b->opt->in_dir, b->files.rel[i]);
        if (!it) {
            report(b, i, GPUIMG_BATCH_FAILED, "out of memory");
            gate_leave(b, NULL);
            continue;
        }
        it->index = i;
        it->b = b;
        if (gpuimg_load(w->ctx, input, &it->image) != GPUIMG_OK) {
            report(b, i, GPUIMG_BATCH_FAILED, gpuimg_ctx_error(w->ctx));
            gate_leave(b, it);
            continue;
        }
        queue_push(&b->to_device, it);
    }
    queue_producer_done(&b->to_device);
    return NULL;
}

static void encode_job(gpuimg_task *task);

static void *device_worker(void *arg)
{
    worker *w = arg;
    batch *b = w->b;
    item *it;
    while ((it = queue_pop(&b->to_device)) != NULL) {
        gpuimg_image out;
        if (atomic_load(&batch_cancelled) || atomic_load(&b->abort)) {
            gate_leave(b, it); /* cancelled: not started, not counted */
            continue;
        }
        if (gpuimg_run(w->ctx, &it->image, b->opt->steps, b->opt->nsteps, &out) != GPUIMG_OK) {
            report(b, it->index, GPUIMG_BATCH_FAILED, gpuimg_ctx_error(w->ctx));
            gate_leave(b, it);
            continue;
        }
        gpuimg_image_free(&it->image);
        it->image = out;
        it->task.run = encode_job;
        gpuimg__pool_job(b->pool, &it->task);
    }
    return NULL;
}

/* One file's encode job, on a pool worker. Its context is made here (a
 * calloc: contexts open no backend until an operation needs one) and
 * borrows the batch's pool for the PNG encoder's pieces. */
static void encode_job(gpuimg_task *task)
{
    item *it = (item *)task;
    batch *b = it->b;
    const char *out = b->outputs[it->index];
    char parents[PATH_BUF];
    snprintf(parents, sizeof parents, "%s", out);
    gpuimg_config cpu = b->cfg;
    cpu.backend = "cpu"; /* codec work never touches a device */
    gpuimg_ctx *ctx = NULL;
    if (atomic_load(&batch_cancelled)) {
        gate_leave(b, it);
        return;
    }
    if (gpuimg_ctx_create(&cpu, &ctx) != GPUIMG_OK) {
        report(b, it->index, GPUIMG_BATCH_FAILED, "out of memory");
    } else if (make_parents(parents) != 0) {
        char why[PATH_BUF + 64];
        snprintf(why, sizeof why, "%s: cannot create its folder: %s", out, strerror(errno));
        report(b, it->index, GPUIMG_BATCH_FAILED, why);
    } else {
        ctx->pool = b->pool; /* lent: own_pool stays 0 */
        if (gpuimg_save(ctx, out, GPUIMG_FORMAT_NONE, &it->image) != GPUIMG_OK)
            report(b, it->index, GPUIMG_BATCH_FAILED, gpuimg_ctx_error(ctx));
        else
            report(b, it->index, GPUIMG_BATCH_DONE, NULL);
    }
    gpuimg_ctx_destroy(ctx);
    gate_leave(b, it); /* frees the item, and with it this task */
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
        cfg.backend = backend;
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

static void *open_devices(void *arg)
{
    devices_opening *o = arg;
    const char *backend; /* auto resolves once, here, with its one notice */
    o->st = gpuimg_ctx_backend(o->ctx, &backend);
    if (o->st == GPUIMG_OK)
        o->st = open_device_workers(o->ctx, o->b, backend, &o->dev, &o->ndev, o->jobs);
    return NULL;
}

/* IN_DIR a folder, OUT_DIR not IN_DIR; out_sb is OUT_DIR's, zeroed when it
 * does not exist yet (created only once the plan holds: make_out_dir). */
static gpuimg_status check_dirs(gpuimg_ctx *ctx, const gpuimg_batch_options *opt,
                                struct stat *out_sb)
{
    struct stat in_sb;
    if (stat(opt->in_dir, &in_sb) != 0)
        return gpuimg__fail(ctx, GPUIMG_ERR_IO, "%s: %s", opt->in_dir, strerror(errno));
    if (!S_ISDIR(in_sb.st_mode))
        return gpuimg__fail(ctx, GPUIMG_ERR_IO, "%s: not a folder", opt->in_dir);
    if (stat(opt->out_dir, out_sb) != 0) {
        memset(out_sb, 0, sizeof *out_sb);
        return GPUIMG_OK;
    }
    if (!S_ISDIR(out_sb->st_mode))
        return gpuimg__fail(ctx, GPUIMG_ERR_IO, "%s: not a folder", opt->out_dir);
    if (out_sb->st_dev == in_sb.st_dev && out_sb->st_ino == in_sb.st_ino)
        return gpuimg__fail(ctx, GPUIMG_ERR_USAGE,
                            "%s: OUT_DIR is IN_DIR; outputs would replace the inputs",
                            opt->out_dir);
    return GPUIMG_OK;
}

static gpuimg_status make_out_dir(gpuimg_ctx *ctx, const char *out_dir)
{
    char path[PATH_BUF];
    snprintf(path, sizeof path, "%s/", out_dir);
    struct stat sb;
    if (make_parents(path) != 0 || stat(out_dir, &sb) != 0 || !S_ISDIR(sb.st_mode))
        return gpuimg__fail(ctx, GPUIMG_ERR_IO, "%s: cannot create the folder: %s", out_dir,
                            strerror(errno));
    return GPUIMG_OK;
}

typedef struct file_id {
    dev_t dev;
    ino_t ino;
} file_id;

static int by_id(const void *a, const void *b)
{
    const file_id *x = a, *y = b;
    if (x->dev != y->dev)
        return x->dev < y->dev ? -1 : 1;
    return x->ino < y->ino ? -1 : x->ino > y->ino;
}

static int by_output(const void *a, const void *b)
{
    return strcmp(**(char **const *)a, **(char **const *)b);
}

/* Outputs for every selected file (all shards: a collision must not depend
 * on how the folder is shared out), and the refusal of any output that is
 * one of the inputs, or that two inputs would both write (a.png and a.jpg
 * with --format png). */
static gpuimg_status plan_outputs(gpuimg_ctx *ctx, batch *b)
{
    const gpuimg_batch_options *opt = b->opt;
    size_t n = b->files.n;
    b->outputs = calloc(n ? n : 1, sizeof *b->outputs);
    file_id *inputs = calloc(n ? n : 1, sizeof *inputs);
    if (!b->outputs || !inputs) {
        free(inputs);
        return gpuimg__fail(ctx, GPUIMG_ERR_NOMEM, "batch: out of memory");
    }
    size_t nids = 0;
    for (size_t i = 0; i < n; i++) {
        char in[PATH_BUF];
        struct stat si;
        snprintf(in, sizeof in, "%s/%s", opt->in_dir, b->files.rel[i]);
        if (stat(in, &si) == 0)
            inputs[nids++] = (file_id){si.st_dev, si.st_ino};
    }
    qsort(inputs, nids, sizeof *inputs, by_id);
    for (size_t i = 0; i < n; i++) {
        char out[PATH_BUF];
        output_path(opt->out_dir, b->files.rel[i], opt->format, out, sizeof out);
        struct stat so;
        if (stat(out, &so) == 0 &&
            bsearch(&(file_id){so.st_dev, so.st_ino}, inputs, nids, sizeof *inputs, by_id)) {
            free(inputs);
            return gpuimg__fail(ctx, GPUIMG_ERR_USAGE, "%s: the output would replace an input",
                                out);
        }
        if (!(b->outputs[i] = strdup(out))) {
            free(inputs);
            return gpuimg__fail(ctx, GPUIMG_ERR_NOMEM, "batch: out of memory");
        }
    }
    free(inputs);
    char ***sorted = malloc((b->files.n ? b->files.n : 1) * sizeof *sorted);
    if (!sorted)
        return gpuimg__fail(ctx, GPUIMG_ERR_NOMEM, "batch: out of memory");
    for (size_t i = 0; i < b->files.n; i++)
        sorted[i] = &b->outputs[i];
    qsort(sorted, b->files.n, sizeof *sorted, by_output);
    gpuimg_status st = GPUIMG_OK;
    for (size_t i = 1; i < b->files.n && st == GPUIMG_OK; i++)
        if (strcmp(*sorted[i - 1], *sorted[i]) == 0)
            st = gpuimg__fail(ctx, GPUIMG_ERR_USAGE, "%s: %s and %s would both write it",
                              *sorted[i], b->files.rel[sorted[i - 1] - b->outputs],
                              b->files.rel[sorted[i] - b->outputs]);
    free(sorted);
    return st;
}

gpuimg_status gpuimg_batch(gpuimg_ctx *ctx, const gpuimg_batch_options *opt,
                           gpuimg_batch_summary *summary)
{
    memset(summary, 0, sizeof *summary);
    double t0 = gpuimg__now_ms();
    if (opt->shard_count < 1 || opt->shard_index < 0 || opt->shard_index >= opt->shard_count)
        return gpuimg__fail(ctx, GPUIMG_ERR_USAGE, "--shard: need 0 <= K < N");
    if (opt->format != GPUIMG_FORMAT_NONE && !gpuimg_format_extension(opt->format))
        return gpuimg__fail(ctx, GPUIMG_ERR_FORMAT, "--format: not a writable format");
    struct stat out_sb;
    gpuimg_status st = check_dirs(ctx, opt, &out_sb);
    if (st != GPUIMG_OK)
        return st;

    batch b;
    memset(&b, 0, sizeof b);
    b.opt = opt;
    b.cfg = ctx->cfg;
    pthread_mutex_init(&b.gate_lock, NULL);
    pthread_cond_init(&b.gate_open, NULL);
    pthread_mutex_init(&b.report_lock, NULL);
    file_list bad_folders = {0};
    if ((st = walk(ctx, opt->in_dir, "", opt->recursive, &out_sb, &b.files, &bad_folders)) !=
        GPUIMG_OK) {
        list_free(&bad_folders);
        list_free(&b.files);
        return st;
    }
    /* Unreadable subfolders: failures, reported like files (not in total). */
    for (size_t i = 0; i < bad_folders.n; i++) {
        b.sum.failed++;
        if (opt->on_event) {
            gpuimg_batch_event ev = {
                GPUIMG_BATCH_FAILED, bad_folders.rel[i], NULL, bad_folders.rel[i], 0, 0};
            opt->on_event(opt->user, &ev);
        }
    }
    list_free(&bad_folders);
    if (b.files.n) /* an empty folder: files.rel is NULL, which qsort may not take */
        qsort(b.files.rel, b.files.n, sizeof *b.files.rel, by_path);
    if ((st = plan_outputs(ctx, &b)) != GPUIMG_OK)
        goto done;
    /* The shard: the files whose sorted index is K mod N. */
    size_t kept = 0;
    for (size_t i = 0; i < b.files.n; i++) {
        if ((long)(i % (size_t)opt->shard_count) == opt->shard_index) {
            b.files.rel[kept] = b.files.rel[i];
            b.outputs[kept++] = b.outputs[i];
        } else {
            free(b.files.rel[i]);
            free(b.outputs[i]);
        }
    }
    b.files.n = kept;
    b.sum.total = kept;
    if ((st = make_out_dir(ctx, opt->out_dir)) != GPUIMG_OK)
        goto done;

    gpuimg__image_spares_open(); /* released after workers_done */
    int jobs = gpuimg__thread_count(opt->jobs);
    worker *dec = calloc((size_t)jobs, sizeof *dec);
    devices_opening dv = {.ctx = ctx, .b = &b, .jobs = jobs};
    if (!dec) {
        st = gpuimg__fail(ctx, GPUIMG_ERR_NOMEM, "batch: out of memory");
        goto workers_done;
    }
    for (int i = 0; i < jobs && st == GPUIMG_OK; i++) {
        dec[i].b = &b;
        gpuimg_config cpu = b.cfg;
        cpu.backend = "cpu"; /* codec workers never touch a device */
        if ((st = gpuimg_ctx_create(&cpu, &dec[i].ctx)) != GPUIMG_OK)
            gpuimg__fail(ctx, st, "batch: cannot create a context");
    }
    if (st != GPUIMG_OK)
        goto workers_done;

    /* Skipped files are settled before any work starts. */
    for (size_t i = 0; i < b.files.n; i++) {
        char in[PATH_BUF];
        snprintf(in, sizeof in, "%s/%s", opt->in_dir, b.files.rel[i]);
        struct stat si, so;
        if (opt->skip_existing && stat(b.outputs[i], &so) == 0 && stat(in, &si) == 0 &&
            (so.st_mtim.tv_sec > si.st_mtim.tv_sec ||
             (so.st_mtim.tv_sec == si.st_mtim.tv_sec && so.st_mtim.tv_nsec > si.st_mtim.tv_nsec))) {
            report(&b, i, GPUIMG_BATCH_SKIPPED, NULL);
            free(b.outputs[i]);
            b.outputs[i] = NULL;
        }
    }

    /* Sized before the device stage is known: as many workers as it will
     * have on one GPU (all of the CPU's when the CPU is named). */
    int planned = strcmp(b.cfg.backend, "cpu") == 0 ? jobs
                  : opt->devices                    ? STREAMS_PER_DEVICE * opt->ndevices
                                                    : STREAMS_PER_DEVICE;
    b.max_in_flight = 2 * jobs + 2 * planned;
    b.pool = gpuimg__pool_create(jobs);
    /* The decoders lend it too: a PNG's rows unfilter on it. Lent, not
     * owned, it also tells the JPEG reader not to split files into bands,
     * which would repeat work while every core has a file of its own. */
    for (int i = 0; i < jobs; i++)
        dec[i].ctx->pool = b.pool;
    if (!queue_init(&b.to_device, (size_t)(2 * planned), jobs) || !b.pool) {
        st = gpuimg__fail(ctx, GPUIMG_ERR_NOMEM, "batch: out of memory");
    } else {
        /* Starting CUDA takes about 0.3 s: the device stage opens on its
         * own thread while the first files decode. Nothing is written
         * before it is open; if it cannot open, the batch stops with its
         * error and the decoded images are dropped. */
        pthread_t opener;
        int opening = pthread_create(&opener, NULL, open_devices, &dv) == 0;
        if (!opening)
            open_devices(&dv);
        for (int i = 0; i < jobs; i++)
            dec[i].started = pthread_create(&dec[i].thread, NULL, decode_worker, &dec[i]) == 0;
        /* A thread that could not start is a producer that will never finish. */
        for (int i = 0; i < jobs; i++)
            if (!dec[i].started)
                queue_producer_done(&b.to_device);
        if (opening)
            pthread_join(opener, NULL);
        st = dv.st;
        int ndev_started = 0;
        for (int i = 0; st == GPUIMG_OK && i < dv.ndev; i++)
            ndev_started += dv.dev[i].started =
                pthread_create(&dv.dev[i].thread, NULL, device_worker, &dv.dev[i]) == 0;
        if (st == GPUIMG_OK && (ndev_started == 0 || gpuimg__pool_workers(b.pool) == 0))
            st = gpuimg__fail(ctx, GPUIMG_ERR_NOMEM, "batch: cannot start threads");
        if (st != GPUIMG_OK || ndev_started == 0) { /* drain: nothing else will */
            atomic_store(&b.stop, 1);
            atomic_store(&b.abort, 1);
            for (item *it; (it = queue_pop(&b.to_device)) != NULL;)
                gate_leave(&b, it);
        }
        for (int i = 0; i < jobs; i++)
            if (dec[i].started)
                pthread_join(dec[i].thread, NULL);
        for (int i = 0; i < dv.ndev; i++)
            if (dv.dev[i].started)
                pthread_join(dv.dev[i].thread, NULL);
    }
    gpuimg__pool_destroy(b.pool); /* after the last job was queued: runs what is left */
    queue_destroy(&b.to_device);

workers_done:
    for (int i = 0; dec && i < jobs; i++)
        gpuimg_ctx_destroy(dec[i].ctx);
    for (int i = 0; i < dv.ndev; i++)
        gpuimg_ctx_destroy(dv.dev[i].ctx);
    free(dec);
    free(dv.dev);
    gpuimg__image_spares_release();
done:
    for (size_t i = 0; b.outputs && i < b.files.n; i++)
        free(b.outputs[i]);
    free(b.outputs);
    list_free(&b.files);
    pthread_mutex_destroy(&b.gate_lock);
    pthread_cond_destroy(&b.gate_open);
    pthread_mutex_destroy(&b.report_lock);
    /* Cleared at the end, not the start: a signal that came while the batch
     * was being set up still stops it. */
    b.sum.cancelled = atomic_exchange(&batch_cancelled, 0);
    b.sum.seconds = (gpuimg__now_ms() - t0) / 1000.0;
    *summary = b.sum;
    return st;
}
