/* SPDX-License-Identifier: MIT */
/* An image into a backend's planes and back (interleaved <-> planes): the
 * two crossings every user of the seam makes, the run, the measurements
 * and compare alike. */
#include "core/host_buffers.h"
#include "core/internal.h"

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
    gpuimg__stage_done(ctx, GPUIMG_STAGE_UPLOAD, t0);
    return st == GPUIMG_OK ? st : gpuimg__backend_fail(ctx, st, "upload");
}

gpuimg_status gpuimg__download(gpuimg_ctx *ctx, gpuimg_backend *be, const gpuimg_planes *cur,
                               gpuimg_image *out)
{
    double t0 = gpuimg__now_ms();
    gpuimg_status st =
        gpuimg__image_take_depth(ctx, out, cur->width, cur->height, cur->channels, cur->depth);
    if (st != GPUIMG_OK)
        gpuimg__fail_as(ctx, st, "output image");
    else if ((st = be->ops->download(be, cur, out)) != GPUIMG_OK) {
        gpuimg_image_free(out);
        gpuimg__backend_fail(ctx, st, "download");
    }
    gpuimg__stage_done(ctx, GPUIMG_STAGE_DOWNLOAD, t0);
    return st;
}
