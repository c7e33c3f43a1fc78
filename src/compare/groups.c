/* SPDX-License-Identifier: MIT */
/* The shift rule by groups (SPEC §7): content that moved is forgiven,
 * content that changed is not.
 *
 * A per-pixel rule ("each pixel matches something within N") forgives a
 * changed glyph, since every pixel of a '4' finds some pixel of a '3' in
 * some direction. Here the counted pixels fall into 8-connected groups and a
 * group is forgiven only when one displacement explains every pixel of it,
 * both ways: a line of text that moved has one; a glyph that changed, an
 * element that appeared, or two touching elements that moved different
 * ways have none.
 *
 * The groups are few and small in a golden-image test (a handful of
 * differing pixels), so this runs once per pair on one thread after the
 * banded pass. A displacement usually fails on the group's first pixel, so
 * trying all (2N+1)² - 1 of them costs about that many comparisons a group. */
#include <stdlib.h>

#include "compare/rules.h"

enum { COUNTED_SO_FAR = 1, FORGIVEN = 2, COUNTED = 3, IN_GROUP = 4 };

/* The group around start (map 1 -> 4), its pixel indices in *list. */
static int collect(uint8_t *map, int w, int h, size_t start, size_t **list, size_t *cap, size_t *n)
{
    *n = 0;
    map[start] = IN_GROUP;
    (*list)[(*n)++] = start;
    for (size_t k = 0; k < *n; k++) {
        size_t i = (*list)[k];
        int x = (int)(i % (size_t)w), y = (int)(i / (size_t)w);
        for (int dy = -1; dy <= 1; dy++)
            for (int dx = -1; dx <= 1; dx++) {
                int xx = x + dx, yy = y + dy;
                if (xx < 0 || yy < 0 || xx >= w || yy >= h)
                    continue;
                size_t j = (size_t)yy * (size_t)w + (size_t)xx;
                if (map[j] != COUNTED_SO_FAR)
                    continue;
                if (*n == *cap) {
                    size_t *grown = realloc(*list, *cap * 2 * sizeof **list);
                    if (!grown)
                        return -1;
                    *list = grown;
                    *cap *= 2;
                }
                map[j] = IN_GROUP;
                (*list)[(*n)++] = j;
            }
    }
    return 0;
}

/* 1 when the displacement (dx, dy) explains every pixel of the group. */
static int explains(const gpuimg_pixel_rule *rule, const uint8_t *a, const uint8_t *b, int w, int h,
                    const size_t *group, size_t n, int dx, int dy)
{
    int c = rule->channels;
    for (size_t k = 0; k < n; k++) {
        int x = (int)(group[k] % (size_t)w), y = (int)(group[k] / (size_t)w);
        /* a position outside the image matches nothing */
        if (x + dx < 0 || x + dx >= w || y + dy < 0 || y + dy >= h || x - dx < 0 || x - dx >= w ||
            y - dy < 0 || y - dy >= h)
            return 0;
        size_t there = (size_t)(y + dy) * (size_t)w + (size_t)(x + dx);
        size_t back = (size_t)(y - dy) * (size_t)w + (size_t)(x - dx);
        if (gpuimg__pixels_differ(rule, a + group[k] * (size_t)c, b + there * (size_t)c) ||
            gpuimg__pixels_differ(rule, b + group[k] * (size_t)c, a + back * (size_t)c))
            return 0;
    }
    return 1;
}

static int moved(const gpuimg_pixel_rule *rule, const uint8_t *a, const uint8_t *b, int w, int h,
                 int n, const size_t *group, size_t count)
{
    /* nearest rings first: the smallest move that explains a group is the
     * likeliest one, and the answer does not depend on the order */
    for (int r = 1; r <= n; r++)
        for (int dy = -r; dy <= r; dy++)
            for (int dx = -r; dx <= r; dx += (dy == -r || dy == r) ? 1 : 2 * r)
                if (explains(rule, a, b, w, h, group, count, dx, dy))
                    return 1;
    return 0;
}

int gpuimg__shift_groups(const gpuimg_pixel_rule *rule, const uint8_t *a, const uint8_t *b, int w,
                         int h, int n, uint8_t *map, uint64_t *groups)
{
    size_t cap = 256, count, total = (size_t)w * (size_t)h;
    size_t *list = malloc(cap * sizeof *list);
    if (!list)
        return -1;
    for (size_t i = 0; i < total; i++) {
        if (map[i] != COUNTED_SO_FAR)
            continue;
        if (collect(map, w, h, i, &list, &cap, &count) != 0) {
            free(list);
            return -1;
        }
        int forgiven = moved(rule, a, b, w, h, n, list, count);
        *groups += (uint64_t)forgiven;
        for (size_t k = 0; k < count; k++)
            map[list[k]] = forgiven ? FORGIVEN : COUNTED;
    }
    free(list);
    return 0;
}
