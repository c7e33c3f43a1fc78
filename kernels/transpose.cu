// SPDX-License-Identifier: MIT
// The tiled transpose, rotate 90 / 270 built on it, and the mirrors (flip h,
// flip v, rotate 180) that need no transpose.
//
// These are copies, so the goal is the copy bandwidth, which byte accesses do
// not reach: the global side must move 4 or 16 bytes per lane.
//
// Transpose (and rotate 90 / 270, which only reverse the output's columns or
// rows): a block of 256 threads moves a 64 x 64 byte tile. Each thread reads
// one 32-bit word from each of 4 consecutive input rows (a 4 x 4 byte block:
// 8 lanes cover one 32-byte sector of a row, so each LDG.32 touches 4 full
// sectors), transposes it in registers with 8 PRMTs, and stores the 4
// resulting words, now pieces of 4 output rows, to a shared tile of 64 output
// rows x 16 words. After one barrier each thread reads one uint4 of that tile
// and writes it to global memory: 4 lanes cover a 64-byte output row segment,
// so each STG.128 writes 8 rows x 2 full sectors. Per output byte: 1/4 of a
// load, 1/16 of a store, 1/2 PRMT.
//
// Shared bank pattern. The tile is 64 rows of 16 words, so row pair R/2 is
// one 32-word (one per bank) line; word (R, c) lives at
// (16R + c) ^ (((R >> 2) & 7) << 2), an XOR of bits 2..4 (which 16-byte unit
// in the line) that keeps each uint4 of a row contiguous and aligned.
// - Word stores: a warp is 8 tx (input word columns) x 4 ty (input row
//   groups); its 32 lanes store output row R = 4tx + j (or 63 - that), word
//   c = ty (or 15 - ty). The 4 ty give 4 different c & 3 (bits 0..1 of the
//   bank); the 8 tx give 8 different R >> 2, so the XOR gives 8 different
//   bits 2..4: 32 lanes, 32 banks. Without the XOR, all 8 tx would share a
//   bank (R * 16 words).
// - uint4 loads are served 8 lanes (128 bytes) at a time; lanes 8m .. 8m+7
//   read rows 2m, 2m + 1 (same R >> 2), units 0..3: the 8 units of one line
//   XORed with one constant, 8 different 16-byte columns.
// Both sides are conflict-free.
//
// The vector path needs a whole tile and aligned rows (w and h multiples of
// 4 for the 32-bit words; h a multiple of 16 for the 16-byte stores, else 4
// stores of 32 bits). Edge tiles and unaligned images take a byte path over
// the same 64 x 64 tile: bytes in, then lanes walk down a shared column
// (along an output row), the tile's pitch of 68 bytes = 17 words putting 32
// consecutive rows in 32 banks.
//
// Mirrors: no data crosses rows, so each thread moves one uint4 (or 32-bit
// word, or byte, whichever divides the width) from an input row to the
// mirrored place in the output row, reversing its bytes with PRMT for flip h
// and rotate 180. Consecutive lanes, consecutive (or mirrored consecutive)
// vectors: coalesced on both sides.
#include "device.cuh"
#include "kernels.h"

constexpr int TILE = 64;                  // bytes a side
constexpr int TILE_WORDS = TILE / 4;      // 32-bit words per tile row
constexpr int TILE_THREADS = 256;         // one 4 x 4 byte block each
constexpr int TILE_BYTE_PITCH = TILE + 4; // byte path: 17 words a row
static_assert(TILE_WORDS * TILE_WORDS == TILE_THREADS, "one 4 x 4 byte block per thread");
static_assert(TILE * TILE / 16 == TILE_THREADS, "one uint4 of the output tile per thread");
static_assert(TILE_THREADS == 8 * 32 && TILE_WORDS == 16, "the warp shape and the swizzle assume "
                                                          "8 warps of 8 tx x 4 ty, 16-word rows");
static_assert(TILE_BYTE_PITCH % 4 == 0 && (TILE_BYTE_PITCH / 4) % 2 == 1,
              "an odd word pitch puts 32 consecutive rows in 32 banks");
static_assert(TILE * TILE_BYTE_PITCH % 16 == 0, "the shared tile is a whole number of uint4");

constexpr int MIRROR_THREADS = 128; // per block; a block works in one row

template <gpuimg_move MOVE> __device__ __forceinline__ constexpr bool swaps()
{
    return MOVE == GPUIMG_MOVE_TRANSPOSE || MOVE == GPUIMG_MOVE_ROTATE90 ||
           MOVE == GPUIMG_MOVE_ROTATE270;
}

// tile_word: index of word c of output row R in the 64 x 16-word shared tile,
// swizzled as the header explains. Called by both sides of the vector path.
__device__ __forceinline__ int tile_word(int R, int c)
{
    return (TILE_WORDS * R + c) ^ (((R >> 2) & 7) << 2);
}

// The output pixel of input pixel (sx, sy), for every move.
template <gpuimg_move MOVE>
__device__ __forceinline__ void move_target(int sx, int sy, int w, int h, int &ox, int &oy)
{
    switch (MOVE) {
    case GPUIMG_MOVE_TRANSPOSE: ox = sy, oy = sx; break;
    case GPUIMG_MOVE_ROTATE90: ox = h - 1 - sy, oy = sx; break;
    case GPUIMG_MOVE_ROTATE270: ox = sy, oy = w - 1 - sx; break;
    case GPUIMG_MOVE_ROTATE180: ox = w - 1 - sx, oy = h - 1 - sy; break;
    case GPUIMG_MOVE_FLIP_H: ox = w - 1 - sx, oy = sy; break;
    default: ox = sx, oy = h - 1 - sy; break; // FLIP_V
    }
}

// vec: w, h multiples of 4 and both buffers 4-byte aligned; vec16: also h a
// multiple of 16 and d_dst 16-byte aligned (the launcher decides).
template <gpuimg_move MOVE>
__global__ void __launch_bounds__(TILE_THREADS)
    transpose_kernel(gpuimg_dplanes srcs, gpuimg_dplanes dsts, int w, int h, bool vec, bool vec16)
{
    const uint8_t *__restrict__ src = plane_at(srcs, blockIdx.z);
    uint8_t *__restrict__ dst = plane_at(dsts, blockIdx.z);
    static_assert(swaps<MOVE>(), "the mirrors have their own kernel");
    __shared__ uint4 s_raw[TILE * TILE_BYTE_PITCH / 16]; // either path's tile
    int bx = blockIdx.x * TILE, by = blockIdx.y * TILE;
    int t = threadIdx.x;
    if (vec && bx + TILE <= w && by + TILE <= h) {
        constexpr bool rev_rows = MOVE == GPUIMG_MOVE_ROTATE270; // output rows run backwards
        constexpr bool rev_cols = MOVE == GPUIMG_MOVE_ROTATE90;  // output columns do
        uint32_t *s_words = reinterpret_cast<uint32_t *>(s_raw);
        int lane = t % 32, warp = t / 32;
        int tx = lane % 8 + 8 * (warp % 2); // input word column, 0..15
        int ty = lane / 8 + 4 * (warp / 2); // input row group, 0..15
        const uint8_t *in = src + (size_t)(by + 4 * ty) * w + bx + 4 * tx;
        uint32_t a[4], col[4];
#pragma unroll
        for (int i = 0; i < 4; i++) // reversed rows reverse the bytes of each column
            a[rev_cols ? 3 - i : i] = *reinterpret_cast<const uint32_t *>(in + (size_t)i * w);
        transpose4x4(a, col);
        int c = rev_cols ? TILE_WORDS - 1 - ty : ty;
#pragma unroll
        for (int j = 0; j < 4; j++) {
            int R = rev_rows ? TILE - 1 - (4 * tx + j) : 4 * tx + j;
            s_words[tile_word(R, c)] = col[j];
        }
        __syncthreads();
        int R = t / 4, u = t % 4; // this thread's output row and uint4 in the tile
        uint4 v = *reinterpret_cast<const uint4 *>(s_words + tile_word(R, 4 * u));
        // The output tile's top-left corner.
        int ox0 = MOVE == GPUIMG_MOVE_ROTATE90 ? h - by - TILE : by;
        int oy0 = MOVE == GPUIMG_MOVE_ROTATE270 ? w - bx - TILE : bx;
        uint8_t *out = dst + (size_t)(oy0 + R) * h + ox0 + 16 * u;
        if (vec16) {
            *reinterpret_cast<uint4 *>(out) = v;
        } else {
            uint32_t *o = reinterpret_cast<uint32_t *>(out);
            o[0] = v.x, o[1] = v.y, o[2] = v.z, o[3] = v.w;
        }
        return;
    }
    uint8_t *s_bytes = reinterpret_cast<uint8_t *>(s_raw);
    for (int i = t; i < TILE * TILE; i += TILE_THREADS) {
        int r = i / TILE, c = i % TILE; // lanes along an input row
        int sx = bx + c, sy = by + r;
        if (sx < w && sy < h)
            s_bytes[r * TILE_BYTE_PITCH + c] = src[(size_t)sy * w + sx];
    }
    __syncthreads();
    for (int i = t; i < TILE * TILE; i += TILE_THREADS) {
        int c = i / TILE, r = i % TILE; // lanes down an input column: along an output row
        int sx = bx + c, sy = by + r;
        if (sx >= w || sy >= h)
            continue;
        int ox, oy;
        move_target<MOVE>(sx, sy, w, h, ox, oy);
        dst[(size_t)oy * h + ox] = s_bytes[r * TILE_BYTE_PITCH + c];
    }
}

// reverse_bytes: the bytes of v in the opposite order (a mirrored row
// segment). Per thread, registers only.
__device__ __forceinline__ uint8_t reverse_bytes(uint8_t v)
{
    return v;
}

__device__ __forceinline__ uint32_t reverse_bytes(uint32_t v)
{
    return __byte_perm(v, 0, 0x0123);
}

__device__ __forceinline__ uint4 reverse_bytes(uint4 v)
{
    return make_uint4(reverse_bytes(v.w), reverse_bytes(v.z), reverse_bytes(v.y),
                      reverse_bytes(v.x));
}

// Flip h, flip v, rotate 180: row blockIdx.y, units (T: uint4, uint32_t or
// uint8_t, whichever divides w with aligned buffers) from blockIdx.x.
template <gpuimg_move MOVE, typename T>
__global__ void __launch_bounds__(MIRROR_THREADS)
    mirror_kernel(gpuimg_dplanes srcs, gpuimg_dplanes dsts, int w, int h)
{
    const uint8_t *__restrict__ src = plane_at(srcs, blockIdx.z);
    uint8_t *__restrict__ dst = plane_at(dsts, blockIdx.z);
    static_assert(!swaps<MOVE>(), "the transposing moves have their own kernel");
    int n = w / (int)sizeof(T); // units per row
    int k = blockIdx.x * MIRROR_THREADS + threadIdx.x;
    int y = blockIdx.y;
    if (k >= n)
        return;
    int oy = MOVE == GPUIMG_MOVE_FLIP_H ? y : h - 1 - y;
    const T *in = reinterpret_cast<const T *>(src + (size_t)y * w);
    T *out = reinterpret_cast<T *>(dst + (size_t)oy * w);
    if (MOVE == GPUIMG_MOVE_FLIP_V)
        out[k] = in[k];
    else
        out[n - 1 - k] = reverse_bytes(in[k]);
}

// Every plane in one launch (blockIdx.z): one plane of an 8K image moves in
// about 24 us, and a launch's ramp-up and tail cost a few of those.
// The vector paths need every plane's buffers aligned.
static uintptr_t addresses(gpuimg_dplanes a, gpuimg_dplanes b, int channels)
{
    uintptr_t bits = 0;
    for (int c = 0; c < channels; c++)
        bits |= (uintptr_t)a.p[c] | (uintptr_t)b.p[c];
    return bits;
}

template <gpuimg_move MOVE>
static void launch_transpose(gpuimg_dplanes s, gpuimg_dplanes d, int channels, int w, int h,
                             cudaStream_t stream)
{
    uintptr_t bits = addresses(s, d, channels), d_bits = addresses(d, d, channels);
    bool vec = w % 4 == 0 && h % 4 == 0 && bits % 4 == 0;
    bool vec16 = vec && h % 16 == 0 && d_bits % 16 == 0;
    dim3 grid(ceil_div(w, TILE), ceil_div(h, TILE), channels);
    transpose_kernel<MOVE><<<grid, TILE_THREADS, 0, stream>>>(s, d, w, h, vec, vec16);
}

template <gpuimg_move MOVE, typename T>
static void launch_mirror_units(gpuimg_dplanes s, gpuimg_dplanes d, int channels, int w, int h,
                                cudaStream_t stream)
{
    dim3 grid(ceil_div(w / (int)sizeof(T), MIRROR_THREADS), h, channels);
    mirror_kernel<MOVE, T><<<grid, MIRROR_THREADS, 0, stream>>>(s, d, w, h);
}

template <gpuimg_move MOVE>
static void launch_mirror(gpuimg_dplanes s, gpuimg_dplanes d, int channels, int w, int h,
                          cudaStream_t stream)
{
    // Every row start is aligned to the unit when the width and all
    // buffers are.
    uintptr_t align = addresses(s, d, channels) | (uintptr_t)w;
    if (align % 16 == 0)
        launch_mirror_units<MOVE, uint4>(s, d, channels, w, h, stream);
    else if (align % 4 == 0)
        launch_mirror_units<MOVE, uint32_t>(s, d, channels, w, h, stream);
    else
        launch_mirror_units<MOVE, uint8_t>(s, d, channels, w, h, stream);
}

extern "C" cudaError_t gpuimg__cuda_move(gpuimg_dplanes d_src, gpuimg_dplanes d_dst, int channels,
                                         int w, int h, gpuimg_move move, cudaStream_t stream)
{
    if (w <= 0 || h <= 0 || channels <= 0)
        return cudaSuccess;
    switch (move) {
    case GPUIMG_MOVE_TRANSPOSE:
        launch_transpose<GPUIMG_MOVE_TRANSPOSE>(d_src, d_dst, channels, w, h, stream);
        break;
    case GPUIMG_MOVE_ROTATE90:
        launch_transpose<GPUIMG_MOVE_ROTATE90>(d_src, d_dst, channels, w, h, stream);
        break;
    case GPUIMG_MOVE_ROTATE270:
        launch_transpose<GPUIMG_MOVE_ROTATE270>(d_src, d_dst, channels, w, h, stream);
        break;
    case GPUIMG_MOVE_ROTATE180:
        launch_mirror<GPUIMG_MOVE_ROTATE180>(d_src, d_dst, channels, w, h, stream);
        break;
    case GPUIMG_MOVE_FLIP_H:
        launch_mirror<GPUIMG_MOVE_FLIP_H>(d_src, d_dst, channels, w, h, stream);
        break;
    case GPUIMG_MOVE_FLIP_V:
        launch_mirror<GPUIMG_MOVE_FLIP_V>(d_src, d_dst, channels, w, h, stream);
        break;
    }
    return cudaGetLastError();
}
