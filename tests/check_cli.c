/* SPDX-License-Identifier: MIT */
/* The program as a user runs it: exit codes, one-line errors naming the file
 * or option, no partial output, identical results from a command and the
 * same step in `run`. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "testutil.h"

void make_bad_inputs(const char *dir);

#define RUN(out, err, ...)                                                                         \
    tu_run((const char *const[]){tu_bin(), __VA_ARGS__, NULL}, NULL, out, err)

static int one_line(const char *s)
{
    const char *nl = strchr(s, '\n');
    return nl && nl[1] == '\0' && strncmp(s, "gpuimg: ", 8) == 0;
}

static const char *photo(void)
{
    return tu_golden("inputs/photo_257x131_rgb.png");
}

START_TEST(help_and_version)
{
    char *out;
    ck_assert_int_eq(RUN(&out, NULL, "--version"), 0);
    ck_assert_ptr_nonnull(strstr(out, GPUIMG_VERSION));
    free(out);
    ck_assert_int_eq(RUN(&out, NULL, "--help"), 0);
    ck_assert_ptr_nonnull(strstr(out, "compare"));
    free(out);
    /* every operation of the op table, and the other commands, both ways */
    static const char *const others[] = {"histogram", "stats", "compare", "run", "batch", "info"};
    int nops = 0;
    while (gpuimg_op_at(nops))
        nops++;
    for (int i = 0; i < nops + 6; i++) {
        const char *cmd = i < nops ? gpuimg_op_at(i)->name : others[i - nops];
        char *again;
        ck_assert_int_eq(RUN(&out, NULL, cmd, "--help"), 0);
        ck_assert_msg(strstr(out, "usage: gpuimg") != NULL, "%s --help: %s", cmd, out);
        ck_assert_int_eq(RUN(&again, NULL, "help", cmd), 0);
        ck_assert_str_eq(again, out);
        free(again);
        if (i < nops) /* each parameter is in the help, as an option and in the step */
            for (int k = 0; k < gpuimg_op_at(i)->nparams; k++) {
                char opt[64];
                snprintf(opt, sizeof opt, "--%s", gpuimg_op_at(i)->params[k].name);
                ck_assert_msg(strstr(out, opt), "%s --help lacks %s", cmd, opt);
            }
        free(out);
    }
    ck_assert_int_eq(RUN(&out, NULL, "-V"), 0);
    ck_assert_ptr_nonnull(strstr(out, GPUIMG_VERSION));
    free(out);
    ck_assert_int_eq(RUN(&out, NULL, "info"), 0);
    ck_assert_ptr_nonnull(strstr(out, "libpng"));
    free(out);
}
END_TEST

/* What a new user mistypes: a command, a choice, "--threads 0", a space in
 * a step. */
START_TEST(forgiving_and_helpful)
{
    char *err;
    ck_assert_int_eq(RUN(NULL, &err, "blr", "a.png", "b.png"), 2);
    ck_assert_msg(strstr(err, "did you mean blur?") && one_line(err), "%s", err);
    free(err);
    ck_assert_int_eq(RUN(NULL, &err, "rotate", photo(), "x.png", "--angle", "45"), 2);
    ck_assert_msg(strstr(err, "not one of 90, 180 or 270") && one_line(err), "%s", err);
    free(err);
    const char *dir = tu_tmpdir();
    char a[512], b[512];
    snprintf(a, sizeof a, "%s/a.png", dir);
    snprintf(b, sizeof b, "%s/b.png", dir);
    ck_assert_int_eq(RUN(NULL, NULL, "-q", "--threads", "0", "run", photo(), a,
                         "blur:sigma=2, radius=4,  border=wrap"),
                     0);
    ck_assert_int_eq(RUN(NULL, NULL, "-q", "blur", photo(), b, "--sigma", "2", "--radius", "4",
                         "--border", "wrap"),
                     0);
    ck_assert(tu_same_file(a, b));
    /* a warning says so, with the command's prefix */
    char deep[512];
    snprintf(deep, sizeof deep, "%s/deep.pgm", dir);
    tu_write_file(deep, "P5 1 1 65535\n\x80\x00", 15);
    snprintf(b, sizeof b, "%s/deep.jpg", dir); /* 16 bits written at 8 */
    ck_assert_int_eq(RUN(NULL, &err, "invert", deep, b), 0);
    ck_assert_msg(strncmp(err, "gpuimg: invert: warning: ", 25) == 0 && one_line(err), "%s", err);
    free(err);
}
END_TEST

START_TEST(command_equals_run_step)
{
    const char *dir = tu_tmpdir();
    char a[512], b[512], c[512];
    snprintf(a, sizeof a, "%s/a.png", dir);
    snprintf(b, sizeof b, "%s/b.png", dir);
    snprintf(c, sizeof c, "%s/c.png", dir);
    ck_assert_int_eq(
        RUN(NULL, NULL, "-q", "blur", photo(), a, "--sigma", "2.5", "--border", "wrap"), 0);
    ck_assert_int_eq(RUN(NULL, NULL, "run", photo(), b, "blur:sigma=2.5,border=wrap", "-q"), 0);
    ck_assert(tu_same_file(a, b));
    /* and the library's own result through the seam */
    gpuimg_ctx *ctx = tu_ctx();
    gpuimg_image in, want, got;
    char err[256], msg[256];
    tu_load(ctx, photo(), &in);
    ck_assert_int_eq(tu_apply(ctx, "blur:sigma=2.5,border=wrap", &in, 0, &want, err, sizeof err),
                     GPUIMG_OK);
    tu_load(ctx, a, &got);
    ck_assert_msg(tu_images_agree(&got, &want, 1, msg, sizeof msg), "%s", msg);
    gpuimg_image_free(&in);
    gpuimg_image_free(&want);
    gpuimg_image_free(&got);
    gpuimg_ctx_destroy(ctx);
    /* a pipeline, stdin and stdout */
    char *out;
    ck_assert_int_eq(tu_run((const char *const[]){tu_bin(), "-q", "run", "-", "-", "grayscale",
                                                  "rotate:angle=90", "--format", "pgm", NULL},
                            photo(), &out, NULL),
                     0);
    ck_assert_int_eq(strncmp(out, "P5\n131 257\n255\n", 15), 0);
    free(out);
    ck_assert_int_eq(tu_count_entries(dir), 2);
}
END_TEST

/* getopt's forms, all equivalent; nothing else slips through. */
START_TEST(option_forms)
{
    const char *dir = tu_tmpdir();
    char a[512], b[512], c[512], d[512];
    snprintf(a, sizeof a, "%s/a.png", dir);
    snprintf(b, sizeof b, "%s/b.png", dir);
    snprintf(c, sizeof c, "%s/c.png", dir);
    snprintf(d, sizeof d, "%s/d.png", dir);
    ck_assert_int_eq(RUN(NULL, NULL, "-q", "blur", photo(), a, "--sigma", "1.5"), 0);
    ck_assert_int_eq(RUN(NULL, NULL, "-q", "blur", "--sigma=1.5", photo(), b), 0);
    ck_assert_int_eq(RUN(NULL, NULL, "-q", "blur", "--sigma", "1.5", "--", photo(), c), 0);
    ck_assert(tu_same_file(a, b));
    ck_assert(tu_same_file(a, c));
    /* options after the positionals, even where POSIX would stop at them */
    ck_assert_int_eq(tu_run((const char *const[]){"/usr/bin/env", "POSIXLY_CORRECT=1", tu_bin(),
                                                  "-q", "blur", photo(), d, "--sigma", "1.5", NULL},
                            NULL, NULL, NULL),
                     0);
    ck_assert(tu_same_file(a, d));
    char *err;
    ck_assert_int_eq(RUN(NULL, &err, "blur", photo(), a, "--sig", "2"), 2);
    ck_assert_msg(one_line(err) && strstr(err, "'--sig'") && strstr(err, "--sigma"), "%s", err);
    free(err);
    ck_assert_int_eq(RUN(NULL, &err, "convolve", photo(), a, "--kernel", "edge", "--abs=1"), 2);
    ck_assert_msg(one_line(err) && strstr(err, "'--abs'") && strstr(err, "no value"), "%s", err);
    free(err);
    ck_assert_int_eq(RUN(NULL, &err, "blur", photo(), a, "--format", "jpg"), 2);
    ck_assert_msg(one_line(err) && strstr(err, "--format"), "%s", err);
    free(err);
    ck_assert_int_eq(RUN(NULL, &err, "batch", "--help"), 0);
    free(err);
}
END_TEST

/* GPUIMG_BACKEND is a default: --backend overrides it, and help never needs it. */
START_TEST(backend_variable)
{
    const char *dir = tu_tmpdir();
    char out[512];
    snprintf(out, sizeof out, "%s/o.png", dir);
    ck_assert_int_eq(tu_run((const char *const[]){"/usr/bin/env", "GPUIMG_BACKEND=tpu", tu_bin(),
                                                  "--help", NULL},
                            NULL, NULL, NULL),
                     0);
    ck_assert_int_eq(tu_run((const char *const[]){"/usr/bin/env", "GPUIMG_BACKEND=tpu", tu_bin(),
                                                  "--backend", "cpu", "invert", photo(), out, NULL},
                            NULL, NULL, NULL),
                     0);
    char *err;
    ck_assert_int_eq(tu_run((const char *const[]){"/usr/bin/env", "GPUIMG_BACKEND=tpu", tu_bin(),
                                                  "invert", photo(), out, NULL},
                            NULL, NULL, &err),
                     2);
    ck_assert_msg(one_line(err) && strstr(err, "GPUIMG_BACKEND"), "%s", err);
    free(err);
}
END_TEST

/* A report that cannot be written is an error; so is a file that cannot
 * be, and it leaves no temporary behind. */
START_TEST(write_failures)
{
    char cmd[1024], *err;
    snprintf(cmd, sizeof cmd, "exec '%s' -q stats '%s' > /dev/full", tu_bin(), photo());
    ck_assert_int_eq(tu_run((const char *const[]){"/bin/sh", "-c", cmd, NULL}, NULL, NULL, &err),
                     3);
    ck_assert_msg(one_line(err) && strstr(err, "standard output"), "%s", err);
    free(err);
    const char *dir = tu_tmpdir();
    char saved[256];
    snprintf(saved, sizeof saved, "%s", dir);
    /* 16 KiB at most per file: the uncompressed PNG (100 KB) cannot fit */
    snprintf(cmd, sizeof cmd, "ulimit -f 32; exec '%s' -q --png-level 0 invert '%s' '%s/o.png'",
             tu_bin(), photo(), saved);
    int rc = tu_run((const char *const[]){"/bin/sh", "-c", cmd, NULL}, NULL, NULL, NULL);
    ck_assert_int_ne(rc, 0);
    ck_assert_int_eq(tu_count_entries(saved), 0);
}
END_TEST

/* Each bad invocation: its exit code, one line on stderr naming the culprit,
 * and an output folder left as it was. */
START_TEST(errors_and_no_partial_output)
{
    const char *bad = tu_tmpdir();
    char bad_dir[256];
    snprintf(bad_dir, sizeof bad_dir, "%s", bad);
    make_bad_inputs(bad_dir);
    const char *outdir = tu_tmpdir();
    char out_dir[256];
    snprintf(out_dir, sizeof out_dir, "%s", outdir);
    char k_ragged[512], k_even[512], blocked[512];
    snprintf(k_ragged, sizeof k_ragged, "%s/ragged.txt", bad_dir);
    tu_write_file(k_ragged, "1 2 3\n1 2\n1 2 3\n", 16);
    snprintf(k_even, sizeof k_even, "%s/even.txt", bad_dir);
    tu_write_file(k_even, "1 1\n1 1\n", 8);
    snprintf(blocked, sizeof blocked, "%s/empty.png/out.png", bad_dir);

    char in_empty[512], in_trunc[512], in_crc[512], in_noise[512], in_huge[512], in_tjpg[512],
        in_dir[512], in_missing[512], out[512], out_gif[512], out_nodir[512];
    snprintf(in_empty, sizeof in_empty, "%s/empty.png", bad_dir);
    snprintf(in_trunc, sizeof in_trunc, "%s/truncated.png", bad_dir);
    snprintf(in_crc, sizeof in_crc, "%s/badcrc.png", bad_dir);
    snprintf(in_noise, sizeof in_noise, "%s/noise.png", bad_dir);
    snprintf(in_huge, sizeof in_huge, "%s/huge.png", bad_dir);
    snprintf(in_tjpg, sizeof in_tjpg, "%s/truncated.jpg", bad_dir);
    snprintf(in_dir, sizeof in_dir, "%s/folder.png", bad_dir);
    snprintf(in_missing, sizeof in_missing, "%s/missing.png", bad_dir);
    snprintf(out, sizeof out, "%s/out.png", out_dir);
    snprintf(out_gif, sizeof out_gif, "%s/out.gif", out_dir);
    snprintf(out_nodir, sizeof out_nodir, "%s/nodir/out.png", out_dir);

    const struct {
        int code;
        const char *needle;
        const char *args[10];
    } cases[] = {
        {3, "empty.png", {"blur", in_empty, out}},
        {3, "truncated PNG", {"blur", in_trunc, out}},
        {3, "CRC", {"invert", in_crc, out}},
        {3, "noise.png", {"sobel", in_noise, out}},
        {3, "too large", {"blur", in_huge, out}},
        {3, "truncated JPEG", {"grayscale", in_tjpg, out}},
        {3, "is a directory", {"blur", in_dir, out}},
        {3, "missing.png", {"blur", in_missing, out}},
        {3, "does not exist", {"blur", photo(), out_nodir}},
        {3, "empty.png/out.png", {"blur", photo(), blocked}},
        {2, "out.gif", {"blur", photo(), out_gif}},
        {2, "--frobnicate", {"blur", photo(), out, "--frobnicate"}},
        {2, "--sigma", {"blur", photo(), out, "--sigma", "0"}},
        {2, "--sigma", {"blur", photo(), out, "--sigma", "huge"}},
        {2, "--radius", {"box", photo(), out, "--radius", "1001"}},
        {2, "--radius", {"box", photo(), out}},
        {2, "--png-level", {"--png-level", "10", "blur", photo(), out}},
        {2, "--jpeg-quality", {"blur", photo(), out, "--jpeg-quality", "0"}},
        {2, "--angle", {"rotate", photo(), out, "--angle", "45"}},
        {2, "--border", {"blur", photo(), out, "--border", "mirror"}},
        {2, "ragged.txt:2", {"convolve", photo(), out, "--kernel", k_ragged}},
        {2, "even.txt", {"convolve", photo(), out, "--kernel", k_even}},
        {2, "neither a named kernel", {"convolve", photo(), out, "--kernel", "nope"}},
        {2, "unknown command", {"frobnicate", photo(), out}},
        {2, "expected IN and OUT", {"blur", photo()}},
        {2, "blur:sigma=-1", {"run", photo(), out, "blur:sigma=-1"}},
        {2, "--backend", {"--backend", "tpu", "blur", photo(), out}},
        {2, "--sigma", {"blur", photo(), out, "--sigma"}},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *argv[12] = {tu_bin()};
        int n = 1;
        for (int k = 0; cases[i].args[k]; k++)
            argv[n++] = cases[i].args[k];
        argv[n] = NULL;
        char *err;
        int rc = tu_run(argv, NULL, NULL, &err);
        ck_assert_msg(rc == cases[i].code, "case %zu (%s %s): exit %d, expected %d; stderr: %s", i,
                      cases[i].args[0], cases[i].needle, rc, cases[i].code, err);
        ck_assert_msg(one_line(err) && strstr(err, cases[i].needle),
                      "case %zu: stderr should be one 'gpuimg: ' line naming '%s': %s", i,
                      cases[i].needle, err);
        ck_assert_msg(tu_count_entries(out_dir) == 0, "case %zu left a file in the output folder",
                      i);
        free(err);
    }
}
END_TEST

START_TEST(never_overwrites_input)
{
    const char *dir = tu_tmpdir();
    char path[512];
    snprintf(path, sizeof path, "%s/in.png", dir);
    size_t len;
    char *before = tu_read_file(photo(), &len);
    tu_write_file(path, before, len);
    char *err;
    ck_assert_int_eq(RUN(NULL, &err, "blur", path, path), 2);
    ck_assert_ptr_nonnull(strstr(err, "overwrite"));
    free(err);
    size_t len2;
    char *after = tu_read_file(path, &len2);
    ck_assert_uint_eq(len, len2);
    ck_assert_mem_eq(before, after, len);
    free(before);
    free(after);
}
END_TEST

START_TEST(backend_choice)
{
    char why[256], *err;
    const char *tmp = tu_tmpdir();
    char dir[256], out_path[512];
    snprintf(dir, sizeof dir, "%s", tmp);
    snprintf(out_path, sizeof out_path, "%s/o.png", dir);
    int cuda = gpuimg_backend_probe("cuda", 0, why, sizeof why) == GPUIMG_OK;
    int rc = RUN(NULL, &err, "--backend", "cuda", "invert", photo(), out_path);
    if (cuda) {
        ck_assert_int_eq(rc, 0);
    } else {
        ck_assert_int_eq(rc, 4);
        ck_assert_msg(one_line(err) && strstr(err, "cuda"), "%s", err);
        ck_assert_int_eq(tu_count_entries(dir), 0);
    }
    free(err);
    /* auto on small work: the CPU, without trying CUDA (no notice); on large
     * work it tries CUDA, and without a device falls back with one notice,
     * which --quiet silences (README: the size rule) */
    char *out;
    rc = RUN(NULL, &err, "--backend", "auto", "-v", "invert", photo(), out_path);
    ck_assert_int_eq(rc, 0);
    ck_assert_msg(strstr(err, "cpu backend") && !strstr(err, "CUDA"), "%s", err);
    free(err);
    char big[512], big_out[512];
    snprintf(big, sizeof big, "%s/big.png", dir);
    snprintf(big_out, sizeof big_out, "%s/big_out.png", dir);
    gpuimg_ctx *ctx = tu_ctx();
    gpuimg_image img;
    /* a 1001-tap blur of 3 M values on one thread: about 0.5 s by the
     * estimate (each op's cost in src/ops/), over auto's 0.4 s whatever the machine's cores */
    tu_random_image(&img, 1000, 1000, 3, 9);
    ck_assert_int_eq(gpuimg_save(ctx, big, GPUIMG_FORMAT_NONE, &img), GPUIMG_OK);
    gpuimg_image_free(&img);
    gpuimg_ctx_destroy(ctx);
    rc = RUN(&out, &err, "--backend", "auto", "--threads", "1", "--png-level", "0", "blur", big,
             big_out, "--radius", "500");
    ck_assert_int_eq(rc, 0);
    if (!cuda)
        ck_assert_msg(one_line(err) && strstr(err, "using the CPU"), "%s", err);
    free(out);
    free(err);
    ck_assert_int_eq(RUN(NULL, &err, "--quiet", "invert", photo(), out_path), 0);
    ck_assert_str_eq(err, "");
    free(err);
    /* --time reports every stage */
    ck_assert_int_eq(RUN(NULL, &err, "--backend", "cpu", "--time", "invert", photo(), out_path), 0);
    ck_assert_msg(strstr(err, "decode") && strstr(err, "kernels") && strstr(err, "encode"), "%s",
                  err);
    free(err);
}
END_TEST

START_TEST(compare_exit_codes)
{
    char tiny_a[512], tiny_b[512], a[512], noisy[512], small[512];
    snprintf(tiny_a, sizeof tiny_a, "%s", tu_golden("inputs/rand_10x10_rgb.png"));
    snprintf(tiny_b, sizeof tiny_b, "%s", tu_golden("inputs/rand_10x10_rgb_b.png"));
    snprintf(a, sizeof a, "%s", photo());
    snprintf(noisy, sizeof noisy, "%s", tu_golden("inputs/photo_257x131_rgb_noisy.png"));
    snprintf(small, sizeof small, "%s", tu_golden("inputs/rand_31x29_rgb.png"));
    char *out, *err;
    ck_assert_int_eq(RUN(&out, NULL, "compare", a, a), 0);
    ck_assert_ptr_nonnull(strstr(out, "identical"));
    free(out);
    ck_assert_int_eq(RUN(&out, NULL, "compare", a, noisy), 1);
    free(out);
    ck_assert_int_eq(RUN(&out, NULL, "compare", a, noisy, "--max-diff", "255"), 0);
    free(out);
    ck_assert_int_eq(RUN(&out, NULL, "compare", a, noisy, "--min-psnr", "90"), 1);
    free(out);
    ck_assert_int_eq(RUN(&out, NULL, "compare", a, noisy, "--max-differing", "100%"), 0);
    free(out);
    ck_assert_int_eq(RUN(&out, NULL, "compare", a, small), 1);
    ck_assert_ptr_nonnull(strstr(out, "size differs"));
    free(out);
    ck_assert_int_eq(RUN(&out, NULL, "compare", a, noisy, "--json"), 1);
    double v[2];
    ck_assert_int_eq(tu_json_numbers(out, "max_diff", v, 2), 1);
    ck_assert_double_gt(v[0], 0);
    ck_assert_ptr_nonnull(strstr(out, "\"pass\": false"));
    free(out);
    ck_assert_int_eq(RUN(&out, &err, "compare", a, "--fuzz", "70000", noisy), 2);
    ck_assert_ptr_nonnull(strstr(err, "--fuzz"));
    free(out);
    free(err);
    ck_assert_int_eq(RUN(&out, &err, "compare", a, "--fuzz", "2.5", noisy), 2);
    free(out);
    free(err);
    /* SSIM is n/a under 11 pixels: --min-ssim cannot pass a differing pair */
    ck_assert_int_eq(RUN(&out, &err, "compare", tiny_a, tiny_b, "--min-ssim", "0.5"), 1);
    ck_assert_ptr_nonnull(strstr(out, "n/a"));
    free(out);
    free(err);
    /* --diff writes a picture the size of A */
    const char *dir = tu_tmpdir();
    char diff[512];
    snprintf(diff, sizeof diff, "%s/diff.png", dir);
    ck_assert_int_eq(RUN(NULL, NULL, "compare", a, noisy, "--diff", diff), 1);
    gpuimg_ctx *ctx = tu_ctx();
    gpuimg_image img;
    tu_load(ctx, diff, &img);
    ck_assert_int_eq(img.width, 257);
    ck_assert_int_eq(img.channels, 3);
    gpuimg_image pa, pb;
    tu_load(ctx, a, &pa);
    tu_load(ctx, noisy, &pb);
    int red = 0;
    for (size_t i = 0; i < (size_t)img.width * img.height; i++) {
        const uint8_t *p = pa.data + 3 * i, *q = pb.data + 3 * i, *d = img.data + 3 * i;
        if (memcmp(p, q, 3) != 0) { /* differs: pure red */
            ck_assert(d[0] == 255 && d[1] == 0 && d[2] == 0);
            red++;
        } else { /* A's luma at one-third contrast around mid-gray */
            int y = (299 * p[0] + 587 * p[1] + 114 * p[2] + 500) / 1000;
            ck_assert_int_eq(d[0], 85 + (y + 1) / 3);
            ck_assert(d[1] == d[0] && d[2] == d[0]);
        }
    }
    ck_assert_int_gt(red, 0);
    gpuimg_image_free(&pa);
    gpuimg_image_free(&pb);
    gpuimg_image_free(&img);
    gpuimg_ctx_destroy(ctx);
}
END_TEST

START_TEST(reports)
{
    const char *dir = tu_tmpdir();
    char plot[512], *out;
    snprintf(plot, sizeof plot, "%s/hist.png", dir);
    ck_assert_int_eq(RUN(&out, NULL, "histogram", photo(), "--json", "--plot", plot), 0);
    double counts[800];
    ck_assert_int_eq(tu_json_numbers(out, "counts", counts, 800), 768);
    double total = 0;
    for (int i = 0; i < 256; i++)
        total += counts[i];
    ck_assert_double_eq(total, 257 * 131);
    free(out);
    /* --bins: value v in bin floor(v * N / 256); each bin sums its values */
    ck_assert_int_eq(RUN(&out, NULL, "histogram", photo(), "--json", "--bins", "3"), 0);
    double three[16];
    ck_assert_int_eq(tu_json_numbers(out, "counts", three, 16), 9);
    for (int k = 0; k < 3; k++) {
        double want[3] = {0, 0, 0};
        for (int v = 0; v < 256; v++)
            want[v * 3 / 256] += counts[256 * k + v];
        for (int b = 0; b < 3; b++)
            ck_assert_double_eq(three[3 * k + b], want[b]);
    }
    double nbins;
    ck_assert_int_eq(tu_json_numbers(out, "bins", &nbins, 1), 1);
    ck_assert_double_eq(nbins, 3);
    free(out);
    struct stat sb;
    ck_assert_int_eq(stat(plot, &sb), 0);
    ck_assert_int_eq(RUN(&out, NULL, "histogram", photo(), "--plot", plot, "--log"), 0);
    free(out);
    char *err;
    ck_assert_int_eq(RUN(&out, &err, "histogram", photo(), "--log"), 2); /* --log needs --plot */
    ck_assert_ptr_nonnull(strstr(err, "--plot"));
    free(out);
    free(err);
    ck_assert_int_eq(RUN(&out, NULL, "histogram", photo(), "--csv"), 0);
    ck_assert_int_eq(strncmp(out, "value,R,G,B\n0,", 14), 0);
    free(out);
    ck_assert_int_eq(RUN(&out, NULL, "histogram", photo(), "--csv", "--json"), 2);
    free(out);
    ck_assert_int_eq(RUN(&out, NULL, "stats", photo(), "--json"), 0);
    double mean[3];
    ck_assert_int_eq(tu_json_numbers(out, "mean", mean, 3), 3);
    free(out);
    ck_assert_int_eq(RUN(&out, NULL, "stats", tu_golden("inputs/rand_31x29_ga.png")), 0);
    ck_assert_ptr_nonnull(strstr(out, "\nY "));
    ck_assert_ptr_nonnull(strstr(out, "\nA "));
    free(out);
}
END_TEST

/* Pixels of column x in the colour rgb. */
static int column_count(const gpuimg_image *img, int x, const uint8_t rgb[3])
{
    int n = 0;
    for (int y = 0; y < img->height; y++)
        n += memcmp(img->data + ((size_t)y * img->width + x) * 3, rgb, 3) == 0;
    return n;
}

START_TEST(histogram_chart)
{
    static const uint8_t red[3] = {220, 40, 40}, black[3] = {0, 0, 0};
    static uint64_t counts[3][256];
    gpuimg_histogram h = {.channels = 3, .depth = 8, .bins = 256};
    for (int c = 0; c < 3; c++)
        h.counts[c] = counts[c];
    h.counts[0][10] = 1000; /* the peak */
    h.counts[0][20] = 10;
    h.counts[0][30] = 1;
    gpuimg_image lin, lg;
    ck_assert_int_eq(gpuimg_histogram_plot(&h, 0, &lin), GPUIMG_OK);
    ck_assert_int_eq(gpuimg_histogram_plot(&h, 1, &lg), GPUIMG_OK);
    ck_assert_int_eq(lin.width, 2 * 256 + 16);
    ck_assert_int_eq(lin.height, lg.height);
    int x10 = 8 + 10 * 2, x20 = 8 + 20 * 2, x30 = 8 + 30 * 2, x40 = 8 + 40 * 2;
    ck_assert_int_eq(column_count(&lin, x10, red), 120); /* the peak fills the panel */
    ck_assert_int_eq(column_count(&lin, x20, red), 2);   /* ceil(10 / 1000 * 120) */
    ck_assert_int_eq(column_count(&lin, x30, red), 1);   /* never invisible */
    ck_assert_int_eq(column_count(&lin, x40, red), 0);
    ck_assert_int_eq(column_count(&lg, x10, red), 120);
    ck_assert_int_eq(column_count(&lg, x20, red), 42); /* ceil(log 11 / log 1001 * 120) */
    ck_assert_int_eq(column_count(&lg, x30, red), 13); /* ceil(log 2 / log 1001 * 120) */
    /* the title: "RED" in red above the bars, in the first rows */
    int title = 0;
    for (int y = 8; y < 15; y++)
        for (int x = 8; x < 8 + 17; x++)
            title += memcmp(lin.data + ((size_t)y * lin.width + x) * 3, red, 3) == 0;
    ck_assert_int_gt(title, 10);
    /* black text right of the title (the count and its scale) differs with --log */
    ck_assert(memcmp(lin.data + 8 * lin.width * 3, lg.data + 8 * lg.width * 3,
                     (size_t)7 * lin.width * 3) != 0);
    /* tick labels: black pixels below the ticks of every panel */
    ck_assert_int_gt(column_count(&lin, 8 + 128 * 2, black), 3 * 5);
    gpuimg_image_free(&lin);
    gpuimg_image_free(&lg);
    h.channels = 0;
    ck_assert_int_eq(gpuimg_histogram_plot(&h, 0, &lin), GPUIMG_ERR_USAGE);
}
END_TEST

Suite *cli_suite(void)
{
    Suite *s = suite_create("cli");
    TCase *tc = tu_tcase("cli");
    tcase_add_test(tc, help_and_version);
    tcase_add_test(tc, histogram_chart);
    tcase_add_test(tc, forgiving_and_helpful);
    tcase_add_test(tc, command_equals_run_step);
    tcase_add_test(tc, errors_and_no_partial_output);
    tcase_add_test(tc, never_overwrites_input);
    tcase_add_test(tc, backend_choice);
    tcase_add_test(tc, compare_exit_codes);
    tcase_add_test(tc, option_forms);
    tcase_add_test(tc, backend_variable);
    tcase_add_test(tc, write_failures);
    tcase_add_test(tc, reports);
    suite_add_tcase(s, tc);
    return s;
}
