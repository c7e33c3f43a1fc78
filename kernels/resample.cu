// SPDX-License-Identifier: MIT
// resize's two passes (SPEC §3) from the axis tables of src/ops/resample.c
// (per output sample: its first input sample and its weights): the
// horizontal pass into a float intermediate, never rounded, then the
// vertical pass into the destination's rectangle.
//
// Horizontal: a block makes H_X outputs of H_ROWS rows. Its outputs' windows
// cover one contiguous span of each input row, [first[x0], first[x_last] +
// taps), which the block stages in shared memory with coalesced loads (each
// input value read from global memory once per block, however many windows
// overlap it: a 4x shrink reads each value into about 6 windows), together
// with its outputs' weights, read as one contiguous run of the table. The
// weights' rows are padded to an odd stride, so that the 32 threads of a
// warp, each reading its own row's tap k, fall in 32 different banks. A
// span too long for shared memory (a shrink by more than about 16) reads
// values and weights from global memory through the cache instead.
//
// Vertical: each thread one output; a warp's 32 outputs share a row and so
// their weights (one broadcast load) and read 32 adjacent intermediate
// values per tap (coalesced); the rows an output reads are read again by
// its neighbours below, from L2.
//
// Sums run from tap 0 up, as on the CPU, each product and sum rounded apart
// at every depth (mad<true>, the CPU's arithmetic): the two backends then
// give the same bytes. FMA's single rounding was not enough at 8 bits:
// linear and cubic weights put many sums on a half, where the two
// roundings and one decide differently (1 in 300 values of a 3.3x linear
// upsize). The second instruction per tap costs nothing measurable: the
// passes wait on memory.
#include "device.cuh"
#include "kernels.h"

constexpr int H_X = 64, H_ROWS = 4;
constexpr int V_X = 64, V_ROWS = 4;
constexpr size_t H_SHARED_MAX = 46 * 1024; // under the 48 KB every device gives without opt-in

static __host__ __device__ int ceil_div_r(int a, int b)
{
    return (a + b - 1) / b;
}

template <typename T, bool STAGED>
__global__ void __launch_bounds__(H_X *H_ROWS)
    horizontal_kernel(const uint8_t *__restrict__ src_bytes, int n, int h,
                      const int *__restrict__ first, const float *__restrict__ weights, int taps,
                      int mx, float *__restrict__ tmp)
{
    extern __shared__ float smem[];
    const T *__restrict__ src = reinterpret_cast<const T *>(src_bytes);
    const int tx = threadIdx.x, ty = threadIdx.y, tid = ty * H_X + tx;
    const int x0 = blockIdx.x * H_X, xs = min(H_X, mx - x0);
    const int y = blockIdx.y * H_ROWS + ty;
    const int stride = taps | 1; // odd: a warp's rows in distinct banks
    const int s0 = first[x0], s1 = min(n, first[x0 + xs - 1] + taps), span = s1 - s0;
    float *ws = smem;                          // H_X rows of stride
    float *line = smem + (size_t)H_X * stride; // H_ROWS rows of span
    if constexpr (STAGED) {
        for (int i = tid; i < xs * taps; i += H_X * H_ROWS)
            ws[(i / taps) * stride + i % taps] = weights[(size_t)x0 * taps + i];
        if (y < h)
            for (int i = tx; i < span; i += H_X)
                line[ty * span + i] = (float)src[(size_t)y * n + s0 + i];
        __syncthreads();
    }
    const int x = x0 + tx;
    if (x >= mx || y >= h)
        return;
    const int off = first[x] - s0;
    const float *w = STAGED ? ws + tx * stride : weights + (size_t)x * taps;
    float acc = 0.0f;
    for (int k = 0; k < taps; k++) {
        int i = off + k; // past the span (and so past n) only where the weight is 0
        float v;
        if constexpr (STAGED)
            v = i < span ? line[ty * span + i] : 0.0f;
        else
            v = i < span ? (float)src[(size_t)y * n + s0 + i] : 0.0f;
        acc = mad<true>(w[k], v, acc);
    }
    tmp[(size_t)y * mx + x] = acc;
}

template <typename T>
__global__ void __launch_bounds__(V_X *V_ROWS)
    vertical_kernel(const float *__restrict__ tmp, int mx, int h, const int *__restrict__ first,
                    const float *__restrict__ weights, int taps, int my, uint8_t *__restrict__ dst,
                    int dst_w, int dx, int dy)
{
    const int x = blockIdx.x * V_X + threadIdx.x, y = blockIdx.y * V_ROWS + threadIdx.y;
    if (x >= mx || y >= my)
        return;
    const float *w = weights + (size_t)y * taps;
    const int f = first[y];
    float acc = 0.0f;
    for (int k = 0; k < taps; k++) {
        int r = min(f + k, h - 1); // a row past h has weight 0
        acc = mad<true>(w[k], tmp[(size_t)r * mx + x], acc);
    }
    reinterpret_cast<T *>(dst)[(size_t)(dy + y) * dst_w + dx + x] = store_value<T>(acc);
}

extern "C" size_t gpuimg__cuda_resample_scratch(int mx, int h)
{
    return (size_t)mx * (size_t)h * sizeof(float);
}

extern "C" cudaError_t gpuimg__cuda_resample(const uint8_t *d_src, int n, int h, int src_depth,
                                             uint8_t *d_dst, int dst_w, int dst_depth, int dx,
                                             int dy, gpuimg_daxis ax, gpuimg_daxis ay, float *d_tmp,
                                             cudaStream_t stream)
{
    if (ax.m <= 0 || ay.m <= 0)
        return cudaSuccess;
    cudaError_t err = by_filter_depth(src_depth, [&](auto v) {
        using T = decltype(v);
        dim3 grid(ceil_div_r(ax.m, H_X), ceil_div_r(h, H_ROWS)), block(H_X, H_ROWS);
        size_t shared = ((size_t)H_X * (ax.taps | 1) + (size_t)H_ROWS * ax.span) * sizeof(float);
        if (shared <= H_SHARED_MAX)
            horizontal_kernel<T, true><<<grid, block, shared, stream>>>(
                d_src, n, h, ax.first, ax.weights, ax.taps, ax.m, d_tmp);
        else
            horizontal_kernel<T, false><<<grid, block, 0, stream>>>(
                d_src, n, h, ax.first, ax.weights, ax.taps, ax.m, d_tmp);
        return cudaGetLastError();
    });
    if (err != cudaSuccess)
        return err;
    return by_filter_depth(dst_depth, [&](auto v) {
        using T = decltype(v);
        dim3 grid(ceil_div_r(ax.m, V_X), ceil_div_r(ay.m, V_ROWS)), block(V_X, V_ROWS);
        vertical_kernel<T><<<grid, block, 0, stream>>>(d_tmp, ax.m, h, ay.first, ay.weights,
                                                       ay.taps, ay.m, d_dst, dst_w, dx, dy);
        return cudaGetLastError();
    });
}

extern "C" int gpuimg__cuda_axis_span(const gpuimg_axis *a)
{
    int most = 0;
    for (int x0 = 0; x0 < a->m; x0 += H_X) {
        int last = min(x0 + H_X, a->m) - 1;
        int span = min(a->n, a->first[last] + a->taps) - a->first[x0];
        most = max(most, span);
    }
    return most;
}
