/* SPDX-License-Identifier: MIT */
/* The per-pixel rules of golden-image comparison (SPEC §7): the pixel rule
 * (fuzz or pixelmatch's YIQ distance), pixelmatch 5.x's anti-aliasing
 * detector. They run on the host for the pixels that differ, which in a golden-image test are few:
 * a pixel that matches costs one channel comparison. The arithmetic is pixelmatch's, in double (as
 * JavaScript's numbers are), so that counts agree with it exactly. */
#include <stdlib.h>

#include "compare/rules.h"

/* The pixel as pixelmatch sees it: R, G, B, A (gray repeated, alpha 255
 * when the images have none). */
static void rgba(const uint8_t *p, int c, double out[4])
{
    out[0] = p[0];
    out[1] = c >= 3 ? p[1] : p[0];
    out[2] = c >= 3 ? p[2] : p[0];
    out[3] = c == 2 ? p[1] : c == 4 ? p[3] : 255;
}

static int same_pixel(const uint8_t *p, const uint8_t *q, int c)
{
    for (int k = 0; k < c; k++)
        if (p[k] != q[k])
            return 0;
    return 1;
}

/* Blended over white by alpha, c' = 255 + (c - 255) a / 255, as pixelmatch
 * does (only when a < 255, which changes nothing else). */
static void blend(double px[4])
{
    if (px[3] < 255) {
        double a = px[3] / 255;
        for (int k = 0; k < 3; k++)
            px[k] = 255 + (px[k] - 255) * a;
    }
}

static double luma_y(const double px[4])
{
    return px[0] * 0.29889531 + px[1] * 0.58662247 + px[2] * 0.11448223;
}

/* Both pixels as pixelmatch compares them, RGBA blended over white; 0 when
 * they are the same bytes (its early return: a delta of exactly 0). */
static int blended_pair(const uint8_t *p, const uint8_t *q, int c, double a[4], double b[4])
{
    if (same_pixel(p, q, c))
        return 0;
    rgba(p, c, a);
    rgba(q, c, b);
    blend(a);
    blend(b);
    return 1;
}

double gpuimg__yiq_delta(const uint8_t *p, const uint8_t *q, int c)
{
    double a[4], b[4];
    if (!blended_pair(p, q, c, a, b))
        return 0;
    double y = luma_y(a) - luma_y(b);
    double i = (a[0] * 0.59597799 - a[1] * 0.2741761 - a[2] * 0.32180189) -
               (b[0] * 0.59597799 - b[1] * 0.2741761 - b[2] * 0.32180189);
    double qq = (a[0] * 0.21147017 - a[1] * 0.52261711 + a[2] * 0.31114694) -
                (b[0] * 0.21147017 - b[1] * 0.52261711 + b[2] * 0.31114694);
    return 0.5053 * y * y + 0.299 * i * i + 0.1957 * qq * qq;
}

int gpuimg__pixels_differ(const gpuimg_pixel_rule *rule, const uint8_t *p, const uint8_t *q)
{
    if (rule->max_delta > 0)
        return gpuimg__yiq_delta(p, q, rule->channels) > rule->max_delta;
    for (int k = 0; k < rule->channels; k++)
        if (abs((int)p[k] - (int)q[k]) > rule->fuzz)
            return 1;
    return 0;
}

/* pixelmatch's brightness difference of two pixels of one image (0 when
 * every channel is equal). */
static double brightness_delta(const uint8_t *p, const uint8_t *q, int c)
{
    double a[4], b[4];
    return blended_pair(p, q, c, a, b) ? luma_y(a) - luma_y(b) : 0;
}

/* 1 when the pixel at (x1, y1) has three or more neighbours of its exact
 * value (the image's edge counting as one). */
static int many_siblings(const uint8_t *img, int x1, int y1, int w, int h, int c)
{
    int x0 = x1 > 0 ? x1 - 1 : 0, y0 = y1 > 0 ? y1 - 1 : 0;
    int x2 = x1 < w - 1 ? x1 + 1 : w - 1, y2 = y1 < h - 1 ? y1 + 1 : h - 1;
    const uint8_t *p = img + ((size_t)y1 * w + x1) * c;
    int zeroes = x1 == x0 || x1 == x2 || y1 == y0 || y1 == y2;
    for (int x = x0; x <= x2; x++)
        for (int y = y0; y <= y2; y++) {
            if (x == x1 && y == y1)
                continue;
            zeroes += same_pixel(p, img + ((size_t)y * w + x) * c, c);
            if (zeroes > 2)
                return 1;
        }
    return 0;
}

int gpuimg__antialiased(const uint8_t *img, int x1, int y1, int w, int h, const uint8_t *img2,
                        int c)
{
    int x0 = x1 > 0 ? x1 - 1 : 0, y0 = y1 > 0 ? y1 - 1 : 0;
    int x2 = x1 < w - 1 ? x1 + 1 : w - 1, y2 = y1 < h - 1 ? y1 + 1 : h - 1;
    const uint8_t *p = img + ((size_t)y1 * w + x1) * c;
    int zeroes = x1 == x0 || x1 == x2 || y1 == y0 || y1 == y2;
    double min = 0, max = 0;
    int min_x = 0, min_y = 0, max_x = 0, max_y = 0;
    /* pixelmatch's order (columns outer, rows inner) decides between equal
     * extremes: the first one found is kept */
    for (int x = x0; x <= x2; x++)
        for (int y = y0; y <= y2; y++) {
            if (x == x1 && y == y1)
                continue;
            double delta = brightness_delta(p, img + ((size_t)y * w + x) * c, c);
            if (delta == 0) {
                if (++zeroes > 2)
                    return 0; /* flat around it: not anti-aliasing */
            } else if (delta < min) {
                min = delta;
                min_x = x;
                min_y = y;
            } else if (delta > max) {
                max = delta;
                max_x = x;
                max_y = y;
            }
        }
    if (min == 0 || max == 0) /* not between a darker and a brighter neighbour */
        return 0;
    return (many_siblings(img, min_x, min_y, w, h, c) &&
            many_siblings(img2, min_x, min_y, w, h, c)) ||
           (many_siblings(img, max_x, max_y, w, h, c) &&
            many_siblings(img2, max_x, max_y, w, h, c));
}
