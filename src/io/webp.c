/* SPDX-License-Identifier: MIT */
/* WebP through libwebp (SPEC §2): read lossy and lossless, with or without
 * alpha (its metadata chunks read by its row's meta_read); written lossy at
 * --jpeg-quality or, with --webp-lossless, lossless and exact (the colour
 * of fully transparent pixels kept), the input's ICC profile, EXIF and XMP
 * added as chunks through libwebpmux. WebP has no gray: gray is written as
 * RGB and read back as RGB. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <webp/decode.h>
#include <webp/encode.h>
#include <webp/mux.h>

#include "io/formats.h"
#include "io/io.h"
#include "io/metadata.h"
#include "io/walk_riff.h"

static int is_webp(const uint8_t *data, size_t size)
{
    return size >= 12 && memcmp(data, "RIFF", 4) == 0 && memcmp(data + 8, "WEBP", 4) == 0;
}

/* The features of a still WebP as the loader reads them: a damaged or
 * animated one fails, naming the file. */
static gpuimg_status features(gpuimg_ctx *ctx, const uint8_t *data, size_t size, const char *name,
                              WebPBitstreamFeatures *f)
{
    if (WebPGetFeatures(data, size, f) != VP8_STATUS_OK)
        return gpuimg__fail(ctx, GPUIMG_ERR_DECODE, "%s: not a supported image (damaged WebP)",
                            name);
    if (f->has_animation)
        return gpuimg__fail(ctx, GPUIMG_ERR_DECODE,
                            "%s: not a supported image (animated WebP; only still ones are read)",
                            name);
    return GPUIMG_OK;
}

/* The loader's test of a WebP: damaged and animated ones fail. */
static gpuimg_status probe(gpuimg_ctx *ctx, const char *name, const uint8_t *d, size_t n,
                           gpuimg_file_info *o)
{
    WebPBitstreamFeatures wf;
    gpuimg_status st = features(ctx, d, n, name, &wf);
    if (st != GPUIMG_OK)
        return st;
    o->stored_width = wf.width, o->stored_height = wf.height;
    o->channels = wf.has_alpha ? 4 : 3, o->depth = 8;
    return GPUIMG_OK;
}

/* The RIFF container's ICCP, EXIF and XMP chunks. The walk advances by
 * each chunk's declared size (gpuimg__riff_next); an EXIF body's JPEG
 * prefix is stripped from what is kept, never from the walk. */
static int meta_read(gpuimg__meta_notes *notes, const uint8_t *data, size_t size,
                     gpuimg_metadata *m)
{
    (void)notes;
    gpuimg__riff_chunk c;
    for (size_t pos = 12; gpuimg__riff_next(data, size, &pos, &c);) {
        const uint8_t *body = c.body;
        size_t len = c.len;
        uint8_t **dst = NULL;
        size_t *dst_len = NULL;
        if (memcmp(c.fourcc, "ICCP", 4) == 0 && !m->icc)
            dst = &m->icc, dst_len = &m->icc_len;
        else if (memcmp(c.fourcc, "EXIF", 4) == 0 && !m->exif)
            dst = &m->exif, dst_len = &m->exif_len;
        else if (memcmp(c.fourcc, "XMP ", 4) == 0 && !m->xmp)
            dst = &m->xmp, dst_len = &m->xmp_len;
        if (dst == &m->exif && len > GPUIMG__EXIF_ID_LEN &&
            memcmp(body, GPUIMG__EXIF_ID, GPUIMG__EXIF_ID_LEN) == 0)
            body += GPUIMG__EXIF_ID_LEN,
                len -= GPUIMG__EXIF_ID_LEN; /* JPEG's prefix, kept by some */
        if (dst && len > 0) {
            if (!(*dst = gpuimg__meta_copy(body, len)))
                return 0;
            *dst_len = len;
        }
    }
    return 1;
}

static gpuimg_status decode(gpuimg_ctx *ctx, const uint8_t *data, size_t size, const char *name,
                            gpuimg_image *out)
{
    WebPBitstreamFeatures f;
    gpuimg_status st = features(ctx, data, size, name, &f);
    if (st == GPUIMG_OK)
        st = gpuimg__check_size(ctx, name, (uint64_t)f.width, (uint64_t)f.height);
    if (st != GPUIMG_OK)
        return st;
    int c = f.has_alpha ? 4 : 3;
    if ((st = gpuimg__image_take(ctx, out, f.width, f.height, c)) != GPUIMG_OK)
        return gpuimg__fail_as(ctx, st, name);
    size_t bytes = (size_t)f.width * (size_t)f.height * (size_t)c;
    int stride = f.width * c;
    uint8_t *got = c == 4 ? WebPDecodeRGBAInto(data, size, out->data, bytes, stride)
                          : WebPDecodeRGBInto(data, size, out->data, bytes, stride);
    if (!got) {
        gpuimg_image_free(out);
        return gpuimg__fail(ctx, GPUIMG_ERR_DECODE,
                            "%s: not a supported image (damaged or truncated WebP)", name);
    }
    return GPUIMG_OK;
}

static int write_memory(const uint8_t *data, size_t size, const WebPPicture *pic)
{
    return WebPMemoryWrite(data, size, pic);
}

/* The picture of img: gray widened to RGB (WebP has no gray). */
static int import(WebPPicture *pic, const gpuimg_image *img)
{
    int w = img->width, h = img->height, c = img->channels;
    if (c >= 3)
        return c == 4 ? WebPPictureImportRGBA(pic, img->data, w * 4)
                      : WebPPictureImportRGB(pic, img->data, w * 3);
    size_t n = (size_t)w * (size_t)h;
    int oc = c == 2 ? 4 : 3;
    uint8_t *rgb = malloc(n * (size_t)oc);
    if (!rgb)
        return 0;
    for (size_t i = 0; i < n; i++) {
        uint8_t g = img->data[i * (size_t)c];
        rgb[i * oc] = rgb[i * oc + 1] = rgb[i * oc + 2] = g;
        if (oc == 4)
            rgb[i * oc + 3] = img->data[i * 2 + 1];
    }
    int ok =
        oc == 4 ? WebPPictureImportRGBA(pic, rgb, w * 4) : WebPPictureImportRGB(pic, rgb, w * 3);
    free(rgb);
    return ok;
}

/* The bitstream with the metadata's chunks (VP8X, ICCP, EXIF, XMP), or the
 * bitstream itself when there is none. */
static int with_metadata(const gpuimg_ctx *ctx, const gpuimg_image *img, WebPMemoryWriter *w,
                         WebPData *out)
{
    gpuimg__meta_out m;
    gpuimg__metadata_for_output(ctx, img, &m);
    WebPData image = {w->mem, w->size};
    if (!m.icc && !m.exif && !m.xmp) {
        *out = image;
        free(m.exif_copy);
        return 1;
    }
    WebPMux *mux = WebPMuxCreate(&image, 0);
    WebPData icc = {m.icc, m.icc_len}, exif = {m.exif, m.exif_len}, xmp = {m.xmp, m.xmp_len};
    int ok = mux && (!m.icc || WebPMuxSetChunk(mux, "ICCP", &icc, 1) == WEBP_MUX_OK) &&
             (!m.exif || WebPMuxSetChunk(mux, "EXIF", &exif, 1) == WEBP_MUX_OK) &&
             (!m.xmp || WebPMuxSetChunk(mux, "XMP ", &xmp, 1) == WEBP_MUX_OK);
    WebPDataInit(out);
    ok = ok && WebPMuxAssemble(mux, out) == WEBP_MUX_OK;
    WebPMuxDelete(mux);
    free(m.exif_copy);
    return ok;
}

gpuimg_status gpuimg__encode_webp(gpuimg_ctx *ctx, FILE *f, const char *name, gpuimg_format format,
                                  const gpuimg_image *img)
{
    (void)format;
    if (img->width > WEBP_MAX_DIMENSION || img->height > WEBP_MAX_DIMENSION)
        return gpuimg__fail(ctx, GPUIMG_ERR_TOO_LARGE,
                            "%s: image too large for WebP (%dx%d; a side may be at most %d pixels)",
                            name, img->width, img->height, WEBP_MAX_DIMENSION);
    WebPConfig config;
    WebPPicture pic;
    WebPMemoryWriter w;
    if (!WebPConfigInit(&config) || !WebPPictureInit(&pic))
        return gpuimg__fail(ctx, GPUIMG_ERR_INTERNAL, "%s: libwebp version mismatch", name);
    config.quality = (float)ctx->cfg.jpeg_quality;
    if (ctx->cfg.lossless) {
        config.lossless = 1;
        config.exact = 1; /* every value, transparent pixels' colour included */
        config.quality = 75;
    }
    pic.use_argb = config.lossless;
    pic.width = img->width;
    pic.height = img->height;
    WebPMemoryWriterInit(&w);
    pic.writer = write_memory;
    pic.custom_ptr = &w;
    gpuimg_status st = GPUIMG_OK;
    WebPData file = {NULL, 0};
    if (!import(&pic, img))
        st = gpuimg__fail(ctx, GPUIMG_ERR_NOMEM, "%s: out of memory", name);
    else if (!WebPEncode(&config, &pic))
        st = gpuimg__fail(
            ctx, pic.error_code == VP8_ENC_ERROR_OUT_OF_MEMORY ? GPUIMG_ERR_NOMEM : GPUIMG_ERR_IO,
            "%s: cannot write WebP (libwebp error %d)", name, (int)pic.error_code);
    else if (!with_metadata(ctx, img, &w, &file))
        st = gpuimg__fail(ctx, GPUIMG_ERR_NOMEM, "%s: cannot add the metadata to WebP", name);
    else if ((errno = 0, fwrite(file.bytes, 1, file.size, f) != file.size))
        st = gpuimg__fail(ctx, GPUIMG_ERR_IO, "%s: write failed: %s", name,
                          strerror(errno ? errno : EIO));
    if (file.bytes && file.bytes != w.mem)
        WebPDataClear(&file);
    WebPMemoryWriterClear(&w);
    WebPPictureFree(&pic);
    return st;
}

const gpuimg__format gpuimg__format_webp = {
    .name = "webp",
    .extensions = {{"webp", GPUIMG_FORMAT_WEBP}},
    .sniff = is_webp,
    .probe = probe,
    .decode = decode,
    .encode = gpuimg__encode_webp,
    .meta_read = meta_read,
    .meta_write = 1,
};
