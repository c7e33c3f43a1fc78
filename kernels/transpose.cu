// SPDX-License-Identifier: MIT
// The tiled transpose, and rotate / flip built on the same kernel.
//
// A block reads a TILE x TILE tile row by row (consecutive lanes, consecutive
// bytes: coalesced) and writes its output tile row by row too. For the moves
// that exchange rows and columns, the lanes of a warp then read one column of
// the shared tile. The tile holds 32-bit words (bytes would put four lanes in
// one bank) and each row is padded to TILE + 1 words, so the 32 lanes reading
// a column fall in 32 different banks. Mirrored moves write their output
// rows back to front, within the same segments: still coalesced.
#include "device.cuh"
#include "kernels.h"

constexpr int TILE = 32;
constexpr int TILE_ROWS = 8; // threads per block: TILE x TILE_ROWS, 4 rows each
static_assert(TILE % TILE_ROWS == 0, "whole rows per thread");

template <gpuimg_move MOVE> __device__ __forceinline__ constexpr bool swaps()
{
    return MOVE == GPUIMG_MOVE_TRANSPOSE || MOVE == GPUIMG_MOVE_ROTATE90 ||
           MOVE == GPUIMG_MOVE_ROTATE270;
}

template <gpuimg_move MOVE>
__global__ void move_kernel(const uint8_t *__restrict__ src, uint8_t *__restrict__ dst, int w,
                            int h)
{
    __shared__ uint32_t s_tile[TILE][TILE + 1]; // +1: conflict-free column reads
    int bx = blockIdx.x * TILE, by = blockIdx.y * TILE;
    for (int r = threadIdx.y; r < TILE; r += TILE_ROWS) {
        int x = bx + threadIdx.x, y = by + r;
        if (x < w && y < h)
            s_tile[r][threadIdx.x] = src[(size_t)y * w + x];
    }
    __syncthreads();
    int ow = swaps<MOVE>() ? h : w; // the output's width
    for (int r = threadIdx.y; r < TILE; r += TILE_ROWS) {
        // Output rows of the tile: for the swapping moves, output row r of the
        // tile comes from input column r, read as a shared column.
        int sx, sy; // the input pixel this lane writes
        if (swaps<MOVE>()) {
            sx = bx + r;
            sy = by + threadIdx.x;
        } else {
            sx = bx + threadIdx.x;
            sy = by + r;
        }
        if (sx >= w || sy >= h)
            continue;
        int ox, oy;
        switch (MOVE) {
        case GPUIMG_MOVE_TRANSPOSE: ox = sy, oy = sx; break;
        case GPUIMG_MOVE_ROTATE90: ox = h - 1 - sy, oy = sx; break;
        case GPUIMG_MOVE_ROTATE270: ox = sy, oy = w - 1 - sx; break;
        case GPUIMG_MOVE_ROTATE180: ox = w - 1 - sx, oy = h - 1 - sy; break;
        case GPUIMG_MOVE_FLIP_H: ox = w - 1 - sx, oy = sy; break;
        default: ox = sx, oy = h - 1 - sy; break; // FLIP_V
        }
        dst[(size_t)oy * ow + ox] = (uint8_t)s_tile[sy - by][sx - bx];
    }
}

template <gpuimg_move MOVE>
static void launch(const uint8_t *s, uint8_t *d, int w, int h, cudaStream_t stream)
{
    dim3 grid(ceil_div(w, TILE), ceil_div(h, TILE));
    move_kernel<MOVE><<<grid, dim3(TILE, TILE_ROWS), 0, stream>>>(s, d, w, h);
}

extern "C" cudaError_t gpuimg__cuda_move(const uint8_t *d_src, uint8_t *d_dst, int w, int h,
                                         gpuimg_move move, cudaStream_t stream)
{
    if (w <= 0 || h <= 0)
        return cudaSuccess;
    switch (move) {
    case GPUIMG_MOVE_TRANSPOSE: launch<GPUIMG_MOVE_TRANSPOSE>(d_src, d_dst, w, h, stream); break;
    case GPUIMG_MOVE_ROTATE90: launch<GPUIMG_MOVE_ROTATE90>(d_src, d_dst, w, h, stream); break;
    case GPUIMG_MOVE_ROTATE180: launch<GPUIMG_MOVE_ROTATE180>(d_src, d_dst, w, h, stream); break;
    case GPUIMG_MOVE_ROTATE270: launch<GPUIMG_MOVE_ROTATE270>(d_src, d_dst, w, h, stream); break;
    case GPUIMG_MOVE_FLIP_H: launch<GPUIMG_MOVE_FLIP_H>(d_src, d_dst, w, h, stream); break;
    case GPUIMG_MOVE_FLIP_V: launch<GPUIMG_MOVE_FLIP_V>(d_src, d_dst, w, h, stream); break;
    }
    return cudaGetLastError();
}
