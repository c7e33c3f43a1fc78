// SPDX-License-Identifier: MIT
// Device helpers shared by the kernel files: SPEC's arithmetic (from
// src/arith.h, shared with the CPU), the warp reductions, grid sizing, plane
// selection, byte shuffles, the values of a 16-byte vector, and the tile
// loader of the filter kernels.
//
// Depth. Every kernel is a template on its value type T, uint8_t (depth 8)
// or uint16_t (depth 16, native byte order), and each launcher picks the
// instantiation from the depth it is given (by_depth below). Plane pointers
// stay uint8_t * (byte addresses) across the seam; a kernel casts to T once.
// blur and convolve also run on float planes (GPUIMG_DEPTH_FLOAT, T =
// float: --alpha premultiplied's weighted values), stored as computed,
// neither rounded nor clamped (by_filter_depth).
#pragma once

#include <cuda_runtime.h>
#include <stdint.h>

#include "core/arith.h"
#include "core/backend.h"
#include "kernels.h"

// border_index: SPEC §3's mapping, shared with the CPU (arith.h).
__device__ __forceinline__ int border_index(int i, int n, gpuimg_border mode)
{
    return gpuimg__border_index(i, n, mode);
}

// store_u8: SPEC §3's store, clamp(floor(v + 0.5), 0, 255) with NaN -> 0,
// the same function as arith.h's gpuimg__round_u8 in three instructions:
// the conversion rounds down and saturates to [0, 2^32) (PTX cvt.rmi.u32:
// NaN gives 0), so only the top needs a clamp. The CPU's form (floorf, two
// compares, a select and a conversion) cost a filter a fifth of its
// instructions.
__device__ __forceinline__ uint8_t store_u8(float v)
{
    return (uint8_t)min(__float2uint_rd(v + 0.5f), 255u);
}

// The largest value of T: 255 or 65535 (SPEC §3's M).
template <typename T> __host__ __device__ constexpr uint32_t value_max()
{
    return sizeof(T) == 1 ? 255u : 65535u;
}

// store_value: SPEC §3's store at either depth, clamp(floor(v + 0.5), 0, M)
// with NaN -> 0, as store_u8 (the conversion saturates below at 0); a float
// plane keeps the value as it is.
template <typename T> __device__ __forceinline__ T store_value(float v)
{
    if constexpr (sizeof(T) == 4)
        return v;
    else
        return (T)min(__float2uint_rd(v + 0.5f), value_max<T>());
}

// by_depth: runs f(T()) with T = uint8_t at depth 8 and uint16_t at depth
// 16, the one switch from a seam's depth to a kernel's value type; any
// other depth is cudaErrorInvalidValue. by_filter_depth also takes float
// planes (GPUIMG_DEPTH_FLOAT: T = float), for blur and convolve.
template <typename F> __host__ cudaError_t by_depth(int depth, F f)
{
    switch (depth) {
    case 8: return f(uint8_t());
    case 16: return f(uint16_t());
    default: return cudaErrorInvalidValue;
    }
}
template <typename F> __host__ cudaError_t by_filter_depth(int depth, F f)
{
    if (depth == GPUIMG_DEPTH_FLOAT)
        return f(float());
    return by_depth(depth, f);
}

// The values of a 16-byte vector (uint4) at either depth: 16 bytes or 8
// 16-bit values, value k in little-endian order (the order in memory).
// Called with k a compile-time constant after unrolling, so each is one
// shift-and-mask (BFE), and pack() folds into shifts and ORs.
template <typename T> struct Vec16 {
    static constexpr int N = 16 / (int)sizeof(T);
    static constexpr int PER_WORD = 4 / (int)sizeof(T);
    __device__ __forceinline__ static uint32_t word(const uint4 &q, int i)
    {
        return i == 0 ? q.x : i == 1 ? q.y : i == 2 ? q.z : q.w;
    }
    __device__ __forceinline__ static uint32_t get(const uint4 &q, int k)
    {
        constexpr int bits = 8 * (int)sizeof(T);
        return (word(q, k / PER_WORD) >> (bits * (k % PER_WORD))) & value_max<T>();
    }
    // Builds a vector from N values (each <= M).
    __device__ __forceinline__ static uint4 pack(const uint32_t (&v)[N])
    {
        constexpr int bits = 8 * (int)sizeof(T);
        uint32_t w[4];
#pragma unroll
        for (int i = 0; i < 4; i++) {
            w[i] = 0;
#pragma unroll
            for (int j = 0; j < PER_WORD; j++)
                w[i] |= v[i * PER_WORD + j] << (bits * j);
        }
        return make_uint4(w[0], w[1], w[2], w[3]);
    }
};

__host__ __device__ constexpr int ceil_div(long long a, long long b)
{
    return (int)((a + b - 1) / b);
}

// warp_reduce_sum_u64: called by all 32 lanes of a warp; the sum is valid in
// lane 0 only. No shared memory, no barrier.
__device__ __forceinline__ unsigned long long warp_reduce_sum_u64(unsigned long long v)
{
    for (int offset = 16; offset > 0; offset >>= 1)
        v += __shfl_down_sync(0xffffffffu, v, offset);
    return v;
}

__device__ __forceinline__ double warp_reduce_sum_f64(double v)
{
    for (int offset = 16; offset > 0; offset >>= 1)
        v += __shfl_down_sync(0xffffffffu, v, offset);
    return v;
}

// Grid size for a grid-stride loop over n items: enough blocks to fill the
// device a few times over, never more than the work needs.
int gpuimg__grid_for(size_t n, int threads);

// The current device's SM count, and the most shared memory a block may
// opt in to (cudaDevAttrMaxSharedMemoryPerBlockOptin: 227 KB on sm_90, 163
// KB on sm_80, 99 KB on sm_86/89, which run the sm_80 code), for the
// kernels that size their grid or pick a path by them (kernels/
// cuda_backend.cu; 0 if the runtime cannot say).
int gpuimg__device_sms(void);
int gpuimg__device_shared_optin(void);

// smem_opt_in: called by a launcher before each launch of `kernel` with
// `bytes` of dynamic shared memory, on the device it launches on; returns
// cudaFuncSetAttribute's error, which the launcher returns as its own.
// Above 48 KB a kernel must opt in (at or below there is nothing to set),
// and the attribute belongs to the function in the current device's
// context, so it is set at each launch (batch drives several devices)
// rather than once per process.
template <typename K> __host__ cudaError_t smem_opt_in(K *kernel, size_t bytes)
{
    if (bytes <= 48 * 1024)
        return cudaSuccess;
    return cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes);
}

// Rec.601 luma in integers, SPEC's rounding, at either depth (at 16 bits
// 1000 x 65535 + 500 < 2^32): arith.h's gpuimg__luma without its uint8_t.
__device__ __forceinline__ uint32_t luma_value(uint32_t r, uint32_t g, uint32_t b)
{
    return (299u * r + 587u * g + 114u * b + 500u) / 1000u;
}

// plane_at: plane c of a by-value plane list, chosen by selects: indexing a
// kernel parameter's array with a run-time value puts the array on the
// stack. For kernels that take every plane in one launch (blockIdx.z).
__device__ __forceinline__ uint8_t *plane_at(const gpuimg_dplanes &p, int c)
{
    return c == 0 ? p.p[0] : c == 1 ? p.p[1] : c == 2 ? p.p[2] : p.p[3];
}

// transpose4x4: a[i] is row i of a 4 x 4 byte block (byte j = column j);
// on return t[j] is column j (byte i = row i). 8 PRMTs, registers only.
// The byte transpose (kernels/transpose.cu) and, for 4 channels, both
// directions of the layout change (4 RGBA pixels <-> one word of each plane).
__device__ __forceinline__ void transpose4x4(const uint32_t (&a)[4], uint32_t (&t)[4])
{
    uint32_t a01_lo = __byte_perm(a[0], a[1], 0x5140); // a0.0 a1.0 a0.1 a1.1
    uint32_t a01_hi = __byte_perm(a[0], a[1], 0x7362); // a0.2 a1.2 a0.3 a1.3
    uint32_t a23_lo = __byte_perm(a[2], a[3], 0x5140);
    uint32_t a23_hi = __byte_perm(a[2], a[3], 0x7362);
    t[0] = __byte_perm(a01_lo, a23_lo, 0x5410);
    t[1] = __byte_perm(a01_lo, a23_lo, 0x7632);
    t[2] = __byte_perm(a01_hi, a23_hi, 0x5410);
    t[3] = __byte_perm(a01_hi, a23_hi, 0x7632);
}

// u8_to_f32: byte k (0..3) of a word as an exact float, without I2F (a
// quarter-rate conversion on sm_90): the byte becomes the low mantissa bits
// of 2^23 (bit pattern 0x4B0000bb), and subtracting 2^23 leaves its value.
// One PRMT on the integer pipe and one FADD.
__device__ __forceinline__ float u8_to_f32(uint32_t word, int k)
{
    return __int_as_float((int)__byte_perm(word, 0x4B000000u, (unsigned)k | 0x7540u)) - 8388608.0f;
}

// u16_to_f32: 16-bit value k (0..1) of a word as an exact float, the same
// way: its two bytes become the low mantissa bits of 2^23 (0x4B00vvvv).
__device__ __forceinline__ float u16_to_f32(uint32_t word, int k)
{
    return __int_as_float((int)__byte_perm(word, 0x4B000000u, k ? 0x7432u : 0x7410u)) - 8388608.0f;
}

// Value k of a 32-bit word holding 4 / sizeof(T) values, as an exact float
// (a float plane's word is its value).
template <typename T> __device__ __forceinline__ float word_value_f32(uint32_t word, int k)
{
    if constexpr (sizeof(T) == 4)
        return __uint_as_float(word);
    else if constexpr (sizeof(T) == 2)
        return u16_to_f32(word, k);
    else
        return u8_to_f32(word, k);
}

// whole_tile: the block's tile of tile x tile outputs at (x0, y0) lies
// inside the w x h image and every row starts at a multiple of `align`
// values (so, planes being 256-byte aligned, at a multiple of align *
// sizeof(T) bytes), so its stores need no tests (the filter kernels' fast
// store path).
__device__ __forceinline__ bool whole_tile(int x0, int y0, int tile, int w, int h, int align)
{
    return x0 + tile <= w && y0 + tile <= h && w % align == 0;
}

// mad: acc + w v, the filters' step. At 8 bits one FMA (one rounding; SPEC
// §4 allows float filters to differ from the CPU by 1 in 0.1% of values,
// and they do far less). At 16 bits and on float planes (EXACT) the CPU's
// own two roundings, the product and then the sum: with the taps in the
// CPU's order this makes the filter bit-identical to the CPU backend. 16-bit
// values carry 8 more bits into the same 24-bit mantissa, so there FMA's
// single rounding differed from the CPU's in ~0.2-0.7% of the values of a
// photograph or noise, which an image of a few dozen values (a 1 x 37 test
// image: 1% of it is under one value) cannot absorb; float planes are
// divided by alpha afterwards (unpremultiply), which magnifies a last-bit
// difference. It costs a second instruction per tap.
template <bool EXACT> __device__ __forceinline__ float mad(float w, float v, float acc)
{
    if constexpr (EXACT)
        return __fadd_rn(acc, __fmul_rn(w, v));
    else
        return fmaf(w, v, acc);
}
template <typename T> __host__ __device__ constexpr bool exact_filter()
{
    return sizeof(T) != 1;
}

// border_index_call: border_index as a call, for the border tiles' loads:
// inlined in every unrolled slot of every tile kernel, its division
// branches multiplied the binary's size several times over.
// (A template, so that every file gets its own copy without -rdc.)
template <int = 0> __device__ __noinline__ int border_index_call(int i, int n, gpuimg_border mode)
{
    return gpuimg__border_index(i, n, mode);
}

// load_tile_f32: called by all THREADS threads of a 1-D block (no early
// returns before it); fills s[row * pitch + col] for row < rows, col < cols
// with the plane's values (T: uint8_t, uint16_t or float) at (x0 + col,
// y0 + row) as floats, borders mapped (0 where constant mode reads outside).
// The caller puts a barrier between this and the first read of s.
//
// Margins: it also writes garbage to the 3 floats before each row and to
// columns cols .. cols + 6, so that every 32-bit word of the source lands
// with 4 (8 bits) or 2 (16 bits) unconditional stores (a test per value,
// with its branch, cost more than the stores). The caller leaves
// LOAD_MARGIN floats before s and uses tile_pitch(cols) or more; each row's
// margins are its own, so no two threads write one address. (At 16 bits a
// row's first value sits at most 1 value into its word and the last word
// reaches at most 2 values past the row, for floats 1: inside the same
// margins.)
//
// ROWS, COLS > 0 give the tile's shape at compile time (the index divisions
// below become a multiply and a shift).
//
// Tiles wholly inside the plane read 32-bit words (the plane is 256-byte
// aligned and padded to a multiple of 4 bytes, so a word holding any of its
// pixels lies inside the allocation): consecutive threads read consecutive
// words of a row, every lane busy. Border tiles (a thin frame of the image)
// map every index and read values one by one. Either way a thread issues
// LOAD_BATCH loads before it uses any of them: a loop that waited for each
// load before the next left the memory system idle.
constexpr int LOAD_BATCH = 8;
constexpr int LOAD_MARGIN = 4; // floats before column 0: keeps column 0 16-byte aligned

__host__ __device__ constexpr int tile_pitch(int cols)
{
    return (cols + 7 + 3 + 3) / 4 * 4; // the tail margin, the next row's front margin
}

template <int THREADS, typename T, int ROWS = 0, int COLS = 0>
__device__ __forceinline__ void load_tile_f32(const uint8_t *__restrict__ src_bytes, int w, int h,
                                              gpuimg_border border, int x0, int y0, int rows_arg,
                                              int cols_arg, float *s, int pitch)
{
    constexpr int PER_WORD = 4 / (int)sizeof(T); // values in a 32-bit word
    const int rows = ROWS > 0 ? ROWS : rows_arg, cols = COLS > 0 ? COLS : cols_arg;
    const int tid = threadIdx.x;
    if (x0 >= 0 && y0 >= 0 && x0 + cols <= w && y0 + rows <= h) {
        // A row's first value may sit anywhere in a word: one word more.
        // Item i is word i % words of row i / words; a thread's items are
        // THREADS apart, so (row, word) advance by constants: one division
        // per thread, not one per word.
        const int words = (cols + PER_WORD - 1) / PER_WORD + 1, items = rows * words;
        const int step_rows = THREADS / words, step_words = THREADS % words;
        int row = tid / words, wi = tid % words;
        // b0: the batch's first item, the same in every thread, so that the
        // tests of whole slots below are uniform (and constant for a shape
        // known at compile time): no divergent branch around the stores.
        for (int b0 = 0; b0 < items; b0 += LOAD_BATCH * THREADS) {
            uint32_t v[LOAD_BATCH];
            int at[LOAD_BATCH]; // s index of the word's value 0
#pragma unroll
            for (int u = 0; u < LOAD_BATCH; u++) {
                // The row's first value, as a value index (< 2^32: w h <= 65535^2).
                uint32_t first = (uint32_t)(y0 + row) * (uint32_t)w + (uint32_t)x0;
                int lead = (int)(first % PER_WORD);
                at[u] = row * pitch + PER_WORD * wi - lead;
                v[u] = 0;
                if (row < rows && PER_WORD * wi < lead + cols) // not past the row's last value
                    v[u] = *reinterpret_cast<const uint32_t *>(
                        src_bytes + (size_t)(first - (uint32_t)lead) * sizeof(T) + 4 * (size_t)wi);
                row += step_rows;
                wi += step_words;
                if (wi >= words) {
                    wi -= words;
                    row++;
                }
            }
#pragma unroll
            for (int u = 0; u < LOAD_BATCH; u++) {
                if (b0 + u * THREADS >= items)
                    break; // no thread has this slot
                if (b0 + (u + 1) * THREADS <= items || b0 + u * THREADS + tid < items)
#pragma unroll
                    for (int k = 0; k < PER_WORD; k++)
                        s[at[u] + k] = word_value_f32<T>(v[u], k);
            }
        }
        return;
    }
    const T *src = reinterpret_cast<const T *>(src_bytes);
    const int items = rows * cols;
    for (int base = tid; base < items; base += LOAD_BATCH * THREADS) {
        float v[LOAD_BATCH];
        int at[LOAD_BATCH]; // s index of the value, -1 past the tile
#pragma unroll
        for (int u = 0; u < LOAD_BATCH; u++) {
            int i = base + u * THREADS;
            v[u] = 0.0f;
            at[u] = -1;
            if (i < items) {
                int row = i / cols, col = i - row * cols;
                int sx = border_index_call(x0 + col, w, border);
                int sy = border_index_call(y0 + row, h, border);
                if (sx >= 0 && sy >= 0)
                    v[u] = (float)src[(size_t)sy * w + sx];
                at[u] = row * pitch + col;
            }
        }
#pragma unroll
        for (int u = 0; u < LOAD_BATCH; u++)
            if (at[u] >= 0)
                s[at[u]] = v[u];
    }
}
