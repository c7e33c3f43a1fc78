// SPDX-License-Identifier: MIT
// Map kernels: Rec.601 luma, inversion, and histogram equalization's lookup.
// Each thread maps four (inversion: sixteen) consecutive bytes through 32-bit
// (16-byte) loads and stores (planes are 256-byte aligned): coalesced, a
// quarter of the instructions or fewer.
#include "device.cuh"
#include "kernels.h"

constexpr int MAP_THREADS = 256;

__global__ void grayscale_kernel(const uint8_t *__restrict__ r, const uint8_t *__restrict__ g,
                                 const uint8_t *__restrict__ b, uint8_t *__restrict__ dst, size_t n)
{
    size_t nwords = n / 4, stride = (size_t)gridDim.x * MAP_THREADS;
    for (size_t i = (size_t)blockIdx.x * MAP_THREADS + threadIdx.x; i < nwords; i += stride) {
        uint32_t wr = reinterpret_cast<const uint32_t *>(r)[i];
        uint32_t wg = reinterpret_cast<const uint32_t *>(g)[i];
        uint32_t wb = reinterpret_cast<const uint32_t *>(b)[i];
        uint32_t out = 0;
        for (int k = 0; k < 32; k += 8)
            out |= (uint32_t)gpuimg__luma((wr >> k) & 0xff, (wg >> k) & 0xff, (wb >> k) & 0xff)
                   << k;
        reinterpret_cast<uint32_t *>(dst)[i] = out;
    }
    if (blockIdx.x == 0 && threadIdx.x < n % 4) {
        size_t i = nwords * 4 + threadIdx.x;
        dst[i] = gpuimg__luma(r[i], g[i], b[i]);
    }
}

// Every plane in one launch (blockIdx.y), 16 bytes per thread and step:
// with 4-byte words a full device held 8 KB of loads in flight per SM,
// under what the memory needs to run at its rate (73% of copy, measured).
__global__ void invert_kernel(gpuimg_dplanes srcs, gpuimg_dplanes dsts, size_t n)
{
    const uint8_t *__restrict__ src = plane_at(srcs, blockIdx.y);
    uint8_t *__restrict__ dst = plane_at(dsts, blockIdx.y);
    size_t nquads = n / 16, stride = (size_t)gridDim.x * MAP_THREADS;
    for (size_t i = (size_t)blockIdx.x * MAP_THREADS + threadIdx.x; i < nquads; i += stride) {
        uint4 q = reinterpret_cast<const uint4 *>(src)[i];
        reinterpret_cast<uint4 *>(dst)[i] = make_uint4(~q.x, ~q.y, ~q.z, ~q.w);
    }
    if (blockIdx.x == 0 && threadIdx.x < n % 16) {
        size_t i = nquads * 16 + threadIdx.x;
        dst[i] = (uint8_t)(255 - src[i]);
    }
}
static_assert(MAP_THREADS >= 16, "block 0 inverts the last n % 16 values, one per thread");

// One block of 256 threads: the CDF is an inclusive scan of the 256 counts
// (Hillis-Steele in shared memory, 8 steps), then each thread makes one
// entry of SPEC's lookup table in exact integers.
__global__ void equalize_lut_kernel(const unsigned long long *__restrict__ counts,
                                    uint8_t *__restrict__ lut)
{
    __shared__ unsigned long long s_cdf[256];
    __shared__ int s_v0;
    int v = threadIdx.x;
    s_cdf[v] = counts[v];
    if (v == 0)
        s_v0 = 256;
    __syncthreads();
    if (counts[v])
        atomicMin(&s_v0, v); // the lowest value present
    for (int offset = 1; offset < 256; offset <<= 1) {
        unsigned long long add = v >= offset ? s_cdf[v - offset] : 0;
        __syncthreads(); // everyone has read before anyone writes
        s_cdf[v] += add;
        __syncthreads();
    }
    unsigned long long n = s_cdf[255], base = counts[s_v0], den = n - base, num = s_cdf[v] - base;
    if (den == 0)
        lut[v] = (uint8_t)v; // a one-value channel is unchanged
    else
        lut[v] = v < s_v0 ? 0 : (uint8_t)((2 * num * 255 + den) / (2 * den));
}

__device__ __forceinline__ uint32_t lut_word(const uint8_t *s_lut, uint32_t w)
{
    uint32_t out = 0;
#pragma unroll
    for (int k = 0; k < 32; k += 8)
        out |= (uint32_t)s_lut[(w >> k) & 0xff] << k;
    return out;
}

// 16 bytes per thread and step, as for inversion: enough loads in flight.
__global__ void lut_kernel(const uint8_t *__restrict__ src, uint8_t *__restrict__ dst, size_t n,
                           const uint8_t *__restrict__ lut)
{
    __shared__ uint8_t s_lut[256];
    s_lut[threadIdx.x] = lut[threadIdx.x];
    __syncthreads();
    size_t nquads = n / 16, stride = (size_t)gridDim.x * MAP_THREADS;
    for (size_t i = (size_t)blockIdx.x * MAP_THREADS + threadIdx.x; i < nquads; i += stride) {
        uint4 q = reinterpret_cast<const uint4 *>(src)[i];
        reinterpret_cast<uint4 *>(dst)[i] = make_uint4(lut_word(s_lut, q.x), lut_word(s_lut, q.y),
                                                       lut_word(s_lut, q.z), lut_word(s_lut, q.w));
    }
    if (blockIdx.x == 0 && threadIdx.x < n % 16) {
        size_t i = nquads * 16 + threadIdx.x;
        dst[i] = s_lut[src[i]];
    }
}
static_assert(MAP_THREADS == 256, "lut_kernel loads one table entry per thread");

extern "C" cudaError_t gpuimg__cuda_grayscale(const uint8_t *d_r, const uint8_t *d_g,
                                              const uint8_t *d_b, uint8_t *d_dst, size_t n,
                                              cudaStream_t stream)
{
    if (n == 0)
        return cudaSuccess;
    grayscale_kernel<<<gpuimg__grid_for((n + 3) / 4, MAP_THREADS), MAP_THREADS, 0, stream>>>(
        d_r, d_g, d_b, d_dst, n);
    return cudaGetLastError();
}

extern "C" cudaError_t gpuimg__cuda_invert(gpuimg_dplanes d_src, gpuimg_dplanes d_dst, int planes,
                                           size_t n, cudaStream_t stream)
{
    if (n == 0 || planes == 0)
        return cudaSuccess;
    int blocks = (gpuimg__grid_for((n + 15) / 16, MAP_THREADS) + planes - 1) / planes;
    invert_kernel<<<dim3(blocks, planes), MAP_THREADS, 0, stream>>>(d_src, d_dst, n);
    return cudaGetLastError();
}

extern "C" cudaError_t gpuimg__cuda_equalize(const uint8_t *d_src, uint8_t *d_dst, size_t n,
                                             const unsigned long long *d_counts, uint8_t *d_lut,
                                             cudaStream_t stream)
{
    if (n == 0)
        return cudaSuccess;
    equalize_lut_kernel<<<1, 256, 0, stream>>>(d_counts, d_lut);
    cudaError_t err = cudaGetLastError();
    if (err != cudaSuccess)
        return err;
    lut_kernel<<<gpuimg__grid_for((n + 15) / 16, MAP_THREADS), MAP_THREADS, 0, stream>>>(
        d_src, d_dst, n, d_lut);
    return cudaGetLastError();
}
