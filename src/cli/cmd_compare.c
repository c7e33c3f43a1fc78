/* SPDX-License-Identifier: MIT */
#define _POSIX_C_SOURCE 200809L /* strndup */
/* `gpuimg compare A B`: golden-image comparison. Exit 0 within tolerance,
 * 1 beyond it (a size mismatch included). With no threshold option any
 * pixel differing by more than --fuzz fails; with thresholds, each one given
 * must hold. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "json.h"

enum {
    OPT_DIFF = OPT_COMMAND,
    OPT_FUZZ,
    OPT_MAX_DIFF,
    OPT_MAX_DIFFERING,
    OPT_MIN_PSNR,
    OPT_MIN_SSIM,
    OPT_JSON
};

struct compare_opts {
    const char *diff;
    int fuzz, json;
    int has_max_diff, has_max_differing, has_min_psnr, has_min_ssim;
    int max_diff;
    double max_differing; /* pixels, or a percentage when differing_pct */
    int differing_pct;
    double min_psnr, min_ssim;
};

static void compare_help(void)
{
    printf("usage: gpuimg compare A B [--diff PNG] [--fuzz T] [--max-diff N]\n"
           "                      [--max-differing P] [--min-psnr DB] [--min-ssim S] [--json]\n"
           "  compares two images of the same size (a gray or alpha-less one is widened:\n"
           "  gray -> RGB, missing alpha = 255) and reports max_diff, differing pixels,\n"
           "  mae, rmse, psnr and ssim (Wang et al. 2004, skimage's gaussian_weights figure).\n"
           "  exit 0: within tolerance; 1: differs beyond it, or the sizes differ.\n"
           "  With no threshold option any differing pixel fails.\n\n"
           "options:\n"
           "  --diff PNG           write A's luma at one-third contrast, differing pixels red\n"
           "  --fuzz T             a pixel differs when a channel differs by more than T (0-255; "
           "default 0)\n"
           "  --max-diff N         pass when no channel differs by more than N (0-255)\n"
           "  --max-differing P    pass when at most P pixels differ; P%% for a percentage\n"
           "  --min-psnr DB        pass when PSNR >= DB (identical images: infinite)\n"
           "  --min-ssim S         pass when SSIM >= S (-1 to 1); where SSIM is n/a (a side\n"
           "                       under 11) it cannot apply, and the other rules decide\n"
           "  --json               one JSON object instead of text\n");
}

static int compare_option(cli *c, void *data, int opt, const char *arg)
{
    struct compare_opts *o = data;
    double v;
    int rc = -1;
    switch (opt) {
    case OPT_DIFF:
        if (strcmp(arg, "-") == 0) {
            cli_error(c, "--diff: standard output carries the report; name a file");
            return EXIT_USAGE;
        }
        o->diff = arg;
        break;
    case OPT_JSON: o->json = 1; break;
    case OPT_FUZZ:
        if ((rc = cli_whole_number(c, "fuzz", arg, 0, 255, &v)) < 0)
            o->fuzz = (int)v;
        break;
    case OPT_MAX_DIFF:
        if ((rc = cli_whole_number(c, "max-diff", arg, 0, 255, &v)) < 0) {
            o->max_diff = (int)v;
            o->has_max_diff = 1;
        }
        break;
    case OPT_MAX_DIFFERING: {
        size_t len = strlen(arg);
        o->differing_pct = len > 0 && arg[len - 1] == '%';
        char *text = strndup(arg, len - (size_t)o->differing_pct); /* the whole value, less '%' */
        if (!text)
            return EXIT_DEVICE;
        if ((rc = cli_number(c, "max-differing", text, 0, o->differing_pct ? 100 : 1e18, &v)) < 0) {
            o->max_differing = v;
            o->has_max_differing = 1;
        }
        free(text);
        break;
    }
    case OPT_MIN_PSNR:
        if ((rc = cli_number(c, "min-psnr", arg, 0, 1000, &v)) < 0) {
            o->min_psnr = v;
            o->has_min_psnr = 1;
        }
        break;
    case OPT_MIN_SSIM:
        if ((rc = cli_number(c, "min-ssim", arg, -1, 1, &v)) < 0) {
            o->min_ssim = v;
            o->has_min_ssim = 1;
        }
        break;
    }
    return rc;
}

/* Applies the thresholds; writes the first failing reason into why. With no
 * threshold that applies (none given, or only --min-ssim where SSIM is n/a),
 * any differing pixel fails: a check that cannot be made never passes. */
static int verdict(const struct compare_opts *o, const gpuimg_compare_result *r, char *why,
                   size_t len)
{
    uint64_t pixels = (uint64_t)r->width * (uint64_t)r->height;
    why[0] = '\0';
    int ssim_applies = o->has_min_ssim && r->has_ssim;
    if (!o->has_max_diff && !o->has_max_differing && !o->has_min_psnr && !ssim_applies) {
        if (r->differing == 0)
            return 1;
        snprintf(why, len, "%llu pixel%s differ%s by more than %d",
                 (unsigned long long)r->differing, r->differing == 1 ? "" : "s",
                 r->differing == 1 ? "s" : "", o->fuzz);
        return 0;
    }
    if (o->has_max_diff && r->max_diff > o->max_diff) {
        snprintf(why, len, "max_diff %d > %d", r->max_diff, o->max_diff);
        return 0;
    }
    double limit = o->differing_pct ? o->max_differing / 100.0 * (double)pixels : o->max_differing;
    if (o->has_max_differing && (double)r->differing > limit) {
        snprintf(why, len, "%llu differing pixels > %g%s", (unsigned long long)r->differing,
                 o->max_differing, o->differing_pct ? "%" : "");
        return 0;
    }
    if (o->has_min_psnr && !r->identical && r->psnr < o->min_psnr) {
        snprintf(why, len, "psnr %.4f dB < %g", r->psnr, o->min_psnr);
        return 0;
    }
    if (o->has_min_ssim && r->has_ssim && r->ssim < o->min_ssim) {
        snprintf(why, len, "ssim %.6f < %g", r->ssim, o->min_ssim);
        return 0;
    }
    return 1;
}

static void print_json(const char *a, const char *b, const gpuimg_compare_result *r, int pass)
{
    printf("{\"a\": ");
    json_string(stdout, a);
    printf(", \"b\": ");
    json_string(stdout, b);
    if (r->size_differs) {
        printf(", \"size_differs\": true, \"pass\": false}\n");
        return;
    }
    printf(", \"width\": %d, \"height\": %d, \"channels\": %d, \"max_diff\": %d, "
           "\"differing\": %llu, \"mae\": ",
           r->width, r->height, r->channels, r->max_diff, (unsigned long long)r->differing);
    json_number(stdout, r->mae, 1);
    printf(", \"rmse\": ");
    json_number(stdout, r->rmse, 1);
    printf(", \"psnr\": ");
    json_number(stdout, r->psnr, !r->identical);
    printf(", \"ssim\": ");
    json_number(stdout, r->ssim, r->has_ssim);
    printf(", \"pass\": %s}\n", pass ? "true" : "false");
}

static void print_text(const gpuimg_compare_result *r, int pass, const char *why)
{
    uint64_t pixels = (uint64_t)r->width * (uint64_t)r->height;
    printf("max_diff   %d\n", r->max_diff);
    printf("differing  %llu (%.4f%%)\n", (unsigned long long)r->differing,
           100.0 * (double)r->differing / (double)pixels);
    printf("mae        %.6f\nrmse       %.6f\n", r->mae, r->rmse);
    if (r->identical)
        printf("psnr       inf\n");
    else
        printf("psnr       %.4f dB\n", r->psnr);
    if (r->has_ssim)
        printf("ssim       %.6f\n", r->ssim);
    else
        printf("ssim       n/a\n");
    printf("result     %s%s%s\n",
           r->identical ? "identical"
           : pass       ? "within tolerance"
                        : "differs beyond tolerance",
           why[0] ? ": " : "", why);
}

int cmd_compare(cli *c, int argc, char **argv)
{
    static const struct option opts[] = {
        {"diff", required_argument, NULL, OPT_DIFF},
        {"fuzz", required_argument, NULL, OPT_FUZZ},
        {"max-diff", required_argument, NULL, OPT_MAX_DIFF},
        {"max-differing", required_argument, NULL, OPT_MAX_DIFFERING},
        {"min-psnr", required_argument, NULL, OPT_MIN_PSNR},
        {"min-ssim", required_argument, NULL, OPT_MIN_SSIM},
        {"json", no_argument, NULL, OPT_JSON},
    };
    struct compare_opts o = {0};
    const cli_spec spec = {opts, sizeof opts / sizeof opts[0], compare_option, &o, compare_help, 0};
    char **pos;
    int npos;
    int rc = cli_parse(c, argc, argv, &spec, &pos, &npos);
    if (rc >= 0)
        return rc;
    if (npos != 2) {
        cli_error(c, "expected two images A and B, got %d argument%s", npos, npos == 1 ? "" : "s");
        return EXIT_USAGE;
    }
    if ((rc = cli_open(c)) >= 0 || c->parse_only)
        return rc >= 0 ? rc : 0;
    if (o.diff && ((rc = cli_check_output(c, o.diff, pos[0])) >= 0 ||
                   (rc = cli_check_output(c, o.diff, pos[1])) >= 0))
        return rc;
    gpuimg_image a, b, diff = {0};
    gpuimg_status st = gpuimg_load(c->ctx, pos[0], &a);
    if (st != GPUIMG_OK)
        return cli_fail(c, st);
    if ((st = gpuimg_load(c->ctx, pos[1], &b)) != GPUIMG_OK) {
        gpuimg_image_free(&a);
        return cli_fail(c, st);
    }
    gpuimg_compare_result r;
    st = gpuimg_compare(c->ctx, &a, &b, o.fuzz, &r, o.diff ? &diff : NULL);
    if (st == GPUIMG_OK && o.diff && !r.size_differs)
        st = gpuimg_save(c->ctx, o.diff, GPUIMG_FORMAT_NONE, &diff);
    gpuimg_image_free(&diff);
    if (st != GPUIMG_OK) {
        gpuimg_image_free(&a);
        gpuimg_image_free(&b);
        return cli_fail(c, st);
    }
    char why[160] = "";
    int pass = 0;
    if (r.size_differs)
        snprintf(why, sizeof why, "size differs: %dx%d vs %dx%d", a.width, a.height, b.width,
                 b.height);
    else
        pass = verdict(&o, &r, why, sizeof why);
    if (o.json)
        print_json(pos[0], pos[1], &r, pass);
    else if (r.size_differs)
        printf("result     %s\n", why);
    else
        print_text(&r, pass, why);
    if (o.has_min_ssim && !r.has_ssim && !r.size_differs && !c->quiet)
        fprintf(
            stderr,
            "gpuimg: compare: ssim is n/a (a side is under 11 pixels); --min-ssim not applied\n");
    gpuimg_image_free(&a);
    gpuimg_image_free(&b);
    return pass ? 0 : EXIT_DIFFERS;
}
