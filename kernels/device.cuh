// SPDX-License-Identifier: MIT
// Device helpers shared by the kernel files: SPEC's arithmetic (from
// src/arith.h, shared with the CPU), the warp reductions, grid sizing.
#pragma once

#include <cuda_runtime.h>
#include <stdint.h>

#include "arith.h"
#include "backend.h"

// border_index, store_u8: SPEC §3's arithmetic, shared with the CPU (arith.h).
__device__ __forceinline__ int border_index(int i, int n, gpuimg_border mode)
{
    return gpuimg__border_index(i, n, mode);
}

__device__ __forceinline__ uint8_t store_u8(float v)
{
    return gpuimg__round_u8(v);
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

__device__ __forceinline__ unsigned int warp_reduce_min_u32(unsigned int v)
{
    for (int offset = 16; offset > 0; offset >>= 1)
        v = min(v, __shfl_down_sync(0xffffffffu, v, offset));
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

// load_tile_f32: called by every thread of the block (no early returns
// before it); fills s[row * pitch + col] for row < rows, col < cols with the
// plane's values at (x0 + col, y0 + row) as floats, borders mapped (0 where
// constant mode reads outside). Columns cols..pitch-1 are left as they are.
// The caller puts a barrier between this and the first read of s.
//
// Tiles wholly inside the plane read 32-bit words (the plane is 256-byte
// aligned and padded to a multiple of 4 bytes, so a word holding any of its
// pixels lies inside the allocation): consecutive threads read consecutive
// words of a row, a quarter of the load instructions of byte loads. Border
// tiles (a thin frame of the image) map every index and read bytes.
//
// Either way a thread issues LOAD_BATCH loads before it uses any of them: a
// tile is a few KB, and a loop that waited for each load before the next
// left the memory system idle (bench/NOTES.md v3: the tile kernels were
// latency-bound on this load, not on their arithmetic).
constexpr int LOAD_BATCH = 8;

__device__ __forceinline__ void load_tile_f32(const uint8_t *__restrict__ src, int w, int h,
                                              gpuimg_border border, int x0, int y0, int rows,
                                              int cols, float *s, int pitch)
{
    const int nthreads = blockDim.x * blockDim.y * blockDim.z;
    const int tid = (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
    if (x0 >= 0 && y0 >= 0 && x0 + cols <= w && y0 + rows <= h) {
        // A row's first byte may sit anywhere in a word: one word more.
        const int words = (cols + 3) / 4 + 1, items = rows * words;
        for (int base = tid; base < items; base += LOAD_BATCH * nthreads) {
            uint32_t v[LOAD_BATCH];
            int at[LOAD_BATCH]; // s index of the word's byte 0 (its column may be < 0)
            int col0[LOAD_BATCH];
#pragma unroll
            for (int u = 0; u < LOAD_BATCH; u++) {
                int i = base + u * nthreads;
                col0[u] = cols; // nothing to store
                if (i >= items)
                    continue;
                int row = i / words, wi = i - row * words;
                size_t first = (size_t)(y0 + row) * w + x0; // byte offset of column 0
                int lead = (int)(first & 3);
                if (4 * wi >= lead + cols)
                    continue; // past the row's last byte
                v[u] = *reinterpret_cast<const uint32_t *>(src + (first & ~(size_t)3) + 4 * wi);
                col0[u] = 4 * wi - lead;
                at[u] = row * pitch + col0[u];
            }
#pragma unroll
            for (int u = 0; u < LOAD_BATCH; u++)
#pragma unroll
                for (int k = 0; k < 4; k++)
                    if (col0[u] + k >= 0 && col0[u] + k < cols)
                        s[at[u] + k] = u8_to_f32(v[u], k);
        }
        return;
    }
    const int items = rows * cols;
    for (int base = tid; base < items; base += LOAD_BATCH * nthreads) {
        float v[LOAD_BATCH];
#pragma unroll
        for (int u = 0; u < LOAD_BATCH; u++) {
            int i = base + u * nthreads;
            v[u] = 0.0f;
            if (i < items) {
                int row = i / cols, col = i - row * cols;
                int sx = border_index(x0 + col, w, border), sy = border_index(y0 + row, h, border);
                if (sx >= 0 && sy >= 0)
                    v[u] = (float)src[(size_t)sy * w + sx];
            }
        }
#pragma unroll
        for (int u = 0; u < LOAD_BATCH; u++) {
            int i = base + u * nthreads;
            if (i < items) {
                int row = i / cols;
                s[row * pitch + (i - row * cols)] = v[u];
            }
        }
    }
}
