/* SPDX-License-Identifier: MIT */
/* `gpuimg batch` as a user runs it (SPEC §5): selection, outputs equal to
 * `gpuimg run` per file, failures counted and the rest going on, inputs
 * untouched, refusals, resume, shards, and SIGINT. */
#define _GNU_SOURCE /* F_SETPIPE_SZ */
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <tiffio.h>

#include "batch/plan.h"
#include "testutil.h"

static const char *const good[] = {"a_photo.png", "b_camera.png", "c_rgba.png", "d_photo.jpg"};
static const char *const sources[] = {"inputs/photo_257x131_rgb.png",
                                      "inputs/camera_64x48_gray.png", "inputs/photo_96x64_rgba.png",
                                      "formats/photo.jpg"};
#define NGOOD 4

static void copy_file(const char *from, const char *to)
{
    size_t len;
    char *data = tu_read_file(from, &len);
    ck_assert_msg(data != NULL, "cannot read %s", from);
    tu_write_file(to, data, len);
    free(data);
}

/* IN: four good images, a truncated PNG, text named .jpg, a text file, and
 * sub/ with one more image. */
static void make_input(char *in, size_t len)
{
    snprintf(in, len, "%s/in", tu_tmpdir());
    char path[1024];
    ck_assert_int_eq(mkdir(in, 0755), 0);
    for (int i = 0; i < NGOOD; i++) {
        snprintf(path, sizeof path, "%s/%s", in, good[i]);
        copy_file(tu_golden(sources[i]), path);
    }
    size_t n;
    char *png = tu_read_file(tu_golden("inputs/photo_257x131_rgb.png"), &n);
    snprintf(path, sizeof path, "%s/e_truncated.png", in);
    tu_write_file(path, png, n / 3);
    free(png);
    snprintf(path, sizeof path, "%s/f_text.jpg", in);
    tu_write_file(path, "not an image\n", 13);
    snprintf(path, sizeof path, "%s/notes.txt", in);
    tu_write_file(path, "ignored\n", 8);
    snprintf(path, sizeof path, "%s/sub", in);
    ck_assert_int_eq(mkdir(path, 0755), 0);
    snprintf(path, sizeof path, "%s/sub/g_nested.png", in);
    copy_file(tu_golden("inputs/rand_31x29_rgb.png"), path);
}

static int batch(const char *in, const char *out, const char *const *extra, char **err)
{
    const char *args[24] = {tu_bin(), "-q", "batch", in, out};
    int n = 5;
    for (int i = 0; extra && extra[i]; i++)
        args[n++] = extra[i];
    args[n] = NULL;
    return tu_run(args, NULL, NULL, err);
}

/* The plan alone, with no thread and no write: which files, in which
 * order, named what, in which shard, skipped or not, and what is refused. */
static void touch(const char *dir, const char *rel)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, rel);
    tu_write_file(path, "x", 1);
}

START_TEST(plan_alone)
{
    char in[600], out[700], sub[700], sub2[700];
    snprintf(in, sizeof in, "%s/in", tu_tmpdir());
    snprintf(out, sizeof out, "%s/out", in); /* OUT_DIR inside IN_DIR: never walked */
    snprintf(sub, sizeof sub, "%s/sub", in);
    snprintf(sub2, sizeof sub2, "%s/sub/deeper", in);
    ck_assert_int_eq(mkdir(in, 0755), 0);
    ck_assert_int_eq(mkdir(out, 0755), 0);
    ck_assert_int_eq(mkdir(sub, 0755), 0);
    ck_assert_int_eq(mkdir(sub2, 0755), 0);
    static const char *const files[] = {"b.JPEG",     "a.png", "c.gif",     ".hidden.png",
                                        "notes.txt",  "d.pnm", "sub/e.psd", "sub/deeper/f.tga",
                                        "out/old.png"};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++)
        touch(in, files[i]);
    gpuimg_ctx *ctx = tu_ctx();
    gpuimg_batch_options opt = {.in_dir = in, .out_dir = out, .recursive = 1, .shard_count = 1};
    gpuimg__plan plan;
    ck_assert_int_eq(gpuimg__plan_batch(ctx, &opt, &plan), GPUIMG_OK);
    static const char *const want_in[] = {"a.png", "b.JPEG",           "c.gif",
                                          "d.pnm", "sub/deeper/f.tga", "sub/e.psd"};
    static const char *const want_out[] = {"a.png", "b.JPEG",           "c.png",
                                           "d.ppm", "sub/deeper/f.tga", "sub/e.png"};
    ck_assert_uint_eq(plan.files.n, 6);
    for (size_t i = 0; i < 6; i++) {
        char o[1400];
        snprintf(o, sizeof o, "%s/%s", out, want_out[i]);
        ck_assert_str_eq(plan.files.rel[i], want_in[i]);
        ck_assert_str_eq(plan.outputs[i], o);
        ck_assert_int_eq(plan.skip[i], 0);
    }
    /* the one other file, named; .hidden.png neither read nor counted */
    ck_assert_uint_eq(plan.ignored.count, 1);
    ck_assert_int_eq(plan.ignored.named, 1);
    ck_assert_str_eq(plan.ignored.first[0], "notes.txt");
    gpuimg__plan_free(&plan);

    /* shards: 1/3 takes sorted indices 1 and 4; an output newer than its
     * input is skipped */
    opt.shard_index = 1;
    opt.shard_count = 3;
    opt.skip_existing = 1;
    char newer[1400];
    snprintf(newer, sizeof newer, "%s/b.JPEG", out);
    touch(out, "b.JPEG");
    struct timespec later[2] = {{0, UTIME_OMIT}, {time(NULL) + 100, 0}};
    ck_assert_int_eq(utimensat(AT_FDCWD, newer, later, 0), 0);
    ck_assert_int_eq(gpuimg__plan_batch(ctx, &opt, &plan), GPUIMG_OK);
    ck_assert_uint_eq(plan.files.n, 2);
    ck_assert_str_eq(plan.files.rel[0], "b.JPEG");
    ck_assert_str_eq(plan.files.rel[1], "sub/deeper/f.tga");
    ck_assert_int_eq(plan.skip[0], 1);
    ck_assert_int_eq(plan.skip[1], 0);
    ck_assert_uint_eq(plan.skipped, 1);
    gpuimg__plan_free(&plan);

    /* refusals: two inputs writing one output; OUT_DIR = IN_DIR; a bad shard */
    opt = (gpuimg_batch_options){
        .in_dir = in, .out_dir = out, .shard_count = 1, .format = GPUIMG_FORMAT_PNG};
    touch(in, "a.bmp");
    ck_assert_int_eq(gpuimg__plan_batch(ctx, &opt, &plan), GPUIMG_ERR_USAGE);
    ck_assert_msg(strstr(gpuimg_ctx_error(ctx), "would both write it"), "%s",
                  gpuimg_ctx_error(ctx));
    ck_assert_ptr_null(plan.outputs);
    opt.format = GPUIMG_FORMAT_NONE;
    opt.out_dir = in;
    ck_assert_int_eq(gpuimg__plan_batch(ctx, &opt, &plan), GPUIMG_ERR_USAGE);
    opt.out_dir = out;
    opt.shard_index = 2;
    opt.shard_count = 2;
    ck_assert_int_eq(gpuimg__plan_batch(ctx, &opt, &plan), GPUIMG_ERR_USAGE);
    gpuimg_ctx_destroy(ctx);
}
END_TEST

/* The summary a person reads: the files ignored counted, the failed ones
 * named again, --time's stages summed over the workers (not zeros). */
START_TEST(summary_for_people)
{
    char in[512], out[600];
    make_input(in, sizeof in);
    snprintf(out, sizeof out, "%s/../out", in);
    char *err = NULL;
    const char *const extra[] = {"invert", "--time", "--backend", "cpu", NULL};
    ck_assert_int_eq(batch(in, out, extra, &err), 1);
    ck_assert_msg(strstr(err, "gpuimg: batch: 1 file ignored (not an image extension: "
                              "notes.txt); images are read from .png .jpg .jpeg "),
                  "%s", err);
    const char *failed = strstr(err, "gpuimg: batch: failed: ");
    ck_assert_msg(failed && strstr(failed, "e_truncated.png") && strstr(failed, "f_text.jpg"), "%s",
                  err);
    const char *time = strstr(err, "gpuimg: time:");
    ck_assert_msg(time, "%s", err);
    double decode = 0, encode = 0;
    ck_assert_int_eq(sscanf(strstr(time, "decode"), "decode %lf", &decode), 1);
    ck_assert_int_eq(sscanf(strstr(time, "encode"), "encode %lf", &encode), 1);
    ck_assert_msg(decode > 0 && encode > 0, "%s", time);
    free(err);
}
END_TEST

/* More files ignored than the summary names: the first ten in sorted path
 * order (subfolders' too, as the inputs are sorted), then how many more,
 * and the extensions that are read; hidden files not counted; exit 0. */
START_TEST(ignored_files_named)
{
    char in[600], out[700], path[800];
    snprintf(in, sizeof in, "%s/ign", tu_tmpdir());
    snprintf(out, sizeof out, "%s/ign_out", tu_tmpdir());
    ck_assert_int_eq(mkdir(in, 0755), 0);
    snprintf(path, sizeof path, "%s/raw", in);
    ck_assert_int_eq(mkdir(path, 0755), 0);
    /* written out of order: the walk meets them in the folder's order */
    static const char *const others[12] = {"video.mov",        "notes.txt", "raw/IMG_0001.CR2",
                                           "raw/IMG_0002.CR2", "a.PNG~",    "b.doc",
                                           "zz.bin",           "c.psd.bak", "d",
                                           "e.webp.part",      "f.md",      "g.xcf"};
    for (int i = 0; i < 12; i++)
        touch(in, others[i]);
    touch(in, ".DS_Store");
    for (int i = 0; i < 2; i++) {
        snprintf(path, sizeof path, "%s/%s", in, good[i]);
        copy_file(tu_golden(sources[i]), path);
    }
    char *err = NULL;
    const char *const extra[] = {"invert", "--recursive", "--backend", "cpu", NULL};
    ck_assert_int_eq(batch(in, out, extra, &err), 0);
    ck_assert_msg(strstr(err, "gpuimg: batch: 2 processed, 0 failed, 0 skipped of 2 in "), "%s",
                  err);
    ck_assert_msg(strstr(err, "gpuimg: batch: 12 files ignored (not an image extension: a.PNG~, "
                              "b.doc, c.psd.bak, d, e.webp.part, f.md, g.xcf, notes.txt, "
                              "raw/IMG_0001.CR2, raw/IMG_0002.CR2 and 2 more); images are read "
                              "from .png .jpg .jpeg "),
                  "%s", err);
    const char *line = strstr(err, "images are read from");
    ck_assert_msg(line && strstr(line, " .tiff") && strstr(line, " .gif") && strstr(line, " .psd"),
                  "%s", err);
    ck_assert_ptr_null(strstr(err, "DS_Store"));
    free(err);
}
END_TEST

/* GPUIMG_TRACE=FILE: the timeline of every thread's stages, in the Chrome
 * trace format, whole (the array closed), a read, a decode, an encode and
 * a write for each file written, every event with a thread and a time. */
START_TEST(trace_timeline)
{
    char in[512], out[600], trace[700];
    make_input(in, sizeof in);
    snprintf(out, sizeof out, "%s/../out", in);
    snprintf(trace, sizeof trace, "%s/../trace.json", in);
    setenv("GPUIMG_TRACE", trace, 1);
    const char *const extra[] = {"invert", "--backend", "cpu", NULL};
    int rc = batch(in, out, extra, NULL);
    unsetenv("GPUIMG_TRACE");
    ck_assert_int_eq(rc, 1); /* the two damaged files */
    size_t n;
    char *json = tu_read_file(trace, &n);
    ck_assert_ptr_nonnull(json);
    ck_assert_msg(strncmp(json, "{\"traceEvents\":[", 16) == 0, "%.40s", json);
    ck_assert_msg(n > 4 && strcmp(json + n - 3, "]}\n") == 0, "not closed: %s", json + n - 8);
    static const char *const stages[] = {"\"read\"", "\"decode\"", "\"encode\"", "\"write\""};
    for (int k = 0; k < 4; k++) {
        int count = 0;
        for (const char *p = json; (p = strstr(p, stages[k])) != NULL; p++)
            count++;
        ck_assert_msg(count >= NGOOD, "%s: %d events", stages[k], count);
    }
    int events = 0;
    for (const char *p = json; (p = strstr(p, "\"ph\":\"X\"")) != NULL; p++) {
        events++;
        const char *end = strchr(p, '}');
        ck_assert_ptr_nonnull(end);
        ck_assert_msg(strstr(p, "\"tid\":") < end && strstr(p, "\"ts\":") < end &&
                          strstr(p, "\"dur\":") < end,
                      "%.80s", p);
    }
    ck_assert_int_ge(events, 4 * NGOOD);
    free(json);
}
END_TEST

START_TEST(outputs_failures_inputs)
{
    char in[600], out[700], path[1024], ref[1024], copy[700];
    make_input(in, sizeof in);
    snprintf(out, sizeof out, "%s/../out", in);
    /* a byte-for-byte copy of IN, to show the inputs untouched afterwards */
    snprintf(copy, sizeof copy, "%s/../copy", in);
    ck_assert_int_eq(mkdir(copy, 0755), 0);
    for (int i = 0; i < NGOOD; i++) {
        snprintf(path, sizeof path, "%s/%s", in, good[i]);
        snprintf(ref, sizeof ref, "%s/%s", copy, good[i]);
        copy_file(path, ref);
    }
    char *err;
    static const char *const steps[] = {"blur:sigma=2", "rotate:angle=90", NULL};
    ck_assert_int_eq(batch(in, out, steps, &err), 1);
    ck_assert_msg(strstr(err, "e_truncated.png") && strstr(err, "f_text.jpg"), "%s", err);
    ck_assert_msg(strstr(err, "4 processed, 2 failed, 0 skipped of 6"), "%s", err);
    /* notes.txt is no failure: named only as ignored */
    const char *failed = strstr(err, "gpuimg: batch: failed:");
    ck_assert_msg(failed, "%s", err);
    ck_assert_ptr_null(strstr(failed, "notes.txt"));
    const char *named = strstr(err, "notes.txt");
    ck_assert_msg(named && strstr(err, "1 file ignored (not an image extension: notes.txt)") &&
                      strstr(named + 1, "notes.txt") == NULL,
                  "%s", err);
    free(err);
    ck_assert_int_eq(tu_count_entries(out), NGOOD); /* nothing but outputs; sub/ not entered */
    for (int i = 0; i < NGOOD; i++) {
        snprintf(path, sizeof path, "%s/%s", in, good[i]);
        snprintf(ref, sizeof ref, "%s/ref_%s", copy, good[i]);
        ck_assert_int_eq(tu_run((const char *const[]){tu_bin(), "-q", "run", path, ref,
                                                      "blur:sigma=2", "rotate:angle=90", NULL},
                                NULL, NULL, NULL),
                         0);
        snprintf(path, sizeof path, "%s/%s", out, good[i]);
        ck_assert_msg(tu_same_file(path, ref), "%s differs from gpuimg run", good[i]);
        snprintf(path, sizeof path, "%s/%s", in, good[i]);
        snprintf(ref, sizeof ref, "%s/%s", copy, good[i]);
        ck_assert_msg(tu_same_file(path, ref), "input %s changed", good[i]);
    }
    /* --recursive and --format */
    snprintf(out, sizeof out, "%s/../out_r", in);
    ck_assert_int_eq(
        batch(in, out, (const char *const[]){"--recursive", "--format", "tga", NULL}, NULL), 1);
    snprintf(path, sizeof path, "%s/sub/g_nested.tga", out);
    ck_assert_int_eq(access(path, F_OK), 0);
    snprintf(path, sizeof path, "%s/d_photo.tga", out);
    ck_assert_int_eq(access(path, F_OK), 0);
}
END_TEST

START_TEST(refusals)
{
    char in[600], same[700], *err;
    make_input(in, sizeof in);
    ck_assert_int_eq(batch(in, in, NULL, &err), 2);
    ck_assert_msg(strstr(err, "OUT_DIR is IN_DIR"), "%s", err);
    free(err);
    snprintf(same, sizeof same, "%s/./sub/..", in);
    ck_assert_int_eq(batch(in, same, NULL, &err), 2);
    free(err);
    ck_assert_int_eq(batch(in, "/tmp/x", (const char *const[]){"--shard", "3/3", NULL}, &err), 2);
    ck_assert_msg(strstr(err, "--shard"), "%s", err);
    free(err);
    ck_assert_int_eq(batch("/nonexistent/folder", "/tmp/x", NULL, &err), 3);
    free(err);
    /* two inputs, one output name: refused before anything is written */
    char path[1024], ref[1024], out[700];
    snprintf(path, sizeof path, "%s/a_photo.jpg", in);
    copy_file(tu_golden("formats/photo.jpg"), path);
    snprintf(out, sizeof out, "%s/../out_dup", in);
    ck_assert_int_eq(batch(in, out, (const char *const[]){"--format", "png", NULL}, &err), 2);
    ck_assert_msg(strstr(err, "a_photo.jpg") && strstr(err, "a_photo.png") &&
                      strstr(err, "both write"),
                  "%s", err);
    free(err);
    ck_assert_int_ne(access(out, F_OK), 0); /* refused before anything, OUT_DIR too */
    /* the same collision split over two shards is still refused in each */
    ck_assert_int_eq(
        batch(in, out, (const char *const[]){"--format", "png", "--shard", "0/2", NULL}, &err), 2);
    free(err);
    ck_assert_int_eq(
        batch(in, out, (const char *const[]){"--format", "png", "--shard", "1/2", NULL}, &err), 2);
    free(err);
    /* an output that would land on another input: IN is P/in, OUT_DIR is P,
     * and IN holds x.png and in/x.png, whose output P/in/x.png is the first */
    char p_dir[700], in_dir[800], deeper[900];
    snprintf(p_dir, sizeof p_dir, "%s/../p", in);
    snprintf(in_dir, sizeof in_dir, "%s/in", p_dir);
    snprintf(deeper, sizeof deeper, "%s/in", in_dir);
    ck_assert_int_eq(mkdir(p_dir, 0755), 0);
    ck_assert_int_eq(mkdir(in_dir, 0755), 0);
    ck_assert_int_eq(mkdir(deeper, 0755), 0);
    snprintf(path, sizeof path, "%s/x.png", in_dir);
    copy_file(tu_golden("inputs/camera_64x48_gray.png"), path);
    snprintf(ref, sizeof ref, "%s/x.png", deeper);
    copy_file(tu_golden("inputs/rand_31x29_rgb.png"), ref);
    size_t before_len, after_len;
    char *before = tu_read_file(path, &before_len);
    ck_assert_int_eq(
        batch(in_dir, p_dir, (const char *const[]){"--recursive", "invert", NULL}, &err), 2);
    ck_assert_msg(strstr(err, "would replace an input"), "%s", err);
    free(err);
    char *after = tu_read_file(path, &after_len);
    ck_assert(before_len == after_len && memcmp(before, after, before_len) == 0);
    free(before);
    free(after);
}
END_TEST

START_TEST(skip_existing_resumes)
{
    char in[600], out[700], path[1024], *err;
    make_input(in, sizeof in);
    snprintf(out, sizeof out, "%s/../out", in);
    ck_assert_int_eq(batch(in, out, (const char *const[]){"invert", NULL}, NULL), 1);
    struct stat before, after;
    snprintf(path, sizeof path, "%s/a_photo.png", out);
    ck_assert_int_eq(stat(path, &before), 0);
    ck_assert_int_eq(batch(in, out, (const char *const[]){"invert", "--skip-existing", NULL}, &err),
                     1);
    ck_assert_msg(strstr(err, "0 processed, 2 failed, 4 skipped of 6"), "%s", err);
    free(err);
    ck_assert_int_eq(stat(path, &after), 0);
    ck_assert(before.st_mtim.tv_sec == after.st_mtim.tv_sec &&
              before.st_mtim.tv_nsec == after.st_mtim.tv_nsec);
    /* an input newer than its output is done again */
    snprintf(path, sizeof path, "%s/b_camera.png", in);
    struct timespec times[2] = {{0, UTIME_NOW}, {after.st_mtim.tv_sec + 10, 0}};
    ck_assert_int_eq(utimensat(AT_FDCWD, path, times, 0), 0);
    ck_assert_int_eq(batch(in, out, (const char *const[]){"invert", "--skip-existing", NULL}, &err),
                     1);
    ck_assert_msg(strstr(err, "1 processed, 2 failed, 3 skipped of 6"), "%s", err);
    free(err);
}
END_TEST

/* --fail-fast: the first failure stops new files from starting. With one
 * worker, files start in sorted order: a_ to d_ (good) before e_truncated,
 * so the good ones are done, the failure stops f_ and the rest. */
START_TEST(fail_fast_stops)
{
    char in[600], out[700], *err;
    make_input(in, sizeof in);
    snprintf(out, sizeof out, "%s/../out", in);
    ck_assert_int_eq(
        batch(in, out, (const char *const[]){"--fail-fast", "--jobs", "1", NULL}, &err), 1);
    ck_assert_msg(strstr(err, "e_truncated.png") && !strstr(err, "f_text.jpg"), "%s", err);
    ck_assert_msg(strstr(err, "1 failed"), "%s", err);
    free(err);
}
END_TEST

/* A tree hundreds of folders deep, and inputs whose format has no writer
 * (GIF becomes PNG). */
START_TEST(deep_tree_and_unwritable_formats)
{
    char in[600], out[700], path[8192];
    snprintf(in, sizeof in, "%s/in", tu_tmpdir());
    ck_assert_int_eq(mkdir(in, 0755), 0);
    int len = snprintf(path, sizeof path, "%s", in);
    for (int i = 0; i < 300; i++) {
        len += snprintf(path + len, sizeof path - (size_t)len, "/d");
        ck_assert_int_eq(mkdir(path, 0755), 0);
    }
    snprintf(path + len, sizeof path - (size_t)len, "/deep.png");
    copy_file(tu_golden("inputs/rand_7x5_rgba.png"), path);
    snprintf(path, sizeof path, "%s/anim.gif", in);
    copy_file(tu_golden("formats/photo.gif"), path);
    snprintf(out, sizeof out, "%s/../out", in);
    char *err;
    ck_assert_int_eq(batch(in, out, (const char *const[]){"--recursive", NULL}, &err), 0);
    ck_assert_msg(strstr(err, "2 processed, 0 failed"), "%s", err);
    free(err);
    snprintf(path, sizeof path, "%s/anim.png", out);
    ck_assert_int_eq(access(path, F_OK), 0);
}
END_TEST

/* The union of the shards is the whole set, with no file in two. */
START_TEST(shards_partition)
{
    char in[600], out[700], path[1024];
    make_input(in, sizeof in);
    int seen[NGOOD] = {0}, total = 0;
    for (int k = 0; k < 3; k++) {
        char shard[16];
        snprintf(shard, sizeof shard, "%d/3", k);
        snprintf(out, sizeof out, "%s/../out%d", in, k);
        int rc = batch(in, out, (const char *const[]){"--shard", shard, NULL}, NULL);
        ck_assert(rc == 0 || rc == 1);
        total += tu_count_entries(out);
        for (int i = 0; i < NGOOD; i++) {
            snprintf(path, sizeof path, "%s/%s", out, good[i]);
            seen[i] += access(path, F_OK) == 0;
        }
    }
    for (int i = 0; i < NGOOD; i++)
        ck_assert_msg(seen[i] == 1, "%s in %d shards", good[i], seen[i]);
    ck_assert_int_eq(total, NGOOD);
}
END_TEST

/* The child's stderr as the test reads it. */
struct child_text {
    char *text;
    size_t len, cap;
};

/* One read of fd into t. 0 at the end of the pipe, or when nothing came
 * for 60 s (the safety net: the child is stuck). */
static int read_some(int fd, struct child_text *t)
{
    struct pollfd p = {fd, POLLIN, 0};
    if (poll(&p, 1, 60 * 1000) <= 0)
        return 0;
    if (t->cap - t->len < 4097) {
        t->cap = 2 * t->cap + 8192;
        t->text = realloc(t->text, t->cap);
        ck_assert_ptr_nonnull(t->text);
    }
    ssize_t n = read(fd, t->text + t->len, t->cap - t->len - 1);
    if (n <= 0)
        return 0;
    t->len += (size_t)n;
    t->text[t->len] = '\0';
    return 1;
}

/* SIGINT mid-batch: exit 130, a summary, and every file in OUT_DIR a whole
 * image (no partial output, no temporary file). The batch says when it is
 * under way: -v prints a line per finished file, and the signal goes only
 * after the first (its handler is in place and files are in flight). It
 * cannot finish meanwhile: its stderr is a pipe of one page that the test
 * stops reading, and the long names fill the page in a dozen lines, so the
 * batch waits on it with most of its 40 files to go. */
START_TEST(sigint_leaves_whole_files)
{
    char in[600], out[700], path[1024], name[160];
    snprintf(in, sizeof in, "%s/in", tu_tmpdir());
    ck_assert_int_eq(mkdir(in, 0755), 0);
    for (int i = 0; i < 40; i++) {
        snprintf(name, sizeof name, "img%02d_%0120d.png", i, 0);
        snprintf(path, sizeof path, "%s/%s", in, name);
        copy_file(tu_golden("inputs/photo_257x131_rgb.png"), path);
    }
    snprintf(out, sizeof out, "%s/../out", in);
    int fds[2];
    ck_assert_int_eq(pipe(fds), 0);
    ck_assert_int_ge(fcntl(fds[1], F_SETPIPE_SZ, 4096), 0);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        close(fds[0]);
        if (dup2(fds[1], 2) < 0)
            _exit(126);
        close(fds[1]);
        /* slow on purpose: one worker each, a 2001-tap blur per image */
        execl(tu_bin(), tu_bin(), "-v", "--backend", "cpu", "batch", in, out, "--jobs", "1",
              "blur:radius=1000", (char *)NULL);
        _exit(127);
    }
    close(fds[1]);
    struct child_text t = {calloc(1, 1), 0, 1};
    ck_assert_ptr_nonnull(t.text);
    while (!strstr(t.text, "batch: done") && read_some(fds[0], &t))
        ;
    ck_assert_msg(strstr(t.text, "batch: done"), "no file finished; stderr: %s", t.text);
    ck_assert_int_eq(kill(pid, SIGINT), 0);
    while (read_some(fds[0], &t))
        ;
    close(fds[0]);
    int status;
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 130, "status %d; stderr: %s", status,
                  t.text);
    ck_assert_msg(strstr(t.text, "interrupted"), "%s", t.text);
    free(t.text);
    int n = tu_count_entries(out);
    ck_assert_msg(n >= 1 && n < 40, "%d outputs: the batch was not interrupted", n);
    gpuimg_ctx *ctx = tu_ctx();
    for (int i = 0; i < 40; i++) {
        snprintf(name, sizeof name, "img%02d_%0120d.png", i, 0);
        snprintf(path, sizeof path, "%s/%s", out, name);
        if (access(path, F_OK) != 0)
            continue;
        gpuimg_image img;
        tu_load(ctx, path, &img); /* whole, or the load fails the test */
        gpuimg_image_free(&img);
        n--;
    }
    ck_assert_msg(n == 0, "%d entries in OUT_DIR are not outputs (temporary files?)", n);
    gpuimg_ctx_destroy(ctx);
}
END_TEST

/* The device stage opens while the first files decode; where it cannot
 * open (`--backend cuda` without a GPU), the batch stops with the device's
 * error and exit 4, and writes nothing. Where a GPU is usable, the same
 * command processes the folder. */
START_TEST(device_failure_writes_nothing)
{
    char in[600], out[700], why[256];
    make_input(in, sizeof in);
    snprintf(out, sizeof out, "%s/../out", in);
    static const char *const cuda[] = {"--backend", "cuda", "blur:sigma=2", NULL};
    char *err;
    int rc = batch(in, out, cuda, &err);
    if (gpuimg_backend_probe("cuda", 0, why, sizeof why) == GPUIMG_OK) {
        ck_assert_msg(rc == 1 && strstr(err, "4 processed, 2 failed"), "rc %d: %s", rc, err);
    } else {
        ck_assert_msg(rc == 4 && strstr(err, "cuda"), "rc %d: %s", rc, err);
        ck_assert_int_eq(tu_count_entries(out), 0);
    }
    free(err);
}
END_TEST

/* The bits per value a PNG's IHDR says (byte 24 of the file), or a TIFF's
 * BitsPerSample through libtiff: read from the file, not through gpuimg. */
static int file_depth(const char *path)
{
    size_t n;
    uint8_t *data = (uint8_t *)tu_read_file(path, &n);
    ck_assert_msg(data != NULL, "cannot read %s", path);
    int depth = -1;
    if (n > 24 && memcmp(data + 1, "PNG", 3) == 0) {
        depth = data[24];
    } else {
        TIFF *tif = TIFFOpen(path, "r");
        uint16_t bits = 0;
        ck_assert_msg(tif && TIFFGetField(tif, TIFFTAG_BITSPERSAMPLE, &bits), "%s: no TIFF", path);
        TIFFClose(tif);
        depth = bits;
    }
    free(data);
    return depth;
}

/* 16-bit PNG and TIFF inputs keep 16 bits through run and batch (batch's
 * file equal to run's), are reduced with one warning where the format
 * holds 8, and --depth sets the depth either way. */
START_TEST(sixteen_bits_through_run_and_batch)
{
    char in[512], out[512], path[1024], a[1024], b[1024];
    snprintf(in, sizeof in, "%s/in16", tu_tmpdir());
    snprintf(out, sizeof out, "%s/out16", tu_tmpdir());
    ck_assert_int_eq(mkdir(in, 0755), 0);
    gpuimg_ctx *ctx = tu_ctx();
    static const char *const names[] = {"deep.png", "scan.tif", "rgba.png"};
    static const int channels[] = {3, 1, 4};
    for (int i = 0; i < 3; i++) {
        gpuimg_image img;
        tu_random_image_depth(&img, 67 - 10 * i, 23 + i, channels[i], 16, (unsigned)(77 + i));
        snprintf(path, sizeof path, "%s/%s", in, names[i]);
        ck_assert_int_eq(gpuimg_save(ctx, path, GPUIMG_FORMAT_NONE, &img), GPUIMG_OK);
        ck_assert_int_eq(file_depth(path), 16);
        gpuimg_image_free(&img);
    }
    ck_assert_int_eq(batch(in, out, (const char *const[]){"blur:sigma=1", "invert", NULL}, NULL),
                     0);
    for (int i = 0; i < 3; i++) {
        snprintf(path, sizeof path, "%s/%s", in, names[i]);
        snprintf(a, sizeof a, "%s/%s", out, names[i]);
        snprintf(b, sizeof b, "%s/run_%s", tu_tmpdir(), names[i]);
        ck_assert_int_eq(tu_run((const char *const[]){tu_bin(), "-q", "run", path, b,
                                                      "blur:sigma=1", "invert", NULL},
                                NULL, NULL, NULL),
                         0);
        ck_assert_int_eq(file_depth(a), 16);
        ck_assert_int_eq(file_depth(b), 16);
        ck_assert_msg(tu_same_file(a, b), "batch's %s differs from run's", names[i]);
    }
    /* to JPEG: 8 bits, one warning; --depth 8 silently; --depth 16 widens */
    char *err = NULL;
    snprintf(path, sizeof path, "%s/deep.png", in);
    snprintf(a, sizeof a, "%s/eight.jpg", tu_tmpdir());
    ck_assert_int_eq(
        tu_run((const char *const[]){tu_bin(), "invert", path, a, NULL}, NULL, NULL, &err), 0);
    ck_assert_msg(strstr(err, "written at 8 bits") && !strchr(strchr(err, '\n') + 1, '\n'), "%s",
                  err);
    free(err);
    snprintf(a, sizeof a, "%s/eight.png", tu_tmpdir());
    ck_assert_int_eq(
        tu_run((const char *const[]){tu_bin(), "--depth", "8", "invert", path, a, NULL}, NULL, NULL,
               &err),
        0);
    ck_assert_str_eq(err, "");
    free(err);
    ck_assert_int_eq(file_depth(a), 8);
    gpuimg_image narrow, wide;
    tu_load(ctx, a, &narrow);
    snprintf(b, sizeof b, "%s/sixteen.png", tu_tmpdir());
    ck_assert_int_eq(tu_run((const char *const[]){tu_bin(), "--depth", "16", "run", a, b, NULL},
                            NULL, NULL, NULL),
                     0);
    ck_assert_int_eq(file_depth(b), 16);
    tu_load(ctx, b, &wide);
    for (size_t i = 0; i < (size_t)narrow.width * narrow.height * narrow.channels; i++)
        ck_assert_int_eq(tu_value(&wide, i), narrow.data[i] * 257);
    gpuimg_image_free(&narrow);
    gpuimg_image_free(&wide);
    gpuimg_ctx_destroy(ctx);
}
END_TEST

Suite *batch_suite(void)
{
    Suite *s = suite_create("batch");
    TCase *tc = tu_tcase("batch");
    tcase_add_test(tc, plan_alone);
    tcase_add_test(tc, outputs_failures_inputs);
    tcase_add_test(tc, summary_for_people);
    tcase_add_test(tc, ignored_files_named);
    tcase_add_test(tc, trace_timeline);
    tcase_add_test(tc, refusals);
    tcase_add_test(tc, skip_existing_resumes);
    tcase_add_test(tc, shards_partition);
    tcase_add_test(tc, fail_fast_stops);
    tcase_add_test(tc, deep_tree_and_unwritable_formats);
    tcase_add_test(tc, sigint_leaves_whole_files);
    tcase_add_test(tc, device_failure_writes_nothing);
    tcase_add_test(tc, sixteen_bits_through_run_and_batch);
    suite_add_tcase(s, tc);
    return s;
}
