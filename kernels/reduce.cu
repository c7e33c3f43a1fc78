// SPDX-License-Identifier: MIT
// Min, max, sum and sum of squares of one plane, exact (SPEC §3: 64-bit
// integer sums).
//
// Three levels, as in the seed's reduction tree: each thread folds its
// grid-stride share into registers; warps combine with shuffles (no shared
// memory, no barrier); warp results meet in shared memory and the first warp
// combines them; one atomic per quantity and block combines blocks.
#include "device.cuh"
#include "kernels.h"

constexpr int REDUCE_THREADS = 256;
constexpr int REDUCE_WARPS = REDUCE_THREADS / 32;

struct Partial {
    unsigned int lo, hi;
    unsigned long long sum, squares;
};

__device__ __forceinline__ void fold(Partial &p, unsigned int v)
{
    p.lo = min(p.lo, v);
    p.hi = max(p.hi, v);
    p.sum += v;
    p.squares += v * v;
}

// block_reduce_partial: called by every thread of the block; the result is
// valid in thread 0 only. Uses s_warps (REDUCE_WARPS entries) and one barrier.
__device__ Partial block_reduce_partial(Partial p, Partial *s_warps)
{
    p.lo = warp_reduce_min_u32(p.lo);
    p.hi = warp_reduce_max_u32(p.hi);
    p.sum = warp_reduce_sum_u64(p.sum);
    p.squares = warp_reduce_sum_u64(p.squares);
    int lane = threadIdx.x & 31, warp = threadIdx.x / 32;
    if (lane == 0)
        s_warps[warp] = p;
    __syncthreads();
    if (warp == 0) {
        p = lane < REDUCE_WARPS ? s_warps[lane] : Partial{255u, 0u, 0ull, 0ull};
        p.lo = warp_reduce_min_u32(p.lo);
        p.hi = warp_reduce_max_u32(p.hi);
        p.sum = warp_reduce_sum_u64(p.sum);
        p.squares = warp_reduce_sum_u64(p.squares);
    }
    return p;
}

__global__ void reduce_kernel(const uint8_t *__restrict__ src, size_t n,
                              unsigned long long *__restrict__ out)
{
    __shared__ Partial s_warps[REDUCE_WARPS];
    Partial p{255u, 0u, 0ull, 0ull};
    const uint32_t *words = reinterpret_cast<const uint32_t *>(src);
    size_t nwords = n / 4, stride = (size_t)gridDim.x * REDUCE_THREADS;
    for (size_t i = (size_t)blockIdx.x * REDUCE_THREADS + threadIdx.x; i < nwords; i += stride) {
        uint32_t w = words[i];
        fold(p, w & 0xff);
        fold(p, (w >> 8) & 0xff);
        fold(p, (w >> 16) & 0xff);
        fold(p, w >> 24);
    }
    if (blockIdx.x == 0 && threadIdx.x < n % 4)
        fold(p, src[nwords * 4 + threadIdx.x]);
    p = block_reduce_partial(p, s_warps);
    if (threadIdx.x == 0) {
        atomicMin(&out[0], (unsigned long long)p.lo);
        atomicMax(&out[1], (unsigned long long)p.hi);
        atomicAdd(&out[2], p.sum);
        atomicAdd(&out[3], p.squares);
    }
}

__global__ void reduce_init_kernel(unsigned long long *out)
{
    out[0] = 255;
    out[1] = 0;
    out[2] = 0;
    out[3] = 0;
}

extern "C" cudaError_t gpuimg__cuda_reduce_init(unsigned long long *d_out, cudaStream_t stream)
{
    reduce_init_kernel<<<1, 1, 0, stream>>>(d_out);
    return cudaGetLastError();
}

extern "C" cudaError_t gpuimg__cuda_reduce(const uint8_t *d_src, size_t n,
                                           unsigned long long *d_out, cudaStream_t stream)
{
    if (n == 0)
        return cudaSuccess;
    reduce_kernel<<<gpuimg__grid_for((n + 3) / 4, REDUCE_THREADS), REDUCE_THREADS, 0, stream>>>(
        d_src, n, d_out);
    return cudaGetLastError();
}
