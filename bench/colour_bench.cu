// SPDX-License-Identifier: MIT
// The colour kernel (kernels/colour_lut.cu) on an 8K RGB photograph-like
// image, device-resident, against the device-to-device copy of the same
// planes measured in the same run (SPEC §6): median of 50 event-timed runs
// after 5 warm-ups, inputs rotated among buffers larger than L2 together,
// effective GB/s counting the 3 planes read and the 3 written. Conversions:
// sRGB to Display P3 and Display P3 to sRGB, at 8 and 16 bits. Built on the
// development machine (no NPP: NPP has no ICC conversion to compare with).
//
// Usage: colour_bench [PHOTO.png]   (default: a synthetic photograph)
#include <algorithm>
#include <stdio.h>
#include <stdlib.h>
#include <vector>

#include "core/cms.h"
#include "gpuimg.h"
#include "kernels.h"

#define CHECK(call)                                                                                \
    do {                                                                                           \
        cudaError_t e_ = (call);                                                                   \
        if (e_ != cudaSuccess) {                                                                   \
            fprintf(stderr, "colour_bench: %s: %s\n", #call, cudaGetErrorString(e_));              \
            exit(4);                                                                               \
        }                                                                                          \
    } while (0)

enum { W = 7680, H = 4320, BUFFERS = 4, WARM = 5, RUNS = 50 };

struct Set {
    gpuimg_dplanes in[BUFFERS], out;
};

template <typename F> static double timed(cudaStream_t s, F launch)
{
    std::vector<cudaEvent_t> ev(2 * RUNS);
    for (auto &e : ev)
        CHECK(cudaEventCreate(&e));
    for (int i = 0; i < WARM; i++)
        CHECK(launch(i));
    for (int i = 0; i < RUNS; i++) {
        CHECK(cudaEventRecord(ev[2 * i], s));
        CHECK(launch(i));
        CHECK(cudaEventRecord(ev[2 * i + 1], s));
    }
    CHECK(cudaStreamSynchronize(s));
    std::vector<float> ms(RUNS);
    for (int i = 0; i < RUNS; i++)
        CHECK(cudaEventElapsedTime(&ms[i], ev[2 * i], ev[2 * i + 1]));
    for (auto &e : ev)
        cudaEventDestroy(e);
    std::sort(ms.begin(), ms.end());
    return (ms[RUNS / 2 - 1] + ms[RUNS / 2]) / 2.0;
}

int main(int argc, char **argv)
{
    const size_t n = (size_t)W * H;
    // a photograph: the given one tiled, or smooth fields with texture
    std::vector<uint8_t> host(3 * n);
    gpuimg_image photo = {};
    gpuimg_ctx *ctx = NULL;
    gpuimg_config cfg;
    gpuimg_config_init(&cfg);
    cfg.backend = GPUIMG_BACKEND_CPU;
    if (argc > 1 && (gpuimg_ctx_create(&cfg, &ctx) != GPUIMG_OK ||
                     gpuimg_load(ctx, argv[1], &photo) != GPUIMG_OK || photo.channels < 3)) {
        fprintf(stderr, "colour_bench: %s: cannot read an RGB image\n", argv[1]);
        return 3;
    }
    for (size_t y = 0; y < H; y++)
        for (size_t x = 0; x < W; x++)
            for (int c = 0; c < 3; c++) {
                size_t i = y * W + x;
                host[c * n + i] =
                    photo.data ? photo.data[((y % photo.height) * photo.width + x % photo.width) *
                                                photo.channels +
                                            c]
                               : (uint8_t)(128 +
                                           90 * __builtin_sin(x * 0.003 + c) *
                                               __builtin_cos(y * 0.002 - c) +
                                           (x * 7 + y * 13) % 17);
            }
    std::vector<uint16_t> host16(3 * n);
    for (size_t i = 0; i < 3 * n; i++)
        host16[i] = (uint16_t)(host[i] * 257 + (i * 2654435761u >> 24) % 200);

    cudaStream_t s;
    CHECK(cudaStreamCreate(&s));
    Set set[2]; // 8 and 16 bits
    for (int d = 0; d < 2; d++) {
        size_t plane = n * (d ? 2 : 1);
        for (int b = 0; b < BUFFERS; b++)
            for (int c = 0; c < 3; c++) {
                CHECK(cudaMalloc(&set[d].in[b].p[c], plane));
                const void *src =
                    d ? (const void *)(host16.data() + c * n) : (const void *)(host.data() + c * n);
                CHECK(cudaMemcpy(set[d].in[b].p[c], src, plane, cudaMemcpyHostToDevice));
            }
        for (int c = 0; c < 3; c++)
            CHECK(cudaMalloc(&set[d].out.p[c], plane));
    }
    cudaDeviceProp prop;
    CHECK(cudaGetDeviceProperties(&prop, 0));
    printf("device: %s; image %dx%d RGB as 3 planes\n", prop.name, W, H);
    for (int d = 0; d < 2; d++) {
        size_t plane = n * (d ? 2 : 1);
        double copy = timed(s, [&](int i) {
            for (int c = 0; c < 3; c++) {
                cudaError_t e = cudaMemcpyAsync(set[d].out.p[c], set[d].in[i % BUFFERS].p[c], plane,
                                                cudaMemcpyDeviceToDevice, s);
                if (e != cudaSuccess)
                    return e;
            }
            return cudaSuccess;
        });
        double bytes = 2.0 * 3 * plane;
        printf("%2d bits: copy %.3f ms = %.0f GB/s\n", d ? 16 : 8, copy, bytes / copy / 1e6);
        const char *names[2][2] = {{NULL, "display-p3"}, {"display-p3", "srgb"}};
        for (int k = 0; k < 2; k++) {
            uint8_t *src = NULL, *dst = NULL;
            size_t src_len = 0, dst_len = 0;
            char why[256];
            if ((names[k][0] &&
                 gpuimg__cms_target(names[k][0], &src, &src_len, why, sizeof why) != 0) ||
                gpuimg__cms_target(names[k][1], &dst, &dst_len, why, sizeof why) != 0) {
                fprintf(stderr, "colour_bench: %s\n", why);
                return 1;
            }
            gpuimg__cms_conversion conv;
            if (gpuimg__cms_convert(src, src_len, dst, dst_len, 0, 0, &conv, why, sizeof why)) {
                fprintf(stderr, "colour_bench: %s\n", why);
                return 1;
            }
            float *d_lut;
            CHECK(cudaMalloc(&d_lut, GPUIMG_COLOUR_FLOATS * sizeof(float)));
            CHECK(cudaMemcpy(d_lut, conv.lut, GPUIMG_COLOUR_FLOATS * sizeof(float),
                             cudaMemcpyHostToDevice));
            double ms = timed(s, [&](int i) {
                return gpuimg__cuda_colour_lut(set[d].in[i % BUFFERS], set[d].out, n, d ? 16 : 8,
                                               d_lut, s);
            });
            printf("%2d bits: colour %s -> %s: %.3f ms = %.0f GB/s, %.1f%% of the copy\n",
                   d ? 16 : 8, names[k][0] ? names[k][0] : "srgb", names[k][1], ms,
                   bytes / ms / 1e6, 100.0 * copy / ms);
            cudaFree(d_lut);
            gpuimg__cms_conversion_free(&conv);
            free(src);
            free(dst);
        }
    }
    gpuimg_image_free(&photo);
    gpuimg_ctx_destroy(ctx);
    return 0;
}
