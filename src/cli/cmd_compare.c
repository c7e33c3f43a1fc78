/* SPDX-License-Identifier: MIT */
#define _POSIX_C_SOURCE 200809L /* strndup */
/* `gpuimg compare A B` and `gpuimg compare EXPECTED_DIR ACTUAL_DIR`:
 * golden-image testing (SPEC §7). Exit 0 within tolerance, 1 beyond it (a
 * size mismatch, a missing golden or actual, a new one without --allow-new
 * included), 3 when a file cannot be read or a report written. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "cli.h"
#include "compare/same_file.h"
#include "compare_out.h"
#include "io/io.h"
#include "json.h"

enum {
    OPT_DIFF = OPT_COMMAND,
    OPT_FUZZ,
    OPT_THRESHOLD,
    OPT_ANTIALIASING,
    OPT_MAX_SHIFT,
    OPT_IGNORE,
    OPT_MASK,
    OPT_MAX_DIFF,
    OPT_MAX_DIFFERING,
    OPT_MIN_PSNR,
    OPT_MIN_SSIM,
    OPT_SSIM,
    OPT_FLIP,
    OPT_MAX_FLIP,
    OPT_JSON,
    OPT_RECURSIVE,
    OPT_ALLOW_NEW,
    OPT_ALLOW_EMPTY,
    OPT_REPORT,
    OPT_JUNIT,
    OPT_UPDATE,
    OPT_PRUNE,
    OPT_JOBS,
    OPT_GITHUB,
    OPT_SHARD,
    OPT_MERGE,
    OPT_IGNORE_FILE
};

#define MAX_IGNORE 64

struct compare_opts {
    compare_settings s;
    gpuimg_rect ignore[MAX_IGNORE];
    const char *diff, *report, *junit;
    int json, want_ssim, want_flip, recursive, allow_new, allow_empty, update, prune, jobs, github;
    const char *json_file, *ignore_file; /* --json FILE, --ignore-file REGIONS.json */
    int shard_index, shard_count, merge;
};

static void compare_help(void)
{
    printf("usage: gpuimg compare A B [options]\n"
           "       gpuimg compare EXPECTED_DIR ACTUAL_DIR [options]\n"
           "       gpuimg compare --merge PART.json... [--report DIR] [--junit FILE]\n"
           "                      [--json FILE]\n"
           "  golden-image comparison. Two images of the same size (a gray or alpha-less one\n"
           "  widened: gray -> RGB, missing alpha = 255): max_diff, differing pixels, mae,\n"
           "  rmse, psnr, ssim. Two folders: every image with the same relative path in both,\n"
           "  one line per pair that is not identical or passed, then a summary.\n"
           "  exit 0: within tolerance; 1: differs beyond it (sizes, missing, new included);\n"
           "  3: a file cannot be read. With no limit option one counted pixel fails.\n\n"
           "which pixels differ:\n"
           "  --fuzz T             a channel differing by more than T (0-65535, in the\n"
           "                       images' units: 0-255, or 0-65535 at 16 bits; default 0)\n"
           "  --threshold D        instead, pixelmatch's YIQ colour distance above D (0-1;\n"
           "                       0.1 is pixelmatch's default)\n"
           "  --antialiasing       forgive pixels that are anti-aliasing in either image\n"
           "  --max-shift N        forgive each group of differing pixels that moved as one\n"
           "                       by up to N pixels (0-8); a changed glyph stays counted\n"
           "  --ignore X,Y,W,H     never count this rectangle (repeatable)\n"
           "  --mask PNG           never count pixels whose first channel is 0 (A's size);\n"
           "                       in folders, a golden NAME.EXT takes NAME.mask.png\n"
           "limits (every one given must hold):\n"
           "  --max-diff N         no channel differs by more than N (0-65535)\n"
           "  --max-differing N    at most N counted pixels; N%% for a percentage; both may\n"
           "                       be given\n"
           "  --min-psnr DB        PSNR >= DB (identical: infinite)\n"
           "  --min-ssim S         SSIM >= S (-1 to 1); n/a under 11 pixels a side\n"
           "  --max-flip F         FLIP's mean <= F (0-1); implies --flip\n"
           "output:\n"
           "  --ssim               compute SSIM (the costly figure) without --min-ssim\n"
           "  --flip               compute NVIDIA's FLIP (LDR, 67 pixels per degree): mean,\n"
           "                       95th and 99th weighted percentiles of its map\n"
           "  --diff PNG           A's luma at one-third contrast: counted pixels red,\n"
           "                       forgiven yellow, ignored dark blue (one pair)\n"
           "  --json               one JSON document instead of text\n"
           "  --json FILE          folders: the document to FILE (FILE.json, or --json=FILE),\n"
           "                       the text on standard output\n"
           "  --github             GitHub Actions: an ::error annotation per failing pair\n"
           "                       (on stderr with --json), a table appended to\n"
           "                       $GITHUB_STEP_SUMMARY (default: on when\n"
           "                       GITHUB_ACTIONS=true)\n"
           "folders:\n"
           "  --recursive          descend into subfolders\n"
           "  --allow-new          an actual with no golden does not fail\n"
           "  --allow-empty        two folders that pair nothing pass (default: exit 1)\n"
           "  --report DIR         an HTML report (DIR/index.html, report.json, images)\n"
           "  --junit FILE         JUnit XML, one test case per pair\n"
           "  --update             copy the actual over each failed, size and new golden\n"
           "  --prune              with --update: delete goldens with no actual (and masks)\n"
           "  --jobs N             pairs at once (default: every core)\n"
           "  --ignore-file F      never count rectangles by path: {\"GLOB\": [[X,Y,W,H]]}\n"
           "  --shard K/N          only the pairs whose sorted index is K mod N\n"
           "  --merge              join the --json FILE parts of every shard into one run\n"
           "  golden NAME~1.EXT, NAME~2.EXT...: known variants; the pair passes against any\n");
}

/* "X,Y,W,H" of whole numbers, W and H above 0. */
static int parse_rect(cli *c, const char *arg, gpuimg_rect *r)
{
    double v[4];
    char *text = strdup(arg);
    int n = 0, ok = text != NULL;
    for (char *tok = text ? strtok(text, ",") : NULL; ok && tok; tok = strtok(NULL, ",")) {
        while (*tok == ' ')
            tok++;
        ok = n < 4 && gpuimg_parse_number(tok, &v[n]) && v[n] == floor(v[n]) && fabs(v[n]) <= 1e9;
        n++;
    }
    free(text);
    if (!ok || n != 4 || v[2] < 1 || v[3] < 1) {
        cli_error(c, "--ignore: '%s' is not X,Y,W,H (whole numbers, W and H at least 1)", arg);
        return EXIT_USAGE;
    }
    *r = (gpuimg_rect){(int)v[0], (int)v[1], (int)v[2], (int)v[3]};
    return -1;
}

static int limit_option(cli *c, struct compare_opts *o, int opt, const char *arg)
{
    gpuimg_compare_limits *l = &o->s.lim;
    double v;
    int rc = -1;
    switch (opt) {
    case OPT_MAX_DIFF:
        if ((rc = cli_whole_number(c, "max-diff", arg, 0, 65535, &v)) < 0) {
            l->max_diff = (int)v;
            l->has_max_diff = 1;
        }
        break;
    case OPT_MAX_DIFFERING: {
        size_t len = strlen(arg);
        int pct = len > 0 && arg[len - 1] == '%';
        char *text = strndup(arg, len - (size_t)pct); /* the whole value, less '%' */
        if (!text)
            return EXIT_DEVICE;
        if ((rc = cli_number(c, "max-differing", text, 0, pct ? 100 : 1e18, &v)) < 0) {
            if ((pct && l->has_max_differing_pct) || (!pct && l->has_max_differing)) {
                cli_error(c, "--max-differing: give it at most once as a count and once as a "
                             "percentage");
                rc = EXIT_USAGE;
            } else if (pct) {
                l->max_differing_pct = v;
                l->has_max_differing_pct = 1;
            } else {
                l->max_differing = v;
                l->has_max_differing = 1;
            }
        }
        free(text);
        break;
    }
    case OPT_MIN_PSNR:
        if ((rc = cli_number(c, "min-psnr", arg, 0, 1000, &v)) < 0) {
            l->min_psnr = v;
            l->has_min_psnr = 1;
        }
        break;
    case OPT_MIN_SSIM:
        if ((rc = cli_number(c, "min-ssim", arg, -1, 1, &v)) < 0) {
            l->min_ssim = v;
            l->has_min_ssim = 1;
        }
        break;
    case OPT_MAX_FLIP:
        if ((rc = cli_number(c, "max-flip", arg, 0, 1, &v)) < 0) {
            l->max_flip = v;
            l->has_max_flip = 1;
        }
        break;
    }
    return rc;
}

/* K/N, 0 <= K < N, as batch takes it. */
static int parse_shard(cli *c, struct compare_opts *o, const char *arg)
{
    const char *slash = strchr(arg, '/');
    char *k_text = slash ? strndup(arg, (size_t)(slash - arg)) : NULL;
    double k, n;
    int ok = k_text && gpuimg_parse_number(k_text, &k) && gpuimg_parse_number(slash + 1, &n) &&
             k == floor(k) && n == floor(n) && k >= 0 && n <= 1e6 && k < n &&
             strspn(arg, "0123456789/") == strlen(arg);
    free(k_text);
    if (!ok) {
        cli_error(c, "--shard: '%s' is not K/N with 0 <= K < N <= 1000000", arg);
        return EXIT_USAGE;
    }
    o->shard_index = (int)k;
    o->shard_count = (int)n;
    return -1;
}

static int compare_option(cli *c, void *data, int opt, const char *arg)
{
    struct compare_opts *o = data;
    gpuimg_compare_options *co = &o->s.opt;
    double v;
    int rc = -1;
    switch (opt) {
    case OPT_DIFF:
    case OPT_REPORT:
    case OPT_JUNIT:
        if (strcmp(arg, "-") == 0) {
            cli_error(c, "--%s: standard output carries the report; name a file",
                      opt == OPT_DIFF     ? "diff"
                      : opt == OPT_REPORT ? "report"
                                          : "junit");
            return EXIT_USAGE;
        }
        *(opt == OPT_DIFF ? &o->diff : opt == OPT_REPORT ? &o->report : &o->junit) = arg;
        break;
    case OPT_JSON:
        if (arg)
            o->json_file = arg;
        else
            o->json = 1;
        break;
    case OPT_MERGE: o->merge = 1; break;
    case OPT_IGNORE_FILE: o->ignore_file = arg; break;
    case OPT_SHARD: return parse_shard(c, o, arg);
    case OPT_SSIM: o->want_ssim = 1; break;
    case OPT_FLIP: o->want_flip = 1; break;
    case OPT_ANTIALIASING: co->antialiasing = 1; break;
    case OPT_RECURSIVE: o->recursive = 1; break;
    case OPT_ALLOW_NEW: o->allow_new = 1; break;
    case OPT_ALLOW_EMPTY: o->allow_empty = 1; break;
    case OPT_UPDATE: o->update = 1; break;
    case OPT_PRUNE: o->prune = 1; break;
    case OPT_GITHUB: o->github = 1; break;
    case OPT_MASK: o->s.mask = arg; break;
    case OPT_FUZZ:
        if ((rc = cli_whole_number(c, "fuzz", arg, 0, 65535, &v)) < 0)
            co->fuzz = (int)v;
        break;
    case OPT_THRESHOLD:
        if ((rc = cli_number(c, "threshold", arg, 0, 1, &v)) < 0) {
            if (v <= 0) {
                cli_error(c, "--threshold: %s is not above 0 (0 < D <= 1)", arg);
                return EXIT_USAGE;
            }
            co->threshold = v;
        }
        break;
    case OPT_MAX_SHIFT:
        if ((rc = cli_whole_number(c, "max-shift", arg, 0, 8, &v)) < 0)
            co->max_shift = (int)v;
        break;
    case OPT_JOBS:
        if ((rc = cli_whole_number(c, "jobs", arg, 0, 1024, &v)) < 0)
            o->jobs = (int)v;
        break;
    case OPT_IGNORE:
        if (co->nignore == MAX_IGNORE) {
            cli_error(c, "--ignore: at most %d rectangles", MAX_IGNORE);
            return EXIT_USAGE;
        }
        if ((rc = parse_rect(c, arg, &o->ignore[co->nignore])) < 0)
            co->nignore++;
        break;
    default: rc = limit_option(c, o, opt, arg);
    }
    return rc;
}

static void print_text(const gpuimg_pair *p, int flip)
{
    char text[2048];
    gpuimg_compare_text(p, flip, text, sizeof text);
    fputs(text, stdout);
}

/* SSIM is computed when a limit or the user asks for it: it is most of a
 * comparison's time on the CPU (4.7 of 5.7 s for an 8K pair). FLIP, the
 * costlier still, likewise. */
static void settle_ssim(struct compare_opts *o)
{
    o->s.opt.ssim = o->want_ssim || o->s.lim.has_min_ssim;
    o->s.opt.flip = o->want_flip || o->s.lim.has_max_flip;
    o->s.opt.ignore = o->ignore;
}

/* --github for one pair: its annotation when it fails (on stderr when
 * standard output is a JSON document: GitHub reads workflow commands from
 * both), and the job summary; EXIT_IO when the summary cannot be written. */
static int github_two(cli *c, const struct compare_opts *o, gpuimg_pair *p, int rc)
{
    if (!o->github)
        return rc;
    if (compare_pair_fails(p->status, 0))
        compare_github_annotation(o->json ? stderr : stdout, p);
    fflush(stdout);
    gpuimg_folder_result one = {.pairs = p, .npairs = 1};
    one.count[p->status] = 1;
    if (compare_github_summary(&one, p->expected, p->actual, 0) != 0) {
        cli_error(c, "GITHUB_STEP_SUMMARY: %s: cannot append: %s", getenv("GITHUB_STEP_SUMMARY"),
                  strerror(errno));
        return EXIT_IO;
    }
    return rc;
}

static int compare_two(cli *c, struct compare_opts *o, const char *a_path, const char *b_path)
{
    gpuimg_pair p = {.expected = (char *)a_path, .actual = (char *)b_path};
    gpuimg_image mask = {0}, diff = {0};
    gpuimg_status st = GPUIMG_OK;
    if (o->s.mask && (st = gpuimg_load(c->ctx, o->s.mask, &mask)) == GPUIMG_OK)
        o->s.opt.mask = &mask;
    if (st == GPUIMG_OK)
        st = gpuimg_compare_files(c->ctx, a_path, b_path, &o->s.opt, &o->s.lim, &p,
                                  o->diff ? &diff : NULL);
    if (st == GPUIMG_OK && o->diff && !p.result.size_differs)
        st = gpuimg_save(c->ctx, o->diff, GPUIMG_FORMAT_NONE, &diff);
    gpuimg_image_free(&diff);
    gpuimg_image_free(&mask);
    if (st != GPUIMG_OK) {
        p.status = GPUIMG_PAIR_ERROR;
        snprintf(p.reason, sizeof p.reason, "%s", gpuimg_ctx_error(c->ctx));
        if (!o->json)
            return github_two(c, o, &p, cli_fail(c, st));
        /* a record even for an unreadable file: scripts read one shape */
        compare_json_record(stdout, &p, &o->s, 1);
        fputc('\n', stdout);
        cli_fail(c, st);
        return github_two(c, o, &p, cli_exit_code(st));
    }
    if (o->json) {
        compare_json_record(stdout, &p, &o->s, 1);
        fputc('\n', stdout);
    } else {
        print_text(&p, o->s.opt.flip);
    }
    if (o->s.lim.has_min_ssim && !p.result.has_ssim && !p.result.size_differs && !c->quiet)
        fprintf(stderr, "gpuimg: compare: ssim is n/a (a side is under 11 pixels, or every "
                        "pixel ignored); --min-ssim not applied\n");
    return github_two(c, o, &p,
                      p.status == GPUIMG_PAIR_FAILED || p.status == GPUIMG_PAIR_SIZE ? EXIT_DIFFERS
                                                                                     : 0);
}

int compare_folders(cli *c, struct compare_opts *o, const char *expected, const char *actual);
static int compare_merge(cli *c, struct compare_opts *o, char **parts, int nparts);

/* "--json FILE" as "--json=FILE" when FILE ends in .json and is no option:
 * --json alone stays the switch for standard output. The strings made
 * here live in *made until the command ends. */
static char **json_file_args(int argc, char **argv, char **made)
{
    char **args = malloc(((size_t)argc + 1) * sizeof *args);
    if (!args)
        return NULL;
    int n = 0;
    *made = NULL;
    for (int i = 0; i < argc; i++) {
        const char *next = i + 1 < argc ? argv[i + 1] : NULL;
        size_t len = next ? strlen(next) : 0;
        if (!*made && strcmp(argv[i], "--json") == 0 && next && next[0] != '-' && len > 5 &&
            strcasecmp(next + len - 5, ".json") == 0 && (*made = malloc(len + 8)) != NULL) {
            snprintf(*made, len + 8, "--json=%s", next);
            args[n++] = *made;
            i++;
            continue;
        }
        args[n++] = argv[i];
    }
    args[n] = NULL;
    return args;
}

static int is_folder(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0 && S_ISDIR(sb.st_mode);
}

static int compare_command(cli *c, int argc, char **argv, const struct option *opts, size_t nopts);

/* compare --merge: the parts and the options that apply to a merge. */
static int merge_command(cli *c, struct compare_opts *o, char **parts, int nparts)
{
    if (nparts < 1) {
        cli_error(c, "--merge: name the parts (PART.json...)");
        return EXIT_USAGE;
    }
    const char *not_here = o->update        ? "--update"
                           : o->prune       ? "--prune"
                           : o->recursive   ? "--recursive"
                           : o->shard_count ? "--shard"
                           : o->diff        ? "--diff"
                           : o->s.mask      ? "--mask"
                           : o->jobs        ? "--jobs"
                           : o->ignore_file ? "--ignore-file"
                                            : NULL;
    if (not_here) {
        cli_error(c, "%s: not with --merge (the parts were compared with their own options)",
                  not_here);
        return EXIT_USAGE;
    }
    o->github = compare_github_on(o->github);
    int rc;
    if ((rc = cli_open(c)) >= 0 || c->parse_only)
        return rc >= 0 ? rc : 0;
    return compare_merge(c, o, parts, nparts);
}

int cmd_compare(cli *c, int argc, char **argv)
{
    static const struct option opts[] = {
        {"diff", required_argument, NULL, OPT_DIFF},
        {"fuzz", required_argument, NULL, OPT_FUZZ},
        {"threshold", required_argument, NULL, OPT_THRESHOLD},
        {"antialiasing", no_argument, NULL, OPT_ANTIALIASING},
        {"max-shift", required_argument, NULL, OPT_MAX_SHIFT},
        {"ignore", required_argument, NULL, OPT_IGNORE},
        {"mask", required_argument, NULL, OPT_MASK},
        {"max-diff", required_argument, NULL, OPT_MAX_DIFF},
        {"max-differing", required_argument, NULL, OPT_MAX_DIFFERING},
        {"min-psnr", required_argument, NULL, OPT_MIN_PSNR},
        {"min-ssim", required_argument, NULL, OPT_MIN_SSIM},
        {"ssim", no_argument, NULL, OPT_SSIM},
        {"flip", no_argument, NULL, OPT_FLIP},
        {"max-flip", required_argument, NULL, OPT_MAX_FLIP},
        {"json", optional_argument, NULL, OPT_JSON},
        {"shard", required_argument, NULL, OPT_SHARD},
        {"merge", no_argument, NULL, OPT_MERGE},
        {"ignore-file", required_argument, NULL, OPT_IGNORE_FILE},
        {"recursive", no_argument, NULL, OPT_RECURSIVE},
        {"allow-new", no_argument, NULL, OPT_ALLOW_NEW},
        {"allow-empty", no_argument, NULL, OPT_ALLOW_EMPTY},
        {"report", required_argument, NULL, OPT_REPORT},
        {"junit", required_argument, NULL, OPT_JUNIT},
        {"update", no_argument, NULL, OPT_UPDATE},
        {"prune", no_argument, NULL, OPT_PRUNE},
        {"jobs", required_argument, NULL, OPT_JOBS},
        {"github", no_argument, NULL, OPT_GITHUB},
    };
    char *made = NULL, **args = json_file_args(argc, argv, &made);
    if (!args)
        return EXIT_DEVICE;
    int rc = compare_command(c, argc - (made != NULL), args, opts, sizeof opts / sizeof opts[0]);
    free(made);
    free(args);
    return rc;
}

static int compare_command(cli *c, int argc, char **argv, const struct option *opts, size_t nopts)
{
    struct compare_opts o;
    memset(&o, 0, sizeof o);
    gpuimg_compare_options_init(&o.s.opt);
    const cli_spec spec = {opts, nopts, compare_option, &o, compare_help, 0};
    char **pos;
    int npos;
    int rc = cli_parse(c, argc, argv, &spec, &pos, &npos);
    if (rc >= 0)
        return rc;
    if (o.merge)
        return merge_command(c, &o, pos, npos);
    if (npos != 2) {
        cli_error(c, "expected two images A and B (or two folders), got %d argument%s", npos,
                  npos == 1 ? "" : "s");
        return EXIT_USAGE;
    }
    if (o.prune && !o.update) {
        cli_error(c, "--prune: only with --update");
        return EXIT_USAGE;
    }
    settle_ssim(&o);
    o.github = compare_github_on(o.github);
    int folders = is_folder(pos[0]) && is_folder(pos[1]);
    if (!folders && (is_folder(pos[0]) || is_folder(pos[1]))) {
        cli_error(c, "%s: compare takes two images or two folders, not one of each",
                  is_folder(pos[0]) ? pos[0] : pos[1]);
        return EXIT_USAGE;
    }
    const char *folder_only = o.shard_count   ? "--shard"
                              : o.json_file   ? "--json FILE"
                              : o.ignore_file ? "--ignore-file"
                              : o.recursive   ? "--recursive"
                              : o.allow_new   ? "--allow-new"
                              : o.allow_empty ? "--allow-empty"
                              : o.report      ? "--report"
                              : o.junit       ? "--junit"
                              : o.update      ? "--update"
                              : o.jobs        ? "--jobs"
                                              : NULL;
    if (!folders && folder_only) {
        cli_error(c, "%s: only when comparing two folders", folder_only);
        return EXIT_USAGE;
    }
    if (folders && (o.diff || o.s.mask)) {
        cli_error(c,
                  "%s: only for two images (in folders, the report has the differences and "
                  "NAME.mask.png the masks)",
                  o.diff ? "--diff" : "--mask");
        return EXIT_USAGE;
    }
    if ((rc = cli_open(c)) >= 0 || c->parse_only)
        return rc >= 0 ? rc : 0;
    if (folders)
        return compare_folders(c, &o, pos[0], pos[1]);
    if (o.diff && ((rc = cli_check_output(c, o.diff, pos[0])) >= 0 ||
                   (rc = cli_check_output(c, o.diff, pos[1])) >= 0))
        return rc;
    return compare_two(c, &o, pos[0], pos[1]);
}

/* ---- folders ---- */

struct folder_run {
    cli *c;
    compare_report *report;
    int report_failed;
};

static void on_failed(void *user, const gpuimg_pair *p, const gpuimg_image *diff)
{
    struct folder_run *fr = user;
    if (fr->report && !fr->report_failed && compare_report_add_images(fr->report, p, diff) != 0)
        fr->report_failed = 1;
}

static void print_summary(const gpuimg_folder_result *res, size_t updated, size_t pruned,
                          int update)
{
    printf("%zu pair%s:", res->npairs, res->npairs == 1 ? "" : "s");
    for (int s = 0; s < GPUIMG_PAIR_STATUS_COUNT; s++)
        printf("%s %zu %s", s ? "," : "", res->count[s],
               gpuimg_pair_status_name((gpuimg_pair_status)s));
    if (update)
        printf("; %zu golden%s updated, %zu pruned", updated, updated == 1 ? "" : "s", pruned);
    printf("\n");
}

/* What every folder run ends with, compared here or merged from shards:
 * the report, JUnit, goldens updated, the records (text or JSON, to
 * standard output or --json FILE), GitHub's annotations and summary, and
 * the exit code. */
static int finish_folders(cli *c, struct compare_opts *o, gpuimg_folder_result *res,
                          struct folder_run *fr, const char *expected, const char *actual)
{
    int failing = 0, errors = (int)res->count[GPUIMG_PAIR_ERROR];
    for (size_t i = 0; i < res->npairs; i++)
        failing |= compare_pair_fails(res->pairs[i].status, o->allow_new);
    int io_failed = fr->report_failed;
    if (fr->report && !io_failed &&
        compare_report_finish(fr->report, res, &o->s, expected, actual) != 0)
        io_failed = 1;
    if (io_failed)
        cli_fail(c, GPUIMG_ERR_IO);
    if (o->junit && compare_junit(c->ctx, o->junit, res, o->allow_new) != 0) {
        cli_fail(c, GPUIMG_ERR_IO);
        io_failed = 1;
    }
    if (o->update &&
        gpuimg_update_goldens(c->ctx, res, o->prune, &o->s.updated, &o->s.pruned) != GPUIMG_OK) {
        cli_fail(c, GPUIMG_ERR_IO);
        io_failed = 1;
    }
    if (o->json_file && compare_json_file(c->ctx, o->json_file, res, &o->s) != 0) {
        cli_fail(c, GPUIMG_ERR_IO);
        io_failed = 1;
    }
    if (o->json) {
        compare_json_document(stdout, res, &o->s);
    } else {
        for (size_t i = 0; i < res->npairs; i++) {
            const gpuimg_pair *p = &res->pairs[i];
            if (p->status > GPUIMG_PAIR_PASSED || c->verbose) {
                /* one line each, whatever a name holds: a newline or an
                 * escape sequence in it is written as an escape */
                char path[4 * 4096], reason[4 * sizeof p->reason];
                gpuimg_escape_controls(p->path, path, sizeof path);
                gpuimg_escape_controls(p->reason, reason, sizeof reason);
                printf("%s %s%s%s\n", gpuimg_pair_status_name(p->status), path,
                       reason[0] ? ": " : "", reason);
            }
        }
    }
    if (o->github)
        for (size_t i = 0; i < res->npairs; i++)
            if (compare_pair_fails(res->pairs[i].status, o->allow_new))
                compare_github_annotation(o->json ? stderr : stdout, &res->pairs[i]);
    if (!o->json)
        print_summary(res, o->s.updated, o->s.pruned, o->update);
    fflush(stdout);
    if (o->github && compare_github_summary(res, expected, actual, o->allow_new) != 0) {
        cli_error(c, "GITHUB_STEP_SUMMARY: %s: cannot append: %s", getenv("GITHUB_STEP_SUMMARY"),
                  strerror(errno));
        io_failed = 1;
    }
    /* No pair is no pass (SPEC §7): goldens in subfolders without
     * --recursive, or a wrong folder, must not make a green CI. A shard
     * may hold none of a run that has some. */
    int empty = res->all_pairs == 0 && !o->allow_empty;
    if (empty)
        cli_error(c, "%s and %s: no pair of images to compare%s (--allow-empty to pass)", expected,
                  actual, o->recursive ? "" : "; subfolders are read with --recursive");
    if (errors || io_failed)
        return EXIT_IO;
    return (failing && !o->update) || empty ? EXIT_DIFFERS : 0;
}

int compare_folders(cli *c, struct compare_opts *o, const char *expected, const char *actual)
{
    struct folder_run fr = {.c = c};
    if (o->report && !(fr.report = compare_report_open(c->ctx, o->report))) {
        cli_error(c, "--report: %s: cannot create the folder: %s", o->report, strerror(errno));
        return EXIT_IO;
    }
    gpuimg_ignore_region *regions = NULL;
    size_t nregions = 0;
    if (o->ignore_file) {
        size_t len;
        char why[600], *text = compare_read_text(o->ignore_file, &len);
        int bad = !text;
        if (!text)
            snprintf(why, sizeof why, "--ignore-file: %s: cannot read it: %s", o->ignore_file,
                     strerror(errno));
        else
            bad = compare_regions_parse(o->ignore_file, text, len, &regions, &nregions, why,
                                        sizeof why) != 0;
        free(text);
        if (bad) {
            cli_error(c, "%s", why);
            compare_report_free(fr.report);
            return EXIT_USAGE;
        }
    }
    o->s.regions = regions;
    o->s.nregions = nregions;
    gpuimg_folder_options fo = {.expected_dir = expected,
                                .regions = regions,
                                .nregions = nregions,
                                .actual_dir = actual,
                                .recursive = o->recursive,
                                .compare = o->s.opt,
                                .limits = o->s.lim,
                                .jobs = o->jobs,
                                .shard_index = o->shard_index,
                                .shard_count = o->shard_count,
                                .on_failed = fr.report ? on_failed : NULL,
                                .user = &fr};
    gpuimg_folder_result res;
    gpuimg_status st = gpuimg_compare_folders(c->ctx, &fo, &res);
    if (st != GPUIMG_OK) {
        compare_report_free(fr.report);
        compare_regions_free(regions, nregions);
        return cli_fail(c, st);
    }
    o->s.expected_dir = expected;
    o->s.actual_dir = actual;
    o->s.shard_index = o->shard_index;
    o->s.shard_count = o->shard_count;
    o->s.all_pairs = res.all_pairs;
    o->s.allow_new = o->allow_new;
    o->s.allow_empty = o->allow_empty;
    int rc = finish_folders(c, o, &res, &fr, expected, actual);
    compare_report_free(fr.report);
    gpuimg_folder_result_free(&res);
    compare_regions_free(regions, nregions);
    return rc;
}

/* The report of a merged run: the failing pairs compared again, for their
 * difference images (the parts carry figures, not pictures). */
static void merged_report_images(cli *c, struct folder_run *fr, const gpuimg_folder_result *res,
                                 const compare_settings *s)
{
    for (size_t i = 0; i < res->npairs && !fr->report_failed; i++) {
        const gpuimg_pair *p = &res->pairs[i];
        if (p->status != GPUIMG_PAIR_FAILED)
            continue;
        gpuimg_image e = {0}, a = {0}, mask = {0}, diff = {0};
        gpuimg_compare_result r;
        gpuimg_compare_options co = s->opt;
        co.ssim = 0;
        co.mask = p->mask ? &mask : NULL;
        /* the run's rectangles and the regions of this path (a part's
         * counts are unbounded: the room is made for them) */
        size_t room = (size_t)co.nignore + s->nregions;
        gpuimg_rect *rects = malloc((room ? room : 1) * sizeof *rects);
        if (rects && co.nignore > 0)
            memcpy(rects, co.ignore, (size_t)co.nignore * sizeof *rects);
        if (rects)
            co.nignore += (int)compare_regions_for(s->regions, s->nregions, p->path,
                                                   rects + co.nignore, s->nregions);
        co.ignore = rects;
        int ok = rects && gpuimg_load(c->ctx, p->expected, &e) == GPUIMG_OK &&
                 gpuimg_load(c->ctx, p->actual, &a) == GPUIMG_OK &&
                 (!p->mask || gpuimg_load(c->ctx, p->mask, &mask) == GPUIMG_OK) &&
                 gpuimg_compare(c->ctx, &e, &a, &co, &r, &diff) == GPUIMG_OK;
        /* a file changed since its shard ran shows without its picture */
        on_failed(fr, p, ok && !r.size_differs ? &diff : NULL);
        free(rects);
        gpuimg_image_free(&diff);
        gpuimg_image_free(&mask);
        gpuimg_image_free(&a);
        gpuimg_image_free(&e);
    }
}

/* compare --merge PART.json...: the shards' documents joined (SPEC §7). */
static int compare_merge(cli *c, struct compare_opts *o, char **parts, int nparts)
{
    for (int k = 0; o->json_file && k < nparts; k++)
        if (strcmp(o->json_file, parts[k]) == 0) {
            cli_error(c, "--json: %s is one of the parts; name another file", parts[k]);
            return EXIT_USAGE;
        }
    gpuimg_folder_result res;
    compare_settings s;
    char why[600];
    int usage;
    if (compare_merge_read(c->ctx, parts, nparts, &res, &s, why, sizeof why, &usage) != 0) {
        cli_error(c, "%s", why);
        return usage ? EXIT_USAGE : EXIT_IO;
    }
    o->s = s;
    o->allow_new |= s.allow_new;
    o->allow_empty |= s.allow_empty;
    o->s.allow_new = o->allow_new;
    o->s.allow_empty = o->allow_empty;
    struct folder_run fr = {.c = c};
    int rc;
    if (o->report && !(fr.report = compare_report_open(c->ctx, o->report))) {
        cli_error(c, "--report: %s: cannot create the folder: %s", o->report, strerror(errno));
        rc = EXIT_IO;
    } else {
        if (fr.report)
            merged_report_images(c, &fr, &res, &s);
        rc = finish_folders(c, o, &res, &fr, s.expected_dir, s.actual_dir);
    }
    compare_report_free(fr.report);
    gpuimg_folder_result_free(&res);
    compare_merge_free(&s);
    return rc;
}
