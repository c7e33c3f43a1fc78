/* SPDX-License-Identifier: MIT */
/* The device's JPEG codec in a run (SPEC §4): which files and outputs take
 * it, its pieces (jpeg_gpu.c); run/route.c decides where they run. */
#ifndef GPUIMG_JPEG_GPU_H
#define GPUIMG_JPEG_GPU_H

#include "core/internal.h"
#include "io/jpeg/scan.h"
#include "io/metadata.h"

/* A JPEG file for the device's decoder: its bytes (not owned), its shape
 * as stored, and its metadata (owned), parsed on the CPU. */
typedef struct gpuimg__jpeg_file {
    const char *name;
    const uint8_t *data;
    size_t size;
    gpuimg__jpeg_shape shape;
    gpuimg_metadata *meta;
    /* the metadata's warnings, for the caller to tell once the device has
     * decoded the file (a file that then fails says only its error; one
     * the CPU decodes instead is told by its own load) */
    gpuimg__meta_notes notes;
} gpuimg__jpeg_file;

/* *eligible = 1 when data is a JPEG that this context may decode on a
 * device (--jpeg-codec not cpu, no --depth 16, gpuimg__jpeg_scan says
 * yes), its size allowed and its metadata in f->meta; 0 when the CPU
 * decodes it. An error (memory, a size refused) is returned. */
gpuimg_status gpuimg__jpeg_probe(gpuimg_ctx *ctx, const char *name, const uint8_t *data,
                                 size_t size, gpuimg__jpeg_file *f, int *eligible);
void gpuimg__jpeg_file_free(gpuimg__jpeg_file *f);
/* gpuimg__jpeg_probe in two: the scan (the costly part, a walk of the
 * entropy-coded data: about 15 ms for 12 megapixels), which touches
 * nothing but its arguments, so that many may run at once; then the rest
 * with the scan's shape (NULL: the CPU decodes the file). */
int gpuimg__jpeg_scan_for(const gpuimg_ctx *ctx, const uint8_t *data, size_t size,
                          gpuimg__jpeg_shape *shape);
gpuimg_status gpuimg__jpeg_probe_scanned(gpuimg_ctx *ctx, const char *name, const uint8_t *data,
                                         size_t size, const gpuimg__jpeg_shape *shape,
                                         gpuimg__jpeg_file *f, int *eligible);

/* 1 when be encodes and decodes JPEG for this context. Otherwise 0 (with
 * one notice where nvJPEG is missing), or, with --jpeg-codec gpu, -1 and
 * GPUIMG_ERR_NO_DEVICE in the context. */
int gpuimg__jpeg_device(gpuimg_ctx *ctx, gpuimg_backend *be);

/* n files decoded on be into planes[i], upright (their metadata marked
 * oriented). refused[i]: file i was not decoded (planes[i] empty), for the
 * CPU to decode. A failure is the device's, for all of them. */
gpuimg_status gpuimg__jpeg_decode(gpuimg_ctx *ctx, gpuimg_backend *be, int n,
                                  gpuimg__jpeg_file *const *files, gpuimg_planes *planes,
                                  int *refused);

#endif
