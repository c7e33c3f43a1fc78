/* SPDX-License-Identifier: MIT */
/* gpuimg_load and gpuimg_save: whole-file reads, format choice, and atomic
 * writes (temporary file in the target folder, renamed into place). */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include <png.h>
#include <zlib.h>

#include "io.h"

static const struct {
    const char *name;
    gpuimg_format format;
} format_names[] = {
    {"png", GPUIMG_FORMAT_PNG}, {"jpg", GPUIMG_FORMAT_JPEG}, {"jpeg", GPUIMG_FORMAT_JPEG},
    {"bmp", GPUIMG_FORMAT_BMP}, {"tga", GPUIMG_FORMAT_TGA},  {"ppm", GPUIMG_FORMAT_PPM},
    {"pgm", GPUIMG_FORMAT_PGM},
};

gpuimg_format gpuimg_format_from_name(const char *name)
{
    for (size_t i = 0; i < sizeof format_names / sizeof format_names[0]; i++)
        if (strcasecmp(name, format_names[i].name) == 0)
            return format_names[i].format;
    return GPUIMG_FORMAT_NONE;
}

gpuimg_format gpuimg_format_from_path(const char *path)
{
    const char *slash = strrchr(path, '/');
    const char *dot = strrchr(slash ? slash + 1 : path, '.');
    return dot ? gpuimg_format_from_name(dot + 1) : GPUIMG_FORMAT_NONE;
}

const char *gpuimg_format_list(void)
{
    return "png, jpg, jpeg, bmp, tga, ppm, pgm";
}

gpuimg_status gpuimg__check_size(gpuimg_ctx *ctx, const char *name, uint64_t width, uint64_t height)
{
    if (width == 0 || height == 0)
        return gpuimg__fail(ctx, GPUIMG_ERR_DECODE, "%s: not a supported image (zero size)", name);
    if (width > GPUIMG_MAX_SIDE || height > GPUIMG_MAX_SIDE)
        return gpuimg__fail(ctx, GPUIMG_ERR_TOO_LARGE,
                            "%s: image too large (%llux%llu; a side may be at most %d pixels)",
                            name, (unsigned long long)width, (unsigned long long)height,
                            GPUIMG_MAX_SIDE);
    if (width * height > ctx->cfg.max_pixels)
        return gpuimg__fail(ctx, GPUIMG_ERR_TOO_LARGE,
                            "%s: image too large (%llux%llu is over --max-pixels %llu)", name,
                            (unsigned long long)width, (unsigned long long)height,
                            (unsigned long long)ctx->cfg.max_pixels);
    return GPUIMG_OK;
}

/* Reads a whole stream; the buffer is the caller's to free. */
static gpuimg_status read_stream(gpuimg_ctx *ctx, FILE *f, const char *name, uint8_t **data,
                                 size_t *size)
{
    size_t cap = 1 << 16, len = 0;
    uint8_t *buf = malloc(cap);
    if (!buf)
        return gpuimg__fail(ctx, GPUIMG_ERR_NOMEM, "%s: out of memory", name);
    for (;;) {
        if (len == cap) {
            uint8_t *bigger = cap <= SIZE_MAX / 2 ? realloc(buf, cap * 2) : NULL;
            if (!bigger) {
                free(buf);
                return gpuimg__fail(ctx, GPUIMG_ERR_NOMEM, "%s: out of memory", name);
            }
            buf = bigger;
            cap *= 2;
        }
        size_t got = fread(buf + len, 1, cap - len, f);
        len += got;
        if (got == 0)
            break;
    }
    if (ferror(f)) {
        int e = errno;
        free(buf);
        return gpuimg__fail(ctx, GPUIMG_ERR_IO, "%s: %s", name, strerror(e ? e : EIO));
    }
    *data = buf;
    *size = len;
    return GPUIMG_OK;
}

gpuimg_status gpuimg_load_memory(gpuimg_ctx *ctx, const void *data, size_t size, const char *name,
                                 gpuimg_image *out)
{
    memset(out, 0, sizeof *out);
    if (size == 0)
        return gpuimg__fail(ctx, GPUIMG_ERR_DECODE, "%s: not a supported image (empty file)", name);
    double t0 = gpuimg__now_ms();
    gpuimg_status st = gpuimg__is_png(data, size) ? gpuimg__decode_png(ctx, data, size, name, out)
                                                  : gpuimg__decode_stb(ctx, data, size, name, out);
    ctx->stage_ms[GPUIMG_STAGE_DECODE] += gpuimg__now_ms() - t0;
    return st;
}

gpuimg_status gpuimg_load(gpuimg_ctx *ctx, const char *path, gpuimg_image *out)
{
    memset(out, 0, sizeof *out);
    int is_stdin = strcmp(path, "-") == 0;
    const char *name = is_stdin ? "<stdin>" : path;
    FILE *f = stdin;
    if (!is_stdin) {
        f = fopen(path, "rb");
        if (!f)
            return gpuimg__fail(ctx, GPUIMG_ERR_IO, "%s: %s", path, strerror(errno));
        struct stat sb;
        if (fstat(fileno(f), &sb) == 0 && S_ISDIR(sb.st_mode)) {
            fclose(f);
            return gpuimg__fail(ctx, GPUIMG_ERR_IO, "%s: is a directory", path);
        }
    }
    uint8_t *data = NULL;
    size_t size = 0;
    double t0 = gpuimg__now_ms();
    gpuimg_status st = read_stream(ctx, f, name, &data, &size);
    ctx->stage_ms[GPUIMG_STAGE_DECODE] += gpuimg__now_ms() - t0;
    if (!is_stdin)
        fclose(f);
    if (st != GPUIMG_OK)
        return st;
    st = gpuimg_load_memory(ctx, data, size, name, out);
    free(data);
    return st;
}

static gpuimg_status encode(gpuimg_ctx *ctx, FILE *f, const char *name, gpuimg_format format,
                            const gpuimg_image *img)
{
    switch (format) {
    case GPUIMG_FORMAT_PNG: return gpuimg__encode_png(ctx, f, name, img);
    case GPUIMG_FORMAT_PPM:
    case GPUIMG_FORMAT_PGM: return gpuimg__encode_pnm(ctx, f, name, format, img);
    default: return gpuimg__encode_stb(ctx, f, name, format, img);
    }
}

/* The folder part of path ("." when it has none), in buf. */
static void parent_folder(const char *path, char *buf, size_t len)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        snprintf(buf, len, ".");
    else if (slash == path)
        snprintf(buf, len, "/");
    else
        snprintf(buf, len, "%.*s", (int)(slash - path), path);
}

static mode_t current_umask(void)
{
    /* umask can only be read by setting it; put it straight back. */
    mode_t m = umask(022);
    umask(m);
    return m;
}

gpuimg_status gpuimg_save(gpuimg_ctx *ctx, const char *path, gpuimg_format format,
                          const gpuimg_image *img)
{
    int is_stdout = strcmp(path, "-") == 0;
    const char *name = is_stdout ? "<stdout>" : path;
    if (format == GPUIMG_FORMAT_NONE)
        format = is_stdout ? GPUIMG_FORMAT_PNG : gpuimg_format_from_path(path);
    if (format == GPUIMG_FORMAT_NONE)
        return gpuimg__fail(ctx, GPUIMG_ERR_FORMAT, "%s: unsupported output format (supported: %s)",
                            path, gpuimg_format_list());
    if (!img->data || img->channels < 1 || img->channels > 4 ||
        gpuimg__image_bytes(img->width, img->height, img->channels) == 0)
        return gpuimg__fail(ctx, GPUIMG_ERR_INTERNAL, "%s: invalid image", name);

    double t0 = gpuimg__now_ms();
    gpuimg_status st;
    if (is_stdout) {
        st = encode(ctx, stdout, name, format, img);
        if (st == GPUIMG_OK && fflush(stdout) != 0)
            st = gpuimg__fail(ctx, GPUIMG_ERR_IO, "%s: %s", name, strerror(errno));
        ctx->stage_ms[GPUIMG_STAGE_ENCODE] += gpuimg__now_ms() - t0;
        return st;
    }

    char folder[4096];
    parent_folder(path, folder, sizeof folder);
    struct stat sb;
    if (stat(folder, &sb) != 0 || !S_ISDIR(sb.st_mode))
        return gpuimg__fail(ctx, GPUIMG_ERR_IO, "%s: folder %s does not exist", path, folder);
    if (stat(path, &sb) == 0 && S_ISDIR(sb.st_mode))
        return gpuimg__fail(ctx, GPUIMG_ERR_IO, "%s: is a directory", path);

    const char *slash = strrchr(path, '/');
    char tmp[4200];
    int n = snprintf(tmp, sizeof tmp, "%s/.%s.gpuimg-XXXXXX", folder, slash ? slash + 1 : path);
    if (n < 0 || (size_t)n >= sizeof tmp)
        return gpuimg__fail(ctx, GPUIMG_ERR_IO, "%s: path too long", path);
    int fd = mkstemp(tmp);
    if (fd < 0)
        return gpuimg__fail(ctx, GPUIMG_ERR_IO, "%s: cannot create a file in %s: %s", path, folder,
                            strerror(errno));
    /* mkstemp creates 0600; give the output the usual permissions. */
    if (fchmod(fd, 0666 & ~current_umask()) != 0) {
        int e = errno;
        close(fd);
        unlink(tmp);
        return gpuimg__fail(ctx, GPUIMG_ERR_IO, "%s: %s", path, strerror(e));
    }
    FILE *f = fdopen(fd, "wb");
    if (!f) {
        int e = errno;
        close(fd);
        unlink(tmp);
        return gpuimg__fail(ctx, GPUIMG_ERR_NOMEM, "%s: %s", path, strerror(e));
    }
    st = encode(ctx, f, path, format, img);
    if (fclose(f) != 0 && st == GPUIMG_OK)
        st = gpuimg__fail(ctx, GPUIMG_ERR_IO, "%s: %s", path, strerror(errno));
    if (st == GPUIMG_OK && rename(tmp, path) != 0)
        st = gpuimg__fail(ctx, GPUIMG_ERR_IO, "%s: %s", path, strerror(errno));
    if (st != GPUIMG_OK)
        unlink(tmp);
    ctx->stage_ms[GPUIMG_STAGE_ENCODE] += gpuimg__now_ms() - t0;
    return st;
}

const char *gpuimg_codec_versions(void)
{
    static char text[128];
    snprintf(text, sizeof text, "libpng %s, zlib %s, stb_image and stb_image_write (Debian libstb)",
             png_get_libpng_ver(NULL), zlibVersion());
    return text;
}
