/* SPDX-License-Identifier: MIT */
/* When a compared pair passes (SPEC §7): every limit given must hold, and a
 * failure names the figure, its value and the limit it broke. */
#include <stdio.h>
#include <string.h>

#include "gpuimg.h"

const char *gpuimg_compare_failure_name(unsigned bit)
{
    switch (bit) {
    case GPUIMG_FAILED_DIFFERS: return "differing";
    case GPUIMG_FAILED_MAX_DIFF: return "max_diff";
    case GPUIMG_FAILED_MAX_DIFFERING: return "max_differing";
    case GPUIMG_FAILED_MAX_DIFFERING_PCT: return "max_differing_pct";
    case GPUIMG_FAILED_MIN_PSNR: return "min_psnr";
    case GPUIMG_FAILED_MIN_SSIM: return "min_ssim";
    case GPUIMG_FAILED_SIZE: return "size";
    case GPUIMG_FAILED_MAX_FLIP: return "max_flip";
    }
    return "?";
}

/* Appends one reason, "; "-separated, as far as len allows. */
static void add_reason(char *why, size_t len, const char *text)
{
    size_t used = strlen(why);
    if (used + 1 < len)
        snprintf(why + used, len - used, "%s%s", used ? "; " : "", text);
}

unsigned gpuimg_compare_check(const gpuimg_compare_result *r, const gpuimg_compare_limits *l,
                              char *why, size_t len)
{
    if (len > 0)
        why[0] = '\0';
    if (r->size_differs) {
        add_reason(why, len, "the sizes differ");
        return GPUIMG_FAILED_SIZE;
    }
    double pct = r->compared ? 100.0 * (double)r->differing / (double)r->compared : 0.0;
    char text[160];
    unsigned failed = 0;
    int ssim_applies = l->has_min_ssim && r->has_ssim;
    int flip_applies = l->has_max_flip && r->has_flip;
    if (!l->has_max_diff && !l->has_max_differing && !l->has_max_differing_pct &&
        !l->has_min_psnr && !ssim_applies && !flip_applies) {
        if (r->differing == 0)
            return 0;
        snprintf(text, sizeof text, "differing %llu pixel%s (%.4g%%) > 0",
                 (unsigned long long)r->differing, r->differing == 1 ? "" : "s", pct);
        add_reason(why, len, text);
        return GPUIMG_FAILED_DIFFERS;
    }
    if (l->has_max_diff && r->max_diff > l->max_diff) {
        snprintf(text, sizeof text, "max_diff %d > %d", r->max_diff, l->max_diff);
        add_reason(why, len, text);
        failed |= GPUIMG_FAILED_MAX_DIFF;
    }
    if (l->has_max_differing && (double)r->differing > l->max_differing) {
        snprintf(text, sizeof text, "differing %llu pixels (%.4g%%) > %.15g",
                 (unsigned long long)r->differing, pct, l->max_differing);
        add_reason(why, len, text);
        failed |= GPUIMG_FAILED_MAX_DIFFERING;
    }
    /* in products, not the rounded percentage: a pair equal to its limit passes */
    if (l->has_max_differing_pct &&
        (double)r->differing * 100.0 > l->max_differing_pct * (double)r->compared) {
        snprintf(text, sizeof text, "differing %llu pixels (%.4g%%) > %.15g%%",
                 (unsigned long long)r->differing, pct, l->max_differing_pct);
        add_reason(why, len, text);
        failed |= GPUIMG_FAILED_MAX_DIFFERING_PCT;
    }
    if (l->has_min_psnr && r->has_psnr && r->psnr < l->min_psnr) {
        snprintf(text, sizeof text, "psnr %.4f dB < %.15g", r->psnr, l->min_psnr);
        add_reason(why, len, text);
        failed |= GPUIMG_FAILED_MIN_PSNR;
    }
    if (ssim_applies && r->ssim < l->min_ssim) {
        snprintf(text, sizeof text, "ssim %.6f < %.15g", r->ssim, l->min_ssim);
        add_reason(why, len, text);
        failed |= GPUIMG_FAILED_MIN_SSIM;
    }
    if (flip_applies && r->flip_mean > l->max_flip) {
        snprintf(text, sizeof text, "flip mean %.6g > %.15g", r->flip_mean, l->max_flip);
        add_reason(why, len, text);
        failed |= GPUIMG_FAILED_MAX_FLIP;
    }
    return failed;
}
