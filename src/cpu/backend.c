/* SPDX-License-Identifier: MIT */
/* The CPU backend's table and its memory. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/big_alloc.h"
#include "cpu.h"

/* Freed planes kept for the next allocation: a pipeline's steps and a
 * batch's files allocate planes of the same sizes again and again, and a
 * fresh 12 MB plane costs the kernel 3000 page faults, each zeroing a page
 * (a quarter of a batch's CPU time went there). A few are kept, the
 * smallest large enough is taken; all are freed when the backend closes. */
#define SPARES 12

typedef struct cpu_backend {
    gpuimg_backend base; /* first: the seam passes gpuimg_backend * */
    struct spare {
        uint8_t *p;
        size_t size;
    } spares[SPARES];
} cpu_backend;

static gpuimg_status cpu_open(gpuimg_backend **out, int device, char *msg, size_t msglen)
{
    (void)device;
    cpu_backend *cb = calloc(1, sizeof *cb);
    *out = cb ? &cb->base : NULL;
    if (!cb) {
        snprintf(msg, msglen, "out of memory");
        return GPUIMG_ERR_NOMEM;
    }
    cb->base.ops = &gpuimg__cpu_backend;
    return GPUIMG_OK;
}

static void cpu_trim(gpuimg_backend *be)
{
    cpu_backend *cb = (cpu_backend *)be;
    for (int i = 0; i < SPARES; i++) {
        gpuimg__big_free(cb->spares[i].p, cb->spares[i].size);
        cb->spares[i].p = NULL;
    }
}

static void cpu_close(gpuimg_backend *be)
{
    cpu_trim(be);
    free(be);
}

static void cpu_describe(gpuimg_backend *be, char *text, size_t len)
{
    (void)be;
    snprintf(text, len, "cpu: the reference implementation, on every core (--threads), %s loops",
             gpuimg__cpu_vector_isa());
}

gpuimg_status gpuimg__cpu_nomem(gpuimg_backend *be)
{
    snprintf(be->message, sizeof be->message, "out of host memory");
    return GPUIMG_ERR_NOMEM;
}

/* A spare of exactly size bytes (planes are freed with the size they were
 * made with: gpuimg__big_free needs it), or a new plane. */
static uint8_t *plane_take(cpu_backend *cb, size_t size)
{
    for (int i = 0; i < SPARES; i++)
        if (cb->spares[i].p && cb->spares[i].size == size) {
            uint8_t *p = cb->spares[i].p;
            cb->spares[i].p = NULL;
            return p;
        }
    return gpuimg__big_alloc(size, 64); /* a cache line: vector rows */
}

/* Keeps p (of `size` bytes) as a spare, in place of the oldest-placed
 * smallest spare if every slot is taken and it is larger. */
static void plane_give(cpu_backend *cb, uint8_t *p, size_t size)
{
    int slot = -1;
    for (int i = 0; i < SPARES && slot < 0; i++)
        if (!cb->spares[i].p)
            slot = i;
    for (int i = 0; i < SPARES && slot < 0; i++)
        if (cb->spares[i].size < size && (slot < 0 || cb->spares[i].size < cb->spares[slot].size))
            slot = i;
    if (slot < 0) {
        gpuimg__big_free(p, size);
        return;
    }
    gpuimg__big_free(cb->spares[slot].p, cb->spares[slot].size);
    cb->spares[slot] = (struct spare){p, size};
}

static void cpu_planes_free(gpuimg_backend *be, gpuimg_planes *p)
{
    size_t size = gpuimg__plane_bytes(p);
    for (int c = 0; c < 4; c++)
        if (p->plane[c])
            plane_give((cpu_backend *)be, p->plane[c], size);
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
        p->plane[i] = plane_take((cpu_backend *)be, gpuimg__plane_bytes(p));
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
    .resample = gpuimg__cpu_resample,
    .copy_rect = gpuimg__cpu_copy_rect,
    .fill = gpuimg__cpu_fill,
    .unsharp = gpuimg__cpu_unsharp,
    .move = gpuimg__cpu_move,
    .grayscale = gpuimg__cpu_grayscale,
    .invert = gpuimg__cpu_invert,
    .equalize = gpuimg__cpu_equalize,
    .equalize_luma = gpuimg__cpu_equalize_luma,
    .map_lut = gpuimg__cpu_map_lut,
    .colour_map = gpuimg__cpu_colour_map,
    .premultiply = gpuimg__cpu_premultiply,
    .unpremultiply = gpuimg__cpu_unpremultiply,
    .trim = cpu_trim,
    .copy_plane = cpu_copy_plane,
    .histogram = gpuimg__cpu_histogram,
    .ssim = gpuimg__cpu_ssim,
    .flip = gpuimg__cpu_flip,
};
