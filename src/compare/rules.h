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
/* The shift rule by groups (compare/groups.c). map holds w * h bytes, 1 at
 * each pixel still counted (differs by the rule, not anti-aliasing, not
 * ignored), 0 elsewhere; each 8-connected group of them becomes 2 when one
 * displacement d, 0 < max(|dx|, |dy|) <= n, explains all of it (a's pixel
 * at p matches b's at p + d and b's at p matches a's at p - d, by rule),
 * else 3. *groups counts the groups forgiven. 0, or -1 when memory runs out. */
int gpuimg__shift_groups(const gpuimg_pixel_rule *rule, const uint8_t *a, const uint8_t *b, int w,
                         int h, int n, uint8_t *map, uint64_t *groups);

#endif
