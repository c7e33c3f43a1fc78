// SPDX-License-Identifier: MIT
// colour_map on the device (SPEC §2 colour): every pixel of 3 planes
// through the conversion's 33^3 table by tetrahedral interpolation
// (src/core/colour_lut.h, the same code the CPU test of its accuracy
// runs).
//
// Memory: each thread takes 4 consecutive pixels, so that its reads and
// writes of each plane are one 4-value vector (uchar4 or ushort4): a warp
// covers 128 pixels of a plane in one coalesced request. The table (575
// KB: too large for shared memory) is read one node at a time as a float4
// through the read-only cache: 4 reads a pixel, and a photograph's
// neighbouring pixels fall in the same few cells, so nearly every read
// hits L1 or L2. At 8 bits the curves (3 x 256 floats in, 3 x 16385
// bytes out: 52 KB) go to shared memory once per block, and the grid is
// a few blocks per SM that stride over the image, so that each block
// loads them once; the 16-bit curves (393 KB) are read like the table.
#include <cstdint>

#include "core/colour_lut.h"
#include "device.cuh"
#include "kernels.h"

namespace
{

constexpr int COLOUR_THREADS = 256;
constexpr int CURVES8_BYTES = 3 * 256 * sizeof(float) + 3 * GPUIMG_COLOUR_OUT8;

template <typename T> struct Vec4;
template <> struct Vec4<uint8_t> {
    using type = uchar4;
};
template <> struct Vec4<uint16_t> {
    using type = ushort4;
};

// One pixel at 8 bits, through the shared curves.
__device__ __forceinline__ void pixel8(const float *__restrict__ table, const float *in8,
                                       const uint8_t *out8, uint32_t r, uint32_t g, uint32_t b,
                                       uint32_t o[3])
{
    const float scale = (float)(GPUIMG_COLOUR_GRID - 1);
    float v[3];
    gpuimg__colour_interp(table, in8[r] * scale, in8[256 + g] * scale, in8[512 + b] * scale, v);
    for (int c = 0; c < 3; c++)
        o[c] = out8[c * GPUIMG_COLOUR_OUT8 + gpuimg__colour_index8(v[c])];
}

template <typename T>
__global__ void colour_lut_kernel(const T *__restrict__ r, const T *__restrict__ g,
                                  const T *__restrict__ b, T *__restrict__ R, T *__restrict__ G,
                                  T *__restrict__ B, size_t n, const float *__restrict__ lut)
{
    using V = typename Vec4<T>::type;
    constexpr bool eight = sizeof(T) == 1;
    extern __shared__ float shared[]; // at 8 bits: in8, then out8 as bytes
    float *in8 = shared;
    uint8_t *out8 = reinterpret_cast<uint8_t *>(shared + 3 * 256);
    if (eight) {
        const float *curves = lut + GPUIMG_COLOUR_TABLE + 6 * GPUIMG_COLOUR_CURVE;
        for (int i = threadIdx.x; i < 3 * 256; i += COLOUR_THREADS)
            in8[i] = curves[i];
        for (int i = threadIdx.x; i < 3 * GPUIMG_COLOUR_OUT8; i += COLOUR_THREADS)
            out8[i] = (uint8_t)curves[3 * 256 + i];
        __syncthreads();
    }
    auto one = [&](uint32_t x, uint32_t y, uint32_t z, uint32_t o[3]) {
        if (eight)
            pixel8(lut, in8, out8, x, y, z, o);
        else
            gpuimg__colour_tetra(lut, x, y, z, 65535, o);
    };
    const size_t quads = n / 4;
    for (size_t q = (size_t)blockIdx.x * COLOUR_THREADS + threadIdx.x; q < quads;
         q += (size_t)gridDim.x * COLOUR_THREADS) {
        V vr = reinterpret_cast<const V *>(r)[q], vg = reinterpret_cast<const V *>(g)[q],
          vb = reinterpret_cast<const V *>(b)[q];
        uint32_t o0[3], o1[3], o2[3], o3[3];
        one(vr.x, vg.x, vb.x, o0);
        one(vr.y, vg.y, vb.y, o1);
        one(vr.z, vg.z, vb.z, o2);
        one(vr.w, vg.w, vb.w, o3);
        reinterpret_cast<V *>(R)[q] = V{(T)o0[0], (T)o1[0], (T)o2[0], (T)o3[0]};
        reinterpret_cast<V *>(G)[q] = V{(T)o0[1], (T)o1[1], (T)o2[1], (T)o3[1]};
        reinterpret_cast<V *>(B)[q] = V{(T)o0[2], (T)o1[2], (T)o2[2], (T)o3[2]};
    }
    // the last n % 4 pixels, one per thread of the first block
    size_t i = quads * 4 + threadIdx.x;
    if (blockIdx.x == 0 && i < n) {
        uint32_t o[3];
        one(r[i], g[i], b[i], o);
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
        const int shared = sizeof(T) == 1 ? CURVES8_BYTES : 0;
        int blocks = gpuimg__grid_for((n + 3) / 4, COLOUR_THREADS);
        if (sizeof(T) == 1) {
            // 52 KB a block: past the default 48 KB, so opted in; a few
            // blocks an SM that loop, each loading the curves once
            cudaError_t err = cudaFuncSetAttribute(
                colour_lut_kernel<T>, cudaFuncAttributeMaxDynamicSharedMemorySize, shared);
            if (err != cudaSuccess)
                return err;
            int sms = gpuimg__device_sms();
            int most = (sms > 0 ? sms : 16) * 4;
            blocks = blocks < most ? blocks : most;
        }
        colour_lut_kernel<T><<<blocks, COLOUR_THREADS, shared, stream>>>(
            reinterpret_cast<const T *>(d_src.p[0]), reinterpret_cast<const T *>(d_src.p[1]),
            reinterpret_cast<const T *>(d_src.p[2]), reinterpret_cast<T *>(d_dst.p[0]),
            reinterpret_cast<T *>(d_dst.p[1]), reinterpret_cast<T *>(d_dst.p[2]), n, d_lut);
        return cudaGetLastError();
    });
}
