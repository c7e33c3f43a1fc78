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
    if (gpuimg__tga_plausible(p, n))
        return GPUIMG__CODEC_TGA;
    return GPUIMG__CODEC_NONE;
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
    gpuimg__header_read(ctx, width, height);
    return GPUIMG_OK;
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

/* Reads a whole stream, the buffer the caller's to free. The first bytes
 * must look like an image before the rest is read (so a huge or endless
 * stream of something else fails at once), and no file may be larger than
 * the largest image --max-pixels allows could be (8 bytes a pixel, 16-bit
 * RGBA uncompressed, plus 64 MiB of metadata). */
static gpuimg_status read_stream(gpuimg_ctx *ctx, FILE *f, const char *name, size_t expect,
                                 uint8_t **data, size_t *size)
{
    uint8_t *buf = NULL;
    size_t cap = 0, len = 0, got;
    gpuimg_status st = read_more(ctx, f, name, &buf, &cap, &len, PROBE_BYTES, &got);
    if (st == GPUIMG_OK && len > 0 && gpuimg__sniff(buf, len) == GPUIMG__CODEC_NONE)
        st = gpuimg__fail(ctx, GPUIMG_ERR_DECODE, "%s: not a supported image (unknown format)",
                          name);
    uint64_t limit = ctx->cfg.max_pixels * 8 + (UINT64_C(64) << 20);
    /* A file's size, when known: the rest in one read into one buffer of
     * the right size (one byte more, to see the end), not a dozen copies as
     * the buffer doubles. */
    if (st == GPUIMG_OK && got == PROBE_BYTES && expect > len && expect <= limit)
        st = read_more(ctx, f, name, &buf, &cap, &len, expect - len + 1, &got);
    while (st == GPUIMG_OK && got > 0) {
        if (len > limit)
            st = gpuimg__fail(ctx, GPUIMG_ERR_TOO_LARGE,
                              "%s: file larger than any image within --max-pixels", name);
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

gpuimg_status gpuimg_load_memory(gpuimg_ctx *ctx, const void *data, size_t size, const char *name,
                                 gpuimg_image *out)
{
    memset(out, 0, sizeof *out);
    if (size == 0)
        return gpuimg__fail(ctx, GPUIMG_ERR_DECODE, "%s: not a supported image (empty file)", name);
    double t0 = gpuimg__now_ms();
    gpuimg_status st;
    gpuimg__codec codec = gpuimg__sniff(data, size);
    switch (codec) {
    case GPUIMG__CODEC_PNG: st = gpuimg__decode_png(ctx, data, size, name, out); break;
    case GPUIMG__CODEC_JPEG: st = gpuimg__decode_jpeg(ctx, data, size, name, out); break;
    case GPUIMG__CODEC_PNM: st = gpuimg__decode_pnm(ctx, data, size, name, out); break;
    case GPUIMG__CODEC_PSD: st = gpuimg__decode_psd(ctx, data, size, name, out); break;
    case GPUIMG__CODEC_BMP:
    case GPUIMG__CODEC_GIF:
    case GPUIMG__CODEC_TGA: st = gpuimg__decode_stb(ctx, codec, data, size, name, out); break;
    default:
        st = gpuimg__fail(ctx, GPUIMG_ERR_DECODE, "%s: not a supported image (unknown format)",
                          name);
    }
    ctx->stage_ms[GPUIMG_STAGE_DECODE] += gpuimg__now_ms() - t0;
    return st;
}

gpuimg_status gpuimg_load(gpuimg_ctx *ctx, const char *path, gpuimg_image *out)
{
    memset(out, 0, sizeof *out);
    int is_stdin = strcmp(path, "-") == 0;
    const char *name = is_stdin ? "<stdin>" : path;
    FILE *f = stdin;
    size_t expect = 0; /* the file's size, when it has one */
    if (!is_stdin) {
        f = fopen(path, "rb");
        if (!f)
            return gpuimg__fail(ctx, GPUIMG_ERR_IO, "%s: %s", path, strerror(errno));
        struct stat sb;
        int known = fstat(fileno(f), &sb) == 0;
        if (known && S_ISDIR(sb.st_mode)) {
            fclose(f);
            return gpuimg__fail(ctx, GPUIMG_ERR_IO, "%s: is a directory", path);
        }
        if (known && S_ISREG(sb.st_mode) && sb.st_size > 0)
            expect = (size_t)sb.st_size;
    }
    uint8_t *data = NULL;
    size_t size = 0;
    double t0 = gpuimg__now_ms();
    gpuimg_status st = read_stream(ctx, f, name, expect, &data, &size);
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
    case GPUIMG_FORMAT_JPEG: return gpuimg__encode_jpeg(ctx, f, name, img);
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

gpuimg_status gpuimg_check_output(gpuimg_ctx *ctx, const char *path, const char *input)
{
    if (strcmp(path, "-") == 0)
        return GPUIMG_OK;
    if (gpuimg_format_from_path(path) == GPUIMG_FORMAT_NONE)
        return gpuimg__fail(ctx, GPUIMG_ERR_FORMAT, "%s: unsupported output format (supported: %s)",
                            path, gpuimg_format_list());
    char folder[4096];
    parent_folder(path, folder, sizeof folder);
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

/* Temporary files of writes in progress, for gpuimg_remove_temporaries()
 * to delete from a signal handler: a slot is 0 free, 1 being filled, 2 live.
 * One per writer: batch's --jobs is at most 1024 (4 MiB of address space,
 * touched only as slots are used). */
#define TEMP_SLOTS 1088
static char temp_paths[TEMP_SLOTS][4200];
static atomic_int temp_state[TEMP_SLOTS];

static int temp_register(const char *path)
{
    for (int i = 0; i < TEMP_SLOTS; i++) {
        int expected = 0;
        if (atomic_compare_exchange_strong(&temp_state[i], &expected, 1)) {
            snprintf(temp_paths[i], sizeof temp_paths[i], "%s", path);
            atomic_store(&temp_state[i], 2);
            return i;
        }
    }
    return -1; /* more writes in flight than slots: this one is not covered */
}

static void temp_unregister(int slot)
{
    if (slot >= 0)
        atomic_store(&temp_state[slot], 0);
}

void gpuimg_remove_temporaries(void)
{
    for (int i = 0; i < TEMP_SLOTS; i++)
        if (atomic_load(&temp_state[i]) == 2)
            unlink(temp_paths[i]);
}

/* Creates "<folder>/.<name>.gpuimg-XXXXXXXX" exclusively, mode 0666 less the
 * umask (mkstemp's 0600 would need the umask read back, which is racy). */
static int create_temp(const char *folder, const char *base, char *tmp, size_t len)
{
    static atomic_uint counter;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    for (int attempt = 0; attempt < 100; attempt++) {
        unsigned x = (unsigned)getpid() * 2654435761u ^ (unsigned)ts.tv_nsec ^
                     atomic_fetch_add(&counter, 1) * 40503u;
        int n = snprintf(tmp, len, "%s/.%s.gpuimg-%08x", folder, base, x);
        if (n < 0 || (size_t)n >= len) {
            errno = ENAMETOOLONG;
            return -1;
        }
        int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd >= 0 || errno != EEXIST)
            return fd;
    }
    return -1;
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
    if (!img->data || img->channels < 1 || img->channels > 4 ||
        gpuimg__image_bytes(img->width, img->height, img->channels) == 0)
        return gpuimg__fail(ctx, GPUIMG_ERR_INTERNAL, "%s: invalid image", name);
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

    char folder[4096], tmp[4200];
    parent_folder(path, folder, sizeof folder);
    const char *slash = strrchr(path, '/');
    int fd = create_temp(folder, slash ? slash + 1 : path, tmp, sizeof tmp);
    if (fd < 0)
        return gpuimg__fail(ctx, GPUIMG_ERR_IO, "%s: cannot create a file in %s: %s", path, folder,
                            strerror(errno));
    int slot = temp_register(tmp);
    FILE *f = fdopen(fd, "wb");
    if (!f) {
        int e = errno;
        close(fd);
        unlink(tmp);
        temp_unregister(slot);
        return gpuimg__fail(ctx, GPUIMG_ERR_NOMEM, "%s: %s", path, strerror(e));
    }
    st = encode(ctx, f, path, format, img);
    if (fclose(f) != 0 && st == GPUIMG_OK)
        st = gpuimg__fail(ctx, GPUIMG_ERR_IO, "%s: %s", path, strerror(errno));
    if (st == GPUIMG_OK && rename(tmp, path) != 0)
        st = gpuimg__fail(ctx, GPUIMG_ERR_IO, "%s: %s", path, strerror(errno));
    if (st != GPUIMG_OK)
        unlink(tmp);
    temp_unregister(slot);
    ctx->stage_ms[GPUIMG_STAGE_ENCODE] += gpuimg__now_ms() - t0;
    return st;
}

const char *gpuimg_codec_versions(void)
{
    static char text[160];
    snprintf(text, sizeof text,
             "libpng %s, zlib %s, libjpeg-turbo (TurboJPEG), stb_image and stb_image_write "
             "(Debian libstb)",
             png_get_libpng_ver(NULL), zlibVersion());
    return text;
}
