// SPDX-License-Identifier: MIT
// NPP's nearest equivalent of each op, timed like ours (bench_time) on the
// same input buffers. Built only where NPP is installed (the GPU machine);
// -DBENCH_NO_NPP gives a bench without this column.
//
// NPP works on interleaved or single-plane images with its own border rules
// (replicate), its own Gaussian masks and a flipped kernel convention, so
// most filters are compared for speed only; the exact ops (layout,
// transpose, rotate, histogram, grayscale) are also checked against ours.
#include <string.h>
#include <vector>

#include "bench.h"

#ifdef BENCH_NO_NPP

double bench_npp(bench_ctx *, const char *, int *agrees)
{
    *agrees = -1;
    return -1;
}

#else

#include <math.h>
#include <npp.h>
#include <stdio.h>

static const size_t N = (size_t)BENCH_W * BENCH_H;
static const NppiSize ROI = {BENCH_W, BENCH_H};
static const NppiPoint ORIGIN = {0, 0};

struct npp_state {
    NppStreamContext ctx;
    uint8_t *rgb, *plane[3], *tmp;
    Npp32s *hist;
    Npp8u *buffer;
    size_t buffer_size;
    Npp32f *kernel5, *kernel15, *gauss49;
    Npp64f *mean, *stddev;
    Npp8u *min, *max;
    Npp8u *palette; // equalize's table, device memory
    NppStatus last;
    int ready;
};
static npp_state S;

static void setup(bench_ctx *c)
{
    if (S.ready)
        return;
    cudaDeviceProp p;
    int dev;
    cudaGetDevice(&dev);
    cudaGetDeviceProperties(&p, dev);
    memset(&S.ctx, 0, sizeof S.ctx);
    S.ctx.hStream = c->stream;
    S.ctx.nCudaDeviceId = dev;
    S.ctx.nMultiProcessorCount = p.multiProcessorCount;
    S.ctx.nMaxThreadsPerMultiProcessor = p.maxThreadsPerMultiProcessor;
    S.ctx.nMaxThreadsPerBlock = p.maxThreadsPerBlock;
    S.ctx.nSharedMemPerBlock = p.sharedMemPerBlock;
    S.ctx.nCudaDevAttrComputeCapabilityMajor = p.major;
    S.ctx.nCudaDevAttrComputeCapabilityMinor = p.minor;
    cudaStreamGetFlags(c->stream, &S.ctx.nStreamFlags);
    cudaMalloc(&S.rgb, 3 * N);
    for (int k = 0; k < 3; k++)
        cudaMalloc(&S.plane[k], N);
    cudaMalloc(&S.tmp, N);
    cudaMalloc(&S.hist, 3 * 257 * sizeof(Npp32s));
    S.buffer_size = 256u << 20;
    cudaMalloc(&S.buffer, S.buffer_size);
    std::vector<float> k5(25, 1.0f / 25), k15(225, 1.0f / 225), g49(49);
    double sum = 0;
    for (int i = 0; i < 49; i++)
        sum += g49[i] = (float)exp(-0.5 * ((i - 24) / 8.0) * ((i - 24) / 8.0));
    for (int i = 0; i < 49; i++)
        g49[i] = (float)(g49[i] / sum);
    cudaMalloc(&S.kernel5, 25 * 4);
    cudaMalloc(&S.kernel15, 225 * 4);
    cudaMalloc(&S.gauss49, 49 * 4);
    cudaMemcpy(S.kernel5, k5.data(), 25 * 4, cudaMemcpyHostToDevice);
    cudaMemcpy(S.kernel15, k15.data(), 225 * 4, cudaMemcpyHostToDevice);
    cudaMemcpy(S.gauss49, g49.data(), 49 * 4, cudaMemcpyHostToDevice);
    cudaMalloc(&S.mean, 3 * sizeof(Npp64f));
    cudaMalloc(&S.stddev, 3 * sizeof(Npp64f));
    cudaMalloc(&S.min, 3);
    cudaMalloc(&S.max, 3);
    // A 256-entry palette (255 - v: every entry used, nothing an identity
    // could skip). nppiLUT_8u_C1R, with levels, refused 257 levels (-106).
    std::vector<Npp8u> palette(256);
    for (int i = 0; i < 256; i++)
        palette[i] = (Npp8u)(255 - i);
    cudaMalloc(&S.palette, 256);
    cudaMemcpy(S.palette, palette.data(), 256, cudaMemcpyHostToDevice);
    S.ready = 1;
}

#define NPP(call)                                                                                  \
    do {                                                                                           \
        NppStatus s_ = (call);                                                                     \
        if (s_ != NPP_SUCCESS) {                                                                   \
            S.last = s_;                                                                           \
            return 1;                                                                              \
        }                                                                                          \
    } while (0)

static const uint8_t *in_rgb(bench_ctx *c, int i)
{
    return c->in[i % BENCH_BUFFERS].rgb;
}
static uint8_t *const *in_planes(bench_ctx *c, int i)
{
    return c->in[i % BENCH_BUFFERS].plane;
}

static int n_deinterleave(bench_ctx *c, void *, int i)
{
    Npp8u *const dst[3] = {S.plane[0], S.plane[1], S.plane[2]};
    NPP(nppiCopy_8u_C3P3R_Ctx(in_rgb(c, i), BENCH_W * 3, dst, BENCH_W, ROI, S.ctx));
    return 0;
}
static int n_interleave(bench_ctx *c, void *, int i)
{
    const Npp8u *const src[3] = {in_planes(c, i)[0], in_planes(c, i)[1], in_planes(c, i)[2]};
    NPP(nppiCopy_8u_P3C3R_Ctx(src, BENCH_W, S.rgb, BENCH_W * 3, ROI, S.ctx));
    return 0;
}
static int n_gauss13(bench_ctx *c, void *, int i)
{
    NPP(nppiFilterGaussBorder_8u_C3R_Ctx(in_rgb(c, i), BENCH_W * 3, ROI, ORIGIN, S.rgb, BENCH_W * 3,
                                         ROI, NPP_MASK_SIZE_13_X_13, NPP_BORDER_REPLICATE, S.ctx));
    return 0;
}
static int n_gauss49(bench_ctx *c, void *, int i)
{
    NPP(nppiFilterGaussAdvancedBorder_8u_C3R_Ctx(in_rgb(c, i), BENCH_W * 3, ROI, ORIGIN, S.rgb,
                                                 BENCH_W * 3, ROI, 49, S.gauss49,
                                                 NPP_BORDER_REPLICATE, S.ctx));
    return 0;
}
static int n_box(bench_ctx *c, void *, int i)
{
    for (int k = 0; k < 3; k++)
        NPP(nppiFilterBoxBorder_8u_C1R_Ctx(in_planes(c, i)[k], BENCH_W, ROI, ORIGIN, S.plane[k],
                                           BENCH_W, ROI, NppiSize{11, 11}, NppiPoint{5, 5},
                                           NPP_BORDER_REPLICATE, S.ctx));
    return 0;
}
static int n_filter(bench_ctx *c, void *arg, int i)
{
    int side = *(int *)arg;
    Npp32f *kernel = side == 5 ? S.kernel5 : S.kernel15;
    for (int k = 0; k < 3; k++)
        NPP(nppiFilterBorder32f_8u_C1R_Ctx(
            in_planes(c, i)[k], BENCH_W, ROI, ORIGIN, S.plane[k], BENCH_W, ROI, kernel,
            NppiSize{side, side}, NppiPoint{side / 2, side / 2}, NPP_BORDER_REPLICATE, S.ctx));
    return 0;
}
static int n_transpose(bench_ctx *c, void *, int i)
{
    for (int k = 0; k < 3; k++)
        NPP(nppiTranspose_8u_C1R_Ctx(in_planes(c, i)[k], BENCH_W, S.plane[k], BENCH_H, ROI, S.ctx));
    return 0;
}
static int n_rotate90(bench_ctx *c, void *, int i)
{
    NppiSize turned = {BENCH_H, BENCH_W};
    for (int k = 0; k < 3; k++) {
        NPP(nppiTranspose_8u_C1R_Ctx(in_planes(c, i)[k], BENCH_W, S.tmp, BENCH_H, ROI, S.ctx));
        NPP(nppiMirror_8u_C1R_Ctx(S.tmp, BENCH_H, S.plane[k], BENCH_H, turned, NPP_VERTICAL_AXIS,
                                  S.ctx));
    }
    return 0;
}
static int n_flip(bench_ctx *c, void *, int i)
{
    // NPP names the mirror by its axis: a left-right flip mirrors about the
    // vertical axis.
    for (int k = 0; k < 3; k++)
        NPP(nppiMirror_8u_C1R_Ctx(in_planes(c, i)[k], BENCH_W, S.plane[k], BENCH_W, ROI,
                                  NPP_VERTICAL_AXIS, S.ctx));
    return 0;
}
static int n_invert(bench_ctx *c, void *, int i)
{
    for (int k = 0; k < 3; k++)
        NPP(nppiNot_8u_C1R_Ctx(in_planes(c, i)[k], BENCH_W, S.plane[k], BENCH_W, ROI, S.ctx));
    return 0;
}
static int histograms(const uint8_t *const p[3])
{
    for (int k = 0; k < 3; k++)
        NPP(nppiHistogramEven_8u_C1R_Ctx(p[k], BENCH_W, ROI, S.hist + 257 * k, 257, 0, 256,
                                         S.buffer, S.ctx));
    return 0;
}
static int n_histogram(bench_ctx *c, void *, int i)
{
    const uint8_t *p[3] = {in_planes(c, i)[0], in_planes(c, i)[1], in_planes(c, i)[2]};
    return histograms(p);
}
static int n_histogram_uniform(bench_ctx *c, void *, int i)
{
    const uint8_t *p[3] = {c->uniform[i % BENCH_BUFFERS][0], c->uniform[i % BENCH_BUFFERS][1],
                           c->uniform[i % BENCH_BUFFERS][2]};
    return histograms(p);
}
static int n_stats(bench_ctx *c, void *, int i)
{
    for (int k = 0; k < 3; k++) {
        NPP(nppiMean_StdDev_8u_C1R_Ctx(in_planes(c, i)[k], BENCH_W, ROI, S.buffer, S.mean + k,
                                       S.stddev + k, S.ctx));
        NPP(nppiMinMax_8u_C1R_Ctx(in_planes(c, i)[k], BENCH_W, ROI, S.min + k, S.max + k, S.buffer,
                                  S.ctx));
    }
    return 0;
}
static int n_gray(bench_ctx *c, void *, int i)
{
    NPP(nppiRGBToGray_8u_C3C1R_Ctx(in_rgb(c, i), BENCH_W * 3, S.plane[0], BENCH_W, ROI, S.ctx));
    return 0;
}
// 8K interleaved RGB to 1920 x 1080 with NPP's Lanczos (its own kernel
// and support: not SPEC's widened one, so compared for speed only)
static int n_resize(bench_ctx *c, void *, int i)
{
    const NppiSize out = {1920, 1080};
    const NppiRect src_roi = {0, 0, BENCH_W, BENCH_H}, dst_roi = {0, 0, 1920, 1080};
    NPP(nppiResize_8u_C3R_Ctx(in_rgb(c, i), 3 * BENCH_W, ROI, src_roi, S.rgb, 3 * 1920, out,
                              dst_roi, NPPI_INTER_LANCZOS, S.ctx));
    return 0;
}

static int n_equalize(bench_ctx *c, void *, int i)
{
    if (n_histogram(c, nullptr, i))
        return 1;
    for (int k = 0; k < 3; k++)
        NPP(nppiLUTPalette_8u_C1R_Ctx(in_planes(c, i)[k], BENCH_W, S.plane[k], BENCH_W, ROI,
                                      S.palette, 8, S.ctx));
    return 0;
}

// Bytes of a device buffer equal to another's.
static int same(const void *a, const void *b, size_t n)
{
    std::vector<uint8_t> ha(n), hb(n);
    cudaMemcpy(ha.data(), a, n, cudaMemcpyDeviceToHost);
    cudaMemcpy(hb.data(), b, n, cudaMemcpyDeviceToHost);
    return memcmp(ha.data(), hb.data(), n) == 0;
}

double bench_npp(bench_ctx *c, const char *op, int *agrees)
{
    setup(c);
    static int five = 5, fifteen = 15;
    bench_fn fn = nullptr;
    void *arg = nullptr;
    if (!strcmp(op, "interleaved->planar"))
        fn = n_deinterleave;
    else if (!strcmp(op, "planar->interleaved"))
        fn = n_interleave;
    else if (!strcmp(op, "blur sigma=2"))
        fn = n_gauss13;
    else if (!strcmp(op, "blur sigma=8"))
        fn = n_gauss49;
    else if (!strcmp(op, "box r=5"))
        fn = n_box;
    else if (!strcmp(op, "convolve 5x5") || !strcmp(op, "convolve 5x5 general"))
        fn = n_filter, arg = &five;
    else if (!strcmp(op, "convolve 15x15") || !strcmp(op, "convolve 15x15 general"))
        fn = n_filter, arg = &fifteen;
    else if (!strcmp(op, "transpose"))
        fn = n_transpose;
    else if (!strcmp(op, "rotate 90"))
        fn = n_rotate90;
    else if (!strcmp(op, "flip h"))
        fn = n_flip;
    else if (!strcmp(op, "invert"))
        fn = n_invert;
    else if (!strcmp(op, "histogram (photo)"))
        fn = n_histogram;
    else if (!strcmp(op, "histogram (one value)"))
        fn = n_histogram_uniform;
    else if (!strcmp(op, "stats"))
        fn = n_stats;
    else if (!strcmp(op, "grayscale"))
        fn = n_gray;
    else if (!strcmp(op, "equalize"))
        fn = n_equalize;
    else if (!strcmp(op, "resize 8K->1080p lanczos3"))
        fn = n_resize;
    *agrees = -1;
    if (!fn)
        return -1;
    S.last = NPP_SUCCESS;
    double ms = bench_time(c, fn, arg);
    if (ms < 0) {
        fprintf(stderr, "bench: NPP for %s failed with status %d\n", op, (int)S.last);
        return -1;
    }
    // Ours ran last on input 0 (run index 0 of the comparison pass in main);
    // run NPP on input 0 too and compare where the definitions agree.
    if (fn(c, arg, 0) == 0 && cudaStreamSynchronize(c->stream) == cudaSuccess) {
        if (fn == n_deinterleave || fn == n_transpose || fn == n_rotate90 || fn == n_flip ||
            fn == n_invert)
            *agrees = same(S.plane[0], c->out_plane[0], N) &&
                      same(S.plane[1], c->out_plane[1], N) && same(S.plane[2], c->out_plane[2], N);
        else if (fn == n_interleave)
            *agrees = same(S.rgb, c->out_rgb, 3 * N);
        else if (fn == n_resize) { // a different filter: how far from SPEC's, in dB
            const size_t m = (size_t)1920 * 1080;
            std::vector<uint8_t> theirs(3 * m), ours(3 * m);
            cudaMemcpy(theirs.data(), S.rgb, 3 * m, cudaMemcpyDeviceToHost);
            for (int k = 0; k < 3; k++)
                cudaMemcpy(ours.data() + k * m, c->out_plane[k], m, cudaMemcpyDeviceToHost);
            double se = 0;
            for (size_t p = 0; p < m; p++)
                for (int k = 0; k < 3; k++) {
                    double d = (double)theirs[3 * p + k] - ours[k * m + p];
                    se += d * d;
                }
            printf("(NPP's Lanczos resize against SPEC's, ours: PSNR %.1f dB)\n",
                   10 * log10(255.0 * 255.0 * 3 * m / (se > 0 ? se : 1e-9)));
        } else if (fn == n_gray)
            *agrees = same(S.plane[0], c->out_plane[0], N);
        else if (fn == n_histogram || fn == n_histogram_uniform) {
            std::vector<Npp32s> h(3 * 257);
            std::vector<unsigned long long> ours(3 * 256);
            cudaMemcpy(h.data(), S.hist, h.size() * 4, cudaMemcpyDeviceToHost);
            cudaMemcpy(ours.data(), c->counts, ours.size() * 8, cudaMemcpyDeviceToHost);
            *agrees = 1;
            for (int k = 0; k < 3; k++)
                for (int v = 0; v < 256; v++)
                    *agrees &= (unsigned long long)h[257 * k + v] == ours[256 * k + v];
        }
    }
    return ms;
}

#endif
