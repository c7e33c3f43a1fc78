/* SPDX-License-Identifier: MIT */
/*
 * The backend seam: the table of functions every backend implements, one for
 * one. The CPU backend (src/cpu/) is the reference; the CUDA backend
 * (kernels/) plugs into the same table, and the test suites drive whichever
 * one GPUIMG_BACKEND names.
 *
 * Images cross the seam as planes (structure of arrays): one width * height
 * array per channel, rows packed, of uint8_t at depth 8 and of uint16_t
 * (native byte order) at depth 16; plane[] points at bytes either way. Every
 * operation's output has its input's depth. For a device backend the plane
 * pointers are device pointers; the host only sees them through upload and
 * download. Every function validates nothing the caller already guarantees:
 * dst is allocated with the right shape, radii and kernels are in range.
 */
#ifndef GPUIMG_BACKEND_H
#define GPUIMG_BACKEND_H

#include "gpuimg.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gpuimg_planes {
    int width, height, channels;
    int depth; /* bits per value: 8, 16, or GPUIMG_DEPTH_FLOAT */
    uint8_t *plane[4];
} gpuimg_planes;

/* Float planes: the alpha-weighted values of --alpha premultiplied between
 * premultiply, the filter and unpremultiply; never an image's depth. */
#define GPUIMG_DEPTH_FLOAT 32

/* Bytes of one value, and of one plane. */
static inline size_t gpuimg__value_size(int depth)
{
    return depth == GPUIMG_DEPTH_FLOAT ? 4 : depth == 16 ? 2 : 1;
}
static inline size_t gpuimg__plane_bytes(const gpuimg_planes *p)
{
    return (size_t)p->width * (size_t)p->height * gpuimg__value_size(p->depth);
}

/* A 2-D convolution kernel, already flipped if --flip was given. */
typedef struct gpuimg_conv {
    int width, height;    /* odd, 1..63 */
    const float *weights; /* row-major, height rows of width */
    float scale, bias;
    int absolute;
} gpuimg_conv;

/* A colour conversion (SPEC §2 colour) as a backend applies it to 3
 * colour planes: rows, LittleCMS's transform of n interleaved RGB pixels
 * at the planes' depth (transform8 or transform16), for the CPU; lut, the
 * same conversion sampled for a device (core/colour_lut.h): a table of
 * GPUIMG_COLOUR_GRID points per axis (RGB floats and one unused, 4 a node;
 * node (r, g, b) at 4 (((r * G) + g) * G + b)) between two sets of per-channel curves of
 * GPUIMG_COLOUR_SHAPER + 1 points each, and 8-bit curves (below), in one
 * array (GPUIMG_COLOUR_FLOATS).
 * id names the array for a device's copy of it (distinct for every one
 * made). */
#define GPUIMG_COLOUR_GRID 33
#define GPUIMG_COLOUR_SHAPER 16384
#define GPUIMG_COLOUR_TABLE (GPUIMG_COLOUR_GRID * GPUIMG_COLOUR_GRID * GPUIMG_COLOUR_GRID * 4)
#define GPUIMG_COLOUR_CURVE (GPUIMG_COLOUR_SHAPER + 1)
/* and for 8-bit values, LittleCMS's own 8-bit curves: 256 points in, and
 * 16385 out (indexed by the linear value in 1/16384ths) */
#define GPUIMG_COLOUR_OUT8 16385
#define GPUIMG_COLOUR_FLOATS                                                                       \
    (GPUIMG_COLOUR_TABLE + 6 * GPUIMG_COLOUR_CURVE + 3 * 256 + 3 * GPUIMG_COLOUR_OUT8)
typedef struct gpuimg_colour_map {
    void (*rows)(void *transform, const void *in, void *out, size_t n);
    void *transform8, *transform16;
    const float *lut;
    unsigned long long id;
} gpuimg_colour_map;

/* The index permutations: one seam entry and one kernel file for all. */
typedef enum gpuimg_move {
    GPUIMG_MOVE_TRANSPOSE,
    GPUIMG_MOVE_ROTATE90, /* clockwise */
    GPUIMG_MOVE_ROTATE180,
    GPUIMG_MOVE_ROTATE270,
    GPUIMG_MOVE_FLIP_H, /* left <-> right */
    GPUIMG_MOVE_FLIP_V  /* top <-> bottom */
} gpuimg_move;

/* One axis of a resize (SPEC §3; made by src/ops/resample.c): n input
 * samples to m output samples; output x reads the input samples
 * [first[x], first[x] + taps) with weights[x * taps + k], every window
 * inside [0, n) (replicate edges are folded into the edge sample's
 * weight), zero weights after a window shorter than taps. The tables are
 * host memory and stay the caller's. */
typedef struct gpuimg_axis {
    int n, m, taps;
    int *first;     /* m */
    float *weights; /* m * taps */
} gpuimg_axis;

/* FLIP's filters and constants (src/core/flip_math.h), made once on the
 * host in float as NVIDIA's reference makes them (gpuimg__flip_params) and
 * handed to the backend: at flip-evaluator's default of 67.02 pixels per
 * degree (0.7 m from a 0.7 m wide screen of 3840 pixels) the spatial
 * (contrast sensitivity) filters have radius 10 and the feature (edge and
 * point) filters radius 9. */
#define GPUIMG_FLIP_SPATIAL_RADIUS 10
#define GPUIMG_FLIP_SPATIAL_TAPS (2 * GPUIMG_FLIP_SPATIAL_RADIUS + 1)
#define GPUIMG_FLIP_FEATURE_RADIUS 9
#define GPUIMG_FLIP_FEATURE_TAPS (2 * GPUIMG_FLIP_FEATURE_RADIUS + 1)
typedef struct gpuimg_flip_params {
    /* spatial: Y's and Cx's Gaussians; Cz's sum of two Gaussians as two
     * separable filters whose results are added */
    float y[GPUIMG_FLIP_SPATIAL_TAPS], cx[GPUIMG_FLIP_SPATIAL_TAPS];
    float cz1[GPUIMG_FLIP_SPATIAL_TAPS], cz2[GPUIMG_FLIP_SPATIAL_TAPS];
    /* features: the Gaussian and its first and second derivatives */
    float g[GPUIMG_FLIP_FEATURE_TAPS], dg[GPUIMG_FLIP_FEATURE_TAPS], ddg[GPUIMG_FLIP_FEATURE_TAPS];
    float cmax, pccmax; /* the largest colour distance (green to blue), ^0.7, and 0.4 of it */
} gpuimg_flip_params;
void gpuimg__flip_params(gpuimg_flip_params *p);

typedef struct gpuimg_backend gpuimg_backend;

typedef struct gpuimg_backend_ops {
    const char *name;
    /* Opens the backend; on failure writes a reason into msg. */
    gpuimg_status (*open)(gpuimg_backend **out, int device, char *msg, size_t msglen);
    void (*close)(gpuimg_backend *be);
    /* Describes the device for `gpuimg info` (may be NULL). */
    void (*describe)(gpuimg_backend *be, char *text, size_t len);

    gpuimg_status (*planes_alloc)(gpuimg_backend *be, gpuimg_planes *p, int w, int h, int c,
                                  int depth);
    void (*planes_free)(gpuimg_backend *be, gpuimg_planes *p);
    /* Sets every byte; the tests poison outputs with it. */
    gpuimg_status (*planes_fill)(gpuimg_backend *be, gpuimg_planes *p, uint8_t value);

    /* Pins n bytes of host memory at p for the device's copy engines (the
     * host buffers do it once per buffer), and undoes it; NULL for a
     * backend that reads host memory as it is. Need no open backend. */
    gpuimg_status (*host_register)(void *p, size_t n);
    void (*host_unregister)(void *p);

    /* Interleaved host image -> planes, and back; shapes already match and
     * rows are packed. Host memory may be pinned (the library's own
     * images) or not (a caller's). */
    gpuimg_status (*upload)(gpuimg_backend *be, const gpuimg_image *src, gpuimg_planes *dst);
    gpuimg_status (*download)(gpuimg_backend *be, const gpuimg_planes *src, gpuimg_image *dst);

    /* blur: the separable filter of 2 * radius + 1 normalized weights, its
     * intermediate pass in float. blur and convolve also take float planes
     * (GPUIMG_DEPTH_FLOAT) in and out: then nothing is rounded or clamped. */
    gpuimg_status (*blur)(gpuimg_backend *be, const gpuimg_planes *src, gpuimg_planes *dst,
                          const float *weights, int radius, gpuimg_border border);
    gpuimg_status (*box)(gpuimg_backend *be, const gpuimg_planes *src, gpuimg_planes *dst,
                         int radius, gpuimg_border border);
    gpuimg_status (*convolve)(gpuimg_backend *be, const gpuimg_planes *src, gpuimg_planes *dst,
                              const gpuimg_conv *k, gpuimg_border border);
    gpuimg_status (*sobel)(gpuimg_backend *be, const gpuimg_planes *src, gpuimg_planes *dst,
                           gpuimg_border border);

    /* --alpha premultiplied (SPEC §2), around a blur or convolve of float
     * planes: premultiply makes them from src (2 or 4 planes, alpha last;
     * M = 255 or 65535): colour c * (A / M), alpha A, in float;
     * unpremultiply stores them at dst's depth: alpha as §3 rounds A',
     * colour c' / a' rounded with a' = A' / M clamped to [0, 1] (a resize's
     * lanczos3 rings past either end), and 0 where a' = 0. */
    gpuimg_status (*premultiply)(gpuimg_backend *be, const gpuimg_planes *src, gpuimg_planes *dst);
    gpuimg_status (*unpremultiply)(gpuimg_backend *be, const gpuimg_planes *src,
                                   gpuimg_planes *dst);

    /* resize (SPEC §3): the horizontal pass (ax: src->width to ax->m),
     * kept in float, then the vertical one (ay: src->height to ay->m),
     * into the rectangle of dst at (dx, dy) of ax->m x ay->m; the rest of
     * dst is not touched. src and dst may be float planes (then nothing
     * is rounded or clamped), each at its own depth. */
    gpuimg_status (*resample)(gpuimg_backend *be, const gpuimg_planes *src, gpuimg_planes *dst,
                              const gpuimg_axis *ax, const gpuimg_axis *ay, int dx, int dy);
    /* The w x h rectangle of src at (sx, sy) into dst at (dx, dy), every
     * plane, the same depth. */
    gpuimg_status (*copy_rect)(gpuimg_backend *be, const gpuimg_planes *src, gpuimg_planes *dst,
                               int sx, int sy, int dx, int dy, int w, int h);
    /* Every value of plane c of dst set to value[c] (8 or 16 bits). */
    gpuimg_status (*fill)(gpuimg_backend *be, gpuimg_planes *dst, const uint16_t value[4]);
    /* unsharp (SPEC §3), on colour planes: b, the blur of src by the
     * 2 * radius + 1 weights with reflect101 borders, kept in float; then
     * v = in + amount (in - b) where |in - b| > threshold (in the
     * image's units), else in, stored as §3 stores. */
    gpuimg_status (*unsharp)(gpuimg_backend *be, const gpuimg_planes *src, gpuimg_planes *dst,
                             const float *weights, int radius, float amount, float threshold);

    /* dst is src's transpose shape (transpose, rotate 90/270) or its own. */
    gpuimg_status (*move)(gpuimg_backend *be, const gpuimg_planes *src, gpuimg_planes *dst,
                          gpuimg_move move);

    /* Value operations see colour planes only (1 or 3): the op table passes
     * them without alpha and copies alpha itself (copy_plane), once for
     * every backend. grayscale: 3 planes to 1, or 1 copied. */
    gpuimg_status (*grayscale)(gpuimg_backend *be, const gpuimg_planes *src, gpuimg_planes *dst);
    gpuimg_status (*invert)(gpuimg_backend *be, const gpuimg_planes *src, gpuimg_planes *dst);
    gpuimg_status (*equalize)(gpuimg_backend *be, const gpuimg_planes *src, gpuimg_planes *dst);
    /* equalize --luma (SPEC §3): 3 colour planes; the table of the rounded
     * Rec.601 luma Y, each value then (2 c lut[Y] + Y) / (2 Y) in integers,
     * clamped (lut[0] where Y = 0). */
    gpuimg_status (*equalize_luma)(gpuimg_backend *be, const gpuimg_planes *src,
                                   gpuimg_planes *dst);
    /* A per-value operation's table, built once by the op (src/ops/lut.c):
     * every value v of src's planes becomes lut8[v] at depth 8 (256
     * entries) or lut16[v] at depth 16 (65536 entries). Both tables are in
     * host memory and stay the caller's; the backend copies what it needs. */
    gpuimg_status (*map_lut)(gpuimg_backend *be, const gpuimg_planes *src, gpuimg_planes *dst,
                             const uint8_t *lut8, const uint16_t *lut16);
    /* A colour conversion of 3 colour planes (alpha is the op table's). */
    gpuimg_status (*colour_map)(gpuimg_backend *be, const gpuimg_planes *src, gpuimg_planes *dst,
                                const gpuimg_colour_map *map);
    /* Frees the memory a backend keeps for the next allocation (the CPU's
     * freed planes); NULL for one that keeps none. A run of one image
     * trims after its steps; a batch's contexts keep it for the next. */
    void (*trim)(gpuimg_backend *be);
    /* n bytes of one plane to another. */
    gpuimg_status (*copy_plane)(gpuimg_backend *be, const uint8_t *src, uint8_t *dst, size_t n);

    /* Exact counts, one bin per value (out->bins is 1 << depth, its counts
     * allocated and zeroed by the caller); stats derive from them
     * (gpuimg__stats_from_histogram). */
    gpuimg_status (*histogram)(gpuimg_backend *be, const gpuimg_planes *src, gpuimg_histogram *out);
    /* Waits for queued work (a device backend's launches are asynchronous), so
     * that --time charges kernels to the kernel stage; NULL when synchronous. */
    gpuimg_status (*synchronize)(gpuimg_backend *be);
    /* Waits for every stream of the device, another library's included (a
     * device image handed out through DLPack); NULL for a host backend. */
    gpuimg_status (*device_synchronize)(gpuimg_backend *be);
    /* SSIM (SPEC §3) of a and b, the same shape, both sides at least
     * GPUIMG_SSIM_TAPS: each channel's map summed over the pixels at least
     * GPUIMG_SSIM_RADIUS from every edge whose ignore byte is 0 (ignore: a
     * plane, or NULL for none), the channels' sums added into *sum. The rest
     * of a comparison is the host's (src/compare.c). At depth 16 the values
     * are divided by 257 first: SSIM with L = 65535 is SSIM of v / 257 with
     * L = 255 (its constants scale with L²), so one float path serves both. */
    gpuimg_status (*ssim)(gpuimg_backend *be, const gpuimg_planes *a, const gpuimg_planes *b,
                          const uint8_t *ignore, double *sum);
    /* FLIP (LDR, src/core/flip_math.h) of a (the reference) and b (the
     * test), the same shape, 1 to 4 planes at depth 8 or 16: gray planes
     * read as R = G = B, values v / 255 or v / 65535, and an alpha plane
     * (the last of 2 or 4) composited over white first, c a + 1 - a. The
     * map, one float per pixel in [0, 1], rows packed, into map (host
     * memory); the figures are the host's (src/compare/compare.c). */
    gpuimg_status (*flip)(gpuimg_backend *be, const gpuimg_planes *a, const gpuimg_planes *b,
                          const gpuimg_flip_params *p, float *map);

    /* JPEG on the device (SPEC §4; NULL for a backend without it, the
     * CPU's). jpeg_ready: 1 when the codec can be used (set up on first
     * call), else 0 with the reason. jpeg_decode: n files' bytes (host
     * memory) into dst[i], 8-bit planes the caller allocated at the file's
     * size, 1 for a grayscale file and 3 for colour; refused[i] set for a
     * file the device would not or could not decode, which the caller
     * decodes on the CPU. jpeg_encode: 8-bit planes, 1 or 3 (the colour
     * planes; alpha is not JPEG's), into *out (malloc'ed, the caller's),
     * chroma subsampled as the CPU encoder does, no metadata. */
    int (*jpeg_ready)(gpuimg_backend *be, char *why, size_t len);
    gpuimg_status (*jpeg_decode)(gpuimg_backend *be, int n, const uint8_t *const *data,
                                 const size_t *size, gpuimg_planes *const *dst, int *refused);
    gpuimg_status (*jpeg_encode)(gpuimg_backend *be, const gpuimg_planes *src, int quality,
                                 uint8_t **out, size_t *len);
} gpuimg_backend_ops;

/* Figures derived once for every backend from exact integers
 * (src/backend_common.c), so they agree to the last bit: the statistics of
 * n pixels from their histogram. */
void gpuimg__stats_from_histogram(const gpuimg_histogram *h, uint64_t n, gpuimg_stats *out);

/* SSIM's window (SPEC §3): Gaussian σ = 1.5, radius 5, normalized. */
#define GPUIMG_SSIM_RADIUS 5
#define GPUIMG_SSIM_TAPS (2 * GPUIMG_SSIM_RADIUS + 1)
/* and its constants, (K1 L)² and (K2 L)² with K1 = 0.01, K2 = 0.03, L = 255
 * (16-bit values are scaled to that range, above) */
#define GPUIMG_SSIM_C1 ((0.01 * 255) * (0.01 * 255))
#define GPUIMG_SSIM_C2 ((0.03 * 255) * (0.03 * 255))
void gpuimg__ssim_window(double g[GPUIMG_SSIM_TAPS]);

/* Every backend instance starts with this header. */
struct gpuimg_backend {
    const gpuimg_backend_ops *ops;
    char message[256]; /* detail of the last device error */
    /* The context's workers (pool.h), set when the backend is adopted: the
     * CPU backend splits every operation over them; NULL runs it on the
     * calling thread alone. A device backend ignores it. */
    struct gpuimg_pool *pool;
};

extern const gpuimg_backend_ops gpuimg__cpu_backend;

/* The CUDA backend's table. A build without nvcc links src/cuda_absent.c,
 * whose table fails to open with a clear reason, so `--backend cuda` is a
 * device error (exit 4) there, not a usage error. */
const gpuimg_backend_ops *gpuimg__cuda_backend(void);
/* Whether a CUDA backend opened in this process (the CLI's exit). */
int gpuimg__cuda_used(void);
/* The CUDA devices present (0 without CUDA, or none). */
int gpuimg__cuda_device_count(void);

/* Looks a backend up by name ("cpu", "cuda"); NULL when unknown. */
const gpuimg_backend_ops *gpuimg__backend_by_name(const char *name);

#ifdef __cplusplus
}
#endif

#endif
