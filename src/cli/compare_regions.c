/* SPDX-License-Identifier: MIT */
#define _POSIX_C_SOURCE 200809L /* strdup */
/* --ignore-file REGIONS.json: the rectangles a suite never counts, by path
 * (the clock in the corner of every screenshot, a date in one page):
 *
 *   {"*.png": [[1180, 0, 100, 24]], "settings/page*": [{"x": 0, "y": 40,
 *    "width": 320, "height": 16}]}
 *
 * Each key is a glob over the pair's relative path (fnmatch(3), '*' also
 * crossing '/'), each value a list of rectangles X, Y, WIDTH, HEIGHT. */
#include <fnmatch.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "compare_out.h"
#include "json_read.h"

/* A whole number within +-1e9 (a width or height at least 1). */
static int whole(const json_value *v, int positive, int *out)
{
    if (!v || v->type != JSON_NUMBER || v->number != floor(v->number) || fabs(v->number) > 1e9 ||
        (positive && v->number < 1))
        return -1;
    *out = (int)v->number;
    return 0;
}

static int rect_of(const json_value *v, gpuimg_rect *r)
{
    if (v->type == JSON_ARRAY && v->n == 4)
        return whole(&v->items[0], 0, &r->x) || whole(&v->items[1], 0, &r->y) ||
                       whole(&v->items[2], 1, &r->width) || whole(&v->items[3], 1, &r->height)
                   ? -1
                   : 0;
    if (v->type == JSON_OBJECT)
        return whole(json_get(v, "x"), 0, &r->x) || whole(json_get(v, "y"), 0, &r->y) ||
                       whole(json_get(v, "width"), 1, &r->width) ||
                       whole(json_get(v, "height"), 1, &r->height)
                   ? -1
                   : 0;
    return -1;
}

void compare_regions_free(gpuimg_ignore_region *regions, size_t n)
{
    for (size_t i = 0; regions && i < n; i++)
        free((char *)regions[i].glob);
    free(regions);
}

int compare_regions_parse(const char *name, const char *text, size_t len,
                          gpuimg_ignore_region **out, size_t *nout, char *why, size_t whylen)
{
    char err[160];
    *out = NULL;
    *nout = 0;
    json_value *doc = json_parse(text, len, err, sizeof err);
    if (!doc) {
        snprintf(why, whylen, "--ignore-file: %s: not JSON (%s)", name, err);
        return -1;
    }
    size_t total = 0;
    int bad = doc->type != JSON_OBJECT;
    for (size_t i = 0; !bad && i < doc->n; i++) {
        bad = doc->items[i].type != JSON_ARRAY || doc->keys[i][0] == '\0';
        total += bad ? 0 : doc->items[i].n;
    }
    gpuimg_ignore_region *regions = bad ? NULL : calloc(total + 1, sizeof *regions);
    size_t n = 0;
    for (size_t i = 0; regions && !bad && i < doc->n; i++)
        for (size_t k = 0; !bad && k < doc->items[i].n; k++) {
            bad = rect_of(&doc->items[i].items[k], &regions[n].rect) != 0;
            if (!bad && !(regions[n++].glob = strdup(doc->keys[i])))
                bad = 2;
        }
    if (bad || !regions) {
        snprintf(why, whylen,
                 bad == 2 || !regions ? "--ignore-file: %s: out of memory"
                                      : "--ignore-file: %s: not {\"GLOB\": [[X, Y, W, H], ...]} "
                                        "(whole numbers, W and H at least 1)",
                 name);
        compare_regions_free(regions, n);
        json_free(doc);
        return -1;
    }
    json_free(doc);
    *out = regions;
    *nout = n;
    return 0;
}

size_t compare_regions_for(const gpuimg_ignore_region *regions, size_t n, const char *path,
                           gpuimg_rect *out, size_t room)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (fnmatch(regions[i].glob, path, 0) == 0 && k < room)
            out[k++] = regions[i].rect;
    return k;
}
