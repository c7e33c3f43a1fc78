// SPDX-License-Identifier: MIT
// make bench: every kernel on an 8K RGB photograph, device-resident, against
// the device-to-device copy bandwidth and NPP's nearest equivalent (SPEC §6).
//
// Each op runs 5 times to warm up, then 50 times between CUDA events; the
// median is reported. Runs rotate among BENCH_BUFFERS inputs of 100 MB each,
// so L2 (50-60 MB) never holds the input of the next run. Effective GB/s
// counts the fewest bytes the op must read plus write.
//
// Usage: bench PHOTO.png|- OUT.json   (- synthesizes a photograph-like image)
#include <algorithm>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vector>

#include "bench.h"
#include "gpuimg.h"
#include "kernels.h"
#include "ops.h"

#define CHECK(call)                                                                                \
    do {                                                                                           \
        cudaError_t e_ = (call);                                                                   \
        if (e_ != cudaSuccess) {                                                                   \
            fprintf(stderr, "bench: %s: %s\n", #call, cudaGetErrorString(e_));                     \
            exit(4);                                                                               \
        }                                                                                          \
    } while (0)

static const size_t N = (size_t)BENCH_W * BENCH_H;
static const size_t PLANE = (N + 255) / 256 * 256;

double bench_time(bench_ctx *c, bench_fn fn, void *arg)
{
    const int warm = 5, runs = 50;
    for (int i = 0; i < warm; i++)
        if (fn(c, arg, i))
            return -1;
    for (int i = 0; i < runs; i++) {
        CHECK(cudaEventRecord(c->ev[2 * i], c->stream));
        if (fn(c, arg, i))
            return -1;
        CHECK(cudaEventRecord(c->ev[2 * i + 1], c->stream));
    }
    CHECK(cudaStreamSynchronize(c->stream));
    std::vector<float> ms(runs);
    for (int i = 0; i < runs; i++)
        CHECK(cudaEventElapsedTime(&ms[i], c->ev[2 * i], c->ev[2 * i + 1]));
    std::sort(ms.begin(), ms.end());
    return (ms[runs / 2 - 1] + ms[runs / 2]) / 2.0;
}

// ---- our ops ----

struct scratch {
    void *tmp;              // separable / SSIM scratch
    float *weights;         // on the device
    const float *h_weights; // the same, in host memory (the fused blur takes them by value)
    int radius;             // blur
    gpuimg_conv conv;       // convolve
    unsigned long long *counts;
    uint8_t *lut;
    double *ssim;
};

static gpuimg_dplanes planes_of(uint8_t *const p[3])
{
    gpuimg_dplanes d = {{p[0], p[1], p[2], nullptr}};
    return d;
}

static int op_copy(bench_ctx *c, void *, int i)
{
    return cudaMemcpyAsync(c->out_rgb, c->in[i % BENCH_BUFFERS].rgb, 3 * N,
                           cudaMemcpyDeviceToDevice, c->stream) != cudaSuccess;
}
static int op_deinterleave(bench_ctx *c, void *, int i)
{
    return gpuimg__cuda_deinterleave(c->in[i % BENCH_BUFFERS].rgb, planes_of(c->out_plane), 3, N,
                                     c->stream) != cudaSuccess;
}
static int op_interleave(bench_ctx *c, void *, int i)
{
    return gpuimg__cuda_interleave(planes_of(c->in[i % BENCH_BUFFERS].plane), c->out_rgb, 3, N,
                                   c->stream) != cudaSuccess;
}
static int op_blur(bench_ctx *c, void *a, int i)
{
    scratch *s = (scratch *)a;
    for (int k = 0; k < 3; k++)
        if (gpuimg__cuda_blur(c->in[i % BENCH_BUFFERS].plane[k], c->out_plane[k], s->tmp,
                              s->h_weights, s->weights, BENCH_W, BENCH_H, s->radius,
                              GPUIMG_BORDER_REFLECT101, c->stream) != cudaSuccess)
            return 1;
    return 0;
}
static int op_box(bench_ctx *c, void *a, int i)
{
    scratch *s = (scratch *)a;
    for (int k = 0; k < 3; k++)
        if (gpuimg__cuda_box(c->in[i % BENCH_BUFFERS].plane[k], c->out_plane[k], s->tmp, BENCH_W,
                             BENCH_H, 5, GPUIMG_BORDER_REFLECT101, c->stream) != cudaSuccess)
            return 1;
    return 0;
}
static int op_convolve(bench_ctx *c, void *a, int i)
{
    scratch *s = (scratch *)a;
    return gpuimg__cuda_convolve(planes_of(c->in[i % BENCH_BUFFERS].plane), planes_of(c->out_plane),
                                 3, BENCH_W, BENCH_H, &s->conv, GPUIMG_BORDER_REFLECT101,
                                 c->stream) != cudaSuccess;
}

static int op_sobel(bench_ctx *c, void *, int i)
{
    for (int k = 0; k < 3; k++)
        if (gpuimg__cuda_sobel(c->in[i % BENCH_BUFFERS].plane[k], c->out_plane[k], BENCH_W, BENCH_H,
                               GPUIMG_BORDER_REFLECT101, c->stream) != cudaSuccess)
            return 1;
    return 0;
}
static int op_move(bench_ctx *c, void *a, int i)
{
    return gpuimg__cuda_move(planes_of(c->in[i % BENCH_BUFFERS].plane), planes_of(c->out_plane), 3,
                             BENCH_W, BENCH_H, *(gpuimg_move *)a, c->stream) != cudaSuccess;
}
static int histograms(bench_ctx *c, scratch *s, uint8_t *const p[3])
{
    if (cudaMemsetAsync(s->counts, 0, 3 * 256 * 8, c->stream) != cudaSuccess)
        return 1;
    return gpuimg__cuda_histogram(planes_of(p), 3, N, s->counts, c->stream) != cudaSuccess;
}
static int op_histogram(bench_ctx *c, void *a, int i)
{
    return histograms(c, (scratch *)a, c->in[i % BENCH_BUFFERS].plane);
}
static int op_histogram_uniform(bench_ctx *c, void *a, int i)
{
    return histograms(c, (scratch *)a, c->uniform[i % BENCH_BUFFERS]);
}
// stats is the histogram: min, max, median and the exact sums come from its
// 256 bins per plane on the host (src/backend_common.c, gpuimg__stats_from_histogram).
static int op_stats(bench_ctx *c, void *a, int i)
{
    return histograms(c, (scratch *)a, c->in[i % BENCH_BUFFERS].plane);
}
static int op_invert(bench_ctx *c, void *, int i)
{
    return gpuimg__cuda_invert(planes_of(c->in[i % BENCH_BUFFERS].plane), planes_of(c->out_plane),
                               3, N, c->stream) != cudaSuccess;
}
static int op_grayscale(bench_ctx *c, void *, int i)
{
    uint8_t *const *p = c->in[i % BENCH_BUFFERS].plane;
    return gpuimg__cuda_grayscale(p[0], p[1], p[2], c->out_plane[0], N, c->stream) != cudaSuccess;
}
static int op_equalize(bench_ctx *c, void *a, int i)
{
    scratch *s = (scratch *)a;
    if (histograms(c, s, c->in[i % BENCH_BUFFERS].plane))
        return 1;
    for (int k = 0; k < 3; k++)
        if (gpuimg__cuda_equalize(c->in[i % BENCH_BUFFERS].plane[k], c->out_plane[k], N,
                                  s->counts + 256 * k, s->lut + 256 * k, c->stream) != cudaSuccess)
            return 1;
    return 0;
}
static int op_ssim(bench_ctx *c, void *a, int i)
{
    scratch *s = (scratch *)a;
    uint8_t *const *pa = c->in[i % BENCH_BUFFERS].plane, *const *pb =
                                                             c->in[(i + 1) % BENCH_BUFFERS].plane;
    if (cudaMemsetAsync(s->ssim, 0, 8, c->stream) != cudaSuccess)
        return 1;
    for (int k = 0; k < 3; k++)
        if (gpuimg__cuda_ssim(pa[k], pb[k], NULL, BENCH_W, BENCH_H, s->ssim, c->stream) !=
            cudaSuccess)
            return 1;
    return 0;
}

// ---- the input ----

// The photograph mirror-tiled to 8K (reflect101 both ways), or, without one,
// smooth gradients with texture: photo-like statistics either way.
static void make_image(const char *path, std::vector<uint8_t> &rgb)
{
    rgb.resize(3 * N);
    gpuimg_image img = {0, 0, 0, nullptr};
    gpuimg_ctx *ctx = nullptr;
    if (strcmp(path, "-") != 0) {
        gpuimg_config cfg;
        gpuimg_config_init(&cfg);
        cfg.backend = GPUIMG_BACKEND_CPU;
        if (gpuimg_ctx_create(&cfg, &ctx) != GPUIMG_OK ||
            gpuimg_load(ctx, path, &img) != GPUIMG_OK || img.channels != 3) {
            fprintf(stderr, "bench: %s: %s\n", path, ctx ? gpuimg_ctx_error(ctx) : "no context");
            exit(3);
        }
    }
    for (int y = 0; y < BENCH_H; y++)
        for (int x = 0; x < BENCH_W; x++)
            for (int k = 0; k < 3; k++) {
                uint8_t v;
                if (img.data) {
                    int sx = x % (2 * img.width - 2), sy = y % (2 * img.height - 2);
                    sx = sx < img.width ? sx : 2 * img.width - 2 - sx;
                    sy = sy < img.height ? sy : 2 * img.height - 2 - sy;
                    v = img.data[((size_t)sy * img.width + sx) * 3 + k];
                } else {
                    double t = 128 + 60 * sin(x / (300.0 + 40 * k)) * cos(y / 210.0) +
                               30 * sin((x + 3 * y) / 7.0) + 20 * sin(x * y / 9000.0);
                    v = (uint8_t)std::min(255.0, std::max(0.0, t));
                }
                rgb[((size_t)y * BENCH_W + x) * 3 + k] = v;
            }
    gpuimg_image_free(&img);
    gpuimg_ctx_destroy(ctx);
}

struct op_row {
    const char *name;
    bench_fn fn;
    void *arg;
    double bytes; // the fewest the op must read plus write
    const char *npp;
};

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: bench PHOTO.png|- OUT.json\n");
        return 2;
    }
    bench_ctx c;
    memset(&c, 0, sizeof c);
    CHECK(cudaStreamCreate(&c.stream));
    for (int i = 0; i < 128; i++)
        CHECK(cudaEventCreate(&c.ev[i]));
    std::vector<uint8_t> rgb;
    make_image(argv[1], rgb);
    std::vector<uint8_t> planes(3 * PLANE);
    for (size_t p = 0; p < N; p++)
        for (int k = 0; k < 3; k++)
            planes[k * PLANE + p] = rgb[3 * p + k];
    for (int b = 0; b < BENCH_BUFFERS; b++) {
        uint8_t *base;
        CHECK(cudaMalloc(&c.in[b].rgb, 3 * N));
        CHECK(cudaMalloc(&base, 3 * PLANE));
        for (int k = 0; k < 3; k++)
            c.in[b].plane[k] = base + k * PLANE;
        CHECK(cudaMemcpy(c.in[b].rgb, rgb.data(), 3 * N, cudaMemcpyHostToDevice));
        CHECK(cudaMemcpy(base, planes.data(), 3 * PLANE, cudaMemcpyHostToDevice));
    }
    uint8_t *out;
    CHECK(cudaMalloc(&c.out_rgb, 3 * N));
    CHECK(cudaMalloc(&out, 3 * PLANE));
    for (int k = 0; k < 3; k++)
        c.out_plane[k] = out + k * PLANE;
    for (int b = 0; b < BENCH_BUFFERS; b++) /* distinct buffers: L2 must not serve them */
        for (int k = 0; k < 3; k++) {
            CHECK(cudaMalloc(&c.uniform[b][k], PLANE));
            CHECK(cudaMemset(c.uniform[b][k], 200, PLANE));
        }

    // Weights from the op table itself, so they are the ones gpuimg uses.
    gpuimg_config cfg;
    gpuimg_config_init(&cfg);
    cfg.backend = GPUIMG_BACKEND_CPU;
    gpuimg_ctx *ctx;
    gpuimg_ctx_create(&cfg, &ctx);
    // gaussian5 and the 15 x 15 box are outer products (convolve runs them
    // as two 1-D passes); general5/15 are not (the 2-D tile kernel).
    const char *step_text[6] = {"blur:sigma=2",
                                "blur:sigma=8",
                                "convolve:kernel=gaussian5",
                                "convolve:kernel=bench/box15.txt,normalize",
                                "convolve:kernel=bench/general5.txt",
                                "convolve:kernel=bench/general15.txt"};
    scratch s[6];
    memset(s, 0, sizeof s);
    void *tmp;
    unsigned long long *small;
    CHECK(cudaMalloc(&tmp, N * sizeof(float))); // a two-pass blur's intermediate (radius > 32)
    CHECK(cudaMalloc(&small, (3 * 256 + 16) * sizeof(unsigned long long)));
    c.counts = small;
    uint8_t *lut;
    double *ssim;
    CHECK(cudaMalloc(&lut, 4 * 256));
    CHECK(cudaMalloc(&ssim, sizeof(double)));
    for (int k = 0; k < 6; k++) {
        gpuimg_step *step;
        if (gpuimg_step_parse(ctx, step_text[k], &step) != GPUIMG_OK ||
            gpuimg_step_finish(ctx, step) != GPUIMG_OK) {
            fprintf(stderr, "bench: %s: %s\n", step_text[k], gpuimg_ctx_error(ctx));
            return 2;
        }
        size_t n = k < 2 ? (size_t)(2 * step->radius + 1)
                         : (size_t)step->conv.width * (size_t)step->conv.height;
        CHECK(cudaMalloc(&s[k].weights, n * sizeof(float)));
        CHECK(cudaMemcpy(s[k].weights, step->weights, n * sizeof(float), cudaMemcpyHostToDevice));
        s[k].radius = step->radius;
        s[k].h_weights = step->weights;
        s[k].conv = step->conv;
        s[k].tmp = tmp;
        s[k].counts = small;
        s[k].lut = lut;
        s[k].ssim = ssim;
    }
    gpuimg_move transpose = GPUIMG_MOVE_TRANSPOSE, rot90 = GPUIMG_MOVE_ROTATE90,
                flip_h = GPUIMG_MOVE_FLIP_H;
    const double img = 3.0 * N;
    op_row rows[] = {
        {"interleaved->planar", op_deinterleave, nullptr, 2 * img, "nppiCopy_8u_C3P3R"},
        {"planar->interleaved", op_interleave, nullptr, 2 * img, "nppiCopy_8u_P3C3R"},
        {"blur sigma=2", op_blur, &s[0], 2 * img, "nppiFilterGaussBorder_8u_C3R 13x13"},
        {"blur sigma=8", op_blur, &s[1], 2 * img, "nppiFilterGaussAdvancedBorder_8u_C3R 49"},
        {"box r=5", op_box, &s[0], 2 * img, "nppiFilterBoxBorder_8u_C1R 11x11 x3"},
        {"convolve 5x5", op_convolve, &s[2], 2 * img, "nppiFilterBorder32f_8u_C1R 5x5 x3"},
        {"convolve 5x5 general", op_convolve, &s[4], 2 * img, "nppiFilterBorder32f_8u_C1R 5x5 x3"},
        {"convolve 15x15", op_convolve, &s[3], 2 * img, "nppiFilterBorder32f_8u_C1R 15x15 x3"},
        {"convolve 15x15 general", op_convolve, &s[5], 2 * img,
         "nppiFilterBorder32f_8u_C1R 15x15 x3"},
        {"sobel", op_sobel, nullptr, 2 * img, "nppiGradientVectorSobelBorder (n/a)"},
        {"transpose", op_move, &transpose, 2 * img, "nppiTranspose_8u_C1R x3"},
        {"rotate 90", op_move, &rot90, 2 * img, "nppiTranspose + nppiMirror x3"},
        {"flip h", op_move, &flip_h, 2 * img, "nppiMirror_8u_C1R x3"},
        {"invert", op_invert, nullptr, 2 * img, "nppiNot_8u_C1R x3"},
        {"histogram (photo)", op_histogram, &s[0], img, "nppiHistogramEven_8u_C1R x3"},
        {"histogram (one value)", op_histogram_uniform, &s[0], img, "nppiHistogramEven_8u_C1R x3"},
        {"stats", op_stats, &s[0], img, "nppiMean_StdDev + nppiMinMax x3"},
        {"grayscale", op_grayscale, nullptr, img + N, "nppiRGBToGray_8u_C3C1R"},
        {"equalize", op_equalize, &s[0], 3 * img, "nppiHistogramEven + nppiLUTPalette x3"},
        {"compare's ssim", op_ssim, &s[0], 2 * img, "n/a"},
    };
    double copy_ms = bench_time(&c, op_copy, nullptr);
    double copy_gbs = 2 * img / copy_ms / 1e6;
    printf("8K RGB %dx%d, device-to-device copy: %.3f ms for %.1f MB read + written = %.0f GB/s\n",
           BENCH_W, BENCH_H, copy_ms, 2 * img / 1e6, copy_gbs);
    printf("%-22s %9s %8s %7s %9s %8s  %s\n", "op", "ours ms", "GB/s", "% copy", "NPP ms",
           "NPP/ours", "NPP call (result agrees)");
    FILE *json = fopen(argv[2], "w");
    if (json)
        fprintf(json,
                "{\"width\": %d, \"height\": %d, \"copy_ms\": %.4f, \"copy_gbs\": %.1f, "
                "\"ops\": [",
                BENCH_W, BENCH_H, copy_ms, copy_gbs);
    for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++) {
        double ms = bench_time(&c, rows[r].fn, rows[r].arg);
        CHECK(cudaGetLastError());
        if (ms <= 0) {
            fprintf(stderr, "bench: %s: a launch failed\n", rows[r].name);
            return 4;
        }
        rows[r].fn(&c, rows[r].arg, 0); /* ours on input 0, for NPP's comparison */
        CHECK(cudaStreamSynchronize(c.stream));
        int agrees = -1;
        double npp = bench_npp(&c, rows[r].name, &agrees);
        double gbs = rows[r].bytes / ms / 1e6;
        char npp_ms[32] = "-", ratio[32] = "-";
        if (npp > 0) {
            snprintf(npp_ms, sizeof npp_ms, "%.3f", npp);
            snprintf(ratio, sizeof ratio, "%.2f", npp / ms);
        }
        printf("%-22s %9.3f %8.0f %6.1f%% %9s %8s  %s%s\n", rows[r].name, ms, gbs,
               100 * gbs / copy_gbs, npp_ms, ratio, rows[r].npp,
               agrees == 1   ? " (agrees)"
               : agrees == 0 ? " (DIFFERS)"
                             : "");
        if (json)
            fprintf(json,
                    "%s{\"op\": \"%s\", \"ms\": %.4f, \"gbs\": %.1f, \"pct_copy\": %.1f, "
                    "\"npp_ms\": %.4f, \"npp_call\": \"%s\", \"npp_agrees\": %d}",
                    r ? ", " : "", rows[r].name, ms, gbs, 100 * gbs / copy_gbs, npp, rows[r].npp,
                    agrees);
    }
    if (json) {
        fprintf(json, "]}\n");
        fclose(json);
    }
    gpuimg_ctx_destroy(ctx);
    return 0;
}
