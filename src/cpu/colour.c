/* SPDX-License-Identifier: MIT */
/* colour_map on the CPU: LittleCMS's transform (SPEC §2: the CPU backend
 * uses it as it is), over bands of rows on every core. The transform takes
 * interleaved pixels; the planes are gathered into a chunk of them and the
 * result scattered back, a chunk small enough to stay in L1 (the transform
 * itself, a few table lookups and a 3x3 product per pixel, costs far more
 * than the two copies). */
#include <stdint.h>
#include <stdlib.h>

#include "cpu.h"

#define CHUNK 1024 /* pixels: 3 KiB in and out at 8 bits, 6 at 16 */

typedef struct colour_job {
    const gpuimg_planes *src;
    gpuimg_planes *dst;
    const gpuimg_colour_map *map;
} colour_job;

static void chunk8(const colour_job *j, size_t at, size_t n, uint8_t *in, uint8_t *out)
{
    const uint8_t *r = j->src->plane[0] + at, *g = j->src->plane[1] + at,
                  *b = j->src->plane[2] + at;
    for (size_t i = 0; i < n; i++)
        in[3 * i] = r[i], in[3 * i + 1] = g[i], in[3 * i + 2] = b[i];
    j->map->rows(j->map->transform8, in, out, n);
    uint8_t *R = j->dst->plane[0] + at, *G = j->dst->plane[1] + at, *B = j->dst->plane[2] + at;
    for (size_t i = 0; i < n; i++)
        R[i] = out[3 * i], G[i] = out[3 * i + 1], B[i] = out[3 * i + 2];
}

static void chunk16(const colour_job *j, size_t at, size_t n, uint16_t *in, uint16_t *out)
{
    const uint16_t *r = (const uint16_t *)j->src->plane[0] + at,
                   *g = (const uint16_t *)j->src->plane[1] + at,
                   *b = (const uint16_t *)j->src->plane[2] + at;
    for (size_t i = 0; i < n; i++)
        in[3 * i] = r[i], in[3 * i + 1] = g[i], in[3 * i + 2] = b[i];
    j->map->rows(j->map->transform16, in, out, n);
    uint16_t *R = (uint16_t *)j->dst->plane[0] + at, *G = (uint16_t *)j->dst->plane[1] + at,
             *B = (uint16_t *)j->dst->plane[2] + at;
    for (size_t i = 0; i < n; i++)
        R[i] = out[3 * i], G[i] = out[3 * i + 1], B[i] = out[3 * i + 2];
}

static int colour_band(void *arg, int y0, int y1)
{
    const colour_job *j = arg;
    size_t w = (size_t)j->src->width, end = (size_t)y1 * w;
    /* the chunk's interleaved pixels in and out, at 16 bits' size */
    uint16_t *buf = malloc(2 * CHUNK * 3 * sizeof *buf);
    if (!buf)
        return 0;
    for (size_t at = (size_t)y0 * w; at < end; at += CHUNK) {
        size_t n = end - at < CHUNK ? end - at : CHUNK;
        if (j->src->depth == 16)
            chunk16(j, at, n, buf, buf + CHUNK * 3);
        else
            chunk8(j, at, n, (uint8_t *)buf, (uint8_t *)(buf + CHUNK * 3));
    }
    free(buf);
    return 1;
}

gpuimg_status gpuimg__cpu_colour_map(gpuimg_backend *be, const gpuimg_planes *src,
                                     gpuimg_planes *dst, const gpuimg_colour_map *map)
{
    colour_job j = {.src = src, .dst = dst, .map = map};
    /* bands of 16K pixels at least: a transform call's set-up is small */
    int rows = (int)((16384 + (size_t)src->width - 1) / (size_t)src->width);
    return gpuimg__cpu_bands(be, src->height, rows, colour_band, &j);
}
