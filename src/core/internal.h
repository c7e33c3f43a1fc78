/* SPDX-License-Identifier: MIT */
/* Library internals shared by src/: the context, error details, timing. */
#ifndef GPUIMG_INTERNAL_H
#define GPUIMG_INTERNAL_H

#include <stdio.h>

#include "core/backend.h"
#include "core/floor.h"
#include "gpuimg.h"

#define GPUIMG_MAX_SIDE 65535
#define GPUIMG_DEFAULT_MAX_PIXELS (UINT64_C(1) << 30)

/* The shape an input of w x h x c becomes, in place, by the work `what`
 * (count items of it): told to the context by its caller, which knows the
 * work (the run's steps); the context itself knows no operation. */
typedef void (*gpuimg__shape_fn)(const void *what, int count, int *w, int *h, int *c);

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
    /* 0: a file's decoding may use every thread of the pool; else at most
     * this many (a pair's two images decoding at once, each on its half:
     * compare/load_both.c). */
    int file_threads;
    /* 1: memory freed by one run is kept for the next (the default, and a
     * batch's contexts). 0 (cfg.single_image): freed when no longer
     * needed, so that the peak holds the image about twice, not four
     * times. */
    int reuse_memory;
    /* The file's bytes gpuimg_load read, during their decoding: a decoder
     * done with them frees them early (gpuimg__input_release), which lowers
     * the peak by the file's size. NULL for a caller's bytes. */
    uint8_t *input_owned;
    /* gpuimg__ctx_expect_work: CPU nanoseconds per value of the expected
     * work (0: none), and the device being opened on another thread
     * meanwhile; and the work's output shape, for the buffer the opener's
     * thread pins (what and count are the caller's until its run). */
    double expect_ns;
    struct backend_opener *opener;
    gpuimg__shape_fn expect_shape;
    const void *expect_what;
    int expect_count;
    /* Set once "16-bit image written at 8 bits" was said: the context's own
     * flag, or its batch's, so that a folder of them warns once. */
    int depth_warned_own;
    int *depth_warned;
    /* Shrink on load (SPEC §3): set by a run whose first step may take a
     * JPEG decoded smaller (a thumbnail): the factor, 1, 2, 4 or 8, for a
     * file of upright size w x h; NULL: none. The loader passes the
     * factor to the JPEG decoder (jpeg_shrink, 1 otherwise) and says the
     * upright size of a file it shrank in shrunk_from_w, _h (0: it did
     * not), for the step to compute its output's size from. */
    int (*shrink_for)(const void *what, int w, int h);
    const void *shrink_what;
    int jpeg_shrink;
    int shrunk_from_w, shrunk_from_h;
    /* Where "-" writes (gpuimg__stdout): NULL, standard output; else the
     * memory stream of gpuimg_encode or gpuimg_process_memory, named
     * stdout_name in messages. */
    FILE *stdout_stream;
    const char *stdout_name;
};

/* What an output "-" is written to, and its name in messages. */
static inline FILE *gpuimg__stdout(const gpuimg_ctx *ctx)
{
    return ctx->stdout_stream ? ctx->stdout_stream : stdout;
}
static inline const char *gpuimg__stdout_name(const gpuimg_ctx *ctx)
{
    return ctx->stdout_name ? ctx->stdout_name : "<stdout>";
}

/* Encoded output in memory (write_atomic.c): between begin and end, what
 * the context writes to "-" goes into a buffer, which end hands over
 * (*out, *len: malloc'ed) when st is GPUIMG_OK, and frees otherwise. */
gpuimg_status gpuimg__capture_begin(gpuimg_ctx *ctx, const char *name, char **buf, size_t *len);
gpuimg_status gpuimg__capture_end(gpuimg_ctx *ctx, gpuimg_status st, char **buf, size_t *len,
                                  uint8_t **out, size_t *out_len);

/* Whether a file stored with EXIF orientation o is read turned a quarter
 * (5-8 applied, not under --no-auto-orient): its upright size is then its
 * stored one swapped. */
static inline int gpuimg__turned(const gpuimg_ctx *ctx, int o)
{
    return o >= 5 && !ctx->cfg.no_auto_orient;
}

/* Work about to be asked of the context (gpuimg_ctx_expect, run/): when a
 * decoder reads the size of the image it is for (gpuimg__header_read), the
 * device starts opening on another thread if that work will want it. */
void gpuimg__ctx_expect_work(gpuimg_ctx *ctx, double ns_per_value, gpuimg__shape_fn shape,
                             const void *what, int count);
/* While the device opens on another thread (the expected work's), pins
 * buffers of these sizes from the context's host buffers on a second
 * thread: pinning 100 MB costs tens of milliseconds (most of it faulting
 * in the fresh pages), which would otherwise land in upload and download
 * (image.c: the decoder's first take). */
void gpuimg__ctx_pin_beside(gpuimg_ctx *ctx, size_t in_bytes, size_t out_bytes);
/* Called by every decoder once the header gives the size: starts opening
 * the device when the expected work will want it. */
void gpuimg__header_read(gpuimg_ctx *ctx, uint64_t width, uint64_t height);
/* What every decoder checks from a header before it allocates (image.c):
 * a side over GPUIMG_MAX_SIDE or more pixels than --max-pixels is refused
 * (GPUIMG_ERR_TOO_LARGE, a zero side GPUIMG_ERR_DECODE); a size that
 * passes is announced with gpuimg__header_read. */
gpuimg_status gpuimg__check_size(gpuimg_ctx *ctx, const char *name, uint64_t width,
                                 uint64_t height);

/* What a batch's or a folder compare's workers share: the pool their
 * codecs and CPU operations split work over (NULL: a pool of their own,
 * made on first use), the host buffers (NULL: their own) and the
 * once-said flag of the 16-bit warning (NULL: their own). */
typedef struct gpuimg__ctx_share {
    struct gpuimg_pool *pool;
    struct gpuimg_host_buffers *buffers;
    int *depth_warned;
} gpuimg__ctx_share;
/* A worker's context: cfg with backend and device as given, sharing
 * share's parts, each worker with a file of its own (no file split
 * over the pool) and memory kept for its next file. */
gpuimg_status gpuimg__ctx_worker(const gpuimg_config *cfg, gpuimg_backend_kind backend, int device,
                                 const gpuimg__ctx_share *share, gpuimg_ctx **out);

/* The context's pool, made on first use; NULL (work runs on the calling
 * thread) when it cannot be. */
struct gpuimg_pool *gpuimg__ctx_pool(gpuimg_ctx *ctx);

/* Frees data now when it is the file gpuimg_load read (ctx->input_owned);
 * otherwise nothing. */
void gpuimg__input_release(gpuimg_ctx *ctx, const uint8_t *data);

/* Whether a format holds 16-bit values (PNG, PPM/PGM, TIFF). */
int gpuimg__format_holds_16(gpuimg_format format);

/* A stage that began at t0 (gpuimg__now_ms) ended now: its time added to
 * the context's (--time) and put on the timeline (trace.h). */
void gpuimg__stage_done(gpuimg_ctx *ctx, gpuimg_stage stage, double t0);

/* The backend, opened on first use; "auto" falls back to the CPU with a warning. */
gpuimg_status gpuimg__backend(gpuimg_ctx *ctx, gpuimg_backend **out);
/* The same, for work one core would do in about cpu_ns nanoseconds: "auto"
 * takes the CPU, without trying CUDA, when that divided among the
 * context's threads is under GPUIMG_AUTO_CPU_NS, since starting CUDA costs
 * a process about 0.25 s. */
#define GPUIMG_AUTO_CPU_NS 4e8
gpuimg_status gpuimg__backend_for(gpuimg_ctx *ctx, double cpu_ns, gpuimg_backend **out);
/* Copies a backend failure's detail into the context. */
gpuimg_status gpuimg__backend_fail(gpuimg_ctx *ctx, gpuimg_status st, const char *what);

/* The folder part of path ("." when it has none), in buf (write_atomic.c). */
void gpuimg__parent_folder(const char *path, char *buf, size_t len);
/* Writes path atomically: write() fills a temporary file beside it, which
 * is renamed over path when write succeeds and removed otherwise. */
gpuimg_status gpuimg__write_atomic(gpuimg_ctx *ctx, const char *path,
                                   gpuimg_status (*write)(gpuimg_ctx *ctx, FILE *f, void *user),
                                   void *user);

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
 * first one while the device is being opened for the expected work
 * (a decoder's) also has the output's buffer made, both pinned beside the
 * decode (gpuimg__ctx_pin_beside); _plain only takes. */
gpuimg_status gpuimg__image_take(gpuimg_ctx *ctx, gpuimg_image *img, int width, int height,
                                 int channels);
/* The same at depth 8 or 16. */
gpuimg_status gpuimg__image_take_depth(gpuimg_ctx *ctx, gpuimg_image *img, int width, int height,
                                       int channels, int depth);
/* The same with a buffer of at least room bytes (a decoder's working
 * space, the pixels packed at its start once decoded). */
gpuimg_status gpuimg__image_take_room(gpuimg_ctx *ctx, gpuimg_image *img, int width, int height,
                                      int channels, int depth, size_t room);
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

/* The planes into a new image from the context's buffers (planes.c). */
gpuimg_status gpuimg__download(gpuimg_ctx *ctx, gpuimg_backend *be, const gpuimg_planes *cur,
                               gpuimg_image *out);

/* Upload a host image into freshly allocated planes of the backend (planes.c). */
gpuimg_status gpuimg__upload(gpuimg_ctx *ctx, gpuimg_backend *be, const gpuimg_image *img,
                             gpuimg_planes *planes);

#endif
