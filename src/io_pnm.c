/* SPDX-License-Identifier: MIT */
/* Binary PPM (P6) and PGM (P5), written by hand: they carry neither alpha
 * nor, for PGM, colour, so alpha is dropped and colour becomes Rec.601 luma
 * (what ImageMagick does when asked for these formats). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "io.h"

gpuimg_status gpuimg__encode_pnm(gpuimg_ctx *ctx, FILE *f, const char *name, gpuimg_format format,
                                 const gpuimg_image *img)
{
    int out_c = format == GPUIMG_FORMAT_PPM ? 3 : 1, in_c = img->channels;
    int color = in_c >= 3;
    size_t row_bytes = (size_t)img->width * (size_t)out_c;
    uint8_t *row = malloc(row_bytes);
    if (!row)
        return gpuimg__fail(ctx, GPUIMG_ERR_NOMEM, "%s: out of memory", name);
    int ok = fprintf(f, "P%c\n%d %d\n255\n", out_c == 3 ? '6' : '5', img->width, img->height) > 0;
    for (int y = 0; ok && y < img->height; y++) {
        const uint8_t *s = img->data + (size_t)y * (size_t)img->width * (size_t)in_c;
        for (int x = 0; x < img->width; x++, s += in_c) {
            uint8_t *d = row + (size_t)x * (size_t)out_c;
            if (out_c == 3) {
                d[0] = s[0];
                d[1] = s[color ? 1 : 0];
                d[2] = s[color ? 2 : 0];
            } else {
                d[0] =
                    color ? (uint8_t)((299 * s[0] + 587 * s[1] + 114 * s[2] + 500) / 1000) : s[0];
            }
        }
        ok = fwrite(row, 1, row_bytes, f) == row_bytes;
    }
    free(row);
    if (!ok)
        return gpuimg__fail(ctx, GPUIMG_ERR_IO, "%s: write failed: %s", name, strerror(errno));
    return GPUIMG_OK;
}
