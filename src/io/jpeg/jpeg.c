/* SPDX-License-Identifier: MIT */
/* JPEG through libjpeg-turbo: SIMD inverse DCT, colour conversion and
 * Huffman coding, several times stb's speed both ways. Writing goes
 * through its TurboJPEG API; reading through its libjpeg API, which can
 * skip rows, so that a large image is read in bands on several threads.
 *
 * Bands: each thread reads the file from the start, skips the rows above
 * its band (jpeg_skip_scanlines: entropy decoding only, no inverse DCT,
 * upsampling or colour conversion) and decodes its own. The entropy
 * decoding is about half a decode and is repeated by every band, so the
 * gain stops near 2x: at most MAX_BANDS bands, and none in a batch, whose
 * threads are busy with other files (the repeat would be pure loss there:
 * its decoders' contexts have split_files 0).
 * libjpeg reads the rows around a band's edges for the chroma upsampling,
 * so the bands join into exactly the image one pass gives.
 *
 * Reading stops at the first warning: libjpeg's answer to a truncated file
 * is a warning and grey rows, which SPEC §2 says is an error. CMYK and YCCK
 * files are read as CMYK (libjpeg turns YCCK into CMYK) and converted to RGB
 * here (SPEC §2): through the embedded CMYK profile to sRGB with LittleCMS
 * (perceptual, as jpgicc does), or without one by the naive inversion R =
 * (255 - C)(255 - K) / 255; either way with Adobe's inverted values (R = C
 * K / 255 naively) when the file has Adobe's APP14 marker, as Photoshop
 * writes them. The CMYK profile is then never written onto the RGB pixels
 * (metadata.c's gpuimg__metadata_for_output). A side over libjpeg's 65500 pixels is refused, both
 * ways: no other JPEG codec is in the program.
 *
 * Writing keeps stb_image_write's earlier choices, so files look as they did:
 * chroma subsampled 4:2:0 up to quality 90 and kept whole (4:4:4) above, as
 * ImageMagick does; alpha dropped (JPEG has none). */
#include <errno.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
/* jpeglib.h needs stdio.h's FILE and size_t first. */
#include <jpeglib.h>
/* after jpeglib.h */
#include <jerror.h>
#include <turbojpeg.h>

#include "core/cms.h"
#include "core/pool.h"
#include "io/formats.h"
#include "io/io.h"
#include "io/metadata.h"
#include "io/walk_jpeg.h"

#define MAX_BANDS 8
/* Below this many pixels, one band: threads would cost more than they save. */
#define BAND_PIXELS (4u << 20)
/* A progressive file may have any number of scans; more than TurboJPEG's
 * limit (TJFLAG_LIMITSCANS) is refused as a decompression bomb. */
#define MAX_SCANS 500

/* The identifiers of the metadata's segments: APP1 Exif, APP1 XMP, APP2
 * ICC_PROFILE (each with its NUL), read and written here. */
static const char exif_id[GPUIMG__EXIF_ID_LEN] = GPUIMG__EXIF_ID;
static const char xmp_id[] = "http://ns.adobe.com/xap/1.0/";
static const char icc_id[12] = "ICC_PROFILE";

static int is_jpeg(const uint8_t *data, size_t size)
{
    return size >= 3 && data[0] == 0xFF && data[1] == 0xD8 && data[2] == 0xFF;
}

/* One reading of the file: libjpeg's state, and where its errors go. */
typedef struct reader {
    struct jpeg_decompress_struct cinfo;
    struct jpeg_error_mgr err;
    struct jpeg_progress_mgr progress;
    jmp_buf jump;
    char message[JMSG_LENGTH_MAX];
} reader;

static void on_error(j_common_ptr cinfo)
{
    reader *r = (reader *)cinfo->client_data;
    cinfo->err->format_message(cinfo, r->message);
    longjmp(r->jump, 1);
}

/* Warnings (level -1) are errors here; trace messages are ignored. */
static void on_message(j_common_ptr cinfo, int level)
{
    if (level < 0)
        on_error(cinfo);
}

static void on_progress(j_common_ptr cinfo)
{
    j_decompress_ptr d = (j_decompress_ptr)cinfo;
    if (d->is_decompressor && d->input_scan_number > MAX_SCANS) {
        reader *r = (reader *)cinfo->client_data;
        snprintf(r->message, sizeof r->message, "more than %d scans", MAX_SCANS);
        longjmp(r->jump, 1);
    }
}

/* Sets up r on the file and reads the header; 0 with r->message on error.
 * The caller runs it inside setjmp(r->jump). */
static void open_reader(reader *r, const uint8_t *data, size_t size)
{
    r->cinfo.err = jpeg_std_error(&r->err);
    r->err.error_exit = on_error;
    r->err.emit_message = on_message;
    r->cinfo.client_data = r;
    jpeg_create_decompress(&r->cinfo);
    r->progress.progress_monitor = on_progress;
    r->cinfo.progress = &r->progress;
    jpeg_mem_src(&r->cinfo, data, (unsigned long)size);
    jpeg_read_header(&r->cinfo, TRUE);
}

typedef struct band {
    gpuimg_task task; /* first: the pool hands back its address */
    const uint8_t *data;
    size_t size;
    gpuimg_image *img;
    int y0, y1, last;
    int cmyk;   /* read as CMYK into a row of its own, then made RGB */
    void *cms;  /* ...through the file's profile (a LittleCMS transform), or NULL */
    int shrink; /* 1, or DCT scaling by 1/2, 1/4 or 1/8 (shrink on load) */
    int failed;
    char message[JMSG_LENGTH_MAX];
} band;

/* One row of CMYK (inverted: Adobe's convention) to RGB. */
static void cmyk_to_rgb(const uint8_t *cmyk, uint8_t *rgb, int width, int inverted)
{
    for (int x = 0; x < width; x++, cmyk += 4, rgb += 3) {
        unsigned k = inverted ? cmyk[3] : 255u - cmyk[3];
        for (int c = 0; c < 3; c++) {
            unsigned v = inverted ? cmyk[c] : 255u - cmyk[c];
            rgb[c] = (uint8_t)((v * k + 127) / 255);
        }
    }
}

static void read_band(gpuimg_task *task)
{
    band *b = (band *)task;
    reader *r = calloc(1, sizeof *r);
    if (!r) {
        b->failed = 1;
        snprintf(b->message, sizeof b->message, "out of memory");
        return;
    }
    /* volatile: read after a longjmp back here */
    int volatile created = 0;
    if (setjmp(r->jump)) {
        b->failed = 1;
        snprintf(b->message, sizeof b->message, "%s", r->message);
    } else {
        created = 1;
        open_reader(r, b->data, b->size);
        r->cinfo.out_color_space = b->cmyk                 ? JCS_CMYK
                                   : b->img->channels == 1 ? JCS_GRAYSCALE
                                                           : JCS_RGB;
        r->cinfo.scale_num = 1;
        r->cinfo.scale_denom = (unsigned)b->shrink;
        jpeg_start_decompress(&r->cinfo);
        if (b->y0 > 0)
            jpeg_skip_scanlines(&r->cinfo, (JDIMENSION)b->y0);
        size_t stride = (size_t)b->img->width * (size_t)b->img->channels;
        JSAMPROW cmyk = b->cmyk
                            ? (*r->cinfo.mem->alloc_sarray)((j_common_ptr)&r->cinfo, JPOOL_IMAGE,
                                                            r->cinfo.output_width * 4, 1)[0]
                            : NULL;
        while ((int)r->cinfo.output_scanline < b->y1) {
            uint8_t *dst = b->img->data + (size_t)r->cinfo.output_scanline * stride;
            JSAMPROW row = cmyk ? cmyk : dst;
            jpeg_read_scanlines(&r->cinfo, &row, 1);
            if (cmyk && b->cms)
                gpuimg__cms_rows(b->cms, cmyk, dst, (size_t)b->img->width);
            else if (cmyk)
                cmyk_to_rgb(cmyk, dst, b->img->width, r->cinfo.saw_Adobe_marker);
        }
        if (b->last) /* reads on to the end marker: a cut after the pixels still fails */
            jpeg_finish_decompress(&r->cinfo);
    }
    if (created)
        jpeg_destroy_decompress(&r->cinfo);
    free(r);
}

static int meta_read(gpuimg__meta_notes *notes, const uint8_t *data, size_t size,
                     gpuimg_metadata *m);

/* The transform of a CMYK file's embedded profile to sRGB, or NULL: no
 * profile, one LittleCMS cannot use, or no memory (the naive inversion). */
static void *cmyk_profile(const uint8_t *data, size_t size, int adobe)
{
    gpuimg_metadata m = {0};
    gpuimg__meta_notes notes = {0};
    void *t = NULL;
    if (meta_read(&notes, data, size, &m) && m.icc)
        t = gpuimg__cms_cmyk_to_srgb(m.icc, m.icc_len, adobe, 8);
    free(m.icc);
    free(m.exif);
    free(m.xmp);
    free(m.png_colour);
    return t;
}

static gpuimg_status jpeg_failed(gpuimg_ctx *ctx, const char *name, const char *why)
{
    if (strstr(why, "Premature end"))
        return gpuimg__fail(ctx, GPUIMG_ERR_DECODE, "%s: not a supported image (truncated JPEG)",
                            name);
    return gpuimg__fail(ctx, GPUIMG_ERR_DECODE, "%s: not a supported image (damaged JPEG: %s)",
                        name, why);
}

gpuimg_status gpuimg__decode_jpeg(gpuimg_ctx *ctx, const uint8_t *data, size_t size,
                                  const char *name, gpuimg_image *out)
{
    return gpuimg__decode_jpeg_bands(ctx, data, size, name, out, 0);
}

/* want 0: as many bands as the image's size and the context's own pool warrant. */
gpuimg_status gpuimg__decode_jpeg_bands(gpuimg_ctx *ctx, const uint8_t *data, size_t size,
                                        const char *name, gpuimg_image *out, int want)
{
    /* The header, read once here for the size and colour space. */
    reader *r = calloc(1, sizeof *r);
    if (!r)
        return gpuimg__fail(ctx, GPUIMG_ERR_NOMEM, "%s: out of memory", name);
    int volatile created = 0;
    if (setjmp(r->jump)) {
        gpuimg_status st =
            r->err.msg_code == JERR_IMAGE_TOO_BIG
                ? gpuimg__fail(ctx, GPUIMG_ERR_TOO_LARGE,
                               "%s: image too large (a JPEG side over %d pixels, libjpeg's limit)",
                               name, (int)JPEG_MAX_DIMENSION)
                : jpeg_failed(ctx, name, r->message);
        if (created)
            jpeg_destroy_decompress(&r->cinfo);
        free(r);
        return st;
    }
    created = 1;
    open_reader(r, data, size);
    J_COLOR_SPACE space = r->cinfo.jpeg_color_space;
    /* --max-pixels and the side limit hold for the file's size, whatever
     * size it is decoded at */
    uint64_t file_w = r->cinfo.image_width, file_h = r->cinfo.image_height;
    /* shrink on load: libjpeg-turbo's DCT scaling, the size it gives */
    int shrink = ctx->jpeg_shrink > 1 ? ctx->jpeg_shrink : 1;
    r->cinfo.scale_num = 1;
    r->cinfo.scale_denom = (unsigned)shrink;
    jpeg_calc_output_dimensions(&r->cinfo);
    uint64_t w = r->cinfo.output_width, h = r->cinfo.output_height;
    int adobe = r->cinfo.saw_Adobe_marker;
    jpeg_destroy_decompress(&r->cinfo);
    free(r);
    int cmyk = space == JCS_CMYK || space == JCS_YCCK;
    void *cms = cmyk ? cmyk_profile(data, size, adobe) : NULL;
    gpuimg_status st = gpuimg__check_size(ctx, name, file_w, file_h);
    if (st == GPUIMG_OK && (st = gpuimg__image_take(ctx, out, (int)w, (int)h,
                                                    space == JCS_GRAYSCALE ? 1 : 3)) != GPUIMG_OK)
        st = gpuimg__fail_as(ctx, st, name);
    if (st != GPUIMG_OK) {
        gpuimg__cms_free(cms);
        return st;
    }

    int nbands = 1;
    gpuimg_pool *pool = NULL;
    if (shrink > 1) {
        /* one band: a scaled decode is a fraction of the work, and a band
         * that starts by skipping scanlines of a scaled 4:2:0 file is not
         * one whose rows this code has been shown to get right */
    } else if (want > 0) {
        nbands = want > MAX_BANDS ? MAX_BANDS : want > (int)h ? (int)h : want;
    } else if (w * h >= BAND_PIXELS && ctx->split_files && (pool = gpuimg__ctx_pool(ctx))) {
        nbands = gpuimg__pool_workers(pool) + 1;
        nbands = nbands > MAX_BANDS ? MAX_BANDS : nbands;
    }
    if (nbands == 1)
        pool = NULL; /* the one band runs here, now */
    band bands[MAX_BANDS];
    for (int k = 0; k < nbands; k++) {
        bands[k] = (band){.task.run = read_band,
                          .data = data,
                          .size = size,
                          .img = out,
                          .y0 = (int)(h * (uint64_t)k / (uint64_t)nbands),
                          .y1 = (int)(h * (uint64_t)(k + 1) / (uint64_t)nbands),
                          .last = k == nbands - 1,
                          .cmyk = cmyk,
                          .cms = cms,
                          .shrink = shrink};
        gpuimg__pool_piece(pool, &bands[k].task);
    }
    int bad = -1;
    for (int k = 0; k < nbands; k++) {
        gpuimg__pool_wait(pool, &bands[k].task);
        if (bands[k].failed && bad < 0)
            bad = k;
    }
    gpuimg__cms_free(cms);
    if (bad >= 0) {
        gpuimg_image_free(out);
        return jpeg_failed(ctx, name, bands[bad].message);
    }
    return GPUIMG_OK;
}

/* One APPn segment: the marker, its length, id then body (at most 65533
 * bytes together). 1, or 0 with errno. */
static int write_segment(FILE *f, int marker, const void *id, size_t id_len, const uint8_t *body,
                         size_t len)
{
    size_t n = id_len + len + 2;
    uint8_t head[4] = {0xFF, (uint8_t)marker, (uint8_t)(n >> 8), (uint8_t)n};
    return fwrite(head, 1, 4, f) == 4 && fwrite(id, 1, id_len, f) == id_len &&
           (len == 0 || fwrite(body, 1, len, f) == len);
}

#define SEGMENT_MAX 65533 /* a segment's bytes after its length field */

/* The compressed stream with the metadata's segments after SOI (and after
 * the JFIF APP0 when there is one): APP1 Exif, APP1 XMP, APP2 ICC_PROFILE in
 * numbered chunks. A block too large for JPEG's segments is left out with a
 * warning (EXIF over 64 KiB, XMP without the extended form). */
static int write_with_metadata(gpuimg_ctx *ctx, FILE *f, const char *name, const uint8_t *jpeg,
                               size_t len, const gpuimg_image *img)
{
    gpuimg__meta_out m;
    gpuimg__metadata_for_output(ctx, img, &m);
    size_t head = 2; /* SOI, and the JFIF APP0 that TurboJPEG writes first */
    if (len > 6 && jpeg[2] == 0xFF && jpeg[3] == 0xE0)
        head = 4 + ((size_t)jpeg[4] << 8 | jpeg[5]);
    int ok = head < len && fwrite(jpeg, 1, head, f) == head;
    if (ok && m.exif && m.exif_len + sizeof exif_id > SEGMENT_MAX)
        gpuimg__warn(ctx, "%s: EXIF of %zu bytes is too large for JPEG; left out", name,
                     m.exif_len);
    else if (ok && m.exif)
        ok = write_segment(f, 0xE1, exif_id, sizeof exif_id, m.exif, m.exif_len);
    if (ok && m.xmp && m.xmp_len + sizeof xmp_id > SEGMENT_MAX)
        gpuimg__warn(ctx, "%s: XMP of %zu bytes is too large for one JPEG segment; left out", name,
                     m.xmp_len);
    else if (ok && m.xmp)
        ok = write_segment(f, 0xE1, xmp_id, sizeof xmp_id, m.xmp, m.xmp_len);
    size_t per = SEGMENT_MAX - sizeof icc_id - 2, chunks = m.icc ? (m.icc_len + per - 1) / per : 0;
    if (ok && chunks > 255)
        gpuimg__warn(ctx, "%s: ICC profile of %zu bytes is too large for JPEG; left out", name,
                     m.icc_len);
    for (size_t k = 0; ok && chunks <= 255 && k < chunks; k++) {
        uint8_t id[sizeof icc_id + 2];
        memcpy(id, icc_id, sizeof icc_id);
        id[sizeof icc_id] = (uint8_t)(k + 1);
        id[sizeof icc_id + 1] = (uint8_t)chunks;
        size_t at = k * per, n = m.icc_len - at < per ? m.icc_len - at : per;
        ok = write_segment(f, 0xE2, id, sizeof id, m.icc + at, n);
    }
    free(m.exif_copy);
    return ok && fwrite(jpeg + head, 1, len - head, f) == len - head;
}

gpuimg_status gpuimg__encode_jpeg(gpuimg_ctx *ctx, FILE *f, const char *name,
                                  const gpuimg_image *img)
{
    int w = img->width, h = img->height, c = img->channels, q = ctx->cfg.jpeg_quality;
    if (w > JPEG_MAX_DIMENSION || h > JPEG_MAX_DIMENSION)
        return gpuimg__fail(ctx, GPUIMG_ERR_TOO_LARGE,
                            "%s: image too large for JPEG (%dx%d; a side may be at most %d pixels, "
                            "libjpeg's limit)",
                            name, w, h, (int)JPEG_MAX_DIMENSION);
    const uint8_t *pixels = img->data;
    uint8_t *gray = NULL;
    if (c == 2) { /* gray + alpha: TurboJPEG has no such layout, so the gray alone */
        size_t n = (size_t)w * (size_t)h;
        if (!(gray = malloc(n)))
            return gpuimg__fail(ctx, GPUIMG_ERR_NOMEM, "%s: out of memory", name);
        for (size_t i = 0; i < n; i++)
            gray[i] = img->data[2 * i];
        pixels = gray;
    }
    static const int formats[5] = {0, TJPF_GRAY, TJPF_GRAY, TJPF_RGB, TJPF_RGBA};
    int samp = c <= 2 ? TJSAMP_GRAY : q <= 90 ? TJSAMP_420 : TJSAMP_444;
    tjhandle tj = tjInitCompress();
    unsigned char *jpeg = NULL;
    unsigned long len = 0;
    gpuimg_status st = GPUIMG_OK;
    if (!tj) {
        st = gpuimg__fail(ctx, GPUIMG_ERR_NOMEM, "%s: out of memory", name);
    } else if (tjCompress2(tj, pixels, w, c == 2 ? w : w * c, h, formats[c], &jpeg, &len, samp, q,
                           0) != 0) {
        st = gpuimg__fail(ctx, GPUIMG_ERR_IO, "%s: cannot write JPEG (%s)", name,
                          tjGetErrorStr2(tj));
    } else if ((errno = 0, !write_with_metadata(ctx, f, name, jpeg, len, img))) {
        st = gpuimg__fail(ctx, GPUIMG_ERR_IO, "%s: write failed: %s", name,
                          strerror(errno ? errno : EIO));
    }
    tjFree(jpeg);
    if (tj)
        tjDestroy(tj);
    free(gray);
    return st;
}

struct jpeg_bytes {
    const char *name;
    const uint8_t *jpeg;
    size_t len;
    const gpuimg_image *hdr;
};

static gpuimg_status write_jpeg_bytes(gpuimg_ctx *ctx, FILE *f, void *user)
{
    struct jpeg_bytes *b = user;
    errno = 0;
    if (!write_with_metadata(ctx, f, b->name, b->jpeg, b->len, b->hdr))
        return gpuimg__fail(ctx, GPUIMG_ERR_IO, "%s: write failed: %s", b->name,
                            strerror(errno ? errno : EIO));
    return GPUIMG_OK;
}

gpuimg_status gpuimg__save_jpeg_bytes(gpuimg_ctx *ctx, const char *path, const uint8_t *jpeg,
                                      size_t len, const gpuimg_image *hdr, int checked)
{
    int is_stdout = strcmp(path, "-") == 0;
    struct jpeg_bytes b = {is_stdout ? gpuimg__stdout_name(ctx) : path, jpeg, len, hdr};
    double t0 = gpuimg__now_ms();
    gpuimg_status st = GPUIMG_OK;
    if (is_stdout) {
        FILE *f = gpuimg__stdout(ctx);
        if ((st = write_jpeg_bytes(ctx, f, &b)) == GPUIMG_OK && fflush(f) != 0)
            st = gpuimg__fail_errno(ctx, b.name);
    } else if (checked || (st = gpuimg_check_output(ctx, path, NULL)) == GPUIMG_OK) {
        st = gpuimg__write_atomic(ctx, path, write_jpeg_bytes, &b);
    }
    gpuimg__stage_done(ctx, GPUIMG_STAGE_ENCODE, t0);
    return st;
}

static gpuimg_status probe(gpuimg_ctx *ctx, const char *name, const uint8_t *d, size_t n,
                           gpuimg_file_info *o)
{
    gpuimg__jpeg_segment seg;
    for (size_t pos = 2;
         gpuimg__jpeg_next(d, n, &pos, &seg) && seg.marker != 0xDA && seg.marker != 0xD9;) {
        if (gpuimg__jpeg_is_sof(seg.marker)) {
            if (seg.len < 6)
                break;
            const uint8_t *f = seg.body;
            o->depth = f[0];
            o->stored_height = f[1] << 8 | f[2];
            o->stored_width = f[3] << 8 | f[4];
            o->channels = f[5] == 1 ? 1 : 3; /* CMYK and YCCK are read as RGB */
            return GPUIMG_OK;
        }
    }
    return gpuimg__fail(ctx, GPUIMG_ERR_DECODE, "%s: not a supported image (no JPEG frame header)",
                        name);
}

/* APP1 Exif, APP1 XMP and APP2 ICC_PROFILE; the first of each kind. */
static int meta_read(gpuimg__meta_notes *notes, const uint8_t *data, size_t size,
                     gpuimg_metadata *m)
{
    /* ICC chunks: numbered 1..count, any order; gathered, then joined */
    const uint8_t *icc_part[256] = {0};
    size_t icc_len[256] = {0};
    int icc_count = 0;
    gpuimg__jpeg_segment seg;
    for (size_t pos = 2; gpuimg__jpeg_next(data, size, &pos, &seg);) {
        uint8_t marker = seg.marker;
        if (marker == 0xDA || marker == 0xD9) /* start of scan, end: no more headers */
            break;
        const uint8_t *body = seg.body;
        size_t n = seg.len;
        if (marker == 0xE1 && n > 6 && memcmp(body, exif_id, 6) == 0 && !m->exif) {
            if (!(m->exif = gpuimg__meta_copy(body + 6, n - 6)))
                return 0;
            m->exif_len = n - 6;
        } else if (marker == 0xE1 && n > sizeof xmp_id &&
                   memcmp(body, xmp_id, sizeof xmp_id) == 0 && !m->xmp) {
            if (!(m->xmp = gpuimg__meta_copy(body + sizeof xmp_id, n - sizeof xmp_id)))
                return 0;
            m->xmp_len = n - sizeof xmp_id;
        } else if (marker == 0xE2 && n > 14 && memcmp(body, icc_id, 12) == 0) {
            int seq = body[12], count = body[13];
            if (seq < 1 || seq > count || (icc_count && count != icc_count) || icc_part[seq]) {
                gpuimg__meta_dropped(notes, "ICC profile (its APP2 chunks do not number up)");
                icc_count = -1;
            } else if (icc_count >= 0) {
                icc_count = count;
                icc_part[seq] = body + 14;
                icc_len[seq] = n - 14;
            }
        }
    }
    if (icc_count > 0) {
        size_t total = 0;
        int whole = 1;
        for (int s = 1; s <= icc_count; s++) {
            whole &= icc_part[s] != NULL;
            total += icc_len[s];
        }
        if (!whole) {
            gpuimg__meta_dropped(notes, "ICC profile (an APP2 chunk is missing)");
        } else if (total > 0) {
            if (!(m->icc = malloc(total)))
                return 0;
            for (int s = 1; s <= icc_count; s++) {
                memcpy(m->icc + m->icc_len, icc_part[s], icc_len[s]);
                m->icc_len += icc_len[s];
            }
        }
    }
    return 1;
}

static gpuimg_status encode(gpuimg_ctx *ctx, FILE *f, const char *name, gpuimg_format format,
                            const gpuimg_image *img)
{
    (void)format;
    return gpuimg__encode_jpeg(ctx, f, name, img);
}

const gpuimg__format gpuimg__format_jpeg = {
    .name = "jpeg",
    .extensions = {{"jpg", GPUIMG_FORMAT_JPEG}, {"jpeg", GPUIMG_FORMAT_JPEG}},
    .sniff = is_jpeg,
    .probe = probe,
    .stream_size = gpuimg__stream_size_of_header,
    .decode = gpuimg__decode_jpeg,
    .encode = encode,
    .meta_read = meta_read,
    .meta_write = 1,
};
