/* SPDX-License-Identifier: MIT */
/* The golden suite: every case of tests/golden/manifest.tsv (made by
 * make_golden.py, an independent float64 NumPy/SciPy reference) run through
 * the backend seam and compared at SPEC's tolerance; and every operation of
 * the op table has cases at both depths. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

typedef struct golden_case {
    char id[64], input[256], step[512], expected[256], tol[16];
} golden_case;

static golden_case *cases;
static int ncases;

/* Runs while the suites are built, outside any test: problems are printed
 * and leave the loop empty, which the count test below turns into a failure. */
static void load_manifest(void)
{
    char *text = tu_read_file(tu_golden("manifest.tsv"), NULL);
    if (!text) {
        fprintf(stderr, "cannot read %s\n", tu_golden("manifest.tsv"));
        return;
    }
    int cap = 0;
    char *save = NULL;
    for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        if (line[0] == '#' || !line[0])
            continue;
        if (ncases == cap) {
            cap = cap ? cap * 2 : 256;
            golden_case *bigger = realloc(cases, (size_t)cap * sizeof *cases);
            if (!bigger)
                break;
            cases = bigger;
        }
        golden_case *c = &cases[ncases];
        int got = sscanf(line, "%63[^\t]\t%255[^\t]\t%511[^\t]\t%255[^\t]\t%15s", c->id, c->input,
                         c->step, c->expected, c->tol);
        if (got != 5) {
            fprintf(stderr, "malformed manifest line: %s\n", line);
            ncases = 0;
            break;
        }
        ncases++;
    }
    free(text);
}

static int golden_case_count(void)
{
    if (!cases)
        load_manifest();
    return ncases;
}

/* Rewrites relative file names inside a step (kernel=, with=) under tests/golden. */
static void resolve_paths(const char *step, char *out, size_t len)
{
    const char *k = strstr(step, "kernel=kernels/");
    if (!k) {
        snprintf(out, len, "%s", step);
        return;
    }
    snprintf(out, len, "%.*skernel=%s", (int)(k - step), step, tu_golden(k + strlen("kernel=")));
}

static int close_enough(double got, double want, double tol)
{
    if (isnan(want))
        return isnan(got);
    return fabs(got - want) <= tol * fmax(1.0, fabs(want));
}

static void check_json_key(const char *id, const char *key, const double *got, int n,
                           const char *json, double tol)
{
    double *want = malloc((size_t)(n + 1) * sizeof *want);
    ck_assert_ptr_nonnull(want);
    int m = tu_json_numbers(json, key, want, n + 1);
    ck_assert_msg(m == n, "%s: %s has %d values, expected %d", id, key, n, m);
    for (int i = 0; i < n; i++)
        ck_assert_msg(close_enough(got[i], want[i], tol), "%s: %s[%d] = %.12g, expected %.12g", id,
                      key, i, got[i], want[i]);
    free(want);
}

static const char *step_value(const char *step, const char *key, char *out, size_t len);

static void run_histogram(gpuimg_ctx *ctx, const golden_case *gc, const gpuimg_image *in,
                          const char *json)
{
    gpuimg_histogram all, h;
    char bins[32];
    ck_assert_int_eq(gpuimg_histogram_compute(ctx, in, &all), GPUIMG_OK);
    int n = step_value(gc->step, "bins", bins, sizeof bins) ? atoi(bins) : 256;
    ck_assert_int_eq(gpuimg_histogram_rebin(&all, n, &h), GPUIMG_OK);
    double *got = malloc((size_t)h.channels * (size_t)n * sizeof *got);
    ck_assert_ptr_nonnull(got);
    for (int c = 0; c < h.channels; c++)
        for (int v = 0; v < n; v++)
            got[(size_t)c * n + v] = (double)h.counts[c][v];
    check_json_key(gc->id, "counts", got, h.channels * n, json, 0);
    free(got);
    gpuimg_histogram_free(&h);
    gpuimg_histogram_free(&all);
}

static void run_stats(gpuimg_ctx *ctx, const golden_case *gc, const gpuimg_image *in,
                      const char *json)
{
    gpuimg_stats s;
    ck_assert_int_eq(gpuimg_stats_compute(ctx, in, &s), GPUIMG_OK);
    double v[5][4];
    for (int c = 0; c < s.channels; c++) {
        v[0][c] = s.min[c];
        v[1][c] = s.max[c];
        v[2][c] = s.mean[c];
        v[3][c] = s.stddev[c];
        v[4][c] = s.median[c];
    }
    const char *keys[] = {"min", "max", "mean", "stddev", "median"};
    for (int k = 0; k < 5; k++) /* exact sums: only the last bits of a double may move */
        check_json_key(gc->id, keys[k], v[k], s.channels, json, 1e-12);
}

/* The value of key=... in a compare case's step, or NULL. */
static const char *step_value(const char *step, const char *key, char *out, size_t len)
{
    char pat[32];
    snprintf(pat, sizeof pat, "%s=", key);
    for (const char *p = strstr(step, pat); p; p = strstr(p + 1, pat))
        if (p[-1] == ':' || p[-1] == ',') {
            snprintf(out, len, "%.*s", (int)strcspn(p + strlen(pat), ","), p + strlen(pat));
            return out;
        }
    return NULL;
}

/* The step "compare:with=B[,fuzz=N][,threshold=D][,aa=1][,shift=N]
 * [,ignore=X_Y_W_H;...][,mask=PATH][,ssim=1]" as options. */
static int compare_case(const char *step, gpuimg_compare_options *o, gpuimg_rect *rects,
                        gpuimg_image *mask, gpuimg_ctx *ctx)
{
    char v[512];
    gpuimg_compare_options_init(o);
    int rules = 0;
    if (step_value(step, "fuzz", v, sizeof v))
        o->fuzz = atoi(v);
    if (step_value(step, "threshold", v, sizeof v) && ++rules)
        o->threshold = atof(v);
    if (step_value(step, "aa", v, sizeof v) && ++rules)
        o->antialiasing = atoi(v);
    if (step_value(step, "shift", v, sizeof v) && ++rules)
        o->max_shift = atoi(v);
    if (step_value(step, "ignore", v, sizeof v) && ++rules) {
        char *save = NULL;
        for (char *r = strtok_r(v, ";", &save); r; r = strtok_r(NULL, ";", &save)) {
            gpuimg_rect *q = &rects[o->nignore++];
            ck_assert_int_eq(sscanf(r, "%d_%d_%d_%d", &q->x, &q->y, &q->width, &q->height), 4);
        }
        o->ignore = rects;
    }
    if (step_value(step, "mask", v, sizeof v) && ++rules) {
        tu_load(ctx, tu_golden(v), mask);
        o->mask = mask;
    }
    int ssim = step_value(step, "ssim", v, sizeof v) != NULL;
    rules += ssim;
    o->ssim = rules ? ssim : 1; /* the plain cases' reference always has SSIM */
    return rules;
}

static void run_compare(gpuimg_ctx *ctx, const golden_case *gc, const gpuimg_image *a,
                        const char *json)
{
    char with[512];
    ck_assert_ptr_nonnull(step_value(gc->step, "with", with, sizeof with));
    gpuimg_image b, mask = {0}, diff;
    tu_load(ctx, tu_golden(with), &b);
    gpuimg_compare_options o;
    gpuimg_rect rects[8];
    int rules = compare_case(gc->step, &o, rects, &mask, ctx);
    gpuimg_compare_result r;
    ck_assert_int_eq(gpuimg_compare(ctx, a, &b, &o, &r, &diff), GPUIMG_OK);
    ck_assert(!r.size_differs);
    double ints[2] = {r.max_diff, (double)r.differing};
    check_json_key(gc->id, "max_diff", &ints[0], 1, json, 0);
    check_json_key(gc->id, "differing", &ints[1], 1, json, 0);
    check_json_key(gc->id, "mae", &r.mae, 1, json, 1e-9);
    check_json_key(gc->id, "rmse", &r.rmse, 1, json, 1e-9);
    double psnr = r.has_psnr ? r.psnr : NAN, ssim = r.has_ssim ? r.ssim : NAN;
    check_json_key(gc->id, "psnr", &psnr, 1, json, 1e-9);
    /* SSIM: sums of many float products; 1e-6 leaves room for a GPU's float. */
    check_json_key(gc->id, "ssim", &ssim, 1, json, 1e-6);
    if (rules) { /* SPEC section 7's figures, and the picture, pixel for pixel */
        double more[4] = {(double)r.forgiven, (double)r.ignored, (double)r.shifted,
                          (double)r.groups_shifted};
        check_json_key(gc->id, "forgiven", &more[0], 1, json, 0);
        check_json_key(gc->id, "ignored", &more[1], 1, json, 0);
        check_json_key(gc->id, "shifted", &more[2], 1, json, 0);
        check_json_key(gc->id, "groups_shifted", &more[3], 1, json, 0);
        double box[4] = {r.bbox.x, r.bbox.y, r.bbox.width, r.bbox.height};
        if (r.differing)
            check_json_key(gc->id, "bbox", box, 4, json, 0);
        else
            check_json_key(gc->id, "bbox", (double[]){NAN}, 1, json, 0);
        char rel[600];
        snprintf(rel, sizeof rel, "expected/%s_diff.png", gc->id);
        gpuimg_image want;
        tu_load(ctx, tu_golden(rel), &want);
        char msg[256];
        ck_assert_msg(tu_images_agree(&diff, &want, 1, msg, sizeof msg), "%s: diff: %s", gc->id,
                      msg);
        gpuimg_image_free(&want);
    }
    gpuimg_image_free(&diff);
    gpuimg_image_free(&mask);
    gpuimg_image_free(&b);
}

START_TEST(golden)
{
    const golden_case *gc = &cases[_i];
    gpuimg_ctx *ctx = tu_ctx();
    gpuimg_image in;
    tu_load(ctx, tu_golden(gc->input), &in);
    if (strstr(gc->expected, ".json")) {
        char *json = tu_read_file(tu_golden(gc->expected), NULL);
        ck_assert_msg(json != NULL, "%s: cannot read %s", gc->id, gc->expected);
        if (strncmp(gc->step, "histogram", 9) == 0)
            run_histogram(ctx, gc, &in, json);
        else if (strncmp(gc->step, "stats", 5) == 0)
            run_stats(ctx, gc, &in, json);
        else
            run_compare(ctx, gc, &in, json);
        free(json);
    } else {
        char step[1024], err[512];
        resolve_paths(gc->step, step, sizeof step);
        gpuimg_image want;
        tu_load(ctx, tu_golden(gc->expected), &want);
        /* Two poisons, so that a pixel the kernel never writes cannot pass by
         * happening to hold the expected value. */
        for (int poison = 0; poison <= 255; poison += 255) {
            gpuimg_image got;
            char msg[256];
            gpuimg_status st = tu_apply(ctx, step, &in, poison, &got, err, sizeof err);
            ck_assert_msg(st == GPUIMG_OK, "%s (%s): %s", gc->id, step, err);
            /* cms: LittleCMS holds a profile's matrix as s15.16 numbers and
             * rounds its 8-bit path through fixed point: within 1 of the
             * float64 reference at 8 bits, 2 at 16 (make_golden.py's
             * op_colour) */
            int agree =
                strcmp(gc->tol, "cms") == 0
                    ? tu_images_close(&got, &want, gpuimg_image_depth(&got) == 16 ? 2 : 1, 1.0, msg,
                                      sizeof msg)
                    : tu_images_agree(&got, &want, strcmp(gc->tol, "exact") == 0, msg, sizeof msg);
            ck_assert_msg(agree, "%s (%s on %s, %s backend): %s", gc->id, gc->step, gc->input,
                          tu_backend_name(), msg);
            gpuimg_image_free(&got);
        }
        gpuimg_image_free(&want);
    }
    gpuimg_image_free(&in);
    gpuimg_ctx_destroy(ctx);
}
END_TEST

/* Every row of the op table has golden cases at 8 and at 16 bits (the
 * input's depth): a new operation without them fails here. */
START_TEST(every_op_has_goldens)
{
    gpuimg_ctx *ctx = tu_ctx();
    for (int i = 0; gpuimg_op_at(i); i++) {
        const char *name = gpuimg_op_at(i)->name;
        size_t len = strlen(name);
        int at[2] = {0, 0}; /* cases at 8 bits, at 16 */
        for (int k = 0; k < ncases; k++) {
            const char *step = cases[k].step;
            if (strncmp(step, name, len) != 0 || (step[len] != ':' && step[len] != '\0'))
                continue;
            gpuimg_file_info info;
            ck_assert_msg(gpuimg_probe(ctx, tu_golden(cases[k].input), &info) == GPUIMG_OK,
                          "%s: %s", cases[k].id, gpuimg_ctx_error(ctx));
            at[info.depth == 16]++;
        }
        ck_assert_msg(
            at[0] > 0 && at[1] > 0,
            "%s: %d golden cases at 8 bits and %d at 16 in %s (make_golden.py makes them)", name,
            at[0], at[1], tu_golden("manifest.tsv"));
    }
    gpuimg_ctx_destroy(ctx);
}
END_TEST

START_TEST(manifest_present)
{
    ck_assert_msg(ncases >= 100, "only %d golden cases in %s", ncases, tu_golden("manifest.tsv"));
}
END_TEST

Suite *golden_suite(void)
{
    Suite *s = suite_create("golden");
    TCase *tc = tu_tcase("manifest");
    tcase_add_test(tc, manifest_present);
    tcase_add_test(tc, every_op_has_goldens);
    tcase_add_loop_test(tc, golden, 0, golden_case_count());
    suite_add_tcase(s, tc);
    return s;
}
