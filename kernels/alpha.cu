// SPDX-License-Identifier: MIT
// --alpha premultiplied (SPEC §2), the two ends of a blur or convolve of
// float planes (src/ops/params.c runs the filter between them): premultiply makes
// float planes of an image with alpha (2 or 4 planes, alpha last), colour c
// weighted by a = A / M; unpremultiply stores the filtered float planes at
// the image's depth, colour c' / a' where a' > 0 (else 0), alpha A', each
// rounded once as §3 stores. The arithmetic is src/cpu/alpha.c's, operation
// for operation in IEEE single precision (__fdiv_rn, __fmul_rn: no
// contraction, no approximate division), so both backends agree to the bit.
//
// Map kernels, every plane in one launch (blockIdx.y; the alpha plane too).
// Each thread takes 4 values per step: 4 or 8 bytes of the integer planes
// and one 16-byte float4 of the float planes, aligned (planes are 256-byte
// aligned), consecutive lanes on consecutive vectors: coalesced.
#include "device.cuh"
#include "kernels.h"

constexpr int ALPHA_THREADS = 256;
static_assert(ALPHA_THREADS >= 4, "block 0 takes the last n % 4 values, one per thread");

// 4 consecutive values of an 8- or 16-bit plane from value 4i on.
template <typename T>
__device__ __forceinline__ void load4(const uint8_t *plane, size_t i, float (&v)[4])
{
    if constexpr (sizeof(T) == 1) {
        uint32_t w = reinterpret_cast<const uint32_t *>(plane)[i];
#pragma unroll
        for (int k = 0; k < 4; k++)
            v[k] = u8_to_f32(w, k);
    } else {
        uint2 w = reinterpret_cast<const uint2 *>(plane)[i];
        v[0] = u16_to_f32(w.x, 0), v[1] = u16_to_f32(w.x, 1);
        v[2] = u16_to_f32(w.y, 0), v[3] = u16_to_f32(w.y, 1);
    }
}

template <typename T>
__device__ __forceinline__ void store4(uint8_t *plane, size_t i, const T (&v)[4])
{
    if constexpr (sizeof(T) == 1)
        reinterpret_cast<uint32_t *>(plane)[i] =
            v[0] | v[1] << 8 | v[2] << 16 | (uint32_t)v[3] << 24;
    else
        reinterpret_cast<uint2 *>(plane)[i] =
            make_uint2(v[0] | (uint32_t)v[1] << 16, v[2] | (uint32_t)v[3] << 16);
}

// Colour c weighted by a = A / M (two roundings, as the CPU), alpha as it is.
__device__ __forceinline__ float weigh(float c, float A, float top, bool is_alpha)
{
    return is_alpha ? A : __fmul_rn(c, __fdiv_rn(A, top));
}

// The weighted colour back: c' / a' where a' = A' / M (at most 1: a
// resize's lanczos3 rings past it) > 0, else 0; alpha A'.
__device__ __forceinline__ float unweigh(float c, float A, float top, bool is_alpha)
{
    if (is_alpha)
        return A;
    float a = fminf(__fdiv_rn(A, top), 1.0f);
    return a > 0.0f ? __fdiv_rn(c, a) : 0.0f;
}

// src: `colours` + 1 planes of T (alpha last); dst: as many float planes.
template <typename T>
__global__ void __launch_bounds__(ALPHA_THREADS)
    premultiply_kernel(gpuimg_dplanes src, gpuimg_dplanes dst, int colours, size_t n)
{
    const int c = blockIdx.y;
    const bool is_alpha = c == colours;
    const uint8_t *__restrict__ in = plane_at(src, c);
    const uint8_t *__restrict__ alpha = plane_at(src, colours);
    float *__restrict__ out = reinterpret_cast<float *>(plane_at(dst, c));
    const float top = (float)value_max<T>();
    size_t nvec = n / 4, stride = (size_t)gridDim.x * ALPHA_THREADS;
    for (size_t i = (size_t)blockIdx.x * ALPHA_THREADS + threadIdx.x; i < nvec; i += stride) {
        float a[4], v[4];
        load4<T>(alpha, i, a);
        load4<T>(in, i, v);
#pragma unroll
        for (int k = 0; k < 4; k++)
            v[k] = weigh(v[k], a[k], top, is_alpha);
        reinterpret_cast<float4 *>(out)[i] = make_float4(v[0], v[1], v[2], v[3]);
    }
    if (blockIdx.x == 0 && threadIdx.x < n % 4) {
        size_t i = nvec * 4 + threadIdx.x;
        float A = (float)reinterpret_cast<const T *>(alpha)[i];
        out[i] = weigh((float)reinterpret_cast<const T *>(in)[i], A, top, is_alpha);
    }
}

// src: `colours` + 1 float planes (alpha last); dst: as many planes of T.
template <typename T>
__global__ void __launch_bounds__(ALPHA_THREADS)
    unpremultiply_kernel(gpuimg_dplanes src, gpuimg_dplanes dst, int colours, size_t n)
{
    const int c = blockIdx.y;
    const bool is_alpha = c == colours;
    const float *__restrict__ in = reinterpret_cast<const float *>(plane_at(src, c));
    const float *__restrict__ alpha = reinterpret_cast<const float *>(plane_at(src, colours));
    uint8_t *__restrict__ out = plane_at(dst, c);
    const float top = (float)value_max<T>();
    size_t nvec = n / 4, stride = (size_t)gridDim.x * ALPHA_THREADS;
    for (size_t i = (size_t)blockIdx.x * ALPHA_THREADS + threadIdx.x; i < nvec; i += stride) {
        float4 a = reinterpret_cast<const float4 *>(alpha)[i];
        float4 v = reinterpret_cast<const float4 *>(in)[i];
        T o[4] = {store_value<T>(unweigh(v.x, a.x, top, is_alpha)),
                  store_value<T>(unweigh(v.y, a.y, top, is_alpha)),
                  store_value<T>(unweigh(v.z, a.z, top, is_alpha)),
                  store_value<T>(unweigh(v.w, a.w, top, is_alpha))};
        store4<T>(out, i, o);
    }
    if (blockIdx.x == 0 && threadIdx.x < n % 4) {
        size_t i = nvec * 4 + threadIdx.x;
        reinterpret_cast<T *>(out)[i] = store_value<T>(unweigh(in[i], alpha[i], top, is_alpha));
    }
}

// Both ends through one launch: every plane in one grid (blockIdx.y), the
// value type that of the integer side (src's for premultiply, dst's for
// unpremultiply).
template <bool UNWEIGH>
static cudaError_t launch(gpuimg_dplanes d_src, gpuimg_dplanes d_dst, int channels, size_t n,
                          int depth, cudaStream_t stream)
{
    if (n == 0)
        return cudaSuccess;
    if (channels != 2 && channels != 4)
        return cudaErrorInvalidValue;
    return by_depth(depth, [&](auto v) {
        using T = decltype(v);
        int blocks = (gpuimg__grid_for((n + 3) / 4, ALPHA_THREADS) + channels - 1) / channels;
        dim3 grid(blocks, channels);
        if constexpr (UNWEIGH)
            unpremultiply_kernel<T>
                <<<grid, ALPHA_THREADS, 0, stream>>>(d_src, d_dst, channels - 1, n);
        else
            premultiply_kernel<T>
                <<<grid, ALPHA_THREADS, 0, stream>>>(d_src, d_dst, channels - 1, n);
        return cudaGetLastError();
    });
}

extern "C" cudaError_t gpuimg__cuda_premultiply(gpuimg_dplanes d_src, gpuimg_dplanes d_dst,
                                                int channels, size_t n, int depth,
                                                cudaStream_t stream)
{
    return launch<false>(d_src, d_dst, channels, n, depth, stream);
}

extern "C" cudaError_t gpuimg__cuda_unpremultiply(gpuimg_dplanes d_src, gpuimg_dplanes d_dst,
                                                  int channels, size_t n, int depth,
                                                  cudaStream_t stream)
{
    return launch<true>(d_src, d_dst, channels, n, depth, stream);
}
