// SPDX-License-Identifier: MIT
// FLIP's map (LDR-FLIP, Andersson et al. 2020) on the device: the CPU
// backend's computation (src/cpu/flip.c) with the same per-pixel arithmetic
// (core/flip_math.h, shared by both), in two kernels.
//
// flip_rows: a block of FLIP_ROW_W x FLIP_ROW_H threads stages its rows of
// both images, with the spatial filters' halo of R pixels on either side
// (edge pixels repeated), converted to YCxCz, in shared memory; each thread
// then makes its pixel's seven horizontal sums per image (Y, Cx, Cz by two
// Gaussians; the normalized luminance by the Gaussian and its two
// derivatives) into a float intermediate (14 planes) in device memory.
//
// flip_columns: each thread sums its pixel's column of the intermediate
// (21 or 19 taps, rows clamped at the edges), then evaluates the colour
// difference, the feature difference and FLIP. A warp reads 32 consecutive
// values per tap, and L1/L2 hold the rows that the threads of a column of
// blocks share; staging 14 planes x (tile + 20) rows in shared memory would
// take 50 KB a block for little gain.
//
// The weights travel in the kernel parameters (gpuimg_flip_params, 576
// bytes): every lane reads the same weight at the same step. Taps are summed
// in the CPU's order; nvcc may fuse a product and a sum into one FMA where
// the CPU rounds twice, and the device's powf and expf are within 2 ulp of
// glibc's, so a value may differ from the CPU's in its last bits: the
// figures agree far inside SPEC's 1e-4.
#include "core/flip_math.h"
#include "device.cuh"
#include "kernels.h"

namespace
{

constexpr int R = GPUIMG_FLIP_SPATIAL_RADIUS;
constexpr int FR = GPUIMG_FLIP_FEATURE_RADIUS;
constexpr int TAPS = GPUIMG_FLIP_SPATIAL_TAPS;
constexpr int FTAPS = GPUIMG_FLIP_FEATURE_TAPS;
constexpr int SUMS = 7; // per image: Y, Cx, Cz1, Cz2, dx, ddx, g
constexpr int FLIP_ROW_W = 128;
constexpr int FLIP_ROW_H = 4;
constexpr int FLIP_SPAN = FLIP_ROW_W + 2 * R;
constexpr int FLIP_COL_W = 32;
constexpr int FLIP_COL_H = 8;
static_assert(2 * 3 * FLIP_ROW_H * FLIP_SPAN * 4 <= 48 * 1024, "row tile fits");

__device__ __forceinline__ int clampi(int v, int lo, int hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

// One pixel of an image (1 to 4 planes: gray read as R = G = B, alpha the
// last of 2 or 4, composited over white) as YCxCz.
template <typename T>
__device__ void convert(const gpuimg_dplanes &im, int c, size_t at, float *ycc)
{
    const float top = sizeof(T) == 2 ? 65535.0f : 255.0f;
    const int which[3] = {0, c >= 3 ? 1 : 0, c >= 3 ? 2 : 0};
    float lin[3];
    unsigned a = c % 2 == 0 ? reinterpret_cast<const T *>(im.p[c - 1])[at] : (unsigned)top;
    if (a == (unsigned)top) {
        for (int k = 0; k < 3; k++)
            lin[k] =
                gpuimg__flip_linear((float)reinterpret_cast<const T *>(im.p[which[k]])[at] / top);
    } else {
        float al = (float)a / top;
        for (int k = 0; k < 3; k++)
            lin[k] = gpuimg__flip_linear(
                (float)reinterpret_cast<const T *>(im.p[which[k]])[at] / top * al + (1.0f - al));
    }
    gpuimg__flip_ycxcz(lin[0], lin[1], lin[2], ycc);
}

template <typename T>
__global__ void flip_rows(gpuimg_dplanes a, gpuimg_dplanes b, int channels, int w, int h,
                          gpuimg_flip_params p, float *inter)
{
    __shared__ float tile[2][3][FLIP_ROW_H][FLIP_SPAN];
    int ty = threadIdx.y, y = blockIdx.y * FLIP_ROW_H + ty, x0 = blockIdx.x * FLIP_ROW_W;
    if (y < h)
        for (int i = threadIdx.x; i < FLIP_SPAN; i += FLIP_ROW_W) {
            size_t at = (size_t)y * w + clampi(x0 - R + i, 0, w - 1);
            float ycc[3];
            convert<T>(a, channels, at, ycc);
            for (int k = 0; k < 3; k++)
                tile[0][k][ty][i] = ycc[k];
            convert<T>(b, channels, at, ycc);
            for (int k = 0; k < 3; k++)
                tile[1][k][ty][i] = ycc[k];
        }
    __syncthreads();
    int x = x0 + threadIdx.x;
    if (y >= h || x >= w)
        return;
    size_t n = (size_t)w * h, at = (size_t)y * w + x;
    for (int img = 0; img < 2; img++) {
        const float *Y = tile[img][0][ty] + threadIdx.x, *Cx = tile[img][1][ty] + threadIdx.x,
                    *Cz = tile[img][2][ty] + threadIdx.x;
        float sy = 0, scx = 0, s1 = 0, s2 = 0;
#pragma unroll
        for (int k = 0; k < TAPS; k++) {
            sy += p.y[k] * Y[k];
            scx += p.cx[k] * Cx[k];
            s1 += p.cz1[k] * Cz[k];
            s2 += p.cz2[k] * Cz[k];
        }
        float dx = 0, ddx = 0, g = 0;
#pragma unroll
        for (int k = 0; k < FTAPS; k++) {
            float v = Y[(R - FR) + k] * (1.0f / 116.0f) + 16.0f / 116.0f;
            dx += p.dg[k] * v;
            ddx += p.ddg[k] * v;
            g += p.g[k] * v;
        }
        float *out = inter + (size_t)img * SUMS * n + at;
        out[0] = sy, out[n] = scx, out[2 * n] = s1, out[3 * n] = s2;
        out[4 * n] = dx, out[5 * n] = ddx, out[6 * n] = g;
    }
}

__global__ void flip_columns(const float *inter, int w, int h, gpuimg_flip_params p, float *map)
{
    int x = blockIdx.x * FLIP_COL_W + threadIdx.x, y = blockIdx.y * FLIP_COL_H + threadIdx.y;
    if (x >= w || y >= h)
        return;
    size_t n = (size_t)w * h;
    float v[2][7]; // per image: Y, Cx, Cz, dx, ddx, dy, ddy
    for (int img = 0; img < 2; img++) {
        const float *s = inter + (size_t)img * SUMS * n + x;
        float sy = 0, scx = 0, s1 = 0, s2 = 0;
#pragma unroll
        for (int k = 0; k < TAPS; k++) {
            size_t at = (size_t)clampi(y - R + k, 0, h - 1) * w;
            sy += p.y[k] * s[at];
            scx += p.cx[k] * s[n + at];
            s1 += p.cz1[k] * s[2 * n + at];
            s2 += p.cz2[k] * s[3 * n + at];
        }
        float dx = 0, ddx = 0, dy = 0, ddy = 0;
#pragma unroll
        for (int k = 0; k < FTAPS; k++) {
            size_t at = (size_t)clampi(y - FR + k, 0, h - 1) * w;
            dx += p.g[k] * s[4 * n + at];
            ddx += p.g[k] * s[5 * n + at];
            float g = s[6 * n + at];
            dy += p.dg[k] * g;
            ddy += p.ddg[k] * g;
        }
        v[img][0] = sy, v[img][1] = scx, v[img][2] = s1 + s2;
        v[img][3] = dx, v[img][4] = ddx, v[img][5] = dy, v[img][6] = ddy;
    }
    float colour = gpuimg__flip_colour(v[0], v[1], p.cmax, p.pccmax);
    map[(size_t)y * w + x] = gpuimg__flip_final(colour, v[0][3], v[0][5], v[0][4], v[0][6], v[1][3],
                                                v[1][5], v[1][4], v[1][6]);
}

} // namespace

extern "C" size_t gpuimg__cuda_flip_scratch(int w, int h)
{
    // the map, then both images' intermediates
    return (size_t)w * (size_t)h * (1 + 2 * SUMS) * sizeof(float);
}

extern "C" cudaError_t gpuimg__cuda_flip(gpuimg_dplanes a, gpuimg_dplanes b, int channels,
                                         int depth, int w, int h, const gpuimg_flip_params *p,
                                         void *d_scratch, cudaStream_t stream)
{
    if (w <= 0 || h <= 0)
        return cudaSuccess;
    if ((depth != 8 && depth != 16) || channels < 1 || channels > 4)
        return cudaErrorInvalidValue;
    float *map = static_cast<float *>(d_scratch), *inter = map + (size_t)w * h;
    dim3 rows_block(FLIP_ROW_W, FLIP_ROW_H);
    dim3 rows_grid((w + FLIP_ROW_W - 1) / FLIP_ROW_W, (h + FLIP_ROW_H - 1) / FLIP_ROW_H);
    if (depth == 16)
        flip_rows<uint16_t><<<rows_grid, rows_block, 0, stream>>>(a, b, channels, w, h, *p, inter);
    else
        flip_rows<uint8_t><<<rows_grid, rows_block, 0, stream>>>(a, b, channels, w, h, *p, inter);
    cudaError_t err = cudaGetLastError();
    if (err != cudaSuccess)
        return err;
    dim3 cols_block(FLIP_COL_W, FLIP_COL_H);
    dim3 cols_grid((w + FLIP_COL_W - 1) / FLIP_COL_W, (h + FLIP_COL_H - 1) / FLIP_COL_H);
    flip_columns<<<cols_grid, cols_block, 0, stream>>>(inter, w, h, *p, map);
    return cudaGetLastError();
}
