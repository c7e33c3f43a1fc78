// SPDX-License-Identifier: MIT
// Separable stencils: the Gaussian blur (float weights, float intermediate
// that is never rounded), the box mean (exact integer window sums) and
// convolution kernels that are outer products (convolve.cu sends them).
//
// Radii up to FUSED_MAX_RADIUS (every blur up to sigma 10, every box up to
// 32) run in one fused kernel: a block loads its 64 x 64 output tile's input
// with a halo of `radius` on every side into shared memory as floats, runs
// the row pass into a second shared tile (64 columns x 64 + 2 radius rows),
// then the column pass, so only the bytes in and the bytes out touch device
// memory (the two-pass form moved a 4-byte intermediate through it: five
// times the bytes). The weights travel as a kernel parameter: every lane
// uses the same weight at the same step. Radii 1..8 have their own unrolled
// kernels, whose FMAs take each weight straight from the constant bank;
// other radii loop, and the compiler feeds the weight to the FMAs from the
// uniform datapath (ULDC), with no load instruction per tap.
//
// Register blocking: a row-pass thread makes 4 neighbouring outputs from a
// sliding window of 8 floats (two 16-byte shared loads per 4 taps, 16 FMAs),
// a column-pass thread makes 8 outputs down 2 columns from one 8-byte load
// per input row (16 FMAs per load), so the FMA pipe, not shared memory, is
// the limit. The box sums integers below 2^24 in float, which is exact.
//
// Larger radii keep the two-pass form below: a row pass into a global
// intermediate, then a column pass that stages a COL_TILE_W x (COL_TILE_H +
// 2 radius) tile for radii up to COL_SHARED_RADIUS, or sums straight from
// global memory beyond (a warp still reads 32 consecutive values per tap,
// and L2 holds the rows that neighbours share). Those passes round each
// product on its own and sum in the CPU's order, as the CPU does; the fused
// kernel uses FMA (one rounding per tap), which SPEC §4 allows for float
// filters (at most 1 apart in at most 0.1% of values).
#include "device.cuh"
#include "kernels.h"

constexpr int MAX_RADIUS = 1000;
constexpr int FUSED_MAX_RADIUS = 32;
constexpr int ROW_TILE_W = 128;
constexpr int ROW_TILE_H = 4;
constexpr int COL_TILE_W = 32;
constexpr int COL_TILE_H = 32;
constexpr int COL_THREADS_Y = 8; // each thread produces COL_TILE_H / 8 outputs
constexpr int COL_SHARED_RADIUS = 64;
static_assert(ROW_TILE_H * (ROW_TILE_W + 2 * MAX_RADIUS) * 4 <= 48 * 1024, "row tile fits");
static_assert((COL_TILE_H + 2 * COL_SHARED_RADIUS) * COL_TILE_W * 4 <= 48 * 1024,
              "column tile fits");
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
    __device__ static float tap(const float *w, int k, float v)
    {
        return __fmul_rn(w[k], v);
    }
};
struct BoxMath {
    using Acc = uint32_t;
    __device__ static uint32_t tap(const float *, int, uint32_t v)
    {
        return v;
    }
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

// ---- the fused kernel ----

constexpr int FUSED_TILE = 64;   // outputs per block in each direction
constexpr int FUSED_ROWS_Y = 16; // row pass: 16 lanes x 4 outputs span a tile row
constexpr int FUSED_THREADS = 256;
constexpr int FUSED_COL_OUT = 8; // column pass: outputs per thread, down a column pair
constexpr int FUSED_MAX_TAPS = 2 * FUSED_MAX_RADIUS + 1;
static_assert(FUSED_TILE / 4 * FUSED_ROWS_Y == FUSED_THREADS, "row pass: a tile row per 16 lanes");
static_assert(32 * 2 == FUSED_TILE && FUSED_THREADS / 32 * FUSED_COL_OUT == FUSED_TILE,
              "column pass: 32 lanes x 2 columns, 8 warps x 8 rows cover the tile");
static_assert(FUSED_MAX_RADIUS == GPUIMG_CUDA_FUSED_RADIUS, "one limit, published in kernels.h");
static_assert(FUSED_MAX_TAPS * FUSED_MAX_TAPS * 255.0 < 16777216.0,
              "a box window's sum stays an exact integer in float");

// The row pass's taps and the column pass's (the same for blur and box; a
// rank-one convolution kernel is column (x) row).
struct Taps {
    float row[FUSED_MAX_TAPS];
    float col[FUSED_MAX_TAPS];
};

// The input tile's row length in floats: the tile's columns, both halos and
// load_tile_f32's margins (which also cover the row pass's last 16-byte
// read past the halo); a multiple of 4 so every window is 16-byte aligned.
__host__ __device__ constexpr int fused_in_pitch(int radius)
{
    return tile_pitch(FUSED_TILE + 2 * radius);
}

__host__ __device__ constexpr size_t fused_shared_bytes(int radius)
{
    return ((size_t)LOAD_MARGIN +
            (size_t)(FUSED_TILE + 2 * radius) * (fused_in_pitch(radius) + FUSED_TILE)) *
           4;
}

// The final store: blur rounds its float; box divides its exact sum by the
// window area with round-half-up in integers.
struct BlurFinish {
    __device__ uint8_t operator()(float acc) const
    {
        return store_u8(acc);
    }
};
// Box: (2 sum + area) / (2 area) in integers, the CPU's exact rounding. A
// 64-bit division is a long subroutine per output; here n < 2^24 (so float
// holds it exactly), the quotient estimated through the reciprocal is off by
// at most one, and one remainder test corrects it.
struct BoxFinish {
    uint32_t area2; // 2 area
    float inv;      // 1 / (2 area)
    __device__ uint8_t operator()(float acc) const
    {
        uint32_t n = 2u * (uint32_t)acc + area2 / 2;
        uint32_t q = (uint32_t)((float)n * inv);
        int r = (int)n - (int)(q * area2);
        q += (r >= (int)area2) - (r < 0);
        return (uint8_t)q;
    }
};

// A rank-one convolution kernel: the CPU's scale, bias and |v|.
struct ConvFinish {
    float scale, bias;
    int absolute;
    __device__ uint8_t operator()(float acc) const
    {
        float v = __fadd_rn(__fmul_rn(acc, scale), bias);
        return store_u8(absolute ? fabsf(v) : v);
    }
};

// One row-pass step of 4 taps starting at tap k for 4 outputs: v holds the
// 8 inputs from the first output's tap k on. `count` < 4 only at the end.
__device__ __forceinline__ void row_taps(float acc[4], const float v[8], const Taps &t, int k,
                                         int count)
{
#pragma unroll
    for (int kk = 0; kk < 4; kk++) {
        if (kk < count) {
            float wt = t.row[k + kk];
#pragma unroll
            for (int j = 0; j < 4; j++)
                acc[j] = fmaf(wt, v[j + kk], acc[j]);
        }
    }
}

// The fused kernel, for a radius known at compile time (R > 0: loops
// unroll completely, each weight is an FMA operand read from the constant
// bank, no zero taps) or given at run time (R == 0).
template <typename Finish, int R>
__global__ void __launch_bounds__(FUSED_THREADS, 4)
    fused_kernel(const uint8_t *__restrict__ src, uint8_t *__restrict__ dst, int w, int h,
                 int radius_arg, gpuimg_border border, const Taps taps_w, Finish finish)
{
    extern __shared__ __align__(16) float s_fused[];
    const int radius = R > 0 ? R : radius_arg;
    const int taps = 2 * radius + 1, rows = FUSED_TILE + 2 * radius;
    const int in_pitch = fused_in_pitch(radius);
    float *s_in = s_fused + LOAD_MARGIN;   // rows x in_pitch: the input with its halo
    float *s_mid = s_in + rows * in_pitch; // rows x FUSED_TILE: the row pass
    const int x0 = blockIdx.x * FUSED_TILE, y0 = blockIdx.y * FUSED_TILE;
    const int tid = threadIdx.x;
    constexpr int IN = R > 0 ? FUSED_TILE + 2 * R : 0; // the tile's side, when known
    load_tile_f32<FUSED_THREADS, IN, IN>(src, w, h, border, x0 - radius, y0 - radius, rows,
                                         FUSED_TILE + 2 * radius, s_in, in_pitch);
    __syncthreads();

    // Row pass: lane group (16 lanes) per tile row, 4 outputs per lane; a
    // quarter-warp's 16-byte reads cover 128 consecutive bytes (no conflicts).
    {
        const int c = tid % (FUSED_TILE / 4);
        for (int r = tid / (FUSED_TILE / 4); r < rows; r += FUSED_ROWS_Y) {
            const float4 *in = reinterpret_cast<const float4 *>(s_in + r * in_pitch) + c;
            float acc[4] = {0.0f, 0.0f, 0.0f, 0.0f};
            float4 a = in[0];
#pragma unroll
            for (int k = 0; k < taps; k += 4) {
                float4 b = in[k / 4 + 1];
                const float v[8] = {a.x, a.y, a.z, a.w, b.x, b.y, b.z, b.w};
                row_taps(acc, v, taps_w, k, min(4, taps - k));
                a = b;
            }
            reinterpret_cast<float4 *>(s_mid + r * FUSED_TILE)[c] =
                make_float4(acc[0], acc[1], acc[2], acc[3]);
        }
    }
    __syncthreads();

    // Column pass: lane L owns columns 2L, 2L + 1 (8-byte reads, a warp's
    // 256 bytes consecutive: no conflicts); warp wid owns 8 output rows. Each
    // input row read feeds all 8 outputs.
    const int lane = tid & 31, o0 = (tid / 32) * FUSED_COL_OUT;
    float2 acc[FUSED_COL_OUT];
#pragma unroll
    for (int i = 0; i < FUSED_COL_OUT; i++)
        acc[i] = make_float2(0.0f, 0.0f);
    const float2 *col = reinterpret_cast<const float2 *>(s_mid + o0 * FUSED_TILE) + lane;
    if (R > 0) {
        // Input row q reaches output i through tap q - i, when that is a tap.
#pragma unroll
        for (int q = 0; q < 2 * R + FUSED_COL_OUT; q++) {
            float2 m = col[q * (FUSED_TILE / 2)];
#pragma unroll
            for (int i = 0; i < FUSED_COL_OUT; i++) {
                if (q - i >= 0 && q - i <= 2 * R) {
                    acc[i].x = fmaf(taps_w.col[q - i], m.x, acc[i].x);
                    acc[i].y = fmaf(taps_w.col[q - i], m.y, acc[i].y);
                }
            }
        }
    } else {
        // The same with a run-time radius: weight i of the register window is
        // w[q - i] (zero before the first tap and past the last), so the
        // unrolled body needs no tests; the zero taps cost FMAs instead.
        float wr[FUSED_COL_OUT];
#pragma unroll
        for (int i = 0; i < FUSED_COL_OUT; i++)
            wr[i] = 0.0f;
#pragma unroll 8
        for (int q = 0; q < taps + FUSED_COL_OUT - 1; q++) {
            float2 m = col[q * (FUSED_TILE / 2)];
#pragma unroll
            for (int i = FUSED_COL_OUT - 1; i > 0; i--)
                wr[i] = wr[i - 1];
            wr[0] = q < taps ? taps_w.col[q] : 0.0f;
#pragma unroll
            for (int i = 0; i < FUSED_COL_OUT; i++) {
                acc[i].x = fmaf(wr[i], m.x, acc[i].x);
                acc[i].y = fmaf(wr[i], m.y, acc[i].y);
            }
        }
    }
    const int x = x0 + 2 * lane;
    if (whole_tile(x0, y0, FUSED_TILE, w, h, 2)) {
        // A whole tile, rows 2-byte aligned: no tests per store.
        uint8_t *out = dst + (size_t)(y0 + o0) * w + x;
#pragma unroll
        for (int i = 0; i < FUSED_COL_OUT; i++, out += w)
            *reinterpret_cast<uint16_t *>(out) =
                (uint16_t)(finish(acc[i].x) | finish(acc[i].y) << 8);
        return;
    }
    if (x >= w)
        return;
#pragma unroll
    for (int i = 0; i < FUSED_COL_OUT; i++) {
        int y = y0 + o0 + i;
        if (y >= h)
            break;
        uint8_t *out = dst + (size_t)y * w + x;
        uint8_t lo = finish(acc[i].x), hi = finish(acc[i].y);
        if (x + 1 < w && ((size_t)out & 1) == 0)
            *reinterpret_cast<uint16_t *>(out) = (uint16_t)(lo | hi << 8);
        else {
            out[0] = lo;
            if (x + 1 < w)
                out[1] = hi;
        }
    }
}

template <typename Finish, int R>
static cudaError_t launch_fused(const uint8_t *d_src, uint8_t *d_dst, const Taps &t, int w, int h,
                                int radius, gpuimg_border border, Finish finish,
                                cudaStream_t stream)
{
    size_t shared = fused_shared_bytes(radius);
    // Above 48 KB a kernel must opt in. The attribute belongs to the
    // function in the current device's context, so it is set at each launch
    // (batch drives several devices) rather than once per process.
    if (shared > 48 * 1024) {
        cudaError_t err = cudaFuncSetAttribute(
            fused_kernel<Finish, R>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)shared);
        if (err != cudaSuccess)
            return err;
    }
    dim3 grid(ceil_div(w, FUSED_TILE), ceil_div(h, FUSED_TILE));
    fused_kernel<Finish, R>
        <<<grid, FUSED_THREADS, shared, stream>>>(d_src, d_dst, w, h, radius, border, t, finish);
    return cudaGetLastError();
}

// Radii 1..8 (every blur up to sigma 2.67, the usual box sizes) get their
// own unrolled kernel; the rest share the run-time one.
template <typename Finish>
static cudaError_t run_fused(const uint8_t *d_src, uint8_t *d_dst, const Taps &t, int w, int h,
                             int radius, gpuimg_border border, Finish finish, cudaStream_t stream)
{
    switch (radius) {
#define GPUIMG_FUSED_CASE(R)                                                                       \
    case R: return launch_fused<Finish, R>(d_src, d_dst, t, w, h, radius, border, finish, stream);
        GPUIMG_FUSED_CASE(1)
        GPUIMG_FUSED_CASE(2)
        GPUIMG_FUSED_CASE(3)
        GPUIMG_FUSED_CASE(4)
        GPUIMG_FUSED_CASE(5)
        GPUIMG_FUSED_CASE(6)
        GPUIMG_FUSED_CASE(7)
        GPUIMG_FUSED_CASE(8)
#undef GPUIMG_FUSED_CASE
    default: return launch_fused<Finish, 0>(d_src, d_dst, t, w, h, radius, border, finish, stream);
    }
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

extern "C" size_t gpuimg__cuda_separable_scratch(int w, int h, int radius)
{
    if (radius <= FUSED_MAX_RADIUS)
        return 0;                     // the fused kernel keeps its intermediate on chip
    return (size_t)w * (size_t)h * 4; // float or uint32 per pixel
}

extern "C" cudaError_t gpuimg__cuda_blur(const uint8_t *d_src, uint8_t *d_dst, void *d_tmp,
                                         const float *weights, const float *d_weights, int w, int h,
                                         int radius, gpuimg_border border, cudaStream_t stream)
{
    if (w <= 0 || h <= 0)
        return cudaSuccess;
    if (radius <= FUSED_MAX_RADIUS) {
        Taps t;
        for (int k = 0; k <= 2 * radius; k++)
            t.row[k] = t.col[k] = weights[k];
        return run_fused(d_src, d_dst, t, w, h, radius, border, BlurFinish{}, stream);
    }
    return run_separable<BlurMath>(d_src, d_dst, d_tmp, d_weights, w, h, radius, border, stream);
}

extern "C" cudaError_t gpuimg__cuda_box(const uint8_t *d_src, uint8_t *d_dst, void *d_tmp, int w,
                                        int h, int radius, gpuimg_border border,
                                        cudaStream_t stream)
{
    if (w <= 0 || h <= 0)
        return cudaSuccess;
    if (radius <= FUSED_MAX_RADIUS) {
        Taps t;
        for (int k = 0; k <= 2 * radius; k++)
            t.row[k] = t.col[k] = 1.0f;
        uint32_t area = (uint32_t)(2 * radius + 1) * (uint32_t)(2 * radius + 1);
        BoxFinish finish{2 * area, 1.0f / (float)(2 * area)};
        return run_fused(d_src, d_dst, t, w, h, radius, border, finish, stream);
    }
    return run_separable<BoxMath>(d_src, d_dst, d_tmp, nullptr, w, h, radius, border, stream);
}

extern "C" cudaError_t gpuimg__cuda_convolve_rank1(gpuimg_dplanes d_src, gpuimg_dplanes d_dst,
                                                   int channels, int w, int h, const float *col,
                                                   const float *row, int radius,
                                                   const gpuimg_conv *k, gpuimg_border border,
                                                   cudaStream_t stream)
{
    if (w <= 0 || h <= 0)
        return cudaSuccess;
    Taps t;
    for (int i = 0; i <= 2 * radius; i++) {
        t.row[i] = row[i];
        t.col[i] = col[i];
    }
    ConvFinish finish{k->scale, k->bias, k->absolute};
    for (int c = 0; c < channels; c++) {
        cudaError_t err =
            run_fused(d_src.p[c], d_dst.p[c], t, w, h, radius, border, finish, stream);
        if (err != cudaSuccess)
            return err;
    }
    return cudaSuccess;
}
