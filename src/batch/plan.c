/* SPDX-License-Identifier: MIT */
/* The plan of a batch (batch/plan.h): everything decided before a thread
 * starts or a file is written. */
#define _DEFAULT_SOURCE /* DT_DIR, realpath */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "batch/plan.h"

#define PATH_BUF GPUIMG__PATH_BUF

static gpuimg_status list_add(gpuimg_ctx *ctx, gpuimg__file_list *l, const char *rel)
{
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 256;
        char **bigger = realloc(l->rel, cap * sizeof *bigger);
        if (!bigger)
            return gpuimg__fail(ctx, GPUIMG_ERR_NOMEM, "out of memory");
        l->rel = bigger;
        l->cap = cap;
    }
    if (!(l->rel[l->n] = strdup(rel)))
        return gpuimg__fail(ctx, GPUIMG_ERR_NOMEM, "out of memory");
    l->n++;
    return GPUIMG_OK;
}

void gpuimg__file_list_free(gpuimg__file_list *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->rel[i]);
    free(l->rel);
}

void gpuimg__ignored_free(gpuimg__ignored *ig)
{
    for (int i = 0; i < ig->named; i++)
        free(ig->first[i]);
    memset(ig, 0, sizeof *ig);
}

/* Counts rel as ignored, and keeps its name while it is among the first
 * GPUIMG_BATCH_IGNORED_NAMED in path order (the walk meets them in the
 * folder's order): first[] stays sorted, the last one giving way. */
static gpuimg_status ignore(gpuimg_ctx *ctx, gpuimg__ignored *ig, const char *rel)
{
    if (!ig)
        return GPUIMG_OK;
    ig->count++;
    int n = ig->named, at = n;
    while (at > 0 && strcmp(rel, ig->first[at - 1]) < 0)
        at--;
    if (at == GPUIMG_BATCH_IGNORED_NAMED)
        return GPUIMG_OK; /* after all ten kept */
    char *copy = strdup(rel);
    if (!copy)
        return gpuimg__fail(ctx, GPUIMG_ERR_NOMEM, "out of memory");
    if (n == GPUIMG_BATCH_IGNORED_NAMED)
        free(ig->first[--n]);
    memmove(ig->first + at + 1, ig->first + at, (size_t)(n - at) * sizeof *ig->first);
    ig->first[at] = copy;
    ig->named = n + 1;
    return GPUIMG_OK;
}

/* Collects the image files under root/rel. */
static gpuimg_status walk_folder(gpuimg_ctx *ctx, const char *root, const char *rel, int recursive,
                                 const struct stat *skip, gpuimg__file_list *out,
                                 gpuimg__file_list *bad_folders, gpuimg__ignored *ignored)
{
    /* On the heap: a tree hundreds of folders deep recurses that deep. */
    struct {
        char path[PATH_BUF], child[PATH_BUF], full[2 * PATH_BUF];
    } *buf = malloc(sizeof *buf);
    if (!buf)
        return gpuimg__fail(ctx, GPUIMG_ERR_NOMEM, "out of memory");
    char *path = buf->path, *child = buf->child, *full = buf->full;
    snprintf(path, PATH_BUF, "%s%s%s", root, rel[0] ? "/" : "", rel);
    DIR *d = opendir(path);
    if (!d) {
        /* IN_DIR itself stops the batch; a subfolder is one more bad input:
         * reported, counted as failed, and the rest go on. */
        gpuimg_status st = GPUIMG_OK;
        if (!rel[0]) {
            st = gpuimg__fail_errno(ctx, path);
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
            if (recursive && !(skip && sb.st_dev == skip->st_dev && sb.st_ino == skip->st_ino))
                st = walk_folder(ctx, root, child, recursive, skip, out, bad_folders, ignored);
        } else if (gpuimg_is_image_path(e->d_name)) {
            st = list_add(ctx, out, child);
        } else if (S_ISREG(sb.st_mode)) {
            st = ignore(ctx, ignored, child);
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

gpuimg_status gpuimg__walk(gpuimg_ctx *ctx, const char *root, int recursive,
                           const struct stat *skip, gpuimg__file_list *files,
                           gpuimg__file_list *bad, gpuimg__ignored *ignored)
{
    gpuimg_status st = walk_folder(ctx, root, "", recursive, skip, files, bad, ignored);
    if (st == GPUIMG_OK && files->n) /* empty: rel is NULL, which qsort may not take */
        qsort(files->rel, files->n, sizeof *files->rel, by_path);
    return st;
}

/* IN_DIR a folder, OUT_DIR not IN_DIR; out_sb is OUT_DIR's, zeroed when it
 * does not exist yet (created only once the plan holds: make_out_dir). */
static gpuimg_status check_dirs(gpuimg_ctx *ctx, const gpuimg_batch_options *opt,
                                struct stat *out_sb)
{
    struct stat in_sb;
    if (stat(opt->in_dir, &in_sb) != 0)
        return gpuimg__fail_errno(ctx, opt->in_dir);
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
static gpuimg_status plan_outputs(gpuimg_ctx *ctx, const gpuimg_batch_options *opt, gpuimg__plan *b)
{
    size_t n = b->files.n;
    b->outputs = calloc(n ? n : 1, sizeof *b->outputs);
    file_id *inputs = calloc(n ? n : 1, sizeof *inputs);
    if (!b->outputs || !inputs) {
        free(inputs);
        return gpuimg__fail(ctx, GPUIMG_ERR_NOMEM, "out of memory");
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
            return gpuimg__fail(ctx, GPUIMG_ERR_NOMEM, "out of memory");
        }
    }
    free(inputs);
    char ***sorted = malloc((b->files.n ? b->files.n : 1) * sizeof *sorted);
    if (!sorted)
        return gpuimg__fail(ctx, GPUIMG_ERR_NOMEM, "out of memory");
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

static int newer(const struct stat *a, const struct stat *b)
{
    return a->st_mtim.tv_sec > b->st_mtim.tv_sec ||
           (a->st_mtim.tv_sec == b->st_mtim.tv_sec && a->st_mtim.tv_nsec > b->st_mtim.tv_nsec);
}

void gpuimg__plan_free(gpuimg__plan *plan)
{
    for (size_t i = 0; plan->outputs && i < plan->files.n; i++)
        free(plan->outputs[i]);
    free(plan->outputs);
    free(plan->skip);
    free(plan->bytes);
    gpuimg__file_list_free(&plan->files);
    gpuimg__file_list_free(&plan->bad_folders);
    gpuimg__ignored_free(&plan->ignored);
    memset(plan, 0, sizeof *plan);
}

gpuimg_status gpuimg__plan_batch(gpuimg_ctx *ctx, const gpuimg_batch_options *opt,
                                 gpuimg__plan *plan)
{
    memset(plan, 0, sizeof *plan);
    if (opt->shard_count < 1 || opt->shard_index < 0 || opt->shard_index >= opt->shard_count)
        return gpuimg__fail(ctx, GPUIMG_ERR_USAGE, "--shard: need 0 <= K < N");
    if (opt->format != GPUIMG_FORMAT_NONE && !gpuimg_format_extension(opt->format))
        return gpuimg__fail(ctx, GPUIMG_ERR_FORMAT, "--format: not a writable format");
    struct stat out_sb;
    gpuimg_status st = check_dirs(ctx, opt, &out_sb);
    if (st == GPUIMG_OK)
        st = gpuimg__walk(ctx, opt->in_dir, opt->recursive, &out_sb, &plan->files,
                          &plan->bad_folders, &plan->ignored);
    if (st == GPUIMG_OK)
        st = plan_outputs(ctx, opt, plan);
    if (st != GPUIMG_OK) {
        gpuimg__plan_free(plan);
        return st;
    }
    plan->out_dir_exists = out_sb.st_ino != 0;
    /* The shard: the files whose sorted index is K mod N (the outputs were
     * planned for all, so that a collision does not depend on the shard). */
    size_t kept = 0;
    for (size_t i = 0; i < plan->files.n; i++) {
        if ((long)(i % (size_t)opt->shard_count) == opt->shard_index) {
            plan->files.rel[kept] = plan->files.rel[i];
            plan->outputs[kept++] = plan->outputs[i];
        } else {
            free(plan->files.rel[i]);
            free(plan->outputs[i]);
        }
    }
    plan->files.n = kept;
    if (!(plan->skip = calloc(kept ? kept : 1, 1)) ||
        !(plan->bytes = calloc(kept ? kept : 1, sizeof *plan->bytes))) {
        gpuimg__plan_free(plan);
        return gpuimg__fail(ctx, GPUIMG_ERR_NOMEM, "out of memory");
    }
    /* One stat of each input: --skip-existing's comparison, and the work
     * left in bytes read (for the ETA). */
    for (size_t i = 0; i < kept; i++) {
        char in[PATH_BUF];
        snprintf(in, sizeof in, "%s/%s", opt->in_dir, plan->files.rel[i]);
        struct stat si, so;
        int known = stat(in, &si) == 0;
        plan->bytes[i] = known && si.st_size > 0 ? (uint64_t)si.st_size : 1;
        if (opt->skip_existing && known && stat(plan->outputs[i], &so) == 0 && newer(&so, &si)) {
            plan->skip[i] = 1;
            plan->skipped++;
        } else {
            plan->total_bytes += plan->bytes[i];
        }
    }
    return GPUIMG_OK;
}

/* mkdir -p for the folder part of path, inside a folder known to exist. */
int gpuimg__make_parents(char *path)
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
