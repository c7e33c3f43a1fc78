// SPDX-License-Identifier: MIT
// Interleaved (array of structures: RGBRGB...) <-> planes (structure of
// arrays: RRR... GGG... BBB...).
//
// Both are pure copies, so the goal is the device-to-device copy bandwidth:
// every global access is a 16-byte vector (uint4), coalesced across the warp.
// Each warp owns a chunk of 512 pixels, 16 per lane, so a lane produces (or
// consumes) exactly one uint4 per plane. The interleaved side of the chunk is
// 512 * C bytes = 32 * C uint4; the warp moves it with C instructions in which
// lane i touches uint4 i, 32 + i, 64 + i...: 512 contiguous bytes per
// instruction. Lane i's own 16 pixels, though, are uint4 C*i .. C*i + C-1, so
// the warp passes them through its own slice of shared memory (a __syncwarp,
// no block barrier) and the lane then swaps bytes between planes in registers
// with __byte_perm (PRMT), per 16 pixels: 8 for 2 channels, 24 for 3, 32
// for 4 (four 4 x 4 byte transposes).
//
// Shared memory bank pattern: a 16-byte access is served a quarter-warp (8
// lanes, 128 bytes) at a time, conflict-free when the 8 lanes touch 8
// different 16-byte columns, i.e. units (16-byte index) that differ mod 8.
// The global side touches units 32k + lane: consecutive, fine. The pixel side
// touches units C*lane + k: for C = 3 the 8 lanes of a quarter step by 3,
// and 3 is odd, so 3*lane mod 8 hits all 8 columns (a stride of 12 words,
// conflict-free). For C = 2 and 4 the stride is even (2- and 4-way
// conflicts), so those store unit u at u ^ ((u >> 3) & 7): the XOR stays
// inside u's row of 8 columns, is a permutation of the 8 consecutive units of
// the global side, and sends the C*lane + k of a quarter to 8 columns.
//
// 16 bits: the same kernels on T = uint16_t. A uint4 holds 8 values, so a
// lane owns 8 pixels and a warp's chunk is 256 pixels, 256 * C values =
// 32 * C uint4: the global accesses, the shared staging and its bank
// pattern (all counted in 16-byte units) are exactly the 8-bit ones. Only
// the register shuffle differs: it moves 16-bit halves, and since the two
// values of an output word each lie whole in one input word, every output
// word is one PRMT (gather_bytes with two byte pairs), for any C.
//
// Chunks start at multiples of 512 (8 bits) or 256 (16 bits) pixels, so
// with planes and the interleaved buffer 16-byte aligned every vector is
// aligned. The last, partial chunk (and any misaligned call) is copied
// value by value, never touching a value past `pixels` (planes) or
// `pixels * channels` (interleaved).
#include <type_traits>

#include "device.cuh"
#include "kernels.h"

constexpr int LAYOUT_THREADS = 256;
constexpr int LAYOUT_WARPS = LAYOUT_THREADS / 32;
static_assert(LAYOUT_THREADS % 32 == 0, "whole warps");

// The chunking at value type T: a lane's pixels fill one uint4 per plane.
template <typename T> struct Layout {
    static constexpr int LANE_PIXELS = (int)(sizeof(uint4) / sizeof(T)); // 16 or 8
    static constexpr int WARP_PIXELS = 32 * LANE_PIXELS;
    static constexpr int BLOCK_PIXELS = LAYOUT_WARPS * WARP_PIXELS; // the launcher's grid unit
};

// swizzle_unit: where 16-byte unit u of a warp's interleaved chunk lives in
// its shared slice (see the header: identity for odd C, an XOR within each
// row of 8 units for even C). Called by both sides of the staging; a
// permutation of [0, 32 * C).
template <int C> __device__ __forceinline__ int swizzle_unit(int u)
{
    return C % 2 ? u : u ^ ((u >> 3) & 7);
}

// gather_bytes: byte k of the result is byte p_k of the little-endian byte
// string w[] (p_k < 4 * N). Called with positions that are compile-time
// constants after unrolling, so the branches fold: one PRMT when the four
// bytes lie in at most two words, two for three words, three for four.
template <int N>
__device__ __forceinline__ uint32_t gather_bytes(const uint32_t (&w)[N], int p0, int p1, int p2,
                                                 int p3)
{
    const int p[4] = {p0, p1, p2, p3};
    int q[4]; // the distinct words, in order of first use
    int nq = 0;
    for (int k = 0; k < 4; k++) {
        bool seen = false;
        for (int j = 0; j < nq; j++)
            seen = seen || q[j] == p[k] >> 2;
        if (!seen)
            q[nq++] = p[k] >> 2;
    }
    // Selector nibble for slot k from the pair (x, y) of words, or 0 (a
    // placeholder overwritten by a later PRMT) when the byte is in neither.
    auto sel = [&](int x, int y) {
        unsigned s = 0;
        for (int k = 0; k < 4; k++) {
            int wk = p[k] >> 2;
            unsigned nib = wk == x ? (p[k] & 3) : wk == y ? 4 + (p[k] & 3) : 0;
            s |= nib << (4 * k);
        }
        return s;
    };
    if (nq == 1) {
        unsigned s = sel(q[0], q[0]);
        return s == 0x3210 ? w[q[0]] : __byte_perm(w[q[0]], 0, s);
    }
    uint32_t r = __byte_perm(w[q[0]], w[q[1]], sel(q[0], q[1]));
    if (nq == 2)
        return r;
    // Slots already right in r keep their byte (selector k); the rest come
    // from the third word, or from a PRMT of the third and fourth.
    unsigned keep = 0, take = nq == 3 ? sel(-1, q[2]) : 0;
    for (int k = 0; k < 4; k++) {
        int wk = p[k] >> 2;
        bool in_r = wk == q[0] || wk == q[1];
        keep |= (in_r ? (unsigned)k : 4u + k) << (4 * k);
        if (nq == 3 && in_r)
            take = (take & ~(0xfu << (4 * k))) | (unsigned)k << (4 * k);
    }
    if (nq == 3)
        return __byte_perm(r, w[q[2]], take);
    uint32_t r2 = __byte_perm(w[q[2]], w[q[3]], sel(q[2], q[3]));
    return __byte_perm(r, r2, keep);
}

__device__ __forceinline__ uint32_t get_word(const uint4 &v, int i)
{
    return i == 0 ? v.x : i == 1 ? v.y : i == 2 ? v.z : v.w;
}

template <int N> __device__ __forceinline__ void unpack(const uint4 (&v)[N], uint32_t (&w)[4 * N])
{
#pragma unroll
    for (int k = 0; k < N; k++) {
        w[4 * k] = v[k].x;
        w[4 * k + 1] = v[k].y;
        w[4 * k + 2] = v[k].z;
        w[4 * k + 3] = v[k].w;
    }
}

// shuffle_to_planes: this lane's interleaved pixels (w: its C uint4, as
// 4C words) into one uint4 per plane (v[c]). At depth 8, 16 pixels: C = 4
// is four 4 x 4 byte transposes, other C gather bytes; at depth 16, 8
// pixels: word j of plane c is values (2j) C + c and (2j + 1) C + c, two
// byte pairs.
template <int C>
__device__ __forceinline__ void shuffle_to_planes(const uint32_t (&w)[4 * C], uint4 (&v)[C],
                                                  uint8_t)
{
    if constexpr (C == 4) {
#pragma unroll
        for (int k = 0; k < 4; k++) {
            // Pixels 4k .. 4k + 3, a 4 x 4 block whose columns are the planes.
            uint32_t a[4] = {w[4 * k], w[4 * k + 1], w[4 * k + 2], w[4 * k + 3]}, o[4];
            transpose4x4(a, o);
            v[k] = make_uint4(o[0], o[1], o[2], o[3]);
        }
        uint4 t[4] = {v[0], v[1], v[2], v[3]};
#pragma unroll
        for (int c = 0; c < 4; c++) // word k of plane c is column c of block k
            v[c] = make_uint4(get_word(t[0], c), get_word(t[1], c), get_word(t[2], c),
                              get_word(t[3], c));
    } else {
#pragma unroll
        for (int c = 0; c < C; c++) {
            uint32_t o[4]; // word j: pixels 4j .. 4j + 3 of plane c
#pragma unroll
            for (int j = 0; j < 4; j++) {
                int p = 4 * j * C + c;
                o[j] = gather_bytes(w, p, p + C, p + 2 * C, p + 3 * C);
            }
            v[c] = make_uint4(o[0], o[1], o[2], o[3]);
        }
    }
}

template <int C>
__device__ __forceinline__ void shuffle_to_planes(const uint32_t (&w)[4 * C], uint4 (&v)[C],
                                                  uint16_t)
{
#pragma unroll
    for (int c = 0; c < C; c++) {
        uint32_t o[4]; // word j: pixels 2j, 2j + 1 of plane c
#pragma unroll
        for (int j = 0; j < 4; j++) {
            int p = 2 * (2 * j * C + c), q = 2 * ((2 * j + 1) * C + c); // their bytes
            o[j] = gather_bytes(w, p, p + 1, q, q + 1);
        }
        v[c] = make_uint4(o[0], o[1], o[2], o[3]);
    }
}

// shuffle_to_pixels: the inverse, one uint4 per plane (w: word 4c + j is
// word j of plane c) into this lane's C uint4 of interleaved pixels.
template <int C>
__device__ __forceinline__ void shuffle_to_pixels(const uint32_t (&w)[4 * C], uint4 (&v)[C],
                                                  uint8_t)
{
    if constexpr (C == 4) {
#pragma unroll
        for (int k = 0; k < 4; k++) {
            // Word k of the 4 planes is a 4 x 4 block; its columns are pixels 4k .. 4k + 3.
            uint32_t a[4] = {w[k], w[4 + k], w[8 + k], w[12 + k]}, o[4];
            transpose4x4(a, o);
            v[k] = make_uint4(o[0], o[1], o[2], o[3]);
        }
    } else {
#pragma unroll
        for (int k = 0; k < C; k++) {
            uint32_t o[4]; // interleaved bytes 16k + 4j .. 16k + 4j + 3 of this lane's pixels
#pragma unroll
            for (int j = 0; j < 4; j++) {
                int p[4];
#pragma unroll
                for (int b = 0; b < 4; b++) {
                    int n = 16 * k + 4 * j + b; // pixel n / C, plane n % C
                    p[b] = 16 * (n % C) + n / C;
                }
                o[j] = gather_bytes(w, p[0], p[1], p[2], p[3]);
            }
            v[k] = make_uint4(o[0], o[1], o[2], o[3]);
        }
    }
}

template <int C>
__device__ __forceinline__ void shuffle_to_pixels(const uint32_t (&w)[4 * C], uint4 (&v)[C],
                                                  uint16_t)
{
#pragma unroll
    for (int k = 0; k < C; k++) {
        uint32_t o[4]; // interleaved values 8k + 2j, 8k + 2j + 1 of this lane's pixels
#pragma unroll
        for (int j = 0; j < 4; j++) {
            int p[2];
#pragma unroll
            for (int b = 0; b < 2; b++) {
                int n = 8 * k + 2 * j + b;         // pixel n / C, plane n % C
                p[b] = 16 * (n % C) + 2 * (n / C); // its first byte among the planes' words
            }
            o[j] = gather_bytes(w, p[0], p[0] + 1, p[1], p[1] + 1);
        }
        v[k] = make_uint4(o[0], o[1], o[2], o[3]);
    }
}

template <int C, typename T>
__global__ void __launch_bounds__(LAYOUT_THREADS)
    deinterleave_kernel(const uint8_t *__restrict__ src, gpuimg_dplanes dst, size_t pixels,
                        bool aligned)
{
    constexpr int WARP_PIXELS = Layout<T>::WARP_PIXELS;
    __shared__ uint4 s_units[LAYOUT_WARPS][32 * C];
    int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    size_t first = ((size_t)blockIdx.x * LAYOUT_WARPS + warp) * WARP_PIXELS;
    if (first >= pixels)
        return;
    size_t end = min(pixels, first + WARP_PIXELS);
    if (!aligned || end - first < (size_t)WARP_PIXELS) {
        // The partial chunk: values, still consecutive lanes on consecutive pixels.
        const T *in = reinterpret_cast<const T *>(src);
        for (size_t p = first + lane; p < end; p += 32)
#pragma unroll
            for (int c = 0; c < C; c++)
                reinterpret_cast<T *>(dst.p[c])[p] = in[p * C + c];
        return;
    }
    const uint4 *in = reinterpret_cast<const uint4 *>(src + first * C * sizeof(T));
    uint4 v[C];
#pragma unroll
    for (int k = 0; k < C; k++)
        v[k] = in[32 * k + lane];
    if constexpr (C > 1) {
        uint4 *s = s_units[warp];
#pragma unroll
        for (int k = 0; k < C; k++)
            s[swizzle_unit<C>(32 * k + lane)] = v[k];
        __syncwarp();
#pragma unroll
        for (int k = 0; k < C; k++)
            v[k] = s[swizzle_unit<C>(C * lane + k)];
    }
    uint32_t w[4 * C]; // this lane's pixels, interleaved
    unpack(v, w);
    shuffle_to_planes<C>(w, v, T());
#pragma unroll
    for (int c = 0; c < C; c++)
        reinterpret_cast<uint4 *>(dst.p[c] + first * sizeof(T))[lane] = v[c];
}

template <int C, typename T>
__global__ void __launch_bounds__(LAYOUT_THREADS)
    interleave_kernel(gpuimg_dplanes src, uint8_t *__restrict__ dst, size_t pixels, bool aligned)
{
    constexpr int WARP_PIXELS = Layout<T>::WARP_PIXELS;
    __shared__ uint4 s_units[LAYOUT_WARPS][32 * C];
    int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    size_t first = ((size_t)blockIdx.x * LAYOUT_WARPS + warp) * WARP_PIXELS;
    if (first >= pixels)
        return;
    size_t end = min(pixels, first + WARP_PIXELS);
    if (!aligned || end - first < (size_t)WARP_PIXELS) {
        T *out = reinterpret_cast<T *>(dst);
        for (size_t p = first + lane; p < end; p += 32)
#pragma unroll
            for (int c = 0; c < C; c++)
                out[p * C + c] = reinterpret_cast<const T *>(src.p[c])[p];
        return;
    }
    uint4 v[C];
#pragma unroll
    for (int c = 0; c < C; c++)
        v[c] = reinterpret_cast<const uint4 *>(src.p[c] + first * sizeof(T))[lane];
    uint32_t w[4 * C]; // word 4c + j: word j of this lane's pixels of plane c
    unpack(v, w);
    shuffle_to_pixels<C>(w, v, T());
    if constexpr (C > 1) {
        uint4 *s = s_units[warp];
#pragma unroll
        for (int k = 0; k < C; k++)
            s[swizzle_unit<C>(C * lane + k)] = v[k];
        __syncwarp();
#pragma unroll
        for (int k = 0; k < C; k++)
            v[k] = s[swizzle_unit<C>(32 * k + lane)];
    }
    uint4 *out = reinterpret_cast<uint4 *>(dst + first * C * sizeof(T));
#pragma unroll
    for (int k = 0; k < C; k++)
        out[32 * k + lane] = v[k];
}

// Vectors are only valid when every chunk start is 16-byte aligned.
static bool aligned16(const void *p)
{
    return (uintptr_t)p % 16 == 0;
}

// Runs launch(std::integral_constant<int, C>()) for C = channels, 1..4: the
// kernels are instantiated per channel count, and this is the one switch.
template <typename Launch> static cudaError_t by_channels(int channels, Launch launch)
{
    switch (channels) {
    case 1: launch(std::integral_constant<int, 1>()); break;
    case 2: launch(std::integral_constant<int, 2>()); break;
    case 3: launch(std::integral_constant<int, 3>()); break;
    case 4: launch(std::integral_constant<int, 4>()); break;
    default: return cudaErrorInvalidValue;
    }
    return cudaGetLastError();
}

extern "C" cudaError_t gpuimg__cuda_deinterleave(const uint8_t *d_src, gpuimg_dplanes dst,
                                                 int channels, int depth, size_t pixels,
                                                 cudaStream_t stream)
{
    if (pixels == 0)
        return cudaSuccess;
    bool aligned = aligned16(d_src);
    for (int c = 0; c < channels && c < 4; c++)
        aligned = aligned && aligned16(dst.p[c]);
    return by_depth(depth, [&](auto v) {
        using T = decltype(v);
        int blocks = ceil_div((long long)pixels, Layout<T>::BLOCK_PIXELS);
        return by_channels(channels, [&](auto C) {
            deinterleave_kernel<C(), T>
                <<<blocks, LAYOUT_THREADS, 0, stream>>>(d_src, dst, pixels, aligned);
        });
    });
}

extern "C" cudaError_t gpuimg__cuda_interleave(gpuimg_dplanes src, uint8_t *d_dst, int channels,
                                               int depth, size_t pixels, cudaStream_t stream)
{
    if (pixels == 0)
        return cudaSuccess;
    bool aligned = aligned16(d_dst);
    for (int c = 0; c < channels && c < 4; c++)
        aligned = aligned && aligned16(src.p[c]);
    return by_depth(depth, [&](auto v) {
        using T = decltype(v);
        int blocks = ceil_div((long long)pixels, Layout<T>::BLOCK_PIXELS);
        return by_channels(channels, [&](auto C) {
            interleave_kernel<C(), T>
                <<<blocks, LAYOUT_THREADS, 0, stream>>>(src, d_dst, pixels, aligned);
        });
    });
}
