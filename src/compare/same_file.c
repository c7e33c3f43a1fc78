/* SPDX-License-Identifier: MIT */
/* Byte-identical files compared without decoding them (same_file.h).
 *
 * A suite's goldens mostly come back unchanged, byte for byte (84 of the
 * benchmark's 100 screenshots): decoding both to find every pixel equal is
 * most of a folder compare's time. Equal bytes decode to equal pixels, so
 * what the comparison would say follows from the header: the size, the
 * channels and the depth the loader gives, the ignored pixels (the
 * rectangles are geometry), no value differing, SSIM 1 (the CPU backend's
 * windows of two equal images give numerator and denominator from the same
 * operations on the same values: exactly 1 each). A file that is not
 * whole is not taken: it is decoded, and its error said, as before. */
#include <libdeflate.h>
#include <stdlib.h>
#include <string.h>

#include "compare/same_file.h"
#include "core/backend.h"
#include "io/formats.h"
#include "io/io.h"
#include "io/metadata.h"
#include "io/walk_png.h"

/* A chunk type is four ASCII letters (libpng refuses anything else). */
static int letters(const uint8_t *t)
{
    for (int i = 0; i < 4; i++)
        if (!((t[i] >= 'A' && t[i] <= 'Z') || (t[i] >= 'a' && t[i] <= 'z')))
            return 0;
    return 1;
}

/* The PNG's structure as libpng would find it, short of inflating: IHDR
 * first, every chunk whole with its CRC right up to IEND, one run of
 * IDATs, a palette where the colour type needs one, no critical chunk
 * libpng does not know. Anything else is left to the decoder to judge. */
static int png_whole(const uint8_t *d, size_t n)
{
    if (n < 8 + 25 || memcmp(d, "\x89PNG\r\n\x1a\n", 8) != 0 || gpuimg__be32(d + 8) != 13 ||
        memcmp(d + 12, "IHDR", 4) != 0)
        return 0;
    int type = d[8 + 8 + 9], idats = 0, in_run = 0, palette = 0;
    gpuimg__png_chunk c;
    for (size_t pos = 8; gpuimg__png_next(d, n, &pos, &c);) {
        if (c.len > 0x7fffffffu || !letters(c.type) ||
            libdeflate_crc32(0, c.type, (size_t)c.len + 4) != gpuimg__be32(c.body + c.len))
            return 0;
        int is_idat = memcmp(c.type, "IDAT", 4) == 0;
        if (is_idat && idats++ && !in_run)
            return 0; /* IDATs apart */
        in_run = is_idat;
        if (memcmp(c.type, "IEND", 4) == 0)
            return idats > 0 && (type != 3 || palette);
        if (memcmp(c.type, "PLTE", 4) == 0)
            palette = !idats;
        else if (!(c.type[0] & 0x20) && !is_idat && c.type != d + 12)
            return 0; /* a critical chunk libpng may refuse */
    }
    return 0; /* cut, or no IEND */
}

/* The pixels the rectangles cover (their union, clipped), and those of
 * them in the SSIM windows' interior, counted as compare.c's ignore map
 * marks them. 0 when out of memory. */
static int ignored(const gpuimg_compare_options *o, int w, int h, uint64_t *all, uint64_t *interior)
{
    *all = *interior = 0;
    if (o->nignore == 0)
        return 1;
    uint8_t *map = calloc((size_t)w * (size_t)h, 1);
    if (!map)
        return 0;
    for (int r = 0; r < o->nignore; r++) {
        const gpuimg_rect *q = &o->ignore[r];
        int64_t x0 = q->x < 0 ? 0 : q->x, y0 = q->y < 0 ? 0 : q->y;
        int64_t x1 = (int64_t)q->x + q->width, y1 = (int64_t)q->y + q->height;
        x1 = x1 > w ? w : x1;
        y1 = y1 > h ? h : y1;
        for (int64_t y = y0; y < y1; y++)
            for (int64_t x = x0; x < x1; x++)
                map[y * w + x] = 1;
    }
    int rad = GPUIMG_SSIM_RADIUS;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            int m = map[(size_t)y * w + x];
            *all += (uint64_t)m;
            *interior += (uint64_t)(m && y >= rad && y < h - rad && x >= rad && x < w - rad);
        }
    free(map);
    return 1;
}

/* The metadata's warnings a load of the file would say, for each name. */
static int tell_notes(gpuimg_ctx *ctx, const char *const names[2], const uint8_t *d, size_t n)
{
    gpuimg_metadata *m = NULL;
    gpuimg__meta_notes notes;
    if (gpuimg__metadata_parse_quiet(ctx, names[0], &gpuimg__format_png, d, n, &m, &notes) !=
        GPUIMG_OK)
        return 0;
    gpuimg_metadata_free(m);
    for (int k = 0; k < 2; k++)
        gpuimg__metadata_tell(ctx, names[k], &notes);
    return 1;
}

int gpuimg__compare_same_file(gpuimg_ctx *ctx, const char *name_a, const uint8_t *a, size_t a_size,
                              const char *name_b, const uint8_t *b, size_t b_size,
                              const gpuimg_compare_options *opt,
                              const gpuimg_compare_limits *limits, gpuimg_compare_result *out,
                              int *width, int *height)
{
    gpuimg_compare_options defaults;
    if (!opt) {
        gpuimg_compare_options_init(&defaults);
        opt = &defaults;
    }
    /* the options gpuimg_compare refuses are its to refuse */
    if (opt->mask || opt->fuzz < 0 || opt->fuzz > 65535 ||
        !(opt->threshold >= 0 && opt->threshold <= 1) || opt->max_shift < 0 || opt->max_shift > 8 ||
        opt->nignore < 0 || (opt->nignore > 0 && !opt->ignore))
        return 0;
    if (a_size != b_size || memcmp(a, b, a_size) != 0 || !png_whole(a, a_size))
        return 0;
    gpuimg_file_info fi;
    if (!gpuimg__probe_header(ctx, a, a_size, &fi) || fi.channels < 1 || fi.channels > 4)
        return 0;
    /* gpuimg__check_size's limits, unsaid: the decoder says them */
    uint64_t sw = (uint64_t)fi.stored_width, sh = (uint64_t)fi.stored_height;
    if (sw == 0 || sh == 0 || sw > GPUIMG_MAX_SIDE || sh > GPUIMG_MAX_SIDE ||
        sw * sh > ctx->cfg.max_pixels)
        return 0;
    int w = fi.width, h = fi.height;
    uint64_t skipped, skipped_inside;
    if (!ignored(opt, w, h, &skipped, &skipped_inside))
        return 0;
    gpuimg_compare_result r = {0};
    r.width = w;
    r.height = h;
    r.channels = fi.channels;
    r.depth = ctx->cfg.depth ? ctx->cfg.depth : fi.depth == 16 ? 16 : 8;
    r.identical = 1;
    r.ignored = skipped;
    r.compared = (uint64_t)w * (uint64_t)h - skipped;
    int rad = GPUIMG_SSIM_RADIUS;
    if (opt->ssim && w >= GPUIMG_SSIM_TAPS && h >= GPUIMG_SSIM_TAPS &&
        (uint64_t)(w - 2 * rad) * (uint64_t)(h - 2 * rad) > skipped_inside) {
        r.has_ssim = 1;
        r.ssim = 1.0;
    }
    /* FLIP of equal pixels is 0 everywhere (flip suite: identical_is_zero) */
    r.has_flip = opt->flip && r.compared > 0;
    /* a pair that fails is decoded: the report wants its picture */
    gpuimg_compare_limits none = {0};
    char why[8];
    if (gpuimg_compare_check(&r, limits ? limits : &none, why, sizeof why) != 0)
        return 0;
    char error[sizeof ctx->error];
    memcpy(error, ctx->error, sizeof error);
    const char *const names[2] = {name_a, name_b};
    if (!tell_notes(ctx, names, a, a_size)) {
        memcpy(ctx->error, error, sizeof error);
        return 0;
    }
    *out = r;
    *width = w;
    *height = h;
    return 1;
}
