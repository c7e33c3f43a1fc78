/* SPDX-License-Identifier: MIT */
/* The device's JPEG codec in a run (jpeg_gpu.h). The file's markers are
 * read on the CPU (metadata, orientation, and the structure check of
 * io/jpeg/scan.c); only its compressed bytes go to the device, which decodes
 * into the planes the steps run on, turns them upright with the move
 * kernels, and encodes the result from its planes, so that only
 * compressed bytes cross PCIe both ways. */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "core/trace.h"
#include "io/io.h"
#include "io/metadata.h"
#include "ops/ops.h"
#include "run/jpeg_gpu.h"

int gpuimg__jpeg_scan_for(const gpuimg_ctx *ctx, const uint8_t *data, size_t size,
                          gpuimg__jpeg_shape *shape)
{
    return ctx->cfg.jpeg_codec != GPUIMG_JPEG_CPU && ctx->cfg.depth != 16 &&
           gpuimg__jpeg_scan(data, size, shape);
}

gpuimg_status gpuimg__jpeg_probe_scanned(gpuimg_ctx *ctx, const char *name, const uint8_t *data,
                                         size_t size, const gpuimg__jpeg_shape *shape,
                                         gpuimg__jpeg_file *f, int *eligible)
{
    memset(f, 0, sizeof *f);
    *eligible = 0;
    if (!shape)
        return GPUIMG_OK;
    f->shape = *shape;
    gpuimg_status st =
        gpuimg__check_size(ctx, name, (uint64_t)f->shape.width, (uint64_t)f->shape.height);
    if (st == GPUIMG_OK)
        st = gpuimg__metadata_parse_quiet(ctx, name, &gpuimg__format_jpeg, data, size, &f->meta,
                                          &f->notes);
    if (st == GPUIMG_OK && !f->meta && !(f->meta = calloc(1, sizeof *f->meta)))
        st = gpuimg__fail(ctx, GPUIMG_ERR_NOMEM, "%s: out of memory", name);
    if (st != GPUIMG_OK) {
        gpuimg__jpeg_file_free(f);
        return st;
    }
    if (!f->meta->orientation)
        f->meta->orientation = 1;
    f->name = name;
    f->data = data;
    f->size = size;
    *eligible = 1;
    return GPUIMG_OK;
}

gpuimg_status gpuimg__jpeg_probe(gpuimg_ctx *ctx, const char *name, const uint8_t *data,
                                 size_t size, gpuimg__jpeg_file *f, int *eligible)
{
    gpuimg__jpeg_shape shape;
    memset(&shape, 0, sizeof shape);
    if (gpuimg__jpeg_scan_for(ctx, data, size, &shape))
        return gpuimg__jpeg_probe_scanned(ctx, name, data, size, &shape, f, eligible);
    memset(f, 0, sizeof *f);
    f->shape = shape; /* as far as the header goes (progressive says so) */
    *eligible = 0;
    return GPUIMG_OK;
}

void gpuimg__jpeg_file_free(gpuimg__jpeg_file *f)
{
    gpuimg_metadata_free(f->meta);
    f->meta = NULL;
}

/* Set once "nvJPEG is missing" was said: once a process, not once a file. */
static atomic_int missing_said;

int gpuimg__jpeg_device(gpuimg_ctx *ctx, gpuimg_backend *be)
{
    if (ctx->cfg.jpeg_codec == GPUIMG_JPEG_CPU)
        return 0;
    char why[256];
    if (!be->ops->jpeg_ready) {
        if (ctx->cfg.jpeg_codec != GPUIMG_JPEG_GPU)
            return 0;
        gpuimg__fail(ctx, GPUIMG_ERR_NO_DEVICE,
                     "--jpeg-codec gpu: the %s backend has no JPEG codec", be->ops->name);
        return -1;
    }
    /* the first call sets nvJPEG up (0.6-0.8 s on an H100): --time's init */
    double t0 = gpuimg__now_ms();
    int ready = be->ops->jpeg_ready(be, why, sizeof why);
    gpuimg__stage_done(ctx, GPUIMG_STAGE_INIT, t0);
    if (ready)
        return 1;
    if (ctx->cfg.jpeg_codec == GPUIMG_JPEG_GPU) {
        gpuimg__fail(ctx, GPUIMG_ERR_NO_DEVICE, "--jpeg-codec gpu: %s", why);
        return -1;
    }
    if (!atomic_exchange(&missing_said, 1))
        gpuimg__warn(ctx, "JPEG on the CPU: %s", why);
    return 0;
}

static gpuimg_status orient_planes(gpuimg_ctx *ctx, gpuimg_backend *be, gpuimg_planes *p,
                                   gpuimg_metadata *meta)
{
    /* the moves that turn planes stored with EXIF orientation o upright */
    int o = meta->orientation >= 1 && meta->orientation <= 8 ? meta->orientation : 1;
    const gpuimg_move *m = gpuimg__orientations[o].moves;
    int n = ctx->cfg.no_auto_orient ? 0 : gpuimg__orientations[o].moves_n;
    for (int k = 0; k < n; k++) {
        int swap = m[k] == GPUIMG_MOVE_TRANSPOSE || m[k] == GPUIMG_MOVE_ROTATE90 ||
                   m[k] == GPUIMG_MOVE_ROTATE270;
        gpuimg_planes next;
        gpuimg_status st =
            be->ops->planes_alloc(be, &next, swap ? p->height : p->width,
                                  swap ? p->width : p->height, p->channels, p->depth);
        if (st == GPUIMG_OK && (st = be->ops->move(be, p, &next, m[k])) != GPUIMG_OK)
            be->ops->planes_free(be, &next);
        if (st != GPUIMG_OK)
            return gpuimg__backend_fail(ctx, st, "orientation");
        be->ops->planes_free(be, p);
        *p = next;
    }
    if (n)
        meta->oriented = 1;
    return GPUIMG_OK;
}

gpuimg_status gpuimg__jpeg_decode(gpuimg_ctx *ctx, gpuimg_backend *be, int n,
                                  gpuimg__jpeg_file *const *files, gpuimg_planes *planes,
                                  int *refused)
{
    double t0 = gpuimg__now_ms();
    const uint8_t **data = malloc((size_t)(n ? n : 1) * sizeof *data);
    size_t *size = malloc((size_t)(n ? n : 1) * sizeof *size);
    gpuimg_planes **dst = malloc((size_t)(n ? n : 1) * sizeof *dst);
    gpuimg_status st = data && size && dst ? GPUIMG_OK : GPUIMG_ERR_NOMEM;
    if (st != GPUIMG_OK)
        gpuimg__fail(ctx, st, "JPEG decode: out of memory");
    int allocated = 0;
    for (; st == GPUIMG_OK && allocated < n; allocated++) {
        const gpuimg__jpeg_file *f = files[allocated];
        data[allocated] = f->data;
        size[allocated] = f->size;
        dst[allocated] = &planes[allocated];
        refused[allocated] = 0;
        st = be->ops->planes_alloc(be, &planes[allocated], f->shape.width, f->shape.height,
                                   f->shape.components, 8);
        if (st != GPUIMG_OK)
            gpuimg__backend_fail(ctx, st, "JPEG decode");
    }
    double t_alloc = gpuimg__trace_since("planes for JPEG", t0);
    if (st == GPUIMG_OK &&
        (st = be->ops->jpeg_decode(be, n, data, size, dst, refused)) != GPUIMG_OK)
        gpuimg__backend_fail(ctx, st, "JPEG decode");
    t_alloc = gpuimg__trace_since("jpeg_decode", t_alloc);
    for (int i = 0; i < n && st == GPUIMG_OK; i++)
        if (!refused[i])
            st = orient_planes(ctx, be, &planes[i], files[i]->meta);
    gpuimg__trace_since("orient", t_alloc);
    for (int i = 0; i < allocated; i++)
        if (st != GPUIMG_OK || refused[i])
            be->ops->planes_free(be, &planes[i]);
    free(data);
    free(size);
    free(dst);
    gpuimg__stage_done(ctx, GPUIMG_STAGE_DECODE, t0);
    return st;
}
