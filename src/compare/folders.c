/* SPDX-License-Identifier: MIT */
/* Folders of goldens (SPEC §7): the pairing, the workers that decode and
 * compare the pairs, and golden updates.
 *
 * The pairing is batch's walk (batch/plan.h) over both folders, merged by
 * relative path. Workers take pairs in path order; each has a context of
 * its own (its backend, for SSIM, its own stream). With few pairs they lend
 * one shared thread pool, on which a PNG's rows unfilter and a comparison's
 * bands run, so that one large pair keeps the cores busy; with many, each
 * works alone on its own pair (gpuimg_compare_folders). Results land in their
 * pair's slot, so the report is in path order whatever finished first. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fnmatch.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "batch/plan.h"
#include "compare/same_file.h"
#include "core/budget.h"
#include "core/pool.h"
#include "core/utf8.h"
#include "io/io.h"

#define PATH_BUF GPUIMG__PATH_BUF

const char *gpuimg_pair_status_name(gpuimg_pair_status s)
{
    static const char *const names[GPUIMG_PAIR_STATUS_COUNT] = {
        "identical", "passed", "failed", "size", "missing", "new", "error"};
    return (unsigned)s < GPUIMG_PAIR_STATUS_COUNT ? names[s] : "?";
}

/* "dir/NAME.mask.png" for "dir/NAME.EXT"; 1 when path is itself a mask. */
static int is_mask(const char *path)
{
    size_t n = strlen(path);
    return n >= 9 && strcmp(path + n - 9, ".mask.png") == 0;
}

static char *mask_of(const char *golden)
{
    const char *slash = strrchr(golden, '/'), *dot = strrchr(golden, '.');
    size_t stem = dot && (!slash || dot > slash) ? (size_t)(dot - golden) : strlen(golden);
    char *m = malloc(stem + 10);
    if (m) {
        memcpy(m, golden, stem);
        memcpy(m + stem, ".mask.png", 10);
    }
    return m;
}

static char *joined(const char *dir, const char *rel)
{
    size_t n = strlen(dir) + strlen(rel) + 2;
    char *p = malloc(n);
    if (p)
        snprintf(p, n, "%s/%s", dir, rel);
    return p;
}

static void pair_free(gpuimg_pair *p)
{
    free(p->path);
    free(p->expected);
    free(p->actual);
    free(p->mask);
    for (size_t k = 0; k < p->nvariants; k++)
        free(p->variants[k]);
    free(p->variants);
}

void gpuimg_folder_result_free(gpuimg_folder_result *r)
{
    for (size_t i = 0; r->pairs && i < r->npairs; i++)
        pair_free(&r->pairs[i]);
    free(r->pairs);
    memset(r, 0, sizeof *r);
}

/* For "dir/NAME~K.EXT" (K digits, not 0-led), the length of "dir/NAME" in
 * *stem and the offset of ".EXT" in *ext; 0 when path is no variant name. */
static int variant_name(const char *path, size_t *stem, size_t *ext)
{
    const char *slash = strrchr(path, '/'), *dot = strrchr(path, '.');
    if (!dot || (slash && dot < slash))
        return 0;
    const char *d = dot;
    while (d > path && d[-1] >= '0' && d[-1] <= '9')
        d--;
    if (d == dot || d[0] == '0' || d - 1 <= path || d[-1] != '~' || (slash && d - 1 <= slash + 1))
        return 0;
    *stem = (size_t)(d - 1 - path);
    *ext = (size_t)(dot - path);
    return 1;
}

static int by_path(const void *key, const void *pair)
{
    return strcmp(key, ((const gpuimg_pair *)pair)->path);
}

/* Known variants (SPEC §7): a golden NAME~K.EXT with no actual of its own,
 * beside a golden NAME.EXT, is a variant of NAME.EXT's pair, not a pair. */
static gpuimg_status fold_variants(gpuimg_ctx *ctx, gpuimg_folder_result *out)
{
    /* first attach (the array stays sorted for the search), then compact */
    for (size_t i = 0; i < out->npairs; i++) {
        gpuimg_pair *p = &out->pairs[i];
        size_t stem, ext;
        if (p->status != GPUIMG_PAIR_MISSING || !variant_name(p->path, &stem, &ext))
            continue;
        char *name = malloc(strlen(p->path) + 1);
        if (!name)
            return gpuimg__fail(ctx, GPUIMG_ERR_NOMEM, "compare: out of memory");
        memcpy(name, p->path, stem);
        strcpy(name + stem, p->path + ext);
        gpuimg_pair *base = bsearch(name, out->pairs, out->npairs, sizeof *out->pairs, by_path);
        free(name);
        if (!base || base->status == GPUIMG_PAIR_NEW || base->status == GPUIMG_PAIR_MISSING)
            continue;
        /* sorted by path, so a base's variants come in order of K's text */
        char **grown = realloc(base->variants, (base->nvariants + 1) * sizeof *grown);
        if (!grown)
            return gpuimg__fail(ctx, GPUIMG_ERR_NOMEM, "compare: out of memory");
        base->variants = grown;
        base->variants[base->nvariants++] = p->expected;
        p->expected = NULL; /* folded */
    }
    size_t kept = 0;
    for (size_t i = 0; i < out->npairs; i++) {
        gpuimg_pair *p = &out->pairs[i];
        if (p->expected) {
            out->pairs[kept++] = *p;
            continue;
        }
        pair_free(p); /* its expected went to its base's variants */
    }
    out->npairs = kept;
    return GPUIMG_OK;
}

/* The images of both folders, merged by relative path into pairs. */
static gpuimg_status pair_up(gpuimg_ctx *ctx, const gpuimg_folder_options *o,
                             gpuimg_folder_result *out)
{
    gpuimg__file_list e = {0}, a = {0}, bad = {0};
    gpuimg_status st = gpuimg__walk(ctx, o->expected_dir, o->recursive, NULL, &e, &bad, NULL);
    if (st == GPUIMG_OK)
        st = gpuimg__walk(ctx, o->actual_dir, o->recursive, NULL, &a, &bad, NULL);
    if (st == GPUIMG_OK && bad.n > 0)
        st = gpuimg__fail(ctx, GPUIMG_ERR_IO, "compare: %s", bad.rel[0]);
    if (st == GPUIMG_OK && !(out->pairs = calloc(e.n + a.n + 1, sizeof *out->pairs)))
        st = gpuimg__fail(ctx, GPUIMG_ERR_NOMEM, "compare: out of memory");
    size_t i = 0, j = 0;
    while (st == GPUIMG_OK && (i < e.n || j < a.n)) {
        int order = i == e.n ? 1 : j == a.n ? -1 : strcmp(e.rel[i], a.rel[j]);
        const char *rel = order <= 0 ? e.rel[i] : a.rel[j];
        if (order <= 0)
            i++;
        if (order >= 0)
            j++;
        if (is_mask(rel))
            continue;
        gpuimg_pair *p = &out->pairs[out->npairs++];
        p->status = order < 0   ? GPUIMG_PAIR_MISSING
                    : order > 0 ? GPUIMG_PAIR_NEW
                                : GPUIMG_PAIR_FAILED;
        p->path = strdup(rel);
        p->expected = joined(o->expected_dir, rel);
        p->actual = joined(o->actual_dir, rel);
        if (!p->path || !p->expected || !p->actual)
            st = gpuimg__fail(ctx, GPUIMG_ERR_NOMEM, "compare: out of memory");
        else if (order <= 0 && (p->mask = mask_of(p->expected)) != NULL &&
                 access(p->mask, F_OK) != 0) {
            free(p->mask);
            p->mask = NULL;
        }
    }
    gpuimg__file_list_free(&e);
    gpuimg__file_list_free(&a);
    gpuimg__file_list_free(&bad);
    return st == GPUIMG_OK ? fold_variants(ctx, out) : st;
}

typedef struct folder_run {
    const gpuimg_folder_options *o;
    gpuimg_folder_result *out;
    atomic_size_t next;
    pthread_mutex_t report_lock; /* one on_failed call at a time */
    gpuimg_config cfg;
    gpuimg_pool *pool;
    gpuimg__budget budget; /* the decoded images of the pairs in hand */
} folder_run;

/* A reason, cut (if it must be) at a character's boundary. */
static void set_reason(gpuimg_pair *p, const char *fmt, const char *text)
{
    if (snprintf(p->reason, sizeof p->reason, fmt, text) >= (int)sizeof p->reason)
        gpuimg__utf8_trim(p->reason);
}

static void pair_error(gpuimg_pair *p, gpuimg_ctx *ctx)
{
    p->status = GPUIMG_PAIR_ERROR;
    set_reason(p, "%s", gpuimg_ctx_error(ctx));
}

/* The length of the folder part of full, which is FOLDER/rel. */
static size_t folder_len(const char *full, const char *rel)
{
    return strlen(full) - strlen(rel) - 1;
}

/* A pair's files: read (regular files only; the actual, which an untrusted
 * job may have made, reached without any symbolic link: folder_file.c),
 * admitted to the budget by their decoded size, and decoded. The actual of
 * a new pair is decoded too, so that nothing but an image is ever called
 * one: the report and --update copy only what decodes (gpuimg_copy_image). */
struct pair_files {
    gpuimg_image e, a, mask;
    uint64_t taken; /* of the budget */
    int same;       /* byte-identical files, not decoded: p->result is set */
};

static gpuimg_status load_pair(folder_run *run, gpuimg_ctx *ctx, gpuimg_pair *p,
                               struct pair_files *f)
{
    const char *path[3] = {p->status != GPUIMG_PAIR_NEW ? p->expected : NULL, p->actual, p->mask};
    size_t root[3] = {folder_len(p->expected, p->path), folder_len(p->actual, p->path),
                      folder_len(p->expected, p->path)};
    gpuimg_image *img[3] = {&f->e, &f->a, &f->mask};
    uint8_t *data[3] = {NULL, NULL, NULL};
    size_t size[3] = {0, 0, 0};
    uint64_t need = 0;
    gpuimg_status st = GPUIMG_OK;
    for (int k = 0; k < 3 && st == GPUIMG_OK; k++)
        if (path[k] && (st = gpuimg__read_folder_file(ctx, path[k], root[k], k == 1, &data[k],
                                                      &size[k])) == GPUIMG_OK)
            need += gpuimg__decoded_bytes(ctx, data[k], size[k]);
    /* the difference image, for the report, is the size of the expected */
    if (st == GPUIMG_OK && run->o->on_failed && path[0])
        need += gpuimg__decoded_bytes(ctx, data[0], size[0]);
    if (st == GPUIMG_OK &&
        (st = gpuimg__budget_take(&run->budget, ctx, p->path, need)) == GPUIMG_OK)
        f->taken = need;
    /* Byte-identical files (no mask) are identical images: not decoded
     * when the file is whole and the result passes (same_file.h). */
    if (st == GPUIMG_OK && path[0] && !path[2] &&
        gpuimg__compare_same_file(ctx, path[0], data[0], size[0], path[1], data[1], size[1],
                                  &run->o->compare, &run->o->limits, &p->result, &p->expected_width,
                                  &p->expected_height)) {
        f->same = 1;
        free(data[0]);
        free(data[1]);
        return GPUIMG_OK;
    }
    int k = 0;
    /* fewer pairs than threads: a pair's two images at once */
    if (st == GPUIMG_OK && path[0] &&
        run->out->npairs < (size_t)gpuimg__thread_count(run->cfg.threads)) {
        st = gpuimg__load_both(ctx, data[0], size[0], path[0], img[0], data[1], size[1], path[1],
                               img[1]);
        data[0] = data[1] = NULL;
        k = 2;
    }
    for (; k < 3; k++) {
        if (st == GPUIMG_OK && path[k])
            st = gpuimg__load_owned(ctx, data[k], size[k], path[k], img[k]);
        else
            free(data[k]);
    }
    return st;
}

/* The pair's ignored rectangles: the run's and its regions' (*rects, to
 * free, when any region matches). */
static gpuimg_status pair_regions(gpuimg_ctx *ctx, const gpuimg_folder_options *o, const char *path,
                                  gpuimg_compare_options *co, gpuimg_rect **rects)
{
    size_t n = 0;
    for (size_t k = 0; k < o->nregions; k++)
        n += fnmatch(o->regions[k].glob, path, 0) == 0;
    if (n == 0)
        return GPUIMG_OK;
    if (!(*rects = malloc((n + (size_t)co->nignore) * sizeof **rects)))
        return gpuimg__fail(ctx, GPUIMG_ERR_NOMEM, "compare: out of memory");
    if (co->nignore > 0)
        memcpy(*rects, co->ignore, (size_t)co->nignore * sizeof **rects);
    n = (size_t)co->nignore;
    for (size_t k = 0; k < o->nregions; k++)
        if (fnmatch(o->regions[k].glob, path, 0) == 0)
            (*rects)[n++] = o->regions[k].rect;
    co->ignore = *rects;
    co->nignore = (int)n;
    return GPUIMG_OK;
}

/* The verdict of one comparison: its status and reason. */
static void judge(const gpuimg_folder_options *o, gpuimg_pair *p, const gpuimg_image *e,
                  const gpuimg_image *a)
{
    p->failed = gpuimg_compare_check(&p->result, &o->limits, p->reason, sizeof p->reason);
    if (p->result.size_differs) {
        p->status = GPUIMG_PAIR_SIZE;
        snprintf(p->reason, sizeof p->reason, "size %dx%d, expected %dx%d", a->width, a->height,
                 e->width, e->height);
    } else if (p->failed) {
        p->status = GPUIMG_PAIR_FAILED;
    } else {
        p->status = p->result.identical ? GPUIMG_PAIR_IDENTICAL : GPUIMG_PAIR_PASSED;
    }
}

/* A known variant the actual passes against, in order: the pair takes its
 * figures and says which it matched; when none passes, the golden's own
 * verdict stands (a variant that cannot be read fails nothing more). */
static void try_variants(gpuimg_ctx *ctx, const gpuimg_folder_options *o,
                         const gpuimg_compare_options *pair_options, gpuimg_pair *p,
                         const gpuimg_image *actual)
{
    size_t root = folder_len(p->expected, p->path);
    for (size_t k = 0; k < p->nvariants; k++) {
        gpuimg_pair v = *p;
        gpuimg_image e = {0}, mask = {0};
        uint8_t *data = NULL;
        size_t size = 0;
        char *mask_path = mask_of(p->variants[k]);
        int has_mask = mask_path && access(mask_path, F_OK) == 0;
        gpuimg_compare_options co = *pair_options;
        co.mask = has_mask ? &mask : NULL;
        int ok =
            gpuimg__read_folder_file(ctx, p->variants[k], root, 0, &data, &size) == GPUIMG_OK &&
            gpuimg__load_owned(ctx, data, size, p->variants[k], &e) == GPUIMG_OK;
        if (ok && has_mask) {
            data = NULL;
            ok = gpuimg__read_folder_file(ctx, mask_path, root, 0, &data, &size) == GPUIMG_OK &&
                 gpuimg__load_owned(ctx, data, size, mask_path, &mask) == GPUIMG_OK;
        }
        if (ok && gpuimg_compare(ctx, &e, actual, &co, &v.result, NULL) == GPUIMG_OK) {
            judge(o, &v, &e, actual);
            if (v.status == GPUIMG_PAIR_IDENTICAL || v.status == GPUIMG_PAIR_PASSED) {
                v.status = GPUIMG_PAIR_PASSED; /* not the golden's bytes: never identical */
                v.matched = k + 1;
                v.expected_width = e.width;
                v.expected_height = e.height;
                set_reason(&v, "matched variant %s", p->variants[k] + root + 1);
                *p = v;
                k = p->nvariants; /* done */
            }
        }
        free(mask_path);
        gpuimg_image_free(&mask);
        gpuimg_image_free(&e);
    }
}

/* One pair with an actual: load, compare, judge; a new pair only loaded. */
static void compare_pair(folder_run *run, gpuimg_ctx *ctx, gpuimg_pair *p)
{
    const gpuimg_folder_options *o = run->o;
    struct pair_files f = {0};
    gpuimg_image diff = {0};
    gpuimg_rect *rects = NULL; /* the pair's --ignore-file regions */
    if (load_pair(run, ctx, p, &f) != GPUIMG_OK) {
        pair_error(p, ctx);
        goto done;
    }
    if (f.same) {
        p->actual_width = p->expected_width;
        p->actual_height = p->expected_height;
        p->status = GPUIMG_PAIR_IDENTICAL;
        goto done;
    }
    p->actual_width = f.a.width;
    p->actual_height = f.a.height;
    if (p->status == GPUIMG_PAIR_NEW) {
        set_reason(p, "no golden %s", p->expected);
        goto done;
    }
    p->expected_width = f.e.width;
    p->expected_height = f.e.height;
    gpuimg_compare_options co = o->compare;
    co.mask = p->mask ? &f.mask : NULL;
    if (pair_regions(ctx, o, p->path, &co, &rects) != GPUIMG_OK) {
        pair_error(p, ctx);
        goto done;
    }
    if (gpuimg_compare(ctx, &f.e, &f.a, &co, &p->result, o->on_failed ? &diff : NULL) !=
        GPUIMG_OK) {
        pair_error(p, ctx);
        goto done;
    }
    judge(o, p, &f.e, &f.a);
    if (p->status == GPUIMG_PAIR_FAILED || p->status == GPUIMG_PAIR_SIZE)
        try_variants(ctx, o, &co, p, &f.a);
    if (p->status == GPUIMG_PAIR_FAILED && o->on_failed) {
        pthread_mutex_lock(&run->report_lock);
        o->on_failed(o->user, p, &diff);
        pthread_mutex_unlock(&run->report_lock);
    }
done:
    free(rects);
    gpuimg_image_free(&diff);
    gpuimg_image_free(&f.mask);
    gpuimg_image_free(&f.a);
    gpuimg_image_free(&f.e);
    gpuimg__budget_give(&run->budget, f.taken);
}

static void *worker(void *arg)
{
    folder_run *run = arg;
    gpuimg_ctx *ctx = NULL;
    gpuimg__ctx_share share = {run->pool, NULL, NULL};
    gpuimg_status made =
        gpuimg__ctx_worker(&run->cfg, run->cfg.backend, run->cfg.device, &share, &ctx);
    for (;;) {
        size_t i = atomic_fetch_add(&run->next, 1);
        if (i >= run->out->npairs)
            break;
        gpuimg_pair *p = &run->out->pairs[i];
        if (p->status == GPUIMG_PAIR_MISSING) {
            set_reason(p, "no actual %s", p->actual);
        } else if (made != GPUIMG_OK) {
            p->status = GPUIMG_PAIR_ERROR;
            snprintf(p->reason, sizeof p->reason, "%s", gpuimg_strerror(made));
        } else {
            compare_pair(run, ctx, p);
        }
    }
    gpuimg_ctx_destroy(ctx);
    return NULL;
}

/* The pairs of one shard, the others freed; all_pairs counts every one. */
static gpuimg_status keep_shard(gpuimg_ctx *ctx, const gpuimg_folder_options *o,
                                gpuimg_folder_result *out)
{
    out->all_pairs = out->npairs;
    if (o->shard_count <= 1)
        return GPUIMG_OK;
    if (o->shard_index < 0 || o->shard_index >= o->shard_count)
        return gpuimg__fail(ctx, GPUIMG_ERR_USAGE, "--shard: need 0 <= K < N");
    size_t kept = 0;
    for (size_t i = 0; i < out->npairs; i++) {
        gpuimg_pair *p = &out->pairs[i];
        if (i % (size_t)o->shard_count == (size_t)o->shard_index) {
            out->pairs[kept++] = *p;
            continue;
        }
        pair_free(p);
    }
    out->npairs = kept;
    return GPUIMG_OK;
}

gpuimg_status gpuimg_compare_folders(gpuimg_ctx *ctx, const gpuimg_folder_options *opt,
                                     gpuimg_folder_result *out)
{
    memset(out, 0, sizeof *out);
    gpuimg_status st = pair_up(ctx, opt, out);
    if (st == GPUIMG_OK)
        st = keep_shard(ctx, opt, out);
    if (st != GPUIMG_OK) {
        gpuimg_folder_result_free(out);
        return st;
    }
    folder_run run = {.o = opt, .out = out, .cfg = ctx->cfg};
    gpuimg__budget_init(&run.budget, gpuimg__budget_of(&ctx->cfg));
    /* Resolve the backend once, here, for every worker: "auto" says its one
     * notice and CUDA's context is made once (only when SSIM or FLIP needs it). */
    if ((opt->compare.ssim || opt->compare.flip) && out->npairs > 0) {
        const char *name;
        if ((st = gpuimg_ctx_backend(ctx, &name)) != GPUIMG_OK) {
            gpuimg__budget_destroy(&run.budget);
            gpuimg_folder_result_free(out);
            return st;
        }
        gpuimg_backend_from_name(name, &run.cfg.backend);
    }
    int jobs = gpuimg__thread_count(opt->jobs);
    if ((size_t)jobs > out->npairs)
        jobs = out->npairs > 0 ? (int)out->npairs : 1;
    /* With two pairs a thread or more, the pairs alone keep every core
     * busy: each worker decodes and compares its pair on its own thread,
     * with a pool of its own that has no workers, and no lock is shared per
     * row. (One pool for all, on 16 cores, cost ten times the work in its
     * lock: 36 s of system time for 1,000 1080p pairs, 2 s without.) Fewer
     * pairs share one pool, so that a single large pair uses every core. */
    int pairs_enough = out->npairs >= 2 * (size_t)jobs;
    if (pairs_enough)
        run.cfg.threads = 1;
    run.pool = pairs_enough ? NULL : gpuimg__pool_create(gpuimg__thread_count(ctx->cfg.threads));
    pthread_mutex_init(&run.report_lock, NULL);
    pthread_t *threads = calloc((size_t)jobs, sizeof *threads);
    int started = 0;
    for (int k = 0; threads && k < jobs; k++)
        started += pthread_create(&threads[started], NULL, worker, &run) == 0;
    if (started == 0)
        worker(&run); /* no thread: this one does it all */
    for (int k = 0; k < started; k++)
        pthread_join(threads[k], NULL);
    free(threads);
    pthread_mutex_destroy(&run.report_lock);
    gpuimg__pool_destroy(run.pool);
    gpuimg__budget_destroy(&run.budget);
    for (size_t i = 0; i < out->npairs; i++)
        out->count[out->pairs[i].status]++;
    return GPUIMG_OK;
}

/* gpuimg_copy_image, making to's folders (mkdir -p) once the file has
 * decoded, so that a copy refused leaves nothing behind. */
static gpuimg_status copy_image(gpuimg_ctx *ctx, const char *folder, const char *rel, int trusted,
                                const char *to, int make_parents)
{
    /* The bytes are read once, under the folder rules (a regular file, no
     * symbolic link on the way unless trusted, no FIFO, bounded), decoded
     * whole, and those same bytes written: what lands in a report or a
     * golden folder is an image, and the file cannot be swapped between
     * the check and the copy. */
    char path[PATH_BUF];
    if ((size_t)snprintf(path, sizeof path, "%s/%s", folder, rel) >= sizeof path)
        return gpuimg__fail(ctx, GPUIMG_ERR_IO, "%s/%s: path too long", folder, rel);
    uint8_t *data = NULL;
    size_t size = 0;
    gpuimg_image img = {0};
    gpuimg_status st = gpuimg__read_folder_file(ctx, path, strlen(folder), !trusted, &data, &size);
    if (st == GPUIMG_OK && (st = gpuimg_load_memory(ctx, data, size, path, &img)) == GPUIMG_OK)
        gpuimg_image_free(&img);
    char parents[PATH_BUF];
    snprintf(parents, sizeof parents, "%s", to);
    if (st == GPUIMG_OK && make_parents && gpuimg__make_parents(parents) != 0)
        st = gpuimg__fail(ctx, GPUIMG_ERR_IO, "%s: cannot create its folder: %s", to,
                          strerror(errno));
    if (st == GPUIMG_OK)
        st = gpuimg_write_file(ctx, to, data, size);
    free(data);
    return st;
}

gpuimg_status gpuimg_copy_image(gpuimg_ctx *ctx, const char *folder, const char *rel, int trusted,
                                const char *to)
{
    return copy_image(ctx, folder, rel, trusted, to, 0);
}

/* One golden made to agree: its actual copied over it, or it (and its mask)
 * pruned; 1 when something was done. */
static gpuimg_status update_pair(gpuimg_ctx *ctx, const gpuimg_pair *p, int prune, int *done)
{
    *done = 0;
    if (p->status == GPUIMG_PAIR_FAILED || p->status == GPUIMG_PAIR_SIZE ||
        p->status == GPUIMG_PAIR_NEW) {
        char folder[PATH_BUF];
        snprintf(folder, sizeof folder, "%.*s", (int)folder_len(p->actual, p->path), p->actual);
        gpuimg_status st = copy_image(ctx, folder, p->path, 0, p->expected, 1);
        *done = st == GPUIMG_OK;
        return st;
    }
    if (prune && p->status == GPUIMG_PAIR_MISSING) {
        if (unlink(p->expected) != 0)
            return gpuimg__fail_errno(ctx, p->expected);
        if (p->mask && unlink(p->mask) != 0 && errno != ENOENT)
            return gpuimg__fail_errno(ctx, p->mask);
        *done = 1;
    }
    return GPUIMG_OK;
}

gpuimg_status gpuimg_update_goldens(gpuimg_ctx *ctx, const gpuimg_folder_result *r, int prune,
                                    size_t *updated, size_t *pruned)
{
    /* A pair that cannot be updated does not stop the others: the first
     * failure is the context's error once every pair has been tried. */
    *updated = *pruned = 0;
    gpuimg_status first = GPUIMG_OK;
    char error[sizeof ctx->error];
    size_t failures = 0;
    for (size_t i = 0; i < r->npairs; i++) {
        int done;
        gpuimg_status st = update_pair(ctx, &r->pairs[i], prune, &done);
        if (st != GPUIMG_OK && failures++ == 0) {
            first = st;
            memcpy(error, ctx->error, sizeof error);
        }
        if (done)
            ++*(r->pairs[i].status == GPUIMG_PAIR_MISSING ? pruned : updated);
    }
    if (failures > 1)
        gpuimg__fail(ctx, first, "%s (and %zu more goldens not updated)", error, failures - 1);
    else if (failures == 1)
        memcpy(ctx->error, error, sizeof error);
    return first;
}
