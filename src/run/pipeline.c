/* SPDX-License-Identifier: MIT */
/* Runs a list of steps on one image: one upload (interleaved -> planes), the
 * steps on resident planes, one download (planes -> interleaved). */
#include <string.h>

#include "core/host_buffers.h"
#include "io/metadata.h"
#include "ops/ops.h"

gpuimg_status gpuimg__upload(gpuimg_ctx *ctx, gpuimg_backend *be, const gpuimg_image *img,
                             gpuimg_planes *planes)
{
    double t0 = gpuimg__now_ms();
    gpuimg_image copy;
    const gpuimg_image *packed;
    gpuimg_status st = gpuimg__image_packed(ctx, img, &copy, &packed);
    if (st != GPUIMG_OK)
        return st;
    /* An image decoded before the device opened (a batch's first ones) is
     * pinned here, once: its buffer stays pinned for the images after. */
    if (packed->buffer)
        gpuimg__buffer_pin(packed->buffer);
    st = be->ops->planes_alloc(be, planes, img->width, img->height, img->channels,
                               gpuimg_image_depth(img));
    if (st == GPUIMG_OK && (st = be->ops->upload(be, packed, planes)) != GPUIMG_OK)
        be->ops->planes_free(be, planes);
    gpuimg_image_free(&copy);
    ctx->stage_ms[GPUIMG_STAGE_UPLOAD] += gpuimg__now_ms() - t0;
    return st == GPUIMG_OK ? st : gpuimg__backend_fail(ctx, st, "upload");
}

gpuimg_status gpuimg__steps_on_planes(gpuimg_ctx *ctx, gpuimg_backend *be,
                                      gpuimg_step *const *steps, int nsteps, gpuimg_planes *cur)
{
    double t0 = gpuimg__now_ms();
    gpuimg_status st = GPUIMG_OK;
    for (int i = 0; i < nsteps && st == GPUIMG_OK; i++) {
        gpuimg_planes next;
        st = gpuimg__step_apply(ctx, be, steps[i], cur, &next, -1);
        if (st == GPUIMG_OK) {
            be->ops->planes_free(be, cur);
            *cur = next;
        }
    }
    if (st == GPUIMG_OK && be->ops->synchronize && (st = be->ops->synchronize(be)) != GPUIMG_OK)
        gpuimg__backend_fail(ctx, st, "kernels");
    if (!ctx->reuse_memory && be->ops->trim) /* the steps' spare planes: not for the download */
        be->ops->trim(be);
    ctx->stage_ms[GPUIMG_STAGE_KERNELS] += gpuimg__now_ms() - t0;
    return st;
}

gpuimg_status gpuimg__download(gpuimg_ctx *ctx, gpuimg_backend *be, const gpuimg_planes *cur,
                               gpuimg_image *out)
{
    double t0 = gpuimg__now_ms();
    gpuimg_status st =
        gpuimg__image_take_depth(ctx, out, cur->width, cur->height, cur->channels, cur->depth);
    if (st != GPUIMG_OK)
        gpuimg__fail(ctx, st, "output image: %s", gpuimg_strerror(st));
    else if ((st = be->ops->download(be, cur, out)) != GPUIMG_OK) {
        gpuimg_image_free(out);
        gpuimg__backend_fail(ctx, st, "download");
    }
    ctx->stage_ms[GPUIMG_STAGE_DOWNLOAD] += gpuimg__now_ms() - t0;
    return st;
}

/* gpuimg_run, and gpuimg_run_consume when `take` is the input to free. */
static gpuimg_status run_steps(gpuimg_ctx *ctx, const gpuimg_image *in, gpuimg_image *take,
                               gpuimg_step *const *steps, int nsteps, gpuimg_image *out)
{
    memset(out, 0, sizeof *out);
    for (int i = 0; i < nsteps; i++) {
        gpuimg_status st = gpuimg_step_finish(ctx, steps[i]);
        if (st != GPUIMG_OK)
            return st;
    }
    double values = (double)in->width * in->height * in->channels;
    double cpu_ns = gpuimg__steps_cpu_ns(steps, nsteps) * values;
    gpuimg_backend *be;
    gpuimg_status st = gpuimg__backend_for(ctx, cpu_ns, &be);
    if (st != GPUIMG_OK)
        return st;
    gpuimg_planes cur;
    if ((st = gpuimg__upload(ctx, be, in, &cur)) != GPUIMG_OK)
        return st;
    /* The input's pixels are in the planes now. A synchronous backend (no
     * synchronize entry) has finished reading them; a device may still be
     * copying, and the buffer could go to another image meanwhile. */
    gpuimg_metadata *meta = NULL; /* the taken input's, moved to the output */
    if (take && !be->ops->synchronize) {
        meta = take->meta;
        take->meta = NULL;
        if (ctx->reuse_memory)
            gpuimg_image_free(take);
        else
            gpuimg__image_discard(take);
    }

    st = gpuimg__steps_on_planes(ctx, be, steps, nsteps, &cur);
    if (st == GPUIMG_OK && (st = gpuimg__download(ctx, be, &cur, out)) == GPUIMG_OK) {
        if (meta) {
            out->meta = meta; /* the output carries the input's metadata */
            meta = NULL;
        } else if (in->meta && !(out->meta = gpuimg__metadata_dup(in->meta))) {
            gpuimg_image_free(out);
            st = gpuimg__fail(ctx, GPUIMG_ERR_NOMEM, "output image: out of memory");
        }
    }
    be->ops->planes_free(be, &cur);
    if (!ctx->reuse_memory && be->ops->trim)
        be->ops->trim(be);
    gpuimg_metadata_free(meta);
    return st;
}

gpuimg_status gpuimg_run(gpuimg_ctx *ctx, const gpuimg_image *in, gpuimg_step *const *steps,
                         int nsteps, gpuimg_image *out)
{
    return run_steps(ctx, in, NULL, steps, nsteps, out);
}

gpuimg_status gpuimg_run_consume(gpuimg_ctx *ctx, gpuimg_image *in, gpuimg_step *const *steps,
                                 int nsteps, gpuimg_image *out)
{
    gpuimg_status st = run_steps(ctx, in, in, steps, nsteps, out);
    gpuimg_image_free(in); /* when the run did not free it already */
    return st;
}
