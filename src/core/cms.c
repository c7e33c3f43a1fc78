/* SPDX-License-Identifier: MIT */
/* LittleCMS behind cms.h: profiles, transforms, and the conversion tables
 * a device interpolates (why LittleCMS: README's dependency table). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/backend.h"
#include "core/cms.h"

#ifndef GPUIMG_NO_LCMS
#include <lcms2.h>

int gpuimg__cms_channels(const uint8_t *icc, size_t len)
{
    cmsHPROFILE p = icc && len ? cmsOpenProfileFromMem(icc, (cmsUInt32Number)len) : NULL;
    if (!p)
        return 0;
    cmsColorSpaceSignature s = cmsGetColorSpace(p);
    cmsCloseProfile(p);
    return s == cmsSigGrayData ? 1 : s == cmsSigRgbData ? 3 : s == cmsSigCmykData ? 4 : 0;
}

/* An RGB profile of primaries, D65 white and sRGB's curve, described as
 * desc (P3's as Apple's and the browsers' Display P3 is). */
static cmsHPROFILE srgb_curve_profile(const cmsCIExyYTRIPLE *primaries, const char *desc)
{
    /* IEC 61966-2-1: Y = ((X + 0.055) / 1.055)^2.4 above 0.04045, X / 12.92 below */
    const cmsFloat64Number srgb[5] = {2.4, 1 / 1.055, 0.055 / 1.055, 1 / 12.92, 0.04045};
    const cmsCIExyY d65 = {0.3127, 0.3290, 1.0};
    cmsToneCurve *curve = cmsBuildParametricToneCurve(NULL, 4, srgb);
    if (!curve)
        return NULL;
    cmsToneCurve *curves[3] = {curve, curve, curve};
    cmsHPROFILE p = cmsCreateRGBProfile(&d65, primaries, curves);
    cmsFreeToneCurve(curve);
    cmsMLU *mlu = p ? cmsMLUalloc(NULL, 1) : NULL;
    if (mlu && cmsMLUsetASCII(mlu, "en", "US", desc))
        cmsWriteTag(p, cmsSigProfileDescriptionTag, mlu);
    if (mlu)
        cmsMLUfree(mlu);
    return p;
}

static cmsHPROFILE display_p3(void)
{
    const cmsCIExyYTRIPLE p3 = {{0.680, 0.320, 1.0}, {0.265, 0.690, 1.0}, {0.150, 0.060, 1.0}};
    return srgb_curve_profile(&p3, "Display P3");
}

/* Gray with sRGB's curve (a gray image's sRGB). */
static cmsHPROFILE srgb_gray(void)
{
    const cmsFloat64Number srgb[5] = {2.4, 1 / 1.055, 0.055 / 1.055, 1 / 12.92, 0.04045};
    cmsToneCurve *curve = cmsBuildParametricToneCurve(NULL, 4, srgb);
    if (!curve)
        return NULL;
    cmsHPROFILE p = cmsCreateGrayProfile(cmsD50_xyY(), curve);
    cmsFreeToneCurve(curve);
    return p;
}

static cmsHPROFILE open_or_srgb(const uint8_t *icc, size_t len)
{
    return icc && len ? cmsOpenProfileFromMem(icc, (cmsUInt32Number)len) : cmsCreate_sRGBProfile();
}

void *gpuimg__cms_cmyk_to_srgb(const uint8_t *icc, size_t len, int inverted, int depth)
{
    cmsHPROFILE in = icc && len ? cmsOpenProfileFromMem(icc, (cmsUInt32Number)len) : NULL;
    if (!in)
        return NULL;
    cmsHTRANSFORM t = NULL;
    cmsHPROFILE out = cmsGetColorSpace(in) == cmsSigCmykData ? cmsCreate_sRGBProfile() : NULL;
    if (out) {
        cmsUInt32Number fin = depth == 16 ? (inverted ? TYPE_CMYK_16_REV : TYPE_CMYK_16)
                                          : (inverted ? TYPE_CMYK_8_REV : TYPE_CMYK_8);
        t = cmsCreateTransform(in, fin, out, depth == 16 ? TYPE_RGB_16 : TYPE_RGB_8,
                               INTENT_PERCEPTUAL, cmsFLAGS_NOCACHE);
        cmsCloseProfile(out);
    }
    cmsCloseProfile(in);
    return t;
}

void gpuimg__cms_rows(void *transform, const void *in, void *out, size_t n)
{
    cmsDoTransform(transform, in, out, (cmsUInt32Number)n);
}

void gpuimg__cms_free(void *transform)
{
    if (transform)
        cmsDeleteTransform(transform);
}

/* A profile's bytes, malloc'ed; NULL out of memory. */
static uint8_t *saved(cmsHPROFILE p, size_t *len)
{
    cmsUInt32Number n = 0;
    if (!cmsSaveProfileToMem(p, NULL, &n) || n == 0)
        return NULL;
    uint8_t *bytes = malloc(n);
    if (bytes && !cmsSaveProfileToMem(p, bytes, &n)) {
        free(bytes);
        return NULL;
    }
    *len = n;
    return bytes;
}

/* The whole of a small file (an ICC profile: at most 64 MiB), malloc'ed. */
static uint8_t *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    uint8_t *bytes = NULL;
    long n = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
    if (n > 0 && n <= (64L << 20) && fseek(f, 0, SEEK_SET) == 0 && (bytes = malloc((size_t)n)) &&
        fread(bytes, 1, (size_t)n, f) != (size_t)n) {
        free(bytes);
        bytes = NULL;
    }
    fclose(f);
    *len = (size_t)n;
    return bytes;
}

int gpuimg__cms_target(const char *to, uint8_t **icc, size_t *len, char *why, size_t why_len)
{
    *icc = NULL;
    if (strcmp(to, "srgb") == 0 || strcmp(to, "display-p3") == 0) {
        cmsHPROFILE p = to[0] == 's' ? cmsCreate_sRGBProfile() : display_p3();
        *icc = p ? saved(p, len) : NULL;
        if (p)
            cmsCloseProfile(p);
        if (!*icc)
            snprintf(why, why_len, "out of memory");
        return *icc ? 0 : -1;
    }
    if (!(*icc = slurp(to, len))) {
        snprintf(why, why_len, "%s: cannot read the profile", to);
        return -1;
    }
    if (gpuimg__cms_channels(*icc, *len) != 3) {
        snprintf(why, why_len, "%s: not an RGB ICC profile", to);
        free(*icc);
        *icc = NULL;
        return -1;
    }
    return 0;
}

/* A matrix-shaper RGB profile's three curves (its own), or 0. */
static int trcs(cmsHPROFILE p, cmsToneCurve *out[3])
{
    const cmsTagSignature sig[3] = {cmsSigRedTRCTag, cmsSigGreenTRCTag, cmsSigBlueTRCTag};
    if (cmsGetColorSpace(p) != cmsSigRgbData || !cmsIsMatrixShaper(p))
        return 0;
    for (int c = 0; c < 3; c++)
        if (!(out[c] = cmsReadTag(p, sig[c])))
            return 0;
    return 1;
}

/* The device's array (backend.h): the input curves are the source's own
 * (to linear light) and the output ones the target's reversed, when both
 * profiles are matrix-shapers; else the identity. The table's node at
 * linear (r, g, b) holds the conversion of the encoded colour whose curves
 * give it, made linear again by the target's curves, unclipped (the
 * device clamps after interpolating, as a transform clamps its result). */
static float *sampled(cmsHPROFILE in, cmsHPROFILE out, int intent)
{
    enum { G = GPUIMG_COLOUR_GRID, S = GPUIMG_COLOUR_SHAPER, CURVE = GPUIMG_COLOUR_CURVE };
    cmsToneCurve *src[3], *dst[3], *src_rev[3] = {0}, *dst_rev[3] = {0};
    int shaped = trcs(in, src) && trcs(out, dst);
    for (int c = 0; shaped && c < 3; c++)
        shaped = (src_rev[c] = cmsReverseToneCurve(src[c])) &&
                 (dst_rev[c] = cmsReverseToneCurve(dst[c]));
    cmsHTRANSFORM t =
        cmsCreateTransform(in, TYPE_RGB_FLT, out, TYPE_RGB_FLT, (cmsUInt32Number)intent,
                           cmsFLAGS_NOCACHE | cmsFLAGS_NOOPTIMIZE);
    float *nodes = t ? malloc((size_t)G * G * G * 3 * sizeof *nodes) : NULL;
    float *lut = nodes ? malloc((size_t)GPUIMG_COLOUR_FLOATS * sizeof *lut) : NULL;
    if (lut) {
        float *in_curves = lut + GPUIMG_COLOUR_TABLE, *out_curves = in_curves + 3 * CURVE;
        float *in8 = out_curves + 3 * CURVE, *out8 = in8 + 3 * 256;
        for (int c = 0; c < 3; c++) {
            for (int k = 0; k <= S; k++) {
                float v = (float)k / S;
                in_curves[c * CURVE + k] = shaped ? cmsEvalToneCurveFloat(src[c], v) : v;
                out_curves[c * CURVE + k] = shaped ? cmsEvalToneCurveFloat(dst_rev[c], v) : v;
            }
            /* LittleCMS's 8-bit matrix-shaper curves (cmsopt.c's
             * FillFirstShaper and FillSecondShaper): the input to 1.14
             * fixed point, rounded; the output from i / 16384 through the
             * reversed curve, to 16 bits, then to 8 as FROM_16_TO_8 */
            for (int k = 0; k < 256; k++) {
                float y = shaped ? cmsEvalToneCurveFloat(src[c], (float)(k / 255.0)) : k / 255.0f;
                in8[c * 256 + k] = (float)(floor(y * 16384.0 + 0.5) / 16384.0);
            }
            for (int k = 0; k < GPUIMG_COLOUR_OUT8; k++) {
                float y = (float)(k / 16384.0);
                y = shaped ? cmsEvalToneCurveFloat(dst_rev[c], y) : y;
                y = y < 0 ? 0 : y > 1 ? 1 : y;
                uint32_t w = (uint32_t)floor(y * 65535.0 + 0.5);
                out8[(size_t)c * GPUIMG_COLOUR_OUT8 + k] = (float)((w * 65281u + 8388608u) >> 24);
            }
        }
        size_t k = 0;
        for (int r = 0; r < G; r++)
            for (int g = 0; g < G; g++)
                for (int b = 0; b < G; b++, k += 3) {
                    const float v[3] = {(float)r / (G - 1), (float)g / (G - 1), (float)b / (G - 1)};
                    for (int c = 0; c < 3; c++)
                        nodes[k + c] = shaped ? cmsEvalToneCurveFloat(src_rev[c], v[c]) : v[c];
                }
        /* transformed in place, then 4 floats a node in the table */
        cmsDoTransform(t, nodes, nodes, (cmsUInt32Number)G * G * G);
        for (size_t n = (size_t)G * G * G; n-- > 0;) {
            for (int c = 0; c < 3; c++)
                lut[4 * n + c] =
                    shaped ? cmsEvalToneCurveFloat(dst[c], nodes[3 * n + c]) : nodes[3 * n + c];
            lut[4 * n + 3] = 0;
        }
    }
    free(nodes);
    for (int c = 0; c < 3; c++) {
        if (src_rev[c])
            cmsFreeToneCurve(src_rev[c]);
        if (dst_rev[c])
            cmsFreeToneCurve(dst_rev[c]);
    }
    if (t)
        cmsDeleteTransform(t);
    return lut;
}

/* The gray tables: every value through a gray transform. */
static int gray_tables(cmsHPROFILE in, int intent, gpuimg__cms_conversion *c)
{
    cmsHPROFILE out = srgb_gray();
    cmsHTRANSFORM t8 = out ? cmsCreateTransform(in, TYPE_GRAY_8, out, TYPE_GRAY_8,
                                                (cmsUInt32Number)intent, cmsFLAGS_NOCACHE)
                           : NULL;
    cmsHTRANSFORM t16 = out ? cmsCreateTransform(in, TYPE_GRAY_16, out, TYPE_GRAY_16,
                                                 (cmsUInt32Number)intent, cmsFLAGS_NOCACHE)
                            : NULL;
    if (out)
        cmsCloseProfile(out);
    c->lut8 = malloc(256);
    c->lut16 = malloc(65536 * sizeof *c->lut16);
    uint16_t *values = malloc(65536 * sizeof *values);
    int ok = t8 && t16 && c->lut8 && c->lut16 && values;
    if (ok) {
        for (int v = 0; v < 65536; v++)
            values[v] = (uint16_t)v;
        for (int v = 0; v < 256; v++)
            c->lut8[v] = (uint8_t)v;
        cmsDoTransform(t8, c->lut8, c->lut8, 256);
        cmsDoTransform(t16, values, c->lut16, 65536);
    }
    free(values);
    if (t8)
        cmsDeleteTransform(t8);
    if (t16)
        cmsDeleteTransform(t16);
    return ok;
}

int gpuimg__cms_convert(const uint8_t *src, size_t src_len, const uint8_t *dst, size_t dst_len,
                        int intent, int gray, gpuimg__cms_conversion *out, char *why,
                        size_t why_len)
{
    memset(out, 0, sizeof *out);
    int lcms_intent = intent == 1 ? INTENT_RELATIVE_COLORIMETRIC : INTENT_PERCEPTUAL;
    cmsHPROFILE in = open_or_srgb(src, src_len);
    if (!in) {
        snprintf(why, why_len, "the image's ICC profile does not parse");
        return -1;
    }
    int ok = 1;
    if (gray) {
        /* a gray image without a gray profile keeps its values */
        if (cmsGetColorSpace(in) == cmsSigGrayData)
            ok = gray_tables(in, lcms_intent, out);
    } else {
        if (cmsGetColorSpace(in) != cmsSigRgbData) {
            /* a profile that does not describe RGB pixels describes none
             * of these: they are taken as sRGB, as an untagged image is */
            cmsCloseProfile(in);
            in = cmsCreate_sRGBProfile();
        }
        cmsHPROFILE to = cmsOpenProfileFromMem(dst, (cmsUInt32Number)dst_len);
        ok = in && to;
        if (ok) {
            out->transform8 = cmsCreateTransform(in, TYPE_RGB_8, to, TYPE_RGB_8,
                                                 (cmsUInt32Number)lcms_intent, cmsFLAGS_NOCACHE);
            /* at 16 bits the whole pipeline in float: LittleCMS's
             * optimized 16-bit matrix-shaper path is off by up to 5425
             * units from its own float result near the gamut's edge
             * (measured for Adobe RGB to sRGB; 99 for sRGB to P3) */
            out->transform16 =
                cmsCreateTransform(in, TYPE_RGB_16, to, TYPE_RGB_16, (cmsUInt32Number)lcms_intent,
                                   cmsFLAGS_NOCACHE | cmsFLAGS_NOOPTIMIZE);
            out->lut = sampled(in, to, lcms_intent);
            ok = out->transform8 && out->transform16 && out->lut;
        }
        if (to)
            cmsCloseProfile(to);
    }
    if (in)
        cmsCloseProfile(in);
    if (!ok) {
        gpuimg__cms_conversion_free(out);
        snprintf(why, why_len, "LittleCMS cannot convert from the image's ICC profile");
        return -1;
    }
    return 0;
}

void gpuimg__cms_conversion_free(gpuimg__cms_conversion *c)
{
    gpuimg__cms_free(c->transform8);
    gpuimg__cms_free(c->transform16);
    free(c->lut);
    free(c->lut8);
    free(c->lut16);
    memset(c, 0, sizeof *c);
}

const char *gpuimg__cms_version(void)
{
    static char text[16];
    int v = cmsGetEncodedCMMversion();
    snprintf(text, sizeof text, "%d.%d", v / 1000, v / 10 % 100);
    return text;
}

#else /* GPUIMG_NO_LCMS: a build without LittleCMS (make dist). A CMYK JPEG                        \
       * or TIFF is then inverted naively (the callers' fallback for a                             \
       * profile LittleCMS cannot use), and `colour` fails saying why. */

static const char no_lcms[] = "this build of gpuimg has no colour management (no LittleCMS)";

int gpuimg__cms_channels(const uint8_t *icc, size_t len)
{
    (void)icc, (void)len;
    return 0;
}

void *gpuimg__cms_cmyk_to_srgb(const uint8_t *icc, size_t len, int inverted, int depth)
{
    (void)icc, (void)len, (void)inverted, (void)depth;
    return NULL;
}

void gpuimg__cms_rows(void *transform, const void *in, void *out, size_t n)
{
    (void)transform, (void)in, (void)out, (void)n; /* never called: no transform is made */
}

void gpuimg__cms_free(void *transform)
{
    (void)transform;
}

int gpuimg__cms_target(const char *to, uint8_t **icc, size_t *len, char *why, size_t why_len)
{
    *icc = NULL;
    *len = 0;
    snprintf(why, why_len, "%s: %s", to, no_lcms);
    return -1;
}

int gpuimg__cms_convert(const uint8_t *src, size_t src_len, const uint8_t *dst, size_t dst_len,
                        int intent, int gray, gpuimg__cms_conversion *out, char *why,
                        size_t why_len)
{
    (void)src, (void)src_len, (void)dst, (void)dst_len, (void)intent, (void)gray;
    memset(out, 0, sizeof *out);
    snprintf(why, why_len, "%s", no_lcms);
    return -1;
}

void gpuimg__cms_conversion_free(gpuimg__cms_conversion *c)
{
    (void)c;
}

const char *gpuimg__cms_version(void)
{
    return NULL;
}

#endif
