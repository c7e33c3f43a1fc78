/* SPDX-License-Identifier: MIT */
#define _POSIX_C_SOURCE 200809L /* strdup */
/* compare --merge (SPEC §7): the documents of `--shard K/N --json FILE`
 * runs, one per shard, read back and joined into the result one process
 * would have had, so that the summary, JUnit, report and exit code of a
 * suite split over N machines are those of one run. The parts must make
 * one run: the same folders and thresholds, every shard once. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "compare_out.h"
#include "json_read.h"

#define MAX_PART_BYTES (1u << 30)

char *compare_read_text(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    while (buf) {
        n += fread(buf + n, 1, cap - n, f);
        if (n < cap || cap >= MAX_PART_BYTES)
            break;
        char *grown = realloc(buf, cap * 2);
        if (!grown) {
            free(buf);
            buf = NULL;
        } else {
            buf = grown;
            cap *= 2;
        }
    }
    int bad = ferror(f) || (buf && n == cap);
    fclose(f);
    if (bad) {
        free(buf);
        return NULL;
    }
    *len = n;
    return buf;
}

/* A part's number as an int or a count: clamped, NaN as 0 (a part may come
 * from anywhere; a cast of 1e300 is undefined). */
static int to_int(double v)
{
    return v != v ? 0 : v < -2147483647.0 ? -2147483647 : v > 2147483647.0 ? 2147483647 : (int)v;
}

static uint64_t to_count(double v)
{
    return v != v || v < 0 ? 0 : v >= 1.8e19 ? UINT64_MAX : (uint64_t)v;
}

static int status_of(const char *name)
{
    for (int k = 0; k < GPUIMG_PAIR_STATUS_COUNT; k++)
        if (name && strcmp(name, gpuimg_pair_status_name((gpuimg_pair_status)k)) == 0)
            return k;
    return -1;
}

static char *joined(const char *dir, const char *rel)
{
    size_t n = strlen(dir) + strlen(rel) + 2;
    char *p = malloc(n);
    if (p)
        snprintf(p, n, "%s/%s", dir, rel);
    return p;
}

static void size_of(const json_value *rec, const char *key, int *w, int *h)
{
    const json_value *v = json_get(rec, key);
    if (v && v->type == JSON_ARRAY && v->n == 2) {
        *w = to_int(v->items[0].number);
        *h = to_int(v->items[1].number);
    }
}

/* One record back into a pair; 0, or -1 when it is not one. */
static int pair_from(const json_value *rec, const compare_settings *s, gpuimg_pair *p)
{
    const char *path = json_string_or(rec, "path", NULL);
    int status = status_of(json_string_or(rec, "status", NULL));
    if (!path || status < 0)
        return -1;
    p->status = (gpuimg_pair_status)status;
    if (!(p->path = strdup(path)) || !(p->expected = joined(s->expected_dir, path)) ||
        !(p->actual = joined(s->actual_dir, path)))
        return -1;
    gpuimg_compare_result *r = &p->result;
    r->width = to_int(json_number_or(rec, "width", 0));
    r->height = to_int(json_number_or(rec, "height", 0));
    r->channels = to_int(json_number_or(rec, "channels", 0));
    r->compared = to_count(json_number_or(rec, "compared", 0));
    r->ignored = to_count(json_number_or(rec, "ignored", 0));
    r->differing = to_count(json_number_or(rec, "differing", 0));
    r->forgiven = to_count(json_number_or(rec, "forgiven", 0));
    r->shifted = to_count(json_number_or(rec, "shifted", 0));
    r->groups_shifted = to_count(json_number_or(rec, "groups_shifted", 0));
    r->max_diff = to_int(json_number_or(rec, "max_diff", 0));
    r->mae = json_number_or(rec, "mae", 0);
    r->rmse = json_number_or(rec, "rmse", 0);
    r->has_psnr = json_get(rec, "psnr") && json_get(rec, "psnr")->type == JSON_NUMBER;
    r->psnr = json_number_or(rec, "psnr", 0);
    r->has_ssim = json_get(rec, "ssim") && json_get(rec, "ssim")->type == JSON_NUMBER;
    r->ssim = json_number_or(rec, "ssim", 0);
    const json_value *flip = json_get(rec, "flip");
    r->has_flip = flip && flip->type == JSON_OBJECT;
    r->flip_mean = json_number_or(flip, "mean", 0);
    r->flip_p95 = json_number_or(flip, "p95", 0);
    r->flip_p99 = json_number_or(flip, "p99", 0);
    r->identical = p->status == GPUIMG_PAIR_IDENTICAL;
    r->size_differs = p->status == GPUIMG_PAIR_SIZE;
    const json_value *box = json_get(rec, "bbox");
    r->bbox = (gpuimg_rect){
        to_int(json_number_or(box, "x", 0)), to_int(json_number_or(box, "y", 0)),
        to_int(json_number_or(box, "width", 0)), to_int(json_number_or(box, "height", 0))};
    size_of(rec, "expected_size", &p->expected_width, &p->expected_height);
    size_of(rec, "actual_size", &p->actual_width, &p->actual_height);
    const json_value *failed = json_get(rec, "failed");
    for (size_t i = 0; failed && failed->type == JSON_ARRAY && i < failed->n; i++)
        for (unsigned bit = 1; bit && bit <= 1u << 15; bit <<= 1)
            if (failed->items[i].type == JSON_STRING &&
                strcmp(failed->items[i].string, gpuimg_compare_failure_name(bit)) == 0)
                p->failed |= bit;
    const char *why = json_string_or(rec, "error", json_string_or(rec, "reason", ""));
    snprintf(p->reason, sizeof p->reason, "%s", why);
    const char *variant = json_string_or(rec, "variant", NULL);
    if (variant) {
        if (!(p->variants = malloc(sizeof *p->variants)) ||
            !(p->variants[0] = joined(s->expected_dir, variant)))
            return -1;
        p->nvariants = p->matched = 1;
    }
    char *mask = joined(s->expected_dir, path);
    char *dot = mask ? strrchr(mask, '.') : NULL, *slash = mask ? strrchr(mask, '/') : NULL;
    if (dot && (!slash || dot > slash)) {
        char *m = realloc(mask, (size_t)(dot - mask) + 10);
        if (m) {
            strcpy(m + (dot - mask), ".mask.png");
            mask = m;
            if (access(mask, F_OK) == 0) {
                p->mask = mask;
                mask = NULL;
            }
        }
    }
    free(mask);
    return 0;
}

/* The thresholds a part was made with (its "thresholds" object). */
static int settings_from(const json_value *doc, compare_settings *s)
{
    const json_value *t = json_get(doc, "thresholds");
    if (!t || t->type != JSON_OBJECT)
        return -1;
    gpuimg_compare_options_init(&s->opt);
    s->opt.ssim = 0;
    s->opt.fuzz = to_int(json_number_or(t, "fuzz", 0));
    s->opt.threshold = json_number_or(t, "threshold", 0);
    s->opt.antialiasing = json_bool_or(t, "antialiasing", 0);
    s->opt.max_shift = to_int(json_number_or(t, "max_shift", 0));
    const json_value *ign = json_get(t, "ignore");
    if (ign && ign->type == JSON_ARRAY && ign->n > 0) {
        gpuimg_rect *rects = calloc(ign->n, sizeof *rects);
        if (!rects)
            return -1;
        for (size_t i = 0; i < ign->n; i++) {
            const json_value *q = &ign->items[i];
            if (q->type != JSON_ARRAY || q->n != 4) {
                free(rects);
                return -1;
            }
            rects[i] = (gpuimg_rect){to_int(q->items[0].number), to_int(q->items[1].number),
                                     to_int(q->items[2].number), to_int(q->items[3].number)};
        }
        s->opt.ignore = rects;
        s->opt.nignore = (int)ign->n;
    }
    const json_value *regions = json_get(doc, "regions");
    if (regions && regions->type == JSON_ARRAY && regions->n > 0) {
        gpuimg_ignore_region *r = calloc(regions->n, sizeof *r);
        if (!r)
            return -1;
        s->regions = r;
        for (size_t i = 0; i < regions->n; i++) {
            const json_value *q = json_get(&regions->items[i], "rect");
            const char *glob = json_string_or(&regions->items[i], "glob", NULL);
            if (!glob || !q || q->type != JSON_ARRAY || q->n != 4 || !(r[i].glob = strdup(glob)))
                return -1;
            s->nregions = i + 1;
            r[i].rect = (gpuimg_rect){to_int(q->items[0].number), to_int(q->items[1].number),
                                      to_int(q->items[2].number), to_int(q->items[3].number)};
        }
    }
    gpuimg_compare_limits *l = &s->lim;
    const json_value *v;
#define LIMIT(name, field, has)                                                                    \
    if ((v = json_get(t, name)) != NULL && v->type == JSON_NUMBER) {                               \
        l->field = v->number;                                                                      \
        l->has = 1;                                                                                \
    }
    LIMIT("max_diff", max_diff, has_max_diff)
    LIMIT("max_differing", max_differing, has_max_differing)
    LIMIT("max_differing_pct", max_differing_pct, has_max_differing_pct)
    LIMIT("min_psnr", min_psnr, has_min_psnr)
    LIMIT("min_ssim", min_ssim, has_min_ssim)
    LIMIT("max_flip", max_flip, has_max_flip)
#undef LIMIT
    return 0;
}

void compare_merge_free(compare_settings *s)
{
    free((char *)s->expected_dir);
    free((char *)s->actual_dir);
    free((gpuimg_rect *)s->opt.ignore);
    compare_regions_free((gpuimg_ignore_region *)s->regions, s->nregions);
}

static int by_path(const void *a, const void *b)
{
    return strcmp(((const gpuimg_pair *)a)->path, ((const gpuimg_pair *)b)->path);
}

/* One part: checked against the first, its records appended. */
static int read_part(const char *name, const json_value *doc, int first, compare_settings *s,
                     unsigned char *seen, gpuimg_folder_result *res, char *why, size_t len,
                     int *usage)
{
    const json_value *pairs = json_get(doc, "pairs"), *shard = json_get(doc, "shard");
    const char *edir = json_string_or(doc, "expected_dir", NULL);
    const char *adir = json_string_or(doc, "actual_dir", NULL);
    if (!pairs || pairs->type != JSON_ARRAY || !edir || !adir || !shard) {
        snprintf(why, len, "--merge: %s: not a gpuimg compare document of two folders", name);
        return -1;
    }
    int count = shard->type == JSON_OBJECT ? to_int(json_number_or(shard, "count", 0)) : 1;
    int index = shard->type == JSON_OBJECT ? to_int(json_number_or(shard, "index", -1)) : 0;
    size_t all = (size_t)to_count(json_number_or(doc, "all_pairs", -1));
    if (count < 1 || index < 0 || index >= count || count > 1000000) {
        snprintf(why, len, "--merge: %s: a bad shard", name);
        return -1;
    }
    if (first) {
        if (!(s->expected_dir = strdup(edir)) || !(s->actual_dir = strdup(adir)) ||
            settings_from(doc, s) != 0) {
            snprintf(why, len, "--merge: %s: unreadable thresholds", name);
            return -1;
        }
        s->shard_count = count;
        s->all_pairs = all;
        s->allow_new = json_bool_or(doc, "allow_new", 0);
        s->allow_empty = json_bool_or(doc, "allow_empty", 0);
    } else if (strcmp(edir, s->expected_dir) != 0 || strcmp(adir, s->actual_dir) != 0 ||
               count != s->shard_count || all != s->all_pairs) {
        snprintf(why, len, "--merge: %s: another run (its folders, shard count or pairs differ)",
                 name);
        *usage = 1;
        return -1;
    }
    if (seen[index]++) {
        snprintf(why, len, "--merge: %s: shard %d/%d given twice", name, index, count);
        *usage = 1;
        return -1;
    }
    for (size_t i = 0; i < pairs->n; i++) {
        gpuimg_pair *p = &res->pairs[res->npairs++];
        if (pair_from(&pairs->items[i], s, p) != 0) {
            snprintf(why, len, "--merge: %s: record %zu is not a pair", name, i);
            return -1;
        }
    }
    return 0;
}

int compare_merge_read(gpuimg_ctx *ctx, char *const *parts, int nparts, gpuimg_folder_result *res,
                       compare_settings *s, char *why, size_t len, int *usage)
{
    (void)ctx;
    memset(res, 0, sizeof *res);
    memset(s, 0, sizeof *s);
    *usage = 0;
    why[0] = '\0';
    json_value **docs = calloc((size_t)nparts, sizeof *docs);
    size_t total = 0;
    int st = docs ? 0 : -1;
    for (int k = 0; st == 0 && k < nparts; k++) {
        size_t n;
        char err[160];
        char *text = compare_read_text(parts[k], &n);
        if (!text) {
            snprintf(why, len, "--merge: %s: cannot read it", parts[k]);
            st = -1;
        } else if (!(docs[k] = json_parse(text, n, err, sizeof err))) {
            snprintf(why, len, "--merge: %s: not JSON (%s)", parts[k], err);
            st = -1;
        } else {
            const json_value *pairs = json_get(docs[k], "pairs");
            total += pairs && pairs->type == JSON_ARRAY ? pairs->n : 0;
        }
        free(text);
    }
    unsigned char *seen = NULL;
    if (st == 0 && !(res->pairs = calloc(total + 1, sizeof *res->pairs)))
        st = -1;
    for (int k = 0; st == 0 && k < nparts; k++) {
        if (k == 0 && !(seen = calloc(1000001, 1)))
            st = -1;
        else
            st = read_part(parts[k], docs[k], k == 0, s, seen, res, why, len, usage);
    }
    if (st == 0 && nparts != s->shard_count) {
        int missing = 0;
        while (missing < s->shard_count && seen[missing])
            missing++;
        snprintf(why, len, "--merge: %d part%s of %d shards: shard %d/%d is missing", nparts,
                 nparts == 1 ? "" : "s", s->shard_count, missing, s->shard_count);
        *usage = 1;
        st = -1;
    }
    if (st == 0 && res->npairs != s->all_pairs) {
        snprintf(why, len, "--merge: the parts hold %zu pairs of the run's %zu", res->npairs,
                 s->all_pairs);
        *usage = 1;
        st = -1;
    }
    free(seen);
    for (int k = 0; docs && k < nparts; k++)
        json_free(docs[k]);
    free(docs);
    if (st != 0) {
        if (!why[0])
            snprintf(why, len, "--merge: out of memory");
        gpuimg_folder_result_free(res);
        compare_merge_free(s);
        memset(s, 0, sizeof *s);
        return -1;
    }
    qsort(res->pairs, res->npairs, sizeof *res->pairs, by_path);
    for (size_t i = 0; i < res->npairs; i++)
        res->count[res->pairs[i].status]++;
    res->all_pairs = res->npairs;
    s->shard_count = 0; /* the merged document is one run's */
    return 0;
}
