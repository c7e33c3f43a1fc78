/* SPDX-License-Identifier: MIT */
/* gpuimg_load and gpuimg_save: whole-file reads, format choice, and atomic
 * writes (temporary file in the target folder, renamed into place). */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#ifndef GPUIMG_NO_JXL
#include <jxl/decode.h>
#endif
#ifndef GPUIMG_NO_HEIF
#include <libheif/heif.h>
#endif
#include <png.h>
#include <zlib.h>

#include "core/cms.h"
#include "io/formats.h"
#include "io/io.h"
#include "io/metadata.h"

/* Reads up to `want` more bytes into the growing buffer; 0 at end of file. */
static gpuimg_status read_more(gpuimg_ctx *ctx, FILE *f, const char *name, uint8_t **buf,
                               size_t *cap, size_t *len, size_t want, size_t *got)
{
    if (*cap - *len < want) {
        size_t bigger = *cap * 2 > *len + want ? *cap * 2 : *len + want;
        uint8_t *b = realloc(*buf, bigger);
        if (!b)
            return gpuimg__fail(ctx, GPUIMG_ERR_NOMEM, "%s: out of memory", name);
        *buf = b;
        *cap = bigger;
    }
    *got = fread(*buf + *len, 1, want, f);
    *len += *got;
    if (*got < want && ferror(f))
        return gpuimg__fail(ctx, GPUIMG_ERR_IO, "%s: %s", name, strerror(errno ? errno : EIO));
    return GPUIMG_OK;
}

#define PROBE_BYTES 65536

/* The largest file an image within --max-pixels could be: 8 bytes a pixel
 * (16-bit RGBA, uncompressed) and 64 MiB of metadata. */
static uint64_t max_file_bytes(const gpuimg_ctx *ctx)
{
    return ctx->cfg.max_pixels * 8 + (UINT64_C(64) << 20);
}

/* The largest stream the image whose first bytes are head could plausibly
 * be: 16 bytes a pixel of the size its header gives (twice the largest
 * uncompressed pixel; no codec's worst case comes near) and 64 MiB of
 * metadata, so that a FIFO or a device that goes on past its image is cut
 * off early. max_file_bytes when the header is not in head, and for the
 * formats whose size the first image does not bound (the rows without a
 * stream_size). */
static uint64_t plausible_bytes(gpuimg_ctx *ctx, const uint8_t *head, size_t len)
{
    uint64_t limit = max_file_bytes(ctx);
    const gpuimg__format *format = gpuimg__sniff(head, len);
    uint64_t width = 0, height = 0;
    char error[sizeof ctx->error];
    memcpy(error, ctx->error, sizeof error);
    if (format && format->stream_size && !format->stream_size(ctx, head, len, &width, &height))
        width = height = 0;
    memcpy(ctx->error, error, sizeof error);
    if (width && height) {
        uint64_t guess = width * height * 16 + (UINT64_C(64) << 20);
        limit = guess < limit ? guess : limit;
    }
    return limit;
}

/* Reads a whole stream, the buffer the caller's to free. The first bytes
 * must look like an image before the rest is read (so a huge or endless
 * stream of something else fails at once); a file of known size (expect)
 * was checked against max_file_bytes before, and a stream of unknown size
 * is cut off past plausible_bytes. */
static gpuimg_status read_stream(gpuimg_ctx *ctx, FILE *f, const char *name, size_t expect,
                                 uint8_t **data, size_t *size)
{
    uint8_t *buf = NULL;
    size_t cap = 0, len = 0, got;
    gpuimg_status st = read_more(ctx, f, name, &buf, &cap, &len, PROBE_BYTES, &got);
    if (st == GPUIMG_OK && len > 0 && !gpuimg__sniff(buf, len))
        st = gpuimg__fail(ctx, GPUIMG_ERR_DECODE, "%s: not a supported image (unknown format)",
                          name);
    uint64_t limit = st != GPUIMG_OK || len == 0 ? 0
                     : expect                    ? max_file_bytes(ctx)
                                                 : plausible_bytes(ctx, buf, len);
    /* A file's size, when known: the rest in one read into one buffer of
     * the right size (one byte more, to see the end), not a dozen copies as
     * the buffer doubles. */
    if (st == GPUIMG_OK && got == PROBE_BYTES && expect > len && expect <= limit)
        st = read_more(ctx, f, name, &buf, &cap, &len, expect - len + 1, &got);
    while (st == GPUIMG_OK && got > 0) {
        if (len > limit)
            st = gpuimg__fail(ctx, GPUIMG_ERR_TOO_LARGE,
                              "%s: file larger than its image could be (%llu bytes read)", name,
                              (unsigned long long)len);
        else
            st = read_more(ctx, f, name, &buf, &cap, &len, cap > len ? cap - len : cap, &got);
    }
    if (st != GPUIMG_OK) {
        free(buf);
        return st;
    }
    *data = buf;
    *size = len;
    return GPUIMG_OK;
}

void gpuimg__input_release(gpuimg_ctx *ctx, const uint8_t *data)
{
    if (ctx->input_owned && ctx->input_owned == data) {
        free(ctx->input_owned);
        ctx->input_owned = NULL;
    }
}

/* The factor a JPEG is decoded smaller by (ctx->jpeg_shrink), as the run
 * asks for the file's upright size (SPEC §3: the header and the size
 * asked alone decide). */
static void shrink_on_load(gpuimg_ctx *ctx, const gpuimg__format *format, const char *name,
                           const uint8_t *data, size_t size, const gpuimg_metadata *meta)
{
    ctx->jpeg_shrink = 1;
    gpuimg_file_info fi;
    if (!ctx->shrink_for || format != &gpuimg__format_jpeg ||
        format->probe(ctx, name, data, size, &fi) != GPUIMG_OK)
        return; /* a header the decoder then rejects says so itself */
    int turned = meta && gpuimg__turned(ctx, meta->orientation);
    int w = turned ? fi.stored_height : fi.stored_width;
    int h = turned ? fi.stored_width : fi.stored_height;
    ctx->jpeg_shrink = ctx->shrink_for(ctx->shrink_what, w, h);
    ctx->shrunk_from_w = w;
    ctx->shrunk_from_h = h;
}

/* gpuimg_load_memory; when ctx->input_owned is data, a decoder may free it
 * early (gpuimg__input_release). The metadata is parsed first, so nothing
 * reads the bytes after the decoder. */
static gpuimg_status load_bytes(gpuimg_ctx *ctx, const uint8_t *data, size_t size, const char *name,
                                gpuimg_image *out)
{
    memset(out, 0, sizeof *out);
    if (size == 0)
        return gpuimg__fail(ctx, GPUIMG_ERR_DECODE, "%s: not a supported image (empty file)", name);
    double t0 = gpuimg__now_ms();
    const gpuimg__format *format = gpuimg__sniff(data, size);
    gpuimg_metadata *meta = NULL;
    gpuimg__meta_notes notes = {0};
    gpuimg_status st =
        format ? gpuimg__metadata_parse_quiet(ctx, name, format, data, size, &meta, &notes)
               : gpuimg__fail(ctx, GPUIMG_ERR_DECODE, "%s: not a supported image (unknown format)",
                              name);
    ctx->shrunk_from_w = ctx->shrunk_from_h = 0;
    if (st == GPUIMG_OK)
        shrink_on_load(ctx, format, name, data, size, meta);
    if (st == GPUIMG_OK)
        st = format->decode(ctx, data, size, name, out);
    if (ctx->jpeg_shrink <= 1 || st != GPUIMG_OK)
        ctx->shrunk_from_w = ctx->shrunk_from_h = 0;
    ctx->jpeg_shrink = 1;
    if (st == GPUIMG_OK && meta) {
        if ((st = gpuimg__metadata_attach(ctx, name, meta, out)) != GPUIMG_OK)
            gpuimg_image_free(out);
        meta = NULL; /* the image's now */
    }
    gpuimg_metadata_free(meta);
    if (st == GPUIMG_OK && ctx->shrunk_from_w) {
        if (!out->meta && !(out->meta = calloc(1, sizeof *out->meta))) {
            gpuimg_image_free(out);
            st = gpuimg__fail(ctx, GPUIMG_ERR_NOMEM, "%s: out of memory", name);
        } else {
            if (!out->meta->orientation)
                out->meta->orientation = 1;
            out->meta->shrunk_from_width = ctx->shrunk_from_w;
            out->meta->shrunk_from_height = ctx->shrunk_from_h;
        }
    }
    /* --depth: the image at the depth asked for, so that every step runs at it */
    if (st == GPUIMG_OK && ctx->cfg.depth && ctx->cfg.depth != gpuimg_image_depth(out)) {
        gpuimg_image converted;
        st = gpuimg__image_convert_depth(ctx, out, ctx->cfg.depth, &converted);
        gpuimg_image_free(out);
        if (st == GPUIMG_OK)
            *out = converted;
        else
            gpuimg__fail_as(ctx, st, name);
    }
    /* a block dropped is told only of a file that loads: one that fails
     * says its error alone (SPEC §1) */
    if (st == GPUIMG_OK)
        gpuimg__metadata_tell(ctx, name, &notes);
    gpuimg__stage_done(ctx, GPUIMG_STAGE_DECODE, t0);
    return st;
}

gpuimg_status gpuimg_load_memory(gpuimg_ctx *ctx, const void *data, size_t size, const char *name,
                                 gpuimg_image *out)
{
    ctx->input_owned = NULL; /* the caller's bytes: never freed here */
    return load_bytes(ctx, data, size, name, out);
}

gpuimg_status gpuimg_load(gpuimg_ctx *ctx, const char *path, gpuimg_image *out)
{
    memset(out, 0, sizeof *out);
    uint8_t *data = NULL;
    size_t size = 0;
    gpuimg_status st = gpuimg__read_file(ctx, path, &data, &size);
    if (st != GPUIMG_OK)
        return st;
    st = gpuimg__load_owned(ctx, data, size, strcmp(path, "-") == 0 ? "<stdin>" : path, out);
    return st;
}

gpuimg_status gpuimg__load_owned(gpuimg_ctx *ctx, uint8_t *data, size_t size, const char *name,
                                 gpuimg_image *out)
{
    ctx->input_owned = data; /* a decoder may free them once it has read them */
    gpuimg_status st = load_bytes(ctx, data, size, name, out);
    gpuimg__input_release(ctx, data);
    return st;
}

/* The rest of a read once the file is open (f, sb its fstat): a regular
 * file too large for any image is refused unread. */
static gpuimg_status read_opened(gpuimg_ctx *ctx, FILE *f, const char *name, const struct stat *sb,
                                 uint8_t **out, size_t *out_size)
{
    *out = NULL;
    *out_size = 0;
    size_t expect = 0; /* the file's size, when it has one */
    if (sb && S_ISREG(sb->st_mode) && (uint64_t)sb->st_size > max_file_bytes(ctx))
        return gpuimg__fail(ctx, GPUIMG_ERR_TOO_LARGE,
                            "%s: file larger than any image within --max-pixels", name);
    if (sb && S_ISREG(sb->st_mode) && sb->st_size > 0)
        expect = (size_t)sb->st_size;
    double t0 = gpuimg__now_ms();
    gpuimg_status st = read_stream(ctx, f, name, expect, out, out_size);
    gpuimg__stage_done(ctx, GPUIMG_STAGE_DECODE, t0);
    return st;
}

gpuimg_status gpuimg__read_file(gpuimg_ctx *ctx, const char *path, uint8_t **out, size_t *out_size)
{
    if (strcmp(path, "-") == 0)
        return read_opened(ctx, stdin, "<stdin>", NULL, out, out_size);
    FILE *f = fopen(path, "rb");
    if (!f)
        return gpuimg__fail_errno(ctx, path);
    struct stat sb;
    gpuimg_status st = GPUIMG_OK;
    if (fstat(fileno(f), &sb) != 0)
        st = read_opened(ctx, f, path, NULL, out, out_size);
    else if (S_ISDIR(sb.st_mode))
        st = gpuimg__fail(ctx, GPUIMG_ERR_IO, "%s: is a directory", path);
    else
        st = read_opened(ctx, f, path, &sb, out, out_size);
    fclose(f);
    return st;
}

gpuimg_status gpuimg__read_folder_file(gpuimg_ctx *ctx, const char *path, size_t root_len,
                                       int strict, uint8_t **out, size_t *out_size)
{
    *out = NULL;
    *out_size = 0;
    int fd;
    struct stat sb;
    gpuimg_status st = gpuimg__open_folder_file(ctx, path, root_len, strict, &fd, &sb);
    if (st != GPUIMG_OK)
        return st;
    FILE *f = fdopen(fd, "rb");
    if (!f) {
        int e = errno;
        close(fd);
        return gpuimg__fail(ctx, GPUIMG_ERR_NOMEM, "%s: %s", path, strerror(e));
    }
    st = read_opened(ctx, f, path, &sb, out, out_size);
    fclose(f);
    return st;
}

static gpuimg_status encode(gpuimg_ctx *ctx, FILE *f, const char *name, gpuimg_format format,
                            const gpuimg_image *img)
{
    const gpuimg__format *r = gpuimg__format_writing(format, NULL);
    if (!r)
        return gpuimg__fail(ctx, GPUIMG_ERR_FORMAT, "%s: unsupported output format", name);
    return r->encode(ctx, f, name, format, img);
}

gpuimg_status gpuimg_check_output(gpuimg_ctx *ctx, const char *path, const char *input)
{
    if (strcmp(path, "-") == 0)
        return GPUIMG_OK;
    if (gpuimg_format_from_path(path) == GPUIMG_FORMAT_NONE)
        return gpuimg__fail(ctx, GPUIMG_ERR_FORMAT, "%s: unsupported output format (supported: %s)",
                            path, gpuimg_format_list());
    char folder[4096];
    gpuimg__parent_folder(path, folder, sizeof folder);
    struct stat so, si;
    if (stat(folder, &so) != 0 || !S_ISDIR(so.st_mode))
        return gpuimg__fail(ctx, GPUIMG_ERR_IO, "%s: folder %s does not exist", path, folder);
    if (stat(path, &so) == 0 && S_ISDIR(so.st_mode))
        return gpuimg__fail(ctx, GPUIMG_ERR_IO, "%s: is a directory", path);
    if (input && strcmp(input, "-") != 0 && stat(path, &so) == 0 && stat(input, &si) == 0 &&
        so.st_dev == si.st_dev && so.st_ino == si.st_ino)
        return gpuimg__fail(ctx, GPUIMG_ERR_USAGE, "%s: output would overwrite the input", path);
    return GPUIMG_OK;
}

struct encoding {
    const char *path;
    gpuimg_format format;
    const gpuimg_image *img;
};

static gpuimg_status write_encoded(gpuimg_ctx *ctx, FILE *f, void *user)
{
    struct encoding *e = user;
    return encode(ctx, f, e->path, e->format, e->img);
}

static gpuimg_status save_packed(gpuimg_ctx *ctx, const char *path, int is_stdout, const char *name,
                                 gpuimg_format format, const gpuimg_image *img, int checked)
{
    gpuimg_status st = checked ? GPUIMG_OK : gpuimg_check_output(ctx, path, NULL);
    if (st != GPUIMG_OK)
        return st;
    const gpuimg__format *writer = gpuimg__format_writing(format, NULL);
    if (writer && writer->encode_max_bytes &&
        gpuimg__image_bytes(img->width, img->height, img->channels) > writer->encode_max_bytes)
        return gpuimg__fail(ctx, GPUIMG_ERR_TOO_LARGE,
                            "%s: image too large for this format's writer (at most 2 GiB)", name);

    double t0 = gpuimg__now_ms();
    if (is_stdout) {
        st = encode(ctx, gpuimg__stdout(ctx), name, format, img);
        if (st == GPUIMG_OK && fflush(gpuimg__stdout(ctx)) != 0)
            st = gpuimg__fail_errno(ctx, name);
        gpuimg__stage_done(ctx, GPUIMG_STAGE_ENCODE, t0);
        return st;
    }

    struct encoding e = {path, format, img};
    st = gpuimg__write_atomic(ctx, path, write_encoded, &e);
    gpuimg__stage_done(ctx, GPUIMG_STAGE_ENCODE, t0);
    return st;
}

gpuimg_status gpuimg_save(gpuimg_ctx *ctx, const char *path, gpuimg_format format,
                          const gpuimg_image *img)
{
    return gpuimg__save(ctx, path, format, img, 0);
}

gpuimg_status gpuimg_encode(gpuimg_ctx *ctx, const gpuimg_image *img, gpuimg_format format,
                            uint8_t **out, size_t *len)
{
    *out = NULL;
    *len = 0;
    if (!gpuimg_format_extension(format))
        return gpuimg__fail(ctx, GPUIMG_ERR_FORMAT, "encode: not a writable format");
    char *buf;
    size_t n;
    gpuimg_status st = gpuimg__capture_begin(ctx, "<memory>", &buf, &n);
    if (st == GPUIMG_OK)
        st = gpuimg__save(ctx, "-", format, img, 1);
    return gpuimg__capture_end(ctx, st, &buf, &n, out, len);
}

gpuimg_status gpuimg__save(gpuimg_ctx *ctx, const char *path, gpuimg_format format,
                           const gpuimg_image *img, int checked)
{
    int is_stdout = strcmp(path, "-") == 0;
    const char *name = is_stdout ? gpuimg__stdout_name(ctx) : path;
    if (!is_stdout)
        format = gpuimg_format_from_path(path);
    else if (format == GPUIMG_FORMAT_NONE)
        format = GPUIMG_FORMAT_PNG;
    gpuimg_image copy; /* the encoders take packed rows */
    gpuimg_status st = gpuimg__image_packed(ctx, img, &copy, &img);
    if (st != GPUIMG_OK)
        return st;
    int want = ctx->cfg.depth ? ctx->cfg.depth : gpuimg_image_depth(img);
    if (want == 16 && !gpuimg__format_holds_16(format)) {
        want = 8;
        gpuimg__warn_once(ctx, ctx->depth_warned, "%s: 16-bit image written at 8 bits (%s holds 8)",
                          name, gpuimg_format_extension(format));
    }
    gpuimg_image converted = {0};
    if (want != gpuimg_image_depth(img)) { /* SPEC §2's conversions */
        if ((st = gpuimg__image_convert_depth(ctx, img, want, &converted)) != GPUIMG_OK) {
            gpuimg_image_free(&copy);
            return gpuimg__fail_as(ctx, st, name);
        }
        img = &converted;
    }
    st = save_packed(ctx, path, is_stdout, name, format, img, checked);
    gpuimg_image_free(&converted);
    gpuimg_image_free(&copy);
    return st;
}

/* The libraries make dist leaves out (GPUIMG_NO_HEIF, _JXL, _LCMS: Debian
 * ships no static archives of them), for `info` to name. */
#ifdef GPUIMG_NO_HEIF
#define HEIF_ABSENT ", libheif (HEIC, HEIF and AVIF)"
#else
#define HEIF_ABSENT ""
#endif
#ifdef GPUIMG_NO_JXL
#define JXL_ABSENT ", libjxl (JPEG XL)"
#else
#define JXL_ABSENT ""
#endif
#ifdef GPUIMG_NO_LCMS
#define LCMS_ABSENT ", LittleCMS (colour; CMYK files are inverted without their profile)"
#else
#define LCMS_ABSENT ""
#endif

const char *gpuimg_codec_versions(void)
{
    static char text[512];
    size_t at = (size_t)snprintf(text, sizeof text,
                                 "libpng %s, zlib %s, libdeflate, libjpeg-turbo, libtiff, libwebp",
                                 png_get_libpng_ver(NULL), zlibVersion());
#ifndef GPUIMG_NO_HEIF
    at += (size_t)snprintf(text + at, sizeof text - at, ", libheif %s", heif_get_version());
#endif
#ifndef GPUIMG_NO_JXL
    uint32_t jxl = JxlDecoderVersion();
    at += (size_t)snprintf(text + at, sizeof text - at, ", libjxl %u.%u.%u", jxl / 1000000,
                           jxl / 1000 % 1000, jxl % 1000);
#endif
#ifndef GPUIMG_NO_LCMS
    at += (size_t)snprintf(text + at, sizeof text - at, ", LittleCMS %s", gpuimg__cms_version());
#endif
    at += (size_t)snprintf(text + at, sizeof text - at,
                           ", stb_image (TGA) and stb_image_write (Debian libstb)");
    static const char absent[] = HEIF_ABSENT JXL_ABSENT LCMS_ABSENT;
    if (absent[0]) /* past the first ", " */
        snprintf(text + at, sizeof text - at, "; not in this build: %s", absent + 2);
    return text;
}
