// SPDX-License-Identifier: MIT
// Device helpers shared by the kernel files: SPEC's arithmetic (from
// src/arith.h, shared with the CPU), the warp reductions, grid sizing, plane
// selection, byte shuffles, and the tile loader of the filter kernels.
#pragma once

#include <cuda_runtime.h>
#include <stdint.h>

#include "arith.h"
#include "backend.h"
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

__device__ __forceinline__ unsigned int warp_reduce_max_u32(unsigned int v)
{
    for (int offset = 16; offset > 0; offset >>= 1)
        v = max(v, __shfl_down_sync(0xffffffffu, v, offset));
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

// whole_tile: the block's tile of tile x tile outputs at (x0, y0) lies
// inside the w x h image and every row starts `align`-byte aligned, so its
// stores need no tests (the filter kernels' fast store path).
__device__ __forceinline__ bool whole_tile(int x0, int y0, int tile, int w, int h, int align)
{
    return x0 + tile <= w && y0 + tile <= h && w % align == 0;
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
// with the plane's values at (x0 + col, y0 + row) as floats, borders mapped
// (0 where constant mode reads outside). The caller puts a barrier between
// this and the first read of s.
//
// Margins: it also writes garbage to the 3 floats before each row and to
// columns cols .. cols + 6, so that every 32-bit word of the source lands
// with four unconditional stores (a test per byte, with its branch, cost
// more than the stores). The caller leaves LOAD_MARGIN floats before s and
// uses tile_pitch(cols) or more; each row's margins are its own, so no two
// threads write one address.
//
// ROWS, COLS > 0 give the tile's shape at compile time (the index divisions
// below become a multiply and a shift).
//
// Tiles wholly inside the plane read 32-bit words (the plane is 256-byte
// aligned and padded to a multiple of 4 bytes, so a word holding any of its
// pixels lies inside the allocation): consecutive threads read consecutive
// words of a row, every lane busy. Border tiles (a thin frame of the image)
// map every index and read bytes. Either way a thread issues LOAD_BATCH
// loads before it uses any of them: a loop that waited for each load before
// the next left the memory system idle.
constexpr int LOAD_BATCH = 8;
constexpr int LOAD_MARGIN = 4; // floats before column 0: keeps column 0 16-byte aligned

__host__ __device__ constexpr int tile_pitch(int cols)
{
    return (cols + 7 + 3 + 3) / 4 * 4; // the tail margin, the next row's front margin
}

template <int THREADS, int ROWS = 0, int COLS = 0>
__device__ __forceinline__ void load_tile_f32(const uint8_t *__restrict__ src, int w, int h,
                                              gpuimg_border border, int x0, int y0, int rows_arg,
                                              int cols_arg, float *s, int pitch)
{
    const int rows = ROWS > 0 ? ROWS : rows_arg, cols = COLS > 0 ? COLS : cols_arg;
    const int tid = threadIdx.x;
    if (x0 >= 0 && y0 >= 0 && x0 + cols <= w && y0 + rows <= h) {
        // A row's first byte may sit anywhere in a word: one word more.
        // Item i is word i % words of row i / words; a thread's items are
        // THREADS apart, so (row, word) advance by constants: one division
        // per thread, not one per word.
        const int words = (cols + 3) / 4 + 1, items = rows * words;
        const int step_rows = THREADS / words, step_words = THREADS % words;
        int row = tid / words, wi = tid % words;
        // b0: the batch's first item, the same in every thread, so that the
        // tests of whole slots below are uniform (and constant for a shape
        // known at compile time): no divergent branch around the stores.
        for (int b0 = 0; b0 < items; b0 += LOAD_BATCH * THREADS) {
            uint32_t v[LOAD_BATCH];
            int at[LOAD_BATCH]; // s index of the word's byte 0
#pragma unroll
            for (int u = 0; u < LOAD_BATCH; u++) {
                uint32_t first = (uint32_t)(y0 + row) * (uint32_t)w + (uint32_t)x0; // < 2^32
                int lead = (int)(first & 3);
                at[u] = row * pitch + 4 * wi - lead;
                v[u] = 0;
                if (row < rows && 4 * wi < lead + cols) // not past the row's last byte
                    v[u] = *reinterpret_cast<const uint32_t *>(src + (first & ~3u) + 4 * wi);
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
                    for (int k = 0; k < 4; k++)
                        s[at[u] + k] = u8_to_f32(v[u], k);
            }
        }
        return;
    }
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
