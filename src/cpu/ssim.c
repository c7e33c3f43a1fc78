/* SPDX-License-Identifier: MIT */
/* SSIM (Wang et al. 2004) as skimage computes it with Gaussian weights:
 * σ = 1.5 truncated at radius 5, population (co)variances; the map summed
 * over the pixels at least 5 from every edge that are not ignored (the host
 * averages it, src/compare.c). */
#include <stdlib.h>
#include <string.h>

#include "cpu.h"

#define SSIM_RADIUS GPUIMG_SSIM_RADIUS
#define SSIM_TAPS GPUIMG_SSIM_TAPS

/* The SSIM map of one channel, summed into *sum; 0 when out of memory.
 *
 * Only pixels at least SSIM_RADIUS from every edge are averaged, and their
 * windows lie wholly inside the image, so the `reflect` border that skimage
 * filters with never reaches the figure and no border is computed here. The
 * five window sums (x, y, x², y², xy) are separable: each row's horizontal
 * sums go into a ring of SSIM_TAPS rows, and each output row sums its ring
 * vertically, so memory is O(width) whatever the image's height. */
static int ssim_plane(const uint8_t *a, const uint8_t *b, int depth, const uint8_t *ignore, int w,
                      int h, double *sum)
{
    /* 16-bit values on the 8-bit scale: SSIM with L = 65535 is SSIM of
     * v / 257 with L = 255 (backend.h) */
    const double unit = depth == 16 ? 1.0 / 257.0 : 1.0;
    int inner = w - 2 * SSIM_RADIUS; /* output columns SSIM_RADIUS .. w-SSIM_RADIUS-1 */
    double *ring = malloc((size_t)SSIM_TAPS * 5 * (size_t)inner * sizeof(double));
    if (!ring)
        return 0;
    double g[SSIM_TAPS];
    gpuimg__ssim_window(g);

    const double c1 = GPUIMG_SSIM_C1, c2 = GPUIMG_SSIM_C2;
    double total = 0.0;
    for (int r = 0; r < h; r++) {
        /* horizontal sums of row r into ring slot r % SSIM_TAPS */
        double *slot = ring + (size_t)(r % SSIM_TAPS) * 5 * (size_t)inner;
        size_t row = (size_t)r * w;
        for (int i = 0; i < inner; i++) {
            double sx = 0, sy = 0, sxx = 0, syy = 0, sxy = 0;
            for (int k = 0; k < SSIM_TAPS; k++) {
                double x = gpuimg__get(a, depth, row + (size_t)(i + k)) * unit;
                double y = gpuimg__get(b, depth, row + (size_t)(i + k)) * unit;
                sx += g[k] * x;
                sy += g[k] * y;
                sxx += g[k] * x * x;
                syy += g[k] * y * y;
                sxy += g[k] * x * y;
            }
            double *q = slot + (size_t)i * 5;
            q[0] = sx, q[1] = sy, q[2] = sxx, q[3] = syy, q[4] = sxy;
        }
        if (r < SSIM_TAPS - 1)
            continue;
        /* the ring now holds rows r-10 .. r: output row r - SSIM_RADIUS */
        const uint8_t *skip = ignore ? ignore + (size_t)(r - SSIM_RADIUS) * w + SSIM_RADIUS : NULL;
        for (int i = 0; i < inner; i++) {
            if (skip && skip[i])
                continue;
            double m[5] = {0, 0, 0, 0, 0};
            for (int k = 0; k < SSIM_TAPS; k++) {
                const double *q =
                    ring + ((size_t)((r - SSIM_TAPS + 1 + k) % SSIM_TAPS) * 5 * (size_t)inner) +
                    (size_t)i * 5;
                for (int j = 0; j < 5; j++)
                    m[j] += g[k] * q[j];
            }
            double ux = m[0], uy = m[1];
            double vx = m[2] - ux * ux, vy = m[3] - uy * uy, vxy = m[4] - ux * uy;
            total +=
                ((2 * ux * uy + c1) * (2 * vxy + c2)) / ((ux * ux + uy * uy + c1) * (vx + vy + c2));
        }
    }
    free(ring);
    *sum += total;
    return 1;
}

gpuimg_status gpuimg__cpu_ssim(gpuimg_backend *be, const gpuimg_planes *a, const gpuimg_planes *b,
                               const uint8_t *ignore, double *sum)
{
    for (int c = 0; c < a->channels; c++)
        if (!ssim_plane(a->plane[c], b->plane[c], a->depth, ignore, a->width, a->height, sum))
            return gpuimg__cpu_nomem(be);
    return GPUIMG_OK;
}
