/* SPDX-License-Identifier: MIT */
/* One image through steps (pipeline.c) and the choices made for it once
 * (route.c): the steps finished and their cost estimated once, the
 * backend chosen once, the codecs' places decided once, each carried to
 * every later use rather than computed again. */
#ifndef GPUIMG_RUN_H
#define GPUIMG_RUN_H

#include "core/internal.h"
#include "run/jpeg_gpu.h"

/* A run's steps, finished, and the CPU's nanoseconds per channel value
 * for them (the backend's choice under "auto" and the device's
 * speculative start both read it). */
typedef struct gpuimg__steps_plan {
    gpuimg_step *const *steps;
    int nsteps;
    double ns_per_value;
} gpuimg__steps_plan;

/* Finishes the steps (each once: a finished step is not finished again)
 * and estimates their cost. */
gpuimg_status gpuimg__plan_steps(gpuimg_ctx *ctx, gpuimg_step *const *steps, int nsteps,
                                 gpuimg__steps_plan *plan);
/* Tells the context the planned work (gpuimg__ctx_expect_work): the
 * image a decoder is about to read may start the device meanwhile. */
void gpuimg__plan_expect(gpuimg_ctx *ctx, const gpuimg__steps_plan *plan);

/* Lets the loads of ctx shrink a JPEG for the plan's first step (a
 * thumbnail's shrink on load, SPEC §3; none for any other step); NULL
 * plan: no more. */
void gpuimg__plan_shrink(gpuimg_ctx *ctx, const gpuimg__steps_plan *plan);

/* The steps (finished) on resident planes: *cur becomes the result (on
 * failure it is still the caller's to free). meta: the image's (or NULL);
 * when its load shrank it, the first step sizes its output from the
 * file's size (the callers clear that size from the output's metadata). */
gpuimg_status gpuimg__steps_on_planes(gpuimg_ctx *ctx, gpuimg_backend *be,
                                      gpuimg_step *const *steps, int nsteps,
                                      const gpuimg_metadata *meta, gpuimg_planes *cur);
/* The plan on be: upload, steps, download. take: the input, to be freed
 * as soon as the planes hold it (gpuimg_run_consume), or NULL. */
gpuimg_status gpuimg__run_planned(gpuimg_ctx *ctx, gpuimg_backend *be,
                                  const gpuimg__steps_plan *plan, const gpuimg_image *in,
                                  gpuimg_image *take, gpuimg_image *out);

/* A run's result: an image, or a JPEG encoded on the device (jpeg, with
 * image holding its shape and metadata but no pixels). */
typedef struct gpuimg__output {
    gpuimg_image image;
    uint8_t *jpeg;
    size_t jpeg_len;
} gpuimg__output;

/* The steps on cur, then the result out of the device: encoded there when
 * format is JPEG and jpeg_device says so (8-bit results), else downloaded.
 * meta becomes the output's (freed on failure). cur is freed either way. */
gpuimg_status gpuimg__planes_finish(gpuimg_ctx *ctx, gpuimg_backend *be, gpuimg_planes *cur,
                                    gpuimg_step *const *steps, int nsteps, gpuimg_metadata *meta,
                                    gpuimg_format format, int jpeg_device, gpuimg__output *out);
/* checked: as gpuimg__save's. */
gpuimg_status gpuimg__output_save(gpuimg_ctx *ctx, const char *path, gpuimg_format format,
                                  const gpuimg__output *out, int checked);
void gpuimg__output_free(gpuimg__output *out);

/* ---- the route (route.c): where each codec runs, decided once an image ---- */

/* The backend for the plan on an image of values channel values, and
 * whether its JPEG codec reads (reads_jpeg: a file the device may
 * decode) or writes (out_format JPEG) this image: *jpeg_device 1, or 0
 * where the CPU's codec does. --jpeg-codec gpu asks for the device
 * whatever the size, and fails with GPUIMG_ERR_NO_DEVICE without one. */
gpuimg_status gpuimg__route_backend(gpuimg_ctx *ctx, const gpuimg__steps_plan *plan, double values,
                                    int reads_jpeg, gpuimg_format out_format, gpuimg_backend **be,
                                    int *jpeg_device);
/* Whether the device's decoder reads the file (1: f holds it, its
 * metadata parsed) or the CPU's (0). jpeg_device: the backend's answer
 * (gpuimg__jpeg_device), or -1 where the backend is chosen after this
 * from the size it reads (gpuimg_process_file): then a file the device
 * may decode is its, until the backend says otherwise. */
gpuimg_status gpuimg__route_decode(gpuimg_ctx *ctx, int jpeg_device, const char *name,
                                   const uint8_t *data, size_t size, gpuimg__jpeg_file *f,
                                   int *on_device);
/* Whether the result on cur leaves the device encoded by its codec (1),
 * or is downloaded for the CPU's encoder (0). */
int gpuimg__route_encode(int jpeg_device, gpuimg_format format, const gpuimg_planes *cur);

#endif
