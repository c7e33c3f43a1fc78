/* SPDX-License-Identifier: MIT */
/* JPEG XL through libjxl, the reference implementation (SPEC §2): a bare
 * codestream or the ISO BMFF container, 8-bit and 16-bit (more bits read
 * as 16), gray, gray+alpha, RGB and RGBA; animations refused. Written
 * lossless (--lossless, or --jpeg-quality 100) or lossy at cjxl's distance
 * for --jpeg-quality, with the image's ICC profile (else an sRGB colour
 * encoding), EXIF and XMP as "Exif" and "xml " boxes.
 *
 * Orientation: a JPEG XL's own is in its codestream and wins over an EXIF
 * Orientation in its Exif box (ISO/IEC 18181-2). libjxl applies it while
 * decoding, unless --no-auto-orient, so the header's size (probe) is the
 * one the decoder gives, and the EXIF kept says Orientation 1: the loader
 * (gpuimg__metadata_attach) must not turn the pixels a second time. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#ifndef GPUIMG_NO_JXL
#include <jxl/decode.h>
#include <jxl/encode.h>
#include <jxl/thread_parallel_runner.h>
#endif

#include "io/formats.h"
#include "io/io.h"
#include "io/metadata.h"

/* The container's signature box, and a bare codestream's two bytes. */
static const uint8_t container_signature[12] = {0,   0,   0,   0x0c, 'J',  'X',
                                                'L', ' ', 0xd, 0xa,  0x87, 0xa};

static int is_jxl(const uint8_t *data, size_t size)
{
    return (size >= 2 && data[0] == 0xff && data[1] == 0x0a) ||
           (size >= sizeof container_signature &&
            memcmp(data, container_signature, sizeof container_signature) == 0);
}

#ifndef GPUIMG_NO_JXL

/* The boxes' contents are bounded as gpuimg__meta_inflate bounds zlib's:
 * a Brotli box of a few bytes may claim gigabytes. */
#define BOX_MAX ((size_t)64 << 20)

/* libjxl's thread runner over the context's threads: one file split over
 * every core (--threads; 0: libjxl's count of them), or none (the calling
 * thread alone) for a batch's worker, which has a file of its own while
 * every core is busy. NULL: the calling thread (also when it cannot be
 * made; libjxl then runs serially). */
static void *runner_create(const gpuimg_ctx *ctx)
{
    if (!ctx->split_files)
        return NULL;
    size_t n = ctx->cfg.threads > 0 ? (size_t)ctx->cfg.threads
                                    : JxlThreadParallelRunnerDefaultNumWorkerThreads();
    return n > 1 ? JxlThreadParallelRunnerCreate(NULL, n) : NULL;
}

static gpuimg_status damaged(gpuimg_ctx *ctx, const char *name)
{
    return gpuimg__fail(ctx, GPUIMG_ERR_DECODE,
                        "%s: not a supported image (damaged or truncated JPEG XL)", name);
}

/* What an image of basic info b reads as: 1-4 channels, 8 or 16 bits;
 * an animation refused. */
static gpuimg_status shape(gpuimg_ctx *ctx, const char *name, const JxlBasicInfo *b, int *channels,
                           int *depth)
{
    if (b->have_animation)
        return gpuimg__fail(
            ctx, GPUIMG_ERR_DECODE,
            "%s: not a supported image (animated JPEG XL; only still ones are read)", name);
    if (b->num_color_channels != 1 && b->num_color_channels != 3)
        return damaged(ctx, name);
    *channels = (int)b->num_color_channels + (b->alpha_bits > 0);
    *depth = b->bits_per_sample <= 8 ? 8 : 16;
    return GPUIMG_OK;
}

/* The header: the size the decoder gives (turned as the codestream's
 * orientation says unless --no-auto-orient), channels and depth. */
static gpuimg_status probe(gpuimg_ctx *ctx, const char *name, const uint8_t *data, size_t size,
                           gpuimg_file_info *o)
{
    JxlDecoder *dec = JxlDecoderCreate(NULL);
    if (!dec)
        return gpuimg__fail(ctx, GPUIMG_ERR_NOMEM, "%s: out of memory", name);
    JxlBasicInfo b;
    JxlDecoderStatus s = JXL_DEC_ERROR;
    if (JxlDecoderSubscribeEvents(dec, JXL_DEC_BASIC_INFO) == JXL_DEC_SUCCESS &&
        JxlDecoderSetKeepOrientation(dec, ctx->cfg.no_auto_orient ? JXL_TRUE : JXL_FALSE) ==
            JXL_DEC_SUCCESS &&
        JxlDecoderSetInput(dec, data, size) == JXL_DEC_SUCCESS) {
        JxlDecoderCloseInput(dec);
        s = JxlDecoderProcessInput(dec);
        if (s == JXL_DEC_BASIC_INFO && JxlDecoderGetBasicInfo(dec, &b) != JXL_DEC_SUCCESS)
            s = JXL_DEC_ERROR;
    }
    JxlDecoderDestroy(dec);
    if (s != JXL_DEC_BASIC_INFO)
        return damaged(ctx, name);
    gpuimg_status st = shape(ctx, name, &b, &o->channels, &o->depth);
    if (st != GPUIMG_OK)
        return st;
    /* the loader turns nothing more (meta_read's EXIF says 1): what it
     * gives is the decoder's size; a side over int's range is left 0, which
     * gpuimg_probe_memory refuses */
    o->stored_width = b.xsize <= 0x7fffffff ? (int)b.xsize : 0;
    o->stored_height = b.ysize <= 0x7fffffff ? (int)b.ysize : 0;
    return GPUIMG_OK;
}

/* 1 when e is sRGB (or sRGB's gray): the colour every reader assumes
 * without a profile, so none is kept. */
static int plain_srgb(const JxlColorEncoding *e)
{
    return e->white_point == JXL_WHITE_POINT_D65 &&
           e->transfer_function == JXL_TRANSFER_FUNCTION_SRGB &&
           (e->color_space == JXL_COLOR_SPACE_GRAY ||
            (e->color_space == JXL_COLOR_SPACE_RGB && e->primaries == JXL_PRIMARIES_SRGB));
}

/* At JXL_DEC_COLOR_ENCODING, the colour the pixels are given in. A lossy
 * (XYB) file is converted by libjxl to its original colour when that is
 * one of JPEG XL's enumerated spaces; an original ICC profile it cannot
 * target (0.7 has no CMS for it) and by default gives linear sRGB, whose
 * 8 bits would lose the shadows: sRGB is asked for instead, and the
 * profile the file carried is not the pixels' (read_icc keeps none). For
 * any other file this preference is ignored. */
static void prefer_srgb(JxlDecoder *dec, int gray)
{
    JxlColorEncoding e;
    if (JxlDecoderGetColorAsEncodedProfile(dec, NULL, JXL_COLOR_PROFILE_TARGET_ORIGINAL, &e) ==
        JXL_DEC_SUCCESS)
        return;
    JxlColorEncodingSetToSRGB(&e, gray ? JXL_TRUE : JXL_FALSE);
    (void)JxlDecoderSetPreferredColorProfile(dec, &e);
}

/* The profile of the decoded pixels into m, unless they are plain sRGB:
 * the original colour's for lossless files and for lossy ones in an
 * enumerated space (an ICC generated by libjxl), none for a lossy one
 * given in sRGB (prefer_srgb). */
static int read_icc(JxlDecoder *dec, gpuimg_metadata *m)
{
    JxlColorEncoding e;
    if (JxlDecoderGetColorAsEncodedProfile(dec, NULL, JXL_COLOR_PROFILE_TARGET_DATA, &e) ==
            JXL_DEC_SUCCESS &&
        plain_srgb(&e))
        return 1;
    size_t n = 0;
    if (JxlDecoderGetICCProfileSize(dec, NULL, JXL_COLOR_PROFILE_TARGET_DATA, &n) !=
            JXL_DEC_SUCCESS ||
        n == 0 || n > BOX_MAX)
        return 1; /* none there (an XYB or unknown space) */
    uint8_t *icc = malloc(n);
    if (!icc)
        return 0;
    if (JxlDecoderGetColorAsICCProfile(dec, NULL, JXL_COLOR_PROFILE_TARGET_DATA, icc, n) !=
        JXL_DEC_SUCCESS) {
        free(icc);
        return 1;
    }
    m->icc = icc;
    m->icc_len = n;
    return 1;
}

/* A box being read: its bytes so far, in a buffer grown as libjxl asks
 * (a Brotli box's size is known only once it is decompressed). */
typedef struct box {
    uint8_t *data;
    size_t cap, len;
    int which; /* 1 Exif, 2 xml, 0 none */
} box;

/* Gives libjxl room for more of the box: 0 out of memory, -1 too large. */
static int box_room(JxlDecoder *dec, box *b)
{
    size_t cap = b->cap ? b->cap * 2 : 4096;
    if (cap > BOX_MAX)
        return -1;
    uint8_t *grown = realloc(b->data, cap);
    if (!grown)
        return 0;
    b->data = grown, b->cap = cap;
    return JxlDecoderSetBoxBuffer(dec, b->data + b->len, cap - b->len) == JXL_DEC_SUCCESS ? 1 : -1;
}

/* Ends the box being read: its bytes counted, and kept in m as its EXIF
 * (past the box's offset to the TIFF header, Orientation made 1: the
 * codestream's orientation is the one libjxl applies) or its XMP. */
static int box_end(JxlDecoder *dec, gpuimg__meta_notes *notes, box *b, gpuimg_metadata *m)
{
    if (!b->which)
        return 1;
    b->len = b->cap - JxlDecoderReleaseBoxBuffer(dec);
    int which = b->which;
    b->which = 0;
    const uint8_t *p = b->data;
    size_t n = b->len;
    if (which == 1) {
        uint32_t off = n >= 4 ? (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 |
                                    (uint32_t)p[3]
                              : 0;
        if (n < 4 || off > n - 4) {
            gpuimg__meta_dropped(notes, "EXIF (a JPEG XL Exif box with a bad offset)");
            return 1;
        }
        p += 4 + off, n -= 4 + off;
    }
    if (n == 0)
        return 1;
    uint8_t *copy = gpuimg__meta_copy(p, n);
    if (!copy)
        return 0;
    if (which == 1) {
        if (gpuimg__exif_orientation(copy, n) > 1)
            gpuimg__exif_set_orientation(copy, n, 1);
        m->exif = copy, m->exif_len = n;
    } else {
        m->xmp = copy, m->xmp_len = n;
    }
    return 1;
}

/* The pixels' ICC profile (read_icc) and the first Exif and "xml " boxes,
 * Brotli-compressed ("brob") ones decompressed. A box that does not read
 * (damaged, over 64 MiB) is dropped and noted; a damaged codestream is the
 * decoder's to report. */
static int meta_read(gpuimg__meta_notes *notes, const uint8_t *data, size_t size,
                     gpuimg_metadata *m)
{
    JxlDecoder *dec = JxlDecoderCreate(NULL);
    if (!dec)
        return 0;
    box b = {NULL, 0, 0, 0};
    int ok = 1;
    int gray = 0;
    if (JxlDecoderSubscribeEvents(dec, JXL_DEC_BASIC_INFO | JXL_DEC_COLOR_ENCODING | JXL_DEC_BOX) !=
            JXL_DEC_SUCCESS ||
        JxlDecoderSetInput(dec, data, size) != JXL_DEC_SUCCESS)
        goto done;
    JxlDecoderCloseInput(dec);
    (void)JxlDecoderSetDecompressBoxes(dec, JXL_TRUE); /* raw "brob" ones are skipped */
    for (;;) {
        JxlDecoderStatus s = JxlDecoderProcessInput(dec);
        if (s == JXL_DEC_BASIC_INFO) {
            JxlBasicInfo bi;
            gray =
                JxlDecoderGetBasicInfo(dec, &bi) == JXL_DEC_SUCCESS && bi.num_color_channels == 1;
        } else if (s == JXL_DEC_COLOR_ENCODING) {
            prefer_srgb(dec, gray);
            if (!m->icc && !(ok = read_icc(dec, m)))
                break;
        } else if (s == JXL_DEC_BOX) {
            if (!(ok = box_end(dec, notes, &b, m)))
                break;
            JxlBoxType type;
            if (JxlDecoderGetBoxType(dec, type, JXL_TRUE) != JXL_DEC_SUCCESS)
                continue;
            b.which = memcmp(type, "Exif", 4) == 0 && !m->exif  ? 1
                      : memcmp(type, "xml ", 4) == 0 && !m->xmp ? 2
                                                                : 0;
            b.len = 0;
            if (!b.which ||
                (b.cap && JxlDecoderSetBoxBuffer(dec, b.data, b.cap) == JXL_DEC_SUCCESS))
                continue;
            int room = b.cap ? -1 : box_room(dec, &b);
            if (room <= 0) {
                b.which = 0;
                if (!(ok = room == -1))
                    break;
            }
        } else if (s == JXL_DEC_BOX_NEED_MORE_OUTPUT && b.which) {
            b.len = b.cap - JxlDecoderReleaseBoxBuffer(dec);
            int room = box_room(dec, &b);
            if (room <= 0) {
                gpuimg__meta_dropped(notes, b.which == 1 ? "EXIF (a JPEG XL box over 64 MiB)"
                                                         : "XMP (a JPEG XL box over 64 MiB)");
                b.which = 0;
                if (!(ok = room == -1))
                    break;
            }
        } else if (s == JXL_DEC_SUCCESS) {
            ok = box_end(dec, notes, &b, m);
            break;
        } else {
            /* an error or a cut: a box read whole before it is kept (those
             * cut short are not) */
            if (b.which)
                JxlDecoderReleaseBoxBuffer(dec), b.which = 0;
            break;
        }
    }
done:
    JxlDecoderDestroy(dec);
    free(b.data);
    return ok;
}

static gpuimg_status decode(gpuimg_ctx *ctx, const uint8_t *data, size_t size, const char *name,
                            gpuimg_image *out)
{
    memset(out, 0, sizeof *out);
    JxlDecoder *dec = JxlDecoderCreate(NULL);
    if (!dec)
        return gpuimg__fail(ctx, GPUIMG_ERR_NOMEM, "%s: out of memory", name);
    void *runner = runner_create(ctx);
    gpuimg_status st = GPUIMG_OK;
    int channels = 0, depth = 8, taken = 0, done = 0;
    if (JxlDecoderSubscribeEvents(dec, JXL_DEC_BASIC_INFO | JXL_DEC_COLOR_ENCODING |
                                           JXL_DEC_FULL_IMAGE) != JXL_DEC_SUCCESS ||
        JxlDecoderSetKeepOrientation(dec, ctx->cfg.no_auto_orient ? JXL_TRUE : JXL_FALSE) !=
            JXL_DEC_SUCCESS ||
        /* an associated (premultiplied) alpha is given straight, as every
         * gpuimg image holds it */
        JxlDecoderSetUnpremultiplyAlpha(dec, JXL_TRUE) != JXL_DEC_SUCCESS ||
        (runner &&
         JxlDecoderSetParallelRunner(dec, JxlThreadParallelRunner, runner) != JXL_DEC_SUCCESS) ||
        JxlDecoderSetInput(dec, data, size) != JXL_DEC_SUCCESS) {
        st = gpuimg__fail(ctx, GPUIMG_ERR_INTERNAL, "%s: cannot set up libjxl's decoder", name);
        goto done;
    }
    /* the whole file is here: a codestream that asks for more is cut short */
    JxlDecoderCloseInput(dec);
    while (st == GPUIMG_OK && !done) {
        JxlDecoderStatus s = JxlDecoderProcessInput(dec);
        if (s == JXL_DEC_BASIC_INFO) {
            JxlBasicInfo b;
            if (JxlDecoderGetBasicInfo(dec, &b) != JXL_DEC_SUCCESS) {
                st = damaged(ctx, name);
            } else if ((st = shape(ctx, name, &b, &channels, &depth)) == GPUIMG_OK &&
                       (st = gpuimg__check_size(ctx, name, b.xsize, b.ysize)) == GPUIMG_OK) {
                st =
                    gpuimg__image_take_depth(ctx, out, (int)b.xsize, (int)b.ysize, channels, depth);
                if (st != GPUIMG_OK)
                    st = gpuimg__fail_as(ctx, st, name);
                taken = st == GPUIMG_OK;
            }
        } else if (s == JXL_DEC_COLOR_ENCODING) {
            prefer_srgb(dec, channels <= 2); /* the profile is meta_read's */
        } else if (s == JXL_DEC_NEED_IMAGE_OUT_BUFFER && taken) {
            JxlPixelFormat f = {(uint32_t)channels, depth == 16 ? JXL_TYPE_UINT16 : JXL_TYPE_UINT8,
                                JXL_NATIVE_ENDIAN, 0};
            size_t need = 0,
                   bytes = gpuimg__image_bytes_depth(out->width, out->height, channels, depth);
            if (JxlDecoderImageOutBufferSize(dec, &f, &need) != JXL_DEC_SUCCESS || need != bytes ||
                JxlDecoderSetImageOutBuffer(dec, &f, out->data, bytes) != JXL_DEC_SUCCESS)
                st = damaged(ctx, name);
        } else if (s == JXL_DEC_FULL_IMAGE && taken) {
            done = 1; /* a still image's one frame, every pixel of it decoded */
        } else {
            /* JXL_DEC_ERROR, JXL_DEC_NEED_MORE_INPUT after the input was
             * closed (a cut file), or success without a frame */
            st = damaged(ctx, name);
        }
    }
done:
    JxlDecoderDestroy(dec);
    if (runner)
        JxlThreadParallelRunnerDestroy(runner);
    if (st != GPUIMG_OK && taken)
        gpuimg_image_free(out);
    return st;
}

/* cjxl 0.7's distance for a JPEG-like quality (its --quality option);
 * 100 and over are lossless, the caller's. */
static float distance_of_quality(int q)
{
    if (q >= 30)
        return 0.1f + (float)(100 - q) * 0.09f;
    return 6.4f + (float)pow(2.5, (30 - q) / 5.0) / 6.25f;
}

/* Writes the encoder's output into f. */
static gpuimg_status drain(gpuimg_ctx *ctx, JxlEncoder *enc, FILE *f, const char *name)
{
    uint8_t buf[1 << 16];
    JxlEncoderStatus s;
    do {
        uint8_t *next = buf;
        size_t avail = sizeof buf;
        s = JxlEncoderProcessOutput(enc, &next, &avail);
        size_t n = (size_t)(next - buf);
        if (s != JXL_ENC_ERROR && n && (errno = 0, fwrite(buf, 1, n, f) != n))
            return gpuimg__fail(ctx, GPUIMG_ERR_IO, "%s: write failed: %s", name,
                                strerror(errno ? errno : EIO));
    } while (s == JXL_ENC_NEED_MORE_OUTPUT);
    if (s != JXL_ENC_SUCCESS)
        return gpuimg__fail(
            ctx, JxlEncoderGetError(enc) == JXL_ENC_ERR_OOM ? GPUIMG_ERR_NOMEM : GPUIMG_ERR_IO,
            "%s: cannot write JPEG XL (libjxl error %d)", name, (int)JxlEncoderGetError(enc));
    return GPUIMG_OK;
}

/* The colour: the image's profile, else sRGB (gray's for gray). A profile
 * libjxl refuses (damaged, or of another colour model) is replaced by
 * sRGB, with a warning. */
static int set_colour(gpuimg_ctx *ctx, JxlEncoder *enc, const char *name, const gpuimg__meta_out *m,
                      int gray)
{
    if (m->icc && JxlEncoderSetICCProfile(enc, m->icc, m->icc_len) == JXL_ENC_SUCCESS)
        return 1;
    if (m->icc)
        gpuimg__warn(ctx, "%s: ICC profile not taken by libjxl; written as sRGB", name);
    JxlColorEncoding e;
    JxlColorEncodingSetToSRGB(&e, gray ? JXL_TRUE : JXL_FALSE);
    return JxlEncoderSetColorEncoding(enc, &e) == JXL_ENC_SUCCESS;
}

/* The EXIF and XMP as boxes, before the codestream (a reader that stops at
 * the image still finds them): the Exif box's contents start with the
 * offset of the TIFF header, 0 here. */
static int add_boxes(JxlEncoder *enc, const gpuimg__meta_out *m)
{
    if (!m->exif && !m->xmp)
        return 1;
    if (JxlEncoderUseBoxes(enc) != JXL_ENC_SUCCESS)
        return 0;
    if (m->exif) {
        uint8_t *exif = malloc(m->exif_len + 4);
        if (!exif)
            return 0;
        memset(exif, 0, 4);
        memcpy(exif + 4, m->exif, m->exif_len);
        JxlEncoderStatus s = JxlEncoderAddBox(enc, "Exif", exif, m->exif_len + 4, JXL_FALSE);
        free(exif);
        if (s != JXL_ENC_SUCCESS)
            return 0;
    }
    if (m->xmp && JxlEncoderAddBox(enc, "xml ", m->xmp, m->xmp_len, JXL_FALSE) != JXL_ENC_SUCCESS)
        return 0;
    JxlEncoderCloseBoxes(enc);
    return 1;
}

static gpuimg_status encode(gpuimg_ctx *ctx, FILE *f, const char *name, gpuimg_format format,
                            const gpuimg_image *img)
{
    (void)format;
    gpuimg_image copy;
    const gpuimg_image *p;
    gpuimg_status st = gpuimg__image_packed(ctx, img, &copy, &p);
    if (st != GPUIMG_OK)
        return st;
    int c = p->channels, depth = gpuimg_image_depth(p);
    int lossless = ctx->cfg.lossless || ctx->cfg.jpeg_quality >= 100;
    gpuimg__meta_out m;
    gpuimg__metadata_for_output(ctx, img, &m);
    JxlEncoder *enc = JxlEncoderCreate(NULL);
    void *runner = enc ? runner_create(ctx) : NULL;
    JxlEncoderFrameSettings *fs = NULL;
    JxlBasicInfo b;
    JxlEncoderInitBasicInfo(&b);
    b.xsize = (uint32_t)p->width, b.ysize = (uint32_t)p->height;
    b.bits_per_sample = (uint32_t)depth, b.exponent_bits_per_sample = 0;
    b.num_color_channels = c >= 3 ? 3 : 1;
    b.num_extra_channels = c == 2 || c == 4;
    b.alpha_bits = b.num_extra_channels ? (uint32_t)depth : 0;
    /* lossless keeps the values in their own space (no XYB) */
    b.uses_original_profile = lossless ? JXL_TRUE : JXL_FALSE;
    b.orientation = JXL_ORIENT_IDENTITY; /* the pixels are upright */
    JxlPixelFormat pf = {(uint32_t)c, depth == 16 ? JXL_TYPE_UINT16 : JXL_TYPE_UINT8,
                         JXL_NATIVE_ENDIAN, 0};
    size_t bytes = gpuimg__image_bytes_depth(p->width, p->height, c, depth);
    if (!enc) {
        st = gpuimg__fail(ctx, GPUIMG_ERR_NOMEM, "%s: out of memory", name);
    } else if ((runner && JxlEncoderSetParallelRunner(enc, JxlThreadParallelRunner, runner) !=
                              JXL_ENC_SUCCESS) ||
               /* level 5 (the default) holds up to 2^28 pixels */
               ((uint64_t)b.xsize * b.ysize > ((uint64_t)1 << 28) &&
                JxlEncoderSetCodestreamLevel(enc, 10) != JXL_ENC_SUCCESS) ||
               JxlEncoderSetBasicInfo(enc, &b) != JXL_ENC_SUCCESS ||
               !set_colour(ctx, enc, name, &m, c <= 2) || !add_boxes(enc, &m) ||
               !(fs = JxlEncoderFrameSettingsCreate(enc, NULL)) ||
               (lossless
                    ? JxlEncoderSetFrameLossless(fs, JXL_TRUE)
                    : JxlEncoderSetFrameDistance(fs, distance_of_quality(ctx->cfg.jpeg_quality))) !=
                   JXL_ENC_SUCCESS ||
               JxlEncoderAddImageFrame(fs, &pf, p->data, bytes) != JXL_ENC_SUCCESS) {
        st = gpuimg__fail(
            ctx, JxlEncoderGetError(enc) == JXL_ENC_ERR_OOM ? GPUIMG_ERR_NOMEM : GPUIMG_ERR_IO,
            "%s: cannot write JPEG XL (libjxl error %d)", name, (int)JxlEncoderGetError(enc));
    } else {
        JxlEncoderCloseInput(enc);
        st = drain(ctx, enc, f, name);
    }
    if (enc)
        JxlEncoderDestroy(enc);
    if (runner)
        JxlThreadParallelRunnerDestroy(runner);
    free(m.exif_copy);
    if (p == &copy)
        gpuimg_image_free(&copy);
    return st;
}

#else /* GPUIMG_NO_JXL: a build without libjxl (make dist). The row stays,                         \
       * so that a JPEG XL is still recognised and named, and every read or                        \
       * write of one fails saying why. */

static gpuimg_status probe(gpuimg_ctx *ctx, const char *name, const uint8_t *data, size_t size,
                           gpuimg_file_info *out)
{
    (void)data, (void)size, (void)out;
    return gpuimg__fail(ctx, GPUIMG_ERR_DECODE,
                        "%s: this build of gpuimg has no JPEG XL support (no libjxl): it cannot "
                        "be read",
                        name);
}

static gpuimg_status decode(gpuimg_ctx *ctx, const uint8_t *data, size_t size, const char *name,
                            gpuimg_image *out)
{
    (void)out;
    return probe(ctx, name, data, size, NULL);
}

static gpuimg_status encode(gpuimg_ctx *ctx, FILE *f, const char *name, gpuimg_format format,
                            const gpuimg_image *img)
{
    (void)f, (void)format, (void)img;
    return gpuimg__fail(ctx, GPUIMG_ERR_FORMAT,
                        "%s: this build of gpuimg has no JPEG XL support (no libjxl): it cannot "
                        "be written",
                        name);
}

/* nothing read: the decoder says why */
static int meta_read(gpuimg__meta_notes *notes, const uint8_t *data, size_t size,
                     gpuimg_metadata *m)
{
    (void)notes, (void)data, (void)size, (void)m;
    return 1;
}

#endif

const gpuimg__format gpuimg__format_jxl = {
    .name = "jxl",
    .extensions = {{"jxl", GPUIMG_FORMAT_JXL}},
    .holds_16 = 1,
    .sniff = is_jxl,
    .probe = probe,
    .decode = decode,
    .encode = encode,
    .meta_read = meta_read,
    .meta_write = 1,
};
