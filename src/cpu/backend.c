/* SPDX-License-Identifier: MIT */
/* The CPU backend's table and its memory. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu.h"

static gpuimg_status cpu_open(gpuimg_backend **out, int device, char *msg, size_t msglen)
{
    (void)device;
    *out = calloc(1, sizeof **out);
    if (!*out) {
        snprintf(msg, msglen, "out of memory");
        return GPUIMG_ERR_NOMEM;
    }
    (*out)->ops = &gpuimg__cpu_backend;
    return GPUIMG_OK;
}

static void cpu_close(gpuimg_backend *be)
{
    free(be);
}

static void cpu_describe(gpuimg_backend *be, char *text, size_t len)
{
    (void)be;
    snprintf(text, len, "cpu: the reference implementation, plain C");
}

gpuimg_status gpuimg__cpu_nomem(gpuimg_backend *be)
{
    snprintf(be->message, sizeof be->message, "out of host memory");
    return GPUIMG_ERR_NOMEM;
}

static void cpu_planes_free(gpuimg_backend *be, gpuimg_planes *p)
{
    (void)be;
    for (int c = 0; c < 4; c++)
        free(p->plane[c]);
    memset(p, 0, sizeof *p);
}

static gpuimg_status cpu_planes_alloc(gpuimg_backend *be, gpuimg_planes *p, int w, int h, int c,
                                      int depth)
{
    memset(p, 0, sizeof *p);
    p->width = w;
    p->height = h;
    p->channels = c;
    p->depth = depth;
    for (int i = 0; i < c; i++) {
        p->plane[i] = malloc(gpuimg__plane_bytes(p));
        if (!p->plane[i]) {
            cpu_planes_free(be, p);
            return gpuimg__cpu_nomem(be);
        }
    }
    return GPUIMG_OK;
}

static gpuimg_status cpu_planes_fill(gpuimg_backend *be, gpuimg_planes *p, uint8_t value)
{
    (void)be;
    for (int c = 0; c < p->channels; c++)
        memset(p->plane[c], value, gpuimg__plane_bytes(p));
    return GPUIMG_OK;
}

static gpuimg_status cpu_copy_plane(gpuimg_backend *be, const uint8_t *src, uint8_t *dst, size_t n)
{
    (void)be;
    memcpy(dst, src, n);
    return GPUIMG_OK;
}

const gpuimg_backend_ops gpuimg__cpu_backend = {
    .name = "cpu",
    .open = cpu_open,
    .close = cpu_close,
    .describe = cpu_describe,
    .planes_alloc = cpu_planes_alloc,
    .planes_free = cpu_planes_free,
    .planes_fill = cpu_planes_fill,
    .upload = gpuimg__cpu_upload,
    .download = gpuimg__cpu_download,
    .blur = gpuimg__cpu_blur,
    .box = gpuimg__cpu_box,
    .convolve = gpuimg__cpu_convolve,
    .sobel = gpuimg__cpu_sobel,
    .move = gpuimg__cpu_move,
    .grayscale = gpuimg__cpu_grayscale,
    .invert = gpuimg__cpu_invert,
    .equalize = gpuimg__cpu_equalize,
    .equalize_luma = gpuimg__cpu_equalize_luma,
    .premultiply = gpuimg__cpu_premultiply,
    .unpremultiply = gpuimg__cpu_unpremultiply,
    .copy_plane = cpu_copy_plane,
    .histogram = gpuimg__cpu_histogram,
    .ssim = gpuimg__cpu_ssim,
};
