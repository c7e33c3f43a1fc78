/* SPDX-License-Identifier: MIT */
/* Golden-image metrics: max difference, differing pixels, MAE, RMSE, PSNR,
 * and SSIM (Wang et al. 2004) as skimage computes it with Gaussian weights:
 * σ = 1.5 truncated at radius 5, population (co)variances, window sums with
 * `reflect` borders, the map averaged over pixels at least 5 from every edge. */
#include <stdlib.h>
#include <string.h>

#include "cpu.h"

#define SSIM_RADIUS 5
#define SSIM_TAPS (2 * SSIM_RADIUS + 1)

/* Separable Gaussian window sum of in (w x h doubles) into out; tmp is w x h. */
static void gauss_filter(const double *in, double *tmp, double *out, int w, int h, const double *g)
{
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            double s = 0.0;
            for (int k = 0; k < SSIM_TAPS; k++) {
                long sx = gpuimg__border_index((long)x + k - SSIM_RADIUS, w, GPUIMG_BORDER_REFLECT);
                s += g[k] * in[(size_t)y * w + sx];
            }
            tmp[(size_t)y * w + x] = s;
        }
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            double s = 0.0;
            for (int k = 0; k < SSIM_TAPS; k++) {
                long sy = gpuimg__border_index((long)y + k - SSIM_RADIUS, h, GPUIMG_BORDER_REFLECT);
                s += g[k] * tmp[(size_t)sy * w + x];
            }
            out[(size_t)y * w + x] = s;
        }
}

/* Mean SSIM of one channel into *ssim; 0 when out of memory. */
static int ssim_plane(const uint8_t *a, const uint8_t *b, int w, int h, double *ssim)
{
    size_t n = (size_t)w * (size_t)h;
    double *buf = malloc(n * 11 * sizeof(double));
    if (!buf)
        return 0;
    double *in[5], *mu[5], *tmp = buf + 10 * n;
    for (int i = 0; i < 5; i++) {
        in[i] = buf + (size_t)i * n;
        mu[i] = buf + (size_t)(5 + i) * n;
    }
    for (size_t i = 0; i < n; i++) {
        double x = a[i], y = b[i];
        in[0][i] = x;
        in[1][i] = y;
        in[2][i] = x * x;
        in[3][i] = y * y;
        in[4][i] = x * y;
    }
    double g[SSIM_TAPS], gsum = 0.0;
    for (int k = 0; k < SSIM_TAPS; k++) {
        double d = k - SSIM_RADIUS;
        g[k] = exp(-d * d / (2.0 * 1.5 * 1.5));
        gsum += g[k];
    }
    for (int k = 0; k < SSIM_TAPS; k++)
        g[k] /= gsum;
    for (int i = 0; i < 5; i++)
        gauss_filter(in[i], tmp, mu[i], w, h, g);

    const double c1 = (0.01 * 255) * (0.01 * 255), c2 = (0.03 * 255) * (0.03 * 255);
    double total = 0.0;
    for (int y = SSIM_RADIUS; y < h - SSIM_RADIUS; y++)
        for (int x = SSIM_RADIUS; x < w - SSIM_RADIUS; x++) {
            size_t i = (size_t)y * w + x;
            double ux = mu[0][i], uy = mu[1][i];
            double vx = mu[2][i] - ux * ux, vy = mu[3][i] - uy * uy, vxy = mu[4][i] - ux * uy;
            total +=
                ((2 * ux * uy + c1) * (2 * vxy + c2)) / ((ux * ux + uy * uy + c1) * (vx + vy + c2));
        }
    free(buf);
    *ssim = total / ((double)(w - 2 * SSIM_RADIUS) * (double)(h - 2 * SSIM_RADIUS));
    return 1;
}

gpuimg_status gpuimg__cpu_compare(gpuimg_backend *be, const gpuimg_planes *a,
                                  const gpuimg_planes *b, int fuzz, gpuimg_compare_result *out)
{
    memset(out, 0, sizeof *out);
    int w = a->width, h = a->height, cn = a->channels;
    size_t n = gpuimg__plane_size(a);
    out->width = w;
    out->height = h;
    out->channels = cn;
    uint64_t sum = 0, sq = 0;
    int maxd = 0;
    for (size_t i = 0; i < n; i++) {
        int pixel_max = 0;
        for (int c = 0; c < cn; c++) {
            int d = abs((int)a->plane[c][i] - (int)b->plane[c][i]);
            sum += (uint64_t)d;
            sq += (uint64_t)(d * d);
            if (d > pixel_max)
                pixel_max = d;
        }
        if (pixel_max > fuzz)
            out->differing++;
        if (pixel_max > maxd)
            maxd = pixel_max;
    }
    double values = (double)n * cn;
    out->max_diff = maxd;
    out->identical = maxd == 0;
    out->mae = (double)sum / values;
    out->rmse = sqrt((double)sq / values);
    if (!out->identical)
        out->psnr = 10.0 * log10(255.0 * 255.0 / ((double)sq / values));
    if (w >= 2 * SSIM_RADIUS + 1 && h >= 2 * SSIM_RADIUS + 1) {
        double total = 0.0;
        for (int c = 0; c < cn; c++) {
            double s;
            if (!ssim_plane(a->plane[c], b->plane[c], w, h, &s))
                return gpuimg__cpu_nomem(be);
            total += s;
        }
        out->ssim = total / cn;
        out->has_ssim = 1;
    }
    return GPUIMG_OK;
}
