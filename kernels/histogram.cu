// SPDX-License-Identifier: MIT
// 256-bin histograms of up to 4 planes, in one launch (blockIdx.y is the
// plane: one plane of an 8K image is read in about 12 us, so three launches
// lost a fifth of that to each launch's ramp-up and tail).
//
// Privatized: each warp of a block owns a copy of the 256 bins in shared
// memory, so warps never contend with each other; a block merges its copies
// and adds each non-zero bin to the global counts with one atomic, so global
// atomics number at most 256 per block, whatever the image.
//
// Each lane reads 16 values at once (a 16-byte load; planes are 256-byte
// aligned). On a photograph the 32 lanes' values are mostly distinct and
// plain shared atomics are cheapest. On a one-value region every lane would
// hit the same bin, serializing 32-fold; there one vote (__all_sync) finds
// that the whole warp holds one value and a single lane adds 16 x lanes.
#include "device.cuh"
#include "kernels.h"

constexpr int HIST_THREADS = 256;
constexpr int HIST_WARPS = HIST_THREADS / 32;
static_assert(HIST_WARPS * 256 * 4 <= 48 * 1024, "private histograms fit");

__device__ __forceinline__ void add_word(unsigned int *bins, uint32_t w)
{
    atomicAdd(&bins[w & 0xff], 1u);
    atomicAdd(&bins[(w >> 8) & 0xff], 1u);
    atomicAdd(&bins[(w >> 16) & 0xff], 1u);
    atomicAdd(&bins[w >> 24], 1u);
}

// add_quad: 16 values into the warp's bins. Called by the lanes in
// `active` together (the vote needs them all); mine is the warp's copy.
__device__ __forceinline__ void add_quad(unsigned int *mine, uint4 q, unsigned int active, int lane)
{
    uint32_t v = q.x & 0xff;
    int leader = __ffs(active) - 1;
    uint32_t leader_v = __shfl_sync(active, v, leader);
    int one_value =
        q.x == v * 0x01010101u && q.y == q.x && q.z == q.x && q.w == q.x && v == leader_v;
    if (__all_sync(active, one_value)) {
        if (lane == leader)
            atomicAdd(&mine[v], 16u * __popc(active));
    } else {
        add_word(mine, q.x);
        add_word(mine, q.y);
        add_word(mine, q.z);
        add_word(mine, q.w);
    }
}

__global__ void histogram_kernel(gpuimg_dplanes planes, size_t n,
                                 unsigned long long *__restrict__ all_counts)
{
    const uint8_t *__restrict__ src = plane_at(planes, blockIdx.y);
    unsigned long long *__restrict__ counts = all_counts + 256 * blockIdx.y;
    __shared__ unsigned int s_bins[HIST_WARPS][256];
    for (int i = threadIdx.x; i < HIST_WARPS * 256; i += HIST_THREADS)
        (&s_bins[0][0])[i] = 0;
    __syncthreads();
    unsigned int *mine = s_bins[threadIdx.x / 32];
    int lane = threadIdx.x & 31;
    const uint4 *quads = reinterpret_cast<const uint4 *>(src);
    size_t nquads = n / 16, stride = (size_t)gridDim.x * HIST_THREADS;
    // Two 16-byte loads in flight per thread before either is counted.
    for (size_t i = (size_t)blockIdx.x * HIST_THREADS + threadIdx.x; i < nquads; i += 2 * stride) {
        bool second = i + stride < nquads;
        uint4 q0 = quads[i], q1 = second ? quads[i + stride] : make_uint4(0, 0, 0, 0);
        add_quad(mine, q0, __activemask(), lane);
        if (second)
            add_quad(mine, q1, __activemask(), lane);
    }
    if (blockIdx.x == 0 && threadIdx.x < n % 16)
        atomicAdd(&mine[src[nquads * 16 + threadIdx.x]], 1u);
    __syncthreads();
    for (int b = threadIdx.x; b < 256; b += HIST_THREADS) {
        unsigned int total = 0;
        for (int k = 0; k < HIST_WARPS; k++)
            total += s_bins[k][b];
        if (total)
            atomicAdd(&counts[b], (unsigned long long)total);
    }
}
static_assert(HIST_THREADS >= 16, "block 0 takes the last n % 16 values, one per thread");

extern "C" cudaError_t gpuimg__cuda_histogram(gpuimg_dplanes planes, int channels, size_t n,
                                              unsigned long long *d_counts, cudaStream_t stream)
{
    if (n == 0 || channels == 0)
        return cudaSuccess;
    // The grid fills the device once over all planes (grid-stride loops).
    int blocks = (gpuimg__grid_for((n + 15) / 16, HIST_THREADS) + channels - 1) / channels;
    histogram_kernel<<<dim3(blocks, channels), HIST_THREADS, 0, stream>>>(planes, n, d_counts);
    return cudaGetLastError();
}
