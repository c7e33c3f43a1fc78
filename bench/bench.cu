// SPDX-License-Identifier: MIT
// make bench: every kernel on an 8K RGB photograph, device-resident, against
// the device-to-device copy bandwidth and NPP's nearest equivalent (SPEC §6).
//
// Each op runs 5 times to warm up, then 50 times between CUDA events; the
// median is reported. Runs rotate among BENCH_BUFFERS inputs of 100 MB each,
// so L2 (50-60 MB) never holds the input of the next run. Effective GB/s
// counts the fewest bytes the op must read plus write.
//
// Every op that takes 16-bit images also runs on a 16-bit version of the
// same photograph (each value v * 257 plus noise in the low byte), in the
// row after its 8-bit one ("... 16"), with twice the bytes, against the
// copy of the 16-bit image measured in the same run. NPP's column is for
// the 8-bit rows.
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
#include "ops/ops.h"
#include "ops/resample.h"

#define CHECK(call)                                                                                \
    do {                                                                                           \
        cudaError_t e_ = (call);                                                                   \
        if (e_ != cudaSuccess) {                                                                   \
            fprintf(stderr, "bench: %s: %s\n", #call, cudaGetErrorString(e_));                     \
            exit(4);                                                                               \
        }                                                                                          \
    } while (0)

static const size_t N = (size_t)BENCH_W * BENCH_H;

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
    uint8_t *lut;           // equalize: 3 x gpuimg__cuda_equalize_scratch(16) bytes
    double *ssim;
    uint8_t *gamma[2];   // gamma's tables (map_lut), 8 and 16 bits, on the device
    gpuimg_daxis ax, ay; // resize's tables (8K to 1080p lanczos3), on the device
    float *resize_tmp;   // its horizontal pass, 1920 x 4320 floats
};

// One row's op at one depth: the scratch (weights), the depth, the move.
struct op_arg {
    scratch *s;
    int depth;
    gpuimg_move move;
};

static gpuimg_dplanes planes_of(uint8_t *const p[3])
{
    gpuimg_dplanes d = {{p[0], p[1], p[2], nullptr}};
    return d;
}

// The buffers of the op's depth: input set i % BENCH_BUFFERS and the outputs.
static const bench_input &input(bench_ctx *c, const op_arg *a, int i)
{
    return a->depth == 16 ? c->set16.in[i % BENCH_BUFFERS] : c->in[i % BENCH_BUFFERS];
}
static uint8_t *const *out_planes(bench_ctx *c, const op_arg *a)
{
    return a->depth == 16 ? c->set16.out_plane : c->out_plane;
}
static uint8_t *out_rgb(bench_ctx *c, const op_arg *a)
{
    return a->depth == 16 ? c->set16.out_rgb : c->out_rgb;
}
static unsigned long long *counts_of(bench_ctx *c, const op_arg *a)
{
    return a->depth == 16 ? c->counts16 : c->counts;
}

static int op_copy(bench_ctx *c, void *arg, int i)
{
    const op_arg *a = (const op_arg *)arg;
    return cudaMemcpyAsync(out_rgb(c, a), input(c, a, i).rgb, 3 * N * (a->depth / 8),
                           cudaMemcpyDeviceToDevice, c->stream) != cudaSuccess;
}
static int op_deinterleave(bench_ctx *c, void *arg, int i)
{
    const op_arg *a = (const op_arg *)arg;
    return gpuimg__cuda_deinterleave(input(c, a, i).rgb, planes_of(out_planes(c, a)), 3, a->depth,
                                     N, c->stream) != cudaSuccess;
}
static int op_interleave(bench_ctx *c, void *arg, int i)
{
    const op_arg *a = (const op_arg *)arg;
    return gpuimg__cuda_interleave(planes_of(input(c, a, i).plane), out_rgb(c, a), 3, a->depth, N,
                                   c->stream) != cudaSuccess;
}
static int op_blur(bench_ctx *c, void *arg, int i)
{
    const op_arg *a = (const op_arg *)arg;
    for (int k = 0; k < 3; k++)
        if (gpuimg__cuda_blur(input(c, a, i).plane[k], out_planes(c, a)[k], a->s->tmp,
                              a->s->h_weights, a->s->weights, BENCH_W, BENCH_H, a->s->radius,
                              GPUIMG_BORDER_REFLECT101, a->depth, c->stream) != cudaSuccess)
            return 1;
    return 0;
}
// resize, 8K to 1920 x 1080, lanczos3: the op's own tables (src/ops/resample.c)
static const int RESIZE_W = 1920, RESIZE_H = 1080;
static int op_resize(bench_ctx *c, void *arg, int i)
{
    const op_arg *a = (const op_arg *)arg;
    for (int k = 0; k < 3; k++)
        if (gpuimg__cuda_resample(input(c, a, i).plane[k], BENCH_W, BENCH_H, a->depth,
                                  out_planes(c, a)[k], RESIZE_W, a->depth, 0, 0, a->s->ax, a->s->ay,
                                  a->s->resize_tmp, c->stream) != cudaSuccess)
            return 1;
    return 0;
}

// The table of one axis on the device (the backend's upload_axes, by hand).
static gpuimg_daxis device_axis(int n, int m)
{
    gpuimg__axis a;
    if (gpuimg__axis_make(n, m, GPUIMG__FILTER_LANCZOS3, &a) != GPUIMG_OK) {
        fprintf(stderr, "bench: out of memory\n");
        exit(4);
    }
    int *first;
    float *weights;
    CHECK(cudaMalloc(&first, (size_t)m * sizeof(int)));
    CHECK(cudaMalloc(&weights, (size_t)m * a.taps * sizeof(float)));
    CHECK(cudaMemcpy(first, a.first, (size_t)m * sizeof(int), cudaMemcpyHostToDevice));
    CHECK(
        cudaMemcpy(weights, a.weights, (size_t)m * a.taps * sizeof(float), cudaMemcpyHostToDevice));
    gpuimg_daxis d = {m, a.taps, gpuimg__cuda_axis_span(&a), first, weights};
    gpuimg__axis_free(&a);
    return d;
}

static int op_box(bench_ctx *c, void *arg, int i)
{
    const op_arg *a = (const op_arg *)arg;
    for (int k = 0; k < 3; k++)
        if (gpuimg__cuda_box(input(c, a, i).plane[k], out_planes(c, a)[k], a->s->tmp, BENCH_W,
                             BENCH_H, 5, GPUIMG_BORDER_REFLECT101, a->depth,
                             c->stream) != cudaSuccess)
            return 1;
    return 0;
}
static int op_convolve(bench_ctx *c, void *arg, int i)
{
    const op_arg *a = (const op_arg *)arg;
    return gpuimg__cuda_convolve(planes_of(input(c, a, i).plane), planes_of(out_planes(c, a)), 3,
                                 BENCH_W, BENCH_H, &a->s->conv, GPUIMG_BORDER_REFLECT101, a->depth,
                                 c->stream) != cudaSuccess;
}

static int op_sobel(bench_ctx *c, void *arg, int i)
{
    const op_arg *a = (const op_arg *)arg;
    for (int k = 0; k < 3; k++)
        if (gpuimg__cuda_sobel(input(c, a, i).plane[k], out_planes(c, a)[k], BENCH_W, BENCH_H,
                               GPUIMG_BORDER_REFLECT101, a->depth, c->stream) != cudaSuccess)
            return 1;
    return 0;
}
static int op_move(bench_ctx *c, void *arg, int i)
{
    const op_arg *a = (const op_arg *)arg;
    return gpuimg__cuda_move(planes_of(input(c, a, i).plane), planes_of(out_planes(c, a)), 3,
                             BENCH_W, BENCH_H, a->depth, a->move, c->stream) != cudaSuccess;
}
static int histograms(bench_ctx *c, const op_arg *a, uint8_t *const p[3])
{
    size_t bytes = ((size_t)3 << a->depth) * sizeof(unsigned long long);
    if (cudaMemsetAsync(counts_of(c, a), 0, bytes, c->stream) != cudaSuccess)
        return 1;
    return gpuimg__cuda_histogram(planes_of(p), 3, a->depth, N, counts_of(c, a), c->partials,
                                  c->stream) != cudaSuccess;
}
static int op_histogram(bench_ctx *c, void *arg, int i)
{
    const op_arg *a = (const op_arg *)arg;
    return histograms(c, a, input(c, a, i).plane);
}
static int op_histogram_uniform(bench_ctx *c, void *arg, int i)
{
    const op_arg *a = (const op_arg *)arg;
    return histograms(
        c, a, a->depth == 16 ? c->set16.uniform[i % BENCH_BUFFERS] : c->uniform[i % BENCH_BUFFERS]);
}
// stats is the histogram: min, max, median and the exact sums come from its
// bins per plane on the host (src/backend_common.c, gpuimg__stats_from_histogram).
static int op_stats(bench_ctx *c, void *arg, int i)
{
    return op_histogram(c, arg, i);
}
static int op_invert(bench_ctx *c, void *arg, int i)
{
    const op_arg *a = (const op_arg *)arg;
    return gpuimg__cuda_invert(planes_of(input(c, a, i).plane), planes_of(out_planes(c, a)), 3, N,
                               a->depth, c->stream) != cudaSuccess;
}
static int op_grayscale(bench_ctx *c, void *arg, int i)
{
    const op_arg *a = (const op_arg *)arg;
    uint8_t *const *p = input(c, a, i).plane;
    return gpuimg__cuda_grayscale(p[0], p[1], p[2], out_planes(c, a)[0], N, a->depth, c->stream) !=
           cudaSuccess;
}
static int op_equalize(bench_ctx *c, void *arg, int i)
{
    const op_arg *a = (const op_arg *)arg;
    if (histograms(c, a, input(c, a, i).plane))
        return 1;
    size_t lut = gpuimg__cuda_equalize_scratch(a->depth);
    for (int k = 0; k < 3; k++)
        if (gpuimg__cuda_equalize(input(c, a, i).plane[k], out_planes(c, a)[k], N, a->depth,
                                  counts_of(c, a) + ((size_t)k << a->depth), a->s->lut + lut * k,
                                  c->stream) != cudaSuccess)
            return 1;
    return 0;
}
// gamma 2.2: a per-value operation's table, each plane looked up (map_lut).
static int op_gamma(bench_ctx *c, void *arg, int i)
{
    const op_arg *a = (const op_arg *)arg;
    for (int k = 0; k < 3; k++)
        if (gpuimg__cuda_map_lut(input(c, a, i).plane[k], out_planes(c, a)[k], N, a->depth,
                                 a->s->gamma[a->depth == 16], c->stream) != cudaSuccess)
            return 1;
    return 0;
}
// equalize --luma: the luma's histogram, its table, the three planes scaled.
static int op_equalize_luma(bench_ctx *c, void *arg, int i)
{
    const op_arg *a = (const op_arg *)arg;
    size_t bytes = ((size_t)1 << a->depth) * sizeof(unsigned long long);
    gpuimg_dplanes in = planes_of(input(c, a, i).plane);
    return cudaMemsetAsync(counts_of(c, a), 0, bytes, c->stream) != cudaSuccess ||
           gpuimg__cuda_histogram_luma(in, a->depth, N, counts_of(c, a), c->partials, c->stream) !=
               cudaSuccess ||
           gpuimg__cuda_equalize_luma(in, planes_of(out_planes(c, a)), N, a->depth, counts_of(c, a),
                                      a->s->lut, c->stream) != cudaSuccess;
}
static int op_ssim(bench_ctx *c, void *arg, int i)
{
    const op_arg *a = (const op_arg *)arg;
    uint8_t *const *pa = input(c, a, i).plane, *const *pb = input(c, a, i + 1).plane;
    if (cudaMemsetAsync(a->s->ssim, 0, 8, c->stream) != cudaSuccess)
        return 1;
    for (int k = 0; k < 3; k++)
        if (gpuimg__cuda_ssim(pa[k], pb[k], NULL, BENCH_W, BENCH_H, a->depth, a->s->ssim,
                              c->stream) != cudaSuccess)
            return 1;
    return 0;
}

// ---- the input ----

// The photograph mirror-tiled to 8K (reflect101 both ways), or, without one,
// smooth gradients with texture: photo-like statistics either way.
static void make_image(const char *path, std::vector<uint8_t> &rgb)
{
    rgb.resize(3 * N);
    gpuimg_image img;
    memset(&img, 0, sizeof img);
    gpuimg_ctx *ctx = nullptr;
    if (strcmp(path, "-") != 0) {
        gpuimg_config cfg;
        gpuimg_config_init(&cfg);
        cfg.backend = GPUIMG_BACKEND_CPU;
        cfg.depth = 8; // a 16-bit photograph too: the 16-bit set is made from these bytes
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

// The 16-bit photograph: each value v * 257 plus sensor-like noise in the
// low byte (a hash of the position), so that a 16-bit histogram sees tens
// of thousands of distinct values, as a real 16-bit capture would, rather
// than 256 multiples of 257.
static std::vector<uint16_t> widen(const std::vector<uint8_t> &rgb)
{
    std::vector<uint16_t> out(rgb.size());
    for (size_t i = 0; i < rgb.size(); i++) {
        uint32_t hsh = (uint32_t)i * 2654435761u;
        hsh ^= hsh >> 15;
        int v = rgb[i] * 257 + (int)(hsh % 257) - 128;
        out[i] = (uint16_t)std::min(65535, std::max(0, v));
    }
    return out;
}

struct op_row {
    const char *name;
    bench_fn fn;
    op_arg arg;
    double bytes; // the fewest the op must read plus write, at 8 bits
    const char *npp;
};

// One depth's buffers: BENCH_BUFFERS input sets from the interleaved image
// (bytes of `vs` per value), outputs, one-value planes.
static void make_set(bench_set *set, const uint8_t *rgb, size_t vs, uint32_t one_value)
{
    size_t plane = (N * vs + 255) / 256 * 256;
    std::vector<uint8_t> planes(3 * plane);
    for (size_t p = 0; p < N; p++)
        for (int k = 0; k < 3; k++)
            memcpy(&planes[k * plane + p * vs], rgb + (3 * p + k) * vs, vs);
    for (int b = 0; b < BENCH_BUFFERS; b++) {
        uint8_t *base;
        CHECK(cudaMalloc(&set->in[b].rgb, 3 * N * vs));
        CHECK(cudaMalloc(&base, 3 * plane));
        for (int k = 0; k < 3; k++)
            set->in[b].plane[k] = base + k * plane;
        CHECK(cudaMemcpy(set->in[b].rgb, rgb, 3 * N * vs, cudaMemcpyHostToDevice));
        CHECK(cudaMemcpy(base, planes.data(), 3 * plane, cudaMemcpyHostToDevice));
    }
    uint8_t *out;
    CHECK(cudaMalloc(&set->out_rgb, 3 * N * vs));
    CHECK(cudaMalloc(&out, 3 * plane));
    for (int k = 0; k < 3; k++)
        set->out_plane[k] = out + k * plane;
    std::vector<uint8_t> uniform(plane);
    for (size_t p = 0; p < N; p++)
        memcpy(&uniform[p * vs], &one_value, vs); // little-endian: the low bytes
    for (int b = 0; b < BENCH_BUFFERS; b++)       /* distinct buffers: L2 must not serve them */
        for (int k = 0; k < 3; k++) {
            CHECK(cudaMalloc(&set->uniform[b][k], plane));
            CHECK(cudaMemcpy(set->uniform[b][k], uniform.data(), plane, cudaMemcpyHostToDevice));
        }
}

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
    {
        bench_set set8;
        make_set(&set8, rgb.data(), 1, 200);
        memcpy(c.in, set8.in, sizeof c.in);
        memcpy(c.uniform, set8.uniform, sizeof c.uniform);
        c.out_rgb = set8.out_rgb;
        memcpy(c.out_plane, set8.out_plane, sizeof c.out_plane);
        std::vector<uint16_t> rgb16 = widen(rgb);
        make_set(&c.set16, reinterpret_cast<const uint8_t *>(rgb16.data()), 2, 200 * 257);
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
    CHECK(cudaMalloc(&tmp, N * sizeof(float))); // a two-pass blur's intermediate (radius > 32)
    CHECK(cudaMalloc(&c.counts, (3 * 256 + 16) * sizeof(unsigned long long)));
    CHECK(cudaMalloc(&c.counts16, (size_t)3 * 65536 * sizeof(unsigned long long)));
    CHECK(cudaMalloc(&c.partials, std::max(gpuimg__cuda_histogram_scratch(3, 16, N),
                                           gpuimg__cuda_histogram_scratch(1, 16, N))));
    uint8_t *lut;
    double *ssim;
    CHECK(cudaMalloc(&lut, 3 * gpuimg__cuda_equalize_scratch(16)));
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
        s[k].lut = lut;
        s[k].ssim = ssim;
    }
    gpuimg_step *gamma;
    if (gpuimg_step_parse(ctx, "gamma:gamma=2.2", &gamma) != GPUIMG_OK ||
        gpuimg_step_finish(ctx, gamma) != GPUIMG_OK) {
        fprintf(stderr, "bench: gamma: %s\n", gpuimg_ctx_error(ctx));
        return 2;
    }
    CHECK(cudaMalloc(&s[0].gamma[0], 256));
    CHECK(cudaMalloc(&s[0].gamma[1], 65536 * sizeof(uint16_t)));
    CHECK(cudaMemcpy(s[0].gamma[0], gamma->lut8, 256, cudaMemcpyHostToDevice));
    CHECK(
        cudaMemcpy(s[0].gamma[1], gamma->lut16, 65536 * sizeof(uint16_t), cudaMemcpyHostToDevice));
    s[0].ax = device_axis(BENCH_W, RESIZE_W);
    s[0].ay = device_axis(BENCH_H, RESIZE_H);
    CHECK(cudaMalloc(&s[0].resize_tmp, gpuimg__cuda_resample_scratch(RESIZE_W, BENCH_H)));
    const gpuimg_move NO_MOVE = GPUIMG_MOVE_TRANSPOSE; // for ops that move nothing
    const double img = 3.0 * N;
    // Each 8-bit row, then (where the op has one) its 16-bit row: twice the
    // bytes, against the copy of the 16-bit image.
    op_row rows[] = {
        {"interleaved->planar",
         op_deinterleave,
         {nullptr, 8, NO_MOVE},
         2 * img,
         "nppiCopy_8u_C3P3R"},
        {"planar->interleaved", op_interleave, {nullptr, 8, NO_MOVE}, 2 * img, "nppiCopy_8u_P3C3R"},
        {"blur sigma=2",
         op_blur,
         {&s[0], 8, NO_MOVE},
         2 * img,
         "nppiFilterGaussBorder_8u_C3R 13x13"},
        {"blur sigma=8",
         op_blur,
         {&s[1], 8, NO_MOVE},
         2 * img,
         "nppiFilterGaussAdvancedBorder_8u_C3R 49"},
        {"box r=5", op_box, {&s[0], 8, NO_MOVE}, 2 * img, "nppiFilterBoxBorder_8u_C1R 11x11 x3"},
        {"convolve 5x5",
         op_convolve,
         {&s[2], 8, NO_MOVE},
         2 * img,
         "nppiFilterBorder32f_8u_C1R 5x5 x3"},
        {"convolve 5x5 general",
         op_convolve,
         {&s[4], 8, NO_MOVE},
         2 * img,
         "nppiFilterBorder32f_8u_C1R 5x5 x3"},
        {"convolve 15x15",
         op_convolve,
         {&s[3], 8, NO_MOVE},
         2 * img,
         "nppiFilterBorder32f_8u_C1R 15x15 x3"},
        {"convolve 15x15 general",
         op_convolve,
         {&s[5], 8, NO_MOVE},
         2 * img,
         "nppiFilterBorder32f_8u_C1R 15x15 x3"},
        {"sobel", op_sobel, {nullptr, 8, NO_MOVE}, 2 * img, "nppiGradientVectorSobelBorder (n/a)"},
        {"transpose",
         op_move,
         {nullptr, 8, GPUIMG_MOVE_TRANSPOSE},
         2 * img,
         "nppiTranspose_8u_C1R x3"},
        {"rotate 90",
         op_move,
         {nullptr, 8, GPUIMG_MOVE_ROTATE90},
         2 * img,
         "nppiTranspose + nppiMirror x3"},
        {"flip h", op_move, {nullptr, 8, GPUIMG_MOVE_FLIP_H}, 2 * img, "nppiMirror_8u_C1R x3"},
        {"invert", op_invert, {nullptr, 8, NO_MOVE}, 2 * img, "nppiNot_8u_C1R x3"},
        {"histogram (photo)",
         op_histogram,
         {&s[0], 8, NO_MOVE},
         img,
         "nppiHistogramEven_8u_C1R x3"},
        {"histogram (one value)",
         op_histogram_uniform,
         {&s[0], 8, NO_MOVE},
         img,
         "nppiHistogramEven_8u_C1R x3"},
        {"stats", op_stats, {&s[0], 8, NO_MOVE}, img, "nppiMean_StdDev + nppiMinMax x3"},
        {"grayscale", op_grayscale, {nullptr, 8, NO_MOVE}, img + N, "nppiRGBToGray_8u_C3C1R"},
        {"equalize",
         op_equalize,
         {&s[0], 8, NO_MOVE},
         3 * img,
         "nppiHistogramEven + nppiLUTPalette x3"},
        {"gamma (map_lut)", op_gamma, {&s[0], 8, NO_MOVE}, 2 * img, "n/a"},
        {"equalize --luma", op_equalize_luma, {&s[0], 8, NO_MOVE}, 3 * img, "n/a"},
        {"compare's ssim", op_ssim, {&s[0], 8, NO_MOVE}, 2 * img, "n/a"},
        {"resize 8K->1080p lanczos3",
         op_resize,
         {&s[0], 8, NO_MOVE},
         img + 3.0 * RESIZE_W * RESIZE_H,
         "nppiResize_8u_C3R_Ctx LANCZOS"},
    };
    // The ops that have no 16-bit row: stats (the histogram's row again).
    auto has16 = [](const op_row &r) { return r.fn != op_stats; };

    op_arg copy8 = {nullptr, 8, NO_MOVE}, copy16 = {nullptr, 16, NO_MOVE};
    double copy_ms = bench_time(&c, op_copy, &copy8);
    double copy_gbs = 2 * img / copy_ms / 1e6;
    double copy16_ms = bench_time(&c, op_copy, &copy16);
    double copy16_gbs = 4 * img / copy16_ms / 1e6;
    printf("8K RGB %dx%d, device-to-device copy: %.3f ms for %.1f MB read + written = %.0f GB/s\n",
           BENCH_W, BENCH_H, copy_ms, 2 * img / 1e6, copy_gbs);
    printf("16-bit (\"... 16\" rows, %% of this copy): %.3f ms for %.1f MB read + written = %.0f "
           "GB/s\n",
           copy16_ms, 4 * img / 1e6, copy16_gbs);
    printf("%-25s %9s %8s %7s %9s %8s  %s\n", "op", "ours ms", "GB/s", "% copy", "NPP ms",
           "NPP/ours", "NPP call (result agrees)");
    FILE *json = fopen(argv[2], "w");
    if (json)
        fprintf(json,
                "{\"width\": %d, \"height\": %d, \"copy_ms\": %.4f, \"copy_gbs\": %.1f, "
                "\"copy16_ms\": %.4f, \"copy16_gbs\": %.1f, \"ops\": [",
                BENCH_W, BENCH_H, copy_ms, copy_gbs, copy16_ms, copy16_gbs);
    int first_json = 1;
    for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++)
        for (int depth = 8; depth <= 16; depth += 8) {
            if (depth == 16 && !has16(rows[r]))
                continue;
            op_arg arg = rows[r].arg;
            arg.depth = depth;
            char name[64];
            snprintf(name, sizeof name, "%s%s", rows[r].name, depth == 16 ? " 16" : "");
            double ms = bench_time(&c, rows[r].fn, &arg);
            CHECK(cudaGetLastError());
            if (ms <= 0) {
                fprintf(stderr, "bench: %s: a launch failed\n", name);
                return 4;
            }
            double npp = -1;
            int agrees = -1;
            if (depth == 8) {
                rows[r].fn(&c, &arg, 0); /* ours on input 0, for NPP's comparison */
                CHECK(cudaStreamSynchronize(c.stream));
                npp = bench_npp(&c, rows[r].name, &agrees);
            }
            double bytes = rows[r].bytes * (depth / 8);
            double gbs = bytes / ms / 1e6, pct = 100 * gbs / (depth == 16 ? copy16_gbs : copy_gbs);
            char npp_ms[32] = "-", ratio[32] = "-";
            if (npp > 0) {
                snprintf(npp_ms, sizeof npp_ms, "%.3f", npp);
                snprintf(ratio, sizeof ratio, "%.2f", npp / ms);
            }
            printf("%-25s %9.3f %8.0f %6.1f%% %9s %8s  %s%s\n", name, ms, gbs, pct, npp_ms, ratio,
                   depth == 8 ? rows[r].npp : "",
                   agrees == 1   ? " (agrees)"
                   : agrees == 0 ? " (DIFFERS)"
                                 : "");
            if (json) {
                fprintf(json,
                        "%s{\"op\": \"%s\", \"depth\": %d, \"ms\": %.4f, \"gbs\": %.1f, "
                        "\"pct_copy\": %.1f, \"npp_ms\": %.4f, \"npp_call\": \"%s\", "
                        "\"npp_agrees\": %d}",
                        first_json ? "" : ", ", rows[r].name, depth, ms, gbs, pct, npp,
                        depth == 8 ? rows[r].npp : "", agrees);
                first_json = 0;
            }
        }
    if (json) {
        fprintf(json, "]}\n");
        fclose(json);
    }
    gpuimg_ctx_destroy(ctx);
    return 0;
}
