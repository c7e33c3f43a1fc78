/* SPDX-License-Identifier: MIT */
/* Exact histograms, one bin per value (256 or 65536), every channel, alpha
 * included (stats derive from them: backend_common.c). Each band counts
 * into its own table and adds it into the result with atomic adds: integer
 * sums, so the order the bands finish in changes nothing. */
#include <stdlib.h>
#include <string.h>

#include "cpu.h"

/* 8 bits: four tables, so that a run of one value (a flat sky) does not
 * make each increment wait for the one before it through memory. Counted
 * in 32 bits, over chunks that cannot overflow them. */
GPUIMG_CPU_CLONES
static void count8(const uint8_t *restrict v, size_t n, uint64_t *restrict total)
{
    uint32_t t[4][256];
    for (size_t start = 0; start < n; start += (size_t)1 << 30) {
        size_t end = n - start > (size_t)1 << 30 ? start + ((size_t)1 << 30) : n;
        memset(t, 0, sizeof t);
        size_t i = start;
        for (; i + 4 <= end; i += 4) {
            t[0][v[i]]++;
            t[1][v[i + 1]]++;
            t[2][v[i + 2]]++;
            t[3][v[i + 3]]++;
        }
        for (; i < end; i++)
            t[0][v[i]]++;
        for (int b = 0; b < 256; b++)
            total[b] += (uint64_t)t[0][b] + t[1][b] + t[2][b] + t[3][b];
    }
}

static void count16(const uint16_t *restrict v, size_t n, uint64_t *restrict total)
{
    for (size_t i = 0; i < n; i++)
        total[v[i]]++;
}

void gpuimg__cpu_count(const uint8_t *plane, int depth, size_t first, size_t n, uint64_t *counts)
{
    if (depth == 16)
        count16((const uint16_t *)plane + first, n, counts);
    else
        count8(plane + first, n, counts);
}

typedef struct hist_job {
    const gpuimg_planes *src;
    gpuimg_histogram *out;
} hist_job;

static int hist_band(void *arg, int y0, int y1)
{
    const hist_job *j = arg;
    const gpuimg_planes *p = j->src;
    size_t bins = (size_t)gpuimg__max_value(p->depth) + 1, w = (size_t)p->width;
    uint64_t *mine = malloc(bins * sizeof *mine);
    if (!mine)
        return 0;
    for (int c = 0; c < p->channels; c++) {
        memset(mine, 0, bins * sizeof *mine);
        gpuimg__cpu_count(p->plane[c], p->depth, (size_t)y0 * w, (size_t)(y1 - y0) * w, mine);
        for (size_t b = 0; b < bins; b++)
            if (mine[b])
                __atomic_fetch_add(&j->out->counts[c][b], mine[b], __ATOMIC_RELAXED);
    }
    free(mine);
    return 1;
}

gpuimg_status gpuimg__cpu_histogram(gpuimg_backend *be, const gpuimg_planes *src,
                                    gpuimg_histogram *out)
{
    hist_job j = {src, out};
    /* a band's table costs as much to add as 64K values to count */
    size_t per_row = (size_t)src->width;
    size_t want = src->depth == 16 ? (size_t)1 << 20 : (size_t)1 << 16;
    int min_rows = (int)((want + per_row - 1) / per_row);
    return gpuimg__cpu_bands(be, src->height, min_rows, hist_band, &j);
}
