/* SPDX-License-Identifier: MIT */
/* Interleaved pixels <-> planes on the host, the CPU backend's "upload"
 * and "download": bands of rows over the pool, and a loop per channel
 * count and depth, so that GCC sees the fixed stride and vectorizes the
 * gather (or scatter) with shuffles. */
#include <string.h>

#include "cpu.h"

/* One loop of n pixels for a channel count: stride CN, the planes out. */
#define DEINTERLEAVE(T, CN)                                                                        \
    GPUIMG_CPU_CLONES static void deinterleave_##T##_##CN(const T *restrict in, T *restrict p0,    \
                                                          T *restrict p1, T *restrict p2,          \
                                                          T *restrict p3, size_t n)                \
    {                                                                                              \
        for (size_t i = 0; i < n; i++) {                                                           \
            p0[i] = in[i * CN];                                                                    \
            if (CN > 1)                                                                            \
                p1[i] = in[i * CN + 1];                                                            \
            if (CN > 2)                                                                            \
                p2[i] = in[i * CN + 2];                                                            \
            if (CN > 3)                                                                            \
                p3[i] = in[i * CN + 3];                                                            \
        }                                                                                          \
    }
#define INTERLEAVE(T, CN)                                                                          \
    GPUIMG_CPU_CLONES static void interleave_##T##_##CN(                                           \
        T *restrict out, const T *restrict p0, const T *restrict p1, const T *restrict p2,         \
        const T *restrict p3, size_t n)                                                            \
    {                                                                                              \
        for (size_t i = 0; i < n; i++) {                                                           \
            out[i * CN] = p0[i];                                                                   \
            if (CN > 1)                                                                            \
                out[i * CN + 1] = p1[i];                                                           \
            if (CN > 2)                                                                            \
                out[i * CN + 2] = p2[i];                                                           \
            if (CN > 3)                                                                            \
                out[i * CN + 3] = p3[i];                                                           \
        }                                                                                          \
    }
#define BOTH(T, CN) DEINTERLEAVE(T, CN) INTERLEAVE(T, CN)
BOTH(uint8_t, 2)
BOTH(uint8_t, 3)
BOTH(uint8_t, 4)
BOTH(uint16_t, 2)
BOTH(uint16_t, 3)
BOTH(uint16_t, 4)

typedef struct layout_job {
    uint8_t *pixels; /* the interleaved image's rows, packed */
    const gpuimg_planes *planes;
    int to_planes;
} layout_job;

#define CALL(T, CN, dir, a)                                                                        \
    dir##interleave_##T##_##CN(a(T, pix), a(T, pl[0]), a(T, pl[1]), a(T, pl[2]), a(T, pl[3]), n)
#define AS(T, p) ((T *)(p))

static int layout_band(void *arg, int y0, int y1)
{
    const layout_job *j = arg;
    const gpuimg_planes *p = j->planes;
    int cn = p->channels, wide = p->depth == 16;
    size_t vs = wide ? 2 : 1, n = (size_t)(y1 - y0) * (size_t)p->width;
    size_t first = (size_t)y0 * (size_t)p->width;
    uint8_t *pix = j->pixels + first * (size_t)cn * vs, *pl[4] = {NULL, NULL, NULL, NULL};
    for (int c = 0; c < cn; c++)
        pl[c] = p->plane[c] + first * vs;
    if (cn == 1) {
        if (j->to_planes)
            memcpy(pl[0], pix, n * vs);
        else
            memcpy(pix, pl[0], n * vs);
        return 1;
    }
    int which = (j->to_planes ? 0 : 8) + (wide ? 4 : 0) + cn;
    switch (which) {
    case 2: CALL(uint8_t, 2, de, AS); break;
    case 3: CALL(uint8_t, 3, de, AS); break;
    case 4: CALL(uint8_t, 4, de, AS); break;
    case 6: CALL(uint16_t, 2, de, AS); break;
    case 7: CALL(uint16_t, 3, de, AS); break;
    case 8: CALL(uint16_t, 4, de, AS); break;
    case 10: CALL(uint8_t, 2, , AS); break;
    case 11: CALL(uint8_t, 3, , AS); break;
    case 12: CALL(uint8_t, 4, , AS); break;
    case 14: CALL(uint16_t, 2, , AS); break;
    case 15: CALL(uint16_t, 3, , AS); break;
    case 16: CALL(uint16_t, 4, , AS); break;
    }
    return 1;
}

/* Bands of rows: a copy is memory-bound, so at least 64 KiB a band */
static gpuimg_status layout(gpuimg_backend *be, uint8_t *pixels, const gpuimg_planes *planes,
                            int to_planes)
{
    layout_job j = {pixels, planes, to_planes};
    size_t row =
        (size_t)planes->width * (size_t)planes->channels * gpuimg__value_size(planes->depth);
    int min_rows = (int)((65536 + row - 1) / row);
    return gpuimg__cpu_bands(be, planes->height, min_rows, layout_band, &j);
}

gpuimg_status gpuimg__cpu_upload(gpuimg_backend *be, const gpuimg_image *src, gpuimg_planes *dst)
{
    return layout(be, src->data, dst, 1);
}

gpuimg_status gpuimg__cpu_download(gpuimg_backend *be, const gpuimg_planes *src, gpuimg_image *dst)
{
    return layout(be, dst->data, src, 0);
}
