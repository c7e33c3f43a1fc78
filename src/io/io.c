/* SPDX-License-Identifier: MIT */
/* gpuimg_load and gpuimg_save: whole-file reads, format choice, and atomic
 * writes (temporary file in the target folder, renamed into place). */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <png.h>
#include <zlib.h>

#include "io/io.h"
#include "io/metadata.h"

/* The format table: every format a file may be, by extension and by
 * signature, what it holds when written, its decoder and its encoder. The
 * extension lists, batch's choice of files and of output names, --format
 * and the messages that list formats all come from here. */
typedef gpuimg_status (*decode_fn)(gpuimg_ctx *ctx, const uint8_t *data, size_t size,
                                   const char *name, gpuimg_image *out);
typedef gpuimg_status (*encode_fn)(gpuimg_ctx *ctx, FILE *f, const char *name, gpuimg_format format,
                                   const gpuimg_image *img);

static gpuimg_status encode_png(gpuimg_ctx *ctx, FILE *f, const char *name, gpuimg_format format,
                                const gpuimg_image *img)
{
    (void)format;
    return gpuimg__encode_png(ctx, f, name, img);
}

static gpuimg_status encode_jpeg(gpuimg_ctx *ctx, FILE *f, const char *name, gpuimg_format format,
                                 const gpuimg_image *img)
{
    (void)format;
    return gpuimg__encode_jpeg(ctx, f, name, img);
}

static const struct format_row {
    const char *extensions[3]; /* the first is the one written */
    gpuimg__codec codec;       /* how a file is recognized and read */
    decode_fn decode;
    gpuimg_format format; /* NONE: read only */
    encode_fn encode;
    /* a read-only format's files are written, by batch, in this one */
    gpuimg_format written_as;
} formats[] = {
    {{"png"}, GPUIMG__CODEC_PNG, gpuimg__decode_png, GPUIMG_FORMAT_PNG, encode_png, 0},
    {{"jpg", "jpeg"}, GPUIMG__CODEC_JPEG, gpuimg__decode_jpeg, GPUIMG_FORMAT_JPEG, encode_jpeg, 0},
    {{"bmp"}, GPUIMG__CODEC_BMP, gpuimg__decode_bmp, GPUIMG_FORMAT_BMP, gpuimg__encode_stb, 0},
    {{"tga"}, GPUIMG__CODEC_TGA, gpuimg__decode_tga, GPUIMG_FORMAT_TGA, gpuimg__encode_stb, 0},
    {{"ppm"}, GPUIMG__CODEC_PNM, gpuimg__decode_pnm, GPUIMG_FORMAT_PPM, gpuimg__encode_pnm, 0},
    {{"pgm"}, GPUIMG__CODEC_PNM, gpuimg__decode_pnm, GPUIMG_FORMAT_PGM, gpuimg__encode_pnm, 0},
    {{"webp"}, GPUIMG__CODEC_WEBP, gpuimg__decode_webp, GPUIMG_FORMAT_WEBP, gpuimg__encode_webp, 0},
    {{"tif", "tiff"},
     GPUIMG__CODEC_TIFF,
     gpuimg__decode_tiff,
     GPUIMG_FORMAT_TIFF,
     gpuimg__encode_tiff,
     0},
    {{"pnm"}, GPUIMG__CODEC_PNM, gpuimg__decode_pnm, GPUIMG_FORMAT_NONE, NULL, GPUIMG_FORMAT_PPM},
    {{"gif"}, GPUIMG__CODEC_GIF, gpuimg__decode_gif, GPUIMG_FORMAT_NONE, NULL, GPUIMG_FORMAT_PNG},
    {{"psd"}, GPUIMG__CODEC_PSD, gpuimg__decode_psd, GPUIMG_FORMAT_NONE, NULL, GPUIMG_FORMAT_PNG},
};
#define NFORMATS (sizeof formats / sizeof formats[0])

/* The row of an extension (no dot), or NULL. */
static const struct format_row *row_of_extension(const char *ext)
{
    for (size_t i = 0; i < NFORMATS; i++)
        for (int k = 0; k < 3 && formats[i].extensions[k]; k++)
            if (strcasecmp(ext, formats[i].extensions[k]) == 0)
                return &formats[i];
    return NULL;
}

static const struct format_row *row_of_format(gpuimg_format f)
{
    for (size_t i = 0; i < NFORMATS; i++)
        if (f != GPUIMG_FORMAT_NONE && formats[i].format == f)
            return &formats[i];
    return NULL;
}

/* A path's extension, or NULL: none in its last component. */
static const char *extension(const char *path)
{
    const char *slash = strrchr(path, '/');
    const char *dot = strrchr(slash ? slash + 1 : path, '.');
    return dot ? dot + 1 : NULL;
}

gpuimg_format gpuimg_format_from_name(const char *name)
{
    const struct format_row *r = row_of_extension(name);
    return r ? r->format : GPUIMG_FORMAT_NONE;
}

gpuimg_format gpuimg_format_from_path(const char *path)
{
    const char *ext = extension(path);
    return ext ? gpuimg_format_from_name(ext) : GPUIMG_FORMAT_NONE;
}

/* The extensions of the rows that pass, ", "-separated, into text. */
static void list_extensions(char *text, size_t len, int written)
{
    size_t at = 0;
    text[0] = '\0';
    for (size_t i = 0; i < NFORMATS; i++)
        for (int k = 0; k < 3 && formats[i].extensions[k]; k++)
            if (!written || formats[i].format != GPUIMG_FORMAT_NONE)
                at += (size_t)snprintf(text + at, at < len ? len - at : 0, "%s%s", at ? ", " : "",
                                       formats[i].extensions[k]);
}

const char *gpuimg_format_list(void)
{
    static char text[128];
    list_extensions(text, sizeof text, 1);
    return text;
}

const char *gpuimg_format_read_list(void)
{
    static char text[128];
    list_extensions(text, sizeof text, 0);
    return text;
}

int gpuimg_is_image_path(const char *path)
{
    const char *slash = strrchr(path, '/'), *ext = extension(path);
    if ((slash ? slash[1] : path[0]) == '.') /* hidden files, our own temporaries among them */
        return 0;
    return ext && row_of_extension(ext);
}

const char *gpuimg_format_extension(gpuimg_format format)
{
    const struct format_row *r = row_of_format(format);
    return r ? r->extensions[0] : NULL;
}

gpuimg_format gpuimg_format_written_for(const char *path)
{
    const char *ext = extension(path);
    const struct format_row *r = ext ? row_of_extension(ext) : NULL;
    return !r ? GPUIMG_FORMAT_NONE : r->format != GPUIMG_FORMAT_NONE ? r->format : r->written_as;
}

gpuimg__codec gpuimg__sniff(const uint8_t *p, size_t n)
{
    if (gpuimg__is_png(p, n))
        return GPUIMG__CODEC_PNG;
    if (gpuimg__is_jpeg(p, n))
        return GPUIMG__CODEC_JPEG;
    /* P2, P3 (plain) and P5, P6 (binary) PGM and PPM; PBM and PAM are not read */
    if (n >= 3 && p[0] == 'P' && strchr("2356", p[1]) && p[1] &&
        (p[2] == ' ' || (p[2] >= '\t' && p[2] <= '\r') || p[2] == '#'))
        return GPUIMG__CODEC_PNM;
    if (n >= 2 && p[0] == 'B' && p[1] == 'M')
        return GPUIMG__CODEC_BMP;
    if (n >= 6 && (memcmp(p, "GIF87a", 6) == 0 || memcmp(p, "GIF89a", 6) == 0))
        return GPUIMG__CODEC_GIF;
    if (n >= 4 && memcmp(p, "8BPS", 4) == 0)
        return GPUIMG__CODEC_PSD;
    if (gpuimg__is_webp(p, n))
        return GPUIMG__CODEC_WEBP;
    if (gpuimg__is_tiff(p, n))
        return GPUIMG__CODEC_TIFF;
    if (gpuimg__tga_plausible(p, n))
        return GPUIMG__CODEC_TGA;
    return GPUIMG__CODEC_NONE;
}

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

/* An APNG: an acTL chunk before the first IDAT, among the chunks in head. */
static int png_animated(const uint8_t *p, size_t n)
{
    for (size_t pos = 8; pos + 8 <= n; pos += 12 + (size_t)gpuimg__be32(p + pos)) {
        if (memcmp(p + pos + 4, "acTL", 4) == 0)
            return 1;
        if (memcmp(p + pos + 4, "IDAT", 4) == 0 || gpuimg__be32(p + pos) > n)
            break;
    }
    return 0;
}

/* The largest stream the image whose first bytes are head could plausibly
 * be: 16 bytes a pixel of the size its header gives (twice the largest
 * uncompressed pixel; no codec's worst case comes near) and 64 MiB of
 * metadata, so that a FIFO or a device that goes on past its image is cut
 * off early. max_file_bytes when the header is not in head, and for the
 * formats whose size the first image does not bound (TIFF pages, GIF,
 * WebP and APNG frames, PSD layers, plain PNM's whitespace). */
static uint64_t plausible_bytes(gpuimg_ctx *ctx, const uint8_t *head, size_t len)
{
    uint64_t limit = max_file_bytes(ctx);
    gpuimg__codec codec = gpuimg__sniff(head, len);
    /* binary PNM (P5, P6), BMP, TGA, JPEG, PNG: one image, its size bounded;
     * not plain PNM (any whitespace), PSD (layers), nor APNG's frames */
    int bounded = codec == GPUIMG__CODEC_BMP || codec == GPUIMG__CODEC_TGA ||
                  codec == GPUIMG__CODEC_JPEG ||
                  (codec == GPUIMG__CODEC_PNM && (head[1] == '5' || head[1] == '6')) ||
                  (codec == GPUIMG__CODEC_PNG && !png_animated(head, len));
    uint64_t width = 0, height = 0;
    gpuimg_file_info info;
    gpuimg__pnm_head pnm;
    char error[sizeof ctx->error];
    memcpy(error, ctx->error, sizeof error);
    if (bounded && codec == GPUIMG__CODEC_PNM) { /* its header alone: the raster is past head */
        if (gpuimg__pnm_header(ctx, head, len, "", 0, &pnm) == GPUIMG_OK)
            width = pnm.width, height = pnm.height;
    } else if (bounded && gpuimg__probe_header(ctx, head, len, &info)) {
        width = (uint64_t)(info.stored_width > 0 ? info.stored_width : 0);
        height = (uint64_t)(info.stored_height > 0 ? info.stored_height : 0);
    }
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
    if (st == GPUIMG_OK && len > 0 && gpuimg__sniff(buf, len) == GPUIMG__CODEC_NONE)
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
    gpuimg__codec codec = gpuimg__sniff(data, size);
    size_t i = 0;
    while (i < NFORMATS && formats[i].codec != codec)
        i++;
    gpuimg_metadata *meta = NULL;
    gpuimg__meta_notes notes;
    gpuimg_status st =
        i < NFORMATS ? gpuimg__metadata_parse_quiet(ctx, name, codec, data, size, &meta, &notes)
                     : gpuimg__fail(ctx, GPUIMG_ERR_DECODE,
                                    "%s: not a supported image (unknown format)", name);
    if (st == GPUIMG_OK)
        st = formats[i].decode(ctx, data, size, name, out);
    if (st == GPUIMG_OK && meta) {
        if ((st = gpuimg__metadata_attach(ctx, name, meta, out)) != GPUIMG_OK)
            gpuimg_image_free(out);
        meta = NULL; /* the image's now */
    }
    gpuimg_metadata_free(meta);
    /* --depth: the image at the depth asked for, so that every step runs at it */
    if (st == GPUIMG_OK && ctx->cfg.depth && ctx->cfg.depth != gpuimg_image_depth(out)) {
        gpuimg_image converted;
        st = gpuimg__image_convert_depth(ctx, out, ctx->cfg.depth, &converted);
        gpuimg_image_free(out);
        if (st == GPUIMG_OK)
            *out = converted;
        else
            gpuimg__fail(ctx, st, "%s: %s", name, gpuimg_strerror(st));
    }
    /* a block dropped is told only of a file that loads: one that fails
     * says its error alone (SPEC §1) */
    if (st == GPUIMG_OK)
        gpuimg__metadata_tell(ctx, name, &notes);
    ctx->stage_ms[GPUIMG_STAGE_DECODE] += gpuimg__now_ms() - t0;
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
    ctx->stage_ms[GPUIMG_STAGE_DECODE] += gpuimg__now_ms() - t0;
    return st;
}

gpuimg_status gpuimg__read_file(gpuimg_ctx *ctx, const char *path, uint8_t **out, size_t *out_size)
{
    if (strcmp(path, "-") == 0)
        return read_opened(ctx, stdin, "<stdin>", NULL, out, out_size);
    FILE *f = fopen(path, "rb");
    if (!f)
        return gpuimg__fail(ctx, GPUIMG_ERR_IO, "%s: %s", path, strerror(errno));
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

int gpuimg__format_holds_16(gpuimg_format format)
{
    return format == GPUIMG_FORMAT_PNG || format == GPUIMG_FORMAT_PPM ||
           format == GPUIMG_FORMAT_PGM || format == GPUIMG_FORMAT_TIFF;
}

static gpuimg_status encode(gpuimg_ctx *ctx, FILE *f, const char *name, gpuimg_format format,
                            const gpuimg_image *img)
{
    const struct format_row *r = row_of_format(format);
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
                                 gpuimg_format format, const gpuimg_image *img)
{
    gpuimg_status st = gpuimg_check_output(ctx, path, NULL);
    if (st != GPUIMG_OK)
        return st;
    /* stb_image_write indexes with int */
    if ((format == GPUIMG_FORMAT_BMP || format == GPUIMG_FORMAT_TGA) &&
        gpuimg__image_bytes(img->width, img->height, img->channels) > INT_MAX)
        return gpuimg__fail(ctx, GPUIMG_ERR_TOO_LARGE,
                            "%s: image too large for this format's writer (at most 2 GiB)", name);

    double t0 = gpuimg__now_ms();
    if (is_stdout) {
        st = encode(ctx, stdout, name, format, img);
        if (st == GPUIMG_OK && fflush(stdout) != 0)
            st = gpuimg__fail(ctx, GPUIMG_ERR_IO, "%s: %s", name, strerror(errno));
        ctx->stage_ms[GPUIMG_STAGE_ENCODE] += gpuimg__now_ms() - t0;
        return st;
    }

    struct encoding e = {path, format, img};
    st = gpuimg__write_atomic(ctx, path, write_encoded, &e);
    ctx->stage_ms[GPUIMG_STAGE_ENCODE] += gpuimg__now_ms() - t0;
    return st;
}

gpuimg_status gpuimg_save(gpuimg_ctx *ctx, const char *path, gpuimg_format format,
                          const gpuimg_image *img)
{
    int is_stdout = strcmp(path, "-") == 0;
    const char *name = is_stdout ? "<stdout>" : path;
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
            return gpuimg__fail(ctx, st, "%s: %s", name, gpuimg_strerror(st));
        }
        img = &converted;
    }
    st = save_packed(ctx, path, is_stdout, name, format, img);
    gpuimg_image_free(&converted);
    gpuimg_image_free(&copy);
    return st;
}

const char *gpuimg_codec_versions(void)
{
    static char text[160];
    snprintf(text, sizeof text,
             "libpng %s, zlib %s, libdeflate, libjpeg-turbo, stb_image (TGA) and "
             "stb_image_write (Debian libstb)",
             png_get_libpng_ver(NULL), zlibVersion());
    return text;
}
