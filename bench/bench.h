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
    uint8_t *rgb;      /* BENCH_W * BENCH_H * 3 values, packed */
    uint8_t *plane[3]; /* BENCH_W * BENCH_H values each, 256-byte aligned */
} bench_input;

/* Everything an op reads or writes at one depth (8: uint8_t values, 16:
 * uint16_t), so that each op runs at both depths on the same photograph. */
typedef struct bench_set {
    bench_input in[BENCH_BUFFERS];
    uint8_t *out_rgb, *out_plane[3];
    uint8_t *uniform[BENCH_BUFFERS][3]; /* one-value planes, rotated like the inputs */
} bench_set;

typedef struct bench_ctx {
    bench_input in[BENCH_BUFFERS]; /* the 8-bit set (NPP's inputs) ... */
    uint8_t *out_rgb, *out_plane[3];
    uint8_t *uniform[BENCH_BUFFERS][3];
    bench_set set16;              /* ... and the 16-bit one: v * 257 plus low-bit noise */
    unsigned long long *counts;   /* our 8-bit histograms' counts, 3 x 256 */
    unsigned long long *counts16; /* 16-bit: 3 x 65536 */
    void *partials;               /* the 16-bit histogram's scratch */
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
