/* SPDX-License-Identifier: MIT */
/* make bench: shared between bench.cu (our kernels) and npp.cu (NPP's). */
#ifndef GPUIMG_BENCH_H
#define GPUIMG_BENCH_H

#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>

#define BENCH_W 7680
#define BENCH_H 4320
#define BENCH_BUFFERS 4 /* inputs rotated so that L2 (50-60 MB) never holds one */

/* One input set on the device: interleaved RGB, and the same as 3 planes. */
typedef struct bench_input {
    uint8_t *rgb;      /* BENCH_W * BENCH_H * 3, packed */
    uint8_t *plane[3]; /* BENCH_W * BENCH_H each, 256-byte aligned */
} bench_input;

typedef struct bench_ctx {
    bench_input in[BENCH_BUFFERS];
    uint8_t *out_rgb, *out_plane[3];
    uint8_t *uniform[BENCH_BUFFERS][3]; /* one-value planes, rotated like the inputs */
    unsigned long long *counts; /* our histograms' counts, 3 x 256 */
    cudaStream_t stream;
    cudaEvent_t ev[2 * 64];
} bench_ctx;

/* Times fn(ctx, arg, i) for run i: warm-up, then runs events pairs; returns
 * the median in ms. fn enqueues one run on ctx->stream using input i % 4. */
typedef int (*bench_fn)(bench_ctx *ctx, void *arg, int i);
double bench_time(bench_ctx *ctx, bench_fn fn, void *arg);

/* NPP's figures for an op (npp.cu; a build without NPP returns -1): the
 * median ms, and whether its result agrees with ours (1), differs (0), or
 * is not comparable (-1). */
double bench_npp(bench_ctx *ctx, const char *op, int *agrees);

#endif
