// SPDX-License-Identifier: MIT
// Separable stencils: the Gaussian blur (float weights, float intermediate
// that is never rounded) and the box mean (exact integer window sums, so the
// result is identical to the CPU's).
//
// Row pass: a block covers ROW_TILE_W outputs of ROW_TILE_H rows and stages
// each row with its halo of `radius` samples on either side in shared memory
// (borders mapped while loading, so the inner loop has no tests). The halo is
// sized from the radius: up to 1000 gives ROW_TILE_H * (128 + 2000) * 4 bytes
// = 34 KB, within the 48 KB a block may take without opting in.
//
// Column pass: for radii up to COL_SHARED_RADIUS a block stages a
// COL_TILE_W x (COL_TILE_H + 2 radius) tile, each column read once from
// global memory; beyond that the tile would not fit, and each thread sums its
// column straight from global memory: a warp still reads 32 consecutive
// values per tap (coalesced), and L2 holds the rows that neighbours share.
#include "device.cuh"
#include "kernels.h"

constexpr int MAX_RADIUS = 1000;
constexpr int ROW_TILE_W = 128;
constexpr int ROW_TILE_H = 4;
constexpr int COL_TILE_W = 32;
constexpr int COL_TILE_H = 32;
constexpr int COL_THREADS_Y = 8; // each thread produces COL_TILE_H / 8 outputs
constexpr int COL_SHARED_RADIUS = 64;
static_assert(ROW_TILE_H * (ROW_TILE_W + 2 * MAX_RADIUS) * 4 <= 48 * 1024, "row tile fits");
static_assert((COL_TILE_H + 2 * COL_SHARED_RADIUS) * COL_TILE_W * 4 <= 48 * 1024, "column tile fits");
static_assert(COL_TILE_H % COL_THREADS_Y == 0, "whole outputs per thread");
static_assert(2 * MAX_RADIUS + 1 <= GPUIMG_CUDA_MAX_WEIGHTS, "the weight buffer holds any blur");

// Blur accumulates weighted floats; box accumulates exact 32-bit sums (a
// window of 2001 x 2001 values of 255 is 1.02e9 < 2^32). The blur's product
// is rounded on its own (__fmul_rn cannot be fused into an FMA) and the taps
// are summed in the CPU's order, so both backends give the same bits.
//
// The weights are in global memory, one buffer per backend instance (each
// with its own stream), not in __constant__ memory, which is one per process
// and would be overwritten by another thread's blur. Every lane reads the
// same weight at the same step: one L1 broadcast.
struct BlurMath {
    using Acc = float;
    __device__ static float tap(const float *w, int k, float v) { return __fmul_rn(w[k], v); }
};
struct BoxMath {
    using Acc = uint32_t;
    __device__ static uint32_t tap(const float *, int, uint32_t v) { return v; }
};

template <typename Math>
__global__ void row_pass(const uint8_t *__restrict__ src, typename Math::Acc *__restrict__ tmp,
                         const float *__restrict__ weights, int w, int h, int radius,
                         gpuimg_border border)
{
    using Acc = typename Math::Acc;
    extern __shared__ __align__(16) unsigned char s_raw[];
    Acc *s_rows = reinterpret_cast<Acc *>(s_raw);
    int span = ROW_TILE_W + 2 * radius;
    int x0 = blockIdx.x * ROW_TILE_W, y = blockIdx.y * ROW_TILE_H + threadIdx.y;
    Acc *s = s_rows + threadIdx.y * span;
    if (y < h)
        for (int i = threadIdx.x; i < span; i += ROW_TILE_W) {
            int sx = border_index(x0 - radius + i, w, border);
            s[i] = sx < 0 ? Acc(0) : Acc(src[(size_t)y * w + sx]);
        }
    __syncthreads();
    int x = x0 + threadIdx.x;
    if (y >= h || x >= w)
        return;
    Acc acc = 0;
    for (int k = 0; k <= 2 * radius; k++)
        acc += Math::tap(weights, k, s[threadIdx.x + k]);
    tmp[(size_t)y * w + x] = acc;
}

// The final store: blur rounds its float; box divides its exact sum by the
// window area with round-half-up in integers.
__device__ __forceinline__ uint8_t finish(float acc, uint32_t)
{
    return store_u8(acc);
}
__device__ __forceinline__ uint8_t finish(uint32_t acc, uint32_t area)
{
    return (uint8_t)((2ull * acc + area) / (2ull * area));
}

template <typename Math>
__global__ void column_pass_shared(const typename Math::Acc *__restrict__ tmp,
                                   uint8_t *__restrict__ dst, const float *__restrict__ weights,
                                   int w, int h, int radius, gpuimg_border border, uint32_t area)
{
    using Acc = typename Math::Acc;
    extern __shared__ __align__(16) unsigned char s_raw[];
    Acc *s = reinterpret_cast<Acc *>(s_raw); // (COL_TILE_H + 2 radius) rows of COL_TILE_W
    int rows = COL_TILE_H + 2 * radius;
    int x = blockIdx.x * COL_TILE_W + threadIdx.x, y0 = blockIdx.y * COL_TILE_H;
    for (int r = threadIdx.y; r < rows; r += COL_THREADS_Y) {
        int sy = border_index(y0 - radius + r, h, border);
        s[r * COL_TILE_W + threadIdx.x] = (sy < 0 || x >= w) ? Acc(0) : tmp[(size_t)sy * w + x];
    }
    __syncthreads();
    if (x >= w)
        return;
    for (int o = threadIdx.y; o < COL_TILE_H; o += COL_THREADS_Y) {
        int y = y0 + o;
        if (y >= h)
            break;
        Acc acc = 0;
        for (int k = 0; k <= 2 * radius; k++) // lanes read consecutive words: no bank conflicts
            acc += Math::tap(weights, k, s[(o + k) * COL_TILE_W + threadIdx.x]);
        dst[(size_t)y * w + x] = finish(acc, area);
    }
}

template <typename Math>
__global__ void column_pass_global(const typename Math::Acc *__restrict__ tmp,
                                   uint8_t *__restrict__ dst, const float *__restrict__ weights,
                                   int w, int h, int radius, gpuimg_border border, uint32_t area)
{
    using Acc = typename Math::Acc;
    int x = blockIdx.x * COL_TILE_W + threadIdx.x;
    int y = blockIdx.y * COL_THREADS_Y + threadIdx.y;
    if (x >= w || y >= h)
        return;
    Acc acc = 0;
    for (int k = 0; k <= 2 * radius; k++) {
        int sy = border_index(y - radius + k, h, border);
        if (sy >= 0)
            acc += Math::tap(weights, k, tmp[(size_t)sy * w + x]);
    }
    dst[(size_t)y * w + x] = finish(acc, area);
}

template <typename Math>
static cudaError_t run_separable(const uint8_t *d_src, uint8_t *d_dst, void *d_tmp,
                                 const float *d_weights, int w, int h, int radius,
                                 gpuimg_border border, cudaStream_t stream)
{
    using Acc = typename Math::Acc;
    Acc *tmp = static_cast<Acc *>(d_tmp);
    size_t row_shared = (size_t)ROW_TILE_H * (ROW_TILE_W + 2 * radius) * sizeof(Acc);
    dim3 row_grid(ceil_div(w, ROW_TILE_W), ceil_div(h, ROW_TILE_H));
    row_pass<Math><<<row_grid, dim3(ROW_TILE_W, ROW_TILE_H), row_shared, stream>>>(
        d_src, tmp, d_weights, w, h, radius, border);
    cudaError_t err = cudaGetLastError();
    if (err != cudaSuccess)
        return err;
    uint32_t area = (uint32_t)(2 * radius + 1) * (uint32_t)(2 * radius + 1);
    if (radius <= COL_SHARED_RADIUS) {
        size_t col_shared = (size_t)(COL_TILE_H + 2 * radius) * COL_TILE_W * sizeof(Acc);
        dim3 grid(ceil_div(w, COL_TILE_W), ceil_div(h, COL_TILE_H));
        column_pass_shared<Math><<<grid, dim3(COL_TILE_W, COL_THREADS_Y), col_shared, stream>>>(
            tmp, d_dst, d_weights, w, h, radius, border, area);
    } else {
        dim3 grid(ceil_div(w, COL_TILE_W), ceil_div(h, COL_THREADS_Y));
        column_pass_global<Math><<<grid, dim3(COL_TILE_W, COL_THREADS_Y), 0, stream>>>(
            tmp, d_dst, d_weights, w, h, radius, border, area);
    }
    return cudaGetLastError();
}

extern "C" size_t gpuimg__cuda_separable_scratch(int w, int h)
{
    return (size_t)w * (size_t)h * 4; // float or uint32 per pixel
}

extern "C" cudaError_t gpuimg__cuda_blur(const uint8_t *d_src, uint8_t *d_dst, void *d_tmp,
                                         const float *d_weights, int w, int h, int radius,
                                         gpuimg_border border, cudaStream_t stream)
{
    if (w <= 0 || h <= 0)
        return cudaSuccess;
    return run_separable<BlurMath>(d_src, d_dst, d_tmp, d_weights, w, h, radius, border, stream);
}

extern "C" cudaError_t gpuimg__cuda_box(const uint8_t *d_src, uint8_t *d_dst, void *d_tmp, int w,
                                        int h, int radius, gpuimg_border border,
                                        cudaStream_t stream)
{
    if (w <= 0 || h <= 0)
        return cudaSuccess;
    return run_separable<BoxMath>(d_src, d_dst, d_tmp, nullptr, w, h, radius, border, stream);
}
