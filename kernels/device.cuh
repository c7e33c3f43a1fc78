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
