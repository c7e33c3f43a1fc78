/* SPDX-License-Identifier: MIT */
/* The arithmetic of SPEC §3 that both backends share, defined once: the
 * border mapping, the store rounding and Rec.601 luma. Compiled as host code
 * for the CPU backend and as __host__ __device__ code in kernels/. */
#ifndef GPUIMG_ARITH_H
#define GPUIMG_ARITH_H

#include <math.h>
#include <stdint.h>

#include "gpuimg.h"

#ifdef __CUDACC__
#define GPUIMG_SHARED __host__ __device__ __forceinline__
#else
#define GPUIMG_SHARED static inline
#endif

/* Maps an index outside [0, n) by the border mode, for any distance from the
 * image; -1 means "reads 0" (constant mode). ints suffice: n <= 65535 and an
 * index is never more than 2000 (twice the largest radius) past the image. */
GPUIMG_SHARED int gpuimg__border_index(int i, int n, gpuimg_border mode)
{
    if (i >= 0 && i < n)
        return i;
    /* Indices within one image of the edge (every halo narrower than the
     * image) take the first branch of each mode, without a division; the
     * general forms give the same values there. */
    int period, r;
    switch (mode) {
    case GPUIMG_BORDER_CONSTANT: return -1;
    case GPUIMG_BORDER_REPLICATE: return i < 0 ? 0 : n - 1;
    case GPUIMG_BORDER_WRAP:
        if (i >= -n && i < 2 * n)
            return i < 0 ? i + n : i - n;
        r = i % n;
        return r < 0 ? r + n : r;
    case GPUIMG_BORDER_REFLECT:
        if (i >= -n && i < 2 * n)
            return i < 0 ? -1 - i : 2 * n - 1 - i;
        period = 2 * n;
        r = i % period;
        if (r < 0)
            r += period;
        return r < n ? r : period - 1 - r;
    case GPUIMG_BORDER_REFLECT101:
    default:
        if (n == 1)
            return 0;
        if (i > -n && i < 2 * n - 1)
            return i < 0 ? -i : 2 * n - 2 - i;
        period = 2 * (n - 1);
        r = i % period;
        if (r < 0)
            r += period;
        return r < n ? r : period - r;
    }
}

/* SPEC §3's store: clamp(floor(v + 0.5), 0, 255); NaN gives 0, never a cast. */
GPUIMG_SHARED uint8_t gpuimg__round_u8(float v)
{
    float r = floorf(v + 0.5f);
    return !(r > 0.0f) ? 0 : r >= 255.0f ? 255 : (uint8_t)r;
}

/* The same at 16 bits: clamp(floor(v + 0.5), 0, 65535). */
GPUIMG_SHARED uint16_t gpuimg__round_u16(float v)
{
    float r = floorf(v + 0.5f);
    return !(r > 0.0f) ? 0 : r >= 65535.0f ? 65535 : (uint16_t)r;
}

/* Rec.601 luma in integers: floor(0.299 R + 0.587 G + 0.114 B + 0.5), ties up. */
GPUIMG_SHARED uint8_t gpuimg__luma(uint32_t r, uint32_t g, uint32_t b)
{
    return (uint8_t)((299u * r + 587u * g + 114u * b + 500u) / 1000u);
}

/* ...and of 16-bit values (the sums stay under 2^32: 1000 * 65535 + 500). */
GPUIMG_SHARED uint16_t gpuimg__luma16(uint32_t r, uint32_t g, uint32_t b)
{
    return (uint16_t)((299u * r + 587u * g + 114u * b + 500u) / 1000u);
}

#endif
