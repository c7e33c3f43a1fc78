/* SPDX-License-Identifier: MIT */
/* PSD, read here: the composite image Photoshop saves after its layers
 * (SPEC §2), RGB at 8 or 16 bits, raw or PackBits. stb_image's reader did
 * this before; its "white matte" removal converts out-of-range floats to
 * bytes (undefined, and garbage in practice) on ordinary files with
 * transparency, which the fuzzer found at once.
 *
 * Layout (Adobe's file format specification): a 26-byte header, three
 * length-prefixed sections (colour mode data, image resources, layers),
 * then the compression (0 raw, 1 PackBits) and the channels one after
 * another, each width x height samples of 1 or 2 bytes (big-endian). With
 * PackBits, a table of every row's compressed length (channels x height
 * 16-bit counts) comes first, then the rows, each decoded to exactly its
 * width from exactly its count. The first three channels are R, G, B; a
 * fourth is alpha; more are spot colours, not read. 16-bit samples are
 * rounded to 8 bits.
 *
 * A composite with alpha is stored matted against white, c = a C + (1 - a)
 * 255; the colour is recovered as C = (c - (1 - a) 255) / a, rounded and
 * clamped to 0..255, as stb_image did (without the overflow). */
#include <stdlib.h>
#include <string.h>

#include "io/bytes.h"
#include "io/formats.h"
#include "io/io.h"

static gpuimg_status psd_error(gpuimg_ctx *ctx, const char *name, const char *why)
{
    return gpuimg__fail(ctx, GPUIMG_ERR_DECODE, "%s: not a supported image (%s)", name, why);
}

/* PackBits: n in 0..127 copies n + 1 bytes; n in 129..255 repeats the next
 * byte 257 - n times; 128 does nothing. 1 when src decodes to exactly dst. */
static int unpack_bits(const uint8_t *src, size_t len, uint8_t *dst, size_t want)
{
    size_t i = 0, o = 0;
    while (i < len && o < want) {
        unsigned n = src[i++];
        if (n < 128) {
            size_t k = n + 1u;
            if (k > len - i || k > want - o)
                return 0;
            memcpy(dst + o, src + i, k);
            i += k;
            o += k;
        } else if (n > 128) {
            size_t k = 257u - n;
            if (i >= len || k > want - o)
                return 0;
            memset(dst + o, src[i++], k);
            o += k;
        }
    }
    return o == want;
}

static gpuimg_status decode(gpuimg_ctx *ctx, const uint8_t *p, size_t n, const char *name,
                            gpuimg_image *out)
{
    if (n < 26)
        return psd_error(ctx, name, "truncated PSD");
    uint32_t channels = gpuimg__be16(p + 12), depth = gpuimg__be16(p + 22),
             mode = gpuimg__be16(p + 24);
    if (gpuimg__be16(p + 4) != 1 || channels < 1 || channels > 56 || (depth != 8 && depth != 16))
        return psd_error(ctx, name, "damaged PSD: bad header");
    if (mode != 3 || channels < 3)
        return gpuimg__fail(ctx, GPUIMG_ERR_DECODE,
                            "%s: not a supported image (PSD colour mode %u with %u channels; "
                            "only RGB is read)",
                            name, mode, channels);
    uint64_t h = gpuimg__be32(p + 14), w = gpuimg__be32(p + 18);
    gpuimg_status st = gpuimg__check_size(ctx, name, w, h);
    if (st != GPUIMG_OK)
        return st;
    uint64_t at = 26;
    for (int section = 0; section < 3; section++) {
        if (at + 4 > n)
            return psd_error(ctx, name, "truncated PSD");
        at += 4 + (uint64_t)gpuimg__be32(p + at);
    }
    if (at + 2 > n)
        return psd_error(ctx, name, "truncated PSD");
    uint32_t compression = gpuimg__be16(p + at);
    at += 2;
    if (compression > 1)
        return psd_error(ctx, name, "damaged PSD: unknown compression");
    int keep = channels >= 4 ? 4 : 3, bpc = (int)depth / 8;
    uint64_t row = w * (uint64_t)bpc, plane = row * h;
    const uint8_t *counts = p + at;
    if (compression == 1) {
        uint64_t table = 2 * h * channels;
        if (table > n - at)
            return psd_error(ctx, name, "truncated PSD");
        at += table;
        /* the rows of the channels read must be there before anything is
         * allocated: their counts add up to at most what is left */
        uint64_t need = 0;
        for (uint64_t r = 0; r < h * (uint64_t)keep; r++)
            need += gpuimg__be16(counts + 2 * r);
        if (need > n - at)
            return psd_error(ctx, name, "truncated PSD");
    } else if (plane * (uint64_t)keep > n - at) {
        return psd_error(ctx, name, "truncated PSD");
    }
    uint8_t *samples = malloc(row > 0 ? (size_t)row : 1);
    if (!samples)
        return gpuimg__fail(ctx, GPUIMG_ERR_NOMEM, "%s: out of memory", name);
    if ((st = gpuimg__image_take(ctx, out, (int)w, (int)h, keep)) != GPUIMG_OK) {
        free(samples);
        return gpuimg__fail_as(ctx, st, name);
    }
    for (int c = 0; c < keep; c++)
        for (uint64_t y = 0; y < h; y++) {
            const uint8_t *src;
            if (compression == 0) {
                src = p + at + (uint64_t)c * plane + y * row;
            } else {
                size_t len = gpuimg__be16(counts + 2 * ((uint64_t)c * h + y));
                if (!unpack_bits(p + at, len, samples, (size_t)row)) {
                    free(samples);
                    gpuimg_image_free(out);
                    return psd_error(ctx, name, "damaged PSD: a row does not decode to its width");
                }
                at += len;
                src = samples;
            }
            uint8_t *d = out->data + y * w * (uint64_t)keep + (uint64_t)c;
            if (bpc == 1)
                for (uint64_t x = 0; x < w; x++)
                    d[x * (uint64_t)keep] = src[x];
            else
                for (uint64_t x = 0; x < w; x++)
                    d[x * (uint64_t)keep] =
                        (uint8_t)((gpuimg__be16(src + 2 * x) * 255u + 32767u) / 65535u);
        }
    free(samples);
    if (keep == 4) {
        uint8_t *px = out->data;
        for (uint64_t i = 0; i < w * h; i++, px += 4) {
            int a = px[3];
            if (a == 0 || a == 255)
                continue;
            for (int c = 0; c < 3; c++) { /* 255 (c - 255 + a) / a, rounded, clamped */
                int num = 255 * (px[c] - 255 + a);
                px[c] = (uint8_t)(num <= 0 ? 0 : num >= 255 * a ? 255 : (num + a / 2) / a);
            }
        }
    }
    if (bpc == 2)
        gpuimg__warn(ctx, "%s: 16-bit image reduced to 8 bits per channel", name);
    return GPUIMG_OK;
}

static int is_psd(const uint8_t *p, size_t n)
{
    return n >= 4 && memcmp(p, "8BPS", 4) == 0;
}

static gpuimg_status probe(gpuimg_ctx *ctx, const char *name, const uint8_t *d, size_t n,
                           gpuimg_file_info *o)
{
    if (n < 26)
        return psd_error(ctx, name, "truncated PSD");
    int ch = d[12] << 8 | d[13];
    o->stored_height = (int)(gpuimg__be32(d + 14) & 0xffffff);
    o->stored_width = (int)(gpuimg__be32(d + 18) & 0xffffff);
    o->depth = d[22] << 8 | d[23];
    o->channels = ch >= 4 ? 4 : 3;
    return GPUIMG_OK;
}

/* Read only: its composite image, written as PNG by batch. */
const gpuimg__format gpuimg__format_psd = {
    .name = "psd",
    .extensions = {{"psd", GPUIMG_FORMAT_NONE}},
    .written_as = GPUIMG_FORMAT_PNG,
    .sniff = is_psd,
    .probe = probe,
    .decode = decode,
};
