/* SPDX-License-Identifier: MIT */
/* The parts operation files share (params.h). */
#include <string.h>

#include "ops/params.h"

const char *const gpuimg__border_names[] = {"reflect101", "reflect",  "replicate",
                                            "wrap",       "constant", NULL};
const char *const gpuimg__alpha_names[] = {"independent", "premultiplied", NULL};

void gpuimg__same_shape(const gpuimg_step *s, int w, int h, int c, int *ow, int *oh, int *oc)
{
    (void)s;
    *ow = w;
    *oh = h;
    *oc = c;
}

void gpuimg__swapped_shape(const gpuimg_step *s, int w, int h, int c, int *ow, int *oh, int *oc)
{
    (void)s;
    *ow = h;
    *oh = w;
    *oc = c;
}

double gpuimg__window_cost(const gpuimg_step *s)
{
    (void)s;
    return 1.2;
}

double gpuimg__pass_cost(const gpuimg_step *s)
{
    (void)s;
    return 1.2;
}

int gpuimg__premultiplied(const gpuimg_step *s, int index, const gpuimg_planes *src)
{
    return s->value[index] != 0 && src->channels % 2 == 0;
}

/* Two float copies of the image live at once. Without alpha it is the
 * plain filter: every weight is 1. */
gpuimg_status gpuimg__alpha_weighted(gpuimg_backend *be, const gpuimg_step *s,
                                     const gpuimg_planes *src, gpuimg_planes *dst,
                                     gpuimg_float_filter filter)
{
    gpuimg_planes weighted, filtered;
    int w = src->width, h = src->height, c = src->channels;
    gpuimg_status st = be->ops->planes_alloc(be, &weighted, w, h, c, GPUIMG_DEPTH_FLOAT);
    if (st != GPUIMG_OK)
        return st;
    if ((st = be->ops->premultiply(be, src, &weighted)) == GPUIMG_OK &&
        (st = be->ops->planes_alloc(be, &filtered, w, h, c, GPUIMG_DEPTH_FLOAT)) == GPUIMG_OK) {
        if ((st = filter(be, s, &weighted, &filtered)) == GPUIMG_OK)
            st = be->ops->unpremultiply(be, &filtered, dst);
        be->ops->planes_free(be, &filtered);
    }
    be->ops->planes_free(be, &weighted);
    return st;
}

int gpuimg__parse_numbers(const char *text, int most, double *out)
{
    int n = 0;
    const char *p = text;
    for (;;) {
        size_t len = strcspn(p, ",");
        char item[64];
        if (n == most || len == 0 || len >= sizeof item)
            return -1;
        memcpy(item, p, len);
        item[len] = '\0';
        if (!gpuimg_parse_number(item, &out[n++]))
            return -1;
        if (p[len] == '\0')
            return n;
        p += len + 1;
    }
}
