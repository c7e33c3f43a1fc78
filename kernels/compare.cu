// SPDX-License-Identifier: MIT
// compare's metrics: differences over all channels (one pass, then a block
// reduction and one atomic per quantity and block), and SSIM.
//
// SSIM follows the CPU reference (src/cpu/compare.c): only pixels at least
// SSIM_RADIUS from every edge are averaged, and their 11 x 11 windows lie
// inside the image, so no border is ever read. The five window sums
// (x, y, x², y², xy) are separable Gaussian passes: a row pass writes the
// five horizontal sums of every row for the inner columns (double, so the
// figure matches the float64 reference to ~1e-12), a column pass finishes
// the sums, evaluates SSIM per pixel and reduces the block's total into one
// double atomic.
#include "device.cuh"
#include "kernels.h"

constexpr int DIFF_THREADS = 256;
constexpr int SSIM_RADIUS = GPUIMG_SSIM_RADIUS;
constexpr int SSIM_TAPS = GPUIMG_SSIM_TAPS;
constexpr int SSIM_BLOCK_X = 32, SSIM_BLOCK_Y = 8;

// The window, by value: every launch carries its own copy (a __constant__
// array would be shared by the threads of a batch).
struct SsimWindow {
    double g[SSIM_TAPS];
};

__global__ void diff_kernel(gpuimg_dplanes a, gpuimg_dplanes b, int channels, size_t n, int fuzz,
                            unsigned long long *__restrict__ out)
{
    __shared__ unsigned long long s_part[3][DIFF_THREADS / 32];
    __shared__ unsigned int s_max[DIFF_THREADS / 32];
    unsigned int maxd = 0;
    unsigned long long differing = 0, sum = 0, squares = 0;
    for (size_t i = (size_t)blockIdx.x * DIFF_THREADS + threadIdx.x; i < n;
         i += (size_t)gridDim.x * DIFF_THREADS) {
        unsigned int pixel_max = 0;
        for (int c = 0; c < channels; c++) {
            unsigned int d = abs((int)a.p[c][i] - (int)b.p[c][i]);
            sum += d;
            squares += d * d;
            pixel_max = max(pixel_max, d);
        }
        differing += pixel_max > (unsigned int)fuzz;
        maxd = max(maxd, pixel_max);
    }
    maxd = warp_reduce_max_u32(maxd);
    differing = warp_reduce_sum_u64(differing);
    sum = warp_reduce_sum_u64(sum);
    squares = warp_reduce_sum_u64(squares);
    int lane = threadIdx.x & 31, warp = threadIdx.x / 32;
    if (lane == 0) {
        s_max[warp] = maxd;
        s_part[0][warp] = differing;
        s_part[1][warp] = sum;
        s_part[2][warp] = squares;
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        for (int k = 1; k < DIFF_THREADS / 32; k++) {
            s_max[0] = max(s_max[0], s_max[k]);
            for (int q = 0; q < 3; q++)
                s_part[q][0] += s_part[q][k];
        }
        atomicMax(&out[0], (unsigned long long)s_max[0]);
        for (int q = 0; q < 3; q++)
            atomicAdd(&out[1 + q], s_part[q][0]);
    }
}

// Horizontal window sums for the inner columns of every row: out[q] is an
// inner x h array for quantity q (x, y, x², y², xy).
__global__ void ssim_rows_kernel(const uint8_t *__restrict__ a, const uint8_t *__restrict__ b,
                                 int w, int h, double *__restrict__ sums, const SsimWindow win)
{
    int inner = w - 2 * SSIM_RADIUS;
    int x = blockIdx.x * SSIM_BLOCK_X + threadIdx.x, y = blockIdx.y * SSIM_BLOCK_Y + threadIdx.y;
    if (x >= inner || y >= h)
        return;
    const uint8_t *ra = a + (size_t)y * w + x, *rb = b + (size_t)y * w + x;
    double s[5] = {0, 0, 0, 0, 0};
    for (int k = 0; k < SSIM_TAPS; k++) {
        double g = win.g[k], va = ra[k], vb = rb[k];
        s[0] += g * va;
        s[1] += g * vb;
        s[2] += g * va * va;
        s[3] += g * vb * vb;
        s[4] += g * va * vb;
    }
    size_t plane = (size_t)inner * h, at = (size_t)y * inner + x;
    for (int q = 0; q < 5; q++)
        sums[q * plane + at] = s[q];
}

__global__ void ssim_cols_kernel(const double *__restrict__ sums, int w, int h,
                                 double *__restrict__ total, const SsimWindow win)
{
    __shared__ double s_warps[SSIM_BLOCK_X * SSIM_BLOCK_Y / 32];
    int inner = w - 2 * SSIM_RADIUS, rows = h - 2 * SSIM_RADIUS;
    int x = blockIdx.x * SSIM_BLOCK_X + threadIdx.x, y = blockIdx.y * SSIM_BLOCK_Y + threadIdx.y;
    double value = 0.0;
    if (x < inner && y < rows) {
        size_t plane = (size_t)inner * h;
        double m[5] = {0, 0, 0, 0, 0};
        for (int k = 0; k < SSIM_TAPS; k++) {
            double g = win.g[k];
            size_t at = (size_t)(y + k) * inner + x;
            for (int q = 0; q < 5; q++)
                m[q] += g * sums[q * plane + at];
        }
        const double c1 = (0.01 * 255) * (0.01 * 255), c2 = (0.03 * 255) * (0.03 * 255);
        double ux = m[0], uy = m[1];
        double vx = m[2] - ux * ux, vy = m[3] - uy * uy, vxy = m[4] - ux * uy;
        value = ((2 * ux * uy + c1) * (2 * vxy + c2)) / ((ux * ux + uy * uy + c1) * (vx + vy + c2));
    }
    value = warp_reduce_sum_f64(value);
    int tid = threadIdx.y * SSIM_BLOCK_X + threadIdx.x;
    if ((tid & 31) == 0)
        s_warps[tid / 32] = value;
    __syncthreads();
    if (tid == 0) {
        double block = 0.0;
        for (int k = 0; k < SSIM_BLOCK_X * SSIM_BLOCK_Y / 32; k++)
            block += s_warps[k];
        atomicAdd(total, block);
    }
}

extern "C" cudaError_t gpuimg__cuda_diff_metrics(gpuimg_dplanes a, gpuimg_dplanes b, int channels,
                                                 size_t n, int fuzz, unsigned long long *d_out,
                                                 cudaStream_t stream)
{
    if (n == 0)
        return cudaSuccess;
    diff_kernel<<<gpuimg__grid_for(n, DIFF_THREADS), DIFF_THREADS, 0, stream>>>(a, b, channels, n,
                                                                                fuzz, d_out);
    return cudaGetLastError();
}

extern "C" size_t gpuimg__cuda_ssim_scratch(int w, int h)
{
    if (w < SSIM_TAPS || h < SSIM_TAPS)
        return 0;
    return 5 * (size_t)(w - 2 * SSIM_RADIUS) * (size_t)h * sizeof(double);
}

extern "C" cudaError_t gpuimg__cuda_ssim(const uint8_t *d_a, const uint8_t *d_b, int w, int h,
                                         void *d_tmp, double *d_ssim_sum, cudaStream_t stream)
{
    if (w < SSIM_TAPS || h < SSIM_TAPS)
        return cudaSuccess;
    SsimWindow win;
    gpuimg__ssim_window(win.g);
    cudaError_t err;
    double *sums = static_cast<double *>(d_tmp);
    int inner = w - 2 * SSIM_RADIUS;
    dim3 block(SSIM_BLOCK_X, SSIM_BLOCK_Y);
    ssim_rows_kernel<<<dim3(ceil_div(inner, SSIM_BLOCK_X), ceil_div(h, SSIM_BLOCK_Y)), block, 0,
                       stream>>>(d_a, d_b, w, h, sums, win);
    if ((err = cudaGetLastError()) != cudaSuccess)
        return err;
    ssim_cols_kernel<<<dim3(ceil_div(inner, SSIM_BLOCK_X), ceil_div(h - 2 * SSIM_RADIUS, SSIM_BLOCK_Y)),
                       block, 0, stream>>>(sums, w, h, d_ssim_sum, win);
    return cudaGetLastError();
}
