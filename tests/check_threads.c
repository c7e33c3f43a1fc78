/* SPDX-License-Identifier: MIT */
/* SPEC §4: the CPU backend's results do not depend on the thread count.
 * Every operation, at 8 and 16 bits, in every border mode, on awkward
 * shapes (1x1, a row, a column, 4097x7, a tall strip that splits into many
 * bands, radii past the image), run with --threads 1, 2, 3 and 7: the
 * outputs must be byte-identical. Outputs are poisoned with a different
 * byte for each thread count, so a value some split leaves unwritten shows
 * as a difference. Histograms, stats and SSIM are compared exactly too.
 * Besides the steps listed here, every row of the op table runs its
 * example, so no operation goes uncovered. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ops/ops.h"
#include "testutil.h"

static const int thread_counts[] = {1, 2, 3, 7};
#define NTHREADS (int)(sizeof thread_counts / sizeof *thread_counts)

static gpuimg_ctx *cpu_ctx(int threads)
{
    gpuimg_config cfg;
    gpuimg_config_init(&cfg);
    cfg.backend = GPUIMG_BACKEND_CPU;
    cfg.threads = threads;
    gpuimg_ctx *ctx;
    ck_assert_int_eq(gpuimg_ctx_create(&cfg, &ctx), GPUIMG_OK);
    return ctx;
}

static const char *const borders[] = {"constant", "replicate", "reflect", "reflect101", "wrap"};

/* Steps that take a border, as formats of one %s. */
static const char *const bordered[] = {
    "blur:sigma=2,border=%s",
    "blur:sigma=1,radius=9,border=%s", /* radius past the small shapes */
    "box:radius=3,border=%s",
    "box:radius=20,border=%s",
    "box:radius=130,border=%s", /* a ring of row sums too large: made again */
    "convolve:kernel=sharpen,border=%s",
    "convolve:kernel=gaussian5,border=%s",
    "convolve:kernel=emboss,scale=0.5,bias=8,abs,border=%s",
    "sobel:border=%s",
};

static const char *const plain[] = {
    "transpose",
    "rotate:angle=90",
    "rotate:angle=180",
    "rotate:angle=270",
    "flip:axis=h",
    "flip:axis=v",
    "invert",
    "grayscale",
    "equalize",
    "equalize:luma=1",
    "blur:sigma=2,alpha=premultiplied",
    "box:radius=2,alpha=premultiplied",
    "convolve:kernel=gaussian5,alpha=premultiplied",
    "resize:scale=0.31",
    "resize:scale=2.7,filter=cubic,alpha=independent",
    "resize:size=7x5,fit=cover,filter=area",
    "unsharp:sigma=3,amount=2,threshold=2",
};

typedef struct shape {
    int w, h;
} shape;

static const shape shapes[] = {{1, 1}, {37, 1}, {1, 37}, {4097, 7}, {5, 3001}, {61, 53}};
#define NSHAPES (int)(sizeof shapes / sizeof *shapes)

/* Runs step on img at every thread count; fails on the first output that
 * differs from one thread's. Steps that need colour get 3 or 4 channels. */
static void check_step(gpuimg_ctx *ctxs[NTHREADS], const char *step, const gpuimg_image *img)
{
    gpuimg_image want;
    char err[512];
    for (int t = 0; t < NTHREADS; t++) {
        gpuimg_image got;
        gpuimg_status st = tu_apply(ctxs[t], step, img, 0x11 * (t + 1), &got, err, sizeof err);
        ck_assert_msg(st == GPUIMG_OK, "%s on %dx%dx%d: %s", step, img->width, img->height,
                      img->channels, err);
        if (t == 0) {
            want = got;
            continue;
        }
        size_t bytes = (size_t)got.width * got.height * got.channels *
                       (gpuimg_image_depth(&got) == 16 ? 2 : 1);
        int same = got.width == want.width && got.height == want.height &&
                   got.channels == want.channels && memcmp(got.data, want.data, bytes) == 0;
        ck_assert_msg(same, "%s on %dx%dx%d at %d bits: --threads %d differs from --threads 1",
                      step, img->width, img->height, img->channels, gpuimg_image_depth(img),
                      thread_counts[t]);
        gpuimg_image_free(&got);
    }
    gpuimg_image_free(&want);
}

static void contexts(gpuimg_ctx *ctxs[NTHREADS])
{
    for (int t = 0; t < NTHREADS; t++)
        ctxs[t] = cpu_ctx(thread_counts[t]);
}

static void release(gpuimg_ctx *ctxs[NTHREADS])
{
    for (int t = 0; t < NTHREADS; t++)
        gpuimg_ctx_destroy(ctxs[t]);
}

/* _i: the shape; each runs both depths. */
START_TEST(test_bordered_steps)
{
    gpuimg_ctx *ctxs[NTHREADS];
    contexts(ctxs);
    for (int depth = 8; depth <= 16; depth += 8) {
        gpuimg_image img;
        tu_random_image_depth(&img, shapes[_i].w, shapes[_i].h, 3, depth, 1000u + (unsigned)_i);
        for (size_t s = 0; s < sizeof bordered / sizeof *bordered; s++)
            for (size_t b = 0; b < sizeof borders / sizeof *borders; b++) {
                char step[128];
                snprintf(step, sizeof step, bordered[s], borders[b]);
                check_step(ctxs, step, &img);
            }
        gpuimg_image_free(&img);
    }
    release(ctxs);
}
END_TEST

START_TEST(test_plain_steps)
{
    gpuimg_ctx *ctxs[NTHREADS];
    contexts(ctxs);
    for (int depth = 8; depth <= 16; depth += 8)
        for (int channels = 1; channels <= 4; channels += 3) { /* gray; RGBA */
            gpuimg_image img;
            tu_random_image_depth(&img, shapes[_i].w, shapes[_i].h, channels, depth,
                                  2000u + (unsigned)_i);
            for (size_t s = 0; s < sizeof plain / sizeof *plain; s++) {
                if (channels == 1 && (strstr(plain[s], "luma") || strstr(plain[s], "alpha")))
                    continue; /* colour or alpha only */
                check_step(ctxs, plain[s], &img);
            }
            for (int k = 0; gpuimg_op_at(k); k++) { /* every operation, its example */
                ck_assert_msg(gpuimg__op_example(k), "%s: no example step", gpuimg_op_at(k)->name);
                check_step(ctxs, gpuimg__op_example(k), &img);
            }
            gpuimg_image_free(&img);
        }
    release(ctxs);
}
END_TEST

/* Histograms, stats and the comparison's figures (SSIM summed over rows
 * that different bands compute) are equal to the last bit. */
START_TEST(test_measures)
{
    gpuimg_ctx *ctxs[NTHREADS];
    contexts(ctxs);
    for (int depth = 8; depth <= 16; depth += 8) {
        gpuimg_image a, b;
        tu_random_image_depth(&a, 301, 257, 3, depth, 77);
        tu_random_image_depth(&b, 301, 257, 3, depth, 78);
        for (size_t i = 0; i < (size_t)301 * 257 * 3 / 2; i++) /* b: a, half changed */
            if (depth == 16)
                ((uint16_t *)b.data)[i] = ((uint16_t *)a.data)[i];
            else
                b.data[i] = a.data[i];
        gpuimg_histogram h0, h;
        gpuimg_stats s0, s;
        gpuimg_compare_result r0, r;
        for (int t = 0; t < NTHREADS; t++) {
            gpuimg_histogram *hp = t ? &h : &h0;
            gpuimg_stats *sp = t ? &s : &s0;
            gpuimg_compare_result *rp = t ? &r : &r0;
            ck_assert_int_eq(gpuimg_histogram_compute(ctxs[t], &a, hp), GPUIMG_OK);
            ck_assert_int_eq(gpuimg_stats_compute(ctxs[t], &a, sp), GPUIMG_OK);
            ck_assert_int_eq(gpuimg_compare(ctxs[t], &a, &b, NULL, rp, NULL), GPUIMG_OK);
            ck_assert(rp->has_ssim);
            if (t == 0)
                continue;
            for (int c = 0; c < 3; c++)
                ck_assert(memcmp(h.counts[c], h0.counts[c], (size_t)h.bins * sizeof(uint64_t)) ==
                          0);
            for (int c = 0; c < 3; c++)
                ck_assert(s.min[c] == s0.min[c] && s.max[c] == s0.max[c] &&
                          s.median[c] == s0.median[c] && s.sum[c] == s0.sum[c] &&
                          s.mean[c] == s0.mean[c] && s.stddev[c] == s0.stddev[c]);
            ck_assert_msg(r.ssim == r0.ssim && r.mae == r0.mae && r.rmse == r0.rmse,
                          "--threads %d: ssim %.17g mae %.17g, --threads 1: %.17g %.17g",
                          thread_counts[t], r.ssim, r.mae, r0.ssim, r0.mae);
            gpuimg_histogram_free(&h);
        }
        gpuimg_histogram_free(&h0);
        gpuimg_image_free(&a);
        gpuimg_image_free(&b);
    }
    release(ctxs);
}
END_TEST

Suite *threads_suite(void)
{
    Suite *s = suite_create("threads");
    TCase *tc = tu_tcase("same bytes for every thread count");
    tcase_add_loop_test(tc, test_bordered_steps, 0, NSHAPES);
    tcase_add_loop_test(tc, test_plain_steps, 0, NSHAPES);
    tcase_add_test(tc, test_measures);
    suite_add_tcase(s, tc);
    return s;
}
