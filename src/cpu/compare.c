/* SPDX-License-Identifier: MIT */
/* Golden-image metrics: max difference, differing pixels, MAE, RMSE, PSNR,
 * and SSIM (Wang et al. 2004) as skimage computes it with Gaussian weights:
 * σ = 1.5 truncated at radius 5, population (co)variances, the map averaged
 * over pixels at least 5 from every edge. */
#include <stdlib.h>
#include <string.h>

#include "cpu.h"

#define SSIM_RADIUS GPUIMG_SSIM_RADIUS
#define SSIM_TAPS GPUIMG_SSIM_TAPS

/* Mean SSIM of one channel into *ssim; 0 when out of memory.
 *
 * Only pixels at least SSIM_RADIUS from every edge are averaged, and their
 * windows lie wholly inside the image, so the `reflect` border that skimage
 * filters with never reaches the figure and no border is computed here. The
 * five window sums (x, y, x², y², xy) are separable: each row's horizontal
 * sums go into a ring of SSIM_TAPS rows, and each output row sums its ring
 * vertically, so memory is O(width) whatever the image's height. */
static int ssim_plane(const uint8_t *a, const uint8_t *b, int w, int h, double *ssim)
{
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
        const uint8_t *ra = a + (size_t)r * w, *rb = b + (size_t)r * w;
        for (int i = 0; i < inner; i++) {
            double sx = 0, sy = 0, sxx = 0, syy = 0, sxy = 0;
            for (int k = 0; k < SSIM_TAPS; k++) {
                double x = ra[i + k], y = rb[i + k];
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
        for (int i = 0; i < inner; i++) {
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
    *ssim = total / ((double)inner * (double)(h - 2 * SSIM_RADIUS));
    return 1;
}

gpuimg_status gpuimg__cpu_compare(gpuimg_backend *be, const gpuimg_planes *a,
                                  const gpuimg_planes *b, int fuzz, gpuimg_compare_result *out)
{
    int w = a->width, h = a->height, cn = a->channels;
    size_t n = gpuimg__plane_size(a);
    uint64_t sum = 0, squares = 0, differing = 0;
    int max_diff = 0;
    for (size_t i = 0; i < n; i++) {
        int pixel_max = 0;
        for (int c = 0; c < cn; c++) {
            int d = abs((int)a->plane[c][i] - (int)b->plane[c][i]);
            sum += (uint64_t)d;
            squares += (uint64_t)(d * d);
            if (d > pixel_max)
                pixel_max = d;
        }
        differing += pixel_max > fuzz;
        if (pixel_max > max_diff)
            max_diff = pixel_max;
    }
    int has_ssim = w >= SSIM_TAPS && h >= SSIM_TAPS;
    double ssim_total = 0.0;
    for (int c = 0; has_ssim && c < cn; c++) {
        double s;
        if (!ssim_plane(a->plane[c], b->plane[c], w, h, &s))
            return gpuimg__cpu_nomem(be);
        ssim_total += s;
    }
    gpuimg__compare_finish(out, w, h, cn, max_diff, differing, sum, squares, ssim_total, has_ssim);
    return GPUIMG_OK;
}
