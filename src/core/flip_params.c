/* SPDX-License-Identifier: MIT AND BSD-3-Clause */
/* FLIP's filters and constants (backend.h), made on the host once per
 * comparison, in float and in the order NVIDIA's reference makes them
 * (FLIP.h's setSpatialFilters, setFeatureFilter, computeMaxDistance; its
 * BSD-3-Clause notice is in core/flip_math.h), so that the weights both
 * backends use are the reference's to the bit. */
#include <math.h>

#include "core/backend.h"
#include "core/flip_math.h"

/* The reference's π (a float) and its default pixels per degree: 0.7 m
 * from a 0.7 m wide screen of 3840 pixels, 67.02. */
#define FLIP_PI 3.14159265358979f

/* The contrast sensitivity functions' Gaussians in the paper's form,
 * a sqrt(π / b) exp(-π² x² / b); the square root of a (the separated
 * form of Cz's sum of two Gaussians, separatedConvolutions.pdf). */
static float gaussian(float x2, float a, float b)
{
    const float pi = FLIP_PI, pi_sq = FLIP_PI * FLIP_PI;
    return a * sqrtf(pi / b) * expf(-pi_sq * x2 / b);
}

static float gaussian_sqrt(float x2, float a, float b)
{
    const float pi = FLIP_PI, pi_sq = FLIP_PI * FLIP_PI;
    return sqrtf(a * sqrtf(pi / b)) * expf(-pi_sq * x2 / b);
}

void gpuimg__flip_params(gpuimg_flip_params *p)
{
    const float ppd = 0.7f * (3840.0f / 0.7f) * (FLIP_PI / 180.0f);
    /* spatial: Y (a 1, b 0.0047), Cx (1, 0.0053), Cz (34.1, 0.04) + (13.5, 0.025) */
    const int r = GPUIMG_FLIP_SPATIAL_RADIUS;
    float sum_y = 0, sum_cx = 0, sum_cz1 = 0, sum_cz2 = 0;
    for (int k = 0; k < GPUIMG_FLIP_SPATIAL_TAPS; k++) {
        float x = (float)(k - r) * (1.0f / ppd), x2 = x * x;
        p->y[k] = gaussian(x2, 1.0f, 0.0047f);
        p->cx[k] = gaussian(x2, 1.0f, 0.0053f);
        p->cz1[k] = gaussian_sqrt(x2, 34.1f, 0.04f);
        p->cz2[k] = gaussian_sqrt(x2, 13.5f, 0.025f);
        sum_y += p->y[k];
        sum_cx += p->cx[k];
        sum_cz1 += p->cz1[k];
        sum_cz2 += p->cz2[k];
    }
    float norm_y = 1.0f / sum_y, norm_cx = 1.0f / sum_cx;
    float norm_cz = 1.0f / sqrtf(sum_cz1 * sum_cz1 + sum_cz2 * sum_cz2);
    for (int k = 0; k < GPUIMG_FLIP_SPATIAL_TAPS; k++) {
        p->y[k] *= norm_y;
        p->cx[k] *= norm_cx;
        p->cz1[k] *= norm_cz;
        p->cz2[k] *= norm_cz;
    }
    /* features: σ = 0.5 · 0.082 degrees; the Gaussian's weights sum to 1,
     * each derivative's positive weights to 1 and negative ones to -1 */
    const float sd = 0.5f * 0.082f * ppd;
    const int fr = GPUIMG_FLIP_FEATURE_RADIUS;
    float g_sum = 0, dg_pos = 0, dg_neg = 0, ddg_pos = 0, ddg_neg = 0;
    for (int k = 0; k < GPUIMG_FLIP_FEATURE_TAPS; k++) {
        float x = (float)(k - fr);
        float g = expf(-(x * x) / (2.0f * sd * sd));
        float dg = -x * g, ddg = (x * x / (sd * sd) - 1.0f) * g;
        g_sum += g;
        if (dg > 0.0f)
            dg_pos += dg;
        else
            dg_neg -= dg;
        if (ddg > 0.0f)
            ddg_pos += ddg;
        else
            ddg_neg -= ddg;
        p->g[k] = g, p->dg[k] = dg, p->ddg[k] = ddg;
    }
    for (int k = 0; k < GPUIMG_FLIP_FEATURE_TAPS; k++) {
        p->g[k] /= g_sum;
        p->dg[k] /= p->dg[k] > 0.0f ? dg_pos : dg_neg;
        p->ddg[k] /= p->ddg[k] > 0.0f ? ddg_pos : ddg_neg;
    }
    /* the largest distance: pure green to pure blue */
    float green[3], blue[3];
    gpuimg__flip_lab_hunt_rgb(0.0f, 1.0f, 0.0f, green);
    gpuimg__flip_lab_hunt_rgb(0.0f, 0.0f, 1.0f, blue);
    p->cmax = powf(gpuimg__flip_hyab(green, blue), 0.7f);
    p->pccmax = 0.4f * p->cmax;
}
