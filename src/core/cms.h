/* SPDX-License-Identifier: MIT */
/* LittleCMS, gpuimg's colour engine (SPEC §2 colour; cms.c): the profiles
 * gpuimg names (sRGB, Display P3), profiles read from files' bytes, and the
 * transforms between them, as opaque pointers so that callers need not
 * include lcms2.h. Every transform is made with cmsFLAGS_NOCACHE: without
 * it cmsDoTransform updates a one-pixel cache inside the transform, so one
 * transform could not serve the bands of several threads at once. */
#ifndef GPUIMG_CORE_CMS_H
#define GPUIMG_CORE_CMS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A profile's colour space as the pixels are: 1 gray, 3 RGB, 4 CMYK, 0
 * anything else or bytes that do not parse as a profile. */
int gpuimg__cms_channels(const uint8_t *icc, size_t len);

/* CMYK (inverted: Adobe's convention for JPEG, as jpgicc reads it) at 8 or
 * 16 bits to RGB in sRGB, perceptual, through the profile icc: a transform,
 * or NULL when the profile is not a CMYK profile LittleCMS can use (the
 * caller then inverts naively). */
void *gpuimg__cms_cmyk_to_srgb(const uint8_t *icc, size_t len, int inverted, int depth);
/* n pixels through a transform (any thread; in and out do not overlap). */
void gpuimg__cms_rows(void *transform, const void *in, void *out, size_t n);
void gpuimg__cms_free(void *transform);

/* The profile a colour conversion targets: "srgb", "display-p3" (made
 * here: P3's primaries, D65, sRGB's curve), or an ICC file's path. *icc is
 * malloc'ed (the caller's), the profile's bytes as embedded into outputs.
 * 0, or -1 with why filled (the file does not read or is not an RGB
 * profile). */
int gpuimg__cms_target(const char *to, uint8_t **icc, size_t *len, char *why, size_t why_len);

/* A conversion of RGB pixels from the profile src (NULL: sRGB) to dst:
 * transform8 and transform16 for gpuimg__cms_rows at each depth, and lut,
 * the same conversion sampled in float at GPUIMG_COLOUR_GRID points per
 * axis (the device's table, backend.h). gray: the pixels are gray (1
 * value): a gray conversion instead, from src's gray curve to sRGB's, as
 * tables lut8 (256) and lut16 (65536) for map_lut; NULL tables when src
 * is not a gray profile (the values stay). intent: 0 perceptual, 1
 * relative colorimetric. 0, or -1 with why filled (a profile LittleCMS
 * cannot use, or out of memory). */
typedef struct gpuimg__cms_conversion {
    void *transform8, *transform16;
    float *lut;
    uint8_t *lut8;
    uint16_t *lut16;
} gpuimg__cms_conversion;
int gpuimg__cms_convert(const uint8_t *src, size_t src_len, const uint8_t *dst, size_t dst_len,
                        int intent, int gray, gpuimg__cms_conversion *out, char *why,
                        size_t why_len);
void gpuimg__cms_conversion_free(gpuimg__cms_conversion *c);

/* LittleCMS's version, e.g. "2.14", for `info`. */
const char *gpuimg__cms_version(void);

#ifdef __cplusplus
}
#endif

#endif
