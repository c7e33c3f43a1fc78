/* SPDX-License-Identifier: MIT */
/* Runs a list of steps on one image: one upload (interleaved -> planes), the
 * steps on resident planes, one download (planes -> interleaved). */
#include <stdlib.h>
#include <string.h>

#include "core/host_buffers.h"
#include "core/metadata.h"
#include "io/io.h"
#include "ops/ops.h"
#include "run/run.h"

gpuimg_status gpuimg__plan_steps(gpuimg_ctx *ctx, gpuimg_step *const *steps, int nsteps,
                                 gpuimg__steps_plan *plan)
{
    for (int i = 0; i < nsteps; i++) {
        gpuimg_status st = gpuimg_step_finish(ctx, steps[i]);
        if (st != GPUIMG_OK)
            return st;
    }
    plan->steps = steps;
    plan->nsteps = nsteps;
    plan->ns_per_value = gpuimg__steps_cpu_ns(steps, nsteps);
    return GPUIMG_OK;
}

static void steps_shape(const void *steps, int nsteps, int *w, int *h, int *c)
{
    gpuimg__steps_shape((gpuimg_step *const *)steps, nsteps, w, h, c);
}

void gpuimg__plan_expect(gpuimg_ctx *ctx, const gpuimg__steps_plan *plan)
{
    gpuimg__ctx_expect_work(ctx, plan->ns_per_value, steps_shape, plan->steps, plan->nsteps);
}

gpuimg_status gpuimg_ctx_expect(gpuimg_ctx *ctx, gpuimg_step *const *steps, int nsteps)
{
    gpuimg__steps_plan plan;
    gpuimg_status st = gpuimg__plan_steps(ctx, steps, nsteps, &plan);
    if (st == GPUIMG_OK)
        gpuimg__plan_expect(ctx, &plan);
    return st;
}

static int thumbnail_shrink(const void *step, int w, int h)
{
    return gpuimg__thumbnail_shrink(step, w, h);
}

void gpuimg__plan_shrink(gpuimg_ctx *ctx, const gpuimg__steps_plan *plan)
{
    ctx->shrink_for = plan && plan->nsteps > 0 ? thumbnail_shrink : NULL;
    ctx->shrink_what = plan && plan->nsteps > 0 ? plan->steps[0] : NULL;
}

/* The metadata after steps that change the colour profile (colour): the
 * last one's profile, and no PNG colour chunk of the old one. *meta is
 * made when there was none. 0 out of memory. */
static int steps_profile(gpuimg_step *const *steps, int nsteps, gpuimg_metadata **meta)
{
    const uint8_t *icc = NULL;
    size_t len = 0;
    int changed = 0;
    for (int i = 0; i < nsteps; i++)
        changed |= gpuimg__colour_target(steps[i], &icc, &len);
    if (!changed)
        return 1;
    if (!*meta && !(*meta = calloc(1, sizeof **meta)))
        return 0;
    uint8_t *mine = len ? malloc(len) : NULL;
    if (len && !mine)
        return 0;
    if (len)
        memcpy(mine, icc, len);
    free((*meta)->icc);
    (*meta)->icc = mine;
    (*meta)->icc_len = len;
    free((*meta)->png_colour);
    (*meta)->png_colour = NULL;
    (*meta)->png_colour_len = 0;
    return 1;
}

gpuimg_status gpuimg__steps_on_planes(gpuimg_ctx *ctx, gpuimg_backend *be,
                                      gpuimg_step *const *steps, int nsteps,
                                      const gpuimg_metadata *meta, gpuimg_planes *cur)
{
    double t0 = gpuimg__now_ms();
    gpuimg_status st = GPUIMG_OK;
    /* an image its decoder shrank on load: the first step (the thumbnail
     * that asked for it) computes its size from the file's, on a copy of
     * the step for this image alone (the steps are shared) */
    gpuimg_step first;
    first.from_w = 0;
    if (meta && meta->shrunk_from_width && nsteps > 0) {
        first = *steps[0];
        first.from_w = meta->shrunk_from_width;
        first.from_h = meta->shrunk_from_height;
    }
    /* the profile the image has at each step: colour's source */
    const uint8_t *icc = meta ? meta->icc : NULL;
    size_t icc_len = meta ? meta->icc_len : 0;
    for (int i = 0; i < nsteps && st == GPUIMG_OK; i++) {
        gpuimg_planes next;
        const gpuimg_step *s = i == 0 && first.from_w ? &first : steps[i];
        gpuimg_step for_image;
        if (s->op->for_profile) {
            for_image = *s;
            if ((st = s->op->for_profile(ctx, &for_image, icc, icc_len, cur->channels, &icc,
                                         &icc_len)) != GPUIMG_OK)
                break;
            s = &for_image;
        }
        st = gpuimg__step_apply(ctx, be, s, cur, &next, -1);
        if (s == &for_image && s->op->release)
            s->op->release(&for_image);
        if (st == GPUIMG_OK) {
            be->ops->planes_free(be, cur);
            *cur = next;
        }
    }
    if (st == GPUIMG_OK && be->ops->synchronize && (st = be->ops->synchronize(be)) != GPUIMG_OK)
        gpuimg__backend_fail(ctx, st, "kernels");
    if (!ctx->reuse_memory && be->ops->trim) /* the steps' spare planes: not for the download */
        be->ops->trim(be);
    gpuimg__stage_done(ctx, GPUIMG_STAGE_KERNELS, t0);
    return st;
}

gpuimg_status gpuimg__run_planned(gpuimg_ctx *ctx, gpuimg_backend *be,
                                  const gpuimg__steps_plan *plan, const gpuimg_image *in,
                                  gpuimg_image *take, gpuimg_image *out)
{
    memset(out, 0, sizeof *out);
    gpuimg_status st;
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

    st = gpuimg__steps_on_planes(ctx, be, plan->steps, plan->nsteps, meta ? meta : in->meta, &cur);
    if (st == GPUIMG_OK && (st = gpuimg__download(ctx, be, &cur, out)) == GPUIMG_OK) {
        if (meta) {
            out->meta = meta; /* the output carries the input's metadata */
            meta = NULL;
        } else if (in->meta && !(out->meta = gpuimg__metadata_dup(in->meta))) {
            gpuimg_image_free(out);
            st = gpuimg__fail(ctx, GPUIMG_ERR_NOMEM, "output image: out of memory");
        }
        if (st == GPUIMG_OK && !steps_profile(plan->steps, plan->nsteps, &out->meta)) {
            gpuimg_image_free(out);
            st = gpuimg__fail(ctx, GPUIMG_ERR_NOMEM, "output image: out of memory");
        }
        if (st == GPUIMG_OK && out->meta) /* the output was not shrunk on load: it was made */
            out->meta->shrunk_from_width = out->meta->shrunk_from_height = 0;
    }
    be->ops->planes_free(be, &cur);
    if (!ctx->reuse_memory && be->ops->trim)
        be->ops->trim(be);
    gpuimg_metadata_free(meta);
    return st;
}

/* gpuimg_run, and gpuimg_run_consume when `take` is the input to free. */
static gpuimg_status run_steps(gpuimg_ctx *ctx, const gpuimg_image *in, gpuimg_image *take,
                               gpuimg_step *const *steps, int nsteps, gpuimg_image *out)
{
    memset(out, 0, sizeof *out);
    gpuimg__steps_plan plan;
    gpuimg_backend *be;
    gpuimg_status st = gpuimg__plan_steps(ctx, steps, nsteps, &plan);
    if (st == GPUIMG_OK)
        st = gpuimg__backend_for(
            ctx, plan.ns_per_value * (double)in->width * in->height * in->channels, &be);
    return st == GPUIMG_OK ? gpuimg__run_planned(ctx, be, &plan, in, take, out) : st;
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

gpuimg_status gpuimg__planes_finish(gpuimg_ctx *ctx, gpuimg_backend *be, gpuimg_planes *cur,
                                    gpuimg_step *const *steps, int nsteps, gpuimg_metadata *meta,
                                    gpuimg_format format, int jpeg_device, gpuimg__output *out)
{
    memset(out, 0, sizeof *out);
    gpuimg_status st = gpuimg__steps_on_planes(ctx, be, steps, nsteps, meta, cur);
    int c = cur->channels;
    if (st == GPUIMG_OK && gpuimg__route_encode(jpeg_device, format, cur)) {
        double t0 = gpuimg__now_ms();
        gpuimg_planes colour = *cur;
        colour.channels = c == 2 ? 1 : c == 4 ? 3 : c;
        st = be->ops->jpeg_encode(be, &colour, ctx->cfg.jpeg_quality, &out->jpeg, &out->jpeg_len);
        if (st != GPUIMG_OK)
            gpuimg__backend_fail(ctx, st, "JPEG encode");
        out->image.width = cur->width;
        out->image.height = cur->height;
        out->image.channels = c;
        gpuimg__stage_done(ctx, GPUIMG_STAGE_ENCODE, t0);
    } else if (st == GPUIMG_OK) {
        st = gpuimg__download(ctx, be, cur, &out->image);
    }
    be->ops->planes_free(be, cur);
    if (st == GPUIMG_OK && !steps_profile(steps, nsteps, &meta))
        st = gpuimg__fail(ctx, GPUIMG_ERR_NOMEM, "output image: out of memory");
    if (meta)
        meta->shrunk_from_width = meta->shrunk_from_height = 0;
    if (st == GPUIMG_OK) {
        out->image.meta = meta;
    } else {
        gpuimg_metadata_free(meta);
        gpuimg__output_free(out);
    }
    return st;
}

gpuimg_status gpuimg__output_save(gpuimg_ctx *ctx, const char *path, gpuimg_format format,
                                  const gpuimg__output *out, int checked)
{
    if (out->jpeg)
        return gpuimg__save_jpeg_bytes(ctx, path, out->jpeg, out->jpeg_len, &out->image, checked);
    return gpuimg__save(ctx, path, format, &out->image, checked);
}

void gpuimg__output_free(gpuimg__output *out)
{
    free(out->jpeg);
    out->jpeg = NULL;
    gpuimg_image_free(&out->image); /* its metadata too, pixels or not */
}
