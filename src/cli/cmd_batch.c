/* SPDX-License-Identifier: MIT */
/* `gpuimg batch IN_DIR OUT_DIR STEP...`: the CLI side of gpuimg_batch: its
 * options, the progress bar, one line per failed file, the closing summary,
 * and SIGINT/SIGTERM. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

enum { OPT_RECURSIVE = OPT_COMMAND, OPT_SKIP, OPT_FAIL_FAST, OPT_JOBS, OPT_DEVICES, OPT_SHARD };

#define MAX_DEVICES 64

/* The failed inputs, named again under the summary (at most this many). */
#define FAILED_NAMES 20

struct batch_cli {
    gpuimg_batch_options opt;
    char *failed[FAILED_NAMES];
    int nfailed;
    int devices[MAX_DEVICES];
    int progress;     /* a terminal: redraw one status line */
    uint64_t skipped; /* files skipped so far (not work done) */
    int verbose;
    struct timespec start;
};

static void batch_help(void)
{
    printf("usage: gpuimg batch IN_DIR OUT_DIR [STEP...] [--recursive] [--skip-existing]\n"
           "                    [--fail-fast] [--jobs N] [--devices all|0,2] [--shard K/N]\n"
           "  every image of IN_DIR (%s: by extension,\n"
           "  in sorted path order) through the steps (as in `gpuimg run`) into OUT_DIR,\n"
           "  keeping relative paths and names; with no step, only decode and encode.\n"
           "  OUT_DIR is created; it may not be IN_DIR, and no output may replace an input.\n"
           "  A bad file is reported and the rest go on (exit 1 if any failed).\n\n"
           "options:\n"
           "  --format F        write every output as F (%s), changing\n"
           "                    the extension; default: each input's own format\n"
           "  --recursive       descend into subfolders (never into OUT_DIR)\n"
           "  --skip-existing   skip inputs whose output exists and is newer (resume)\n"
           "  --fail-fast       stop taking files at the first failure\n"
           "  --jobs N          decode and encode threads each (default, and 0: all cores)\n"
           "  --devices LIST    CUDA devices: all, or a list such as 0,2 (default: --device)\n"
           "  --shard K/N       only files whose sorted index is K mod N (0 <= K < N), so N\n"
           "                    machines can share one folder\n"
           "On a terminal, stderr shows a progress bar; the summary is always printed\n"
           "(with the files ignored, the first ten named, and the failed ones); --time sums\n"
           "every worker's stages.\n"
           "SIGINT or SIGTERM: no new files, images being written finish (within 10 s),\n"
           "summary, exit 130; a second signal stops at once, removing temporary files.\n",
           gpuimg_format_read_list(), gpuimg_format_list());
}

static int parse_devices(cli *c, struct batch_cli *b, const char *arg)
{
    if (strcmp(arg, "all") == 0) {
        b->opt.devices = NULL;
        b->opt.ndevices = -1;
        return -1;
    }
    int n = 0;
    char *copy = strdup(arg), *save = NULL;
    if (!copy)
        return EXIT_DEVICE;
    for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        double v;
        if (n == MAX_DEVICES || cli_whole_number(c, "devices", tok, 0, 1023, &v) >= 0) {
            free(copy);
            return EXIT_USAGE;
        }
        b->devices[n++] = (int)v;
    }
    free(copy);
    if (n == 0) {
        cli_error(c, "--devices: 'all' or a list of device numbers such as 0,2");
        return EXIT_USAGE;
    }
    b->opt.devices = b->devices;
    b->opt.ndevices = n;
    return -1;
}

static int batch_option(cli *c, void *data, int opt, const char *arg)
{
    struct batch_cli *b = data;
    double v;
    switch (opt) {
    case OPT_RECURSIVE: b->opt.recursive = 1; return -1;
    case OPT_SKIP: b->opt.skip_existing = 1; return -1;
    case OPT_FAIL_FAST: b->opt.fail_fast = 1; return -1;
    case OPT_JOBS: {
        int rc = cli_whole_number(c, "jobs", arg, 0, 1024, &v); /* 0: every core */
        if (rc < 0)
            b->opt.jobs = (int)v;
        return rc;
    }
    case OPT_DEVICES: return parse_devices(c, b, arg);
    case OPT_SHARD: {
        /* K and N whole numbers; sscanf's %d would overflow on a long one */
        const char *slash = strchr(arg, '/');
        char *k_text = slash ? strndup(arg, (size_t)(slash - arg)) : NULL;
        double k, n;
        int ok = k_text && gpuimg_parse_number(k_text, &k) && gpuimg_parse_number(slash + 1, &n) &&
                 k == floor(k) && n == floor(n) && k >= 0 && n <= 1e9 && k < n &&
                 strspn(arg, "0123456789/") == strlen(arg);
        free(k_text);
        if (!ok) {
            cli_error(c, "--shard: '%s' is not K/N with 0 <= K < N <= 1000000000", arg);
            return EXIT_USAGE;
        }
        b->opt.shard_index = (int)k;
        b->opt.shard_count = (int)n;
        return -1;
    }
    }
    return -1;
}

static double seconds_since(const struct timespec *t0)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)(now.tv_sec - t0->tv_sec) + (double)(now.tv_nsec - t0->tv_nsec) / 1e9;
}

static void on_event(void *user, const gpuimg_batch_event *ev)
{
    struct batch_cli *b = user;
    if (ev->outcome == GPUIMG_BATCH_SKIPPED)
        b->skipped++;
    if (b->progress)
        fputs("\r\033[K", stderr); /* clear the bar before any line */
    if (ev->outcome == GPUIMG_BATCH_FAILED) {
        char line[1024];
        gpuimg_escape_controls(ev->error, line, sizeof line);
        fprintf(stderr, "gpuimg: batch: %s\n", line);
        if (b->nfailed < FAILED_NAMES) {
            gpuimg_escape_controls(ev->input, line, sizeof line);
            b->failed[b->nfailed++] = strdup(line);
        }
    } else if (b->verbose) {
        char in[1024], out[1024];
        gpuimg_escape_controls(ev->input, in, sizeof in);
        gpuimg_escape_controls(ev->output, out, sizeof out);
        fprintf(stderr, "gpuimg: batch: %s %s -> %s\n",
                ev->outcome == GPUIMG_BATCH_DONE ? "done" : "skipped", in, out);
    }
    if (b->progress) {
        /* the rate counts files worked on (not skipped ones); the ETA the
         * bytes left at the bytes-per-second so far, so large files weigh */
        double t = seconds_since(&b->start);
        double rate = t > 0 ? (double)(ev->finished - b->skipped) / t : 0;
        double byte_rate = t > 0 ? (double)ev->bytes_done / t : 0;
        double eta = byte_rate > 0 ? (double)(ev->bytes_total - ev->bytes_done) / byte_rate : 0;
        int width = 30, filled = ev->total ? (int)(width * ev->finished / ev->total) : width;
        fprintf(stderr, "[%.*s%*s] %llu/%llu  %.1f images/s  ETA %d:%02d", filled,
                "##############################", width - filled, "",
                (unsigned long long)ev->finished, (unsigned long long)ev->total, rate,
                (int)(eta / 60), (int)fmod(eta, 60));
    }
    fflush(stderr);
}

/* The summary's line on the files ignored: the count, the first of them by
 * name and the extensions that are read, so that a folder of RAW files or
 * of upper-case .PNG ones says why nothing was processed:
 * "3 files ignored (not an image extension: notes.txt, raw/a.cr2,
 * video.mov); images are read from .png .jpg ..." */
static void print_ignored(const gpuimg_batch_summary *sum)
{
    fprintf(stderr, "gpuimg: batch: %llu file%s ignored (not an image extension:",
            (unsigned long long)sum->ignored, sum->ignored == 1 ? "" : "s");
    for (int i = 0; i < sum->ignored_named; i++) {
        char name[1024];
        gpuimg_escape_controls(sum->ignored_names[i], name, sizeof name);
        fprintf(stderr, "%s %s", i ? "," : "", name);
    }
    if (sum->ignored > (uint64_t)sum->ignored_named)
        fprintf(stderr, " and %llu more",
                (unsigned long long)(sum->ignored - (uint64_t)sum->ignored_named));
    fputs("); images are read from", stderr);
    /* gpuimg_format_read_list's "png, jpg, ..." as ".png .jpg ..." */
    const char *list = gpuimg_format_read_list();
    while (*list) {
        size_t len = strcspn(list, ", ");
        fprintf(stderr, " .%.*s", (int)len, list);
        list += len;
        list += strspn(list, ", ");
    }
    fputc('\n', stderr);
}

static volatile sig_atomic_t signals_seen;

/* Seconds the files in flight get to finish after the first signal. A read
 * that never returns (a hung network file system) must not keep `timeout N
 * gpuimg batch` waiting for ever: past this the batch stops as a second
 * signal stops it. */
#define SIGNAL_GRACE_SECONDS 10

static void on_grace_over(int sig)
{
    (void)sig;
    static const char msg[] = "gpuimg: batch: interrupted; the files in flight did not finish "
                              "within 10 s and were abandoned (no partial output)\n";
    gpuimg_remove_temporaries();
    if (write(STDERR_FILENO, msg, sizeof msg - 1) < 0) {
        /* nothing more to do: exiting either way */
    }
    _exit(130);
}

/* First signal: stop taking files, let those in flight finish (within
 * SIGNAL_GRACE_SECONDS), print the summary. Second: stop now, leaving no
 * temporary file. */
static void on_batch_signal(int sig)
{
    if (signals_seen++ == 0) {
        gpuimg_batch_cancel();
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_grace_over;
        sigemptyset(&sa.sa_mask);
        sigaction(SIGALRM, &sa, NULL);
        alarm(SIGNAL_GRACE_SECONDS);
        return;
    }
    gpuimg_remove_temporaries();
    signal(sig, SIG_DFL);
    raise(sig);
}

int cmd_batch(cli *c, int argc, char **argv)
{
    static const struct option opts[] = {
        {"recursive", no_argument, NULL, OPT_RECURSIVE},
        {"skip-existing", no_argument, NULL, OPT_SKIP},
        {"fail-fast", no_argument, NULL, OPT_FAIL_FAST},
        {"jobs", required_argument, NULL, OPT_JOBS},
        {"devices", required_argument, NULL, OPT_DEVICES},
        {"shard", required_argument, NULL, OPT_SHARD},
    };
    struct batch_cli b;
    memset(&b, 0, sizeof b);
    b.opt.shard_count = 1;
    const cli_spec spec = {opts, sizeof opts / sizeof opts[0], batch_option, &b, batch_help, 0};
    char **pos;
    int npos;
    int rc = cli_parse(c, argc, argv, &spec, &pos, &npos);
    if (rc >= 0)
        return rc;
    if (npos < 2) {
        cli_error(c, "expected IN_DIR OUT_DIR [STEP...] (try gpuimg batch --help)");
        return EXIT_USAGE;
    }
    if ((rc = cli_open(c)) >= 0)
        return rc;
    int nsteps = npos - 2;
    gpuimg_step **steps;
    if ((rc = cli_parse_steps(c, pos + 2, nsteps, &steps)) >= 0)
        return rc;
    if (c->parse_only) {
        cli_free_steps(steps, nsteps);
        return 0;
    }
    b.opt.in_dir = pos[0];
    b.opt.out_dir = pos[1];
    b.opt.steps = steps;
    b.opt.nsteps = nsteps;
    b.opt.format = c->format;
    b.opt.on_event = on_event;
    b.opt.user = &b;
    b.progress = isatty(STDERR_FILENO) && !c->quiet;
    c->progress_line = b.progress;
    b.verbose = c->verbose;
    clock_gettime(CLOCK_MONOTONIC, &b.start);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_batch_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    gpuimg_batch_summary sum;
    gpuimg_status st = gpuimg_batch(c->ctx, &b.opt, &sum);
    alarm(0); /* finished within the grace */
    if (b.progress)
        fputs("\r\033[K", stderr);
    if (st != GPUIMG_OK) {
        rc = cli_fail(c, st);
    } else {
        fprintf(stderr,
                "gpuimg: batch: %llu processed, %llu failed, %llu skipped of %llu%s in "
                "%.2f s (%.2f images/s)\n",
                (unsigned long long)sum.processed, (unsigned long long)sum.failed,
                (unsigned long long)sum.skipped, (unsigned long long)sum.total,
                sum.cancelled ? ", interrupted" : "", sum.seconds,
                sum.seconds > 0 ? (double)sum.processed / sum.seconds : 0.0);
        if (sum.ignored)
            print_ignored(&sum);
        if (b.nfailed) { /* the failed files again, where the summary is read */
            fprintf(stderr, "gpuimg: batch: failed:");
            for (int i = 0; i < b.nfailed; i++)
                fprintf(stderr, " %s", b.failed[i]);
            uint64_t more = sum.failed > (uint64_t)b.nfailed ? sum.failed - (uint64_t)b.nfailed : 0;
            if (more)
                fprintf(stderr, " and %llu more", (unsigned long long)more);
            fputc('\n', stderr);
        }
        uint64_t left = sum.total - sum.processed - sum.failed - sum.skipped;
        if (sum.cancelled && left)
            fprintf(stderr,
                    "gpuimg: batch: %llu file%s never started; the same command with "
                    "--skip-existing resumes\n",
                    (unsigned long long)left, left == 1 ? "" : "s");
        rc = sum.cancelled ? 130 : sum.failed ? EXIT_DIFFERS : 0;
    }
    c->progress_line = 0;
    for (int i = 0; i < b.nfailed; i++)
        free(b.failed[i]);
    cli_free_steps(steps, nsteps);
    return rc;
}
