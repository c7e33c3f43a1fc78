/* SPDX-License-Identifier: MIT */
/* The command line: global options, the command, exit codes. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"

enum {
    G_BACKEND = 256,
    G_DEVICE,
    G_TIME,
    G_PNG_LEVEL,
    G_JPEG_QUALITY,
    G_THREADS,
    G_MAX_PIXELS,
    G_FORMAT,
    G_NO_AUTO_ORIENT,
    G_STRIP,
    G_LOSSLESS,
    G_DEPTH,
    G_JPEG_CODEC,
    G_MEMORY_BUDGET,
};

const struct option cli_global_options[] = {
    {"backend", required_argument, NULL, G_BACKEND},
    {"device", required_argument, NULL, G_DEVICE},
    {"quiet", no_argument, NULL, 'q'},
    {"verbose", no_argument, NULL, 'v'},
    {"time", no_argument, NULL, G_TIME},
    {"png-level", required_argument, NULL, G_PNG_LEVEL},
    {"jpeg-quality", required_argument, NULL, G_JPEG_QUALITY},
    {"threads", required_argument, NULL, G_THREADS},
    {"max-pixels", required_argument, NULL, G_MAX_PIXELS},
    {"format", required_argument, NULL, G_FORMAT},
    {"no-auto-orient", no_argument, NULL, G_NO_AUTO_ORIENT},
    {"strip", no_argument, NULL, G_STRIP},
    {"lossless", no_argument, NULL, G_LOSSLESS},
    {"webp-lossless", no_argument, NULL, G_LOSSLESS}, /* the old name, kept */
    {"depth", required_argument, NULL, G_DEPTH},
    {"jpeg-codec", required_argument, NULL, G_JPEG_CODEC},
    {"memory-budget", required_argument, NULL, G_MEMORY_BUDGET},
    {"help", no_argument, NULL, 'h'},
    {"version", no_argument, NULL, 'V'},
};
const int cli_global_count = sizeof cli_global_options / sizeof cli_global_options[0];

static void global_help(void)
{
    printf("global options (before or after the command):\n"
           "  --backend auto|cuda|cpu  where operations run (also GPUIMG_BACKEND; default auto)\n"
           "  --device N               CUDA device ordinal (default 0)\n"
           "  -q, --quiet              no notices or warnings\n"
           "  -v, --verbose            say what is done\n"
           "  --time                   per-stage timings on stderr\n"
           "  --png-level 0-9          PNG compression level (default 6)\n"
           "  --jpeg-quality 1-100     JPEG quality (default 90)\n"
           "  --jpeg-codec auto|cpu|gpu  where JPEG is decoded and encoded: gpu is nvJPEG on\n"
           "                           the CUDA device, cpu libjpeg-turbo (default auto: gpu\n"
           "                           when the steps run on CUDA and nvJPEG is present)\n"
           "  --threads N              worker threads, 1-1024 (default, and 0: all cores)\n"
           "  --max-pixels N           refuse larger images before decoding (default 1073741824)\n"
           "  --memory-budget SIZE     batch and folder compare: decoded images held at once,\n"
           "                           e.g. 8G or 512M; a larger image is refused (default: a\n"
           "                           quarter of the memory, or of the container's limit)\n"
           "  --format F               output format when OUT is '-': %s\n"
           "  --no-auto-orient         keep the pixels as stored (default: turn them upright\n"
           "                           as the EXIF Orientation says)\n"
           "  --strip                  write no metadata (default: the input's ICC profile,\n"
           "                           EXIF and XMP go into PNG, JPEG, WebP, TIFF, JXL,\n"
           "                           HEIC and AVIF outputs)\n"
           "  --lossless               WebP, HEIF/AVIF and JPEG XL output lossless and exact\n"
           "                           (default: lossy at --jpeg-quality; --webp-lossless\n"
           "                           is its old name)\n"
           "  --depth 8|16             bits per value of the images read, processed and\n"
           "                           written (default: each file's own; 8 -> 16 is v * 257;\n"
           "                           JPEG, BMP, TGA and WebP hold 8 bits, with a warning)\n"
           "  -h, --help               help (for a command: gpuimg COMMAND --help, or\n"
           "                           gpuimg help COMMAND)\n"
           "  -V, --version            version\n",
           gpuimg_format_list());
}

static void main_help(void)
{
    printf("usage: gpuimg [GLOBAL OPTIONS] COMMAND [OPTIONS] ARGS...\n\n"
           "image -> image commands (IN OUT; IN and OUT may be '-'):\n");
    for (int i = 0; gpuimg_op_at(i); i++)
        printf("  %-10s %s\n", gpuimg_op_at(i)->name, gpuimg_op_at(i)->summary);
    printf("\nother commands:\n"
           "  %-10s %s\n  %-10s %s\n  %-10s %s\n  %-10s %s\n  %-10s %s\n  %-10s %s\n\n",
           "run", "IN OUT STEP...: a pipeline, e.g. blur:sigma=2 rotate:angle=90", "batch",
           "IN_DIR OUT_DIR STEP...: every image of a folder", "histogram",
           "IN: 256-bin histogram per channel", "stats", "IN: min, max, mean, stddev, median",
           "compare", "A B: golden-image comparison", "info", "backends, GPUs, library versions");
    global_help();
    printf("\nexit codes: 0 success, 1 compare: images differ / batch: some files failed,\n"
           "            2 usage error, 3 input/output error, 4 device or resource error,\n"
           "            130 batch interrupted\n");
}

void cli_error(const cli *c, const char *fmt, ...)
{
    char text[1024], line[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    gpuimg_escape_controls(text, line, sizeof line);
    fprintf(stderr, "gpuimg: %s%s%s\n", c->command ? c->command : "", c->command ? ": " : "", line);
}

int cli_exit_code(gpuimg_status st)
{
    switch (st) {
    case GPUIMG_OK: return 0;
    case GPUIMG_ERR_USAGE:
    case GPUIMG_ERR_FORMAT: return EXIT_USAGE;
    case GPUIMG_ERR_IO:
    case GPUIMG_ERR_DECODE:
    case GPUIMG_ERR_TOO_LARGE: return EXIT_IO;
    default: return EXIT_DEVICE;
    }
}

int cli_fail(const cli *c, gpuimg_status st)
{
    const char *detail = c->ctx ? gpuimg_ctx_error(c->ctx) : "";
    cli_error(c, "%s", detail[0] ? detail : gpuimg_strerror(st));
    return cli_exit_code(st);
}

int cli_number(const cli *c, const char *option, const char *text, double min, double max,
               double *out)
{
    double v;
    if (!gpuimg_parse_number(text, &v)) {
        cli_error(c, "--%s: '%s' is not a number", option, text);
        return EXIT_USAGE;
    }
    if (v < min || v > max) {
        cli_error(c, "--%s: %s is out of range (%.15g to %.15g)", option, text, min, max);
        return EXIT_USAGE;
    }
    *out = v;
    return -1;
}

static int whole_number(const cli *c, const char *option, const char *text, double min, double max,
                        double *out)
{
    int rc = cli_number(c, option, text, min, max, out);
    if (rc < 0 && *out != floor(*out)) {
        cli_error(c, "--%s: '%s' is not a whole number", option, text);
        return EXIT_USAGE;
    }
    return rc;
}

/* "--memory-budget": bytes, or a number of K, M, G or T (powers of 1024:
 * "1.5G"), at least 1 MiB. */
static int memory_size(const cli *c, const char *arg, uint64_t *out)
{
    size_t n = strlen(arg);
    char last = n > 0 ? (char)(arg[n - 1] & ~0x20) : '\0'; /* upper case */
    const char *units = "KMGT", *unit = last ? strchr(units, last) : NULL;
    char number[32];
    double v;
    if (unit)
        n--;
    snprintf(number, sizeof number, "%.*s", (int)(n < sizeof number ? n : sizeof number - 1), arg);
    double scale = unit ? (double)(UINT64_C(1) << (10 * (unit - units + 1))) : 1.0;
    if (n >= sizeof number || !gpuimg_parse_number(number, &v) || v * scale < 1048576.0 ||
        v * scale > 1.8e19) {
        cli_error(c,
                  "--memory-budget: '%s' is not a size of at least 1M (bytes, or with K, M, G, T)",
                  arg);
        return EXIT_USAGE;
    }
    *out = (uint64_t)(v * scale);
    return -1;
}

int cli_whole_number(const cli *c, const char *option, const char *text, double min, double max,
                     double *out)
{
    return whole_number(c, option, text, min, max, out);
}

int cli_global_option(cli *c, int opt, const char *arg)
{
    double v;
    int rc = -1;
    switch (opt) {
    case G_BACKEND:
        if (!gpuimg_backend_from_name(arg, &c->cfg.backend)) {
            cli_error(c, "--backend: '%s' is not auto, cuda or cpu", arg);
            return EXIT_USAGE;
        }
        c->backend_given = 1;
        break;
    case G_DEVICE:
        if ((rc = whole_number(c, "device", arg, 0, 1023, &v)) < 0)
            c->cfg.device = (int)v;
        break;
    case 'q': c->quiet = 1; break;
    case 'v': c->verbose = 1; break;
    case G_TIME: c->time = 1; break;
    case G_NO_AUTO_ORIENT: c->cfg.no_auto_orient = 1; break;
    case G_STRIP: c->cfg.strip = 1; break;
    case G_LOSSLESS: c->cfg.lossless = 1; break;
    case G_DEPTH:
        if (strcmp(arg, "8") != 0 && strcmp(arg, "16") != 0) {
            cli_error(c, "--depth: '%s' is not 8 or 16", arg);
            return EXIT_USAGE;
        }
        c->cfg.depth = atoi(arg);
        break;
    case G_JPEG_CODEC:
        if (strcmp(arg, "auto") == 0)
            c->cfg.jpeg_codec = GPUIMG_JPEG_AUTO;
        else if (strcmp(arg, "cpu") == 0)
            c->cfg.jpeg_codec = GPUIMG_JPEG_CPU;
        else if (strcmp(arg, "gpu") == 0)
            c->cfg.jpeg_codec = GPUIMG_JPEG_GPU;
        else {
            cli_error(c, "--jpeg-codec: '%s' is not auto, cpu or gpu", arg);
            return EXIT_USAGE;
        }
        break;
    case G_PNG_LEVEL:
        if ((rc = whole_number(c, "png-level", arg, 0, 9, &v)) < 0)
            c->cfg.png_level = (int)v;
        break;
    case G_JPEG_QUALITY:
        if ((rc = whole_number(c, "jpeg-quality", arg, 1, 100, &v)) < 0)
            c->cfg.jpeg_quality = (int)v;
        break;
    case G_THREADS:
        if ((rc = whole_number(c, "threads", arg, 0, 1024, &v)) < 0) /* 0: every core */
            c->cfg.threads = (int)v;
        break;
    case G_MAX_PIXELS:
        if ((rc = whole_number(c, "max-pixels", arg, 1, 4294836225.0, &v)) < 0)
            c->cfg.max_pixels = (uint64_t)v;
        break;
    case G_MEMORY_BUDGET: rc = memory_size(c, arg, &c->cfg.memory_budget); break;
    case G_FORMAT:
        c->format = gpuimg_format_from_name(arg);
        c->format_name = arg;
        if (c->format == GPUIMG_FORMAT_NONE) {
            cli_error(c, "--format: '%s' is not one of %s", arg, gpuimg_format_list());
            return EXIT_USAGE;
        }
        break;
    case 'V': printf("gpuimg %s\n", GPUIMG_VERSION); return 0;
    }
    return rc;
}

/* The name typed for a long option: "--sig=2" -> "sig". */
static void typed_name(const char *arg, char *name, size_t len)
{
    const char *start = arg + (strncmp(arg, "--", 2) == 0 ? 2 : 0);
    size_t n = strcspn(start, "=");
    snprintf(name, len, "%.*s", (int)(n < len ? n : len - 1), start);
}

int cli_parse(cli *c, int argc, char **argv, const cli_spec *spec, char ***pos, int *npos)
{
    struct option opts[64];
    int n = 0;
    for (int i = 0; i < cli_global_count; i++)
        opts[n++] = cli_global_options[i];
    for (int i = 0; i < spec->nopts && n < 63; i++)
        opts[n++] = spec->opts[i];
    memset(&opts[n], 0, sizeof opts[n]);
    /* '+': stop at the command word. '-': return positionals in order as
     * option 1, so options may follow them even under POSIXLY_CORRECT, and
     * nothing is permuted (argv[optind - 1] is what was just parsed). ':':
     * report a missing value as ':'. */
    const char *optstring = spec->before_command ? "+:hqvV" : "-:hqvV";
    /* Positionals gathered here, room for every argument (none is dropped:
     * `run a b -- invert` x 301 runs 301 steps); argv outlives this
     * array's users. Kept and grown from call to call. */
    static char **positional;
    static int room;
    int np = 0;
    if (argc > room) {
        char **more = realloc(positional, (size_t)argc * sizeof *more);
        if (!more) {
            cli_error(c, "out of memory");
            return EXIT_DEVICE;
        }
        positional = more;
        room = argc;
    }

    optind = 0; /* glibc: a full restart */
    opterr = 0;
    int opt, index;
    while ((index = -1, opt = getopt_long(argc, argv, optstring, opts, &index)) != -1) {
        int rc = -1;
        const char *text = argv[optind - 1];
        if (optarg && optarg == argv[optind - 1] && optind >= 2 && opt != 1)
            text = argv[optind - 2]; /* "--sigma 2": the option is the word before */
        if (index >= 0) {
            /* getopt accepts any unambiguous prefix ("--sig"); the STEP syntax
             * does not, and a new option could change what a prefix means. */
            char name[64];
            typed_name(text, name, sizeof name);
            if (strcmp(name, opts[index].name) != 0) {
                cli_error(c, "unknown option '--%s' (did you mean --%s?)", name, opts[index].name);
                return EXIT_USAGE;
            }
        }
        if (opt == 1) {
            positional[np++] = optarg;
        } else if (opt == 'h') {
            spec->help();
            return 0;
        } else if (opt == '?') {
            char name[64];
            typed_name(text, name, sizeof name);
            if (strncmp(text, "--", 2) != 0)
                cli_error(c, "unknown option '-%c'", optopt);
            else if (strchr(text, '='))
                cli_error(c, "unknown option '--%s', or it takes no value", name);
            else
                cli_error(c, "unknown option '--%s'", name);
            return EXIT_USAGE;
        } else if (opt == ':') {
            cli_error(c, "option '%s' needs a value", text);
            return EXIT_USAGE;
        } else if (opt >= OPT_COMMAND) {
            rc = spec->handle(c, spec->data, opt, optarg);
        } else {
            rc = cli_global_option(c, opt, optarg);
        }
        if (rc >= 0)
            return rc;
    }
    if (spec->before_command) {
        *pos = argv + optind;
        *npos = argc - optind;
        return -1;
    }
    while (optind < argc)
        positional[np++] = argv[optind++]; /* after "--" */
    *pos = positional;
    *npos = np;
    return -1;
}

static void warn_cb(void *user, const char *message)
{
    const cli *c = user;
    if (!c->quiet)
        fprintf(stderr, "%sgpuimg: %s%swarning: %s\n", c->progress_line ? "\r\033[K" : "",
                c->command ? c->command : "", c->command ? ": " : "", message);
}

int cli_open(cli *c)
{
    c->cfg.warn = warn_cb;
    c->cfg.warn_user = c;
    if (c->cfg.jpeg_codec == GPUIMG_JPEG_GPU && c->cfg.backend == GPUIMG_BACKEND_CPU) {
        cli_error(c, "--jpeg-codec gpu needs the CUDA backend, not --backend cpu");
        return EXIT_USAGE;
    }
    gpuimg_status st = gpuimg_ctx_create(&c->cfg, &c->ctx);
    if (st != GPUIMG_OK) {
        cli_error(c, "%s", gpuimg_ctx_error(NULL));
        return cli_exit_code(st);
    }
    return -1;
}

void cli_report_time(const cli *c)
{
    if (!c->time || !c->ctx)
        return;
    double ms[GPUIMG_STAGE_COUNT], total = 0;
    gpuimg_ctx_timings(c->ctx, ms);
    fprintf(stderr, "gpuimg: time:");
    for (int s = 0; s < GPUIMG_STAGE_COUNT; s++) {
        fprintf(stderr, " %s %.2f ms%s", gpuimg_ctx_stage_name(c->ctx, (gpuimg_stage)s), ms[s],
                s + 1 < GPUIMG_STAGE_COUNT ? "," : "");
        total += ms[s];
    }
    fprintf(stderr, "; total %.2f ms\n", total);
}

int cli_check_format(const cli *c, const char *out)
{
    if (c->format != GPUIMG_FORMAT_NONE && strcmp(out, "-") != 0 &&
        gpuimg_format_from_path(out) != c->format) {
        cli_error(c, "--format names the format of '-'; %s has its own extension", out);
        return EXIT_USAGE;
    }
    return -1;
}

int cli_check_output(const cli *c, const char *out, const char *in)
{
    int rc = cli_check_format(c, out);
    if (rc >= 0)
        return rc;
    gpuimg_status st = gpuimg_check_output(c->ctx, out, in);
    return st == GPUIMG_OK ? -1 : cli_fail(c, st);
}

/* An interrupted write leaves no temporary file: remove them, then die of
 * the same signal, so the caller sees it (exit status 128 + signal). */
static void on_signal(int sig)
{
    gpuimg_remove_temporaries();
    signal(sig, SIG_DFL);
    raise(sig);
}

static void install_signal_handlers(void)
{
    static const int signals[] = {SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGXFSZ};
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < sizeof signals / sizeof signals[0]; i++)
        sigaction(signals[i], &sa, NULL);
}

static const struct {
    const char *name;
    int (*run)(cli *c, int argc, char **argv);
} commands[] = {
    {"run", cmd_run},         {"histogram", cmd_histogram}, {"stats", cmd_stats},
    {"compare", cmd_compare}, {"info", cmd_info},           {"batch", cmd_batch},
};

/* Levenshtein distance, for "did you mean"; names are short. */
static int distance(const char *a, const char *b)
{
    size_t n = strlen(b);
    if (n > 31 || strlen(a) > 63)
        return 99;
    int row[32];
    for (size_t j = 0; j <= n; j++)
        row[j] = (int)j;
    for (size_t i = 1; a[i - 1]; i++) {
        int diag = row[0];
        row[0] = (int)i;
        for (size_t j = 1; j <= n; j++) {
            int up = row[j], best = diag + (a[i - 1] != b[j - 1]);
            best = up + 1 < best ? up + 1 : best;
            best = row[j - 1] + 1 < best ? row[j - 1] + 1 : best;
            diag = up;
            row[j] = best;
        }
    }
    return row[n];
}

/* The command nearest a mistyped one (at most two edits away), or NULL. */
static const char *nearest_command(const char *typed)
{
    const char *best = NULL;
    int best_d = 3;
    int nops = 0;
    while (gpuimg_op_at(nops))
        nops++;
    for (int i = 0; i < nops + (int)(sizeof commands / sizeof commands[0]); i++) {
        const char *name = i < nops ? gpuimg_op_at(i)->name : commands[i - nops].name;
        int d = distance(typed, name);
        if (d < best_d) {
            best_d = d;
            best = name;
        }
    }
    return best;
}

int cli_main(int argc, char **argv, int parse_only)
{
    cli c = {.parse_only = parse_only};
    gpuimg_config_init(&c.cfg);
    if (!parse_only)
        install_signal_handlers();
    /* the backend: --backend's (backend_given), else GPUIMG_BACKEND's, else auto */
    char **pos;
    int npos;
    const cli_spec spec = {.help = main_help, .before_command = 1};
    int rc = cli_parse(&c, argc, argv, &spec, &pos, &npos);
    if (rc >= 0)
        return rc;
    if (npos == 0) {
        cli_error(&c, "no command given (try gpuimg --help)");
        return EXIT_USAGE;
    }
    int cmd_index = argc - npos;
    if (strcmp(argv[cmd_index], "help") == 0) { /* "gpuimg help blur" is "gpuimg blur --help" */
        if (npos == 1) {
            main_help();
            return 0;
        }
        static char help_flag[] = "--help";
        char *args[] = {argv[0], argv[cmd_index + 1], help_flag, NULL};
        return cli_main(3, args, parse_only);
    }
    c.command = argv[cmd_index];
    int sub_argc = argc - cmd_index;
    char **sub_argv = argv + cmd_index;
    const char *env = getenv("GPUIMG_BACKEND");
    if (env && *env && !c.backend_given && !gpuimg_backend_from_name(env, &c.cfg.backend)) {
        cli_error(&c, "GPUIMG_BACKEND: '%s' is not auto, cuda or cpu", env);
        return EXIT_USAGE;
    }
    if (gpuimg_op_find(c.command)) {
        rc = cmd_image_op(&c, sub_argc, sub_argv);
    } else {
        rc = -2;
        for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
            if (strcmp(commands[i].name, c.command) == 0)
                rc = commands[i].run(&c, sub_argc, sub_argv);
        if (rc == -2) {
            const char *cmd = c.command, *near = nearest_command(cmd);
            c.command = NULL;
            if (near)
                cli_error(&c, "unknown command '%s' (did you mean %s?)", cmd, near);
            else
                cli_error(&c, "unknown command '%s' (try gpuimg --help)", cmd);
            rc = EXIT_USAGE;
        }
    }
    cli_report_time(&c);
    gpuimg_ctx_destroy(c.ctx);
    /* A report that could not be written (a full disk, a closed pipe) is an
     * I/O error, not a success; said once, unless the command already failed
     * and said why (an image written to standard output, say). */
    if (fflush(stdout) != 0 || ferror(stdout)) {
        if (rc <= 0)
            cli_error(&c, "standard output: %s", strerror(errno ? errno : EIO));
        return rc > 0 ? rc : EXIT_IO;
    }
    return rc < 0 ? 0 : rc;
}
