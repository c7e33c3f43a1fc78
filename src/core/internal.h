/* SPDX-License-Identifier: MIT */
/* Library internals shared by src/: the context, error details, timing. */
#ifndef GPUIMG_INTERNAL_H
#define GPUIMG_INTERNAL_H

#include <stdio.h>

#include "core/backend.h"
#include "gpuimg.h"

#define GPUIMG_MAX_SIDE 65535
#define GPUIMG_DEFAULT_MAX_PIXELS (UINT64_C(1) << 30)

struct gpuimg_ctx {
    gpuimg_config cfg;
    gpuimg_backend *backend; /* NULL until the first operation needs one */
    char error[512];
    double stage_ms[GPUIMG_STAGE_COUNT];
    /* Codec threads: made on first use with --threads workers, or lent by a
     * batch (own_pool 0), which shares one pool between files and chunks. */
    struct gpuimg_pool *pool;
    int own_pool;
    /* Pixel buffers (host_buffers.h): the context's own, or a batch's,
     * lent (own_buffers 0) to every worker's context. */
    struct gpuimg_host_buffers *buffers;
    int own_buffers;
    /* 1: a codec may spread one file over the pool (JPEG read in bands). A
     * batch's decoders set 0: each has a file of its own, and the bands
     * would repeat entropy decoding while every core is busy. */
    int split_files;
    /* 1: memory freed by one run is kept for the next (the default, and a
     * batch's contexts). 0 (cfg.single_image): freed when no longer
     * needed, so that the peak holds the image about twice, not four
     * times. */
    int reuse_memory;
    /* The file's bytes gpuimg_load read, during their decoding: a decoder
     * done with them frees them early (gpuimg__input_release), which lowers
     * the peak by the file's size. NULL for a caller's bytes. */
    uint8_t *input_owned;
    /* gpuimg_ctx_expect: CPU nanoseconds per value of the expected steps
     * (0: none), and the device being opened on another thread meanwhile. */
    double expect_ns;
    struct backend_opener *opener;
    /* and the steps themselves, for the shape of the output the opener's
     * thread pins a buffer for (the caller keeps them until its run). */
    gpuimg_step *const *expect_steps;
    int expect_nsteps;
    /* Set once "16-bit image written at 8 bits" was said: the context's own
     * flag, or its batch's, so that a folder of them warns once. */
    int depth_warned_own;
    int *depth_warned;
};

/* Called by every decoder once the header gives the size: starts opening
 * the device when gpuimg_ctx_expect's steps will want it. */
void gpuimg__header_read(gpuimg_ctx *ctx, uint64_t width, uint64_t height);
/* What every decoder checks from a header before it allocates (image.c):
 * a side over GPUIMG_MAX_SIDE or more pixels than --max-pixels is refused
 * (GPUIMG_ERR_TOO_LARGE, a zero side GPUIMG_ERR_DECODE); a size that
 * passes is announced with gpuimg__header_read. */
gpuimg_status gpuimg__check_size(gpuimg_ctx *ctx, const char *name, uint64_t width,
                                 uint64_t height);

/* The context's pool, made on first use; NULL (work runs on the calling
 * thread) when it cannot be. */
struct gpuimg_pool *gpuimg__ctx_pool(gpuimg_ctx *ctx);

/* Frees data now when it is the file gpuimg_load read (ctx->input_owned);
 * otherwise nothing. */
void gpuimg__input_release(gpuimg_ctx *ctx, const uint8_t *data);

/* Records the detail of a failure and returns st, so callers can write
 * `return gpuimg__fail(ctx, GPUIMG_ERR_IO, "%s: %s", path, strerror(errno));`. */
gpuimg_status gpuimg__fail(gpuimg_ctx *ctx, gpuimg_status st, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void gpuimg__warn(gpuimg_ctx *ctx, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The same, unless *flag was already set (it is set, atomically, here). */
void gpuimg__warn_once(gpuimg_ctx *ctx, int *flag, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Whether a format holds 16-bit values (PNG, PPM/PGM, TIFF). */
int gpuimg__format_holds_16(gpuimg_format format);

/* The backend, opened on first use; "auto" falls back to the CPU with a warning. */
gpuimg_status gpuimg__backend(gpuimg_ctx *ctx, gpuimg_backend **out);
/* The same, for work one core would do in about cpu_ns nanoseconds: "auto"
 * takes the CPU, without trying CUDA, when that divided among the
 * context's threads is under GPUIMG_AUTO_CPU_NS, since starting CUDA costs
 * a process about 0.25 s. */
#define GPUIMG_AUTO_CPU_NS 4e8
gpuimg_status gpuimg__backend_for(gpuimg_ctx *ctx, double cpu_ns, gpuimg_backend **out);
/* Estimated nanoseconds of one core per channel value of finished steps,
 * the copies in and out of planes included (ops.c). */
double gpuimg__steps_cpu_ns(gpuimg_step *const *steps, int nsteps);
/* The shape finished steps turn w x h x c into, in place (ops.c). */
void gpuimg__steps_shape(gpuimg_step *const *steps, int nsteps, int *w, int *h, int *c);
/* Copies a backend failure's detail into the context. */
gpuimg_status gpuimg__backend_fail(gpuimg_ctx *ctx, gpuimg_status st, const char *what);

/* The folder part of path ("." when it has none), in buf (write_atomic.c). */
void gpuimg__parent_folder(const char *path, char *buf, size_t len);
/* Writes path atomically: write() fills a temporary file beside it, which
 * is renamed over path when write succeeds and removed otherwise. */
gpuimg_status gpuimg__write_atomic(gpuimg_ctx *ctx, const char *path,
                                   gpuimg_status (*write)(gpuimg_ctx *ctx, FILE *f, void *user),
                                   void *user);

/* Monotonic milliseconds. */
double gpuimg__now_ms(void);

/* width * height * channels in size_t, or 0 when it would overflow; the
 * second times the bytes of a value at depth. */
size_t gpuimg__image_bytes(int width, int height, int channels);
size_t gpuimg__image_bytes_depth(int width, int height, int channels, int depth);
/* Bytes of one packed row of img, and of its rows as stored. */
size_t gpuimg__row_bytes(const gpuimg_image *img);
size_t gpuimg__stride(const gpuimg_image *img);

/* The context's host buffers (its own, or a batch's it shares); NULL
 * when they could not be made. */
struct gpuimg_host_buffers *gpuimg__ctx_buffers(gpuimg_ctx *ctx);
/* An image for the library to fill, from the context's host buffers:
 * packed rows, contents undefined (every caller writes every byte). The
 * first one while the device is being opened for the expected steps
 * (a decoder's) also has the output's buffer made, both pinned beside the
 * decode (context.c); _plain only takes (image.c). */
gpuimg_status gpuimg__image_take(gpuimg_ctx *ctx, gpuimg_image *img, int width, int height,
                                 int channels);
/* The same at depth 8 or 16. */
gpuimg_status gpuimg__image_take_depth(gpuimg_ctx *ctx, gpuimg_image *img, int width, int height,
                                       int channels, int depth);
gpuimg_status gpuimg__image_take_plain(gpuimg_ctx *ctx, gpuimg_image *img, int width, int height,
                                       int channels, int depth);
/* img itself when its rows are packed, else a packed copy in *copy (to be
 * freed); GPUIMG_ERR_USAGE, with a message, for an invalid image. */
/* gpuimg_image_free, but its pixel buffer freed now, not kept for reuse. */
void gpuimg__image_discard(gpuimg_image *img);
gpuimg_status gpuimg__image_packed(gpuimg_ctx *ctx, const gpuimg_image *img, gpuimg_image *copy,
                                   const gpuimg_image **packed);

/* A packed copy of src at depth (8 or 16), from the context's buffers
 * (ctx NULL: malloc), its metadata copied (SPEC §2's conversions). */
gpuimg_status gpuimg__image_convert_depth(gpuimg_ctx *ctx, const gpuimg_image *src, int depth,
                                          gpuimg_image *dst);

/* The steps (finished) on resident planes: *cur becomes the result (on
 * failure it is still the caller's to free). Then the planes into a new
 * image from the context's buffers. */
gpuimg_status gpuimg__steps_on_planes(gpuimg_ctx *ctx, gpuimg_backend *be,
                                      gpuimg_step *const *steps, int nsteps, gpuimg_planes *cur);
gpuimg_status gpuimg__download(gpuimg_ctx *ctx, gpuimg_backend *be, const gpuimg_planes *cur,
                               gpuimg_image *out);

/* Upload a host image into freshly allocated planes of the backend. */
gpuimg_status gpuimg__upload(gpuimg_ctx *ctx, gpuimg_backend *be, const gpuimg_image *img,
                             gpuimg_planes *planes);

#endif
