/* SPDX-License-Identifier: MIT */
#define _XOPEN_SOURCE 700 /* nftw */
#include "testutil.h"

#include <dirent.h>
#include <fcntl.h>
#include <ftw.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ops/ops.h"

const char *tu_backend_name(void)
{
    const char *b = getenv("GPUIMG_BACKEND");
    return b && *b ? b : "cpu";
}

gpuimg_ctx *tu_ctx(void)
{
    gpuimg_config cfg;
    gpuimg_config_init(&cfg);
    ck_assert_msg(gpuimg_backend_from_name(tu_backend_name(), &cfg.backend),
                  "GPUIMG_BACKEND=%s: not a backend", tu_backend_name());
    gpuimg_ctx *ctx;
    ck_assert_int_eq(gpuimg_ctx_create(&cfg, &ctx), GPUIMG_OK);
    return ctx;
}

gpuimg_status tu_apply(gpuimg_ctx *ctx, const char *text, const gpuimg_image *in, int poison,
                       gpuimg_image *out, char *err, size_t errlen)
{
    gpuimg_step *step;
    gpuimg_backend *be;
    gpuimg_planes src, dst;
    memset(out, 0, sizeof *out);
    gpuimg_status st = gpuimg_step_parse(ctx, text, &step);
    if (st == GPUIMG_OK && (st = gpuimg_step_finish(ctx, step)) != GPUIMG_OK)
        gpuimg_step_free(step);
    if (st != GPUIMG_OK) {
        snprintf(err, errlen, "%s", gpuimg_ctx_error(ctx));
        return st;
    }
    if ((st = gpuimg__backend(ctx, &be)) == GPUIMG_OK &&
        (st = gpuimg__upload(ctx, be, in, &src)) == GPUIMG_OK) {
        st = gpuimg__step_apply(ctx, be, step, &src, &dst, poison);
        if (st == GPUIMG_OK) {
            st = gpuimg_image_alloc_depth(out, dst.width, dst.height, dst.channels, dst.depth);
            if (st == GPUIMG_OK)
                st = be->ops->download(be, &dst, out);
            be->ops->planes_free(be, &dst);
        }
        be->ops->planes_free(be, &src);
    }
    if (st != GPUIMG_OK)
        snprintf(err, errlen, "%s", gpuimg_ctx_error(ctx));
    gpuimg_step_free(step);
    return st;
}

int tu_value(const gpuimg_image *img, size_t i)
{
    return gpuimg_image_depth(img) == 16 ? ((const uint16_t *)img->data)[i] : img->data[i];
}

int tu_images_agree(const gpuimg_image *got, const gpuimg_image *want, int exact, char *msg,
                    size_t len)
{
    int depth = gpuimg_image_depth(got);
    if (got->width != want->width || got->height != want->height ||
        got->channels != want->channels || depth != gpuimg_image_depth(want)) {
        snprintf(msg, len, "shape %dx%dx%d at %d bits, expected %dx%dx%d at %d bits", got->width,
                 got->height, got->channels, depth, want->width, want->height, want->channels,
                 gpuimg_image_depth(want));
        return 0;
    }
    size_t n = (size_t)got->width * got->height * got->channels, off_by_one = 0, first = n;
    for (size_t i = 0; i < n; i++) {
        int g = tu_value(got, i), w = tu_value(want, i), d = abs(g - w);
        if (d == 0)
            continue;
        if (first == n)
            first = i;
        if (exact || d > 1) {
            size_t px = i / (size_t)got->channels;
            snprintf(msg, len, "pixel (%zu,%zu) channel %zu: got %d, expected %d",
                     px % (size_t)got->width, px / (size_t)got->width, i % (size_t)got->channels, g,
                     w);
            return 0;
        }
        off_by_one++;
    }
    /* SPEC §4: at most 0.1% of values, 1% at 16 bits */
    double share = depth == 16 ? 0.01 : 0.001;
    if ((double)off_by_one > share * (double)n) {
        size_t px = first / (size_t)got->channels;
        snprintf(msg, len, "%zu of %zu values off by one (over %g%%); first at (%zu,%zu)",
                 off_by_one, n, share * 100, px % (size_t)got->width, px / (size_t)got->width);
        return 0;
    }
    return 1;
}

int tu_images_close(const gpuimg_image *got, const gpuimg_image *want, int most, double share,
                    char *msg, size_t len)
{
    if (got->width != want->width || got->height != want->height ||
        got->channels != want->channels || gpuimg_image_depth(got) != gpuimg_image_depth(want)) {
        snprintf(msg, len, "shape %dx%dx%d, expected %dx%dx%d", got->width, got->height,
                 got->channels, want->width, want->height, want->channels);
        return 0;
    }
    size_t n = (size_t)got->width * got->height * got->channels, differing = 0;
    for (size_t i = 0; i < n; i++) {
        int g = tu_value(got, i), w = tu_value(want, i), d = abs(g - w);
        if (d > most) {
            size_t px = i / (size_t)got->channels;
            snprintf(msg, len,
                     "pixel (%zu,%zu) channel %zu: got %d, expected %d (more than %d off)",
                     px % (size_t)got->width, px / (size_t)got->width, i % (size_t)got->channels, g,
                     w, most);
            return 0;
        }
        differing += d != 0;
    }
    if ((double)differing > share * (double)n) {
        snprintf(msg, len, "%zu of %zu values differ (over %g%%)", differing, n, share * 100);
        return 0;
    }
    return 1;
}

void tu_random_image_depth(gpuimg_image *img, int w, int h, int c, int depth, unsigned seed)
{
    ck_assert_int_eq(gpuimg_image_alloc_depth(img, w, h, c, depth), GPUIMG_OK);
    unsigned x = seed * 2654435761u + 1u;
    for (size_t i = 0; i < (size_t)w * h * c; i++) {
        x ^= x << 13; /* xorshift32 */
        x ^= x >> 17;
        x ^= x << 5;
        if (depth == 16)
            ((uint16_t *)img->data)[i] = (uint16_t)(x >> 16);
        else
            img->data[i] = (uint8_t)(x >> 24);
    }
}

void tu_random_image(gpuimg_image *img, int w, int h, int c, unsigned seed)
{
    tu_random_image_depth(img, w, h, c, 8, seed);
}

const char *tu_golden(const char *rel)
{
    static char buf[4][4096];
    static int slot;
    const char *root = getenv("GPUIMG_GOLDEN");
    char *out = buf[slot++ % 4];
    snprintf(out, sizeof buf[0], "%s/%s", root ? root : "tests/golden", rel);
    return out;
}

const char *tu_bin(void)
{
    const char *b = getenv("GPUIMG_BIN");
    return b ? b : "build/gpuimg";
}

void tu_load(gpuimg_ctx *ctx, const char *path, gpuimg_image *img)
{
    gpuimg_status st = gpuimg_load(ctx, path, img);
    ck_assert_msg(st == GPUIMG_OK, "cannot load %s: %s", path, gpuimg_ctx_error(ctx));
}

int tu_json_numbers(const char *json, const char *key, double *out, int max)
{
    char pattern[128];
    snprintf(pattern, sizeof pattern, "\"%s\":", key);
    const char *p = strstr(json, pattern);
    if (!p)
        return -1;
    p += strlen(pattern);
    int depth = 0, n = 0;
    do {
        while (*p == ' ' || *p == '\n' || *p == ',')
            p++;
        if (*p == '[') {
            depth++;
            p++;
        } else if (*p == ']') {
            depth--;
            p++;
        } else if (strncmp(p, "null", 4) == 0) {
            if (n < max)
                out[n] = NAN;
            n++;
            p += 4;
        } else {
            char *end;
            double v = strtod(p, &end);
            if (end == p)
                return -1;
            if (n < max)
                out[n] = v;
            n++;
            p = end;
        }
    } while (depth > 0 && *p);
    return n;
}

char *tu_read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    size_t got;
    while (buf && (got = fread(buf + n, 1, cap - n - 1, f)) > 0) {
        n += got;
        if (cap - n - 1 == 0) {
            char *bigger = realloc(buf, cap * 2);
            if (!bigger) {
                free(buf);
                buf = NULL;
            }
            buf = bigger;
            cap *= 2;
        }
    }
    fclose(f);
    if (buf)
        buf[n] = '\0';
    if (len)
        *len = n;
    return buf;
}

int tu_same_file(const char *a, const char *b)
{
    size_t la, lb;
    char *da = tu_read_file(a, &la), *db = tu_read_file(b, &lb);
    int same = da && db && la == lb && memcmp(da, db, la) == 0;
    free(da);
    free(db);
    return same;
}

void tu_write_file(const char *path, const void *data, size_t len)
{
    FILE *f = fopen(path, "wb");
    ck_assert_msg(f != NULL, "cannot create %s", path);
    ck_assert_uint_eq(fwrite(data, 1, len, f), len);
    ck_assert_int_eq(fclose(f), 0);
}

static char root[256];

void tu_root_open(void)
{
    const char *base = getenv("TMPDIR");
    snprintf(root, sizeof root, "%s/gpuimg-tests-XXXXXX", base && *base ? base : "/tmp");
    if (!mkdtemp(root)) {
        perror("gpuimg tests: mkdtemp");
        exit(EXIT_FAILURE);
    }
}

static int remove_entry(const char *path, const struct stat *sb, int type, struct FTW *ftw)
{
    (void)sb;
    (void)type;
    (void)ftw;
    return remove(path);
}

void tu_root_remove(void)
{
    if (root[0])
        nftw(root, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

const char *tu_tmpdir(void)
{
    static char dir[300];
    snprintf(dir, sizeof dir, "%s/test-XXXXXX", root);
    ck_assert_msg(mkdtemp(dir) != NULL, "mkdtemp failed");
    return dir;
}

TCase *tu_tcase(const char *name)
{
    TCase *tc = tcase_create(name);
    tcase_set_timeout(tc, 600);
    return tc;
}

int tu_run(const char *const *args, const char *in_path, char **out, char **err)
{
    char out_path[340], err_path[340], saved[300];
    snprintf(saved, sizeof saved, "%s/run-XXXXXX", root);
    ck_assert_msg(mkdtemp(saved) != NULL, "mkdtemp failed");
    snprintf(out_path, sizeof out_path, "%s/stdout", saved);
    snprintf(err_path, sizeof err_path, "%s/stderr", saved);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        int in = open(in_path ? in_path : "/dev/null", O_RDONLY);
        int o = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        int e = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        if (in < 0 || o < 0 || e < 0 || dup2(in, 0) < 0 || dup2(o, 1) < 0 || dup2(e, 2) < 0)
            _exit(126);
        execv(args[0], (char *const *)args);
        _exit(127);
    }
    int status;
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    char *o = tu_read_file(out_path, NULL), *e = tu_read_file(err_path, NULL);
    unlink(out_path);
    unlink(err_path);
    rmdir(saved);
    if (out)
        *out = o;
    else
        free(o);
    if (err)
        *err = e;
    else
        free(e);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

int tu_count_entries(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
            n++;
    closedir(d);
    return n;
}

double tu_psnr(const gpuimg_image *a, const gpuimg_image *b)
{
    ck_assert_int_eq(a->width, b->width);
    ck_assert_int_eq(a->height, b->height);
    ck_assert_int_eq(a->channels, b->channels);
    size_t n = (size_t)a->width * a->height * a->channels;
    double se = 0;
    for (size_t i = 0; i < n; i++) {
        double d = (double)a->data[i] - b->data[i];
        se += d * d;
    }
    return se == 0 ? INFINITY : 10 * log10(255.0 * 255.0 * n / se);
}
