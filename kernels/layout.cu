// SPDX-License-Identifier: MIT
// Interleaved (array of structures: RGBRGB...) <-> planes (structure of
// arrays: RRR... GGG... BBB...).
//
// A direct per-pixel kernel would have each lane read 3 bytes at a stride of
// 3 (or write them so): uncoalesced byte traffic. Instead each block stages a
// tile of whole pixels through shared memory: the interleaved side moves as
// 32-bit words (consecutive lanes, consecutive words), the planar side as
// 32-bit words of four consecutive pixels of one plane. Both global sides are
// fully coalesced; only shared memory sees the stride.
#include "device.cuh"
#include "kernels.h"

constexpr int LAYOUT_THREADS = 256;
constexpr int LAYOUT_PIXELS = 1024; // per block: 4 per thread
static_assert(LAYOUT_PIXELS == 4 * LAYOUT_THREADS, "each thread moves one word per plane");
// Tiles start at multiples of LAYOUT_PIXELS pixels, so both sides of a full
// tile are 4-byte aligned (planes are allocated 256-byte aligned).

__global__ void deinterleave_kernel(const uint8_t *__restrict__ src, gpuimg_dplanes dst,
                                    int channels, size_t pixels)
{
    __shared__ uint32_t s_words[LAYOUT_PIXELS]; // up to 4 bytes per pixel
    uint8_t *s_bytes = reinterpret_cast<uint8_t *>(s_words);
    size_t first = (size_t)blockIdx.x * LAYOUT_PIXELS;
    int count = (int)min((size_t)LAYOUT_PIXELS, pixels - first);
    int nbytes = count * channels;
    const uint8_t *tile = src + first * channels;
    if (count == LAYOUT_PIXELS) {
        const uint32_t *w = reinterpret_cast<const uint32_t *>(tile);
        for (int i = threadIdx.x; i < nbytes / 4; i += LAYOUT_THREADS)
            s_words[i] = w[i];
    } else {
        for (int i = threadIdx.x; i < nbytes; i += LAYOUT_THREADS)
            s_bytes[i] = tile[i];
    }
    __syncthreads();
    int p = 4 * threadIdx.x; // this thread's four consecutive pixels
    for (int c = 0; c < channels; c++) {
        if (p + 3 < count) {
            uint32_t word = s_bytes[p * channels + c] | s_bytes[(p + 1) * channels + c] << 8 |
                            s_bytes[(p + 2) * channels + c] << 16 |
                            (uint32_t)s_bytes[(p + 3) * channels + c] << 24;
            *reinterpret_cast<uint32_t *>(dst.p[c] + first + p) = word;
        } else {
            for (int k = p; k < count; k++)
                dst.p[c][first + k] = s_bytes[k * channels + c];
        }
    }
}

__global__ void interleave_kernel(gpuimg_dplanes src, uint8_t *__restrict__ dst, int channels,
                                  size_t pixels)
{
    __shared__ uint32_t s_words[LAYOUT_PIXELS];
    uint8_t *s_bytes = reinterpret_cast<uint8_t *>(s_words);
    size_t first = (size_t)blockIdx.x * LAYOUT_PIXELS;
    int count = (int)min((size_t)LAYOUT_PIXELS, pixels - first);
    int nbytes = count * channels;
    int p = 4 * threadIdx.x;
    for (int c = 0; c < channels; c++) {
        if (p + 3 < count) {
            uint32_t word = *reinterpret_cast<const uint32_t *>(src.p[c] + first + p);
            for (int k = 0; k < 4; k++)
                s_bytes[(p + k) * channels + c] = (uint8_t)(word >> (8 * k));
        } else {
            for (int k = p; k < count; k++)
                s_bytes[k * channels + c] = src.p[c][first + k];
        }
    }
    __syncthreads();
    uint8_t *tile = dst + first * channels;
    if (count == LAYOUT_PIXELS) {
        uint32_t *w = reinterpret_cast<uint32_t *>(tile);
        for (int i = threadIdx.x; i < nbytes / 4; i += LAYOUT_THREADS)
            w[i] = s_words[i];
    } else {
        for (int i = threadIdx.x; i < nbytes; i += LAYOUT_THREADS)
            tile[i] = s_bytes[i];
    }
}

extern "C" cudaError_t gpuimg__cuda_deinterleave(const uint8_t *d_src, gpuimg_dplanes dst,
                                                 int channels, size_t pixels, cudaStream_t stream)
{
    if (pixels == 0)
        return cudaSuccess;
    deinterleave_kernel<<<ceil_div((long long)pixels, LAYOUT_PIXELS), LAYOUT_THREADS, 0,
                          stream>>>(d_src, dst, channels, pixels);
    return cudaGetLastError();
}

extern "C" cudaError_t gpuimg__cuda_interleave(gpuimg_dplanes src, uint8_t *d_dst, int channels,
                                               size_t pixels, cudaStream_t stream)
{
    if (pixels == 0)
        return cudaSuccess;
    interleave_kernel<<<ceil_div((long long)pixels, LAYOUT_PIXELS), LAYOUT_THREADS, 0, stream>>>(
        src, d_dst, channels, pixels);
    return cudaGetLastError();
}
