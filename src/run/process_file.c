/* SPDX-License-Identifier: MIT */
/* gpuimg_process_file: a file through the steps into another, the codecs
 * chosen as SPEC §4 says. On a backend with a JPEG codec (CUDA with
 * nvJPEG) the image goes into planes, by the device's decoder when the
 * file is a JPEG it takes, else decoded on the CPU and uploaded, and comes
 * out of them encoded by the device when the output is JPEG; elsewhere it
 * is gpuimg_load, gpuimg_run_consume and gpuimg_save. The batch's device
 * stage makes the same choices with the same pieces (jpeg_gpu.h). */
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

static gpuimg_status process(gpuimg_ctx *ctx, const char *in, const char *out, gpuimg_format format,
                             gpuimg_step *const *steps, int nsteps, gpuimg_process_info *info)
{
    const char *name = strcmp(in, "-") == 0 ? "<stdin>" : in;
    /* the output checked once, before any work, and not again at the save */
    gpuimg_status st = gpuimg_check_output(ctx, out, in);
    gpuimg__steps_plan plan;
    if (st == GPUIMG_OK)
        st = gpuimg__plan_steps(ctx, steps, nsteps, &plan);
    uint8_t *data = NULL;
    size_t size = 0;
    if (st != GPUIMG_OK || (st = gpuimg__read_file(ctx, in, &data, &size)) != GPUIMG_OK)
        return st;
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
