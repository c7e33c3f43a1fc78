// SPDX-License-Identifier: MIT
// The tiled transpose, rotate 90 / 270 built on it, and the mirrors (flip h,
// flip v, rotate 180) that need no transpose.
//
// These are copies, so the goal is the copy bandwidth, which byte accesses do
// not reach: the global side must move 4 to 16 bytes per lane. Each kernel
// is a template on the value type T; sizes and coordinates count values.
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
// 16 bits. The tile is 64 x 64 values (8 KB), so the same 256 threads each
// move a 4 x 4 block of 16-bit values: one 8-byte load (uint2) from each
// of 4 input rows (8 lanes cover 64 bytes of a row), a transpose of 2 x 2
// blocks of 16-bit halves in registers (8 PRMTs, selectors 0x5410 and
// 0x7632), and 4 uint2 stores, now pieces of 4 output rows, to a shared
// tile of 64 output rows x 16 uint2. The bank behaviour differs from the
// byte tile's: an output row is now 128 bytes, one whole 32-bank line, so
// row R's uint2 c sits in banks 2c, 2c + 1 whatever R, and the 8 tx of a
// half-warp (the unit that 8-byte accesses are served in) would all hit one
// bank pair. The swizzle puts uint2 c of row R at c ^ (((R >> 2) & 7) << 1):
// - uint2 stores: a half-warp is 8 tx x 2 ty, ty = 4k, 4k + 1 (bit 0 of c);
//   the 8 tx give 8 different R >> 2, so the XOR gives 8 different bits
//   1..3: 16 lanes, 16 bank pairs.
// - uint4 loads (2 per thread, 8 lanes per output row, 128 bytes): the XOR
//   is even, so each uint4's two uint2 stay together, in order and aligned
//   (uint4 u of row R lives at u ^ ((R >> 2) & 7)), and a quarter-warp reads
//   its row's 8 uint4 from 8 different 16-byte columns.
// Both sides conflict-free again; the global side still stores 16 bytes per
// lane (h a multiple of 8 values, else two 8-byte stores). The edge path's
// tile pitch is 66 values = 33 words, odd, for the same 32-banks-down-a-
// column reason as the byte tile's 17 words.
//
// Mirrors: no data crosses rows, so each thread moves one uint4 (or 32-bit
// word, or value, whichever divides the row's bytes) from an input row to
// the mirrored place in the output row, reversing its values (bytes or
// 16-bit halves) with PRMT for flip h and rotate 180. Consecutive lanes,
// consecutive (or mirrored consecutive) vectors: coalesced on both sides.
#include "device.cuh"
#include "kernels.h"

constexpr int TILE = 64;             // values a side, at either depth
constexpr int TILE_WORDS = TILE / 4; // 4-value pieces (a word or a uint2) per tile row
constexpr int TILE_THREADS = 256;    // one 4 x 4 block each
static_assert(TILE_WORDS * TILE_WORDS == TILE_THREADS, "one 4 x 4 block per thread");
static_assert(TILE_THREADS == 8 * 32 && TILE_WORDS == 16, "the warp shape and the swizzles assume "
                                                          "8 warps of 8 tx x 4 ty, 16-piece rows");

// The edge path's tile: pitch in values (an odd number of words, so 32
// consecutive rows of one column fall in 32 banks), and each path's bytes.
template <typename T> struct TileShape {
    static constexpr int PITCH = sizeof(T) == 1 ? TILE + 4 : TILE + 2; // 17 or 33 words
    static constexpr int EDGE_BYTES = TILE * PITCH * (int)sizeof(T);
    static constexpr int VEC_BYTES = TILE * TILE * (int)sizeof(T);
    static constexpr int BYTES = EDGE_BYTES > VEC_BYTES ? EDGE_BYTES : VEC_BYTES;
    static_assert(PITCH * sizeof(T) % 4 == 0 && (PITCH * sizeof(T) / 4) % 2 == 1,
                  "an odd word pitch puts 32 consecutive rows in 32 banks");
    static_assert(BYTES % 16 == 0, "the shared tile is a whole number of uint4");
};

constexpr int MIRROR_THREADS = 128; // per block; a block works in one row

template <gpuimg_move MOVE> __device__ __forceinline__ constexpr bool swaps()
{
    return MOVE == GPUIMG_MOVE_TRANSPOSE || MOVE == GPUIMG_MOVE_ROTATE90 ||
           MOVE == GPUIMG_MOVE_ROTATE270;
}

// tile_word: index of word c of output row R in the 64 x 16-word byte tile,
// swizzled as the header explains. Called by both sides of the 8-bit vector
// path.
__device__ __forceinline__ int tile_word(int R, int c)
{
    return (TILE_WORDS * R + c) ^ (((R >> 2) & 7) << 2);
}

// tile_pair: index of uint2 c of output row R in the 64 x 16-uint2 tile of
// 16-bit values, swizzled as the header explains (an even XOR, so the
// uint4 of uint2 2u, 2u + 1 is uint4 R * 8 + (u ^ ((R >> 2) & 7))). Called
// by both sides of the 16-bit vector path.
__device__ __forceinline__ int tile_pair(int R, int c)
{
    return TILE_WORDS * R + (c ^ (((R >> 2) & 7) << 1));
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

// The vector path of one whole tile at depth 8 (the header's byte tile).
template <gpuimg_move MOVE>
__device__ __forceinline__ void transpose_tile_vec(const uint8_t *__restrict__ src,
                                                   uint8_t *__restrict__ dst, int w, int h, int bx,
                                                   int by, bool vec16, uint4 *s_raw, uint8_t)
{
    constexpr bool rev_rows = MOVE == GPUIMG_MOVE_ROTATE270; // output rows run backwards
    constexpr bool rev_cols = MOVE == GPUIMG_MOVE_ROTATE90;  // output columns do
    uint32_t *s_words = reinterpret_cast<uint32_t *>(s_raw);
    int t = threadIdx.x, lane = t % 32, warp = t / 32;
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
}

// The same at depth 16 (the header's 16-bit tile): 8-byte pieces.
template <gpuimg_move MOVE>
__device__ __forceinline__ void
transpose_tile_vec(const uint8_t *__restrict__ src_bytes, uint8_t *__restrict__ dst_bytes, int w,
                   int h, int bx, int by, bool vec16, uint4 *s_raw, uint16_t)
{
    constexpr bool rev_rows = MOVE == GPUIMG_MOVE_ROTATE270;
    constexpr bool rev_cols = MOVE == GPUIMG_MOVE_ROTATE90;
    const uint16_t *src = reinterpret_cast<const uint16_t *>(src_bytes);
    uint16_t *dst = reinterpret_cast<uint16_t *>(dst_bytes);
    uint2 *s_pairs = reinterpret_cast<uint2 *>(s_raw);
    int t = threadIdx.x, lane = t % 32, warp = t / 32;
    int tx = lane % 8 + 8 * (warp % 2); // input 4-value column, 0..15
    int ty = lane / 8 + 4 * (warp / 2); // input row group, 0..15
    const uint16_t *in = src + (size_t)(by + 4 * ty) * w + bx + 4 * tx;
    uint2 a[4];
#pragma unroll
    for (int i = 0; i < 4; i++) // reversed rows reverse the values of each column
        a[rev_cols ? 3 - i : i] = *reinterpret_cast<const uint2 *>(in + (size_t)i * w);
    // Column j of the 4 x 4 block: values a[0][j] .. a[3][j], low to high.
    uint2 col[4];
    col[0] = make_uint2(__byte_perm(a[0].x, a[1].x, 0x5410), __byte_perm(a[2].x, a[3].x, 0x5410));
    col[1] = make_uint2(__byte_perm(a[0].x, a[1].x, 0x7632), __byte_perm(a[2].x, a[3].x, 0x7632));
    col[2] = make_uint2(__byte_perm(a[0].y, a[1].y, 0x5410), __byte_perm(a[2].y, a[3].y, 0x5410));
    col[3] = make_uint2(__byte_perm(a[0].y, a[1].y, 0x7632), __byte_perm(a[2].y, a[3].y, 0x7632));
    int c = rev_cols ? TILE_WORDS - 1 - ty : ty;
#pragma unroll
    for (int j = 0; j < 4; j++) {
        int R = rev_rows ? TILE - 1 - (4 * tx + j) : 4 * tx + j;
        s_pairs[tile_pair(R, c)] = col[j];
    }
    __syncthreads();
    int ox0 = MOVE == GPUIMG_MOVE_ROTATE90 ? h - by - TILE : by;
    int oy0 = MOVE == GPUIMG_MOVE_ROTATE270 ? w - bx - TILE : bx;
#pragma unroll
    for (int k = 0; k < 2; k++) {
        int R = t / 8 + 32 * k, u = t % 8; // output row, uint4 (8 values) in it
        uint4 v = *reinterpret_cast<const uint4 *>(s_pairs + tile_pair(R, 2 * u));
        uint16_t *out = dst + (size_t)(oy0 + R) * h + ox0 + 8 * u;
        if (vec16) {
            *reinterpret_cast<uint4 *>(out) = v;
        } else {
            uint2 *o = reinterpret_cast<uint2 *>(out);
            o[0] = make_uint2(v.x, v.y), o[1] = make_uint2(v.z, v.w);
        }
    }
}

// vec: w, h multiples of 4 and every buffer aligned to 4 values (4 or 8
// bytes); vec16: also output rows of a multiple of 16 bytes (h * sizeof(T))
// and d_dst 16-byte aligned (the launcher decides).
template <gpuimg_move MOVE, typename T>
__global__ void __launch_bounds__(TILE_THREADS)
    transpose_kernel(gpuimg_dplanes srcs, gpuimg_dplanes dsts, int w, int h, bool vec, bool vec16)
{
    const uint8_t *__restrict__ src = plane_at(srcs, blockIdx.z);
    uint8_t *__restrict__ dst = plane_at(dsts, blockIdx.z);
    static_assert(swaps<MOVE>(), "the mirrors have their own kernel");
    __shared__ uint4 s_raw[TileShape<T>::BYTES / 16]; // either path's tile
    int bx = blockIdx.x * TILE, by = blockIdx.y * TILE;
    int t = threadIdx.x;
    if (vec && bx + TILE <= w && by + TILE <= h) {
        transpose_tile_vec<MOVE>(src, dst, w, h, bx, by, vec16, s_raw, T());
        return;
    }
    constexpr int PITCH = TileShape<T>::PITCH;
    const T *src_v = reinterpret_cast<const T *>(src);
    T *dst_v = reinterpret_cast<T *>(dst);
    T *s_vals = reinterpret_cast<T *>(s_raw);
    for (int i = t; i < TILE * TILE; i += TILE_THREADS) {
        int r = i / TILE, c = i % TILE; // lanes along an input row
        int sx = bx + c, sy = by + r;
        if (sx < w && sy < h)
            s_vals[r * PITCH + c] = src_v[(size_t)sy * w + sx];
    }
    __syncthreads();
    for (int i = t; i < TILE * TILE; i += TILE_THREADS) {
        int c = i / TILE, r = i % TILE; // lanes down an input column: along an output row
        int sx = bx + c, sy = by + r;
        if (sx >= w || sy >= h)
            continue;
        int ox, oy;
        move_target<MOVE>(sx, sy, w, h, ox, oy);
        dst_v[(size_t)oy * h + ox] = s_vals[r * PITCH + c];
    }
}

// reverse_values: the values (T) of a unit in the opposite order (a mirrored
// row segment). Per thread, registers only.
template <typename T> __device__ __forceinline__ T reverse_values(T v)
{
    return v; // a unit of one value
}

template <typename T> __device__ __forceinline__ uint32_t reverse_values(uint32_t v)
{
    return __byte_perm(v, 0, sizeof(T) == 1 ? 0x0123 : 0x1032);
}

template <typename T> __device__ __forceinline__ uint4 reverse_values(uint4 v)
{
    return make_uint4(reverse_values<T>(v.w), reverse_values<T>(v.z), reverse_values<T>(v.y),
                      reverse_values<T>(v.x));
}

// Flip h, flip v, rotate 180: row blockIdx.y, units (U: uint4, uint32_t or
// one value T, whichever divides the row's bytes with aligned buffers) from
// blockIdx.x.
template <gpuimg_move MOVE, typename T, typename U>
__global__ void __launch_bounds__(MIRROR_THREADS)
    mirror_kernel(gpuimg_dplanes srcs, gpuimg_dplanes dsts, int w, int h)
{
    const uint8_t *__restrict__ src = plane_at(srcs, blockIdx.z);
    uint8_t *__restrict__ dst = plane_at(dsts, blockIdx.z);
    static_assert(!swaps<MOVE>(), "the transposing moves have their own kernel");
    static_assert(sizeof(U) % sizeof(T) == 0, "whole values per unit");
    const size_t row_bytes = (size_t)w * sizeof(T);
    int n = (int)(row_bytes / sizeof(U)); // units per row
    int k = blockIdx.x * MIRROR_THREADS + threadIdx.x;
    int y = blockIdx.y;
    if (k >= n)
        return;
    int oy = MOVE == GPUIMG_MOVE_FLIP_H ? y : h - 1 - y;
    const U *in = reinterpret_cast<const U *>(src + (size_t)y * row_bytes);
    U *out = reinterpret_cast<U *>(dst + (size_t)oy * row_bytes);
    if (MOVE == GPUIMG_MOVE_FLIP_V)
        out[k] = in[k];
    else
        out[n - 1 - k] = reverse_values<T>(in[k]);
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

template <gpuimg_move MOVE, typename T>
static void launch_transpose(gpuimg_dplanes s, gpuimg_dplanes d, int channels, int w, int h,
                             cudaStream_t stream)
{
    uintptr_t bits = addresses(s, d, channels), d_bits = addresses(d, d, channels);
    bool vec = w % 4 == 0 && h % 4 == 0 && bits % (4 * sizeof(T)) == 0;
    bool vec16 = vec && h * sizeof(T) % 16 == 0 && d_bits % 16 == 0;
    dim3 grid(ceil_div(w, TILE), ceil_div(h, TILE), channels);
    transpose_kernel<MOVE, T><<<grid, TILE_THREADS, 0, stream>>>(s, d, w, h, vec, vec16);
}

template <gpuimg_move MOVE, typename T, typename U>
static void launch_mirror_units(gpuimg_dplanes s, gpuimg_dplanes d, int channels, int w, int h,
                                cudaStream_t stream)
{
    int units = (int)((size_t)w * sizeof(T) / sizeof(U));
    dim3 grid(ceil_div(units, MIRROR_THREADS), h, channels);
    mirror_kernel<MOVE, T, U><<<grid, MIRROR_THREADS, 0, stream>>>(s, d, w, h);
}

template <gpuimg_move MOVE, typename T>
static void launch_mirror(gpuimg_dplanes s, gpuimg_dplanes d, int channels, int w, int h,
                          cudaStream_t stream)
{
    // Every row start is aligned to the unit when the row's bytes and all
    // buffers are.
    uintptr_t align = addresses(s, d, channels) | (uintptr_t)((size_t)w * sizeof(T));
    if (align % 16 == 0)
        launch_mirror_units<MOVE, T, uint4>(s, d, channels, w, h, stream);
    else if (align % 4 == 0)
        launch_mirror_units<MOVE, T, uint32_t>(s, d, channels, w, h, stream);
    else
        launch_mirror_units<MOVE, T, T>(s, d, channels, w, h, stream);
}

extern "C" cudaError_t gpuimg__cuda_move(gpuimg_dplanes d_src, gpuimg_dplanes d_dst, int channels,
                                         int w, int h, int depth, gpuimg_move move,
                                         cudaStream_t stream)
{
    if (w <= 0 || h <= 0 || channels <= 0)
        return cudaSuccess;
    return by_depth(depth, [&](auto v) {
        using T = decltype(v);
        switch (move) {
        case GPUIMG_MOVE_TRANSPOSE:
            launch_transpose<GPUIMG_MOVE_TRANSPOSE, T>(d_src, d_dst, channels, w, h, stream);
            break;
        case GPUIMG_MOVE_ROTATE90:
            launch_transpose<GPUIMG_MOVE_ROTATE90, T>(d_src, d_dst, channels, w, h, stream);
            break;
        case GPUIMG_MOVE_ROTATE270:
            launch_transpose<GPUIMG_MOVE_ROTATE270, T>(d_src, d_dst, channels, w, h, stream);
            break;
        case GPUIMG_MOVE_ROTATE180:
            launch_mirror<GPUIMG_MOVE_ROTATE180, T>(d_src, d_dst, channels, w, h, stream);
            break;
        case GPUIMG_MOVE_FLIP_H:
            launch_mirror<GPUIMG_MOVE_FLIP_H, T>(d_src, d_dst, channels, w, h, stream);
            break;
        case GPUIMG_MOVE_FLIP_V:
            launch_mirror<GPUIMG_MOVE_FLIP_V, T>(d_src, d_dst, channels, w, h, stream);
            break;
        default: return cudaErrorInvalidValue;
        }
        return cudaGetLastError();
    });
}
