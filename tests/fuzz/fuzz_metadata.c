/* SPDX-License-Identifier: MIT */
/* The metadata walkers and writers (metadata.c), on the input three ways:
 *  - as an EXIF block: the Orientation read is 1-8 or -1 (malformed), and
 *    setting it touches only its value (2 bytes), which then reads back as
 *    set wherever there is an entry to set; set to 1, a block that read
 *    1-8 reads 1 (what every output of an oriented image says);
 *  - as an ICC profile: its description is a terminated printable string,
 *    and cut short by a small buffer, a prefix of the whole one; and
 *    through LittleCMS (core/cms.c) as colour's source and as a CMYK
 *    file's profile: refused, or a conversion that then runs on a few
 *    pixels, both ways (LittleCMS's transform, the device's table);
 *  - as a file of a format whose row reads metadata (meta_read: PNG, JPEG,
 *    WebP), chosen by its signature as the loader does, which walks the
 *    blocks before the decoder has looked at anything: what the walk finds
 *    is consistent (an Orientation 1-8 that its EXIF says, blocks no
 *    larger than the file where they are copies, PNG's inflated ones
 *    aside; PNG's colour chunks whole, each kind once, of its one length),
 *    or, any other input, its bytes taken for all three blocks
 *    (the seeds are bare EXIF blocks, profiles and XMP packets).
 * Then what was found goes with a small image, turned upright as its
 * Orientation says, through each writer whose row carries metadata
 * (meta_write: PNG, JPEG, WebP lossless, TIFF) and back through
 * gpuimg_load_memory: the same upright pixels (JPEG: the same size),
 * Orientation 1, the same profile, XMP and EXIF (JPEG: those its segments
 * hold; TIFF: EXIF not byte for byte, libtiff rewrites it; JPEG XL: no
 * profile where libjxl refuses it or takes it for its own sRGB), PNG's colour
 * chunks from PNG alone (an sRGB not beside a profile), and `gpuimg
 * info` telling the same sizes. */
#define _POSIX_C_SOURCE 200809L /* open_memstream */
#include <string.h>

#include "core/cms.h"
#include "core/colour_lut.h"
#include "fuzz.h"
#include "io/bytes.h"
#include "io/formats.h"
#include "io/metadata.h"

static void exif_walk(const uint8_t *d, size_t n)
{
    int o = gpuimg__exif_orientation(d, n);
    FUZZ_CHECK(o == -1 || (o >= 1 && o <= 8), "EXIF orientation %d", o);
    uint8_t *copy = malloc(n ? n : 1);
    if (!copy)
        return;
    memcpy(copy, d, n);
    int k = 1 + (n ? d[n - 1] : 0) % 8;
    gpuimg__exif_set_orientation(copy, n, k);
    size_t changed = 0;
    for (size_t i = 0; i < n; i++)
        changed += copy[i] != d[i];
    FUZZ_CHECK(changed <= 2, "setting the orientation changed %zu bytes", changed);
    int now = gpuimg__exif_orientation(copy, n);
    /* an entry, valid or out of range, is set; no entry (1) or no
     * structure (-1) leaves the block as it was */
    FUZZ_CHECK(now == k || now == o, "orientation %d set to %d reads %d", o, k, now);
    FUZZ_CHECK(o <= 1 || now == k, "orientation %d set to %d reads %d", o, k, now);
    gpuimg__exif_set_orientation(copy, n, 1);
    now = gpuimg__exif_orientation(copy, n);
    FUZZ_CHECK(o < 1 || now == 1, "orientation %d set to 1 reads %d", o, now);
    free(copy);
}

static void icc_walk(const uint8_t *d, size_t n)
{
    char full[128], part[16];
    memset(full, 'x', sizeof full);
    gpuimg__icc_description(d, n, full, sizeof full);
    size_t len = strnlen(full, sizeof full);
    FUZZ_CHECK(len < sizeof full, "the description is not terminated");
    for (size_t i = 0; i < len; i++)
        FUZZ_CHECK(full[i] >= 0x20 && full[i] < 0x7f, "byte %d in the description",
                   (unsigned char)full[i]);
    size_t cap = 1 + (n ? d[0] : 0) % sizeof part;
    memset(part, 'x', sizeof part);
    gpuimg__icc_description(d, n, part, cap);
    size_t plen = strnlen(part, cap);
    FUZZ_CHECK(plen < cap && plen == (len < cap - 1 ? len : cap - 1) &&
                   memcmp(part, full, plen) == 0,
               "in %zu bytes the description is '%.*s', in 128 '%s'", cap, (int)plen, part, full);
}

/* The bytes as a profile for the colour engine: its kind, a conversion
 * from it (RGB and gray) and a CMYK transform, each refused or run. */
static void icc_engine(const uint8_t *d, size_t n)
{
    int kind = gpuimg__cms_channels(d, n);
    FUZZ_CHECK(kind == 0 || kind == 1 || kind == 3 || kind == 4, "profile kind %d", kind);
    static uint8_t *srgb;
    static size_t srgb_len;
    char why[256];
    if (!srgb && gpuimg__cms_target("srgb", &srgb, &srgb_len, why, sizeof why) != 0)
        return;
    const uint8_t px8[12] = {0, 0, 0, 255, 255, 255, 12, 200, 99, 255, 0, 128};
    const uint16_t px16[6] = {0, 65535, 300, 65535, 0, 40000};
    for (int gray = 0; gray < 2; gray++) {
        gpuimg__cms_conversion c;
        if (gpuimg__cms_convert(d, n, srgb, srgb_len, n ? d[0] & 1 : 0, gray, &c, why,
                                sizeof why) != 0)
            continue;
        if (!gray) {
            uint8_t out8[12];
            uint16_t out16[6];
            gpuimg__cms_rows(c.transform8, px8, out8, 4);
            gpuimg__cms_rows(c.transform16, px16, out16, 2);
            for (int i = 0; i < 4; i++) {
                uint32_t o[3];
                gpuimg__colour_tetra(c.lut, px8[3 * i], px8[3 * i + 1], px8[3 * i + 2], 255, o);
                FUZZ_CHECK(o[0] <= 255 && o[1] <= 255 && o[2] <= 255, "table value past 255");
                gpuimg__colour_tetra(c.lut, px8[3 * i] * 257u, 65535, 0, 65535, o);
                FUZZ_CHECK(o[0] <= 65535 && o[1] <= 65535 && o[2] <= 65535,
                           "table value past 65535");
            }
        }
        gpuimg__cms_conversion_free(&c);
    }
    for (int depth = 8; depth <= 16; depth += 8) {
        void *t = gpuimg__cms_cmyk_to_srgb(d, n, n > 1 ? d[1] & 1 : 0, depth);
        if (t) {
            uint8_t out[4 * 3 * 2];
            gpuimg__cms_rows(t, depth == 8 ? (const void *)px8 : (const void *)px16, out,
                             depth == 8 ? 3 : 1);
            gpuimg__cms_free(t);
        }
    }
}

/* PNG's colour chunks as the reader keeps them: whole chunks (type,
 * length, data), each of gAMA (4 bytes), cHRM (32), sRGB (1), cICP (4) at
 * most once, no more than the file held. */
static void colour_walk(const gpuimg_metadata *m, size_t n)
{
    static const char types[4][5] = {"gAMA", "cHRM", "sRGB", "cICP"};
    static const uint32_t lens[4] = {4, 32, 1, 4};
    unsigned seen = 0;
    FUZZ_CHECK(m->png_colour_len <= n, "%zu bytes of colour chunks from %zu", m->png_colour_len, n);
    for (size_t at = 0; at < m->png_colour_len;) {
        FUZZ_CHECK(m->png_colour_len - at >= 8, "a colour chunk's head cut");
        const uint8_t *c = m->png_colour + at;
        uint32_t len = gpuimg__be32(c);
        int i = 0;
        while (i < 4 && memcmp(c + 4, types[i], 4) != 0)
            i++;
        FUZZ_CHECK(i < 4 && len == lens[i] && !(seen & 1u << i) &&
                       len <= m->png_colour_len - at - 8,
                   "colour chunk %.4s of %u bytes", (const char *)c + 4, len);
        seen |= 1u << i;
        at += 8 + (size_t)len;
    }
}

/* The blocks of the input: a file's, as the loader finds them, or the
 * input itself as each. NULL when there are none. */
static gpuimg_metadata *blocks(gpuimg_ctx *ctx, const uint8_t *d, size_t n)
{
    const gpuimg__format *format = gpuimg__sniff(d, n);
    gpuimg_metadata *m = NULL;
    if (format && format->meta_read) {
        FUZZ_CHECK(gpuimg__metadata_parse(ctx, "fuzz", format, d, n, &m) == GPUIMG_OK, "parse: %s",
                   gpuimg_ctx_error(ctx));
        if (!m)
            return NULL;
        FUZZ_CHECK(m->icc || m->exif || m->xmp || m->png_colour, "metadata without a block");
        colour_walk(m, n);
        FUZZ_CHECK(m->orientation >= 1 && m->orientation <= 8, "orientation %d", m->orientation);
        FUZZ_CHECK(m->exif ? gpuimg__exif_orientation(m->exif, m->exif_len) == m->orientation
                           : m->orientation == 1,
                   "orientation %d, its EXIF says %d", m->orientation,
                   m->exif ? gpuimg__exif_orientation(m->exif, m->exif_len) : 0);
        /* copied out of the file, but PNG's profile (and XMP) inflated */
        FUZZ_CHECK(m->exif_len <= n &&
                       (format == &gpuimg__format_png || (m->icc_len <= n && m->xmp_len <= n)),
                   "blocks of %zu, %zu, %zu bytes from a file of %zu", m->icc_len, m->exif_len,
                   m->xmp_len, n);
        return m;
    }
    if (n == 0 || !(m = calloc(1, sizeof *m)))
        return NULL;
    int o = gpuimg__exif_orientation(d, n);
    m->orientation = o > 0 ? o : 1;
    /* as a loader would take them: an EXIF that does not parse is dropped */
    if ((o > 0 && !(m->exif = malloc(n))) || !(m->icc = malloc(n)) || !(m->xmp = malloc(n))) {
        gpuimg_metadata_free(m);
        return NULL;
    }
    if (m->exif)
        memcpy(m->exif, d, m->exif_len = n);
    memcpy(m->icc, d, m->icc_len = n);
    memcpy(m->xmp, d, m->xmp_len = n);
    return m;
}

/* JPEG's segments: 65533 bytes after the length, less the identifier (a
 * block that does not fit is left out with a warning); ICC in up to 255. */
#define SEGMENT 65533u

/* Through the writer of row r (its first written extension) and back. */
static void round_trip(gpuimg_ctx *ctx, const gpuimg_metadata *m, const gpuimg__format *r)
{
    gpuimg_format format = r->extensions[0].writes;
    char name[32];
    snprintf(name, sizeof name, "fuzz.%s", r->extensions[0].name);
    /* 3x2, every value different: any turn or flip shows */
    gpuimg_image img;
    FUZZ_CHECK(gpuimg_image_alloc(&img, 3, 2, 3) == GPUIMG_OK, "alloc");
    for (int i = 0; i < 3 * 2 * 3; i++)
        img.data[i] = (uint8_t)(1 + 13 * i);
    gpuimg_metadata *own = gpuimg__metadata_dup(m);
    if (!own) {
        gpuimg_image_free(&img);
        return;
    }
    FUZZ_CHECK(gpuimg__metadata_attach(ctx, name, own, &img) == GPUIMG_OK, "attach: %s",
               gpuimg_ctx_error(ctx));
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    FUZZ_CHECK(f != NULL, "open_memstream");
    gpuimg_status st = r->encode(ctx, f, name, format, &img);
    FUZZ_CHECK(fclose(f) == 0 && st == GPUIMG_OK, "%s: %s", name, gpuimg_ctx_error(ctx));
    gpuimg_image back;
    st = gpuimg_load_memory(ctx, buf, len, name, &back);
    FUZZ_CHECK(st == GPUIMG_OK, "%s written does not read back: %s", name, gpuimg_ctx_error(ctx));
    if (r == &gpuimg__format_jpeg)
        FUZZ_CHECK(back.width == img.width && back.height == img.height,
                   "%s written reads back %dx%d, not %dx%d", name, back.width, back.height,
                   img.width, img.height);
    else
        FUZZ_CHECK(fuzz_same_image(&back, &img), "%s written reads back other pixels", name);
    gpuimg__meta_out o; /* what the writer was given, and JPEG's room for it */
    gpuimg__metadata_for_output(ctx, &img, &o);
    if (r == &gpuimg__format_jpeg) {
        size_t per = SEGMENT - 14;
        if (o.exif_len + 6 > SEGMENT)
            o.exif = NULL, o.exif_len = 0;
        if (o.xmp_len + sizeof "http://ns.adobe.com/xap/1.0/" > SEGMENT)
            o.xmp = NULL, o.xmp_len = 0;
        if ((o.icc_len + per - 1) / per > 255)
            o.icc = NULL, o.icc_len = 0;
    }
    /* JPEG XL: libjxl refuses a profile it cannot parse (written as sRGB,
     * with a warning) and keeps an sRGB-equivalent one as its own sRGB,
     * which reads back as none: a profile may be missing, never another */
    if (r == &gpuimg__format_jxl && (!back.meta || !back.meta->icc))
        o.icc = NULL, o.icc_len = 0;
    const char *differs = fuzz_meta_differs(back.meta, o.icc, o.icc_len, o.exif, o.exif_len,
                                            r != &gpuimg__format_tiff, o.xmp, o.xmp_len);
    FUZZ_CHECK(!differs, "%s written reads back another %s", name, differs);
    /* PNG's colour chunks: back from the PNG writer as they were, but an
     * sRGB beside a profile (the profile wins); from no other writer */
    uint8_t *colour = malloc(o.png_colour_len ? o.png_colour_len : 1);
    FUZZ_CHECK(colour != NULL, "alloc");
    size_t colour_len = 0;
    for (size_t at = 0; r == &gpuimg__format_png && at < o.png_colour_len;) {
        size_t whole = 8 + (size_t)gpuimg__be32(o.png_colour + at);
        if (!(o.icc && memcmp(o.png_colour + at + 4, "sRGB", 4) == 0)) {
            memcpy(colour + colour_len, o.png_colour + at, whole);
            colour_len += whole;
        }
        at += whole;
    }
    size_t back_len = back.meta ? back.meta->png_colour_len : 0;
    FUZZ_CHECK(back_len == colour_len &&
                   (!colour_len || memcmp(back.meta->png_colour, colour, colour_len) == 0),
               "%s written reads back %zu bytes of colour chunks, not the %zu written", name,
               back_len, colour_len);
    free(colour);
    free(o.exif_copy);
    gpuimg_file_info info;
    st = gpuimg_probe_memory(ctx, buf, len, name, &info);
    FUZZ_CHECK(st == GPUIMG_OK, "info refuses %s written: %s", name, gpuimg_ctx_error(ctx));
    size_t icc = back.meta ? back.meta->icc_len : 0, exif = back.meta ? back.meta->exif_len : 0,
           xmp = back.meta ? back.meta->xmp_len : 0;
    FUZZ_CHECK(info.width == back.width && info.height == back.height && info.orientation == 1 &&
                   info.icc_bytes == icc && info.exif_bytes == exif && info.xmp_bytes == xmp,
               "info on %s written: %dx%d, orientation %d, %zu/%zu/%zu bytes of ICC/EXIF/XMP; "
               "it loads %dx%d, %zu/%zu/%zu",
               name, info.width, info.height, info.orientation, info.icc_bytes, info.exif_bytes,
               info.xmp_bytes, back.width, back.height, icc, exif, xmp);
    gpuimg_image_free(&back);
    gpuimg_image_free(&img);
    free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static gpuimg_ctx *ctx;
    if (!ctx) {
        gpuimg_config cfg;
        gpuimg_config_init(&cfg);
        cfg.lossless = 1; /* the same pixels back */
        ctx = fuzz_ctx_with(&cfg);
    }
    exif_walk(data, size);
    icc_walk(data, size);
    icc_engine(data, size);
    gpuimg_metadata *m = blocks(ctx, data, size);
    if (!m)
        return 0;
    for (const gpuimg__format *const *f = gpuimg__formats; *f; f++)
        if ((*f)->meta_write && (*f)->encode)
            round_trip(ctx, m, *f);
    gpuimg_metadata_free(m);
    return 0;
}
