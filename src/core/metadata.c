/* SPDX-License-Identifier: MIT */
/* An image's metadata record (gpuimg_metadata: the ICC profile, EXIF and
 * XMP blocks as bytes): freed and copied here; reading and writing the
 * blocks of each format is io/metadata.c's. */
#include <stdlib.h>
#include <string.h>

#include "core/metadata.h"

void gpuimg_metadata_free(gpuimg_metadata *m)
{
    if (!m)
        return;
    free(m->icc);
    free(m->exif);
    free(m->xmp);
    free(m->png_colour);
    free(m);
}

uint8_t *gpuimg__meta_copy(const uint8_t *p, size_t n)
{
    uint8_t *d = n ? malloc(n) : NULL;
    if (d)
        memcpy(d, p, n);
    return d;
}

gpuimg_metadata *gpuimg__metadata_dup(const gpuimg_metadata *m)
{
    if (!m)
        return NULL;
    gpuimg_metadata *d = calloc(1, sizeof *d);
    if (!d)
        return NULL;
    *d = *m;
    d->icc = gpuimg__meta_copy(m->icc, m->icc_len);
    d->exif = gpuimg__meta_copy(m->exif, m->exif_len);
    d->xmp = gpuimg__meta_copy(m->xmp, m->xmp_len);
    d->png_colour = gpuimg__meta_copy(m->png_colour, m->png_colour_len);
    if ((m->icc_len && !d->icc) || (m->exif_len && !d->exif) || (m->xmp_len && !d->xmp) ||
        (m->png_colour_len && !d->png_colour)) {
        gpuimg_metadata_free(d);
        return NULL;
    }
    return d;
}
