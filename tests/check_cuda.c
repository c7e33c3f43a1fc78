/* SPDX-License-Identifier: MIT */
/* The CUDA backend against the CPU reference on seeded random images at
 * awkward sizes, every operation and border mode. SPEC §4 allows the float
 * filters (blur, convolve) to differ by 1 in 0.1% of values: their fused
 * kernels use FMA, one rounding per tap where the CPU rounds the product
 * and the sum. Every other step must be identical: box sums integers
 * (exactly, in float or not), Sobel works on integer-valued floats, the
 * rest is integer arithmetic. Outputs are poisoned before each kernel runs
 * (tu_apply). Every case runs at 8 bits and again at 16 (the loop index's
 * second half), where the float filters may differ by 1 in 1% of values. */
#define _POSIX_C_SOURCE 200809L /* unlink, rmdir */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "ops/ops.h"
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
    "convolve:kernel=gaussian5,border=%s",   /* an outer product: two 1-D passes, FMA */
    "convolve:kernel=sobel-x,abs,border=%s", /* an outer product of two different vectors */
    "convolve:kernel=TDIR/general_5x5.txt,border=%s", /* not one: the 5 x 5 tile kernel */
    "convolve:kernel=TDIR/general_7x7.txt,border=%s", /* the 7 x 7 tile kernel */
    "convolve:kernel=KDIR/asym_5x3.txt,flip,abs,border=%s",
    "convolve:kernel=KDIR/big_63x63.txt,normalize,border=%s",
    "sobel:border=%s",
};
static const char *const plain[] = {
    "transpose", "rotate:angle=90", "rotate:angle=180", "rotate:angle=270", "flip:axis=h",
    "flip:axis=v", "grayscale", "invert", "equalize", "equalize:luma=1",
    "blur:sigma=2,alpha=premultiplied", "box:radius=3,border=wrap,alpha=premultiplied",
    "convolve:kernel=gaussian5,alpha=premultiplied",
    "convolve:kernel=KDIR/asym_5x3.txt,alpha=premultiplied",
    /* resize: every filter and fit, up and down; a shrink by
     * 48 on the wide image stages no window (too long for
     * shared memory) */
    "resize:size=5x3", "resize:scale=0.27,filter=cubic",
    "resize:scale=3.3,filter=linear,alpha=independent", "resize:width=53,filter=area",
    "resize:scale=0.6,filter=area", "resize:size=2x9,filter=nearest", "resize:size=9x9,fit=cover",
    "resize:size=40x10,fit=pad,background=9,8,7", "resize:scale=0.021", "thumbnail:size=16",
    "thumbnail:size=8x5,crop,upsize", "crop:rect=0,0,1,1", "unsharp:sigma=2,amount=3",
    "unsharp:sigma=12,threshold=4"};

static gpuimg_ctx *ctx_on(const char *backend)
{
    gpuimg_config cfg;
    gpuimg_config_init(&cfg);
    ck_assert(gpuimg_backend_from_name(backend, &cfg.backend));
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
    int exact = strncmp(step, "blur", 4) != 0 && strncmp(step, "convolve", 8) != 0 &&
                !strstr(step, "premultiplied");
    /* colour: the device's table against LittleCMS (SPEC §2: within 1 in
     * at most 1% of values; at 16 bits, where LittleCMS's float pipeline
     * and the table's float32 curves part at the last unit more often,
     * within 2 in at most 2%) */
    int sixteen = gpuimg_image_depth(in) == 16;
    int agree =
        strncmp(step, "colour", 6) == 0
            ? tu_images_close(&got, &want, sixteen ? 2 : 1, sixteen ? 0.02 : 0.01, msg, sizeof msg)
            : tu_images_agree(&got, &want, exact, msg, sizeof msg);
    ck_assert_msg(agree, "%s on %dx%dx%d: %s", step, in->width, in->height, in->channels, msg);
    gpuimg_image_free(&want);
    gpuimg_image_free(&got);
}

/* Square kernels that are not outer products (convolve's 2-D tile kernels;
 * an outer product takes the separable path): n x n weights
 * ((7i + 3j + ij) mod 11 - 5) / 16, written to dir/general_NxN.txt. */
static void write_general_kernel(const char *dir, int n)
{
    char path[512], text[4096];
    size_t len = 0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            len +=
                (size_t)snprintf(text + len, sizeof text - len, "%g%c",
                                 ((i * 7 + j * 3 + i * j) % 11 - 5) / 16.0, j + 1 < n ? ' ' : '\n');
    snprintf(path, sizeof path, "%s/general_%dx%d.txt", dir, n, n);
    tu_write_file(path, text, len);
}

static void remove_general_kernels(const char *dir)
{
    char path[512];
    for (int n = 5; n <= 7; n += 2) {
        snprintf(path, sizeof path, "%s/general_%dx%d.txt", dir, n, n);
        unlink(path);
    }
    rmdir(dir);
}

/* Replaces a leading-marker path (KDIR, TDIR) in a step template. */
static void substitute(char *out, size_t len, const char *templ, const char *marker,
                       const char *dir)
{
    const char *at = strstr(templ, marker);
    if (at)
        snprintf(out, len, "%.*s%s%s", (int)(at - templ), templ, dir, at + strlen(marker));
    else
        snprintf(out, len, "%s", templ);
}

START_TEST(every_step)
{
    gpuimg_ctx *cpu = ctx_on("cpu"), *gpu = ctx_on("cuda");
    int w = sizes[_i % NSIZES][0], h = sizes[_i % NSIZES][1], depth = _i < NSIZES ? 8 : 16;
    char kdir[400], tdir[400];
    snprintf(kdir, sizeof kdir, "%s", tu_golden("kernels"));
    snprintf(tdir, sizeof tdir, "%s", tu_tmpdir());
    write_general_kernel(tdir, 5);
    write_general_kernel(tdir, 7);
    for (int c = 1; c <= 4; c++) {
        gpuimg_image in;
        tu_random_image_depth(&in, w, h, c, depth, (unsigned)(1000 + 10 * _i + c));
        for (size_t k = 0; k < sizeof plain / sizeof plain[0]; k++) {
            char step[800];
            substitute(step, sizeof step, plain[k], "KDIR", kdir);
            same_step(cpu, gpu, step, &in);
        }
        /* and every row of the op table, by its example: a new operation is
         * held to the CPU here without anyone listing it */
        for (int k = 0; gpuimg_op_at(k); k++) { /* every operation, its example */
            ck_assert_msg(gpuimg__op_example(k), "%s: no example step", gpuimg_op_at(k)->name);
            same_step(cpu, gpu, gpuimg__op_example(k), &in);
        }
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
                char templ[700], templ2[700], step[800];
                substitute(templ, sizeof templ, bordered[k], "KDIR", kdir);
                substitute(templ2, sizeof templ2, templ, "TDIR", tdir);
                snprintf(step, sizeof step, templ2, borders[b]);
                same_step(cpu, gpu, step, &in);
            }
        gpuimg_image_free(&in);
    }
    remove_general_kernels(tdir);
    gpuimg_ctx_destroy(cpu);
    gpuimg_ctx_destroy(gpu);
}
END_TEST

START_TEST(measurements)
{
    gpuimg_ctx *cpu = ctx_on("cpu"), *gpu = ctx_on("cuda");
    int w = sizes[_i % NSIZES][0], h = sizes[_i % NSIZES][1], depth = _i < NSIZES ? 8 : 16;
    size_t vs = depth / 8;
    for (int c = 1; c <= 4; c++) {
        gpuimg_image a, b;
        tu_random_image_depth(&a, w, h, c, depth, (unsigned)(2000 + 10 * _i + c));
        tu_random_image_depth(&b, w, h, c, depth, (unsigned)(3000 + 10 * _i + c));
        for (size_t i = 0; i < (size_t)w * h * c; i += 3) /* b: a, with some changes */
            memcpy(b.data + i * vs, a.data + i * vs, vs);
        gpuimg_histogram hc, hg;
        ck_assert_int_eq(gpuimg_histogram_compute(cpu, &a, &hc), GPUIMG_OK);
        ck_assert_int_eq(gpuimg_histogram_compute(gpu, &a, &hg), GPUIMG_OK);
        ck_assert_int_eq(hg.bins, 1 << depth);
        for (int k = 0; k < c; k++)
            ck_assert_mem_eq(hc.counts[k], hg.counts[k], (size_t)hc.bins * sizeof(uint64_t));
        gpuimg_histogram_free(&hc);
        gpuimg_histogram_free(&hg);
        gpuimg_stats sc, sg;
        ck_assert_int_eq(gpuimg_stats_compute(cpu, &a, &sc), GPUIMG_OK);
        ck_assert_int_eq(gpuimg_stats_compute(gpu, &a, &sg), GPUIMG_OK);
        ck_assert_mem_eq(&sc, &sg, sizeof sc); /* one formula from the same integers */
        gpuimg_compare_result rc, rg;
        /* SSIM is the backend's part: plain, and over the pixels an ignored
         * rectangle and a mask leave (its sum skips them on the device) */
        gpuimg_rect rects[2] = {{2, 3, 9, 4}, {w - 7, 0, 40, 12}};
        gpuimg_image mask;
        tu_random_image(&mask, w, h, 1, (unsigned)(4000 + _i));
        for (int variant = 0; variant < 3; variant++) {
            gpuimg_compare_options o;
            gpuimg_compare_options_init(&o);
            o.fuzz = variant == 1 ? (depth == 16 ? 25700 : 100) : 0;
            if (variant == 2) {
                o.ignore = rects;
                o.nignore = 2;
                o.mask = &mask; /* about 1 pixel in 256 is 0: ignored */
                o.threshold = 0.05;
            }
            ck_assert_int_eq(gpuimg_compare(cpu, &a, &b, &o, &rc, NULL), GPUIMG_OK);
            ck_assert_int_eq(gpuimg_compare(gpu, &a, &b, &o, &rg, NULL), GPUIMG_OK);
            ck_assert_int_eq(rg.max_diff, rc.max_diff);
            ck_assert_uint_eq(rg.differing, rc.differing);
            ck_assert_uint_eq(rg.ignored, rc.ignored);
            ck_assert_double_eq(rg.mae, rc.mae);
            ck_assert_double_eq(rg.rmse, rc.rmse);
            ck_assert_int_eq(rg.has_ssim, rc.has_ssim);
            if (rc.has_ssim) /* double sums in another order */
                ck_assert_double_eq_tol(rg.ssim, rc.ssim, 1e-9);
        }
        gpuimg_image_free(&mask);
        gpuimg_image_free(&a);
        gpuimg_image_free(&b);
    }
    gpuimg_ctx_destroy(cpu);
    gpuimg_ctx_destroy(gpu);
}
END_TEST

/* FLIP: the map is the backend's (the same float arithmetic, core/flip_math.h,
 * but FMA and the device's powf may move its last bits), the figures the
 * host's; they agree to SPEC's 1e-4 at every size, layout and depth, plain
 * and with ignored pixels. */
START_TEST(flip_figures)
{
    gpuimg_ctx *cpu = ctx_on("cpu"), *gpu = ctx_on("cuda");
    int w = sizes[_i % NSIZES][0], h = sizes[_i % NSIZES][1], depth = _i < NSIZES ? 8 : 16;
    size_t vs = depth / 8;
    for (int c = 1; c <= 4; c++) {
        gpuimg_image a, b;
        tu_random_image_depth(&a, w, h, c, depth, (unsigned)(5000 + 10 * _i + c));
        tu_random_image_depth(&b, w, h, c, depth, (unsigned)(6000 + 10 * _i + c));
        for (size_t i = 0; i < (size_t)w * h * c; i += 3) /* b: a, with some changes */
            memcpy(b.data + i * vs, a.data + i * vs, vs);
        gpuimg_rect rects[1] = {{2, 3, 9, 4}};
        for (int variant = 0; variant < 2; variant++) {
            gpuimg_compare_options o;
            gpuimg_compare_options_init(&o);
            o.ssim = 0;
            o.flip = 1;
            o.ignore = rects;
            o.nignore = variant;
            gpuimg_compare_result rc, rg;
            ck_assert_int_eq(gpuimg_compare(cpu, &a, &b, &o, &rc, NULL), GPUIMG_OK);
            ck_assert_int_eq(gpuimg_compare(gpu, &a, &b, &o, &rg, NULL), GPUIMG_OK);
            ck_assert_int_eq(rc.has_flip, 1);
            ck_assert_int_eq(rg.has_flip, 1);
            ck_assert_double_eq_tol(rg.flip_mean, rc.flip_mean, 1e-4);
            ck_assert_double_eq_tol(rg.flip_p95, rc.flip_p95, 1e-4);
            ck_assert_double_eq_tol(rg.flip_p99, rc.flip_p99, 1e-4);
        }
        gpuimg_image_free(&a);
        gpuimg_image_free(&b);
    }
    gpuimg_ctx_destroy(cpu);
    gpuimg_ctx_destroy(gpu);
}
END_TEST

/* Large halos on tiles wholly inside the image (the sizes above are too
 * small for a 64 x 64 tile plus a halo of 24 or more): the fused kernel
 * with a run-time radius and the 63 x 63 tile kernel on their word-load
 * paths. One channel, one image, so it stays quick under racecheck. */
START_TEST(interior_tiles)
{
    static const char *const steps[] = {"blur:sigma=8,border=%s", "blur:radius=32,border=%s",
                                        "box:radius=32,border=%s",
                                        "convolve:kernel=KDIR/big_63x63.txt,normalize,border=%s"};
    gpuimg_ctx *cpu = ctx_on("cpu"), *gpu = ctx_on("cuda");
    gpuimg_image in;
    tu_random_image(&in, 160, 160, 1, 4242u); /* 64 + 64 + 32 = 160 */
    for (size_t k = 0; k < sizeof steps / sizeof steps[0]; k++)
        for (int b = 0; b < 5; b += 4) { /* reflect101 and constant */
            char templ[700], step[800];
            substitute(templ, sizeof templ, steps[k], "KDIR", tu_golden("kernels"));
            snprintf(step, sizeof step, templ, borders[b]);
            same_step(cpu, gpu, step, &in);
        }
    gpuimg_image_free(&in);
    gpuimg_ctx_destroy(cpu);
    gpuimg_ctx_destroy(gpu);
}
END_TEST

/* One value everywhere: the histogram's worst case for atomics (200 at 8
 * bits; 0xC8C8 at 16, every byte 200). */
START_TEST(one_value_histogram)
{
    gpuimg_ctx *gpu = ctx_on("cuda");
    gpuimg_image img;
    int depth = _i ? 16 : 8, value = _i ? 0xC8C8 : 200;
    ck_assert_int_eq(gpuimg_image_alloc_depth(&img, 1023, 517, 3, depth), GPUIMG_OK);
    memset(img.data, 200, (size_t)1023 * 517 * 3 * (size_t)(depth / 8));
    gpuimg_histogram h;
    ck_assert_int_eq(gpuimg_histogram_compute(gpu, &img, &h), GPUIMG_OK);
    for (int c = 0; c < 3; c++)
        for (int v = 0; v < h.bins; v++)
            ck_assert_uint_eq(h.counts[c][v], v == value ? (uint64_t)1023 * 517 : 0);
    gpuimg_histogram_free(&h);
    gpuimg_image_free(&img);
    gpuimg_ctx_destroy(gpu);
}
END_TEST

Suite *cuda_suite(void)
{
    Suite *s = suite_create("cuda");
    TCase *tc = tu_tcase("cuda-vs-cpu");
    tcase_add_loop_test(tc, every_step, 0, 2 * NSIZES);
    tcase_add_loop_test(tc, measurements, 0, 2 * NSIZES);
    tcase_add_loop_test(tc, flip_figures, 0, 2 * NSIZES);
    tcase_add_test(tc, interior_tiles);
    tcase_add_loop_test(tc, one_value_histogram, 0, 2);
    suite_add_tcase(s, tc);
    return s;
}
