/* SPDX-License-Identifier: MIT */
/* Folders an untrusted job may have filled (issue 23): `compare` and
 * `batch` over links, hard links, FIFOs, /dev/zero, decompression bombs
 * and names no output format takes raw. Each test builds its hostile
 * folder itself; the program runs under timeout(1), so a hang fails the
 * test instead of stalling the suite. The JSON and JUnit files are read
 * back by Python's own parsers, as a CI job reads them. */
#define _XOPEN_SOURCE 700
#include <dirent.h>
#include <ftw.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <pthread.h>
#include <stdatomic.h>
#include <time.h>
#include <zlib.h>

#include "core/budget.h"
#include "io/io.h"
#include "testutil.h"

#define TIMEOUT "/usr/bin/timeout"
#define PYTHON "/usr/bin/python3"
#define RUN(out, err, ...)                                                                         \
    tu_run((const char *const[]){TIMEOUT, "120", tu_bin(), __VA_ARGS__, NULL}, NULL, out, err)

/* What a secret looks like to the tests: nothing under a report or a
 * golden folder may ever hold it. */
#define SECRET "GPUIMG_TEST_SECRET_TOKEN_7f3a"

/* This test's own folder (tu_tmpdir makes a new one at each call). */
static char T[300];

static void new_test_folder(void)
{
    snprintf(T, sizeof T, "%s", tu_tmpdir());
}

/* exp and act, two new folders in this test's folder. */
static void two_folders(char exp[512], char act[512])
{
    snprintf(exp, 512, "%s/exp", T);
    snprintf(act, 512, "%s/act", T);
    ck_assert_int_eq(mkdir(exp, 0777), 0);
    ck_assert_int_eq(mkdir(act, 0777), 0);
}

static void path_of(char *buf, size_t len, const char *dir, const char *rel)
{
    snprintf(buf, len, "%s/%s", dir, rel);
}

/* A small RGB image with a seed, saved as PNG at dir/rel. */
static void put_png(const char *dir, const char *rel, unsigned seed)
{
    gpuimg_ctx *ctx = tu_ctx();
    gpuimg_image img;
    tu_random_image(&img, 24, 16, 3, seed);
    char path[4096];
    path_of(path, sizeof path, dir, rel);
    ck_assert_int_eq(gpuimg_save(ctx, path, GPUIMG_FORMAT_NONE, &img), GPUIMG_OK);
    gpuimg_image_free(&img);
    gpuimg_ctx_destroy(ctx);
}

static void make_dir(const char *dir, const char *rel)
{
    char path[4096];
    path_of(path, sizeof path, dir, rel);
    ck_assert_int_eq(mkdir(path, 0777), 0);
}

static const char *secret_file(void)
{
    static char path[1024];
    snprintf(path, sizeof path, "%s/secret.txt", T);
    tu_write_file(path, SECRET "\n", strlen(SECRET) + 1);
    return path;
}

static int found_secret;

static int scan_one(const char *path, const struct stat *sb, int type, struct FTW *ftw)
{
    (void)ftw;
    if (type == FTW_SL && !strstr(path, "/exp/alias.png")) /* the test's own golden link */
        ck_abort_msg("%s: a symbolic link was written", path);
    if (type == FTW_SL)
        return 0;
    if (type != FTW_F)
        return 0;
    ck_assert_msg(S_ISREG(sb->st_mode), "%s: not a regular file", path);
    char *data = tu_read_file(path, NULL);
    if (data && strstr(data, SECRET))
        found_secret = 1;
    free(data);
    return 0;
}

/* Every file under dir is a regular file without the secret. */
static void assert_no_secret(const char *dir)
{
    found_secret = 0;
    ck_assert_int_eq(nftw(dir, scan_one, 16, FTW_PHYS), 0);
    ck_assert_msg(!found_secret, "the secret reached %s", dir);
}

/* Runs a Python snippet with argv[1] = arg; 0 when it exits 0. */
static int python(const char *code, const char *arg, char **err)
{
    return tu_run((const char *const[]){PYTHON, "-c", code, arg, NULL}, NULL, NULL, err);
}

/* exp and act: a golden and its changed actual (failed), and in act the
 * hostile entries: links to a secret and to an image outside, a hard link
 * to the secret, a FIFO, a link to /dev/zero, and one genuine new image. */
static void hostile_folders(char exp[512], char act[512])
{
    two_folders(exp, act);
    put_png(exp, "changed.png", 1);
    put_png(act, "changed.png", 2);
    put_png(act, "alias.png", 1);
    put_png(act, "fresh.png", 3);
    put_png(T, "outside.png", 4);
    const char *secret = secret_file();
    char path[1024], outside[1024];
    path_of(outside, sizeof outside, T, "outside.png");
    path_of(path, sizeof path, act, "environ.png");
    ck_assert_int_eq(symlink(secret, path), 0);
    path_of(path, sizeof path, act, "linked.png");
    ck_assert_int_eq(symlink(outside, path), 0);
    path_of(path, sizeof path, act, "hard.png");
    ck_assert_int_eq(link(secret, path), 0);
    path_of(path, sizeof path, act, "fifo.png");
    ck_assert_int_eq(mkfifo(path, 0666), 0);
    path_of(path, sizeof path, act, "zero.png");
    ck_assert_int_eq(symlink("/dev/zero", path), 0);
    /* the golden folder is the project's: a link there to another golden is followed */
    path_of(path, sizeof path, exp, "alias.png");
    ck_assert_int_eq(symlink("changed.png", path), 0);
}

START_TEST(compare_copies_only_images)
{
    new_test_folder();
    char exp[512], act[512], rep[512], junit[512];
    hostile_folders(exp, act);
    snprintf(rep, sizeof rep, "%s/report", T);
    snprintf(junit, sizeof junit, "%s/junit.xml", T);
    char *out, *err;
    int rc = RUN(&out, &err, "compare", exp, act, "--report", rep, "--junit", junit, "--update",
                 "--json");
    ck_assert_msg(rc == 3, "exit %d (expected 3: the hostile pairs are errors): %s", rc, err);
    /* each hostile entry is an error pair naming what it is */
    const char *why[][2] = {{"environ.png", "a symbolic link"},
                            {"linked.png", "a symbolic link"},
                            {"hard.png", "not a supported image"},
                            {"fifo.png", "a FIFO"},
                            {"zero.png", "a symbolic link"}};
    for (int i = 0; i < 5; i++) {
        char key[128];
        snprintf(key, sizeof key, "\"path\": \"%s\", \"status\": \"error\"", why[i][0]);
        const char *rec = strstr(out, key);
        ck_assert_msg(rec != NULL, "%s is not an error pair: %s", why[i][0], out);
        const char *next = strstr(rec + 1, "\"path\"");
        const char *reason = strstr(rec, why[i][1]);
        ck_assert_msg(reason && (!next || reason < next), "%s: its error lacks '%s'", why[i][0],
                      why[i][1]);
    }
    ck_assert_ptr_nonnull(strstr(out, "\"updated\": 2")); /* changed.png and fresh.png */
    ck_assert_ptr_nonnull(strstr(out, "\"path\": \"alias.png\", \"status\": \"identical\""));
    free(out);
    free(err);
    /* the goldens got the two images and nothing else (alias.png was there) */
    ck_assert_int_eq(tu_count_entries(exp), 3);
    char a[1024], e[1024];
    path_of(a, sizeof a, act, "fresh.png");
    path_of(e, sizeof e, exp, "fresh.png");
    ck_assert(tu_same_file(a, e));
    assert_no_secret(exp);
    assert_no_secret(rep);
    /* the images the report shows are the decoded ones only */
    char images[1024];
    path_of(images, sizeof images, rep, "images");
    ck_assert_int_eq(tu_count_entries(images), 4); /* changed: expected, actual, diff; fresh */
}
END_TEST

START_TEST(batch_reads_only_regular_files)
{
    new_test_folder();
    char in[512], outdir[512];
    char exp[512];
    hostile_folders(exp, in); /* in: act's entries */
    snprintf(outdir, sizeof outdir, "%s/out", T);
    char *out, *err;
    int rc = RUN(&out, &err, "batch", in, outdir, "invert", "--jobs", "3");
    ck_assert_msg(rc == 1, "exit %d (expected 1): %s", rc, err);
    ck_assert_ptr_nonnull(strstr(err, "fifo.png: a FIFO"));
    ck_assert_ptr_nonnull(strstr(err, "linked.png: a symbolic link"));
    ck_assert_ptr_nonnull(strstr(err, "3 processed, 5 failed"));
    free(out);
    free(err);
    ck_assert_int_eq(tu_count_entries(outdir), 3); /* alias, changed, fresh */
    assert_no_secret(outdir);
}
END_TEST

START_TEST(endless_stream_cut_off)
{
    new_test_folder();
    /* a PPM header for 200 x 200 pixels (a raster past the 64 KiB the
     * reader looks at first), then /dev/zero without end */
    char head[1024], script[2048];
    snprintf(head, sizeof head, "%s/head.ppm", T);
    tu_write_file(head, "P6\n200 200\n255\n", 15);
    snprintf(script, sizeof script, "cat '%s' /dev/zero | '%s' invert - '%s/out.png'", head,
             tu_bin(), T);
    char *err;
    int rc = tu_run((const char *const[]){TIMEOUT, "120", "/bin/sh", "-c", script, NULL}, NULL,
                    NULL, &err);
    ck_assert_msg(rc == 3, "exit %d: %s", rc, err);
    ck_assert_ptr_nonnull(strstr(err, "larger than its image could be"));
    free(err);
    ck_assert_int_eq(tu_count_entries(T), 1); /* head.ppm: no output */
}
END_TEST

/* A PNG of side x side zero gray pixels: a few KiB that decode to side^2 bytes. */
static void put_bomb(const char *dir, const char *rel, int side)
{
    gpuimg_ctx *ctx = tu_ctx();
    gpuimg_image img;
    ck_assert_int_eq(gpuimg_image_alloc(&img, side, side, 1), GPUIMG_OK);
    memset(img.data, 0, (size_t)side * (size_t)side);
    char path[4096];
    path_of(path, sizeof path, dir, rel);
    ck_assert_int_eq(gpuimg_save(ctx, path, GPUIMG_FORMAT_NONE, &img), GPUIMG_OK);
    gpuimg_image_free(&img);
    gpuimg_ctx_destroy(ctx);
}

START_TEST(memory_budget_admits_by_decoded_size)
{
    new_test_folder();
    char exp[512], act[512], outdir[512];
    snprintf(outdir, sizeof outdir, "%s/out", T);
    two_folders(exp, act);
    put_bomb(exp, "bomb.png", 4096); /* 16 MiB decoded each */
    put_bomb(act, "bomb.png", 4096);
    put_png(exp, "small.png", 5);
    put_png(act, "small.png", 5);
    char path[1024];
    path_of(path, sizeof path, act, "bomb.png");
    struct stat sb;
    ck_assert_int_eq(stat(path, &sb), 0);
    ck_assert_int_lt(sb.st_size, 256 * 1024);
    char *out, *err;
    /* the pair decodes to 32 MiB: over a 24 MiB budget, within 64 MiB */
    int rc = RUN(&out, &err, "compare", exp, act, "--memory-budget", "24M");
    ck_assert_msg(rc == 3, "exit %d: %s", rc, out);
    ck_assert_ptr_nonnull(strstr(out, "error bomb.png: bomb.png: decodes to 32 MiB, more than the "
                                      "memory budget of 24 MiB (--memory-budget)"));
    ck_assert_ptr_nonnull(strstr(out, "1 identical"));
    free(out);
    free(err);
    ck_assert_int_eq(RUN(&out, &err, "compare", exp, act, "--memory-budget", "64M"), 0);
    free(out);
    free(err);
    /* batch: the same rule, a failure of that file alone */
    rc = RUN(&out, &err, "batch", act, outdir, "invert", "--memory-budget", "8M");
    ck_assert_msg(rc == 1, "exit %d: %s", rc, err);
    ck_assert_ptr_nonnull(strstr(err, "decodes to 16 MiB, more than the memory budget of 8 MiB"));
    ck_assert_ptr_nonnull(strstr(err, "1 processed, 1 failed"));
    free(out);
    free(err);
    ck_assert_int_eq(RUN(&out, &err, "batch", act, outdir, "invert", "--memory-budget", "1.5G"), 0);
    free(out);
    free(err);
    const char *bad[] = {"0", "1K", "12X", "0.5M", "", "G", "-4M"};
    for (int i = 0; i < 7; i++) {
        rc = RUN(&out, &err, "batch", act, outdir, "invert", "--memory-budget", bad[i]);
        ck_assert_msg(rc == 2, "--memory-budget '%s': exit %d", bad[i], rc);
        ck_assert_ptr_nonnull(strstr(err, "--memory-budget"));
        free(out);
        free(err);
    }
}
END_TEST

START_TEST(no_pair_is_no_pass)
{
    new_test_folder();
    char exp[512], act[512];
    two_folders(exp, act);
    make_dir(exp, "sub");
    make_dir(act, "sub");
    put_png(exp, "sub/a.png", 6);
    put_png(act, "sub/a.png", 6);
    char *out, *err;
    ck_assert_int_eq(RUN(&out, &err, "compare", exp, act), 1);
    ck_assert_ptr_nonnull(strstr(out, "0 pairs"));
    ck_assert_ptr_nonnull(strstr(err, "no pair of images to compare"));
    ck_assert_ptr_nonnull(strstr(err, "--recursive"));
    free(out);
    free(err);
    ck_assert_int_eq(RUN(&out, &err, "compare", exp, act, "--allow-empty"), 0);
    free(out);
    free(err);
    ck_assert_int_eq(RUN(&out, &err, "compare", exp, act, "--recursive"), 0);
    free(out);
    free(err);
    ck_assert_int_eq(RUN(&out, &err, "compare", exp, act, "--json"), 1);
    free(out);
    free(err);
}
END_TEST

/* Names no format takes raw: bytes that are not UTF-8, a newline that
 * would forge a summary line, an escape sequence, U+FFFE and U+FFFF, and
 * a long name of two-byte characters whose reason is cut at 320 bytes. */
static const char *const odd_names[] = {
    "bad\xff\xfe.png",
    "forged\n3 pairs: 3 identical, 0 passed, 0 failed, 0 size, 0 missing, 0 new, 0 error.png",
    "esc\x1b[31mred\x1b[0m.png",
    "nonchar\xef\xbf\xbe\xef\xbf\xbf.png",
    "c1\xc2\x9b"
    "2J.png",
};

START_TEST(outputs_valid_whatever_the_names)
{
    new_test_folder();
    char exp[512], act[512], rep[512], junit[512], dir[160], name[256], rel[512];
    snprintf(rep, sizeof rep, "%s/report", T);
    snprintf(junit, sizeof junit, "%s/junit.xml", T);
    two_folders(exp, act);
    int n = 0;
    for (size_t i = 0; i < sizeof odd_names / sizeof odd_names[0]; i++, n++) {
        put_png(exp, odd_names[i], 7);
        put_png(act, odd_names[i], 8); /* failed */
    }
    /* A new pair whose reason, "no golden EXP/DIR/NAME", is cut at 319
     * bytes in the middle of a two-byte character of NAME: DIR's length
     * sets where NAME's characters start. */
    size_t start = strlen("no golden ") + strlen(exp) + 1 + 100 + 1;
    size_t pad = 100 + ((319 - start) % 2 == 0); /* (319 - start) odd: mid-character */
    memset(dir, 'd', pad);
    dir[pad] = '\0';
    for (int i = 0; i < 125; i++) /* 250 bytes of "é", then .png */
        memcpy(name + 2 * i, "\xc3\xa9", 2);
    snprintf(name + 250, sizeof name - 250, ".png");
    make_dir(act, dir);
    snprintf(rel, sizeof rel, "%s/%s", dir, name);
    put_png(act, rel, 9);
    n++;
    char *out, *err;
    int rc = RUN(&out, &err, "compare", exp, act, "--recursive", "--report", rep, "--junit", junit);
    ck_assert_msg(rc == 1, "exit %d: %s", rc, err);
    /* text: one line a pair and the summary, no control byte but newlines */
    int lines = 0;
    for (const char *p = out; *p; p++) {
        lines += *p == '\n';
        ck_assert_msg((unsigned char)*p >= 0x20 || *p == '\n', "a control byte 0x%02x on stdout",
                      (unsigned char)*p);
    }
    ck_assert_int_eq(lines, n + 1);
    ck_assert_ptr_nonnull(strstr(out, "\n6 pairs: 0 identical, 0 passed, 5 failed"));
    free(out);
    free(err);
    /* --json, report.json and the JUnit file read by Python's parsers */
    rc = RUN(&out, &err, "compare", exp, act, "--recursive", "--json");
    ck_assert_int_eq(rc, 1);
    char json[1024];
    snprintf(json, sizeof json, "%s/stdout.json", T);
    tu_write_file(json, out, strlen(out));
    free(out);
    free(err);
    static const char check_json[] =
        "import json, sys\n"
        "d = json.loads(open(sys.argv[1], 'rb').read().decode('utf-8'))\n"
        "assert d['summary']['pairs'] == 6, d['summary']\n"
        "paths = [p['path'] for p in d['pairs']]\n"
        "assert any(p.startswith('forged\\n3 pairs') for p in paths), paths\n"
        "for p in d['pairs']:\n"
        "    r = p['reason'] or p['error'] or ''\n"
        "    assert len(r.encode()) <= 319 and '\\ufffd' not in r, r\n";
    ck_assert_msg(python(check_json, json, &err) == 0, "--json: %s", err);
    free(err);
    snprintf(json, sizeof json, "%s/report.json", rep);
    ck_assert_msg(python(check_json, json, &err) == 0, "report.json: %s", err);
    free(err);
    static const char check_xml[] = "import sys, xml.etree.ElementTree as E\n"
                                    "r = E.parse(sys.argv[1]).getroot()\n"
                                    "cases = r.findall('.//testcase')\n"
                                    "assert len(cases) == 6, len(cases)\n"
                                    "assert len(r.findall('.//failure')) == 6\n";
    ck_assert_msg(python(check_xml, junit, &err) == 0, "JUnit: %s", err);
    free(err);
    static const char check_html[] = "import sys, html.parser\n"
                                     "t = open(sys.argv[1], 'rb').read().decode('utf-8')\n"
                                     "html.parser.HTMLParser().feed(t)\n"
                                     "assert '\\x1b' not in t and '\\ufffe' not in t\n";
    snprintf(json, sizeof json, "%s/index.html", rep);
    ck_assert_msg(python(check_html, json, &err) == 0, "index.html: %s", err);
    free(err);
}
END_TEST

START_TEST(long_names_update_and_one_failure_stops_nothing)
{
    new_test_folder();
    char exp[512], act[512], name[256];
    two_folders(exp, act);
    memset(name, 'n', 251);
    snprintf(name + 251, sizeof name - 251, ".png"); /* 255 bytes: NAME_MAX */
    put_png(exp, name, 10);
    put_png(act, name, 11);
    /* sub/new.png cannot be written: the golden folder has a file "sub" */
    make_dir(act, "sub");
    put_png(act, "sub/new.png", 12);
    char sub[1024];
    path_of(sub, sizeof sub, exp, "sub");
    tu_write_file(sub, "a file, not a folder", 20);
    put_png(exp, "z.png", 13); /* after sub/ in path order */
    put_png(act, "z.png", 14);
    char *out, *err;
    int rc = RUN(&out, &err, "compare", exp, act, "--recursive", "--update");
    ck_assert_msg(rc == 3, "exit %d: %s %s", rc, out, err);
    ck_assert_ptr_nonnull(strstr(out, "2 goldens updated"));
    ck_assert_ptr_nonnull(strstr(err, "sub/new.png: cannot create a file in"));
    free(out);
    free(err);
    char a[1024], e[1024];
    path_of(a, sizeof a, act, name);
    path_of(e, sizeof e, exp, name);
    ck_assert(tu_same_file(a, e));
    path_of(a, sizeof a, act, "z.png");
    path_of(e, sizeof e, exp, "z.png");
    ck_assert(tu_same_file(a, e));
    ck_assert_int_eq(tu_count_entries(exp), 3); /* no temporary left */
    /* a single command writes a 255-byte name too */
    char in[1024], outp[1024];
    path_of(in, sizeof in, act, "z.png");
    snprintf(outp, sizeof outp, "%s/%s", T, name);
    ck_assert_int_eq(RUN(&out, &err, "invert", in, outp), 0);
    free(out);
    free(err);
    ck_assert_int_eq(access(outp, F_OK), 0);
}
END_TEST

START_TEST(no_argument_dropped)
{
    new_test_folder();
    char in[512], odd[512], one[512];
    put_png(T, "in.png", 15);
    path_of(in, sizeof in, T, "in.png");
    path_of(odd, sizeof odd, T, "odd.png");
    path_of(one, sizeof one, T, "one.png");
    const char *args[320];
    int n = 0;
    args[n++] = tu_bin();
    args[n++] = "run";
    args[n++] = in;
    args[n++] = odd;
    args[n++] = "--";
    for (int i = 0; i < 301; i++)
        args[n++] = "invert";
    args[n] = NULL;
    char *err;
    ck_assert_int_eq(tu_run(args, NULL, NULL, &err), 0);
    free(err);
    ck_assert_int_eq(
        tu_run((const char *const[]){tu_bin(), "invert", in, one, NULL}, NULL, NULL, &err), 0);
    free(err);
    /* 301 inverts are one invert; 300 (the limit dropped one) would be none */
    ck_assert(tu_same_file(odd, one));
}
END_TEST

START_TEST(kernel_file_text_never_quoted)
{
    new_test_folder();
    char in[512], key[512], typo[512], numbered[512], fifo[512], out[512];
    put_png(T, "in.png", 16);
    path_of(in, sizeof in, T, "in.png");
    path_of(out, sizeof out, T, "out.png");
    path_of(key, sizeof key, T, "id_rsa");
    tu_write_file(key, SECRET " more\n", strlen(SECRET) + 6);
    path_of(typo, sizeof typo, T, "typo.txt");
    tu_write_file(typo, "1 2 1\n2 1..5 2\n1 2 1\n", 21);
    path_of(numbered, sizeof numbered, T, "numbered.txt");
    tu_write_file(numbered, "1 2 1\nTOKEN=" SECRET "\n", 13 + strlen(SECRET));
    path_of(fifo, sizeof fifo, T, "fifo.txt");
    ck_assert_int_eq(mkfifo(fifo, 0666), 0);
    char kernel[600], *err;
    snprintf(kernel, sizeof kernel, "convolve:kernel=%s", key);
    ck_assert_int_eq(RUN(NULL, &err, "run", in, out, kernel), 2);
    ck_assert_msg(!strstr(err, SECRET), "the file's text was quoted: %s", err);
    ck_assert_ptr_nonnull(strstr(err, "id_rsa:1:1: not a kernel file"));
    free(err);
    ck_assert_int_eq(RUN(NULL, &err, "convolve", in, out, "--kernel", typo), 2);
    ck_assert_ptr_nonnull(strstr(err, "typo.txt:2:3: '1..5' is not a number"));
    free(err);
    /* numbers first, then a secret: its position alone */
    ck_assert_int_eq(RUN(NULL, &err, "convolve", in, out, "--kernel", numbered), 2);
    ck_assert_msg(!strstr(err, SECRET), "the file's text was quoted: %s", err);
    ck_assert_ptr_nonnull(strstr(err, "numbered.txt:2:1: not a number"));
    free(err);
    ck_assert_int_eq(RUN(NULL, &err, "convolve", in, out, "--kernel", fifo), 2);
    ck_assert_ptr_nonnull(strstr(err, "not a regular file"));
    free(err);
    ck_assert_int_eq(access(out, F_OK), -1);
}
END_TEST

/* The budget's wait, on the library's own: a second image that does not
 * fit beside the first waits until the first is given back (a broken
 * wait takes at once). No timing is asserted: the check can only miss a
 * broken wait on a machine too busy to run the second thread, never fail
 * a working one. */
struct taker {
    gpuimg__budget *b;
    gpuimg_ctx *ctx;
    atomic_int taken;
};

static void *take_16m(void *arg)
{
    struct taker *t = arg;
    ck_assert_int_eq(gpuimg__budget_take(t->b, t->ctx, "second", 16u << 20), GPUIMG_OK);
    atomic_store(&t->taken, 1);
    return NULL;
}

START_TEST(budget_waits_for_room)
{
    gpuimg__budget b;
    gpuimg__budget_init(&b, 24u << 20);
    gpuimg_ctx *ctx = tu_ctx(), *ctx2 = tu_ctx();
    ck_assert_int_eq(gpuimg__budget_take(&b, ctx, "first", 16u << 20), GPUIMG_OK);
    struct taker t = {&b, ctx2, 0};
    pthread_t thread;
    ck_assert_int_eq(pthread_create(&thread, NULL, take_16m, &t), 0);
    struct timespec pause = {0, 200 * 1000 * 1000};
    nanosleep(&pause, NULL);
    ck_assert_msg(!atomic_load(&t.taken), "admitted 32 MiB into a budget of 24");
    gpuimg__budget_give(&b, 16u << 20);
    ck_assert_int_eq(pthread_join(thread, NULL), 0);
    ck_assert(atomic_load(&t.taken));
    /* one image alone over the budget: refused at once, naming it */
    ck_assert_int_eq(gpuimg__budget_take(&b, ctx, "huge.png", 25u << 20), GPUIMG_ERR_TOO_LARGE);
    ck_assert_ptr_nonnull(strstr(gpuimg_ctx_error(ctx), "huge.png: decodes to 25 MiB"));
    gpuimg__budget_give(&b, 16u << 20);
    ck_assert_uint_eq(b.used, 0);
    gpuimg__budget_destroy(&b);
    gpuimg_ctx_destroy(ctx);
    gpuimg_ctx_destroy(ctx2);
}
END_TEST

/* A subfolder swapped for a link after the walk: the strict read goes from
 * the folder part by part and refuses it; a golden folder's link is
 * followed. */
START_TEST(no_link_on_the_way)
{
    new_test_folder();
    char root[512], priv[512], path[1024], sub[1024];
    snprintf(root, sizeof root, "%s/act", T);
    snprintf(priv, sizeof priv, "%s/private", T);
    mkdir(root, 0777);
    mkdir(priv, 0777);
    put_png(priv, "x.png", 17);
    snprintf(sub, sizeof sub, "%s/sub", root);
    ck_assert_int_eq(symlink(priv, sub), 0);
    snprintf(path, sizeof path, "%s/sub/x.png", root);
    gpuimg_ctx *ctx = tu_ctx();
    uint8_t *data = NULL;
    size_t size = 0;
    ck_assert_int_eq(gpuimg__read_folder_file(ctx, path, strlen(root), 1, &data, &size),
                     GPUIMG_ERR_IO);
    ck_assert_ptr_null(data);
    ck_assert_msg(strstr(gpuimg_ctx_error(ctx), "a folder on its way is a symbolic link"), "%s",
                  gpuimg_ctx_error(ctx));
    ck_assert_int_eq(gpuimg__read_folder_file(ctx, path, strlen(root), 0, &data, &size), GPUIMG_OK);
    ck_assert_uint_gt(size, 8);
    free(data);
    /* the folder named itself may be reached through a link: it is the user's */
    char alias[512];
    snprintf(alias, sizeof alias, "%s/alias", T);
    ck_assert_int_eq(symlink(priv, alias), 0);
    snprintf(path, sizeof path, "%s/x.png", alias);
    ck_assert_int_eq(gpuimg__read_folder_file(ctx, path, strlen(alias), 1, &data, &size),
                     GPUIMG_OK);
    free(data);
    gpuimg_ctx_destroy(ctx);
}
END_TEST

/* A PNG at dir/rel with an eXIf chunk whose IFD points past its end: it
 * loads, with one warning. */
static void put_bad_exif_png(const char *dir, const char *rel)
{
    put_png(dir, rel, 18);
    char path[4096];
    path_of(path, sizeof path, dir, rel);
    size_t len;
    uint8_t *png = (uint8_t *)tu_read_file(path, &len);
    ck_assert_ptr_nonnull(png);
    static const uint8_t exif[12] = {'I', 'I', 42, 0, 0xff, 0xff, 0, 0, 1, 2, 3, 4};
    uint8_t *out = malloc(len + 24);
    memcpy(out, png, 33); /* the signature and IHDR */
    uint8_t *c = out + 33;
    c[0] = c[1] = c[2] = 0;
    c[3] = sizeof exif;
    memcpy(c + 4, "eXIf", 4);
    memcpy(c + 8, exif, sizeof exif);
    uLong crc = crc32(0, c + 4, 4 + sizeof exif);
    c[20] = (uint8_t)(crc >> 24), c[21] = (uint8_t)(crc >> 16), c[22] = (uint8_t)(crc >> 8);
    c[23] = (uint8_t)crc;
    memcpy(c + 24, png + 33, len - 33);
    tu_write_file(path, out, len + 24);
    free(out);
    free(png);
}

static int count(const char *text, const char *needle)
{
    int n = 0;
    for (const char *p = text; (p = strstr(p, needle)) != NULL; p++)
        n++;
    return n;
}

START_TEST(a_warning_said_once_in_folders)
{
    new_test_folder();
    char exp[512], act[512], outdir[512];
    snprintf(outdir, sizeof outdir, "%s/out", T);
    two_folders(exp, act);
    put_bad_exif_png(exp, "w.png");
    put_bad_exif_png(act, "w.png");
    char *out, *err;
    ck_assert_int_eq(RUN(&out, &err, "batch", act, outdir, "invert"), 0);
    ck_assert_msg(count(err, "EXIF") == 1 && count(err, "w.png: EXIF") == 1, "%s", err);
    free(out);
    free(err);
    ck_assert_int_eq(RUN(&out, &err, "compare", exp, act), 0);
    ck_assert_msg(count(err, "EXIF") == 2 && count(err, "/w.png: EXIF") == 2, "%s", err);
    free(out);
    free(err);
    char in[1024];
    path_of(in, sizeof in, act, "w.png");
    char script[2048];
    snprintf(script, sizeof script, "'%s' invert - '%s/o.png' < '%s'", tu_bin(), T, in);
    ck_assert_int_eq(tu_run((const char *const[]){"/bin/sh", "-c", script, NULL}, NULL, NULL, &err),
                     0);
    ck_assert_msg(count(err, "EXIF") == 1 && count(err, "<stdin>: EXIF") == 1, "%s", err);
    free(err);
}
END_TEST

Suite *hostile_suite(void)
{
    Suite *s = suite_create("hostile");
    TCase *tc = tu_tcase("hostile");
    tcase_add_test(tc, compare_copies_only_images);
    tcase_add_test(tc, batch_reads_only_regular_files);
    tcase_add_test(tc, endless_stream_cut_off);
    tcase_add_test(tc, memory_budget_admits_by_decoded_size);
    tcase_add_test(tc, no_pair_is_no_pass);
    tcase_add_test(tc, outputs_valid_whatever_the_names);
    tcase_add_test(tc, long_names_update_and_one_failure_stops_nothing);
    tcase_add_test(tc, no_argument_dropped);
    tcase_add_test(tc, kernel_file_text_never_quoted);
    tcase_add_test(tc, budget_waits_for_room);
    tcase_add_test(tc, no_link_on_the_way);
    tcase_add_test(tc, a_warning_said_once_in_folders);
    suite_add_tcase(s, tc);
    return s;
}
