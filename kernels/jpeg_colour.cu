// SPDX-License-Identifier: MIT
// A JPEG's YCbCr planes, as nvJPEG decodes them (chroma at the file's
// subsampling), into RGB planes with libjpeg-turbo's arithmetic: its
// "fancy" upsampling (jdsample.c: triangular, 3/4 of the nearer chroma
// sample and 1/4 of the farther, with its alternating rounding biases) and
// its fixed-point YCbCr -> RGB (jdcolor.c: 16 fraction bits, the tables'
// values computed inline). nvJPEG's own RGB output replicates the chroma
// and lands 43 dB from libjpeg-turbo on a photograph; with this the only
// difference left is the inverse DCT's last bit, so that a file decodes on
// the GPU as on the CPU to within SPEC §4's 50 dB.
//
// One thread per output pixel, grid-stride. Each reads its luma and up to
// four chroma samples of each plane (neighbours shared with the threads
// beside it, so the reads coalesce through L1) and writes R G B over the
// luma plane (its own value, read first: in place is safe) and the two
// planes after it. Edges follow libjpeg: the first and last chroma column
// count twice (4/4), and the rows above the first and below the last are
// those rows again (jdmainct.c's context rows).
#include "device.cuh"
#include "kernels.h"

constexpr int COLOUR_THREADS = 256;

namespace
{

// libjpeg's column sum: 3 x the nearer chroma row + the farther one.
__device__ __forceinline__ int colsum(const uint8_t *near, const uint8_t *far, int i)
{
    return 3 * near[i] + far[i];
}

__device__ __forceinline__ int chroma(const uint8_t *c, int x, int y, int cw, int ch, int hs,
                                      int vs)
{
    if (hs == 1)
        return c[(size_t)y * cw + x];
    int i = x >> 1;
    if (vs == 1) { // h2v1_fancy_upsample
        const uint8_t *in = c + (size_t)y * cw;
        if (!(x & 1))
            return i == 0 ? in[0] : (3 * in[i] + in[i - 1] + 1) >> 2;
        return i == cw - 1 ? in[i] : (3 * in[i] + in[i + 1] + 2) >> 2;
    }
    // h2v2_fancy_upsample: the nearer chroma row, and the one above (even
    // output rows) or below (odd), the image's edge rows standing in for
    // the rows past them
    int j = y >> 1, k = (y & 1) ? min(j + 1, ch - 1) : max(j - 1, 0);
    const uint8_t *near = c + (size_t)j * cw, *far = c + (size_t)k * cw;
    int here = colsum(near, far, i);
    if (!(x & 1))
        return i == 0 ? (here * 4 + 8) >> 4 : (here * 3 + colsum(near, far, i - 1) + 8) >> 4;
    return i == cw - 1 ? (here * 4 + 7) >> 4 : (here * 3 + colsum(near, far, i + 1) + 7) >> 4;
}

__device__ __forceinline__ uint8_t clamp255(int v)
{
    return (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
}

__global__ void ycc_rgb_kernel(uint8_t *y_r, uint8_t *g, uint8_t *b, const uint8_t *cb,
                               const uint8_t *cr, int w, int h, int cw, int ch, int hs, int vs)
{
    // jdcolor.c's FIX(): round(x * 65536), and ONE_HALF
    const int cr_r = 91881, cb_b = 116130, cr_g = -46802, cb_g = -22554, half = 1 << 15;
    size_t n = (size_t)w * h;
    for (size_t p = blockIdx.x * (size_t)blockDim.x + threadIdx.x; p < n;
         p += (size_t)gridDim.x * blockDim.x) {
        int x = (int)(p % w), y = (int)(p / w);
        int yy = y_r[p];
        int u = chroma(cb, x, y, cw, ch, hs, vs) - 128;
        int v = chroma(cr, x, y, cw, ch, hs, vs) - 128;
        // the tables' entries: Cr_r and Cb_b rounded on their own, the
        // green one a sum of two rounded once (>> is arithmetic, as
        // libjpeg's RIGHT_SHIFT)
        y_r[p] = clamp255(yy + ((cr_r * v + half) >> 16));
        g[p] = clamp255(yy + ((cb_g * u + half + cr_g * v) >> 16));
        b[p] = clamp255(yy + ((cb_b * u + half) >> 16));
    }
}

} // namespace

cudaError_t gpuimg__cuda_ycc_to_rgb(gpuimg_dplanes rgb, const uint8_t *d_cb, const uint8_t *d_cr,
                                    int w, int h, int hs, int vs, cudaStream_t stream)
{
    size_t n = (size_t)w * h;
    if (n == 0)
        return cudaSuccess;
    int cw = (w + hs - 1) / hs, ch = (h + vs - 1) / vs;
    ycc_rgb_kernel<<<gpuimg__grid_for(n, COLOUR_THREADS), COLOUR_THREADS, 0, stream>>>(
        rgb.p[0], rgb.p[1], rgb.p[2], d_cb, d_cr, w, h, cw, ch, hs, vs);
    return cudaGetLastError();
}
