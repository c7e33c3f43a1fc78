/* SPDX-License-Identifier: MIT */
/*
 * gpuimg: image processing on the GPU, with a plain-C CPU reference.
 *
 * The public C API. The command-line program is one user of it: everything it
 * does goes through these functions. The library never prints and never exits;
 * every function returns a gpuimg_status, and gpuimg_ctx_error() gives a
 * one-line detail naming the file or parameter at fault.
 *
 * Images on the host are interleaved (array of structures), 8 or 16 bits
 * per value: value x * channels + c of row y, rows stride bytes apart, a
 * uint8_t or a uint16_t in the machine's byte order. The library's own images
 * have packed rows (stride = width * channels); it accepts images of your
 * own with longer rows (a view into a larger image, rows aligned by another
 * library), packing them by one copy where a kernel or encoder needs them.
 */
#ifndef GPUIMG_H
#define GPUIMG_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The version: the text, and its numbers for #if tests. */
#define GPUIMG_VERSION "0.1.0"
#define GPUIMG_VERSION_MAJOR 0
#define GPUIMG_VERSION_MINOR 1
#define GPUIMG_VERSION_PATCH 0

typedef enum gpuimg_status {
    GPUIMG_OK = 0,
    GPUIMG_ERR_USAGE,     /* bad parameter, option or step */
    GPUIMG_ERR_FORMAT,    /* output format not supported (by name or extension) */
    GPUIMG_ERR_IO,        /* file cannot be opened, read or written */
    GPUIMG_ERR_DECODE,    /* not a supported image, or damaged */
    GPUIMG_ERR_TOO_LARGE, /* over --max-pixels or 65535 pixels a side */
    GPUIMG_ERR_NOMEM,     /* host memory exhausted */
    GPUIMG_ERR_NO_DEVICE, /* the requested backend is not available */
    GPUIMG_ERR_DEVICE,    /* the device failed (out of memory, kernel error) */
    GPUIMG_ERR_INTERNAL   /* a bug: an invariant did not hold */
} gpuimg_status;

const char *gpuimg_strerror(gpuimg_status st);

typedef struct gpuimg_buffer gpuimg_buffer;

/* What an image's file says besides its pixels (SPEC §2), carried from an
 * input to the outputs made from it: read from PNG (iCCP, eXIf, iTXt
 * XML:com.adobe.xmp) and JPEG (APP2 ICC_PROFILE, APP1 Exif and XMP),
 * written into the formats that hold them unless --strip. */
typedef struct gpuimg_metadata {
    uint8_t *icc;
    size_t icc_len; /* the ICC colour profile */
    uint8_t *exif;
    size_t exif_len; /* EXIF: its TIFF structure, "II*\0" or "MM\0*" first */
    uint8_t *xmp;
    size_t xmp_len;  /* the XMP packet (UTF-8 XML) */
    int orientation; /* the EXIF Orientation read, 1-8 */
    int oriented;    /* 1: the pixels were turned upright on reading (outputs
                        then say Orientation 1) */
    /* The upright size the file holds when its JPEG decoder shrank it on
     * load for a thumbnail (SPEC §3), which the thumbnail's size is
     * computed from; 0 when it did not. */
    int shrunk_from_width, shrunk_from_height;
    /* PNG's colour chunks besides iCCP (gAMA, cHRM, sRGB, cICP), each as
     * its 4-byte type, 4-byte big-endian length and data, in file order:
     * written back into PNG outputs; dropped when the pixels change colour
     * space (colour, a CMYK file's conversion). */
    uint8_t *png_colour;
    size_t png_colour_len;
} gpuimg_metadata;

void gpuimg_metadata_free(gpuimg_metadata *m);

typedef struct gpuimg_image {
    int width, height, channels; /* channels: 1 gray, 2 gray+alpha, 3 RGB, 4 RGBA */
    uint8_t *data;               /* height rows of stride bytes */
    /* Bytes from one row to the next: at least width * channels values; 0
     * means exactly that (so {w, h, c, data} describes packed memory of yours). */
    size_t stride;
    /* Where the library's images live: a context's reusable host buffers,
     * pinned for the device's copy engines when CUDA is in use. NULL for
     * gpuimg_image_alloc's and memory of your own. Leave it alone. */
    gpuimg_buffer *buffer;
    /* The file's metadata (NULL: none), the image's own: freed with it. */
    gpuimg_metadata *meta;
    /* Bits per value: 8 (uint8_t) or 16 (uint16_t, native byte order); 0
     * means 8, so a zeroed or hand-filled image is an 8-bit one. */
    int depth;
} gpuimg_image;

/* An image's depth, 8 or 16 (0 read as 8), and the bytes of one value. */
int gpuimg_image_depth(const gpuimg_image *img);
size_t gpuimg_image_value_size(const gpuimg_image *img);

/* Describes memory of your own as an image (stride 0: packed rows), the
 * library's fields cleared: the way to fill a gpuimg_image by hand.
 * gpuimg_image_free would free() data: don't call it on such an image. */
void gpuimg_image_wrap(gpuimg_image *img, int width, int height, int channels, uint8_t *data,
                       size_t stride);

/* Allocates a zeroed 8-bit image with packed rows; on failure *img is left
 * empty. The second takes the depth (8 or 16). */
gpuimg_status gpuimg_image_alloc(gpuimg_image *img, int width, int height, int channels);
gpuimg_status gpuimg_image_alloc_depth(gpuimg_image *img, int width, int height, int channels,
                                       int depth);
/* A copy of src (any stride) at depth (8 or 16: 8 -> 16 is v * 257, 16 -> 8
 * is round(v * 255 / 65535)), packed, its metadata copied. */
gpuimg_status gpuimg_image_convert_depth(const gpuimg_image *src, int depth, gpuimg_image *dst);
/* Frees an image from gpuimg_image_alloc or a gpuimg call: a library buffer
 * goes back to its context's set for the next image (or is freed, when that
 * context was destroyed), anything else to free(). Safe on any thread, and
 * after the context that made the image is gone. */
void gpuimg_image_free(gpuimg_image *img);

typedef enum gpuimg_border {
    GPUIMG_BORDER_REFLECT101 = 0, /* dcb|abcd|cba (default) */
    GPUIMG_BORDER_REFLECT,        /* cba|abcd|dcb */
    GPUIMG_BORDER_REPLICATE,      /* aaa|abcd|ddd */
    GPUIMG_BORDER_WRAP,           /* bcd|abcd|abc */
    GPUIMG_BORDER_CONSTANT        /* 000|abcd|000 */
} gpuimg_border;

typedef enum gpuimg_format {
    GPUIMG_FORMAT_NONE = 0,
    GPUIMG_FORMAT_PNG,
    GPUIMG_FORMAT_JPEG,
    GPUIMG_FORMAT_BMP,
    GPUIMG_FORMAT_TGA,
    GPUIMG_FORMAT_PPM,  /* binary P6; gray is widened, alpha dropped */
    GPUIMG_FORMAT_PGM,  /* binary P5; colour becomes Rec.601 luma, alpha dropped */
    GPUIMG_FORMAT_WEBP, /* lossy at jpeg_quality, or lossless; gray becomes RGB */
    GPUIMG_FORMAT_TIFF, /* Deflate with the horizontal predictor */
    GPUIMG_FORMAT_HEIC, /* HEVC in HEIF (libheif): lossy at jpeg_quality, or lossless */
    GPUIMG_FORMAT_AVIF, /* AV1 in HEIF (libheif): likewise */
    GPUIMG_FORMAT_JXL   /* JPEG XL (libjxl): likewise; 16 bits kept */
} gpuimg_format;

/* The format named by a bare name ("jpg", as --format takes it)... */
gpuimg_format gpuimg_format_from_name(const char *name);
/* ...or by a path's extension ("out/x.png"); NONE without one. */
gpuimg_format gpuimg_format_from_path(const char *path);
/* The extensions written, "png, jpg, jpeg, bmp, tga, ppm, pgm, webp, tif, tiff", for
 * messages and help... */
const char *gpuimg_format_list(void);
/* ...and those read (the written ones, pnm, gif and psd). */
const char *gpuimg_format_read_list(void);
/* Whether a file is taken for an image by its name: a read extension, and
 * not hidden (batch's and folder compare's choice of files). */
int gpuimg_is_image_path(const char *path);
/* The extension a format is written with ("jpg"); NULL for NONE. */
const char *gpuimg_format_extension(gpuimg_format format);
/* The format a file named path is written in by batch: its own, or, for a
 * format only read, the one that keeps it (GIF and PSD: PNG; PNM: PPM). NONE when
 * path is no image. */
gpuimg_format gpuimg_format_written_for(const char *path);

typedef enum gpuimg_stage {
    GPUIMG_STAGE_INIT = 0, /* backend initialisation (CUDA context) */
    GPUIMG_STAGE_DECODE,
    GPUIMG_STAGE_UPLOAD, /* includes interleaved -> planes */
    GPUIMG_STAGE_KERNELS,
    GPUIMG_STAGE_DOWNLOAD, /* includes planes -> interleaved */
    GPUIMG_STAGE_ENCODE,
    GPUIMG_STAGE_COUNT
} gpuimg_stage;

const char *gpuimg_stage_name(gpuimg_stage s);

typedef enum gpuimg_backend_kind {
    GPUIMG_BACKEND_AUTO = 0, /* CUDA when a device answers and the work is worth
                                starting it (about 0.4 s of CPU time), else the CPU */
    GPUIMG_BACKEND_CPU,
    GPUIMG_BACKEND_CUDA
} gpuimg_backend_kind;

/* "auto", "cpu", "cuda": 1 and *out; 0 for any other name. */
int gpuimg_backend_from_name(const char *name, gpuimg_backend_kind *out);
/* The name of a kind ("auto", "cpu", "cuda"); "?" for no kind. */
const char *gpuimg_backend_kind_name(gpuimg_backend_kind kind);

/* Where JPEG files are decoded and encoded (SPEC §4): AUTO, on the GPU
 * (nvJPEG) when the image's steps run on CUDA and nvJPEG loads, else the
 * CPU (libjpeg-turbo); CPU always; GPU: as AUTO, but CUDA is used whatever
 * the image's size (as --backend cuda), and a missing nvJPEG is an error. */
typedef enum gpuimg_jpeg_codec {
    GPUIMG_JPEG_AUTO = 0,
    GPUIMG_JPEG_CPU,
    GPUIMG_JPEG_GPU
} gpuimg_jpeg_codec;

typedef struct gpuimg_config {
    gpuimg_backend_kind backend; /* default AUTO */
    int device;                  /* CUDA device ordinal */
    int png_level;               /* 0-9, default 6 */
    int jpeg_quality;            /* 1-100, default 90 */
    int threads;                 /* 0 = all cores */
    uint64_t max_pixels;         /* 0 = default 2^30 */
    int no_auto_orient;          /* 1: keep the pixels as stored, whatever EXIF says */
    int strip;                   /* 1: write no metadata (profile, EXIF, XMP) */
    int lossless;                /* 1: WebP, HEIF/AVIF and JPEG XL output lossless and exact */
    /* 8 or 16: images are loaded at this depth (8 -> 16 is v * 257, 16 -> 8
     * round(v * 255 / 65535)), so the pipeline runs and writes at it; 0
     * keeps each file's own. */
    int depth;
    /* 1: the context runs one image (a command line's): memory is freed as
     * soon as a stage is done with it, so the peak holds about two copies
     * of the image. 0 (default): freed pixel buffers and planes are kept
     * for the next image, which then costs no fresh pages. */
    int single_image;
    /* Non-fatal messages (16-bit input reduced, backend fallback); may be NULL. */
    void (*warn)(void *user, const char *message);
    void *warn_user;
    gpuimg_jpeg_codec jpeg_codec; /* default AUTO */
    /* A folder's run (gpuimg_batch, gpuimg_compare_folders) holds at most
     * this many bytes of decoded images at once, admitting each by its
     * decoded size (width x height x channels x bytes per value) and
     * refusing one that alone is larger (GPUIMG_ERR_TOO_LARGE); 0: a quarter
     * of the machine's physical memory, or of its container's (cgroup)
     * limit. A run's peak is about three times what it admits: each
     * image's planes and output besides its pixels. */
    uint64_t memory_budget;
} gpuimg_config;

/* Fills cfg with the documented defaults. */
void gpuimg_config_init(gpuimg_config *cfg);

typedef struct gpuimg_ctx gpuimg_ctx;

/* Validates cfg; does not initialise any device (that happens lazily). On
 * failure gpuimg_ctx_error(NULL) names the field at fault, e.g.
 * "png_level 12 is out of range (0-9)" (the calling thread's last failed
 * create). */
gpuimg_status gpuimg_ctx_create(const gpuimg_config *cfg, gpuimg_ctx **out);
void gpuimg_ctx_destroy(gpuimg_ctx *ctx);
/* Detail of the last failure, e.g. "in.png: not a supported image (truncated PNG)";
 * ctx NULL: of this thread's last failed gpuimg_ctx_create.
 * Always one line: control characters (a newline in a file name, say) are
 * written as C escapes, as gpuimg_escape_controls does. */
const char *gpuimg_ctx_error(const gpuimg_ctx *ctx);
/* Copies text into out (cap bytes, always terminated) with each control
 * character written as a C escape (\n, \r, \t, \xNN), so that a name
 * holding one cannot break or forge a line of output. */
void gpuimg_escape_controls(const char *text, char *out, size_t cap);
/* Reads the whole of text as a decimal number ("2", "-0.5", "1e3"): 1 and
 * *out, or 0 for anything else (nothing, spaces, trailing characters, hex,
 * inf, nan, or out of double's range). Every number gpuimg reads from an
 * option, a step or a kernel file goes through it. */
int gpuimg_parse_number(const char *text, double *out);
/* The backend in use ("cpu", "cuda"), resolving "auto" now if needed. A
 * context opens one backend, on its first operation, and keeps it: under
 * "auto" a first small image (estimated CPU time under 0.4 s) settles the
 * context on the CPU, so use one context per image size class, or name the
 * backend, when mixing tiny and huge images. */
gpuimg_status gpuimg_ctx_backend(gpuimg_ctx *ctx, const char **name);
/* Milliseconds spent in each stage since the context was created. */
void gpuimg_ctx_timings(const gpuimg_ctx *ctx, double ms[GPUIMG_STAGE_COUNT]);
/* The name of a stage as a context's backend does it: on the CPU backend
 * the upload and download are the copies between interleaved pixels and
 * planes in host memory, "deinterleave" and "interleave"; elsewhere (and
 * before a backend is open) gpuimg_stage_name's. */
const char *gpuimg_ctx_stage_name(const gpuimg_ctx *ctx, gpuimg_stage s);

/* Decoding. path "-" reads standard input. Size limits are checked from the
 * header before any pixel is decoded. */
gpuimg_status gpuimg_load(gpuimg_ctx *ctx, const char *path, gpuimg_image *out);
gpuimg_status gpuimg_load_memory(gpuimg_ctx *ctx, const void *data, size_t size, const char *name,
                                 gpuimg_image *out);

/* Encoding. path "-" writes standard output in `format` (NONE: PNG); a
 * file's format comes from its extension. A file is written atomically: a
 * temporary file in the target folder, renamed into place, so no failure
 * leaves a partial file. */
gpuimg_status gpuimg_save(gpuimg_ctx *ctx, const char *path, gpuimg_format format,
                          const gpuimg_image *img);
/* Encodes img as format into memory: *out (free() it) holds the *len
 * bytes gpuimg_save would write to a file of that format. */
gpuimg_status gpuimg_encode(gpuimg_ctx *ctx, const gpuimg_image *img, gpuimg_format format,
                            uint8_t **out, size_t *len);
/* Writes len bytes to path atomically, as gpuimg_save writes images (a
 * temporary file beside it, renamed into place): a report, a copy. */
gpuimg_status gpuimg_write_file(gpuimg_ctx *ctx, const char *path, const void *data, size_t len);

/* The checks gpuimg_save makes before any work, for callers that want them
 * before decoding: the format is known (GPUIMG_ERR_FORMAT), the folder exists
 * (GPUIMG_ERR_IO), and the output is not the file `input` (GPUIMG_ERR_USAGE;
 * input may be NULL). */
gpuimg_status gpuimg_check_output(gpuimg_ctx *ctx, const char *path, const char *input);

/* Removes the temporary files of writes in progress. Async-signal-safe: for
 * a SIGINT/SIGTERM handler, so that an interrupted write leaves nothing. */
void gpuimg_remove_temporaries(void);

/* Opens the named backend ("cpu", "cuda") to describe it for `gpuimg info`:
 * on success text holds e.g. the GPU's name, memory and compute capability;
 * on failure it holds the reason. */
gpuimg_status gpuimg_backend_probe(const char *name, int device, char *text, size_t len);
/* "libpng 1.6.39, zlib 1.2.13, stb_image (Debian libstb)". */
const char *gpuimg_codec_versions(void);

/* ---- Operations ---------------------------------------------------------- */

/* Every image -> image operation is described by one table (src/ops/table.c, one file per operation
 * beside it) that drives the command line's options, the STEP syntax of `run` and `batch`, range
 * checks and --help, so none of them can disagree. */
typedef enum gpuimg_param_type {
    GPUIMG_PARAM_FLOAT,
    GPUIMG_PARAM_INT,
    GPUIMG_PARAM_CHOICE, /* one of choices[] */
    GPUIMG_PARAM_FLAG,   /* on when given; in a STEP also key=1|0|true|false|yes|no */
    GPUIMG_PARAM_TEXT
} gpuimg_param_type;

typedef struct gpuimg_param_info {
    const char *name; /* --name on the command line, name= in a STEP */
    gpuimg_param_type type;
    double min, max;            /* FLOAT and INT: inclusive range... */
    int min_exclusive;          /* ...except min when set */
    const char *const *choices; /* CHOICE: NULL-terminated */
    double default_value;       /* FLOAT, INT; CHOICE: index into choices */
    const char *default_text;   /* for --help; NULL when there is no default */
    int required;
    const char *metavar, *help;
} gpuimg_param_info;

typedef struct gpuimg_op_info {
    const char *name, *summary;
    int nparams;
    const gpuimg_param_info *params;
} gpuimg_op_info;

/* The image -> image operations, by index (NULL past the end) or name. */
const gpuimg_op_info *gpuimg_op_at(int index);
const gpuimg_op_info *gpuimg_op_find(const char *name);

/* ---- Pipelines of image -> image steps ---------------------------------- */

/* A step is one operation with its parameters: "blur:sigma=2,border=wrap". */
typedef struct gpuimg_step gpuimg_step;

gpuimg_status gpuimg_step_parse(gpuimg_ctx *ctx, const char *text, gpuimg_step **out);
/* Builds a step by operation name, then sets parameters one by one. */
gpuimg_status gpuimg_step_new(gpuimg_ctx *ctx, const char *op, gpuimg_step **out);
gpuimg_status gpuimg_step_set(gpuimg_ctx *ctx, gpuimg_step *step, const char *key,
                              const char *value);
/* Checks combinations and loads what the step needs (a kernel file). */
gpuimg_status gpuimg_step_finish(gpuimg_ctx *ctx, gpuimg_step *step);
void gpuimg_step_free(gpuimg_step *step);

/* Tells the context the steps that will run on the next image it loads, so
 * that, once the file's header shows the image is large enough for the
 * device ("auto"), or always under "cuda", it starts the device (about
 * 0.3 s) on another thread while the pixels decode. Optional; the steps
 * must stay alive until that load has read its size, or until the next
 * gpuimg_ctx_expect or gpuimg_process_file (which tells its own). */
gpuimg_status gpuimg_ctx_expect(gpuimg_ctx *ctx, gpuimg_step *const *steps, int nsteps);

/* Runs the steps in order. The image is uploaded once, converted to planes,
 * kept resident between steps, and downloaded once. */
gpuimg_status gpuimg_run(gpuimg_ctx *ctx, const gpuimg_image *in, gpuimg_step *const *steps,
                         int nsteps, gpuimg_image *out);
/* The same, taking the input: it is freed as soon as the run no longer
 * needs it (on the CPU backend, once it is in planes), so that an image's
 * pixels are held twice at most during the run, not three times. *in is
 * left freed (empty) whether or not the run succeeds. */
gpuimg_status gpuimg_run_consume(gpuimg_ctx *ctx, gpuimg_image *in, gpuimg_step *const *steps,
                                 int nsteps, gpuimg_image *out);

/* One file through the steps into another: gpuimg_load, gpuimg_run_consume
 * and gpuimg_save in one, except that on CUDA a JPEG is decoded and
 * encoded on the device (SPEC §4, --jpeg-codec), so that only its
 * compressed bytes cross to it. "-" reads stdin and writes stdout (format:
 * its format, NONE for PNG). out is checked first, as gpuimg_check_output(ctx,
 * out, in) checks it, before anything is read. info, when not NULL, gets
 * the shapes read and written. */
typedef struct gpuimg_process_info {
    int in_width, in_height, in_channels;
    int out_width, out_height, out_channels;
} gpuimg_process_info;
gpuimg_status gpuimg_process_file(gpuimg_ctx *ctx, const char *in, const char *out,
                                  gpuimg_format format, gpuimg_step *const *steps, int nsteps,
                                  gpuimg_process_info *info);

/* The same on an encoded file in memory (name: for messages; NULL:
 * "<memory>"), giving the encoded output in *out (free() it; *out_len
 * bytes): the bytes gpuimg_process_file, and so `gpuimg batch`, would
 * write for a file holding data. format NONE: the format batch keeps, the
 * input's own (GIF and PSD: PNG); *written (may be NULL) gets the format
 * written. For Ray Data's workers (SPEC §8), which hold bytes, not files. */
gpuimg_status gpuimg_process_memory(gpuimg_ctx *ctx, const void *data, size_t size,
                                    const char *name, gpuimg_format format,
                                    gpuimg_step *const *steps, int nsteps, uint8_t **out,
                                    size_t *out_len, gpuimg_format *written,
                                    gpuimg_process_info *info);

/* ---- What a file holds, from its header (`gpuimg info FILE`) ------------ */

typedef struct gpuimg_file_info {
    const char *format; /* "png", "jpeg", "webp", "tiff", "bmp", "gif", "tga", "pnm", "psd", "heic",
                           "avif" */
    int width, height;  /* as gpuimg reads it: upright unless --no-auto-orient */
    int stored_width, stored_height;
    int channels;    /* as gpuimg reads it: 1 gray, 2 gray+alpha, 3 RGB, 4 RGBA */
    int depth;       /* bits per sample in the file (1-16) */
    int orientation; /* EXIF Orientation, 1-8 (1 when none) */
    size_t icc_bytes, exif_bytes, xmp_bytes; /* 0 when absent */
    char profile[128];                       /* the ICC profile's description, "" when none */
} gpuimg_file_info;

/* Reads what a file holds from its header and metadata (the first MiBs at
 * most, never the pixels): GPUIMG_ERR_IO, _DECODE as gpuimg_load would. */
gpuimg_status gpuimg_probe(gpuimg_ctx *ctx, const char *path, gpuimg_file_info *out);
gpuimg_status gpuimg_probe_memory(gpuimg_ctx *ctx, const void *data, size_t size, const char *name,
                                  gpuimg_file_info *out);

/* ---- Measurements -------------------------------------------------------- */

typedef struct gpuimg_histogram {
    int channels;
    int depth;           /* of the image counted: 8 or 16 */
    int bins;            /* per channel: 1 << depth from compute, any after rebin */
    uint64_t *counts[4]; /* bins counts each; freed by gpuimg_histogram_free */
} gpuimg_histogram;

/* Exact counts, one bin per value (256 or 65536 per channel). */
gpuimg_status gpuimg_histogram_compute(gpuimg_ctx *ctx, const gpuimg_image *img,
                                       gpuimg_histogram *out);
/* The counts of h (from gpuimg_histogram_compute: one bin per value)
 * gathered into `bins` (1-65536) bins: value v of a depth-bit image falls
 * in bin floor(v * bins / 2^depth) (SPEC §3). */
gpuimg_status gpuimg_histogram_rebin(const gpuimg_histogram *h, int bins, gpuimg_histogram *out);
void gpuimg_histogram_free(gpuimg_histogram *h);
/* A bar chart (RGB) of a histogram from compute, 256 bars a channel (a
 * 16-bit image's values gathered 256 to a bar), one panel and colour per channel, titled with the
 * channel and its tallest bin, the value axis labelled; bar heights linear
 * in the count, or in log(1 + count) when log_scale is 1. */
gpuimg_status gpuimg_histogram_plot(const gpuimg_histogram *h, int log_scale, gpuimg_image *out);

typedef struct gpuimg_stats {
    int channels;
    uint64_t count; /* pixels */
    int depth;      /* of the image: values are 0 .. 2^depth - 1 */
    int min[4], max[4], median[4];
    uint64_t sum[4], sum_squares[4]; /* exact */
    double mean[4], stddev[4];       /* population standard deviation */
} gpuimg_stats;

gpuimg_status gpuimg_stats_compute(gpuimg_ctx *ctx, const gpuimg_image *img, gpuimg_stats *out);

/* ---- Comparison (golden-image testing, SPEC §7) ------------------------- */

/* A rectangle of pixels, x and y its top-left corner. */
typedef struct gpuimg_rect {
    int x, y, width, height;
} gpuimg_rect;

/* Which pixels differ, and which of those count. */
typedef struct gpuimg_compare_options {
    /* The pixel rule: a pixel differs when a channel differs by more than
     * fuzz (0-65535, in the compared images' units)... */
    int fuzz;
    /* ...or, when threshold is above 0 (at most 1), when pixelmatch's YIQ
     * distance of the two pixels blended over white exceeds 35215 threshold². */
    double threshold;
    /* 1: a differing pixel that is anti-aliasing in either image (pixelmatch's
     * detector) is forgiven, not counted. */
    int antialiasing;
    /* 0-8: the counted pixels fall into 8-connected groups; a group is
     * forgiven when one displacement d (0 < max(|dx|, |dy|) <= max_shift)
     * explains all of it: a's pixel at p matches b's at p + d and b's at p
     * matches a's at p - d, by the pixel rule. Moved content passes; a
     * changed glyph does not. */
    int max_shift;
    /* Pixels never counted in any figure: these rectangles (clipped to the
     * image), and where mask (the images' size; may be NULL) has 0 in its
     * first channel. */
    const gpuimg_rect *ignore;
    int nignore;
    const gpuimg_image *mask;
    /* 1: compute SSIM (the costly figure; 0 leaves has_ssim 0). */
    int ssim;
    /* 1: compute FLIP (NVIDIA's LDR-FLIP at 67 pixels per degree; 0, the
     * default, leaves has_flip 0). Ignored pixels take a's values in b
     * first, so a change there does not reach its neighbours through the
     * filters. */
    int flip;
} gpuimg_compare_options;

/* fuzz 0, no threshold, nothing forgiven or ignored, SSIM computed, FLIP not. */
void gpuimg_compare_options_init(gpuimg_compare_options *o);

typedef struct gpuimg_compare_result {
    int width, height, channels; /* of the widened images that were compared */
    int depth;                   /* 8, or 16 when either side is (the other widened) */
    int size_differs;            /* set (and nothing else) when the sizes differ */
    int identical;               /* every byte equal, ignored pixels included */
    uint64_t compared;           /* pixels not ignored */
    uint64_t ignored;            /* pixels ignored (rectangles and mask) */
    uint64_t differing;          /* counted: differ by the pixel rule, not forgiven */
    uint64_t forgiven;           /* differ, but anti-aliasing or shifted */
    uint64_t shifted;            /* of those, forgiven by the shift rule... */
    uint64_t groups_shifted;     /* ...in this many groups that moved as one */
    /* Over the compared pixels, every channel: */
    int max_diff;
    double mae, rmse;
    double psnr; /* valid when has_psnr (some compared value differs) */
    int has_psnr;
    double ssim; /* valid when has_ssim (asked, both sides >= 11, pixels left) */
    int has_ssim;
    /* FLIP over the compared pixels (valid when has_flip: asked, pixels
     * left): the map's mean, and its 95th and 99th weighted percentiles as
     * flip-evaluator's tool defines them (the smallest value v of the
     * sorted map whose running sum up to v exceeds p of the total). */
    double flip_mean, flip_p95, flip_p99;
    int has_flip;
    gpuimg_rect bbox; /* of the counted pixels; zero when differing is 0 */
} gpuimg_compare_result;

/* Compares a and b after widening both to a common channel layout (gray ->
 * RGB, missing alpha 255). opt may be NULL (the defaults). When diff is not
 * NULL it receives an RGB image: a's luma at one-third contrast, counted
 * pixels red, forgiven ones yellow, ignored ones dark blue. */
gpuimg_status gpuimg_compare(gpuimg_ctx *ctx, const gpuimg_image *a, const gpuimg_image *b,
                             const gpuimg_compare_options *opt, gpuimg_compare_result *out,
                             gpuimg_image *diff);

/* When a pair passes: every limit given must hold; with none given, one
 * counted pixel fails. */
typedef struct gpuimg_compare_limits {
    int has_max_diff, has_max_differing, has_max_differing_pct, has_min_psnr, has_min_ssim;
    int has_max_flip;
    int max_diff;             /* no channel differs by more */
    double max_differing;     /* at most this many counted pixels */
    double max_differing_pct; /* at most this % of the compared pixels */
    double min_psnr;          /* dB; identical values pass any */
    double min_ssim;
    double max_flip; /* FLIP's mean at most this (0-1) */
} gpuimg_compare_limits;

/* Which limits a result breaks, as bits: */
enum {
    GPUIMG_FAILED_DIFFERS = 1, /* no limit given, and a pixel counted */
    GPUIMG_FAILED_MAX_DIFF = 2,
    GPUIMG_FAILED_MAX_DIFFERING = 4,     /* the count */
    GPUIMG_FAILED_MAX_DIFFERING_PCT = 8, /* the percentage */
    GPUIMG_FAILED_MIN_PSNR = 16,
    GPUIMG_FAILED_MIN_SSIM = 32,
    GPUIMG_FAILED_SIZE = 64,
    GPUIMG_FAILED_MAX_FLIP = 128
};
/* The limits r breaks (0: it passes), the first one's reason in why
 * ("differing 1532 pixels (0.37%) > 1000"), every one's in order when why
 * has room. min_ssim where SSIM is n/a (max_flip where FLIP is) cannot apply; if no other limit is
 * given, the no-limit rule decides. */
unsigned gpuimg_compare_check(const gpuimg_compare_result *r, const gpuimg_compare_limits *l,
                              char *why, size_t len);
/* The name of one failure bit as --json lists it ("max_differing"). */
const char *gpuimg_compare_failure_name(unsigned bit);

/* ---- Folders of goldens (SPEC §7) --------------------------------------- */

typedef enum gpuimg_pair_status {
    GPUIMG_PAIR_IDENTICAL, /* every byte equal */
    GPUIMG_PAIR_PASSED,    /* differs within the limits (or only in ignored pixels) */
    GPUIMG_PAIR_FAILED,
    GPUIMG_PAIR_SIZE,    /* width or height differ */
    GPUIMG_PAIR_MISSING, /* a golden with no actual */
    GPUIMG_PAIR_NEW,     /* an actual with no golden */
    GPUIMG_PAIR_ERROR,   /* a file that cannot be read */
    GPUIMG_PAIR_STATUS_COUNT
} gpuimg_pair_status;

/* "identical", "passed", "failed", "size", "missing", "new", "error". */
const char *gpuimg_pair_status_name(gpuimg_pair_status s);

typedef struct gpuimg_pair {
    char *path;              /* relative to both folders */
    char *expected, *actual; /* the full paths (of the file there would be) */
    char *mask;              /* NAME.mask.png beside the golden, or NULL */
    /* Known variants: the golden's siblings NAME~K.EXT (full paths, in
     * order), each with its own NAME~K.mask.png; the pair passes when the
     * actual passes against any of them. matched: 0 for the golden itself
     * (or none passed), k for variants[k - 1]. */
    char **variants;
    size_t nvariants;
    size_t matched;
    gpuimg_pair_status status;
    gpuimg_compare_result result; /* compared pairs: identical, passed, failed */
    int expected_width, expected_height, actual_width, actual_height; /* read ones */
    unsigned failed;  /* gpuimg_compare_check's bits */
    char reason[320]; /* why it failed, or the error */
} gpuimg_pair;

/* Two image files compared as `gpuimg compare A B` compares them (A the
 * expected): byte-identical PNGs are not decoded (when opt has no mask
 * and diff is NULL), the two decode at once, and *p receives the result,
 * both sizes, and the verdict (gpuimg_compare_classify). opt and limits
 * may be NULL (the defaults). A file that cannot be read is the returned
 * error (A's first), not a status. */
gpuimg_status gpuimg_compare_files(gpuimg_ctx *ctx, const char *a, const char *b,
                                   const gpuimg_compare_options *opt,
                                   const gpuimg_compare_limits *limits, gpuimg_pair *p,
                                   gpuimg_image *diff);
/* The same on encoded files in memory (names for messages; NULL: "A", "B"). */
gpuimg_status gpuimg_compare_encoded(gpuimg_ctx *ctx, const void *a, size_t a_size,
                                     const char *a_name, const void *b, size_t b_size,
                                     const char *b_name, const gpuimg_compare_options *opt,
                                     const gpuimg_compare_limits *limits, gpuimg_pair *p,
                                     gpuimg_image *diff);
/* p's verdict from its result (and sizes): failed (gpuimg_compare_check's
 * bits), status (identical, passed, failed or size) and reason. */
void gpuimg_compare_classify(gpuimg_pair *p, const gpuimg_compare_limits *limits);
/* The lines `gpuimg compare A B` prints for p (max_diff ... result),
 * into buf (always terminated); flip: FLIP was asked (its n/a line).
 * Returns the length the whole text needs, as snprintf does. */
size_t gpuimg_compare_text(const gpuimg_pair *p, int flip, char *buf, size_t len);

/* A rectangle never counted in the pairs whose relative path matches glob
 * (fnmatch(3); '*' also matches '/'): --ignore-file's regions. */
typedef struct gpuimg_ignore_region {
    const char *glob;
    gpuimg_rect rect;
} gpuimg_ignore_region;

typedef struct gpuimg_folder_options {
    const char *expected_dir, *actual_dir;
    int recursive;
    gpuimg_compare_options compare; /* its mask is ignored: each golden's own applies */
    gpuimg_compare_limits limits;
    int jobs; /* pairs at once; 0: every core */
    /* Sharding (SPEC §7): with shard_count N > 1, only the pairs whose
     * sorted index is shard_index K mod N (0 <= K < N) are compared. */
    int shard_index, shard_count;
    /* Per-pair ignored rectangles, besides compare.ignore's. */
    const gpuimg_ignore_region *regions;
    size_t nregions;
    /* Called for each failed pair with its difference image (valid during
     * the call), from the workers, one call at a time; may be NULL. */
    void (*on_failed)(void *user, const gpuimg_pair *pair, const gpuimg_image *diff);
    void *user;
} gpuimg_folder_options;

typedef struct gpuimg_folder_result {
    gpuimg_pair *pairs; /* sorted by path */
    size_t npairs;
    size_t all_pairs; /* of every shard: npairs without sharding */
    size_t count[GPUIMG_PAIR_STATUS_COUNT];
} gpuimg_folder_result;

/* Pairs the images (by extension, as batch chooses them; NAME.mask.png
 * files are masks, not pairs) with the same relative path under both
 * folders, and compares each pair: decoded on every core, SSIM (when asked)
 * on the backend, CUDA started once. Fails only when a folder cannot be
 * read or memory runs out; a pair's troubles are its status. */
gpuimg_status gpuimg_compare_folders(gpuimg_ctx *ctx, const gpuimg_folder_options *opt,
                                     gpuimg_folder_result *out);
void gpuimg_folder_result_free(gpuimg_folder_result *r);

/* Makes the goldens agree with a compared folder: the actual of each
 * failed, size and new pair copied byte for byte over (or beside) its
 * golden, atomically, as gpuimg_copy_image copies; with prune, the goldens
 * of missing pairs deleted, and their masks. Nothing else is written or
 * deleted. *updated and *pruned count what was done; a pair that cannot be
 * updated does not stop the others, and the first failure is returned
 * (the context's error) once all were tried. */
gpuimg_status gpuimg_update_goldens(gpuimg_ctx *ctx, const gpuimg_folder_result *r, int prune,
                                    size_t *updated, size_t *pruned);
/* Copies the image file FOLDER/REL to the path to, byte for byte and
 * atomically, only if it is a regular file (not a FIFO or a device) within
 * --max-pixels that decodes whole as an image, and, unless trusted, one
 * reached from FOLDER without a symbolic link (neither REL's folders nor
 * the file): what a report or a golden folder receives from a folder an
 * untrusted job filled is an image of that folder, never a link's target.
 * GPUIMG_ERR_IO or _DECODE naming the file otherwise. */
gpuimg_status gpuimg_copy_image(gpuimg_ctx *ctx, const char *folder, const char *rel, int trusted,
                                const char *to);

/* ---- Images on the device (CUDA): zero-copy exchange (SPEC §8) ---------- */

/* An image resident on a CUDA device as planes: plane c (of width x height
 * values, rows packed, uint8_t at depth 8, uint16_t at 16) at data + c *
 * plane_stride, a device pointer. A (C, H, W) array with strides
 * (plane_stride, width, 1) values: what DLPack hands to PyTorch or CuPy.
 * The memory is its context's backend's: free it (gpuimg_device_image_free)
 * before destroying that context. */
typedef struct gpuimg_device_image {
    int width, height, channels, depth;
    int device; /* the CUDA ordinal */
    uint8_t *data;
    size_t plane_stride; /* bytes */
    /* Set it when another library may still have work queued on the planes
     * (a DLPack consumer's stream): gpuimg_device_image_free then waits for
     * the whole device before the memory goes back to the pool. */
    int exported;
    /* the library's: leave them alone */
    gpuimg_ctx *ctx;
    struct gpuimg_backend *backend;
} gpuimg_device_image;

/* Decodes n encoded files (data[i], sizes[i] bytes) onto the context's
 * CUDA device: the JPEGs through nvJPEG in one batch, the rest (and those
 * nvJPEG refuses) on the CPU and uploaded; upright, 8-bit for JPEG, the
 * file's depth otherwise. The device's work is finished on return, so the
 * images may be read on any stream. GPUIMG_ERR_NO_DEVICE where the context
 * does not run on CUDA. On failure no image is left allocated. */
gpuimg_status gpuimg_decode_device(gpuimg_ctx *ctx, int n, const void *const *data,
                                   const size_t *sizes, gpuimg_device_image *out);
/* The steps on a device image of this context, the result on the device
 * too (in is not changed): no copy crosses to the host. */
gpuimg_status gpuimg_run_device(gpuimg_ctx *ctx, const gpuimg_device_image *in,
                                gpuimg_step *const *steps, int nsteps, gpuimg_device_image *out);
/* The device image into an interleaved host image (freed as any). */
gpuimg_status gpuimg_device_image_download(gpuimg_ctx *ctx, const gpuimg_device_image *in,
                                           gpuimg_image *out);
void gpuimg_device_image_free(gpuimg_device_image *img);

/* ---- Batch: every image of a folder through a pipeline (SPEC §5) -------- */

typedef enum gpuimg_batch_outcome {
    GPUIMG_BATCH_DONE,
    GPUIMG_BATCH_FAILED,
    GPUIMG_BATCH_SKIPPED /* --skip-existing: the output is newer than the input */
} gpuimg_batch_outcome;

typedef struct gpuimg_batch_event {
    gpuimg_batch_outcome outcome;
    const char *input, *output;
    const char *error;        /* FAILED: one line naming the file */
    uint64_t finished, total; /* files finished so far, of all selected */
    /* bytes of the inputs finished (done or failed) so far, of all those to
     * do (skipped files are in neither): an ETA that large files weigh */
    uint64_t bytes_done, bytes_total;
} gpuimg_batch_event;

typedef struct gpuimg_batch_options {
    const char *in_dir, *out_dir;
    gpuimg_step *const *steps; /* finished steps; none: decode and encode only */
    int nsteps;
    gpuimg_format format; /* NONE: each output keeps its input's format */
    int recursive, skip_existing, fail_fast;
    int jobs;                     /* decode and encode threads each; 0: all cores */
    const int *devices;           /* CUDA devices; NULL: the context's --device */
    int ndevices;                 /* -1 with devices NULL: every device present */
    int shard_index, shard_count; /* files whose sorted index % count == index */
    /* Called once per file, from worker threads but never two at a time. */
    void (*on_event)(void *user, const gpuimg_batch_event *event);
    void *user;
} gpuimg_batch_options;

/* How many of the files ignored a summary names. */
#define GPUIMG_BATCH_IGNORED_NAMED 10

typedef struct gpuimg_batch_summary {
    uint64_t total, processed, failed, skipped;
    uint64_t ignored; /* files in the folder(s) that are not images */
    /* The first ignored_named of them (at most GPUIMG_BATCH_IGNORED_NAMED)
     * in sorted path order, relative to IN_DIR; a path longer than the
     * room ends in "...". Held here, not pointed to: the summary outlives
     * the batch. */
    int ignored_named;
    char ignored_names[GPUIMG_BATCH_IGNORED_NAMED][256];
    double seconds;
    int cancelled; /* gpuimg_batch_cancel() stopped it */
} gpuimg_batch_summary;

/* Runs the batch. A bad file is reported through on_event and counted, not
 * returned: the status is for what stops the whole batch (OUT_DIR equal to
 * IN_DIR, an unreadable IN_DIR, no usable device). */
gpuimg_status gpuimg_batch(gpuimg_ctx *ctx, const gpuimg_batch_options *options,
                           gpuimg_batch_summary *summary);
/* Stops running batches from taking new files; images already being
 * written finish (atomically). Async-signal-safe: for a SIGINT handler. */
void gpuimg_batch_cancel(void);

#ifdef __cplusplus
}
#endif

#endif
