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
// the limit.
//
// Depth: every kernel is a template on the value type T (uint8_t or
// uint16_t, and float for blur on --alpha premultiplied's float planes,
// stored unrounded); only the tile load (load_tile_f32) and the stores see
// T, the float work between them is the same. The box must be exact at both
// depths: its row pass sums at most 65 values of at most 65535 (< 2^23) in
// float, which is exact, and the column pass adds those integers as uint32
// (65 x 65 x 65535 < 2^32), where float (24 bits) would round at 16 bits.
//
// Larger radii keep the two-pass form below: a row pass into a global
// intermediate, then a column pass that stages a COL_TILE_W x (COL_TILE_H +
// 2 radius) tile for radii up to COL_SHARED_RADIUS, or sums straight from
// global memory beyond (a warp still reads 32 consecutive values per tap,
// and L2 holds the rows that neighbours share). Those passes round each
// product on its own and sum in the CPU's order, as the CPU does; the fused
// kernel uses FMA (one rounding per tap) at 8 bits, which SPEC §4 allows for
// float filters (at most 1 apart in at most 0.1% of values), and at 16 bits
// and on float planes the CPU's two roundings per tap in the CPU's order
// (device.cuh's mad): there it gives the CPU's bits.
#include <type_traits>

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

// Blur accumulates weighted floats; box accumulates exact integer sums: a
// row of 2001 values of 65535 is 1.3e8 < 2^32 (the uint32 intermediate),
// but a whole window of 2001 x 2001 such values is 2.6e11, so the column
// pass sums in 64 bits (ColAcc). The blur's product is rounded on its own
// (__fmul_rn cannot be fused into an FMA) and the taps are summed in the
// CPU's order, so both backends give the same bits.
//
// The weights are in global memory, one buffer per backend instance (each
// with its own stream), not in __constant__ memory, which is one per process
// and would be overwritten by another thread's blur. Every lane reads the
// same weight at the same step: one L1 broadcast.
struct BlurMath {
    using Acc = float;    // the row pass's intermediate
    using ColAcc = float; // the column pass's sum
    __device__ static float tap(const float *w, int k, float v)
    {
        return __fmul_rn(w[k], v);
    }
};
struct BoxMath {
    using Acc = uint32_t;
    using ColAcc = uint64_t;
    __device__ static uint32_t tap(const float *, int, uint32_t v)
    {
        return v;
    }
};
static_assert(2001.0 * 65535 < 4294967296.0, "a box row sum fits the uint32 intermediate");

template <typename Math, typename T>
__global__ void row_pass(const uint8_t *__restrict__ src_bytes,
                         typename Math::Acc *__restrict__ tmp, const float *__restrict__ weights,
                         int w, int h, int radius, gpuimg_border border)
{
    using Acc = typename Math::Acc;
    const T *__restrict__ src = reinterpret_cast<const T *>(src_bytes);
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
// window area with round-half-up in integers (2 sum + area < 2^40).
template <typename T> __device__ __forceinline__ T finish(float acc, uint32_t)
{
    return store_value<T>(acc);
}
template <typename T> __device__ __forceinline__ T finish(uint64_t acc, uint32_t area)
{
    return (T)((2ull * acc + area) / (2ull * area));
}

template <typename Math, typename T>
__global__ void column_pass_shared(const typename Math::Acc *__restrict__ tmp,
                                   uint8_t *__restrict__ dst_bytes,
                                   const float *__restrict__ weights, int w, int h, int radius,
                                   gpuimg_border border, uint32_t area)
{
    using Acc = typename Math::Acc;
    using ColAcc = typename Math::ColAcc;
    T *__restrict__ dst = reinterpret_cast<T *>(dst_bytes);
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
        ColAcc acc = 0;
        for (int k = 0; k <= 2 * radius; k++) // lanes read consecutive words: no bank conflicts
            acc += Math::tap(weights, k, s[(o + k) * COL_TILE_W + threadIdx.x]);
        dst[(size_t)y * w + x] = finish<T>(acc, area);
    }
}

template <typename Math, typename T>
__global__ void column_pass_global(const typename Math::Acc *__restrict__ tmp,
                                   uint8_t *__restrict__ dst_bytes,
                                   const float *__restrict__ weights, int w, int h, int radius,
                                   gpuimg_border border, uint32_t area)
{
    using ColAcc = typename Math::ColAcc;
    T *__restrict__ dst = reinterpret_cast<T *>(dst_bytes);
    int x = blockIdx.x * COL_TILE_W + threadIdx.x;
    int y = blockIdx.y * COL_THREADS_Y + threadIdx.y;
    if (x >= w || y >= h)
        return;
    ColAcc acc = 0;
    for (int k = 0; k <= 2 * radius; k++) {
        int sy = border_index(y - radius + k, h, border);
        if (sy >= 0)
            acc += Math::tap(weights, k, tmp[(size_t)sy * w + x]);
    }
    dst[(size_t)y * w + x] = finish<T>(acc, area);
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
static_assert(FUSED_MAX_TAPS * 65535.0 < 8388608.0,
              "a box row sum stays an exact integer below 2^23 in float, at either depth");
static_assert(FUSED_MAX_TAPS * FUSED_MAX_TAPS * 65535.0 * 2 + FUSED_MAX_TAPS * FUSED_MAX_TAPS <
                  1073741824.0,
              "2 sum + area of a box window fits BoxFinish's int arithmetic (< 2^30)");

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

// The final store. Each Finish says whether the column pass sums floats
// (weights, FMA) or exact integers (integer = true: the box, whose row
// sums the row pass leaves in the middle tile as uint32 bit patterns).
// blur rounds its float.
template <typename T> struct BlurFinish {
    static constexpr bool integer = false;
    __device__ T operator()(float acc) const
    {
        return store_value<T>(acc);
    }
};
// Box: (2 sum + area) / (2 area) in integers, the CPU's exact rounding. A
// 64-bit division is a long subroutine per output; here n = 2 sum + area <
// 2^30 (static_assert above), the quotient q <= 65535 estimated through the
// float reciprocal is within 1/64 of n / (2 area) (two roundings of 2^-24
// each, on a quotient below 2^16), so its floor is off by at most one, and
// one remainder test corrects it (r fits int: |r| < 2^30 + 2 area).
template <typename T> struct BoxFinish {
    static constexpr bool integer = true;
    uint32_t area2; // 2 area
    float inv;      // 1 / (2 area)
    __device__ T operator()(uint32_t sum) const
    {
        uint32_t n = 2u * sum + area2 / 2;
        uint32_t q = (uint32_t)((float)n * inv);
        int r = (int)n - (int)(q * area2);
        q += (r >= (int)area2) - (r < 0);
        return (T)q;
    }
};

// A rank-one convolution kernel: the CPU's scale, bias and |v|.
template <typename T> struct ConvFinish {
    static constexpr bool integer = false;
    float scale, bias;
    int absolute;
    __device__ T operator()(float acc) const
    {
        float v = __fadd_rn(__fmul_rn(acc, scale), bias);
        return store_value<T>(absolute ? fabsf(v) : v);
    }
};

// An exact integer-valued float 0 <= v < 2^23 as its uint32: v + 2^23 lies
// in [2^23, 2^24), where floats are the integers, so its bit pattern is
// 0x4B000000 + v. One FADD and one integer subtraction (no F2I).
__device__ __forceinline__ uint32_t exact_f32_to_u32(float v)
{
    return __float_as_uint(v + 8388608.0f) - 0x4B000000u;
}

// Two neighbouring values as one store at out (2 sizeof(T)-byte aligned).
__device__ __forceinline__ void store_pair(uint8_t *out, uint8_t lo, uint8_t hi)
{
    *reinterpret_cast<uint16_t *>(out) = (uint16_t)(lo | hi << 8);
}
__device__ __forceinline__ void store_pair(uint16_t *out, uint16_t lo, uint16_t hi)
{
    *reinterpret_cast<uint32_t *>(out) = (uint32_t)lo | (uint32_t)hi << 16;
}
__device__ __forceinline__ void store_pair(float *out, float lo, float hi)
{
    *reinterpret_cast<float2 *>(out) = make_float2(lo, hi);
}

// One row-pass step of 4 taps starting at tap k for 4 outputs: v holds the
// 8 inputs from the first output's tap k on. `count` < 4 only at the end.
// Each output takes its taps in order, from the first (the CPU's order).
template <bool EXACT>
__device__ __forceinline__ void row_taps(float acc[4], const float v[8], const Taps &t, int k,
                                         int count)
{
#pragma unroll
    for (int kk = 0; kk < 4; kk++) {
        if (kk < count) {
            float wt = t.row[k + kk];
#pragma unroll
            for (int j = 0; j < 4; j++)
                acc[j] = mad<EXACT>(wt, v[j + kk], acc[j]);
        }
    }
}

// The column pass's accumulators for a column pair: float2 summed with the
// weights (mad: FMA, or EXACT the CPU's roundings), or (integer Finish, the
// box, weights all 1) uint2 sums of the row pass's exact integers.
template <bool INTEGER, bool EXACT> struct ColumnSums;
template <bool EXACT> struct ColumnSums<false, EXACT> {
    float2 acc[FUSED_COL_OUT];
    __device__ void clear()
    {
#pragma unroll
        for (int i = 0; i < FUSED_COL_OUT; i++)
            acc[i] = make_float2(0.0f, 0.0f);
    }
    // A tap of the unrolled loop, and a register-window slot of the
    // run-time loop (weight 0 outside the taps: adds an exact 0).
    __device__ void tap(int i, float weight, float2 m)
    {
        acc[i].x = mad<EXACT>(weight, m.x, acc[i].x);
        acc[i].y = mad<EXACT>(weight, m.y, acc[i].y);
    }
    __device__ void slot(int i, float weight, float2 m)
    {
        tap(i, weight, m);
    }
};
template <bool EXACT> struct ColumnSums<true, EXACT> {
    uint2 acc[FUSED_COL_OUT];
    __device__ void clear()
    {
#pragma unroll
        for (int i = 0; i < FUSED_COL_OUT; i++)
            acc[i] = make_uint2(0u, 0u);
    }
    // The box's taps all weigh 1: a tap is an add.
    __device__ void tap(int i, float, float2 m)
    {
        acc[i].x += __float_as_uint(m.x);
        acc[i].y += __float_as_uint(m.y);
    }
    // The run-time loop's window slot weighs 1 inside the taps and 0
    // outside: a select, not a multiply, keeps the sum exact.
    __device__ void slot(int i, float weight, float2 m)
    {
        if (weight != 0.0f)
            tap(i, weight, m);
    }
};

// The fused kernel, for a radius known at compile time (R > 0: loops
// unroll completely, each weight is an FMA operand read from the constant
// bank, no zero taps) or given at run time (R == 0).
template <typename T, typename Finish, int R>
__global__ void __launch_bounds__(FUSED_THREADS, 4)
    fused_kernel(const uint8_t *__restrict__ src, uint8_t *__restrict__ dst_bytes, int w, int h,
                 int radius_arg, gpuimg_border border, const Taps taps_w, Finish finish)
{
    extern __shared__ __align__(16) float s_fused[];
    constexpr bool EXACT = exact_filter<T>(); // the CPU's roundings (device.cuh's mad)
    const int radius = R > 0 ? R : radius_arg;
    const int taps = 2 * radius + 1, rows = FUSED_TILE + 2 * radius;
    const int in_pitch = fused_in_pitch(radius);
    float *s_in = s_fused + LOAD_MARGIN;   // rows x in_pitch: the input with its halo
    float *s_mid = s_in + rows * in_pitch; // rows x FUSED_TILE: the row pass
    const int x0 = blockIdx.x * FUSED_TILE, y0 = blockIdx.y * FUSED_TILE;
    const int tid = threadIdx.x;
    constexpr int IN = R > 0 ? FUSED_TILE + 2 * R : 0; // the tile's side, when known
    load_tile_f32<FUSED_THREADS, T, IN, IN>(src, w, h, border, x0 - radius, y0 - radius, rows,
                                            FUSED_TILE + 2 * radius, s_in, in_pitch);
    __syncthreads();

    // Row pass: lane group (16 lanes) per tile row, 4 outputs per lane; a
    // quarter-warp's 16-byte reads cover 128 consecutive bytes (no conflicts).
    // An integer Finish (the box) gets the sums, exact integers below 2^23,
    // as uint32 bit patterns for the column pass's integer adds.
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
                row_taps<EXACT>(acc, v, taps_w, k, min(4, taps - k));
                a = b;
            }
            if (Finish::integer)
#pragma unroll
                for (int j = 0; j < 4; j++)
                    acc[j] = __uint_as_float(exact_f32_to_u32(acc[j]));
            reinterpret_cast<float4 *>(s_mid + r * FUSED_TILE)[c] =
                make_float4(acc[0], acc[1], acc[2], acc[3]);
        }
    }
    __syncthreads();

    // Column pass: lane L owns columns 2L, 2L + 1 (8-byte reads, a warp's
    // 256 bytes consecutive: no conflicts); warp wid owns 8 output rows. Each
    // input row read feeds all 8 outputs.
    const int lane = tid & 31, o0 = (tid / 32) * FUSED_COL_OUT;
    ColumnSums<Finish::integer, EXACT> sums;
    sums.clear();
    const float2 *col = reinterpret_cast<const float2 *>(s_mid + o0 * FUSED_TILE) + lane;
    if (R > 0) {
        // Input row q reaches output i through tap q - i, when that is a tap:
        // each output takes its taps in order, from the first.
#pragma unroll
        for (int q = 0; q < 2 * R + FUSED_COL_OUT; q++) {
            float2 m = col[q * (FUSED_TILE / 2)];
#pragma unroll
            for (int i = 0; i < FUSED_COL_OUT; i++)
                if (q - i >= 0 && q - i <= 2 * R)
                    sums.tap(i, taps_w.col[q - i], m);
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
            for (int i = 0; i < FUSED_COL_OUT; i++)
                sums.slot(i, wr[i], m);
        }
    }
    // Stores: a lane's two neighbouring outputs as one 2-value store (2, 4
    // or 8 bytes: store_pair), which needs the pair's first value at an even
    // index: x is even, so an even w makes every row's pair aligned (the
    // planes are 256-byte aligned).
    T *__restrict__ dst = reinterpret_cast<T *>(dst_bytes);
    const int x = x0 + 2 * lane;
    if (whole_tile(x0, y0, FUSED_TILE, w, h, 2)) {
        // A whole tile, rows starting at even values: no tests per store.
        T *out = dst + (size_t)(y0 + o0) * w + x;
#pragma unroll
        for (int i = 0; i < FUSED_COL_OUT; i++, out += w)
            store_pair(out, finish(sums.acc[i].x), finish(sums.acc[i].y));
        return;
    }
    if (x >= w)
        return;
#pragma unroll
    for (int i = 0; i < FUSED_COL_OUT; i++) {
        int y = y0 + o0 + i;
        if (y >= h)
            break;
        T *out = dst + (size_t)y * w + x;
        T lo = finish(sums.acc[i].x), hi = finish(sums.acc[i].y);
        if (x + 1 < w && ((size_t)out % (2 * sizeof(T))) == 0)
            store_pair(out, lo, hi);
        else {
            out[0] = lo;
            if (x + 1 < w)
                out[1] = hi;
        }
    }
}

template <typename T, typename Finish, int R>
static cudaError_t launch_fused(const uint8_t *d_src, uint8_t *d_dst, const Taps &t, int w, int h,
                                int radius, gpuimg_border border, Finish finish,
                                cudaStream_t stream)
{
    size_t shared = fused_shared_bytes(radius);
    cudaError_t err = smem_opt_in(fused_kernel<T, Finish, R>, shared);
    if (err != cudaSuccess)
        return err;
    dim3 grid(ceil_div(w, FUSED_TILE), ceil_div(h, FUSED_TILE));
    fused_kernel<T, Finish, R>
        <<<grid, FUSED_THREADS, shared, stream>>>(d_src, d_dst, w, h, radius, border, t, finish);
    return cudaGetLastError();
}

// Radii 1..8 (every blur up to sigma 2.67, the usual box sizes) get their
// own unrolled kernel; the rest share the run-time one.
template <typename T, typename Finish>
static cudaError_t run_fused(const uint8_t *d_src, uint8_t *d_dst, const Taps &t, int w, int h,
                             int radius, gpuimg_border border, Finish finish, cudaStream_t stream)
{
    switch (radius) {
#define GPUIMG_FUSED_CASE(R)                                                                       \
    case R:                                                                                        \
        return launch_fused<T, Finish, R>(d_src, d_dst, t, w, h, radius, border, finish, stream);
        GPUIMG_FUSED_CASE(1)
        GPUIMG_FUSED_CASE(2)
        GPUIMG_FUSED_CASE(3)
        GPUIMG_FUSED_CASE(4)
        GPUIMG_FUSED_CASE(5)
        GPUIMG_FUSED_CASE(6)
        GPUIMG_FUSED_CASE(7)
        GPUIMG_FUSED_CASE(8)
#undef GPUIMG_FUSED_CASE
    default:
        return launch_fused<T, Finish, 0>(d_src, d_dst, t, w, h, radius, border, finish, stream);
    }
}

template <typename Math, typename T>
static cudaError_t run_separable(const uint8_t *d_src, uint8_t *d_dst, void *d_tmp,
                                 const float *d_weights, int w, int h, int radius,
                                 gpuimg_border border, cudaStream_t stream)
{
    using Acc = typename Math::Acc;
    Acc *tmp = static_cast<Acc *>(d_tmp);
    size_t row_shared = (size_t)ROW_TILE_H * (ROW_TILE_W + 2 * radius) * sizeof(Acc);
    dim3 row_grid(ceil_div(w, ROW_TILE_W), ceil_div(h, ROW_TILE_H));
    row_pass<Math, T><<<row_grid, dim3(ROW_TILE_W, ROW_TILE_H), row_shared, stream>>>(
        d_src, tmp, d_weights, w, h, radius, border);
    cudaError_t err = cudaGetLastError();
    if (err != cudaSuccess)
        return err;
    uint32_t area = (uint32_t)(2 * radius + 1) * (uint32_t)(2 * radius + 1);
    if (radius <= COL_SHARED_RADIUS) {
        size_t col_shared = (size_t)(COL_TILE_H + 2 * radius) * COL_TILE_W * sizeof(Acc);
        dim3 grid(ceil_div(w, COL_TILE_W), ceil_div(h, COL_TILE_H));
        column_pass_shared<Math, T><<<grid, dim3(COL_TILE_W, COL_THREADS_Y), col_shared, stream>>>(
            tmp, d_dst, d_weights, w, h, radius, border, area);
    } else {
        dim3 grid(ceil_div(w, COL_TILE_W), ceil_div(h, COL_THREADS_Y));
        column_pass_global<Math, T><<<grid, dim3(COL_TILE_W, COL_THREADS_Y), 0, stream>>>(
            tmp, d_dst, d_weights, w, h, radius, border, area);
    }
    return cudaGetLastError();
}

extern "C" size_t gpuimg__cuda_separable_scratch(int w, int h, int radius)
{
    if (radius <= FUSED_MAX_RADIUS)
        return 0; // the fused kernel keeps its intermediate on chip
    // float or uint32 per pixel, at either depth (a box row sum < 2^32)
    return (size_t)w * (size_t)h * 4;
}

extern "C" cudaError_t gpuimg__cuda_blur(const uint8_t *d_src, uint8_t *d_dst, void *d_tmp,
                                         const float *weights, const float *d_weights, int w, int h,
                                         int radius, gpuimg_border border, int depth,
                                         cudaStream_t stream)
{
    if (w <= 0 || h <= 0)
        return cudaSuccess;
    return by_filter_depth(depth, [&](auto v) {
        using T = decltype(v);
        if (radius <= FUSED_MAX_RADIUS) {
            Taps t;
            for (int k = 0; k <= 2 * radius; k++)
                t.row[k] = t.col[k] = weights[k];
            return run_fused<T>(d_src, d_dst, t, w, h, radius, border, BlurFinish<T>{}, stream);
        }
        return run_separable<BlurMath, T>(d_src, d_dst, d_tmp, d_weights, w, h, radius, border,
                                          stream);
    });
}

extern "C" cudaError_t gpuimg__cuda_box(const uint8_t *d_src, uint8_t *d_dst, void *d_tmp, int w,
                                        int h, int radius, gpuimg_border border, int depth,
                                        cudaStream_t stream)
{
    if (w <= 0 || h <= 0)
        return cudaSuccess;
    return by_depth(depth, [&](auto v) {
        using T = decltype(v);
        if (radius <= FUSED_MAX_RADIUS) {
            Taps t;
            for (int k = 0; k <= 2 * radius; k++)
                t.row[k] = t.col[k] = 1.0f;
            uint32_t area = (uint32_t)(2 * radius + 1) * (uint32_t)(2 * radius + 1);
            BoxFinish<T> finish{2 * area, 1.0f / (float)(2 * area)};
            return run_fused<T>(d_src, d_dst, t, w, h, radius, border, finish, stream);
        }
        return run_separable<BoxMath, T>(d_src, d_dst, d_tmp, nullptr, w, h, radius, border,
                                         stream);
    });
}

extern "C" cudaError_t gpuimg__cuda_convolve_rank1(gpuimg_dplanes d_src, gpuimg_dplanes d_dst,
                                                   int channels, int w, int h, const float *col,
                                                   const float *row, int radius,
                                                   const gpuimg_conv *k, gpuimg_border border,
                                                   int depth, cudaStream_t stream)
{
    if (w <= 0 || h <= 0)
        return cudaSuccess;
    Taps t;
    for (int i = 0; i <= 2 * radius; i++) {
        t.row[i] = row[i];
        t.col[i] = col[i];
    }
    return by_filter_depth(depth, [&](auto v) {
        using T = decltype(v);
        ConvFinish<T> finish{k->scale, k->bias, k->absolute};
        for (int c = 0; c < channels; c++) {
            cudaError_t err =
                run_fused<T>(d_src.p[c], d_dst.p[c], t, w, h, radius, border, finish, stream);
            if (err != cudaSuccess)
                return err;
        }
        return cudaSuccess;
    });
}
