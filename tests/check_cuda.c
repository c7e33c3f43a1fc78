/* SPDX-License-Identifier: MIT */
/* The CUDA backend against the CPU reference on seeded random images at
 * awkward sizes, every operation and border mode. SPEC §4 allows the float
 * filters (blur, convolve) to differ by 1 in 0.1% of values: their fused
 * kernels use FMA, one rounding per tap where the CPU rounds the product
 * and the sum. Every other step must be identical: box sums integers
 * (exactly, in float or not), Sobel works on integer-valued floats, the
 * rest is integer arithmetic. Outputs are poisoned before each kernel runs
 * (tu_apply). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "testutil.h"

/* 300 x 131 and 259 x 140 have tiles wholly inside the image (the fused
 * kernels' word-load path), with rows 4-byte aligned and not. */
static const int sizes[][2] = {{1, 1},    {1, 37},   {37, 1},    {31, 29},  {4097, 7},
                               {7, 4097}, {130, 67}, {300, 131}, {259, 140}};
#define NSIZES (int)(sizeof sizes / sizeof sizes[0])
static const char *const borders[] = {"reflect101", "reflect", "replicate", "wrap", "constant"};

/* Steps with a border: %s is the mode. */
static const char *const bordered[] = {
    "blur:sigma=2,border=%s",
    "blur:radius=100,border=%s", /* larger than most sides */
    "blur:sigma=8,border=%s",    /* radius 24: the fused kernel, 1 block per tile */
    "blur:radius=32,border=%s",  /* the fused kernel's largest radius */
    "blur:sigma=21,border=%s",   /* radius 63: two passes, the shared column tile */
    "blur:radius=65,border=%s",  /* past it: the global column pass */
    "box:radius=3,border=%s",
    "box:radius=32,border=%s", /* the fused kernel's largest radius */
    "box:radius=80,border=%s", /* two passes */
    "convolve:kernel=sharpen,border=%s",
    "convolve:kernel=gaussian5,border=%s", /* inexact weights: FMA against the CPU */
    "convolve:kernel=KDIR/asym_5x3.txt,flip,abs,border=%s",
    "convolve:kernel=KDIR/big_63x63.txt,normalize,border=%s",
    "sobel:border=%s",
};
static const char *const plain[] = {"transpose",        "rotate:angle=90", "rotate:angle=180",
                                    "rotate:angle=270", "flip:axis=h",     "flip:axis=v",
                                    "grayscale",        "invert",          "equalize"};

static gpuimg_ctx *ctx_on(const char *backend)
{
    gpuimg_config cfg;
    gpuimg_config_init(&cfg);
    cfg.backend = backend;
    gpuimg_ctx *ctx;
    ck_assert_int_eq(gpuimg_ctx_create(&cfg, &ctx), GPUIMG_OK);
    return ctx;
}

static void same_step(gpuimg_ctx *cpu, gpuimg_ctx *gpu, const char *step, const gpuimg_image *in)
{
    gpuimg_image want, got;
    char err[512], msg[256];
    ck_assert_msg(tu_apply(cpu, step, in, 0x00, &want, err, sizeof err) == GPUIMG_OK, "cpu %s: %s",
                  step, err);
    ck_assert_msg(tu_apply(gpu, step, in, 0xA5, &got, err, sizeof err) == GPUIMG_OK, "cuda %s: %s",
                  step, err);
    int exact = strncmp(step, "blur", 4) != 0 && strncmp(step, "convolve", 8) != 0;
    ck_assert_msg(tu_images_agree(&got, &want, exact, msg, sizeof msg), "%s on %dx%dx%d: %s", step,
                  in->width, in->height, in->channels, msg);
    gpuimg_image_free(&want);
    gpuimg_image_free(&got);
}

START_TEST(every_step)
{
    gpuimg_ctx *cpu = ctx_on("cpu"), *gpu = ctx_on("cuda");
    int w = sizes[_i][0], h = sizes[_i][1];
    char kdir[400];
    snprintf(kdir, sizeof kdir, "%s", tu_golden("kernels"));
    for (int c = 1; c <= 4; c++) {
        gpuimg_image in;
        tu_random_image(&in, w, h, c, (unsigned)(1000 + 10 * _i + c));
        for (size_t k = 0; k < sizeof plain / sizeof plain[0]; k++)
            same_step(cpu, gpu, plain[k], &in);
        /* The filters run plane by plane, the same launch whatever the
         * channel count (the layouts are covered above): one count is
         * enough, and keeps the suite quick under compute-sanitizer. The
         * 63 x 63 kernel takes the same tile path at any size, so it runs
         * on the smaller images only. */
        if (c != 3)
            continue;
        for (size_t k = 0; k < sizeof bordered / sizeof bordered[0]; k++)
            for (int b = 0; b < 5; b++) {
                if (strstr(bordered[k], "63x63") && (long)w * h > 10000)
                    continue;
                char templ[700], step[800];
                const char *at = strstr(bordered[k], "KDIR");
                if (at)
                    snprintf(templ, sizeof templ, "%.*s%s%s", (int)(at - bordered[k]), bordered[k],
                             kdir, at + 4);
                else
                    snprintf(templ, sizeof templ, "%s", bordered[k]);
                snprintf(step, sizeof step, templ, borders[b]);
                same_step(cpu, gpu, step, &in);
            }
        gpuimg_image_free(&in);
    }
    gpuimg_ctx_destroy(cpu);
    gpuimg_ctx_destroy(gpu);
}
END_TEST

START_TEST(measurements)
{
    gpuimg_ctx *cpu = ctx_on("cpu"), *gpu = ctx_on("cuda");
    int w = sizes[_i][0], h = sizes[_i][1];
    for (int c = 1; c <= 4; c++) {
        gpuimg_image a, b;
        tu_random_image(&a, w, h, c, (unsigned)(2000 + 10 * _i + c));
        tu_random_image(&b, w, h, c, (unsigned)(3000 + 10 * _i + c));
        for (size_t i = 0; i < (size_t)w * h * c; i += 3) /* b: a, with some changes */
            b.data[i] = a.data[i];
        gpuimg_histogram hc, hg;
        ck_assert_int_eq(gpuimg_histogram_compute(cpu, &a, &hc), GPUIMG_OK);
        ck_assert_int_eq(gpuimg_histogram_compute(gpu, &a, &hg), GPUIMG_OK);
        ck_assert_mem_eq(&hc, &hg, sizeof hc);
        gpuimg_stats sc, sg;
        ck_assert_int_eq(gpuimg_stats_compute(cpu, &a, &sc), GPUIMG_OK);
        ck_assert_int_eq(gpuimg_stats_compute(gpu, &a, &sg), GPUIMG_OK);
        ck_assert_mem_eq(&sc, &sg, sizeof sc); /* one formula from the same integers */
        gpuimg_compare_result rc, rg;
        for (int fuzz = 0; fuzz <= 100; fuzz += 100) {
            ck_assert_int_eq(gpuimg_compare(cpu, &a, &b, fuzz, &rc, NULL), GPUIMG_OK);
            ck_assert_int_eq(gpuimg_compare(gpu, &a, &b, fuzz, &rg, NULL), GPUIMG_OK);
            ck_assert_int_eq(rg.max_diff, rc.max_diff);
            ck_assert_uint_eq(rg.differing, rc.differing);
            ck_assert_double_eq(rg.mae, rc.mae);
            ck_assert_double_eq(rg.rmse, rc.rmse);
            ck_assert_int_eq(rg.has_ssim, rc.has_ssim);
            if (rc.has_ssim) /* double sums in another order */
                ck_assert_double_eq_tol(rg.ssim, rc.ssim, 1e-9);
        }
        gpuimg_image_free(&a);
        gpuimg_image_free(&b);
    }
    gpuimg_ctx_destroy(cpu);
    gpuimg_ctx_destroy(gpu);
}
END_TEST

/* One value everywhere: the histogram's worst case for atomics. */
START_TEST(one_value_histogram)
{
    gpuimg_ctx *gpu = ctx_on("cuda");
    gpuimg_image img;
    ck_assert_int_eq(gpuimg_image_alloc(&img, 1023, 517, 3), GPUIMG_OK);
    memset(img.data, 200, (size_t)1023 * 517 * 3);
    gpuimg_histogram h;
    ck_assert_int_eq(gpuimg_histogram_compute(gpu, &img, &h), GPUIMG_OK);
    for (int c = 0; c < 3; c++)
        for (int v = 0; v < 256; v++)
            ck_assert_uint_eq(h.counts[c][v], v == 200 ? (uint64_t)1023 * 517 : 0);
    gpuimg_image_free(&img);
    gpuimg_ctx_destroy(gpu);
}
END_TEST

Suite *cuda_suite(void)
{
    Suite *s = suite_create("cuda");
    TCase *tc = tcase_create("cuda-vs-cpu");
    tcase_add_loop_test(tc, every_step, 0, NSIZES);
    tcase_add_loop_test(tc, measurements, 0, NSIZES);
    tcase_add_test(tc, one_value_histogram);
    tcase_set_timeout(tc, 600);
    suite_add_tcase(s, tc);
    return s;
}
