/* SPDX-License-Identifier: MIT */
/* Tetrahedral interpolation in a colour table (backend.h's
 * gpuimg_colour_map.lut): the device's colour conversion
 * (kernels/colour_lut.cu) and the CI's check of its accuracy against
 * LittleCMS (tests/check_colour.c), one code for both, so that what CI
 * measures is what the GPU computes (the same float operations in the same
 * order; nvcc contracts a * b + c into FMAs by default, which round once
 * where the host rounds twice: at most an ulp of a value in 0..1, far
 * below the half unit that decides a rounding, except at exact ties).
 *
 * Why tetrahedral: the cube around a colour is split into six tetrahedra
 * along its gray diagonal, and the colour is interpolated from the four
 * corners of its own: 4 table reads instead of trilinear's 8, and exact
 * on the gray axis, where a photograph's neutrals lie (ICC.1's and
 * LittleCMS's own choice for 3-D tables). */
#ifndef GPUIMG_CORE_COLOUR_LUT_H
#define GPUIMG_CORE_COLOUR_LUT_H

#include <stdint.h>

#include "core/backend.h"

#ifdef __CUDACC__
#define GPUIMG_HD __host__ __device__ __forceinline__
#else
#define GPUIMG_HD static inline
#endif

/* A table value: on the device through the read-only cache. */
GPUIMG_HD float gpuimg__colour_read(const float *p)
{
#ifdef __CUDA_ARCH__
    return __ldg(p);
#else
    return *p;
#endif
}

/* A curve of GPUIMG_COLOUR_CURVE points over 0..1 at v (clamped to
 * 0..1), linearly interpolated. */
GPUIMG_HD float gpuimg__colour_curve(const float *curve, float v)
{
    v = v < 0.0f ? 0.0f : v > 1.0f ? 1.0f : v;
    float x = v * (float)GPUIMG_COLOUR_SHAPER;
    int i = (int)x;
    i = i > GPUIMG_COLOUR_SHAPER - 1 ? GPUIMG_COLOUR_SHAPER - 1 : i;
    float f = x - (float)i, a = gpuimg__colour_read(curve + i);
    return a + f * (gpuimg__colour_read(curve + i + 1) - a);
}

/* A table node's three values (nodes are 4 floats apart, the fourth
 * unused: on the device one 16-byte read, not three). */
GPUIMG_HD void gpuimg__colour_node(const float *node, float v[3])
{
#ifdef __CUDA_ARCH__
    float4 q = __ldg(reinterpret_cast<const float4 *>(node));
    v[0] = q.x, v[1] = q.y, v[2] = q.z;
#else
    v[0] = node[0], v[1] = node[1], v[2] = node[2];
#endif
}

/* The table (backend.h's layout) at x, y, z in grid units (0..G-1):
 * tetrahedral interpolation, into out[3] (unclamped). */
GPUIMG_HD void gpuimg__colour_interp(const float *table, float x, float y, float z, float out[3])
{
    const int G = GPUIMG_COLOUR_GRID;
    /* the cell: its last index is G - 2, so that G - 1 falls in the last
     * cell at fraction 1 */
    int i = (int)x, j = (int)y, k = (int)z;
    i = i > G - 2 ? G - 2 : i;
    j = j > G - 2 ? G - 2 : j;
    k = k > G - 2 ? G - 2 : k;
    float fx = x - (float)i, fy = y - (float)j, fz = z - (float)k;
    const int di = G * G * 4, dj = G * 4, dk = 4;
    const float *c0 = table + (size_t)i * di + (size_t)j * dj + (size_t)k * dk;
    /* the tetrahedron's corners after c000 and c111, and the weights */
    int o1, o2;
    float w0, w1, w2, w3; /* of c000, the first corner, the second, c111 */
    if (fx >= fy) {
        if (fy >= fz) { /* x >= y >= z: c100, c110 */
            o1 = di, o2 = di + dj, w0 = 1 - fx, w1 = fx - fy, w2 = fy - fz, w3 = fz;
        } else if (fx >= fz) { /* x >= z > y: c100, c101 */
            o1 = di, o2 = di + dk, w0 = 1 - fx, w1 = fx - fz, w2 = fz - fy, w3 = fy;
        } else { /* z > x >= y: c001, c101 */
            o1 = dk, o2 = di + dk, w0 = 1 - fz, w1 = fz - fx, w2 = fx - fy, w3 = fy;
        }
    } else {
        if (fz > fy) { /* z > y > x: c001, c011 */
            o1 = dk, o2 = dj + dk, w0 = 1 - fz, w1 = fz - fy, w2 = fy - fx, w3 = fx;
        } else if (fz > fx) { /* y >= z > x: c010, c011 */
            o1 = dj, o2 = dj + dk, w0 = 1 - fy, w1 = fy - fz, w2 = fz - fx, w3 = fx;
        } else { /* y > x >= z: c010, c110 */
            o1 = dj, o2 = di + dj, w0 = 1 - fy, w1 = fy - fx, w2 = fx - fz, w3 = fz;
        }
    }
    float a[3], b[3], c[3], d[3];
    gpuimg__colour_node(c0, a);
    gpuimg__colour_node(c0 + o1, b);
    gpuimg__colour_node(c0 + o2, c);
    gpuimg__colour_node(c0 + di + dj + dk, d);
    for (int n = 0; n < 3; n++)
        out[n] = w0 * a[n] + w1 * b[n] + w2 * c[n] + w3 * d[n];
}

/* A linear value's index in LittleCMS's 8-bit output curves: clamped to
 * 0..1, in 1/16384ths, rounded. */
GPUIMG_HD int gpuimg__colour_index8(float v)
{
    v = v < 0.0f ? 0.0f : v > 1.0f ? 1.0f : v;
    return (int)(v * 16384.0f + 0.5f);
}

/* r, g, b in 0..top through the conversion (backend.h's layout: table,
 * input curves, output curves, 8-bit curves) into out[3] (stored values).
 * The input curves make the values linear light and the output ones
 * encode them again, so that between them a matrix-shaper conversion
 * (every RGB profile a camera or phone embeds) is linear, which
 * tetrahedral interpolation reproduces exactly: the table's own error is
 * gone, and what is left is the curves' (16385 points, linearly
 * interpolated). For other profiles the curves are the identity, and the
 * table does it all. 8-bit values take LittleCMS's 8-bit curves instead
 * (its matrix-shaper path's: the input in 1.14 fixed point, the output by
 * the linear value rounded to 1/16384), so that the device rounds where
 * the CPU does. (The kernel's 8-bit path reads the same curves from
 * shared memory, through the same interp and index8.) */
GPUIMG_HD void gpuimg__colour_tetra(const float *lut, uint32_t r, uint32_t g, uint32_t b,
                                    uint32_t top, uint32_t out[3])
{
    const float *in_curves = lut + GPUIMG_COLOUR_TABLE;
    const float *out_curves = in_curves + 3 * GPUIMG_COLOUR_CURVE;
    const float *in8 = out_curves + 3 * GPUIMG_COLOUR_CURVE, *out8 = in8 + 3 * 256;
    const float inv = 1.0f / (float)top, scale = (float)(GPUIMG_COLOUR_GRID - 1);
    float x, y, z, v[3];
    if (top == 255) {
        x = gpuimg__colour_read(in8 + r) * scale;
        y = gpuimg__colour_read(in8 + 256 + g) * scale;
        z = gpuimg__colour_read(in8 + 512 + b) * scale;
    } else {
        x = gpuimg__colour_curve(in_curves, (float)r * inv) * scale;
        y = gpuimg__colour_curve(in_curves + GPUIMG_COLOUR_CURVE, (float)g * inv) * scale;
        z = gpuimg__colour_curve(in_curves + 2 * GPUIMG_COLOUR_CURVE, (float)b * inv) * scale;
    }
    gpuimg__colour_interp(lut, x, y, z, v);
    for (int c = 0; c < 3; c++)
        if (top == 255) {
            out[c] = (uint32_t)gpuimg__colour_read(out8 + c * GPUIMG_COLOUR_OUT8 +
                                                   gpuimg__colour_index8(v[c]));
        } else {
            float e = gpuimg__colour_curve(out_curves + c * GPUIMG_COLOUR_CURVE, v[c]);
            out[c] = (uint32_t)(e * (float)top + 0.5f);
        }
}

#endif
