// SPDX-License-Identifier: MIT
// Device helpers shared by the kernel files: border mapping, rounding, the
// warp and block reductions, grid sizing.
#pragma once

#include <cuda_runtime.h>
#include <stdint.h>

#include "backend.h"

// Maps an index outside [0, n) by the border mode (SPEC §3), for any
// distance; -1 means "reads 0" (constant). The same rules as the CPU's
// gpuimg__border_index; ints suffice (n <= 65535, |i| < n + 2002).
__device__ __forceinline__ int border_index(int i, int n, gpuimg_border mode)
{
    if (i >= 0 && i < n)
        return i;
    int period, r;
    switch (mode) {
    case GPUIMG_BORDER_CONSTANT: return -1;
    case GPUIMG_BORDER_REPLICATE: return i < 0 ? 0 : n - 1;
    case GPUIMG_BORDER_WRAP: r = i % n; return r < 0 ? r + n : r;
    case GPUIMG_BORDER_REFLECT:
        period = 2 * n;
        r = i % period;
        if (r < 0)
            r += period;
        return r < n ? r : period - 1 - r;
    default:
        if (n == 1)
            return 0;
        period = 2 * (n - 1);
        r = i % period;
        if (r < 0)
            r += period;
        return r < n ? r : period - r;
    }
}

// SPEC §3's store: clamp(floor(v + 0.5), 0, 255).
__device__ __forceinline__ uint8_t store_u8(float v)
{
    float r = floorf(v + 0.5f);
    return !(r > 0.0f) ? 0 : r >= 255.0f ? 255 : (uint8_t)r; // NaN -> 0, as on the CPU
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
