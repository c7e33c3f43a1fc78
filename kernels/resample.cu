// SPDX-License-Identifier: MIT
// resize's two passes (SPEC §3) from the axis tables of src/ops/resample.c
// (per output sample: its first input sample and its weights): the
// horizontal pass into a float intermediate, never rounded, then the
// vertical pass into the destination's rectangle.
//
// Horizontal: a block makes a tile of T_X outputs of 64 rows (32 where 64
// do not fit). Their windows cover one contiguous span of each input row,
// [first[x0], first[x_last] + taps), which the block stages in shared
// memory, read
// from global memory coalesced along the rows and stored transposed
// (column-major, a column the tile's rows plus one float): a warp is then
// rows of one output, so its 32 lanes read 32 consecutive words of a column
// per tap (no bank conflict; row-major, the lanes' windows 4 samples apart
// in a 4x shrink would fall 4 to a bank) and share the tap's weight (a
// broadcast), and each lane sums 2 rows with one read of the weight.
// The results go through a shared tile back to rows, written coalesced.
// Each input value is read from global memory once per block, however many
// windows overlap it (about 6 in a 4x shrink). A span too long for the
// shared memory a block may have (a shrink by more than about 20) reads
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
// upsize). It costs a second instruction per tap.
#include "device.cuh"
#include "kernels.h"

constexpr int T_X = 32;             // the horizontal tile's outputs
constexpr int T_THREADS = 256;      // 8 warps, each T_X / 8 outputs of the tile's rows
constexpr int H_X = 64, H_ROWS = 4; // the unstaged form's block
constexpr int V_X = 64, V_ROWS = 4;
// The most a tile may stage: what every device since sm_80 lets a block opt
// in to (sm_86 and sm_89 allow 99 KB).
constexpr size_t H_SHARED_MAX = 96 * 1024;

static __host__ __device__ int ceil_div_r(int a, int b)
{
    return (a + b - 1) / b;
}

// Shared memory of the staged tile of 32 RPT rows: the span's columns
// (32 RPT + 1 floats each), the weights, the results.
static __host__ __device__ size_t tile_floats(int span, int taps, int rpt)
{
    return (size_t)span * (32 * rpt + 1) + (size_t)T_X * taps + (size_t)32 * rpt * (T_X + 1);
}

// RPT rows a thread: lane l sums rows l, l + 32, ... of its output, so
// each weight read from shared memory serves RPT products (the tile is
// bound by shared-memory loads: one weight and RPT values per RPT products).
template <typename T, int RPT>
__global__ void __launch_bounds__(T_THREADS)
    horizontal_tile_kernel(const uint8_t *__restrict__ src_bytes, int n, int h,
                           const int *__restrict__ first, const float *__restrict__ weights,
                           int taps, int mx, float *__restrict__ tmp)
{
    constexpr int ROWS = 32 * RPT, COL = ROWS + 1; // a column's stride: plus one bank
    extern __shared__ float smem[];
    const T *__restrict__ src = reinterpret_cast<const T *>(src_bytes);
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    const int x0 = blockIdx.x * T_X, xs = min(T_X, mx - x0);
    const int y0 = blockIdx.y * ROWS, rows = min(ROWS, h - y0);
    const int s0 = first[x0], span = min(n, first[x0 + xs - 1] + taps) - s0;
    float *cols = smem;                              // span columns of COL
    float *ws = cols + (size_t)span * COL;           // xs rows of taps
    float *out = ws + (size_t)T_X * taps;            // ROWS rows of T_X + 1
    for (int i = tid; i < xs * taps; i += T_THREADS) // one contiguous run of the table
        ws[i] = weights[(size_t)x0 * taps + i];
    // a warp a row, its lanes along it: coalesced loads, and stores into
    // 32 columns whose words fall in 32 banks (COL is odd); no division
    // (one per value took more instructions than the sums)
    for (int r = warp; r < ROWS; r += T_THREADS / 32) {
        const T *row = src + (size_t)(y0 + r) * n + s0;
        for (int c = lane; c < span; c += 32)
            cols[c * COL + r] = r < rows ? (float)row[c] : 0.0f; // rows past h: zeros
    }
    __syncthreads();
    for (int j = warp; j < xs; j += T_THREADS / 32) {
        const int off = first[x0 + j] - s0;
        const int k_end = min(taps, span - off); // past the span the weights are 0
        const float *w = ws + j * taps;
        float acc[RPT];
#pragma unroll
        for (int q = 0; q < RPT; q++)
            acc[q] = 0.0f;
        for (int k = 0; k < k_end; k++) {
            const float wk = w[k], *col = cols + (off + k) * COL + lane;
#pragma unroll
            for (int q = 0; q < RPT; q++)
                acc[q] = mad<true>(wk, col[32 * q], acc[q]);
        }
        for (int k = k_end; k < taps; k++) /* zero weights times zero: the CPU's sum */
#pragma unroll
            for (int q = 0; q < RPT; q++)
                acc[q] = mad<true>(w[k], 0.0f, acc[q]);
#pragma unroll
        for (int q = 0; q < RPT; q++)
            out[(lane + 32 * q) * (T_X + 1) + j] = acc[q];
    }
    __syncthreads();
    for (int i = tid; i < rows * T_X; i += T_THREADS) {
        int r = i / T_X, j = i - r * T_X;
        if (j < xs)
            tmp[(size_t)(y0 + r) * mx + x0 + j] = out[r * (T_X + 1) + j];
    }
}

// The unstaged form: each thread one output, its window and weights read
// from global memory through the cache.
template <typename T>
__global__ void __launch_bounds__(H_X *H_ROWS)
    horizontal_kernel(const uint8_t *__restrict__ src_bytes, int n, int h,
                      const int *__restrict__ first, const float *__restrict__ weights, int taps,
                      int mx, float *__restrict__ tmp)
{
    const T *__restrict__ src = reinterpret_cast<const T *>(src_bytes);
    const int x = blockIdx.x * H_X + threadIdx.x, y = blockIdx.y * H_ROWS + threadIdx.y;
    if (x >= mx || y >= h)
        return;
    const float *w = weights + (size_t)x * taps;
    const int f = first[x];
    float acc = 0.0f;
    for (int k = 0; k < taps; k++) {
        int i = f + k; // past n only where the weight is 0
        acc = mad<true>(w[k], i < n ? (float)src[(size_t)y * n + i] : 0.0f, acc);
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
        // 64 rows a tile where they fit (4 blocks an SM at a 4x shrink:
        // 128 rows left 2, too few warps to hide the loads), else 32, else
        // no staging
        size_t shared2 = tile_floats(ax.span, ax.taps, 2) * sizeof(float);
        size_t shared1 = tile_floats(ax.span, ax.taps, 1) * sizeof(float);
        if (shared2 <= H_SHARED_MAX && h > 32) {
            cudaError_t e = smem_opt_in(horizontal_tile_kernel<T, 2>, shared2);
            if (e != cudaSuccess)
                return e;
            dim3 grid(ceil_div_r(ax.m, T_X), ceil_div_r(h, 64));
            horizontal_tile_kernel<T, 2><<<grid, T_THREADS, shared2, stream>>>(
                d_src, n, h, ax.first, ax.weights, ax.taps, ax.m, d_tmp);
        } else if (shared1 <= H_SHARED_MAX) {
            cudaError_t e = smem_opt_in(horizontal_tile_kernel<T, 1>, shared1);
            if (e != cudaSuccess)
                return e;
            dim3 grid(ceil_div_r(ax.m, T_X), ceil_div_r(h, 32));
            horizontal_tile_kernel<T, 1><<<grid, T_THREADS, shared1, stream>>>(
                d_src, n, h, ax.first, ax.weights, ax.taps, ax.m, d_tmp);
        } else {
            dim3 grid(ceil_div_r(ax.m, H_X), ceil_div_r(h, H_ROWS)), block(H_X, H_ROWS);
            horizontal_kernel<T><<<grid, block, 0, stream>>>(d_src, n, h, ax.first, ax.weights,
                                                             ax.taps, ax.m, d_tmp);
        }
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
    for (int x0 = 0; x0 < a->m; x0 += T_X) {
        int last = min(x0 + T_X, a->m) - 1;
        int span = min(a->n, a->first[last] + a->taps) - a->first[x0];
        most = max(most, span);
    }
    return most;
}
