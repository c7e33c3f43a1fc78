/* SPDX-License-Identifier: MIT */
/* Every format but PNG and JPEG (CMYK JPEG excepted) through stb_image and
 * stb_image_write (Debian's libstb, which carries the implementation;
 * nothing here defines STB_*_IMPLEMENTATION).
 *
 * stb_image decodes a truncated file without complaint: past the end it
 * reads zeros. So decoding goes through stb's callback API, and a decoder
 * that asks for a byte beyond the end of the data marks the file truncated.
 * That catches every format stb reads in small pieces; the uncompressed
 * pixel data of PNM and TGA is read in one request whose short count stb
 * ignores, so for those the size the header promises is checked first. */
#include <errno.h>
#include <limits.h>
#include <stb_image.h>
#include <stb_image_write.h>
#include <stdlib.h>
#include <string.h>

#include "io.h"

struct reader {
    const uint8_t *data;
    size_t size, pos;
    int over_read; /* the decoder wanted more than the file holds */
};

static int read_cb(void *user, char *dst, int n)
{
    struct reader *r = user;
    size_t left = r->size - r->pos, k = (size_t)n < left ? (size_t)n : left;
    if (n > 0 && k == 0)
        r->over_read = 1;
    memcpy(dst, r->data + r->pos, k);
    r->pos += k;
    return (int)k;
}

static void skip_cb(void *user, int n)
{
    struct reader *r = user;
    if (n < 0) {
        size_t back = (size_t) - (long)n;
        r->pos = back > r->pos ? 0 : r->pos - back;
    } else if ((size_t)n > r->size - r->pos) {
        r->over_read = 1;
        r->pos = r->size;
    } else {
        r->pos += (size_t)n;
    }
}

static int eof_cb(void *user)
{
    struct reader *r = user;
    return r->pos >= r->size;
}

static const stbi_io_callbacks callbacks = {read_cb, skip_cb, eof_cb};

static const char *format_name(const uint8_t *p, size_t n)
{
    if (n >= 2 && p[0] == 0xFF && p[1] == 0xD8)
        return "JPEG";
    if (n >= 2 && p[0] == 'B' && p[1] == 'M')
        return "BMP";
    if (n >= 3 && memcmp(p, "GIF", 3) == 0)
        return "GIF";
    if (n >= 4 && memcmp(p, "8BPS", 4) == 0)
        return "PSD";
    if (n >= 2 && p[0] == 'P' && p[1] >= '1' && p[1] <= '7')
        return "PNM";
    return "file"; /* TGA has no signature */
}

int gpuimg__stb_plausible(const uint8_t *data, size_t size)
{
    int w, h, comp;
    return strcmp(format_name(data, size), "file") != 0 ||
           (size <= INT_MAX && stbi_info_from_memory(data, (int)size, &w, &h, &comp));
}

static gpuimg_status truncated(gpuimg_ctx *ctx, const char *name, const uint8_t *data, size_t size)
{
    return gpuimg__fail(ctx, GPUIMG_ERR_DECODE, "%s: not a supported image (truncated %s)", name,
                        format_name(data, size));
}

/* Binary PNM (P5, P6) pixel data is read by stb in one request whose short
 * count it ignores, so the size the header promises is checked here: after
 * "P5"/"P6", width, height and maxval (with # comments), one whitespace byte,
 * then width * height * channels samples of 1 byte (2 when maxval > 255). */
static int pnm_truncated(const uint8_t *p, size_t n)
{
    if (n < 2 || p[0] != 'P' || (p[1] != '5' && p[1] != '6'))
        return 0;
    size_t i = 2;
    uint64_t v[3] = {0, 0, 0};
    for (int k = 0; k < 3; k++) {
        for (;;) { /* whitespace and comments */
            while (i < n && (p[i] == ' ' || (p[i] >= '\t' && p[i] <= '\r')))
                i++;
            if (i < n && p[i] == '#')
                while (i < n && p[i] != '\n')
                    i++;
            else
                break;
        }
        if (i >= n || p[i] < '0' || p[i] > '9')
            return 0; /* malformed: stb will say so */
        while (i < n && p[i] >= '0' && p[i] <= '9' && v[k] < (UINT64_C(1) << 32))
            v[k] = v[k] * 10 + (uint64_t)(p[i++] - '0');
    }
    uint64_t need = v[0] * v[1] * (p[1] == '6' ? 3 : 1) * (v[2] > 255 ? 2 : 1);
    return n - i < 1 || n - i - 1 < need;
}

/* Uncompressed TGA (types 1, 2, 3): an 18-byte header, an id, a colour map,
 * then width * height pixels of depth bits. Only called for files stb
 * recognized with no other format's signature: TGA has none. */
static int tga_truncated(const uint8_t *p, size_t n)
{
    if (n < 18 || p[2] < 1 || p[2] > 3)
        return 0;
    uint64_t cmap = p[1] ? (uint64_t)(p[5] | p[6] << 8) * (uint64_t)((p[7] + 7) / 8) : 0;
    uint64_t w = (uint64_t)(p[12] | p[13] << 8), h = (uint64_t)(p[14] | p[15] << 8);
    uint64_t need = 18 + p[0] + cmap + w * h * (uint64_t)((p[16] + 7) / 8);
    return n < need;
}

gpuimg_status gpuimg__decode_stb(gpuimg_ctx *ctx, const uint8_t *data, size_t size,
                                 const char *name, gpuimg_image *out)
{
    if (size > INT_MAX)
        return gpuimg__fail(ctx, GPUIMG_ERR_TOO_LARGE, "%s: file too large for stb_image", name);
    struct reader r = {data, size, 0, 0};
    int w, h, comp;
    if (!stbi_info_from_callbacks(&callbacks, &r, &w, &h, &comp))
        return gpuimg__fail(ctx, GPUIMG_ERR_DECODE, "%s: not a supported image (%s)", name,
                            stbi_failure_reason());
    gpuimg_status st = gpuimg__check_size(ctx, name, (uint64_t)w, (uint64_t)h);
    if (st != GPUIMG_OK)
        return st;
    if (pnm_truncated(data, size) ||
        (strcmp(format_name(data, size), "file") == 0 && tga_truncated(data, size)))
        return truncated(ctx, name, data, size);
    r = (struct reader){data, size, 0, 0};
    uint8_t *pixels = stbi_load_from_callbacks(&callbacks, &r, &w, &h, &comp, 0);
    if (!pixels)
        return r.over_read ? truncated(ctx, name, data, size)
                           : gpuimg__fail(ctx, GPUIMG_ERR_DECODE, "%s: not a supported image (%s)",
                                          name, stbi_failure_reason());
    if (r.over_read || comp < 1 || comp > 4) {
        stbi_image_free(pixels);
        return r.over_read ? truncated(ctx, name, data, size)
                           : gpuimg__fail(ctx, GPUIMG_ERR_DECODE,
                                          "%s: not a supported image (%d channels)", name, comp);
    }
    st = gpuimg_image_alloc(out, w, h, comp);
    if (st != GPUIMG_OK) {
        stbi_image_free(pixels);
        return gpuimg__fail(ctx, st, "%s: %s", name, gpuimg_strerror(st));
    }
    memcpy(out->data, pixels, gpuimg__image_bytes(w, h, comp));
    stbi_image_free(pixels);
    if (stbi_is_16_bit_from_memory(data, (int)size)) /* only once the file proved good */
        gpuimg__warn(ctx, "%s: 16-bit image reduced to 8 bits per channel", name);
    return GPUIMG_OK;
}

struct sink {
    FILE *f;
    int failed, error;
};

static void write_cb(void *user, void *data, int size)
{
    struct sink *s = user;
    if (!s->failed && fwrite(data, 1, (size_t)size, s->f) != (size_t)size) {
        s->failed = 1;
        s->error = errno;
    }
}

gpuimg_status gpuimg__encode_stb(gpuimg_ctx *ctx, FILE *f, const char *name, gpuimg_format format,
                                 const gpuimg_image *img)
{
    struct sink s = {f, 0, 0};
    int ok = 0, w = img->width, h = img->height, c = img->channels;
    switch (format) {
    case GPUIMG_FORMAT_JPEG: /* sides over libjpeg's limit only (io_jpeg.c) */
        ok = stbi_write_jpg_to_func(write_cb, &s, w, h, c, img->data, ctx->cfg.jpeg_quality);
        break;
    case GPUIMG_FORMAT_BMP: ok = stbi_write_bmp_to_func(write_cb, &s, w, h, c, img->data); break;
    case GPUIMG_FORMAT_TGA: ok = stbi_write_tga_to_func(write_cb, &s, w, h, c, img->data); break;
    default: return gpuimg__fail(ctx, GPUIMG_ERR_INTERNAL, "%s: no stb writer", name);
    }
    if (!ok || s.failed)
        return gpuimg__fail(ctx, GPUIMG_ERR_IO, "%s: write failed: %s", name,
                            s.failed ? strerror(s.error) : "stb_image_write refused the image");
    return GPUIMG_OK;
}
