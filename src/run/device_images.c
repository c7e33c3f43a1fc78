/* SPDX-License-Identifier: MIT */
/* Images that stay on the device (SPEC §8): a batch of encoded files
 * decoded into planes resident on the GPU, JPEGs by nvJPEG in one batched
 * call (the batch's device stage's pieces: jpeg_gpu.h), other formats and
 * the files nvJPEG refuses by the CPU's decoders and uploaded; and steps
 * run on such planes without a trip to the host. The planes are the
 * backend's own allocation, one block of C planes at a fixed pitch, which
 * is what lets a caller hand them on (DLPack) as a (C, H, W) array. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/backend.h"
#include "core/pool.h"
#include "run/run.h"

/* One file's scan, a piece for the context's pool: the scans of a batch
 * run on every core (one core would spend longer on them than the
 * device's engine on the decoding). */
typedef struct {
    gpuimg_task task;
    const gpuimg_ctx *ctx;
    const uint8_t *data;
    size_t size;
    gpuimg__jpeg_shape shape;
    int ok;
} scan_piece;

static void scan_run(gpuimg_task *t)
{
    scan_piece *p = (scan_piece *)t;
    p->ok = gpuimg__jpeg_scan_for(p->ctx, p->data, p->size, &p->shape);
}

/* The context's backend, when it keeps planes in device memory. */
static gpuimg_status device_backend(gpuimg_ctx *ctx, const char *what, gpuimg_backend **be)
{
    gpuimg_status st = gpuimg__backend(ctx, be);
    if (st != GPUIMG_OK)
        return st;
    if (strcmp((*be)->ops->name, "cuda") != 0)
        return gpuimg__fail(ctx, GPUIMG_ERR_NO_DEVICE,
                            "%s: device images need the CUDA backend (this context uses %s)", what,
                            (*be)->ops->name);
    return GPUIMG_OK;
}

static void describe(gpuimg_ctx *ctx, gpuimg_backend *be, gpuimg_planes *p,
                     gpuimg_device_image *out)
{
    memset(out, 0, sizeof *out);
    out->width = p->width;
    out->height = p->height;
    out->channels = p->channels;
    out->depth = p->depth;
    out->device = ctx->cfg.device;
    out->data = p->plane[0];
    out->plane_stride =
        p->channels > 1 ? (size_t)(p->plane[1] - p->plane[0]) : gpuimg__plane_bytes(p);
    out->ctx = ctx;
    out->backend = be;
}

/* The planes a device image describes (the backend's view of it). */
static void as_planes(const gpuimg_device_image *img, gpuimg_planes *p)
{
    memset(p, 0, sizeof *p);
    p->width = img->width;
    p->height = img->height;
    p->channels = img->channels;
    p->depth = img->depth;
    for (int c = 0; c < img->channels; c++)
        p->plane[c] = img->data + (size_t)c * img->plane_stride;
}

void gpuimg_device_image_free(gpuimg_device_image *img)
{
    if (img->data && img->backend) {
        gpuimg_planes p;
        as_planes(img, &p);
        /* the pool's reuse is ordered after this backend's stream only:
         * another's (a consumer's) may still read the planes */
        if (img->exported && img->backend->ops->device_synchronize)
            img->backend->ops->device_synchronize(img->backend);
        img->backend->ops->planes_free(img->backend, &p);
    }
    memset(img, 0, sizeof *img);
}

/* One file on the CPU's decoder, uploaded. */
static gpuimg_status on_host(gpuimg_ctx *ctx, gpuimg_backend *be, const char *name,
                             const uint8_t *data, size_t size, gpuimg_planes *out)
{
    gpuimg_image img = {0};
    gpuimg_status st = gpuimg_load_memory(ctx, data, size, name, &img);
    if (st == GPUIMG_OK)
        st = gpuimg__upload(ctx, be, &img, out);
    gpuimg_image_free(&img);
    return st;
}

gpuimg_status gpuimg_decode_device(gpuimg_ctx *ctx, int n, const void *const *data,
                                   const size_t *sizes, gpuimg_device_image *out)
{
    for (int i = 0; i < n; i++)
        memset(&out[i], 0, sizeof out[i]);
    gpuimg_backend *be;
    gpuimg_status st = device_backend(ctx, "decode", &be);
    if (st != GPUIMG_OK || n <= 0)
        return st;
    gpuimg__jpeg_file *files = calloc((size_t)n, sizeof *files);
    gpuimg__jpeg_file **batch = calloc((size_t)n, sizeof *batch);
    gpuimg_planes *planes = calloc((size_t)n, sizeof *planes), *got = NULL;
    int *index = calloc((size_t)n, sizeof *index), *refused = calloc((size_t)n, sizeof *refused);
    char(*names)[32] = calloc((size_t)n, sizeof *names);
    scan_piece *scans = calloc((size_t)n, sizeof *scans);
    if (!files || !batch || !planes || !index || !refused || !names || !scans)
        st = gpuimg__fail(ctx, GPUIMG_ERR_NOMEM, "decode: out of memory");
    int jpeg = st == GPUIMG_OK ? gpuimg__jpeg_device(ctx, be) : 0;
    if (jpeg < 0)
        st = GPUIMG_ERR_NO_DEVICE; /* --jpeg-codec gpu without nvJPEG: said */
    struct gpuimg_pool *pool = jpeg > 0 ? gpuimg__ctx_pool(ctx) : NULL;
    for (int i = 0; i < n && jpeg > 0 && st == GPUIMG_OK; i++) {
        scans[i].task.run = scan_run;
        scans[i].ctx = ctx;
        scans[i].data = data[i];
        scans[i].size = sizes[i];
        gpuimg__pool_piece(pool, &scans[i].task);
    }
    /* the JPEGs nvJPEG takes, in one batch; the rest on the CPU, in order */
    int m = 0;
    for (int i = 0; i < n && st == GPUIMG_OK; i++) {
        snprintf(names[i], sizeof names[i], "<image %d>", i);
        int eligible = 0;
        if (jpeg > 0) {
            gpuimg__pool_wait(pool, &scans[i].task);
            st = gpuimg__jpeg_probe_scanned(ctx, names[i], data[i], sizes[i],
                                            scans[i].ok ? &scans[i].shape : NULL, &files[i],
                                            &eligible);
            if (st != GPUIMG_OK)
                break;
        }
        if (eligible) {
            index[m] = i;
            batch[m++] = &files[i];
        } else {
            st = on_host(ctx, be, names[i], data[i], sizes[i], &planes[i]);
        }
    }
    if (st == GPUIMG_OK && m > 0 && !(got = calloc((size_t)m, sizeof *got)))
        st = gpuimg__fail(ctx, GPUIMG_ERR_NOMEM, "decode: out of memory");
    if (st == GPUIMG_OK && m > 0)
        st = gpuimg__jpeg_decode(ctx, be, m, batch, got, refused);
    for (int k = 0; k < m && st == GPUIMG_OK; k++) {
        int i = index[k];
        if (refused[k]) /* nvJPEG said no: libjpeg-turbo's turn */
            st = on_host(ctx, be, names[i], data[i], sizes[i], &planes[i]);
        else
            planes[i] = got[k], got[k].plane[0] = NULL;
    }
    /* ready for any stream of the caller's: the copies and kernels done */
    if (st == GPUIMG_OK && be->ops->synchronize && (st = be->ops->synchronize(be)) != GPUIMG_OK)
        gpuimg__backend_fail(ctx, st, "decode");
    for (int i = 0; i < n && planes; i++) {
        if (st == GPUIMG_OK)
            describe(ctx, be, &planes[i], &out[i]);
        else if (planes[i].plane[0])
            be->ops->planes_free(be, &planes[i]);
    }
    for (int k = 0; k < m && got; k++)
        if (got[k].plane[0])
            be->ops->planes_free(be, &got[k]);
    for (int i = 0; i < n && files; i++)
        gpuimg__jpeg_file_free(&files[i]);
    free(files);
    free(batch);
    free(planes);
    free(got);
    free(index);
    free(refused);
    /* a failure left scans queued: they read only the caller's bytes,
     * still valid here, and must end before their pieces are freed */
    for (int i = 0; i < n && scans && jpeg > 0; i++)
        if (scans[i].task.run)
            gpuimg__pool_wait(pool, &scans[i].task);
    free(scans);
    free(names);
    return st;
}

gpuimg_status gpuimg_run_device(gpuimg_ctx *ctx, const gpuimg_device_image *in,
                                gpuimg_step *const *steps, int nsteps, gpuimg_device_image *out)
{
    memset(out, 0, sizeof *out);
    gpuimg_backend *be;
    gpuimg_status st = device_backend(ctx, "run", &be);
    if (st != GPUIMG_OK)
        return st;
    if (in->ctx != ctx || in->backend != be)
        return gpuimg__fail(ctx, GPUIMG_ERR_USAGE,
                            "run: a device image runs on the context that made it");
    gpuimg__steps_plan plan;
    if ((st = gpuimg__plan_steps(ctx, steps, nsteps, &plan)) != GPUIMG_OK)
        return st;
    /* the steps free each step's input: the caller's image is copied first
     * (device to device, a few microseconds for a photograph) */
    gpuimg_planes src, cur;
    as_planes(in, &src);
    st = be->ops->planes_alloc(be, &cur, in->width, in->height, in->channels, in->depth);
    if (st == GPUIMG_OK &&
        (st = be->ops->copy_rect(be, &src, &cur, 0, 0, 0, 0, in->width, in->height)) != GPUIMG_OK)
        be->ops->planes_free(be, &cur);
    if (st != GPUIMG_OK)
        return gpuimg__backend_fail(ctx, st, "run");
    if ((st = gpuimg__steps_on_planes(ctx, be, steps, nsteps, NULL, &cur)) != GPUIMG_OK) {
        be->ops->planes_free(be, &cur);
        return st;
    }
    describe(ctx, be, &cur, out);
    return GPUIMG_OK;
}

gpuimg_status gpuimg_device_image_download(gpuimg_ctx *ctx, const gpuimg_device_image *in,
                                           gpuimg_image *out)
{
    memset(out, 0, sizeof *out);
    if (in->ctx != ctx || !in->backend)
        return gpuimg__fail(ctx, GPUIMG_ERR_USAGE,
                            "download: a device image is read through the context that made it");
    gpuimg_planes src;
    as_planes(in, &src);
    return gpuimg__download(ctx, in->backend, &src, out);
}
