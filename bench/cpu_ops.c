/* SPDX-License-Identifier: MIT */
/* Every operation on the CPU backend in one process, as bench/opencv_ops.py
 * times OpenCV's equivalent calls: the image loaded once, each operation
 * run REPS times on one context after an untimed run, and the median of
 * its kernels stage (gpuimg_ctx_timings: the operation alone, not the
 * copies into and out of planes) printed in milliseconds. One context per
 * operation, so memory freed by a run is reused by the next, as OpenCV's
 * loop reuses its output array.
 * Usage: cpu_ops IMAGE THREADS [REPS] (THREADS 0: every core). */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuimg.h"

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static gpuimg_ctx *context(int threads)
{
    gpuimg_config cfg;
    gpuimg_config_init(&cfg);
    cfg.backend = GPUIMG_BACKEND_CPU;
    cfg.threads = threads;
    gpuimg_ctx *ctx;
    if (gpuimg_ctx_create(&cfg, &ctx) != GPUIMG_OK)
        exit(2);
    return ctx;
}

static double kernels_ms(const gpuimg_ctx *ctx)
{
    double ms[GPUIMG_STAGE_COUNT];
    gpuimg_ctx_timings(ctx, ms);
    return ms[GPUIMG_STAGE_KERNELS];
}

/* kind 0: a step through gpuimg_run; 1: histogram; 2: stats; 3: SSIM of
 * the image against itself blurred (compare's kernels: the SSIM sums). */
static double one(gpuimg_ctx *ctx, int kind, gpuimg_step *step, const gpuimg_image *img,
                  const gpuimg_image *other)
{
    double before = kernels_ms(ctx);
    gpuimg_status st = GPUIMG_OK;
    if (kind == 0) {
        gpuimg_image out;
        if ((st = gpuimg_run(ctx, img, &step, 1, &out)) == GPUIMG_OK)
            gpuimg_image_free(&out);
    } else if (kind == 1) {
        gpuimg_histogram h;
        if ((st = gpuimg_histogram_compute(ctx, img, &h)) == GPUIMG_OK)
            gpuimg_histogram_free(&h);
    } else if (kind == 2) {
        gpuimg_stats s;
        st = gpuimg_stats_compute(ctx, img, &s);
    } else {
        gpuimg_compare_result r;
        st = gpuimg_compare(ctx, img, other, NULL, &r, NULL);
    }
    if (st != GPUIMG_OK) {
        fprintf(stderr, "cpu_ops: %s\n", gpuimg_ctx_error(ctx));
        exit(1);
    }
    return kernels_ms(ctx) - before;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: cpu_ops IMAGE THREADS [REPS]\n");
        return 2;
    }
    int threads = atoi(argv[2]), reps = argc > 3 ? atoi(argv[3]) : 5;
    if (reps < 1 || reps > 100)
        reps = 5;
    static const struct {
        const char *label, *step;
        int kind;
    } ops[] = {
        {"blur sigma=2", "blur:sigma=2", 0},
        {"box radius=7", "box:radius=7", 0},
        {"convolve 5x5", "convolve:kernel=gaussian5", 0},
        {"sobel", "sobel", 0},
        {"rotate 90", "rotate:angle=90", 0},
        {"flip h", "flip:axis=h", 0},
        {"invert", "invert", 0},
        {"grayscale", "grayscale", 0},
        {"equalize", "equalize", 0},
        {"histogram", NULL, 1},
        {"stats", NULL, 2},
        {"ssim (compare)", NULL, 3},
    };
    gpuimg_ctx *loader = context(threads);
    gpuimg_image img, blurred;
    gpuimg_step *blur;
    if (gpuimg_load(loader, argv[1], &img) != GPUIMG_OK ||
        gpuimg_step_parse(loader, "blur:sigma=1", &blur) != GPUIMG_OK ||
        gpuimg_run(loader, &img, &blur, 1, &blurred) != GPUIMG_OK) {
        fprintf(stderr, "cpu_ops: %s\n", gpuimg_ctx_error(loader));
        return 1;
    }
    gpuimg_step_free(blur);
    double *ms = malloc((size_t)reps * sizeof *ms);
    for (size_t i = 0; i < sizeof ops / sizeof *ops; i++) {
        gpuimg_ctx *ctx = context(threads);
        gpuimg_step *step = NULL;
        if (ops[i].step && gpuimg_step_parse(ctx, ops[i].step, &step) != GPUIMG_OK)
            return 1;
        one(ctx, ops[i].kind, step, &img, &blurred); /* untimed: memory, caches */
        for (int r = 0; r < reps; r++)
            ms[r] = one(ctx, ops[i].kind, step, &img, &blurred);
        qsort(ms, (size_t)reps, sizeof *ms, by_value);
        printf("gpuimg %-34s %8.1f %8.1f %8.1f\n", ops[i].label, ms[reps / 2], ms[0], ms[reps - 1]);
        fflush(stdout);
        gpuimg_step_free(step);
        gpuimg_ctx_destroy(ctx);
    }
    free(ms);
    gpuimg_image_free(&img);
    gpuimg_image_free(&blurred);
    gpuimg_ctx_destroy(loader);
    return 0;
}
