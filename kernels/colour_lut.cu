// SPDX-License-Identifier: MIT
// colour_map on the device (SPEC §2 colour): every pixel of 3 planes
// through the conversion's 33^3 table by tetrahedral interpolation
// (src/core/colour_lut.h, the same code the CPU test of its accuracy
// runs).
//
// Memory: each thread takes 4 consecutive pixels, so that its reads and
// writes of each plane are one 4-value vector (uchar4 or ushort4): a warp
// covers 128 pixels of a plane in one coalesced request. The table (431
// KiB of floats) is read through the read-only cache (__ldg): too large
// for shared memory, but a photograph's neighbouring pixels fall in the
// same few cells, so nearly every read hits L1 or L2, and the kernel's
// DRAM traffic stays the planes' 6 values per pixel.
#include <cstdint>

#include "core/colour_lut.h"
#include "device.cuh"
#include "kernels.h"

namespace
{

constexpr int COLOUR_THREADS = 256;

template <typename T> struct Vec4;
template <> struct Vec4<uint8_t> {
    using type = uchar4;
};
template <> struct Vec4<uint16_t> {
    using type = ushort4;
};

template <typename T>
__global__ void colour_lut_kernel(const T *__restrict__ r, const T *__restrict__ g,
                                  const T *__restrict__ b, T *__restrict__ R, T *__restrict__ G,
                                  T *__restrict__ B, size_t n, const float *__restrict__ lut)
{
    using V = typename Vec4<T>::type;
    constexpr uint32_t top = sizeof(T) == 1 ? 255u : 65535u;
    const size_t quads = n / 4;
    for (size_t q = (size_t)blockIdx.x * COLOUR_THREADS + threadIdx.x; q < quads;
         q += (size_t)gridDim.x * COLOUR_THREADS) {
        V vr = reinterpret_cast<const V *>(r)[q], vg = reinterpret_cast<const V *>(g)[q],
          vb = reinterpret_cast<const V *>(b)[q];
        uint32_t o0[3], o1[3], o2[3], o3[3];
        gpuimg__colour_tetra(lut, vr.x, vg.x, vb.x, top, o0);
        gpuimg__colour_tetra(lut, vr.y, vg.y, vb.y, top, o1);
        gpuimg__colour_tetra(lut, vr.z, vg.z, vb.z, top, o2);
        gpuimg__colour_tetra(lut, vr.w, vg.w, vb.w, top, o3);
        reinterpret_cast<V *>(R)[q] = V{(T)o0[0], (T)o1[0], (T)o2[0], (T)o3[0]};
        reinterpret_cast<V *>(G)[q] = V{(T)o0[1], (T)o1[1], (T)o2[1], (T)o3[1]};
        reinterpret_cast<V *>(B)[q] = V{(T)o0[2], (T)o1[2], (T)o2[2], (T)o3[2]};
    }
    // the last n % 4 pixels, one per thread of the first block
    size_t i = quads * 4 + threadIdx.x;
    if (blockIdx.x == 0 && i < n) {
        uint32_t o[3];
        gpuimg__colour_tetra(lut, r[i], g[i], b[i], top, o);
        R[i] = (T)o[0], G[i] = (T)o[1], B[i] = (T)o[2];
    }
}

} // namespace

extern "C" cudaError_t gpuimg__cuda_colour_lut(gpuimg_dplanes d_src, gpuimg_dplanes d_dst, size_t n,
                                               int depth, const float *d_lut, cudaStream_t stream)
{
    if (n == 0)
        return cudaSuccess;
    return by_depth(depth, [&](auto v) {
        using T = decltype(v);
        int blocks = gpuimg__grid_for((n + 3) / 4, COLOUR_THREADS);
        colour_lut_kernel<T><<<blocks, COLOUR_THREADS, 0, stream>>>(
            reinterpret_cast<const T *>(d_src.p[0]), reinterpret_cast<const T *>(d_src.p[1]),
            reinterpret_cast<const T *>(d_src.p[2]), reinterpret_cast<T *>(d_dst.p[0]),
            reinterpret_cast<T *>(d_dst.p[1]), reinterpret_cast<T *>(d_dst.p[2]), n, d_lut);
        return cudaGetLastError();
    });
}
