// SPDX-License-Identifier: MIT
// JPEG on the GPU through nvJPEG (jpeg_codec.cu), for the CUDA backend's
// jpeg_decode and jpeg_encode seam entries (src/backend.h).
#ifndef GPUIMG_JPEG_CODEC_H
#define GPUIMG_JPEG_CODEC_H

#include <cuda_runtime.h>

#include "core/backend.h"

struct GpuJpeg;

// A codec for the calling thread's current device; NULL, with the reason in
// why, when nvJPEG cannot be loaded or set up.
GpuJpeg *gpuimg__gpujpeg_create(char *why, size_t len);
void gpuimg__gpujpeg_destroy(GpuJpeg *j);
// "nvJPEG 13.0.1, hardware decoder" for `gpuimg info`.
void gpuimg__gpujpeg_describe(const GpuJpeg *j, char *text, size_t len);

// Decodes n files into dst[i] (allocated by the caller at the file's size,
// 8-bit, 1 plane for a grayscale JPEG and 3 for colour). refused[i] is set
// where nvJPEG would not or could not decode file i; the caller decodes
// those on the CPU. GPUIMG_OK, or GPUIMG_ERR_DEVICE with msg for a failure
// of the device itself.
gpuimg_status gpuimg__gpujpeg_decode(GpuJpeg *j, cudaStream_t stream, int n,
                                     const uint8_t *const *data, const size_t *size,
                                     gpuimg_planes *const *dst, int *refused, char *msg,
                                     size_t msglen);

// Encodes 8-bit planes (1 gray, or 3 RGB) at quality, chroma as the CPU
// encoder subsamples it: *out (malloc'ed) holds the JPEG file, without
// metadata. GPUIMG_ERR_DEVICE or _NOMEM with msg on failure.
gpuimg_status gpuimg__gpujpeg_encode(GpuJpeg *j, cudaStream_t stream, const gpuimg_planes *src,
                                     int quality, uint8_t **out, size_t *out_len, char *msg,
                                     size_t msglen);

#endif
