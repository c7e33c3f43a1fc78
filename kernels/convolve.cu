// SPDX-License-Identifier: MIT
// 2-D convolution (the kernel applied as written, like filter2D) and the
// Sobel gradient magnitude.
//
// A block of 256 threads makes a 64 x 64 tile of outputs from a shared tile
// of its inputs with the kernel's half-sides as halo (borders mapped while
// loading; for 63 x 63 that is 126 rows of 136 floats, 68 KB). Each thread
// makes a 4-wide, 4-tall block of outputs: it walks the input rows its
// outputs need, and each row's sliding window of 8 floats (two 16-byte
// shared loads per 4 taps) feeds up to 16 FMAs per tap group for every
// output row that the input row reaches. That is one shared load per 16 to
// 64 FMAs, so the FMA pipe is the limit, not shared memory; a quarter-warp's
// 16-byte loads cover 128 consecutive bytes (no bank conflicts).
//
// The weights travel by value as a kernel parameter (up to 16 KB; kernel
// parameters may hold 32 KB since CUDA 12.1 on sm_70 and later; a
// per-process __constant__ array would be shared by batch's threads). The
// 3 x 3, 5 x 5 and 7 x 7 kernels have their own unrolled code, in which
// each weight is an FMA operand read straight from the parameter (constant
// bank). Any other size copies them to shared memory with each kernel row
// padded to a multiple of 4, so one broadcast 16-byte load serves 4 taps
// (16 FMAs); indexed from the parameter at run time, each tap would be a
// constant-cache load of its own (LDC: the compiler does not keep such an
// index uniform). Square kernels that are outer products never get here: they
// run as two 1-D passes (rank_one, below).
//
// Products are fused into the sum (FMA, one rounding per tap), summed in the
// CPU's order (kernel rows, then columns); SPEC §4 allows float filters to
// differ from the CPU by at most 1 in at most 0.1% of values. At 16 bits and
// on float planes each product and each sum is rounded on its own instead,
// as the CPU does (device.cuh's mad), so that in the CPU's order the result
// is the CPU's to the bit, at one more instruction per tap.
//
// Depth: the kernels are templates on the value type T (uint8_t or
// uint16_t, and for convolve float: --alpha premultiplied's float planes,
// stored unrounded). The tile is floats at any depth, so only the tile load
// and the stores differ: 4 outputs of a row go out as one store of 4, 8 or
// 16 bytes.
#include <type_traits>

#include "device.cuh"
#include "kernels.h"

constexpr int CONV_TILE = 64;
constexpr int CONV_THREADS = 256;
constexpr int CONV_LANES_X = CONV_TILE / 4; // 16 threads of 4 columns span a tile row
constexpr int CONV_OUT_Y = 4;               // output rows per thread
constexpr int MAX_KERNEL = 63;
static_assert(CONV_LANES_X * (CONV_THREADS / CONV_LANES_X) * 4 * CONV_OUT_Y ==
                  CONV_TILE * CONV_TILE,
              "16 x 16 threads of 4 x 4 outputs cover the tile");

// Weights by value: the small capacities keep launches of common kernels
// (up to 16 x 16) from copying 16 KB of parameters.
template <int CAP> struct ConvTaps {
    float w[CAP];
};
constexpr int SMALL_TAPS = 256;
constexpr int LARGE_TAPS = 4096;
static_assert(MAX_KERNEL * MAX_KERNEL <= LARGE_TAPS, "the large parameter holds any kernel");

// Tile row length in floats: the tile's columns, both halos and
// load_tile_f32's margins (which also cover a thread's last 16-byte read
// past the halo), a multiple of 4 (16-byte aligned).
__host__ __device__ constexpr int conv_pitch(int kw)
{
    return tile_pitch(CONV_TILE + kw - 1);
}

// The margin, the tile, then the weights with rows padded to a multiple of 4.
__host__ __device__ constexpr size_t conv_shared_bytes(int kw, int kh)
{
    return ((size_t)LOAD_MARGIN + (size_t)(CONV_TILE + kh - 1) * conv_pitch(kw) +
            (size_t)kh * ((kw + 3) / 4 * 4)) *
           sizeof(float);
}
static_assert(conv_shared_bytes(MAX_KERNEL, MAX_KERNEL) <= 227 * 1024, "the largest tile fits");

// Where a tap group's 4 weights (kernel row ki, taps j .. j + 3) come from.
// Any size: shared memory, rows padded to kw4 (a multiple of 4) with zeros,
// one broadcast 16-byte load per group.
struct SharedWeights {
    const float *s_w;
    int kw4;
    __device__ float4 operator()(int ki, int j) const
    {
        return *reinterpret_cast<const float4 *>(s_w + ki * kw4 + j);
    }
};

// A size known at compile time: once the loops unroll, ki and j are
// constants and each weight is an FMA operand straight from the parameter
// (constant bank). Reads past the last tap land in ConvTaps' zero padding.
template <int CAP, int KW> struct ParamWeights {
    const ConvTaps<CAP> &k;
    __device__ float4 operator()(int ki, int j) const
    {
        const float *w = k.w + ki * KW + j;
        return make_float4(w[0], w[1], w[2], w[3]);
    }
};

// The taps j .. j + count - 1 of input row r for the thread's 4 x 4 outputs:
// v holds the 8 inputs from the first output column's tap j on. Output row
// i uses kernel row r - i when that is a row of the kernel. Called with r,
// then j, ascending: each output takes its taps in the CPU's order.
template <bool EXACT, typename Weights>
__device__ __forceinline__ void conv_taps(float acc[CONV_OUT_Y][4], const float v[8],
                                          const Weights &weights, int kh, int r, int j, int count)
{
#pragma unroll
    for (int i = 0; i < CONV_OUT_Y; i++) {
        int ki = r - i;
        if (ki < 0 || ki >= kh)
            continue;
        float4 w4 = weights(ki, j);
        const float wt[4] = {w4.x, w4.y, w4.z, w4.w};
#pragma unroll
        for (int kk = 0; kk < 4; kk++) {
            if (kk < count) {
#pragma unroll
                for (int c = 0; c < 4; c++)
                    acc[i][c] = mad<EXACT>(wt[kk], v[c + kk], acc[i][c]);
            }
        }
    }
}

// Stores 4 neighbouring outputs of one row: one 4-value store (4 bytes at
// depth 8, 8 at depth 16) when the row is long enough and the address
// aligned, else value by value. `whole`: the block's tile lies inside the
// image and rows start at multiples of 4 values, so the tests are known to
// pass (x is a multiple of 4; the planes are 256-byte aligned).
template <typename T>
__device__ __forceinline__ void store4(uint8_t *dst_bytes, int w, int h, int x, int y, const T b[4],
                                       bool whole)
{
    using Quad = typename std::conditional<
        sizeof(T) == 1, uint32_t,
        typename std::conditional<sizeof(T) == 2, uint2, float4>::type>::type;
    T *dst = reinterpret_cast<T *>(dst_bytes);
    Quad q;
    if constexpr (sizeof(T) == 1)
        q = b[0] | b[1] << 8 | b[2] << 16 | (uint32_t)b[3] << 24;
    else if constexpr (sizeof(T) == 2)
        q = make_uint2(b[0] | (uint32_t)b[1] << 16, b[2] | (uint32_t)b[3] << 16);
    else
        q = make_float4(b[0], b[1], b[2], b[3]);
    if (whole) {
        *reinterpret_cast<Quad *>(dst + (size_t)y * w + x) = q;
        return;
    }
    if (y >= h || x >= w)
        return;
    T *out = dst + (size_t)y * w + x;
    if (x + 3 < w && ((size_t)out % sizeof(Quad)) == 0) {
        *reinterpret_cast<Quad *>(out) = q;
        return;
    }
#pragma unroll
    for (int c = 0; c < 4; c++) // constant indices: b stays in registers
        if (x + c < w)
            out[c] = b[c];
}

// KW, KH > 0: a kernel size with its own unrolled code (3 x 3, 5 x 5,
// 7 x 7); 0: any size, the weights staged in shared memory.
template <typename T, int CAP, int KW, int KH>
__global__ void __launch_bounds__(CONV_THREADS, 4)
    convolve_kernel(const uint8_t *__restrict__ src, uint8_t *__restrict__ dst, int w, int h,
                    int kw_arg, int kh_arg, float scale, float bias, int absolute,
                    gpuimg_border border, const ConvTaps<CAP> k)
{
    extern __shared__ __align__(16) float s_conv[];
    constexpr bool EXACT = exact_filter<T>();
    const int kw = KW > 0 ? KW : kw_arg, kh = KH > 0 ? KH : kh_arg;
    const int pitch = conv_pitch(kw), kw4 = (kw + 3) / 4 * 4;
    float *s_tile = s_conv + LOAD_MARGIN, *s_w = s_tile + (CONV_TILE + kh - 1) * pitch;
    if (KW == 0)
        for (int i = threadIdx.x; i < kh * kw4; i += CONV_THREADS) {
            int row = i / kw4, col = i - row * kw4;
            s_w[i] = col < kw ? k.w[row * kw + col] : 0.0f;
        }
    const int x0 = blockIdx.x * CONV_TILE, y0 = blockIdx.y * CONV_TILE;
    constexpr int IN_ROWS = KH > 0 ? CONV_TILE + KH - 1 : 0,
                  IN_COLS = KW > 0 ? CONV_TILE + KW - 1 : 0;
    load_tile_f32<CONV_THREADS, T, IN_ROWS, IN_COLS>(src, w, h, border, x0 - kw / 2, y0 - kh / 2,
                                                     CONV_TILE + kh - 1, CONV_TILE + kw - 1, s_tile,
                                                     pitch);
    __syncthreads();
    const int tx = threadIdx.x % CONV_LANES_X, ty = threadIdx.x / CONV_LANES_X;
    float acc[CONV_OUT_Y][4];
#pragma unroll
    for (int i = 0; i < CONV_OUT_Y; i++)
#pragma unroll
        for (int c = 0; c < 4; c++)
            acc[i][c] = 0.0f;
    const float *base = s_tile + ty * CONV_OUT_Y * pitch + 4 * tx;
    if (KW > 0) {
#pragma unroll
        for (int r = 0; r < CONV_OUT_Y + KH - 1; r++) {
            const float4 *in = reinterpret_cast<const float4 *>(base + r * pitch);
            float4 a = in[0];
#pragma unroll
            for (int j = 0; j < KW; j += 4) {
                float4 b = in[j / 4 + 1];
                const float v[8] = {a.x, a.y, a.z, a.w, b.x, b.y, b.z, b.w};
                conv_taps<EXACT>(acc, v, ParamWeights<CAP, KW>{k}, KH, r, j, min(4, KW - j));
                a = b;
            }
        }
    } else {
        for (int r = 0; r < CONV_OUT_Y + kh - 1; r++) {
            const float4 *in = reinterpret_cast<const float4 *>(base + r * pitch);
            float4 a = in[0];
            int j = 0;
            for (; j + 4 <= kw; j += 4) {
                float4 b = in[j / 4 + 1];
                const float v[8] = {a.x, a.y, a.z, a.w, b.x, b.y, b.z, b.w};
                conv_taps<EXACT>(acc, v, SharedWeights{s_w, kw4}, kh, r, j, 4);
                a = b;
            }
            if (j < kw) {
                float4 b = in[j / 4 + 1];
                const float v[8] = {a.x, a.y, a.z, a.w, b.x, b.y, b.z, b.w};
                conv_taps<EXACT>(acc, v, SharedWeights{s_w, kw4}, kh, r, j, kw - j);
            }
        }
    }
    const bool whole = whole_tile(x0, y0, CONV_TILE, w, h, 4);
#pragma unroll
    for (int i = 0; i < CONV_OUT_Y; i++) {
        T b[4];
#pragma unroll
        for (int c = 0; c < 4; c++) {
            float v = __fadd_rn(__fmul_rn(acc[i][c], scale), bias);
            b[c] = store_value<T>(absolute ? fabsf(v) : v);
        }
        store4<T>(dst, w, h, x0 + 4 * tx, y0 + ty * CONV_OUT_Y + i, b, whole);
    }
}

// The rounded square root of an integer-valued s, as the CPU's sqrtf gives
// it, without the IEEE square root's refinement and special-case branch.
// The hardware reciprocal square root (rsqrt.approx, relative error about
// 2^-22.9) makes s * rsqrt(s) good to 4e-7 relative, 1e-4 absolute below
// 255.5; the root of an integer s is never nearer than 0.25 / 512 = 4.9e-4
// to a half-integer n + 0.5 <= 255.5, where rounding turns, since
// (n + 0.5)^2 = n^2 + n + 0.25. Larger roots clamp to 255 either way. s = 0
// must not meet the reciprocal's infinity. (The cuda suite checks Sobel
// byte for byte against the CPU.)
//
// At depth 16 none of that holds: gx^2 + gy^2 reaches 1.4e11, past float's
// exact integers, and a root near 65535 comes within 0.25 / 131071 = 1.9e-6
// of a half-integer, far inside the estimate's 0.026. There the magnitude
// is the CPU's expression operation for operation: each square and the sum
// rounded on its own (no FMA contraction: C's gx * gx + gy * gy), then the
// IEEE square root, so the two backends agree to the bit.
__device__ __forceinline__ float magnitude_u8(float gx, float gy)
{
    float s = gx * gx + gy * gy; // exact: integers below 2^22
    // .ftz: the bare MUFU.RSQ; rsqrtf adds a rescaling for denormal inputs,
    // and s is a whole number.
    float r;
    asm("rsqrt.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(s));
    return s > 0.0f ? s * r : 0.0f;
}

__device__ __forceinline__ float magnitude_u16(float gx, float gy)
{
    return __fsqrt_rn(__fadd_rn(__fmul_rn(gx, gx), __fmul_rn(gy, gy)));
}

// Sobel: the same tile and thread shapes with a 3 x 3 halo; each thread
// reads its 6 input rows once (two 16-byte loads each) for its 16 outputs.
template <typename T>
__global__ void __launch_bounds__(CONV_THREADS, 4)
    sobel_kernel(const uint8_t *__restrict__ src, uint8_t *__restrict__ dst, int w, int h,
                 gpuimg_border border)
{
    constexpr int PITCH = conv_pitch(3);
    __shared__ __align__(16) float s_raw[LOAD_MARGIN + (CONV_TILE + 2) * PITCH];
    float *s_tile = s_raw + LOAD_MARGIN;
    const int x0 = blockIdx.x * CONV_TILE, y0 = blockIdx.y * CONV_TILE;
    load_tile_f32<CONV_THREADS, T, CONV_TILE + 2, CONV_TILE + 2>(src, w, h, border, x0 - 1, y0 - 1,
                                                                 0, 0, s_tile, PITCH);
    __syncthreads();
    const int tx = threadIdx.x % CONV_LANES_X, ty = threadIdx.x / CONV_LANES_X;
    const float *base = s_tile + ty * CONV_OUT_Y * PITCH + 4 * tx;
    float v[CONV_OUT_Y + 2][8];
#pragma unroll
    for (int r = 0; r < CONV_OUT_Y + 2; r++) {
        const float4 *in = reinterpret_cast<const float4 *>(base + r * PITCH);
        float4 a = in[0], b = in[1];
        v[r][0] = a.x, v[r][1] = a.y, v[r][2] = a.z, v[r][3] = a.w;
        v[r][4] = b.x, v[r][5] = b.y, v[r][6] = b.z, v[r][7] = b.w;
    }
    // Both Sobel kernels are separable: gx is [1 2 1] down the columns, then
    // the difference across 2 columns; gy the same turned. Smoothing each
    // column and row once for the thread's 16 outputs halves the additions
    // of the per-output formula. All values are integers below 2^24 (4 x
    // 65535 at most), so any order gives the CPU's exact gx and gy.
    float vs[CONV_OUT_Y][6], hs[CONV_OUT_Y + 2][4];
#pragma unroll
    for (int i = 0; i < CONV_OUT_Y; i++)
#pragma unroll
        for (int c = 0; c < 6; c++)
            vs[i][c] = fmaf(2.0f, v[i + 1][c], v[i][c]) + v[i + 2][c];
#pragma unroll
    for (int r = 0; r < CONV_OUT_Y + 2; r++)
#pragma unroll
        for (int c = 0; c < 4; c++)
            hs[r][c] = fmaf(2.0f, v[r][c + 1], v[r][c]) + v[r][c + 2];
    const bool whole = whole_tile(x0, y0, CONV_TILE, w, h, 4);
#pragma unroll
    for (int i = 0; i < CONV_OUT_Y; i++) {
        T out[4];
#pragma unroll
        for (int c = 0; c < 4; c++) {
            float gx = vs[i][c + 2] - vs[i][c], gy = hs[i + 2][c] - hs[i][c];
            out[c] = store_value<T>(sizeof(T) == 1 ? magnitude_u8(gx, gy) : magnitude_u16(gx, gy));
        }
        store4<T>(dst, w, h, x0 + 4 * tx, y0 + ty * CONV_OUT_Y + i, out, whole);
    }
}

template <typename T, int CAP, int KW, int KH>
static cudaError_t launch_convolve(gpuimg_dplanes d_src, gpuimg_dplanes d_dst, int channels, int w,
                                   int h, const gpuimg_conv *kc, gpuimg_border border,
                                   cudaStream_t stream)
{
    ConvTaps<CAP> k;
    int n = kc->width * kc->height;
    for (int i = 0; i < n; i++)
        k.w[i] = kc->weights[i];
    for (int i = n; i < CAP; i++)
        k.w[i] = 0.0f;
    size_t shared = conv_shared_bytes(kc->width, kc->height);
    cudaError_t err = smem_opt_in(convolve_kernel<T, CAP, KW, KH>, shared);
    if (err != cudaSuccess)
        return err;
    dim3 grid(ceil_div(w, CONV_TILE), ceil_div(h, CONV_TILE));
    for (int c = 0; c < channels; c++) {
        convolve_kernel<T, CAP, KW, KH><<<grid, CONV_THREADS, shared, stream>>>(
            d_src.p[c], d_dst.p[c], w, h, kc->width, kc->height, kc->scale, kc->bias, kc->absolute,
            border, k);
        if ((err = cudaGetLastError()) != cudaSuccess)
            return err;
    }
    return cudaSuccess;
}

// Whether the kernel is an outer product K[i][j] = col[i] * row[j] (box3,
// gaussian3, gaussian5, sobel-x, prewitt-y, a box of ones...), to within
// float rounding. Such a kernel runs as a column pass of the row pass, the
// fused separable kernel of separable.cu: 2n taps per output instead of n^2
// (a 5 x 5 kernel: 10 FMAs, not 25). Accepted only when every weight is
// reproduced to 2^-20 of itself (zeros exactly; NaN fails every test) and
// all the differences together move an output by under 1e-3 of a unit at
// the image's depth (values up to M = 255 or 65535; float planes hold
// alpha-weighted values of either, so 65535), so the result differs from
// the 2-D sum's by rounding alone, which SPEC §4's allowance for float
// filters covers.
static bool rank_one(const gpuimg_conv *k, int depth, float *col, float *row)
{
    int n = k->width;
    if (n != k->height || n / 2 > GPUIMG_CUDA_FUSED_RADIUS || n < 3)
        return false;
    const double M = depth == 8 ? 255.0 : 65535.0;
    const float *K = k->weights;
    int pi = 0, pj = 0; // the largest weight: the best-conditioned pivot
    float big = 0.0f;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            if (fabsf(K[i * n + j]) > big) {
                big = fabsf(K[i * n + j]);
                pi = i, pj = j;
            }
    if (!(big > 0.0f) || !isfinite(big))
        return false;
    for (int i = 0; i < n; i++) {
        col[i] = K[i * n + pj] / K[pi * n + pj];
        row[i] = K[pi * n + i];
    }
    double moved = 0.0; // sum of |difference| x M x |scale|: the most an output moves
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            float want = K[i * n + j], d = fabsf(col[i] * row[j] - want);
            if (!(d <= 0x1p-20f * fabsf(want)))
                return false;
            moved += (double)d * M * fabs((double)k->scale);
        }
    return moved < 1e-3;
}

// The kernel is examined and copied into its parameter once for all planes.
extern "C" cudaError_t gpuimg__cuda_convolve(gpuimg_dplanes d_src, gpuimg_dplanes d_dst,
                                             int channels, int w, int h, const gpuimg_conv *k,
                                             gpuimg_border border, int depth, cudaStream_t stream)
{
    if (w <= 0 || h <= 0)
        return cudaSuccess;
    if (depth != 8 && depth != 16 && depth != GPUIMG_DEPTH_FLOAT)
        return cudaErrorInvalidValue;
    // Not for float planes (--alpha premultiplied): there the 2-D kernel
    // gives the CPU's bits, which unpremultiply's division would otherwise
    // magnify (the two 1-D passes sum in another order).
    float col[MAX_KERNEL], row[MAX_KERNEL];
    if (depth != GPUIMG_DEPTH_FLOAT && rank_one(k, depth, col, row))
        return gpuimg__cuda_convolve_rank1(d_src, d_dst, channels, w, h, col, row, k->width / 2, k,
                                           border, depth, stream);
    return by_filter_depth(depth, [&](auto v) {
        using T = decltype(v);
        if (k->width == 3 && k->height == 3)
            return launch_convolve<T, 16, 3, 3>(d_src, d_dst, channels, w, h, k, border, stream);
        if (k->width == 5 && k->height == 5)
            return launch_convolve<T, 32, 5, 5>(d_src, d_dst, channels, w, h, k, border, stream);
        if (k->width == 7 && k->height == 7)
            return launch_convolve<T, 64, 7, 7>(d_src, d_dst, channels, w, h, k, border, stream);
        if (k->width * k->height <= SMALL_TAPS)
            return launch_convolve<T, SMALL_TAPS, 0, 0>(d_src, d_dst, channels, w, h, k, border,
                                                        stream);
        return launch_convolve<T, LARGE_TAPS, 0, 0>(d_src, d_dst, channels, w, h, k, border,
                                                    stream);
    });
}

extern "C" cudaError_t gpuimg__cuda_sobel(const uint8_t *d_src, uint8_t *d_dst, int w, int h,
                                          gpuimg_border border, int depth, cudaStream_t stream)
{
    if (w <= 0 || h <= 0)
        return cudaSuccess;
    return by_depth(depth, [&](auto v) {
        using T = decltype(v);
        dim3 grid(ceil_div(w, CONV_TILE), ceil_div(h, CONV_TILE));
        sobel_kernel<T><<<grid, CONV_THREADS, 0, stream>>>(d_src, d_dst, w, h, border);
        return cudaGetLastError();
    });
}
