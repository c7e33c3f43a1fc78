/* SPDX-License-Identifier: MIT */
/* JPEG through libjpeg-turbo's TurboJPEG API: SIMD inverse DCT, colour
 * conversion and Huffman coding, several times stb's speed both ways.
 *
 * Reading stops at the first warning (TJFLAG_STOPONWARNING): libjpeg's
 * answer to a truncated file is a warning and grey rows, which SPEC §2 says
 * is an error. CMYK and YCCK files go to stb_image, which converts them to
 * RGB; libjpeg cannot.
 *
 * Writing keeps stb_image_write's choices, so files look as they did:
 * chroma subsampled 4:2:0 up to quality 90 and kept whole (4:4:4) above, as
 * ImageMagick does; alpha dropped (JPEG has none). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <turbojpeg.h>

#include "io.h"

int gpuimg__is_jpeg(const uint8_t *data, size_t size)
{
    return size >= 3 && data[0] == 0xFF && data[1] == 0xD8 && data[2] == 0xFF;
}

static gpuimg_status jpeg_error(gpuimg_ctx *ctx, tjhandle tj, const char *name)
{
    const char *why = tjGetErrorStr2(tj);
    if (strstr(why, "Premature end") || strstr(why, "premature end"))
        return gpuimg__fail(ctx, GPUIMG_ERR_DECODE, "%s: not a supported image (truncated JPEG)",
                            name);
    return gpuimg__fail(ctx, GPUIMG_ERR_DECODE, "%s: not a supported image (damaged JPEG: %s)",
                        name, why);
}

gpuimg_status gpuimg__decode_jpeg(gpuimg_ctx *ctx, const uint8_t *data, size_t size,
                                  const char *name, gpuimg_image *out)
{
    tjhandle tj = tjInitDecompress();
    if (!tj)
        return gpuimg__fail(ctx, GPUIMG_ERR_NOMEM, "%s: out of memory", name);
    int w, h, subsamp, colorspace;
    gpuimg_status st;
    if (tjDecompressHeader3(tj, data, size, &w, &h, &subsamp, &colorspace) != 0) {
        st = jpeg_error(ctx, tj, name);
    } else if (colorspace == TJCS_CMYK || colorspace == TJCS_YCCK) {
        tjDestroy(tj);
        return gpuimg__decode_stb(ctx, data, size, name, out);
    } else if ((st = gpuimg__check_size(ctx, name, (uint64_t)w, (uint64_t)h)) == GPUIMG_OK) {
        int gray = colorspace == TJCS_GRAY;
        if ((st = gpuimg_image_alloc(out, w, h, gray ? 1 : 3)) != GPUIMG_OK) {
            gpuimg__fail(ctx, st, "%s: %s", name, gpuimg_strerror(st));
        } else if (tjDecompress2(tj, data, size, out->data, w, 0, h, gray ? TJPF_GRAY : TJPF_RGB,
                                 TJFLAG_STOPONWARNING | TJFLAG_LIMITSCANS) != 0) {
            st = jpeg_error(ctx, tj, name);
            gpuimg_image_free(out);
        }
    }
    tjDestroy(tj);
    return st;
}

gpuimg_status gpuimg__encode_jpeg(gpuimg_ctx *ctx, FILE *f, const char *name,
                                  const gpuimg_image *img)
{
    int w = img->width, h = img->height, c = img->channels, q = ctx->cfg.jpeg_quality;
    const uint8_t *pixels = img->data;
    uint8_t *gray = NULL;
    if (c == 2) { /* gray + alpha: TurboJPEG has no such layout, so the gray alone */
        size_t n = (size_t)w * (size_t)h;
        if (!(gray = malloc(n)))
            return gpuimg__fail(ctx, GPUIMG_ERR_NOMEM, "%s: out of memory", name);
        for (size_t i = 0; i < n; i++)
            gray[i] = img->data[2 * i];
        pixels = gray;
    }
    static const int formats[5] = {0, TJPF_GRAY, TJPF_GRAY, TJPF_RGB, TJPF_RGBA};
    int samp = c <= 2 ? TJSAMP_GRAY : q <= 90 ? TJSAMP_420 : TJSAMP_444;
    tjhandle tj = tjInitCompress();
    unsigned char *jpeg = NULL;
    unsigned long len = 0;
    gpuimg_status st = GPUIMG_OK;
    if (!tj) {
        st = gpuimg__fail(ctx, GPUIMG_ERR_NOMEM, "%s: out of memory", name);
    } else if (tjCompress2(tj, pixels, w, c == 2 ? w : w * c, h, formats[c], &jpeg, &len, samp, q,
                           0) != 0) {
        st = gpuimg__fail(ctx, GPUIMG_ERR_IO, "%s: cannot write JPEG (%s)", name,
                          tjGetErrorStr2(tj));
    } else if (fwrite(jpeg, 1, len, f) != len) {
        st = gpuimg__fail(ctx, GPUIMG_ERR_IO, "%s: write failed: %s", name,
                          strerror(errno ? errno : EIO));
    }
    tjFree(jpeg);
    if (tj)
        tjDestroy(tj);
    free(gray);
    return st;
}
