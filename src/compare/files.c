/* SPDX-License-Identifier: MIT */
/* Two encoded images compared as `gpuimg compare A B` compares them (SPEC
 * §7), for the command line and for callers holding files or bytes (the
 * Python binding): byte-identical PNGs passed without decoding, the two
 * decoded at once, the verdict and the text the command prints. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare/same_file.h"
#include "io/io.h"

void gpuimg_compare_classify(gpuimg_pair *p, const gpuimg_compare_limits *limits)
{
    gpuimg_compare_limits none;
    if (!limits) {
        memset(&none, 0, sizeof none);
        limits = &none;
    }
    p->failed = gpuimg_compare_check(&p->result, limits, p->reason, sizeof p->reason);
    if (p->result.size_differs) {
        p->status = GPUIMG_PAIR_SIZE;
        snprintf(p->reason, sizeof p->reason, "size differs: %dx%d vs %dx%d", p->expected_width,
                 p->expected_height, p->actual_width, p->actual_height);
    } else {
        p->status = p->failed             ? GPUIMG_PAIR_FAILED
                    : p->result.identical ? GPUIMG_PAIR_IDENTICAL
                                          : GPUIMG_PAIR_PASSED;
    }
}

/* da and db taken (freed here). */
static gpuimg_status compare_owned(gpuimg_ctx *ctx, uint8_t *da, size_t na, const char *name_a,
                                   uint8_t *db, size_t nb, const char *name_b,
                                   const gpuimg_compare_options *opt,
                                   const gpuimg_compare_limits *limits, gpuimg_pair *p,
                                   gpuimg_image *diff)
{
    gpuimg_compare_options defaults;
    if (!opt) {
        gpuimg_compare_options_init(&defaults);
        opt = &defaults;
    }
    if (!opt->mask && !diff &&
        gpuimg__compare_same_file(ctx, name_a, da, na, name_b, db, nb, opt, limits, &p->result,
                                  &p->expected_width, &p->expected_height)) {
        p->actual_width = p->expected_width;
        p->actual_height = p->expected_height;
        free(da);
        free(db);
        gpuimg_compare_classify(p, limits);
        return GPUIMG_OK;
    }
    gpuimg_image a = {0}, b = {0};
    gpuimg_status st = gpuimg__load_both(ctx, da, na, name_a, &a, db, nb, name_b, &b);
    if (st == GPUIMG_OK) {
        p->expected_width = a.width;
        p->expected_height = a.height;
        p->actual_width = b.width;
        p->actual_height = b.height;
        st = gpuimg_compare(ctx, &a, &b, opt, &p->result, diff);
    }
    gpuimg_image_free(&a);
    gpuimg_image_free(&b);
    if (st == GPUIMG_OK)
        gpuimg_compare_classify(p, limits);
    return st;
}

gpuimg_status gpuimg_compare_encoded(gpuimg_ctx *ctx, const void *a, size_t na, const char *name_a,
                                     const void *b, size_t nb, const char *name_b,
                                     const gpuimg_compare_options *opt,
                                     const gpuimg_compare_limits *limits, gpuimg_pair *p,
                                     gpuimg_image *diff)
{
    uint8_t *da = malloc(na ? na : 1), *db = malloc(nb ? nb : 1);
    if (!da || !db) {
        free(da);
        free(db);
        return gpuimg__fail(ctx, GPUIMG_ERR_NOMEM, "%s: out of memory", name_a ? name_a : "A");
    }
    memcpy(da, a, na);
    memcpy(db, b, nb);
    return compare_owned(ctx, da, na, name_a ? name_a : "A", db, nb, name_b ? name_b : "B", opt,
                         limits, p, diff);
}

static const char *file_name(const char *path)
{
    return strcmp(path, "-") == 0 ? "<stdin>" : path;
}

gpuimg_status gpuimg_compare_files(gpuimg_ctx *ctx, const char *a_path, const char *b_path,
                                   const gpuimg_compare_options *opt,
                                   const gpuimg_compare_limits *limits, gpuimg_pair *p,
                                   gpuimg_image *diff)
{
    uint8_t *da = NULL, *db = NULL;
    size_t na = 0, nb = 0;
    gpuimg_status st = gpuimg__read_file(ctx, a_path, &da, &na);
    if (st != GPUIMG_OK)
        return st;
    gpuimg_status read_b = gpuimg__read_file(ctx, b_path, &db, &nb);
    if (read_b != GPUIMG_OK) {
        /* B's read error is said after A has loaded, as when B was read then */
        char b_error[sizeof ctx->error];
        memcpy(b_error, ctx->error, sizeof b_error);
        gpuimg_image a = {0};
        st = gpuimg__load_owned(ctx, da, na, file_name(a_path), &a);
        gpuimg_image_free(&a);
        if (st == GPUIMG_OK) {
            memcpy(ctx->error, b_error, sizeof b_error);
            st = read_b;
        }
        return st;
    }
    return compare_owned(ctx, da, na, file_name(a_path), db, nb, file_name(b_path), opt, limits, p,
                         diff);
}

/* snprintf at *at, as far as len allows. */
#define ADD(...)                                                                                   \
    do {                                                                                           \
        int k = snprintf(buf + at, at < len ? len - at : 0, __VA_ARGS__);                          \
        at += k > 0 ? (size_t)k : 0;                                                               \
    } while (0)

size_t gpuimg_compare_text(const gpuimg_pair *p, int flip, char *buf, size_t len)
{
    const gpuimg_compare_result *r = &p->result;
    size_t at = 0;
    if (len)
        buf[0] = '\0';
    if (r->size_differs) {
        ADD("result     %s\n", p->reason);
        return at;
    }
    ADD("max_diff   %d\n", r->max_diff);
    ADD("differing  %llu (%.4f%%)\n", (unsigned long long)r->differing,
        r->compared ? 100.0 * (double)r->differing / (double)r->compared : 0.0);
    if (r->forgiven > r->shifted)
        ADD("forgiven   %llu (anti-aliasing)\n", (unsigned long long)(r->forgiven - r->shifted));
    if (r->shifted)
        ADD("shifted    %llu in %llu group%s that moved\n", (unsigned long long)r->shifted,
            (unsigned long long)r->groups_shifted, r->groups_shifted == 1 ? "" : "s");
    if (r->ignored)
        ADD("ignored    %llu\n", (unsigned long long)r->ignored);
    if (r->differing)
        ADD("bbox       %d,%d,%d,%d\n", r->bbox.x, r->bbox.y, r->bbox.width, r->bbox.height);
    ADD("mae        %.6f\nrmse       %.6f\n", r->mae, r->rmse);
    if (!r->has_psnr)
        ADD("psnr       inf\n");
    else
        ADD("psnr       %.4f dB\n", r->psnr);
    if (r->has_ssim)
        ADD("ssim       %.6f\n", r->ssim);
    else
        ADD("ssim       n/a\n");
    if (r->has_flip)
        ADD("flip       mean %.6f p95 %.6f p99 %.6f\n", r->flip_mean, r->flip_p95, r->flip_p99);
    else if (flip) /* every pixel ignored */
        ADD("flip       n/a\n");
    const char *verdict = p->status == GPUIMG_PAIR_IDENTICAL ? "identical"
                          : p->status == GPUIMG_PAIR_PASSED  ? "within tolerance"
                                                             : "differs beyond tolerance";
    ADD("result     %s%s%s\n", verdict, p->reason[0] ? ": " : "", p->reason);
    return at;
}
