/* SPDX-License-Identifier: MIT */
/* Commands that print figures: histogram, stats, info. */
#include <string.h>

#include "cli.h"
#include "json.h"

enum { OPT_JSON = OPT_COMMAND, OPT_CSV, OPT_PLOT, OPT_LOG, OPT_BINS };

/* Channel names in stored order (SPEC §3): R, G, B, A; or Y, A. */
const char *cli_channel_name(int channels, int c)
{
    static const char *const rgba[] = {"R", "G", "B", "A"}, *const ya[] = {"Y", "A"};
    return channels >= 3 ? rgba[c] : ya[c];
}

/* {"file", "width", "height", "channels", "names": the start of both reports. */
static void json_head(const char *file, const gpuimg_image *img)
{
    printf("{\"file\": ");
    json_string(stdout, file);
    printf(", \"width\": %d, \"height\": %d, \"channels\": %d, \"depth\": %d, \"names\": [",
           img->width, img->height, img->channels, gpuimg_image_depth(img));
    for (int k = 0; k < img->channels; k++)
        printf("%s\"%s\"", k ? ", " : "", cli_channel_name(img->channels, k));
    printf("]");
}

struct report_opts {
    int json, csv, log, bins;
    const char *plot;
};

static int report_option(cli *c, void *data, int opt, const char *arg)
{
    struct report_opts *r = data;
    switch (opt) {
    case OPT_JSON: r->json = 1; break;
    case OPT_CSV: r->csv = 1; break;
    case OPT_LOG: r->log = 1; break;
    case OPT_BINS: {
        double v;
        int rc = cli_whole_number(c, "bins", arg, 1, 65536, &v);
        if (rc >= 0)
            return rc;
        r->bins = (int)v;
        break;
    }
    case OPT_PLOT:
        if (strcmp(arg, "-") == 0) {
            cli_error(c, "--plot: standard output carries the report; name a file");
            return EXIT_USAGE;
        }
        r->plot = arg;
        break;
    }
    if (r->json && r->csv) {
        cli_error(c, "--json and --csv cannot be combined");
        return EXIT_USAGE;
    }
    return -1;
}

/* Parses IN plus the command's options, checks the --plot output, opens the
 * context and decodes IN. Returns an exit code, or -1 with *img loaded. */
static int load_one(cli *c, int argc, char **argv, const cli_spec *spec, gpuimg_image *img,
                    const char **in)
{
    char **pos;
    int npos;
    int rc = cli_parse(c, argc, argv, spec, &pos, &npos);
    if (rc >= 0)
        return rc;
    if (npos != 1) {
        cli_error(c, "expected one image, got %d arguments (try gpuimg %s --help)", npos,
                  c->command);
        return EXIT_USAGE;
    }
    *in = pos[0];
    const struct report_opts *r = spec->data;
    const char *plot = r->plot;
    if (r->log && !plot) {
        cli_error(c, "--log scales the chart: give --plot PNG too");
        return EXIT_USAGE;
    }
    if ((rc = cli_open(c)) >= 0 || c->parse_only)
        return rc >= 0 ? rc : 0;
    if (plot && (rc = cli_check_output(c, plot, pos[0])) >= 0)
        return rc;
    gpuimg_status st = gpuimg_load(c->ctx, pos[0], img);
    return st == GPUIMG_OK ? -1 : cli_fail(c, st);
}

static void histogram_help(void)
{
    printf("usage: gpuimg histogram IN [--bins N] [--json|--csv] [--plot PNG [--log]]\n"
           "  exact 256-bin histogram of every channel, alpha included, in stored order\n"
           "  (R, G, B, A; or Y, A). Default output: a table, one row per bin.\n\n"
           "options:\n"
           "  --json      {\"file\", \"width\", \"height\", \"channels\", \"names\", \"counts\": "
           "[[256 counts] per channel]}\n"
           "  --csv       value,R,G,B rows with a header\n"
           "  --bins N    N bins (1-65536; default 256): value v counts in bin\n"
           "              floor(v * N / 2^depth) (256 or 65536); the rows are bin,R,G,B\n"
           "              (value,R,G,B when a bin is a value)\n"
           "  --plot PNG  also write a bar chart: a panel per channel, titled with its\n"
           "              name and tallest bin, values 0-255 (0-65535) along the axis\n"
           "  --log       the chart's bars in log(1 + count), for images whose few huge\n"
           "              bins (a border, a sky) would flatten the rest\n");
}

int cmd_histogram(cli *c, int argc, char **argv)
{
    static const struct option opts[] = {{"json", no_argument, NULL, OPT_JSON},
                                         {"csv", no_argument, NULL, OPT_CSV},
                                         {"plot", required_argument, NULL, OPT_PLOT},
                                         {"log", no_argument, NULL, OPT_LOG},
                                         {"bins", required_argument, NULL, OPT_BINS}};
    struct report_opts r = {0};
    const cli_spec spec = {opts, sizeof opts / sizeof opts[0], report_option, &r, histogram_help,
                           0};
    gpuimg_image img;
    const char *in;
    int rc = load_one(c, argc, argv, &spec, &img, &in);
    if (rc >= 0)
        return rc;
    gpuimg_histogram h;
    gpuimg_status st = gpuimg_histogram_compute(c->ctx, &img, &h);
    if (st == GPUIMG_OK && r.plot) {
        gpuimg_image chart;
        st = gpuimg_histogram_plot(&h, r.log, &chart);
        if (st != GPUIMG_OK) {
            cli_error(c, "--plot: %s", gpuimg_strerror(st));
            gpuimg_histogram_free(&h);
            gpuimg_image_free(&img);
            return cli_exit_code(st);
        }
        st = gpuimg_save(c->ctx, r.plot, GPUIMG_FORMAT_NONE, &chart);
        gpuimg_image_free(&chart);
    }
    if (st != GPUIMG_OK) {
        gpuimg_histogram_free(&h);
        gpuimg_image_free(&img);
        return cli_fail(c, st);
    }
    int cn = h.channels, nbins = r.bins ? r.bins : 256;
    /* SPEC §3: value v counts in bin floor(v * N / 2^depth) */
    gpuimg_histogram binned;
    st = gpuimg_histogram_rebin(&h, nbins, &binned);
    gpuimg_histogram_free(&h);
    if (st != GPUIMG_OK) {
        gpuimg_image_free(&img);
        return cli_fail(c, st);
    }
    if (r.json) {
        json_head(in, &img);
        printf(", \"bins\": %d, \"counts\": [", nbins);
        for (int k = 0; k < cn; k++) {
            printf("%s[", k ? ", " : "");
            for (int b = 0; b < nbins; b++)
                printf("%s%llu", b ? ", " : "", (unsigned long long)binned.counts[k][b]);
            printf("]");
        }
        printf("]}\n");
    } else {
        const char *sep = r.csv ? "," : "\t";
        printf("%s", !r.bins && nbins == 1 << binned.depth ? "value" : "bin");
        for (int k = 0; k < cn; k++)
            printf("%s%s", sep, cli_channel_name(cn, k));
        printf("\n");
        for (int b = 0; b < nbins; b++) {
            printf("%d", b);
            for (int k = 0; k < cn; k++)
                printf("%s%llu", sep, (unsigned long long)binned.counts[k][b]);
            printf("\n");
        }
    }
    gpuimg_histogram_free(&binned);
    gpuimg_image_free(&img);
    return 0;
}

static void stats_help(void)
{
    printf(
        "usage: gpuimg stats IN [--json]\n"
        "  per channel, alpha included: min, max, mean, population standard deviation,\n"
        "  median (the smallest v with cdf[v] >= ceil(N/2)); sums are exact integers.\n\n"
        "options:\n"
        "  --json  {\"file\", \"width\", \"height\", \"channels\", \"names\", \"min\", \"max\",\n"
        "          \"mean\", \"stddev\", \"median\"}, one array element per channel\n");
}

int cmd_stats(cli *c, int argc, char **argv)
{
    static const struct option opts[] = {{"json", no_argument, NULL, OPT_JSON}};
    struct report_opts r = {0};
    const cli_spec spec = {opts, sizeof opts / sizeof opts[0], report_option, &r, stats_help, 0};
    gpuimg_image img;
    const char *in;
    int rc = load_one(c, argc, argv, &spec, &img, &in);
    if (rc >= 0)
        return rc;
    gpuimg_stats s;
    gpuimg_status st = gpuimg_stats_compute(c->ctx, &img, &s);
    if (st != GPUIMG_OK) {
        gpuimg_image_free(&img);
        return cli_fail(c, st);
    }
    int cn = s.channels;
    if (r.json) {
        json_head(in, &img);
        const char *keys[] = {"min", "max", "mean", "stddev", "median"};
        for (int f = 0; f < 5; f++) {
            printf(", \"%s\": [", keys[f]);
            for (int k = 0; k < cn; k++) {
                printf("%s", k ? ", " : "");
                switch (f) {
                case 0: printf("%d", s.min[k]); break;
                case 1: printf("%d", s.max[k]); break;
                case 2: json_number(stdout, s.mean[k], 1); break;
                case 3: json_number(stdout, s.stddev[k], 1); break;
                case 4: printf("%d", s.median[k]); break;
                }
            }
            printf("]");
        }
        printf("}\n");
    } else {
        printf("%-8s %5s %5s %12s %12s %7s\n", "channel", "min", "max", "mean", "stddev", "median");
        for (int k = 0; k < cn; k++)
            printf("%-8s %5d %5d %12.6f %12.6f %7d\n", cli_channel_name(cn, k), s.min[k], s.max[k],
                   s.mean[k], s.stddev[k], s.median[k]);
    }
    gpuimg_image_free(&img);
    return 0;
}

static void info_help(void)
{
    printf("usage: gpuimg info [FILE...] [--json]\n"
           "  with no FILE: the version, the backends (every GPU with its name, memory and\n"
           "  compute capability when CUDA is usable), and the codec libraries.\n"
           "  with FILEs: what each holds, from its header and metadata (never its pixels):\n"
           "  format, size as read (upright) and as stored, channels, bits per sample, EXIF\n"
           "  orientation, ICC profile (its description), EXIF and XMP sizes.\n\n"
           "options:\n"
           "  --json      one JSON array, an object per file\n");
}

static void file_json(const char *path, const gpuimg_file_info *f, const char *error, int first)
{
    printf("%s\n  {\"file\": ", first ? "" : ",");
    json_string(stdout, path);
    if (error) {
        printf(", \"error\": ");
        json_string(stdout, error);
        printf("}");
        return;
    }
    printf(", \"format\": \"%s\", \"width\": %d, \"height\": %d, \"stored_width\": %d, "
           "\"stored_height\": %d, \"channels\": %d, \"depth\": %d, \"orientation\": %d, "
           "\"icc_bytes\": %zu, \"profile\": ",
           f->format, f->width, f->height, f->stored_width, f->stored_height, f->channels, f->depth,
           f->orientation, f->icc_bytes);
    if (f->icc_bytes)
        json_string(stdout, f->profile);
    else
        printf("null");
    printf(", \"exif_bytes\": %zu, \"xmp_bytes\": %zu}", f->exif_bytes, f->xmp_bytes);
}

static void file_text(const char *path, const gpuimg_file_info *f)
{
    printf("%s: %s %dx%d", path, f->format, f->width, f->height);
    if (f->width != f->stored_width || f->orientation != 1)
        printf(" (stored %dx%d, orientation %d)", f->stored_width, f->stored_height,
               f->orientation);
    printf(", %d channel%s, %d bits", f->channels, f->channels == 1 ? "" : "s", f->depth);
    if (f->icc_bytes)
        printf(", ICC%s%s%s (%zu bytes)", f->profile[0] ? " \"" : "", f->profile,
               f->profile[0] ? "\"" : "", f->icc_bytes);
    if (f->exif_bytes)
        printf(", EXIF %zu bytes", f->exif_bytes);
    if (f->xmp_bytes)
        printf(", XMP %zu bytes", f->xmp_bytes);
    printf("\n");
}

/* `info FILE...`: each file's line (or JSON object); an unreadable one is
 * reported and the rest go on; exit 3 when any was. */
static int info_files(cli *c, char **files, int n, int json)
{
    int rc = 0;
    if (json)
        printf("[");
    for (int i = 0; i < n; i++) {
        gpuimg_file_info f;
        gpuimg_status st = gpuimg_probe(c->ctx, files[i], &f);
        if (st != GPUIMG_OK) {
            cli_fail(c, st);
            rc = cli_exit_code(st);
        }
        if (json)
            file_json(files[i], &f, st == GPUIMG_OK ? NULL : gpuimg_ctx_error(c->ctx), i == 0);
        else if (st == GPUIMG_OK)
            file_text(files[i], &f);
    }
    if (json)
        printf("\n]\n");
    return rc;
}

static int info_option(cli *c, void *data, int opt, const char *arg)
{
    (void)c;
    (void)arg;
    if (opt == OPT_JSON)
        *(int *)data = 1;
    return -1;
}

int cmd_info(cli *c, int argc, char **argv)
{
    static const struct option opts[] = {{"json", no_argument, NULL, OPT_JSON}};
    int json = 0;
    char **pos;
    int npos;
    const cli_spec spec = {opts, 1, info_option, &json, info_help, 0};
    int rc = cli_parse(c, argc, argv, &spec, &pos, &npos);
    if (rc >= 0)
        return rc;
    if (npos > 0) {
        if ((rc = cli_open(c)) >= 0 || c->parse_only)
            return rc >= 0 ? rc : 0;
        return info_files(c, pos, npos, json);
    }
    if (json) {
        cli_error(c, "--json: only with FILEs");
        return EXIT_USAGE;
    }
    if (c->parse_only)
        return 0;
    printf("gpuimg %s\nbackends:\n", GPUIMG_VERSION);
    const char *names[] = {"cpu", "cuda"};
    for (int i = 0; i < 2; i++) {
        char text[512];
        if (c->cfg.backend == GPUIMG_BACKEND_CPU && i == 1) {
            printf("  %-5s not probed (--backend cpu never touches the CUDA runtime)\n", names[i]);
            continue;
        }
        gpuimg_status st = gpuimg_backend_probe(names[i], 0, text, sizeof text);
        printf("  %-5s %s%s\n", names[i],
               st == GPUIMG_OK ? "available: " : "not available: ", text);
        /* every GPU: device 1, 2, ... until one is not there */
        for (int d = 1; i == 1 && st == GPUIMG_OK && d < 1024; d++)
            if ((st = gpuimg_backend_probe(names[i], d, text, sizeof text)) == GPUIMG_OK)
                printf("  %-5s available: %s\n", "", text);
    }
    printf("codecs: %s\n", gpuimg_codec_versions());
    return 0;
}
