/* SPDX-License-Identifier: MIT */
/* Every format but PNG through stb_image / stb_image_write (Debian's libstb,
 * which carries the implementation; nothing here defines STB_*_IMPLEMENTATION).
 *
 * stb_image decodes a truncated JPEG without complaint (it pads the entropy
 * data with zeros), so JPEG input is first walked marker by marker and must
 * reach its end-of-image marker. */
#include <limits.h>
#include <stb_image.h>
#include <stb_image_write.h>
#include <stdlib.h>
#include <string.h>

#include "io.h"

static int is_jpeg(const uint8_t *p, size_t n)
{
    return n >= 3 && p[0] == 0xFF && p[1] == 0xD8 && p[2] == 0xFF;
}

/* 1 when the JPEG's segments and entropy-coded data run up to an EOI marker. */
static int jpeg_complete(const uint8_t *p, size_t n)
{
    size_t i = 2; /* after SOI */
    for (;;) {
        if (i >= n || p[i] != 0xFF)
            return 0;
        while (i < n && p[i] == 0xFF) /* fill bytes may precede a marker */
            i++;
        if (i >= n)
            return 0;
        uint8_t m = p[i++];
        if (m == 0xD9)
            return 1;
        if (m == 0x01 || (m >= 0xD0 && m <= 0xD7)) /* markers without a length */
            continue;
        if (i + 2 > n)
            return 0;
        size_t len = ((size_t)p[i] << 8) | p[i + 1];
        if (len < 2 || len > n - i)
            return 0;
        i += len;
        if (m != 0xDA)
            continue;
        /* After SOS: entropy-coded data, where 0xFF is followed by a stuffed
         * 0x00 or a restart marker, until the next real marker. */
        for (;; i++) {
            if (i + 1 >= n)
                return 0;
            if (p[i] == 0xFF && p[i + 1] != 0x00 && p[i + 1] != 0xFF &&
                !(p[i + 1] >= 0xD0 && p[i + 1] <= 0xD7))
                break;
        }
    }
}

gpuimg_status gpuimg__decode_stb(gpuimg_ctx *ctx, const uint8_t *data, size_t size,
                                 const char *name, gpuimg_image *out)
{
    if (size > INT_MAX)
        return gpuimg__fail(ctx, GPUIMG_ERR_TOO_LARGE, "%s: file too large for stb_image", name);
    int w, h, comp;
    if (!stbi_info_from_memory(data, (int)size, &w, &h, &comp))
        return gpuimg__fail(ctx, GPUIMG_ERR_DECODE, "%s: not a supported image (%s)", name,
                            stbi_failure_reason());
    gpuimg_status st = gpuimg__check_size(ctx, name, (uint64_t)w, (uint64_t)h);
    if (st != GPUIMG_OK)
        return st;
    if (is_jpeg(data, size) && !jpeg_complete(data, size))
        return gpuimg__fail(ctx, GPUIMG_ERR_DECODE, "%s: not a supported image (truncated JPEG)",
                            name);
    if (stbi_is_16_bit_from_memory(data, (int)size))
        gpuimg__warn(ctx, "%s: 16-bit image reduced to 8 bits per channel", name);
    uint8_t *pixels = stbi_load_from_memory(data, (int)size, &w, &h, &comp, 0);
    if (!pixels)
        return gpuimg__fail(ctx, GPUIMG_ERR_DECODE, "%s: not a supported image (%s)", name,
                            stbi_failure_reason());
    if (comp < 1 || comp > 4) {
        stbi_image_free(pixels);
        return gpuimg__fail(ctx, GPUIMG_ERR_DECODE, "%s: not a supported image (%d channels)", name,
                            comp);
    }
    st = gpuimg_image_alloc(out, w, h, comp);
    if (st != GPUIMG_OK) {
        stbi_image_free(pixels);
        return gpuimg__fail(ctx, st, "%s: %s", name, gpuimg_strerror(st));
    }
    memcpy(out->data, pixels, gpuimg__image_bytes(w, h, comp));
    stbi_image_free(pixels);
    return GPUIMG_OK;
}

struct sink {
    FILE *f;
    int failed;
};

static void write_cb(void *user, void *data, int size)
{
    struct sink *s = user;
    if (!s->failed && fwrite(data, 1, (size_t)size, s->f) != (size_t)size)
        s->failed = 1;
}

gpuimg_status gpuimg__encode_stb(gpuimg_ctx *ctx, FILE *f, const char *name, gpuimg_format format,
                                 const gpuimg_image *img)
{
    struct sink s = {f, 0};
    int ok = 0, w = img->width, h = img->height, c = img->channels;
    switch (format) {
    case GPUIMG_FORMAT_JPEG:
        /* JPEG has no alpha: stb writes the colour channels and drops it. */
        ok = stbi_write_jpg_to_func(write_cb, &s, w, h, c, img->data, ctx->cfg.jpeg_quality);
        break;
    case GPUIMG_FORMAT_BMP: ok = stbi_write_bmp_to_func(write_cb, &s, w, h, c, img->data); break;
    case GPUIMG_FORMAT_TGA: ok = stbi_write_tga_to_func(write_cb, &s, w, h, c, img->data); break;
    default: return gpuimg__fail(ctx, GPUIMG_ERR_INTERNAL, "%s: no stb writer", name);
    }
    if (!ok || s.failed)
        return gpuimg__fail(ctx, GPUIMG_ERR_IO, "%s: write failed", name);
    return GPUIMG_OK;
}
