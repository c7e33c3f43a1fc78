// SPDX-License-Identifier: MIT
// 2-D convolution (the kernel applied as written, like filter2D) and the
// Sobel gradient magnitude.
//
// The kernel's weights sit in a per-backend global buffer (__constant__
// memory is one per process, and batch runs several backends on several
// threads): every lane of a warp reads the same weight at the same step, one
// L1 broadcast. A block
// computes a CONV_TILE x CONV_TILE tile of outputs from a shared tile of
// (CONV_TILE + kw - 1) x (CONV_TILE + kh - 1) inputs, the halo being the
// kernel's half-sides, borders mapped while loading. For 63 x 63 that is
// 78 x 78 floats = 24 KB. Consecutive lanes read consecutive shared words,
// so the inner loop has no bank conflicts.
#include "device.cuh"
#include "kernels.h"

constexpr int CONV_TILE = 16;
constexpr int MAX_KERNEL = 63;
static_assert((MAX_KERNEL * MAX_KERNEL + (CONV_TILE + MAX_KERNEL - 1) * (CONV_TILE + MAX_KERNEL - 1)) *
                      4 <=
                  48 * 1024,
              "the largest weights and tile fit in shared memory");

// Loads the block's input tile, whose top-left input is (x0, y0), as floats.
// The block's threads walk the tile as one flat range, so a warp reads 32
// consecutive bytes of a row. (Strided 2-D loops were slower: bench/NOTES.md
// v1, a 16-wide block puts half-warps on two rows and idles lanes on the
// narrow halo columns.)
__device__ __forceinline__ void load_tile(const uint8_t *__restrict__ src, float *s, int tw, int th,
                                          int x0, int y0, int w, int h, gpuimg_border border)
{
    int tid = threadIdx.y * CONV_TILE + threadIdx.x;
    for (int i = tid; i < tw * th; i += CONV_TILE * CONV_TILE) {
        int sx = border_index(x0 + i % tw, w, border), sy = border_index(y0 + i / tw, h, border);
        s[i] = (sx < 0 || sy < 0) ? 0.0f : (float)src[(size_t)sy * w + sx];
    }
}

__global__ void convolve_kernel(const uint8_t *__restrict__ src, uint8_t *__restrict__ dst,
                                const float *__restrict__ weights, int w, int h, int kw, int kh,
                                float scale, float bias, int absolute, gpuimg_border border)
{
    extern __shared__ float s_mem[]; // kw * kh weights, then the tile
    float *s_weights = s_mem, *s_tile = s_mem + kw * kh;
    int tw = CONV_TILE + kw - 1, th = CONV_TILE + kh - 1;
    for (int i = threadIdx.y * CONV_TILE + threadIdx.x; i < kw * kh; i += CONV_TILE * CONV_TILE)
        s_weights[i] = weights[i];
    load_tile(src, s_tile, tw, th, blockIdx.x * CONV_TILE - kw / 2, blockIdx.y * CONV_TILE - kh / 2,
              w, h, border);
    __syncthreads();
    int x = blockIdx.x * CONV_TILE + threadIdx.x, y = blockIdx.y * CONV_TILE + threadIdx.y;
    if (x >= w || y >= h)
        return;
    // Products rounded on their own (no FMA) and summed in the CPU's order:
    // the same bits as the reference.
    float sum = 0.0f;
    for (int i = 0; i < kh; i++) {
        const float *row = s_tile + (threadIdx.y + i) * tw + threadIdx.x;
        for (int j = 0; j < kw; j++)
            sum = __fadd_rn(sum, __fmul_rn(s_weights[i * kw + j], row[j]));
    }
    float v = __fadd_rn(__fmul_rn(sum, scale), bias);
    dst[(size_t)y * w + x] = store_u8(absolute ? fabsf(v) : v);
}

__global__ void sobel_kernel(const uint8_t *__restrict__ src, uint8_t *__restrict__ dst, int w,
                             int h, gpuimg_border border)
{
    constexpr int T = CONV_TILE + 2;
    __shared__ float s_tile[T * T];
    load_tile(src, s_tile, T, T, blockIdx.x * CONV_TILE - 1, blockIdx.y * CONV_TILE - 1, w, h,
              border);
    __syncthreads();
    int x = blockIdx.x * CONV_TILE + threadIdx.x, y = blockIdx.y * CONV_TILE + threadIdx.y;
    if (x >= w || y >= h)
        return;
    const float *t = s_tile + threadIdx.y * T + threadIdx.x, *m = t + T, *b = m + T;
    // The same operation order as the CPU: integer-valued floats, so exact.
    float gx = (t[2] - t[0]) + 2.0f * (m[2] - m[0]) + (b[2] - b[0]);
    float gy = (b[0] - t[0]) + 2.0f * (b[1] - t[1]) + (b[2] - t[2]);
    dst[(size_t)y * w + x] = store_u8(sqrtf(gx * gx + gy * gy));
}

extern "C" cudaError_t gpuimg__cuda_convolve(const uint8_t *d_src, uint8_t *d_dst,
                                             const float *d_weights, int w, int h,
                                             const gpuimg_conv *k, gpuimg_border border,
                                             cudaStream_t stream)
{
    if (w <= 0 || h <= 0)
        return cudaSuccess;
    size_t shared = ((size_t)k->width * k->height +
                     (size_t)(CONV_TILE + k->width - 1) * (CONV_TILE + k->height - 1)) *
                    sizeof(float);
    dim3 grid(ceil_div(w, CONV_TILE), ceil_div(h, CONV_TILE));
    convolve_kernel<<<grid, dim3(CONV_TILE, CONV_TILE), shared, stream>>>(
        d_src, d_dst, d_weights, w, h, k->width, k->height, k->scale, k->bias, k->absolute, border);
    return cudaGetLastError();
}

extern "C" cudaError_t gpuimg__cuda_sobel(const uint8_t *d_src, uint8_t *d_dst, int w, int h,
                                          gpuimg_border border, cudaStream_t stream)
{
    if (w <= 0 || h <= 0)
        return cudaSuccess;
    dim3 grid(ceil_div(w, CONV_TILE), ceil_div(h, CONV_TILE));
    sobel_kernel<<<grid, dim3(CONV_TILE, CONV_TILE), 0, stream>>>(d_src, d_dst, w, h, border);
    return cudaGetLastError();
}
