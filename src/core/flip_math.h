/* SPDX-License-Identifier: MIT AND BSD-3-Clause */
/* FLIP's per-pixel arithmetic, one definition for the CPU backend
 * (src/cpu/flip.c) and the CUDA one (kernels/flip.cu), so that both run the
 * same float operations in the same order and their maps agree to float
 * rounding (the device's powf and expf are within 2 ulp of glibc's).
 *
 * LDR-FLIP, from "FLIP: A Difference Evaluator for Alternating Images"
 * (Andersson, Nilsson, Akenine-Möller, Oskarsson, Åström, Fairchild, HPG
 * 2020), as NVIDIA's reference implementation (github.com/NVlabs/flip,
 * src/cpp/FLIP.h; PyPI flip-evaluator) computes it. The constants, the
 * colour transforms and the order of the operations follow FLIP.h closely,
 * so this file carries its notice:
 *
 *   Copyright (c) 2020-2025, NVIDIA CORPORATION & AFFILIATES. All rights
 *   reserved.
 *
 *   Redistribution and use in source and binary forms, with or without
 *   modification, are permitted provided that the following conditions are
 *   met:
 *   1. Redistributions of source code must retain the above copyright
 *      notice, this list of conditions and the following disclaimer.
 *   2. Redistributions in binary form must reproduce the above copyright
 *      notice, this list of conditions and the following disclaimer in the
 *      documentation and/or other materials provided with the distribution.
 *   3. Neither the name of the copyright holder nor the names of its
 *      contributors may be used to endorse or promote products derived from
 *      this software without specific prior written permission.
 *
 *   THIS SOFTWARE IS PROVIDED BY THE COPYRIGHT HOLDERS AND CONTRIBUTORS "AS
 *   IS" AND ANY EXPRESS OR IMPLIED WARRANTIES, INCLUDING, BUT NOT LIMITED
 *   TO, THE IMPLIED WARRANTIES OF MERCHANTABILITY AND FITNESS FOR A
 *   PARTICULAR PURPOSE ARE DISCLAIMED. IN NO EVENT SHALL THE COPYRIGHT HOLDER
 *   OR CONTRIBUTORS BE LIABLE FOR ANY DIRECT, INDIRECT, INCIDENTAL, SPECIAL,
 *   EXEMPLARY, OR CONSEQUENTIAL DAMAGES (INCLUDING, BUT NOT LIMITED TO,
 *   PROCUREMENT OF SUBSTITUTE GOODS OR SERVICES; LOSS OF USE, DATA, OR
 *   PROFITS; OR BUSINESS INTERRUPTION) HOWEVER CAUSED AND ON ANY THEORY OF
 *   LIABILITY, WHETHER IN CONTRACT, STRICT LIABILITY, OR TORT (INCLUDING
 *   NEGLIGENCE OR OTHERWISE) ARISING IN ANY WAY OUT OF THE USE OF THIS
 *   SOFTWARE, EVEN IF ADVISED OF THE POSSIBILITY OF SUCH DAMAGE.
 *
 * The pipeline, per pixel of both images (the reference a, the test b):
 *   sRGB in [0, 1] -> linear RGB -> XYZ (D65) -> YCxCz (opponent space);
 *   colour: Y, Cx and Cz each filtered by the contrast sensitivity
 *     function's Gaussian (Cz's is a sum of two, run as two separable
 *     filters and added), back to linear RGB clamped to [0, 1], to CIELab,
 *     the Hunt adjustment of a and b, the HyAB distance of the two pixels,
 *     ^0.7, and remapped to [0, 1] (the first 0.4 of the largest distance,
 *     green to blue, onto [0, 0.95], the rest onto (0.95, 1]);
 *   features: the luminance Y / 116 + 16 / 116 filtered by the first and
 *     second derivatives of a Gaussian (σ = 0.041 degrees) in x and y: an
 *     edge is |∇|, a point |∇²|, and the feature difference is
 *     (max(|edge a - edge b|, |point a - point b|) / √2)^0.5;
 *   FLIP = colour difference ^ (1 - feature difference).
 * Borders repeat the edge pixel (the reference clamps its coordinates). */
#ifndef GPUIMG_FLIP_MATH_H
#define GPUIMG_FLIP_MATH_H

#include <math.h>

#include "core/backend.h"

#ifdef __CUDACC__
#define FLIP_HD static __host__ __device__ __forceinline__
#else
#define FLIP_HD static inline
#endif

/* sRGB's transfer function, decoded. */
FLIP_HD float gpuimg__flip_linear(float s)
{
    return s <= 0.04045f ? s / 12.92f : powf((s + 0.055f) / 1.055f, 2.4f);
}

/* Linear RGB to YCxCz (XYZ relative to D65's white: Y = 116 y - 16,
 * Cx = 500 (x - y), Cz = 200 (y - z)). */
FLIP_HD void gpuimg__flip_ycxcz(float r, float g, float b, float *out)
{
    const float a11 = 10135552.0f / 24577794.0f, a12 = 8788810.0f / 24577794.0f,
                a13 = 4435075.0f / 24577794.0f;
    const float a21 = 2613072.0f / 12288897.0f, a22 = 8788810.0f / 12288897.0f,
                a23 = 887015.0f / 12288897.0f;
    const float a31 = 1425312.0f / 73733382.0f, a32 = 8788810.0f / 73733382.0f,
                a33 = 70074185.0f / 73733382.0f;
    float x = (a11 * r + a12 * g + a13 * b) * 1.052156925f;
    float y = (a21 * r + a22 * g + a23 * b) * 1.000000000f;
    float z = (a31 * r + a32 * g + a33 * b) * 0.918357670f;
    out[0] = 116.0f * y - 16.0f;
    out[1] = 500.0f * (x - y);
    out[2] = 200.0f * (y - z);
}

/* Linear RGB to CIELab (D65) with the Hunt adjustment: a and b scaled by
 * L / 100. */
FLIP_HD void gpuimg__flip_lab_hunt_rgb(float r, float g, float b, float *out)
{
    float c[3];
    c[0] = (10135552.0f / 24577794.0f * r + 8788810.0f / 24577794.0f * g +
            4435075.0f / 24577794.0f * b) *
           1.052156925f;
    c[1] = (2613072.0f / 12288897.0f * r + 8788810.0f / 12288897.0f * g +
            887015.0f / 12288897.0f * b) *
           1.000000000f;
    c[2] = (1425312.0f / 73733382.0f * r + 8788810.0f / 73733382.0f * g +
            70074185.0f / 73733382.0f * b) *
           0.918357670f;
    const float delta = 6.0f / 29.0f, delta2 = delta * delta, delta3 = delta * delta2;
    const float factor = 1.0f / (3.0f * delta2), term = 4.0f / 29.0f;
    for (int k = 0; k < 3; k++)
        c[k] = c[k] > delta3 ? powf(c[k], 1.0f / 3.0f) : factor * c[k] + term;
    float l = 116.0f * c[1] - 16.0f;
    out[0] = l;
    out[1] = 0.01f * l * (500.0f * (c[0] - c[1])); /* Hunt: chroma scaled by lightness */
    out[2] = 0.01f * l * (200.0f * (c[1] - c[2]));
}

/* Filtered YCxCz to Hunt-adjusted CIELab (via linear RGB clamped to [0, 1]). */
FLIP_HD void gpuimg__flip_lab_hunt(float yy, float cx, float cz, float *out)
{
    /* YCxCz -> XYZ (times D65's white) */
    float y = (yy + 16.0f) / 116.0f;
    float x = (y + cx / 500.0f) * 0.950428545f;
    float z = (y - cz / 200.0f) * 1.088900371f;
    y = y * 1.000000000f;
    /* XYZ -> linear RGB, clamped */
    float r = 3.241003275f * x + -1.537398934f * y + -0.498615861f * z;
    float g = -0.969224334f * x + 1.875930071f * y + 0.041554224f * z;
    float b = 0.055639423f * x + -0.204011202f * y + 1.057148933f * z;
    r = fminf(fmaxf(r, 0.0f), 1.0f);
    g = fminf(fmaxf(g, 0.0f), 1.0f);
    b = fminf(fmaxf(b, 0.0f), 1.0f);
    gpuimg__flip_lab_hunt_rgb(r, g, b, out);
}

/* HyAB: city-block in L, Euclidean in (a, b). */
FLIP_HD float gpuimg__flip_hyab(const float *p, const float *q)
{
    return fabsf(p[0] - q[0]) +
           sqrtf((p[1] - q[1]) * (p[1] - q[1]) + (p[2] - q[2]) * (p[2] - q[2]));
}

/* The colour difference in [0, 1] of two filtered YCxCz pixels. */
FLIP_HD float gpuimg__flip_colour(const float *ref, const float *test, float cmax, float pccmax)
{
    float p[3], q[3];
    gpuimg__flip_lab_hunt(ref[0], ref[1], ref[2], p);
    gpuimg__flip_lab_hunt(test[0], test[1], test[2], q);
    float d = powf(gpuimg__flip_hyab(p, q), 0.7f);
    if (d < pccmax)
        return d * (0.95f / pccmax);
    return 0.95f + ((d - pccmax) / (cmax - pccmax)) * (1.0f - 0.95f);
}

/* The feature difference of two pixels' edge (dx, dy) and point (ddx, ddy)
 * responses, and the FLIP value from it and the colour difference. */
FLIP_HD float gpuimg__flip_final(float colour, float dx_a, float dy_a, float ddx_a, float ddy_a,
                                 float dx_b, float dy_b, float ddx_b, float ddy_b)
{
    float edge_a = sqrtf(dx_a * dx_a + dy_a * dy_a), edge_b = sqrtf(dx_b * dx_b + dy_b * dy_b);
    float point_a = sqrtf(ddx_a * ddx_a + ddy_a * ddy_a);
    float point_b = sqrtf(ddx_b * ddx_b + ddy_b * ddy_b);
    float de = fabsf(edge_a - edge_b), dp = fabsf(point_a - point_b);
    float feature = powf((1.0f / sqrtf(2.0f)) * (de > dp ? de : dp), 0.5f);
    return powf(colour, 1.0f - feature);
}

#endif
