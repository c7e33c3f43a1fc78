/* SPDX-License-Identifier: MIT */
/* gpuimg_process_file: a file through the steps into another, the codecs
 * chosen as SPEC §4 says. On a backend with a JPEG codec (CUDA with
 * nvJPEG) the image goes into planes, by the device's decoder when the
 * file is a JPEG it takes, else decoded on the CPU and uploaded, and comes
 * out of them encoded by the device when the output is JPEG; elsewhere it
 * is gpuimg_load, gpuimg_run_consume and gpuimg_save. The batch's device
 * stage makes the same choices with the same pieces (jpeg_gpu.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/io.h"
#include "run/run.h"

static gpuimg_format output_format(const char *out, gpuimg_format format)
{
    if (strcmp(out, "-") != 0)
        return gpuimg_format_from_path(out);
    return format == GPUIMG_FORMAT_NONE ? GPUIMG_FORMAT_PNG : format;
}

/* The classic way: pixels on the host between the CPU codecs. */
static gpuimg_status on_host(gpuimg_ctx *ctx, gpuimg_backend *be, const gpuimg__steps_plan *plan,
                             gpuimg_image *src, const char *out, gpuimg_format format,
                             gpuimg_process_info *info)
{
    gpuimg_image dst;
    gpuimg_status st = gpuimg__run_planned(ctx, be, plan, src, src, &dst);
    gpuimg_image_free(src); /* when the run did not free it already */
    if (st != GPUIMG_OK)
        return st;
    if (info) {
        info->out_width = dst.width;
        info->out_height = dst.height;
        info->out_channels = dst.channels;
    }
    st = gpuimg__save(ctx, out, format, &dst, 1);
    gpuimg_image_free(&dst);
    return st;
}

/* The file's bytes (data, taken: freed here) through the plan into out,
 * which was checked. */
static gpuimg_status process_bytes(gpuimg_ctx *ctx, const char *name, uint8_t *data, size_t size,
                                   const gpuimg__steps_plan *planned, const char *out,
                                   gpuimg_format format, gpuimg_process_info *info)
{
    gpuimg__steps_plan plan = *planned;
    gpuimg_step *const *steps = plan.steps;
    int nsteps = plan.nsteps;
    gpuimg_status st;
    /* told before the decode reads the size: the device may start opening
     * on another thread while the CPU decodes */
    gpuimg__plan_expect(ctx, &plan);
    gpuimg__plan_shrink(ctx, &plan);
    gpuimg__jpeg_file jf;
    int device_decode = 0;
    gpuimg_image src = {0};
    int w, h, c;
    if ((st = gpuimg__route_decode(ctx, -1, name, data, size, &jf, &device_decode)) != GPUIMG_OK) {
        free(data);
        return st;
    }
    if (device_decode) {
        int swap = gpuimg__turned(ctx, jf.meta->orientation);
        w = swap ? jf.shape.height : jf.shape.width;
        h = swap ? jf.shape.width : jf.shape.height;
        c = jf.shape.components;
    } else {
        st = gpuimg__load_owned(ctx, data, size, name, &src); /* frees data */
        data = NULL;
        if (st != GPUIMG_OK)
            return st;
        w = src.width, h = src.height, c = src.channels;
        if (src.meta && src.meta->shrunk_from_width) { /* -v tells the file's size */
            w = src.meta->shrunk_from_width;
            h = src.meta->shrunk_from_height;
        }
    }
    if (info) {
        memset(info, 0, sizeof *info);
        info->in_width = w, info->in_height = h, info->in_channels = c;
    }
    gpuimg_backend *be = NULL;
    int dev = 0;
    gpuimg_format out_format = output_format(out, format);
    st = gpuimg__route_backend(ctx, &plan, (double)w * h * c, device_decode, out_format, &be, &dev);
    if (st != GPUIMG_OK || !dev) {
        gpuimg__jpeg_file_free(&jf);
        if (st == GPUIMG_OK && device_decode) { /* the CPU's codec after all */
            st = gpuimg__load_owned(ctx, data, size, name, &src);
            data = NULL;
        }
        free(data);
        if (st == GPUIMG_OK)
            return on_host(ctx, be, &plan, &src, out, format, info);
        gpuimg_image_free(&src);
        return st;
    }

    gpuimg_planes cur;
    gpuimg_metadata *meta = NULL;
    if (device_decode) {
        gpuimg__jpeg_file *files[1] = {&jf};
        int refused = 0;
        st = gpuimg__jpeg_decode(ctx, be, 1, files, &cur, &refused);
        if (st == GPUIMG_OK && refused) { /* nvJPEG said no: libjpeg-turbo's turn */
            gpuimg__jpeg_file_free(&jf);
            st = gpuimg__load_owned(ctx, data, size, name, &src);
            data = NULL;
            device_decode = 0;
        } else if (st == GPUIMG_OK) {
            gpuimg__metadata_tell(ctx, name, &jf.notes);
        }
        free(data);
        meta = jf.meta;
        jf.meta = NULL;
    }
    if (st == GPUIMG_OK && !device_decode) {
        st = gpuimg__upload(ctx, be, &src, &cur);
        meta = src.meta;
        src.meta = NULL;
        gpuimg_image_free(&src); /* the upload has finished reading it */
    }
    if (st != GPUIMG_OK) {
        gpuimg_metadata_free(meta);
        return st;
    }
    gpuimg__output res;
    st = gpuimg__planes_finish(ctx, be, &cur, steps, nsteps, meta, out_format, 1, &res);
    if (st == GPUIMG_OK) {
        if (info) {
            info->out_width = res.image.width;
            info->out_height = res.image.height;
            info->out_channels = res.image.channels;
        }
        st = gpuimg__output_save(ctx, out, format, &res, 1);
        gpuimg__output_free(&res);
    }
    return st;
}

static gpuimg_status process(gpuimg_ctx *ctx, const char *in, const char *out, gpuimg_format format,
                             gpuimg_step *const *steps, int nsteps, gpuimg_process_info *info)
{
    /* the output checked once, before any work, and not again at the save */
    gpuimg_status st = gpuimg_check_output(ctx, out, in);
    gpuimg__steps_plan plan;
    if (st == GPUIMG_OK)
        st = gpuimg__plan_steps(ctx, steps, nsteps, &plan);
    uint8_t *data = NULL;
    size_t size = 0;
    if (st != GPUIMG_OK || (st = gpuimg__read_file(ctx, in, &data, &size)) != GPUIMG_OK)
        return st;
    return process_bytes(ctx, strcmp(in, "-") == 0 ? "<stdin>" : in, data, size, &plan, out, format,
                         info);
}

/* The format batch writes for a file of these bytes: its own, or the one
 * its format is written as (GIF and PSD as PNG): batch keeps the input's
 * extension (batch/plan.c), which names the format the bytes hold. */
static gpuimg_status kept_format(gpuimg_ctx *ctx, const char *name, const void *data, size_t size,
                                 gpuimg_format *format)
{
    gpuimg_file_info fi;
    gpuimg_status st = gpuimg_probe_memory(ctx, data, size, name, &fi);
    if (st != GPUIMG_OK)
        return st;
    char as_path[32];
    snprintf(as_path, sizeof as_path, "x.%s", fi.format);
    *format = gpuimg_format_written_for(as_path);
    if (*format == GPUIMG_FORMAT_NONE)
        return gpuimg__fail(ctx, GPUIMG_ERR_FORMAT, "%s: no writer for %s", name, fi.format);
    return GPUIMG_OK;
}

gpuimg_status gpuimg_process_memory(gpuimg_ctx *ctx, const void *data, size_t size,
                                    const char *name, gpuimg_format format,
                                    gpuimg_step *const *steps, int nsteps, uint8_t **out,
                                    size_t *out_len, gpuimg_format *written,
                                    gpuimg_process_info *info)
{
    *out = NULL;
    *out_len = 0;
    if (!name)
        name = "<memory>";
    gpuimg__steps_plan plan;
    gpuimg_status st = gpuimg__plan_steps(ctx, steps, nsteps, &plan);
    if (st == GPUIMG_OK && format == GPUIMG_FORMAT_NONE)
        st = kept_format(ctx, name, data, size, &format);
    if (st == GPUIMG_OK && !gpuimg_format_extension(format))
        st = gpuimg__fail(ctx, GPUIMG_ERR_FORMAT, "%s: not a writable format", name);
    if (st != GPUIMG_OK)
        return st;
    /* the pipeline frees the file's bytes as soon as they are decoded */
    uint8_t *copy = malloc(size ? size : 1);
    if (!copy)
        return gpuimg__fail(ctx, GPUIMG_ERR_NOMEM, "%s: out of memory", name);
    memcpy(copy, data, size);
    char *buf;
    size_t n;
    if ((st = gpuimg__capture_begin(ctx, name, &buf, &n)) != GPUIMG_OK) {
        free(copy);
        return st;
    }
    st = process_bytes(ctx, name, copy, size, &plan, "-", format, info);
    gpuimg__ctx_expect_work(ctx, 0, NULL, NULL, 0);
    gpuimg__plan_shrink(ctx, NULL);
    st = gpuimg__capture_end(ctx, st, &buf, &n, out, out_len);
    if (st == GPUIMG_OK && written)
        *written = format;
    return st;
}

gpuimg_status gpuimg_process_file(gpuimg_ctx *ctx, const char *in, const char *out,
                                  gpuimg_format format, gpuimg_step *const *steps, int nsteps,
                                  gpuimg_process_info *info)
{
    gpuimg_status st = process(ctx, in, out, format, steps, nsteps, info);
    /* The expectation told for this file ends with it: a file that failed
     * before its size was read would otherwise leave it, naming the
     * caller's steps, to the context's next decode. */
    gpuimg__ctx_expect_work(ctx, 0, NULL, NULL, 0);
    gpuimg__plan_shrink(ctx, NULL);
    return st;
}
