// SPDX-License-Identifier: MIT
// 256-bin histogram of one plane.
//
// Privatized: each warp of a block owns a copy of the 256 bins in shared
// memory, so warps never contend with each other; a block merges its copies
// and adds each non-zero bin to the global counts with one atomic, so global
// atomics number at most 256 per block, whatever the image.
//
// Within a warp, lanes holding the same value (all of them on a one-value
// image, where plain atomics would serialize 32-fold) first agree with
// __match_any_sync, and one lane adds the group's size: the cost per value
// is bounded by the number of distinct values in the warp, not by repeats.
#include "device.cuh"
#include "kernels.h"

constexpr int HIST_THREADS = 256;
constexpr int HIST_WARPS = HIST_THREADS / 32;
static_assert(HIST_WARPS * 256 * 4 <= 48 * 1024, "private histograms fit");

__device__ __forceinline__ void add_value(unsigned int *s_bins, unsigned int v)
{
    unsigned int peers = __match_any_sync(__activemask(), v);
    if ((threadIdx.x & 31) == __ffs(peers) - 1) // the lowest lane of the group adds for it
        atomicAdd(&s_bins[v], __popc(peers));
}

__global__ void histogram_kernel(const uint8_t *__restrict__ src, size_t n,
                                 unsigned long long *__restrict__ counts)
{
    __shared__ unsigned int s_bins[HIST_WARPS][256];
    for (int i = threadIdx.x; i < HIST_WARPS * 256; i += HIST_THREADS)
        (&s_bins[0][0])[i] = 0;
    __syncthreads();
    unsigned int *mine = s_bins[threadIdx.x / 32];
    // Four values per 32-bit load (planes are 256-byte aligned); the last
    // n % 4 values are taken one by one.
    const uint32_t *words = reinterpret_cast<const uint32_t *>(src);
    size_t nwords = n / 4, stride = (size_t)gridDim.x * HIST_THREADS;
    for (size_t i = (size_t)blockIdx.x * HIST_THREADS + threadIdx.x; i < nwords; i += stride) {
        uint32_t w = words[i];
        add_value(mine, w & 0xff);
        add_value(mine, (w >> 8) & 0xff);
        add_value(mine, (w >> 16) & 0xff);
        add_value(mine, w >> 24);
    }
    if (blockIdx.x == 0 && threadIdx.x < n % 4)
        add_value(mine, src[nwords * 4 + threadIdx.x]);
    __syncthreads();
    for (int b = threadIdx.x; b < 256; b += HIST_THREADS) {
        unsigned int total = 0;
        for (int k = 0; k < HIST_WARPS; k++)
            total += s_bins[k][b];
        if (total)
            atomicAdd(&counts[b], (unsigned long long)total);
    }
}

extern "C" cudaError_t gpuimg__cuda_histogram(const uint8_t *d_src, size_t n,
                                              unsigned long long *d_counts, cudaStream_t stream)
{
    if (n == 0)
        return cudaSuccess;
    histogram_kernel<<<gpuimg__grid_for((n + 3) / 4, HIST_THREADS), HIST_THREADS, 0, stream>>>(
        d_src, n, d_counts);
    return cudaGetLastError();
}
