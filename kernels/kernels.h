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

#include "core/backend.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Plane pointers by value, so kernels need no indirection. */
typedef struct gpuimg_dplanes {
    uint8_t *p[4];
} gpuimg_dplanes;

/* Every launcher that reads or writes values takes the planes' depth (8:
 * uint8_t values, 16: uint16_t values in native order; blur, convolve and
 * convolve_rank1 also GPUIMG_DEPTH_FLOAT, float planes stored unrounded;
 * the pointers stay byte pointers, 256-byte aligned from the backend) and
 * fails with cudaErrorInvalidValue on any other. Sizes (w, h, n, pixels)
 * count values, never bytes. */

/* layout.cu: interleaved (array of structures) <-> planes; the interleaved
 * buffer holds pixels * channels values. */
cudaError_t gpuimg__cuda_deinterleave(const uint8_t *d_src, gpuimg_dplanes dst, int channels,
                                      int depth, size_t pixels, cudaStream_t stream);
cudaError_t gpuimg__cuda_interleave(gpuimg_dplanes src, uint8_t *d_dst, int channels, int depth,
                                    size_t pixels, cudaStream_t stream);

/* jpeg_colour.cu: a JPEG's planes as nvJPEG decodes them (luma in rgb.p[0],
 * chroma at ceil(w / hs) x ceil(h / vs) in d_cb, d_cr; hs, vs 1 or 2) into
 * RGB in rgb.p[0..2], upsampled and converted as libjpeg-turbo does. */
cudaError_t gpuimg__cuda_ycc_to_rgb(gpuimg_dplanes rgb, const uint8_t *d_cb, const uint8_t *d_cr,
                                    int w, int h, int hs, int vs, cudaStream_t stream);

/* Room for the largest weight list on the device: a two-pass blur's 2001 taps. */
#define GPUIMG_CUDA_MAX_WEIGHTS 2001

/* separable.cu: blur and box. Radii up to GPUIMG_CUDA_FUSED_RADIUS run in
 * one fused kernel that needs no scratch and takes the blur's weights from
 * host memory (`weights`, 2 radius + 1 taps, passed by value at launch).
 * Larger radii run two passes: d_tmp holds gpuimg__cuda_separable_scratch
 * bytes (a float or uint32 intermediate, at either depth), d_weights the
 * taps on the device. */
#define GPUIMG_CUDA_FUSED_RADIUS 32
size_t gpuimg__cuda_separable_scratch(int w, int h, int radius);
cudaError_t gpuimg__cuda_blur(const uint8_t *d_src, uint8_t *d_dst, void *d_tmp,
                              const float *weights, const float *d_weights, int w, int h,
                              int radius, gpuimg_border border, int depth, cudaStream_t stream);
cudaError_t gpuimg__cuda_box(const uint8_t *d_src, uint8_t *d_dst, void *d_tmp, int w, int h,
                             int radius, gpuimg_border border, int depth, cudaStream_t stream);
/* A square convolution kernel of radius <= GPUIMG_CUDA_FUSED_RADIUS that is
 * an outer product, K[i][j] = col[i] * row[j], through the fused separable
 * kernel (k gives scale, bias, absolute). */
cudaError_t gpuimg__cuda_convolve_rank1(gpuimg_dplanes d_src, gpuimg_dplanes d_dst, int channels,
                                        int w, int h, const float *col, const float *row,
                                        int radius, const gpuimg_conv *k, gpuimg_border border,
                                        int depth, cudaStream_t stream);

/* convolve.cu: 2-D convolution of `channels` planes (k's weights, shape,
 * scale and bias read from host memory and passed by value at launch) and
 * the Sobel magnitude of one plane. */
cudaError_t gpuimg__cuda_convolve(gpuimg_dplanes d_src, gpuimg_dplanes d_dst, int channels, int w,
                                  int h, const gpuimg_conv *k, gpuimg_border border, int depth,
                                  cudaStream_t stream);
cudaError_t gpuimg__cuda_sobel(const uint8_t *d_src, uint8_t *d_dst, int w, int h,
                               gpuimg_border border, int depth, cudaStream_t stream);

/* alpha.cu: --alpha premultiplied's ends (backend.h): planes of `depth`
 * (8 or 16; 2 or 4 channels, alpha last) to float planes weighted by alpha,
 * and float planes back to planes of `depth`. */
cudaError_t gpuimg__cuda_premultiply(gpuimg_dplanes d_src, gpuimg_dplanes d_dst, int channels,
                                     size_t n, int depth, cudaStream_t stream);
cudaError_t gpuimg__cuda_unpremultiply(gpuimg_dplanes d_src, gpuimg_dplanes d_dst, int channels,
                                       size_t n, int depth, cudaStream_t stream);

/* resample.cu: resize's passes (backend.h's resample) over one plane: the
 * axis tables on the device; span: the longest run of input samples the
 * windows of 32 consecutive outputs cover (gpuimg__cuda_axis_span).
 * d_tmp holds gpuimg__cuda_resample_scratch(ax.m, h) bytes. */
typedef struct gpuimg_daxis {
    int m, taps, span;
    const int *first;
    const float *weights;
} gpuimg_daxis;
int gpuimg__cuda_axis_span(const gpuimg_axis *a);
size_t gpuimg__cuda_resample_scratch(int mx, int h);
cudaError_t gpuimg__cuda_resample(const uint8_t *d_src, int n, int h, int src_depth, uint8_t *d_dst,
                                  int dst_w, int dst_depth, int dx, int dy, gpuimg_daxis ax,
                                  gpuimg_daxis ay, float *d_tmp, cudaStream_t stream);

/* transpose.cu: the tiled transpose and the moves built on it (backend.h's
 * gpuimg_move). */
cudaError_t gpuimg__cuda_move(gpuimg_dplanes d_src, gpuimg_dplanes d_dst, int channels, int w,
                              int h, int depth, gpuimg_move move, cudaStream_t stream);

/* histogram.cu: the 1 << depth counts of each of `channels` planes of n
 * values added into d_counts[(c << depth) ..] (zeroed by the caller); and
 * the same for the rounded Rec.601 luma of 3 planes (one set of counts),
 * equalize --luma's histogram. d_scratch holds
 * gpuimg__cuda_histogram_scratch(planes counted, depth, n) bytes (the
 * 16-bit kernel's per-block partial counts; 0 bytes, and NULL allowed, at
 * 8 bits), asked for on the device that will run the launch. */
size_t gpuimg__cuda_histogram_scratch(int planes, int depth, size_t n);
cudaError_t gpuimg__cuda_histogram(gpuimg_dplanes planes, int channels, int depth, size_t n,
                                   unsigned long long *d_counts, void *d_scratch,
                                   cudaStream_t stream);
cudaError_t gpuimg__cuda_histogram_luma(gpuimg_dplanes rgb, int depth, size_t n,
                                        unsigned long long *d_counts, void *d_scratch,
                                        cudaStream_t stream);

/* pointwise.cu: luma, inversion, equalization (d_counts: the plane's
 * 1 << depth counts; d_lut: gpuimg__cuda_equalize_scratch(depth) bytes of
 * scratch, 256-byte aligned, a multiple of 256), and equalize --luma
 * (d_counts: the luma's counts from gpuimg__cuda_histogram_luma; three
 * planes in, three out). */
size_t gpuimg__cuda_equalize_scratch(int depth);
cudaError_t gpuimg__cuda_grayscale(const uint8_t *d_r, const uint8_t *d_g, const uint8_t *d_b,
                                   uint8_t *d_dst, size_t n, int depth, cudaStream_t stream);
cudaError_t gpuimg__cuda_invert(gpuimg_dplanes d_src, gpuimg_dplanes d_dst, int planes, size_t n,
                                int depth, cudaStream_t stream);
cudaError_t gpuimg__cuda_equalize(const uint8_t *d_src, uint8_t *d_dst, size_t n, int depth,
                                  const unsigned long long *d_counts, uint8_t *d_lut,
                                  cudaStream_t stream);
cudaError_t gpuimg__cuda_equalize_luma(gpuimg_dplanes d_src, gpuimg_dplanes d_dst, size_t n,
                                       int depth, const unsigned long long *d_counts,
                                       uint8_t *d_lut, cudaStream_t stream);
/* A per-value operation's table (map_lut): each of n values of one plane
 * through d_lut, 1 << depth entries of the planes' value type on the
 * device, 16-byte aligned. */
cudaError_t gpuimg__cuda_map_lut(const uint8_t *d_src, uint8_t *d_dst, size_t n, int depth,
                                 const uint8_t *d_lut, cudaStream_t stream);

/* colour_map (backend.h): n pixels of 3 planes at depth through the
 * conversion's table d_lut (GPUIMG_COLOUR_GRID^3 RGB floats on the
 * device) by tetrahedral interpolation. Planes 8-byte aligned. */
cudaError_t gpuimg__cuda_colour_lut(gpuimg_dplanes d_src, gpuimg_dplanes d_dst, size_t n, int depth,
                                    const float *d_lut, cudaStream_t stream);

/* n 16-bit values set to value (a padded resize's canvas; 8 bits is a
 * memset); n values of one plane at depth (8 or 16) widened to floats; and
 * unsharp's last step (backend.h): src's values against their blur (float)
 * into dst at src's depth. */
cudaError_t gpuimg__cuda_fill16(uint8_t *d_dst, size_t n, uint16_t value, cudaStream_t stream);
cudaError_t gpuimg__cuda_widen(const uint8_t *d_src, uint8_t *d_dst, size_t n, int depth,
                               cudaStream_t stream);
cudaError_t gpuimg__cuda_unsharp(const uint8_t *d_src, const uint8_t *d_blurred, uint8_t *d_dst,
                                 size_t n, int depth, float amount, float threshold,
                                 cudaStream_t stream);

/* ssim.cu: the SSIM map of one channel, summed over the interior pixels
 * whose d_ignore byte is 0 (d_ignore may be NULL; one byte per pixel at
 * either depth), added into *d_ssim_sum. */
cudaError_t gpuimg__cuda_ssim(const uint8_t *d_a, const uint8_t *d_b, const uint8_t *d_ignore,
                              int w, int h, int depth, double *d_ssim_sum, cudaStream_t stream);

/* flip.cu: FLIP's map (backend.h's flip) of a and b (channels planes at
 * depth, w x h) into the first w * h floats of d_scratch, which holds
 * gpuimg__cuda_flip_scratch(w, h) bytes (the intermediates follow). */
size_t gpuimg__cuda_flip_scratch(int w, int h);
cudaError_t gpuimg__cuda_flip(gpuimg_dplanes a, gpuimg_dplanes b, int channels, int depth, int w,
                              int h, const gpuimg_flip_params *p, void *d_scratch,
                              cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
