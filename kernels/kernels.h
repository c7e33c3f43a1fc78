/* SPDX-License-Identifier: MIT */
/* The CUDA launchers, one group per kernel file. Each takes device pointers
 * and a stream, returns early on an empty image, launches asynchronously and
 * returns the launch's error; kernels/cuda_backend.cu owns memory and turns
 * errors into statuses. Nobody else writes <<<>>>. */
#ifndef GPUIMG_KERNELS_H
#define GPUIMG_KERNELS_H

#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>

#include "backend.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Plane pointers by value, so kernels need no indirection. */
typedef struct gpuimg_dplanes {
    uint8_t *p[4];
} gpuimg_dplanes;

/* layout.cu: interleaved (array of structures) <-> planes. */
cudaError_t gpuimg__cuda_deinterleave(const uint8_t *d_src, gpuimg_dplanes dst, int channels,
                                      size_t pixels, cudaStream_t stream);
cudaError_t gpuimg__cuda_interleave(gpuimg_dplanes src, uint8_t *d_dst, int channels, size_t pixels,
                                    cudaStream_t stream);

/* Room for the largest weight list on the device: a two-pass blur's 2001 taps. */
#define GPUIMG_CUDA_MAX_WEIGHTS 2001

/* separable.cu: blur and box. Radii up to GPUIMG_CUDA_FUSED_RADIUS run in
 * one fused kernel that needs no scratch and takes the blur's weights from
 * host memory (`weights`, 2 radius + 1 taps, passed by value at launch).
 * Larger radii run two passes: d_tmp holds gpuimg__cuda_separable_scratch
 * bytes (a float or uint32 intermediate), d_weights the taps on the device. */
#define GPUIMG_CUDA_FUSED_RADIUS 32
size_t gpuimg__cuda_separable_scratch(int w, int h, int radius);
cudaError_t gpuimg__cuda_blur(const uint8_t *d_src, uint8_t *d_dst, void *d_tmp,
                              const float *weights, const float *d_weights, int w, int h,
                              int radius, gpuimg_border border, cudaStream_t stream);
cudaError_t gpuimg__cuda_box(const uint8_t *d_src, uint8_t *d_dst, void *d_tmp, int w, int h,
                             int radius, gpuimg_border border, cudaStream_t stream);
/* A square convolution kernel of radius <= GPUIMG_CUDA_FUSED_RADIUS that is
 * an outer product, K[i][j] = col[i] * row[j], through the fused separable
 * kernel (k gives scale, bias, absolute). */
cudaError_t gpuimg__cuda_convolve_rank1(gpuimg_dplanes d_src, gpuimg_dplanes d_dst, int channels,
                                        int w, int h, const float *col, const float *row,
                                        int radius, const gpuimg_conv *k, gpuimg_border border,
                                        cudaStream_t stream);

/* convolve.cu: 2-D convolution of `channels` planes (k's weights, shape,
 * scale and bias read from host memory and passed by value at launch) and
 * the Sobel magnitude of one plane. */
cudaError_t gpuimg__cuda_convolve(gpuimg_dplanes d_src, gpuimg_dplanes d_dst, int channels, int w,
                                  int h, const gpuimg_conv *k, gpuimg_border border,
                                  cudaStream_t stream);
cudaError_t gpuimg__cuda_sobel(const uint8_t *d_src, uint8_t *d_dst, int w, int h,
                               gpuimg_border border, cudaStream_t stream);

/* transpose.cu: the tiled transpose and the moves built on it (backend.h's
 * gpuimg_move). */
cudaError_t gpuimg__cuda_move(gpuimg_dplanes d_src, gpuimg_dplanes d_dst, int channels, int w,
                              int h, gpuimg_move move, cudaStream_t stream);

/* histogram.cu: 256 counts of each of `channels` planes added into
 * d_counts[256 c ..] (zeroed by the caller). */
cudaError_t gpuimg__cuda_histogram(gpuimg_dplanes planes, int channels, size_t n,
                                   unsigned long long *d_counts, cudaStream_t stream);

/* pointwise.cu: luma, inversion, equalization (d_counts: the plane's
 * histogram, d_lut: 256 bytes of scratch). */
cudaError_t gpuimg__cuda_grayscale(const uint8_t *d_r, const uint8_t *d_g, const uint8_t *d_b,
                                   uint8_t *d_dst, size_t n, cudaStream_t stream);
cudaError_t gpuimg__cuda_invert(gpuimg_dplanes d_src, gpuimg_dplanes d_dst, int planes, size_t n,
                                cudaStream_t stream);
cudaError_t gpuimg__cuda_equalize(const uint8_t *d_src, uint8_t *d_dst, size_t n,
                                  const unsigned long long *d_counts, uint8_t *d_lut,
                                  cudaStream_t stream);

/* ssim.cu: the SSIM map of one channel, summed over the interior pixels
 * whose d_ignore byte is 0 (d_ignore may be NULL), added into *d_ssim_sum. */
cudaError_t gpuimg__cuda_ssim(const uint8_t *d_a, const uint8_t *d_b, const uint8_t *d_ignore,
                              int w, int h, double *d_ssim_sum, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
