/* SPDX-License-Identifier: MIT */
/* The per-pixel rules of golden-image comparison (compare/rules.c). Images
 * are interleaved, packed, of `channels` channels (1-4, as widened). */
#ifndef GPUIMG_COMPARE_RULES_H
#define GPUIMG_COMPARE_RULES_H

#include <stddef.h>
#include <stdint.h>

typedef struct gpuimg_pixel_rule {
    int channels;
    int fuzz;         /* used when max_delta is 0 */
    double max_delta; /* 35215 threshold², or 0 for the fuzz rule */
} gpuimg_pixel_rule;

/* pixelmatch's YIQ distance (0.5053 ΔY² + 0.299 ΔI² + 0.1957 ΔQ² of the
 * pixels blended over white). */
double gpuimg__yiq_delta(const uint8_t *p, const uint8_t *q, int channels);
/* 1 when the two pixels differ by the rule. */
int gpuimg__pixels_differ(const gpuimg_pixel_rule *rule, const uint8_t *p, const uint8_t *q);
/* pixelmatch 5.x's detector: 1 when img's pixel (x, y) looks like
 * anti-aliasing, judged against img and img2 (the other image). */
int gpuimg__antialiased(const uint8_t *img, int x, int y, int w, int h, const uint8_t *img2,
                        int channels);
/* The shift rule: a's pixel (x, y) matches a pixel of b within n
 * (Chebyshev), and b's matches one of a's. */
int gpuimg__shifted(const gpuimg_pixel_rule *rule, const uint8_t *a, const uint8_t *b, int x, int y,
                    int w, int h, int n);

#endif
