/* SPDX-License-Identifier: MIT */
/* TIFF's layouts and tags (issue 23): the Orientation tag applied once on
 * every path (strips and tiles read sample by sample, and libtiff's RGBA
 * reader for palettes, 4-bit and CMYK), tiles of any size, `info`'s
 * channels equal to the loader's, and IFD0's Make, Model... carried from
 * and into other formats.
 *
 * Every file is written here with libtiff itself, and every expected
 * pixel computed here from the TIFF specification (never from gpuimg's
 * output). */
#define _GNU_SOURCE /* memmem */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tiffio.h>

#include "testutil.h"

#define RUN(out, err, ...)                                                                         \
    tu_run((const char *const[]){tu_bin(), __VA_ARGS__, NULL}, NULL, out, err)

/* The picture: W x H, odd sides so that tiles of 16 reach past the edges. */
enum { W = 37, H = 21, TILE = 16 };

/* How a test file stores its pixels. */
typedef struct layout {
    uint16_t photometric, spp, bits, orientation;
    uint32_t tile;       /* 0: strips of 5 rows */
    int alpha;           /* the last sample is an unassociated alpha */
    const uint16_t *map; /* PHOTOMETRIC_PALETTE: 3 << bits entries */
} layout;

/* Stored sample s of pixel (x, y), below 2^bits. */
static uint16_t stored(int x, int y, int s, int bits)
{
    uint32_t v = (uint32_t)(x * 7 + y * 13 + s * 61 + x * y);
    if (bits == 16)
        return (uint16_t)(v * 331 + 5);
    return (uint16_t)(v & ((1u << bits) - 1));
}

/* n samples of 1-16 bits packed as TIFF stores them: MSB first below 8
 * bits, 16 bits in the machine's order (libtiff swaps when it must). */
static void pack(uint8_t *dst, const uint16_t *v, size_t n, int bits)
{
    if (bits == 16) {
        memcpy(dst, v, n * 2);
        return;
    }
    memset(dst, 0, (n * (size_t)bits + 7) / 8);
    for (size_t i = 0; i < n; i++) {
        size_t bit = i * (size_t)bits;
        dst[bit / 8] |= (uint8_t)(v[i] << (8 - bits - bit % 8));
    }
}

/* Samples of stored row y, columns x0 .. x0 + n (zero past the image). */
static void stored_row(uint16_t *v, int x0, int n, int y, const layout *l)
{
    for (int x = 0; x < n; x++)
        for (int s = 0; s < l->spp; s++)
            v[x * l->spp + s] = x0 + x < W && y < H ? stored(x0 + x, y, s, l->bits) : (uint16_t)0;
}

static void write_tiff(const char *path, const layout *l)
{
    TIFF *t = TIFFOpen(path, "w");
    ck_assert_ptr_nonnull(t);
    TIFFSetField(t, TIFFTAG_IMAGEWIDTH, (uint32_t)W);
    TIFFSetField(t, TIFFTAG_IMAGELENGTH, (uint32_t)H);
    TIFFSetField(t, TIFFTAG_SAMPLESPERPIXEL, l->spp);
    TIFFSetField(t, TIFFTAG_BITSPERSAMPLE, l->bits);
    TIFFSetField(t, TIFFTAG_PHOTOMETRIC, l->photometric);
    TIFFSetField(t, TIFFTAG_PLANARCONFIG, PLANARCONFIG_CONTIG);
    TIFFSetField(t, TIFFTAG_COMPRESSION, COMPRESSION_NONE);
    TIFFSetField(t, TIFFTAG_ORIENTATION, l->orientation);
    if (l->photometric == PHOTOMETRIC_SEPARATED)
        TIFFSetField(t, TIFFTAG_INKSET, INKSET_CMYK);
    if (l->alpha) {
        uint16_t kind = EXTRASAMPLE_UNASSALPHA;
        TIFFSetField(t, TIFFTAG_EXTRASAMPLES, 1, &kind);
    }
    if (l->map) {
        size_t n = (size_t)1 << l->bits;
        TIFFSetField(t, TIFFTAG_COLORMAP, l->map, l->map + n, l->map + 2 * n);
    }
    int across = l->tile ? (int)l->tile : W;
    uint16_t *v = malloc((size_t)across * l->spp * sizeof *v);
    uint8_t *buf = malloc((size_t)across * (size_t)across * l->spp * 2 + 16);
    if (l->tile) {
        TIFFSetField(t, TIFFTAG_TILEWIDTH, l->tile);
        TIFFSetField(t, TIFFTAG_TILELENGTH, l->tile);
        size_t row = ((size_t)l->tile * l->spp * l->bits + 7) / 8;
        ck_assert_int_eq((tmsize_t)(row * l->tile), TIFFTileSize(t));
        for (int ty = 0; ty < H; ty += across)
            for (int tx = 0; tx < W; tx += across) {
                for (int r = 0; r < across; r++) {
                    stored_row(v, tx, across, ty + r, l);
                    pack(buf + r * row, v, (size_t)across * l->spp, l->bits);
                }
                ck_assert_int_ge(TIFFWriteTile(t, buf, (uint32_t)tx, (uint32_t)ty, 0, 0), 0);
            }
    } else {
        TIFFSetField(t, TIFFTAG_ROWSPERSTRIP, (uint32_t)5);
        for (int y = 0; y < H; y++) {
            stored_row(v, 0, W, y, l);
            pack(buf, v, (size_t)W * l->spp, l->bits);
            ck_assert_int_ge(TIFFWriteScanline(t, buf, (uint32_t)y, 0), 0);
        }
    }
    free(v);
    free(buf);
    TIFFClose(t);
}

/* What a reader shows of stored pixel (x, y), channel ch: the samples, the
 * palette's entry (its 16 bits' high byte), or CMYK inverted naively as
 * libtiff does with no profile. */
static int shown(const layout *l, int x, int y, int ch)
{
    if (l->photometric == PHOTOMETRIC_PALETTE) {
        size_t n = (size_t)1 << l->bits;
        return l->map[(size_t)ch * n + stored(x, y, 0, l->bits)] >> 8;
    }
    if (l->photometric == PHOTOMETRIC_SEPARATED) {
        int k = 255 - stored(x, y, 3, 8);
        return k * (255 - stored(x, y, ch, 8)) / 255;
    }
    return stored(x, y, ch, l->bits);
}

/* The stored pixel shown at (x, y) of the upright picture, for each
 * Orientation as TIFF 6.0 defines it (where the stored 0th row and 0th
 * column are seen). */
static void upright_source(int o, int x, int y, int *sx, int *sy)
{
    switch (o) {
    case 1: *sx = x, *sy = y; break;                 /* top, left */
    case 2: *sx = W - 1 - x, *sy = y; break;         /* top, right */
    case 3: *sx = W - 1 - x, *sy = H - 1 - y; break; /* bottom, right */
    case 4: *sx = x, *sy = H - 1 - y; break;         /* bottom, left */
    case 5: *sx = y, *sy = x; break;                 /* left, top */
    case 6: *sx = y, *sy = H - 1 - x; break;         /* right, top */
    case 7: *sx = W - 1 - y, *sy = H - 1 - x; break; /* right, bottom */
    default: *sx = W - 1 - y, *sy = x; break;        /* 8: left, bottom */
    }
}

/* Value (x, y, ch) of an 8- or 16-bit image of any stride. */
static int value(const gpuimg_image *img, int x, int y, int ch)
{
    int bytes = gpuimg_image_depth(img) / 8;
    size_t row = img->stride ? img->stride : (size_t)img->width * img->channels * bytes;
    size_t at = (size_t)x * img->channels + ch;
    const uint8_t *r = img->data + (size_t)y * row;
    if (bytes == 2) {
        uint16_t v;
        memcpy(&v, r + at * 2, 2);
        return v;
    }
    return r[at];
}

/* img is the picture l stores, seen with Orientation o (1: as stored). */
static void assert_shows(const gpuimg_image *img, const layout *l, int o, int channels,
                         const char *what)
{
    int turned = o >= 5;
    ck_assert_msg(img->width == (turned ? H : W) && img->height == (turned ? W : H),
                  "%s, orientation %d: %dx%d", what, o, img->width, img->height);
    ck_assert_int_eq(img->channels, channels);
    for (int y = 0; y < img->height; y++)
        for (int x = 0; x < img->width; x++) {
            int sx, sy;
            upright_source(o, x, y, &sx, &sy);
            for (int ch = 0; ch < channels; ch++) {
                int want = shown(l, sx, sy, ch), got = value(img, x, y, ch);
                ck_assert_msg(got == want, "%s, orientation %d: (%d,%d) channel %d is %d, not %d",
                              what, o, x, y, ch, got, want);
            }
        }
}

static gpuimg_ctx *raw_ctx(void)
{
    gpuimg_config cfg;
    gpuimg_config_init(&cfg);
    cfg.backend = GPUIMG_BACKEND_CPU;
    cfg.no_auto_orient = 1;
    gpuimg_ctx *ctx;
    ck_assert_int_eq(gpuimg_ctx_create(&cfg, &ctx), GPUIMG_OK);
    return ctx;
}

/* 256 entries of each colour, 16 bits, their high bytes distinct. */
static uint16_t palette[3 * 256];

static void make_palette(void)
{
    for (int i = 0; i < 256; i++) {
        palette[i] = (uint16_t)(i * 257);
        palette[256 + i] = (uint16_t)((255 - i) * 257);
        palette[512 + i] = (uint16_t)(((i * 37 + 11) & 255) * 257);
    }
}

/* A 4-bit palette: 16 entries of each colour. */
static uint16_t palette4[3 * 16];

static void make_palette4(void)
{
    for (int i = 0; i < 16; i++) {
        palette4[i] = (uint16_t)(i * 17 * 257);
        palette4[16 + i] = (uint16_t)((15 - i) * 16 * 257);
        palette4[32 + i] = (uint16_t)(((i * 5 + 3) & 15) * 16 * 257);
    }
}

/* Every orientation, in strips and in tiles, read sample by sample (RGB)
 * and through libtiff's RGBA reader (8- and 4-bit palettes, CMYK): the
 * picture upright, the same whichever way it is stored; and as stored
 * with --no-auto-orient. */
START_TEST(orientation_applied_once)
{
    char dir[300];
    snprintf(dir, sizeof dir, "%s", tu_tmpdir()); /* one folder: each call makes another */
    make_palette();
    make_palette4();
    const layout kinds[] = {
        {PHOTOMETRIC_RGB, 3, 8, 1, 0, 0, NULL},
        {PHOTOMETRIC_PALETTE, 1, 8, 1, 0, 0, palette},
        {PHOTOMETRIC_PALETTE, 1, 4, 1, 0, 0, palette4},
        {PHOTOMETRIC_SEPARATED, 4, 8, 1, 0, 0, NULL},
    };
    const char *names[] = {"RGB", "8-bit palette", "4-bit palette", "CMYK"};
    gpuimg_ctx *ctx = tu_ctx(), *raw = raw_ctx();
    char path[512], what[128];
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++)
        for (int o = 1; o <= 8; o++) {
            gpuimg_image strips = {0}, tiles = {0};
            for (int tiled = 0; tiled < 2; tiled++) {
                layout l = kinds[k];
                l.orientation = (uint16_t)o;
                l.tile = tiled ? TILE : 0;
                snprintf(path, sizeof path, "%s/o%d_%zu_%d.tif", dir, o, k, tiled);
                snprintf(what, sizeof what, "%s in %s", names[k], tiled ? "tiles" : "strips");
                write_tiff(path, &l);
                gpuimg_image *img = tiled ? &tiles : &strips, as_stored;
                tu_load(ctx, path, img);
                assert_shows(img, &l, o, 3, what);
                ck_assert_int_eq(img->meta->orientation, o);
                tu_load(raw, path, &as_stored);
                assert_shows(&as_stored, &l, 1, 3, what);
                gpuimg_image_free(&as_stored);
            }
            ck_assert_int_eq(strips.width, tiles.width);
            ck_assert_mem_eq(strips.data, tiles.data, (size_t)W * H * 3);
            gpuimg_image_free(&strips);
            gpuimg_image_free(&tiles);
        }
    gpuimg_ctx_destroy(raw);
    gpuimg_ctx_destroy(ctx);
}
END_TEST

/* Uncompressed tiles whose byte count is no multiple of 1 KiB (16 x 16 of
 * one, two, three or four 8- or 16-bit samples), each read exactly, at its
 * depth. */
START_TEST(tiles_of_any_size)
{
    char dir[300];
    snprintf(dir, sizeof dir, "%s", tu_tmpdir()); /* one folder: each call makes another */
    const layout kinds[] = {
        {PHOTOMETRIC_RGB, 3, 8, 1, TILE, 0, NULL},         /* 768 bytes a tile */
        {PHOTOMETRIC_RGB, 3, 16, 1, TILE, 0, NULL},        /* 1536 */
        {PHOTOMETRIC_MINISBLACK, 1, 8, 1, TILE, 0, NULL},  /* 256 */
        {PHOTOMETRIC_MINISBLACK, 2, 16, 1, TILE, 1, NULL}, /* 1024 */
        {PHOTOMETRIC_RGB, 4, 8, 1, 48, 1, NULL},           /* 9216 */
        {PHOTOMETRIC_MINISBLACK, 1, 16, 1, 32, 0, NULL},   /* 2048 */
    };
    gpuimg_ctx *ctx = tu_ctx();
    char path[512], what[64];
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
        snprintf(path, sizeof path, "%s/tiles%zu.tif", dir, k);
        write_tiff(path, &kinds[k]);
        gpuimg_image img;
        gpuimg_status st = gpuimg_load(ctx, path, &img);
        ck_assert_msg(st == GPUIMG_OK, "%s", gpuimg_ctx_error(ctx));
        snprintf(what, sizeof what, "%u samples of %u bits in %ux%u tiles", kinds[k].spp,
                 kinds[k].bits, kinds[k].tile, kinds[k].tile);
        ck_assert_int_eq(gpuimg_image_depth(&img), kinds[k].bits);
        assert_shows(&img, &kinds[k], 1, kinds[k].spp, what);
        gpuimg_image_free(&img);
    }
    gpuimg_ctx_destroy(ctx);
}
END_TEST

/* `info` (gpuimg_probe, from the tags) gives the channels the loader
 * gives, for the layouts that store other samples than they read as. */
START_TEST(info_channels_as_loaded)
{
    char dir[300];
    snprintf(dir, sizeof dir, "%s", tu_tmpdir()); /* one folder: each call makes another */
    make_palette();
    const struct {
        layout l;
        int channels;
    } cases[] = {
        {{PHOTOMETRIC_PALETTE, 1, 8, 1, 0, 0, palette}, 3},
        {{PHOTOMETRIC_PALETTE, 1, 8, 1, TILE, 0, palette}, 3},
        {{PHOTOMETRIC_SEPARATED, 4, 8, 1, 0, 0, NULL}, 3},
        {{PHOTOMETRIC_SEPARATED, 4, 8, 1, TILE, 0, NULL}, 3},
        {{PHOTOMETRIC_MINISBLACK, 2, 8, 1, 0, 1, NULL}, 2},
        {{PHOTOMETRIC_MINISBLACK, 2, 16, 1, TILE, 1, NULL}, 2},
        {{PHOTOMETRIC_MINISBLACK, 1, 1, 1, 0, 0, NULL}, 1},
        {{PHOTOMETRIC_MINISBLACK, 1, 4, 1, TILE, 0, NULL}, 1},
        {{PHOTOMETRIC_RGB, 4, 8, 1, 0, 1, NULL}, 4},
        {{PHOTOMETRIC_RGB, 4, 16, 1, TILE, 1, NULL}, 4},
        {{PHOTOMETRIC_RGB, 3, 8, 1, 0, 0, NULL}, 3},
    };
    gpuimg_ctx *ctx = tu_ctx();
    char path[512];
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        snprintf(path, sizeof path, "%s/info%zu.tif", dir, k);
        write_tiff(path, &cases[k].l);
        gpuimg_file_info info;
        ck_assert_int_eq(gpuimg_probe(ctx, path, &info), GPUIMG_OK);
        gpuimg_image img;
        tu_load(ctx, path, &img);
        ck_assert_msg(info.channels == img.channels && img.channels == cases[k].channels,
                      "case %zu: info %d, loaded %d, expected %d", k, info.channels, img.channels,
                      cases[k].channels);
        ck_assert_int_eq(info.depth, cases[k].l.bits); /* the file's, as the API says */
        gpuimg_image_free(&img);
    }
    /* and the command's output says so */
    snprintf(path, sizeof path, "%s/info2.tif", dir);
    char *out = NULL;
    ck_assert_int_eq(RUN(&out, NULL, "info", "--json", path), 0);
    double channels = 0;
    ck_assert_int_eq(tu_json_numbers(out, "channels", &channels, 1), 1);
    ck_assert_int_eq((int)channels, 3);
    free(out);
    gpuimg_ctx_destroy(ctx);
}
END_TEST

/* ---- IFD0's tags: Make, Model... ---- */

static const struct {
    uint16_t tag;
    const char *text;
} CAMERA[] = {
    {TIFFTAG_MAKE, "Canon"},
    {TIFFTAG_MODEL, "Canon EOS R5"},
    {TIFFTAG_SOFTWARE, "Firmware 1.8.1"},
    {TIFFTAG_DATETIME, "2026:11:24 10:00:00"},
    {TIFFTAG_ARTIST, "A. Photographer"},
    {TIFFTAG_COPYRIGHT, "(c) 2026 A. Photographer"},
};
#define CAMERA_TAGS (sizeof CAMERA / sizeof CAMERA[0])

/* A big-endian EXIF block of an IFD0 with the camera's text tags and an
 * Orientation, every text out of line. Returns its size. */
static size_t exif_block(uint8_t *b, uint16_t orientation)
{
    memset(b, 0, 1024);
    memcpy(b, "MM\0*\0\0\0\x08", 8);
    size_t n = CAMERA_TAGS + 1, values = 8 + 2 + 12 * n + 4, e = 10;
    b[8] = 0, b[9] = (uint8_t)n;
    for (size_t i = 0; i < n; i++, e += 12) {
        /* in tag order: Make, Model, then Orientation, then the rest */
        size_t t = i < 2 ? i : i - 1;
        if (i == 2) {
            uint8_t entry[12] = {0x01, 0x12, 0, 3, 0, 0, 0, 1, 0, (uint8_t)orientation, 0, 0};
            memcpy(b + e, entry, 12);
            continue;
        }
        uint32_t len = (uint32_t)strlen(CAMERA[t].text) + 1;
        uint8_t entry[12] = {(uint8_t)(CAMERA[t].tag >> 8),
                             (uint8_t)CAMERA[t].tag,
                             0,
                             2,
                             0,
                             0,
                             0,
                             (uint8_t)len,
                             0,
                             0,
                             (uint8_t)(values >> 8),
                             (uint8_t)values};
        memcpy(b + e, entry, 12);
        memcpy(b + values, CAMERA[t].text, len);
        values += len + (len & 1);
    }
    return values;
}

/* IFD0's entry `tag` of an EXIF block, parsed here: its text (NULL when
 * absent), or for a SHORT its value in *number. */
static const char *exif_ifd0(const uint8_t *b, size_t n, uint16_t tag, int *number)
{
    ck_assert_uint_ge(n, 8);
    int le = b[0] == 'I';
#define U16(p) (le ? (unsigned)(p)[0] | (unsigned)(p)[1] << 8 : (unsigned)(p)[0] << 8 | (p)[1])
#define U32(p) (le ? U16(p) | (uint32_t)U16((p) + 2) << 16 : (uint32_t)U16(p) << 16 | U16((p) + 2))
    uint32_t ifd = U32(b + 4);
    ck_assert_uint_le(ifd + 2, n);
    unsigned count = U16(b + ifd);
    ck_assert_uint_le(ifd + 2 + 12 * count, n);
    for (unsigned i = 0; i < count; i++) {
        const uint8_t *e = b + ifd + 2 + 12 * i;
        if (U16(e) != tag)
            continue;
        uint32_t len = U32(e + 4);
        if (U16(e + 2) == 3) {
            *number = (int)U16(e + 8);
            return "";
        }
        ck_assert_uint_eq(U16(e + 2), 2);
        const uint8_t *v = len <= 4 ? e + 8 : b + U32(e + 8);
        ck_assert_uint_le((size_t)(v - b) + len, n);
        ck_assert_uint_eq(v[len - 1], 0);
        return (const char *)v;
    }
    return NULL;
#undef U16
#undef U32
}

/* The camera's tags in an EXIF block. */
static void assert_exif_camera(const gpuimg_image *img, const char *what)
{
    ck_assert_msg(img->meta && img->meta->exif, "%s: no EXIF", what);
    int number = 0;
    for (size_t i = 0; i < CAMERA_TAGS; i++) {
        const char *s = exif_ifd0(img->meta->exif, img->meta->exif_len, CAMERA[i].tag, &number);
        ck_assert_msg(s && strcmp(s, CAMERA[i].text) == 0, "%s: tag %u is %s", what, CAMERA[i].tag,
                      s ? s : "absent");
    }
}

/* The camera's tags in a TIFF file, read by libtiff. */
static void assert_tiff_camera(const char *path, uint16_t orientation)
{
    TIFF *t = TIFFOpen(path, "r");
    ck_assert_ptr_nonnull(t);
    for (size_t i = 0; i < CAMERA_TAGS; i++) {
        char *s = NULL;
        ck_assert_msg(TIFFGetField(t, CAMERA[i].tag, &s) && s, "%s: tag %u absent", path,
                      CAMERA[i].tag);
        ck_assert_str_eq(s, CAMERA[i].text);
    }
    uint16_t o = 0;
    TIFFGetFieldDefaulted(t, TIFFTAG_ORIENTATION, &o);
    ck_assert_int_eq(o, orientation);
    TIFFClose(t);
}

/* A camera's TIFF: RGB in strips, IFD0 with the text tags. */
static void write_camera_tiff(const char *path, uint16_t orientation)
{
    layout l = {PHOTOMETRIC_RGB, 3, 8, orientation, 0, 0, NULL};
    write_tiff(path, &l);
    TIFF *t = TIFFOpen(path, "r+");
    ck_assert_ptr_nonnull(t);
    for (size_t i = 0; i < CAMERA_TAGS; i++)
        ck_assert(TIFFSetField(t, CAMERA[i].tag, CAMERA[i].text));
    ck_assert(TIFFRewriteDirectory(t));
    TIFFClose(t);
}

/* A PNG's eXIf (and a JPEG's APP1) with the camera's IFD0 into a TIFF's
 * own tags; a TIFF's into PNG's eXIf and WebP's EXIF; TIFF to TIFF kept. */
START_TEST(camera_tags_carried)
{
    char dir[300];
    snprintf(dir, sizeof dir, "%s", tu_tmpdir()); /* one folder: each call makes another */
    gpuimg_ctx *ctx = tu_ctx();
    char png[512], jpg[512], tif[512], out[512];
    snprintf(png, sizeof png, "%s/camera.png", dir);
    snprintf(jpg, sizeof jpg, "%s/camera.jpg", dir);
    gpuimg_image img;
    ck_assert_int_eq(gpuimg_image_alloc(&img, W, H, 3), GPUIMG_OK);
    img.meta = calloc(1, sizeof *img.meta);
    img.meta->exif = malloc(1024);
    img.meta->exif_len = exif_block(img.meta->exif, 1);
    img.meta->orientation = 1;
    ck_assert_int_eq(gpuimg_save(ctx, png, GPUIMG_FORMAT_NONE, &img), GPUIMG_OK);
    ck_assert_int_eq(gpuimg_save(ctx, jpg, GPUIMG_FORMAT_NONE, &img), GPUIMG_OK);
    gpuimg_image_free(&img);
    const char *from[] = {png, jpg};
    for (int k = 0; k < 2; k++) {
        snprintf(out, sizeof out, "%s/from%d.tif", dir, k);
        ck_assert_int_eq(RUN(NULL, NULL, "run", from[k], out), 0);
        assert_tiff_camera(out, 1);
    }
    /* a camera's TIFF into PNG and WebP, and into TIFF again */
    snprintf(tif, sizeof tif, "%s/camera.tif", dir);
    write_camera_tiff(tif, 1);
    const char *to[] = {"png", "webp", "tif"};
    for (int k = 0; k < 3; k++) {
        snprintf(out, sizeof out, "%s/to.%s", dir, to[k]);
        ck_assert_int_eq(RUN(NULL, NULL, "invert", tif, out), 0);
        tu_load(ctx, out, &img);
        assert_exif_camera(&img, out);
        gpuimg_image_free(&img);
    }
    assert_tiff_camera(out, 1);
    gpuimg_ctx_destroy(ctx);
}
END_TEST

/* The Orientation travels with IFD0: a TIFF turned upright on reading is
 * written with Orientation 1 (its EXIF too); kept as stored
 * (--no-auto-orient), it keeps its tag, in a TIFF and in a PNG's eXIf. */
START_TEST(orientation_written)
{
    char dir[300];
    snprintf(dir, sizeof dir, "%s", tu_tmpdir()); /* one folder: each call makes another */
    gpuimg_ctx *ctx = tu_ctx(), *raw = raw_ctx();
    char tif[512], out[512];
    snprintf(tif, sizeof tif, "%s/turned.tif", dir);
    write_camera_tiff(tif, 6);
    snprintf(out, sizeof out, "%s/upright.tif", dir);
    ck_assert_int_eq(RUN(NULL, NULL, "run", tif, out), 0);
    assert_tiff_camera(out, 1);
    snprintf(out, sizeof out, "%s/kept.tif", dir);
    ck_assert_int_eq(RUN(NULL, NULL, "--no-auto-orient", "run", tif, out), 0);
    assert_tiff_camera(out, 6);
    gpuimg_image img;
    tu_load(raw, out, &img); /* still as stored */
    ck_assert_int_eq(img.width, W);
    gpuimg_image_free(&img);
    int number = 0;
    const char *o = "";
    for (int keep = 0; keep < 2; keep++) {
        snprintf(out, sizeof out, "%s/turned%d.png", dir, keep);
        ck_assert_int_eq(keep ? RUN(NULL, NULL, "--no-auto-orient", "run", tif, out)
                              : RUN(NULL, NULL, "run", tif, out),
                         0);
        tu_load(raw, out, &img);
        ck_assert_ptr_nonnull(img.meta);
        o = exif_ifd0(img.meta->exif, img.meta->exif_len, TIFFTAG_ORIENTATION, &number);
        ck_assert_ptr_nonnull(o);
        ck_assert_int_eq(number, keep ? 6 : 1);
        ck_assert_int_eq(img.width, keep ? W : H);
        gpuimg_image_free(&img);
    }
    gpuimg_ctx_destroy(raw);
    gpuimg_ctx_destroy(ctx);
}
END_TEST

/* IFD0 entries that lie (a text outside the file, an Artist of another
 * type): left out, the image and the other tags read. */
START_TEST(camera_tags_untrusted)
{
    char dir[300];
    snprintf(dir, sizeof dir, "%s", tu_tmpdir()); /* one folder: each call makes another */
    gpuimg_ctx *ctx = tu_ctx();
    char path[512];
    snprintf(path, sizeof path, "%s/lies.tif", dir);
    write_camera_tiff(path, 1);
    size_t n = 0;
    uint8_t *file = (uint8_t *)tu_read_file(path, &n);
    ck_assert_ptr_nonnull(file);
    ck_assert(file[0] == 'I' || file[0] == 'M');
    int le = file[0] == 'I';
#define P16(p, v) ((p)[le ? 0 : 1] = (uint8_t)(v), (p)[le ? 1 : 0] = (uint8_t)((v) >> 8))
#define G16(p) (le ? (unsigned)(p)[0] | (unsigned)(p)[1] << 8 : (unsigned)(p)[0] << 8 | (p)[1])
#define G32(p) (le ? G16(p) | (uint32_t)G16((p) + 2) << 16 : (uint32_t)G16(p) << 16 | G16((p) + 2))
    uint32_t ifd = G32(file + 4);
    unsigned count = G16(file + ifd);
    for (unsigned i = 0; i < count; i++) {
        uint8_t *e = file + ifd + 2 + 12 * i;
        if (G16(e) == TIFFTAG_MODEL) { /* the text's offset past the end */
            uint32_t far = (uint32_t)n + 100;
            P16(e + 8 + (le ? 0 : 2), far & 0xFFFF);
            P16(e + 8 + (le ? 2 : 0), far >> 16);
        } else if (G16(e) == TIFFTAG_ARTIST) { /* a BYTE, not ASCII */
            P16(e + 2, 1);
        }
    }
#undef P16
#undef G16
#undef G32
    tu_write_file(path, file, n);
    free(file);
    gpuimg_image img;
    gpuimg_status st = gpuimg_load(ctx, path, &img);
    ck_assert_msg(st == GPUIMG_OK, "%s", gpuimg_ctx_error(ctx));
    ck_assert_ptr_nonnull(img.meta);
    ck_assert_ptr_nonnull(img.meta->exif);
    int number = 0;
    const uint8_t *e = img.meta->exif;
    size_t len = img.meta->exif_len;
    ck_assert_str_eq(exif_ifd0(e, len, TIFFTAG_MAKE, &number), "Canon");
    ck_assert_ptr_null(exif_ifd0(e, len, TIFFTAG_MODEL, &number));
    ck_assert_ptr_null(exif_ifd0(e, len, TIFFTAG_ARTIST, &number));
    ck_assert_str_eq(exif_ifd0(e, len, TIFFTAG_COPYRIGHT, &number), CAMERA[5].text);
    layout l = {PHOTOMETRIC_RGB, 3, 8, 1, 0, 0, NULL};
    assert_shows(&img, &l, 1, 3, "lies.tif");
    gpuimg_image_free(&img);
    gpuimg_ctx_destroy(ctx);
}
END_TEST

Suite *tiff_suite(void)
{
    Suite *s = suite_create("tiff");
    TCase *tc = tcase_create("tiff");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, orientation_applied_once);
    tcase_add_test(tc, tiles_of_any_size);
    tcase_add_test(tc, info_channels_as_loaded);
    tcase_add_test(tc, camera_tags_carried);
    tcase_add_test(tc, orientation_written);
    tcase_add_test(tc, camera_tags_untrusted);
    suite_add_tcase(s, tc);
    return s;
}
