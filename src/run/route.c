/* SPDX-License-Identifier: MIT */
/* Where an image's codecs run (SPEC §4), decided here alone: on a backend
 * with a JPEG codec (CUDA with nvJPEG) a JPEG it takes is decoded into
 * planes on the device and a JPEG output encoded there, so that only
 * compressed bytes cross PCIe; everything else goes through the CPU's
 * codecs. gpuimg_process_file and the batch's stages both ask here. */
#include <math.h>
#include <string.h>

#include "run/run.h"

gpuimg_status gpuimg__route_backend(gpuimg_ctx *ctx, const gpuimg__steps_plan *plan, double values,
                                    int reads_jpeg, gpuimg_format out_format, gpuimg_backend **be,
                                    int *jpeg_device)
{
    *jpeg_device = 0;
    double cpu_ns = ctx->cfg.jpeg_codec == GPUIMG_JPEG_GPU ? INFINITY : plan->ns_per_value * values;
    gpuimg_status st = gpuimg__backend_for(ctx, cpu_ns, be);
    if (st != GPUIMG_OK)
        return st;
    /* nvJPEG is set up (about a second on an H100) only for a JPEG to read
     * or to write */
    if (!reads_jpeg && out_format != GPUIMG_FORMAT_JPEG)
        return GPUIMG_OK;
    int dev = gpuimg__jpeg_device(ctx, *be);
    if (dev < 0)
        return GPUIMG_ERR_NO_DEVICE;
    *jpeg_device = dev;
    return GPUIMG_OK;
}

gpuimg_status gpuimg__route_decode(gpuimg_ctx *ctx, int jpeg_device, const char *name,
                                   const uint8_t *data, size_t size, gpuimg__jpeg_file *f,
                                   int *on_device)
{
    *on_device = 0;
    memset(f, 0, sizeof *f);
    if (jpeg_device == 0 || ctx->cfg.jpeg_codec == GPUIMG_JPEG_CPU)
        return GPUIMG_OK;
    gpuimg_status st = gpuimg__jpeg_probe(ctx, name, data, size, f, on_device);
    if (st == GPUIMG_OK && *on_device && ctx->shrink_for) {
        /* A file a thumbnail shrinks on load (SPEC §3) is libjpeg-turbo's:
         * its DCT scaling skips most of the inverse transforms, which
         * nvJPEG (no scaled decode) does all of at full size; measured on
         * an H100, 400 photographs to 224x224 decoded by 16 cores this way
         * beat the hardware decoder (bench/README.md). The header and the
         * size asked decide, as for the CPU backend. */
        int turned = f->meta && gpuimg__turned(ctx, f->meta->orientation);
        int w = turned ? f->shape.height : f->shape.width;
        int h = turned ? f->shape.width : f->shape.height;
        if (ctx->shrink_for(ctx->shrink_what, w, h) > 1) {
            gpuimg__jpeg_file_free(f);
            *on_device = 0;
        }
    }
    return st;
}

int gpuimg__route_encode(int jpeg_device, gpuimg_format format, const gpuimg_planes *cur)
{
    /* JPEG holds 8 bits and no alpha: the device encodes the colour planes
     * of an 8-bit result; a 16-bit one goes the CPU's way (its warning and
     * conversion), as does a side over libjpeg's limit (its error). */
    return jpeg_device == 1 && format == GPUIMG_FORMAT_JPEG && cur->depth == 8 &&
           cur->width <= 65500 && cur->height <= 65500;
}
