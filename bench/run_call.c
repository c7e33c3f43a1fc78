/* SPDX-License-Identifier: MIT */
/* The C call that issue 29's Python figure is held to: one image in
 * memory through gpuimg_run, on one context, N times after one untimed
 * run; prints the median and minimum in milliseconds.
 * Usage: run_call IMAGE STEP N [backend] */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "gpuimg.h"

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: run_call IMAGE STEP N [backend]\n");
        return 2;
    }
    int n = atoi(argv[3]);
    gpuimg_config cfg;
    gpuimg_config_init(&cfg);
    if (argc > 4 && !gpuimg_backend_from_name(argv[4], &cfg.backend))
        return 2;
    gpuimg_ctx *ctx;
    gpuimg_image in = {0}, out = {0};
    gpuimg_step *step;
    if (n < 1 || n > 1000 || gpuimg_ctx_create(&cfg, &ctx) != GPUIMG_OK)
        return 2;
    if (gpuimg_load(ctx, argv[1], &in) != GPUIMG_OK ||
        gpuimg_step_parse(ctx, argv[2], &step) != GPUIMG_OK) {
        fprintf(stderr, "run_call: %s\n", gpuimg_ctx_error(ctx));
        return 3;
    }
    double *ms = malloc((size_t)n * sizeof *ms);
    for (int i = -1; i < n; i++) {
        double t0 = now_ms();
        if (gpuimg_run(ctx, &in, &step, 1, &out) != GPUIMG_OK) {
            fprintf(stderr, "run_call: %s\n", gpuimg_ctx_error(ctx));
            return 4;
        }
        if (i >= 0)
            ms[i] = now_ms() - t0;
        gpuimg_image_free(&out);
    }
    qsort(ms, (size_t)n, sizeof *ms, by_value);
    printf("C gpuimg_run %s: median %.1f ms, min %.1f ms (%d runs)\n", argv[2], ms[n / 2], ms[0],
           n);
    free(ms);
    gpuimg_step_free(step);
    gpuimg_image_free(&in);
    gpuimg_ctx_destroy(ctx);
    return 0;
}
