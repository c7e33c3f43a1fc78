/* SPDX-License-Identifier: MIT */
/* `gpuimg compare` as CI uses it (SPEC §7): folders of goldens with every
 * status and exit code, golden updates that change exactly what they say,
 * the report and JUnit files, limits given as counts and percentages, and
 * one JSON shape for a pair whatever happens. The per-pixel rules are the
 * golden suite's (make_golden.py's cmp_ cases). */
#define _XOPEN_SOURCE 700
#include <dirent.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "compare_fixture.h"
#include "testutil.h"

#define RUN(out, err, ...)                                                                         \
    tu_run((const char *const[]){tu_bin(), __VA_ARGS__, NULL}, NULL, out, err)

void cmp_put(const char *dir, const char *rel, const char *golden)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, rel);
    size_t len;
    char *data = tu_read_file(golden ? tu_golden(golden) : "/dev/null", &len);
    ck_assert_ptr_nonnull(data);
    if (!golden) { /* a file that is no image */
        free(data);
        tu_write_file(path, "not an image", 12);
        return;
    }
    tu_write_file(path, data, len);
    free(data);
}

#define UI "inputs/ui_96x64_rgb.png"

/* Folders with a pair of every status (the error one only when bad). */
static void make_folders(const char *exp, const char *act, int bad)
{
    char sub[1024];
    mkdir(exp, 0777);
    mkdir(act, 0777);
    snprintf(sub, sizeof sub, "%s/sub", exp);
    mkdir(sub, 0777);
    snprintf(sub, sizeof sub, "%s/sub", act);
    mkdir(sub, 0777);
    cmp_put(exp, "same.png", UI);
    cmp_put(act, "same.png", UI);
    cmp_put(exp, "shifted.png", UI); /* passes with --max-shift 1 */
    cmp_put(act, "shifted.png", "inputs/ui_96x64_rgb_shift1.png");
    cmp_put(exp, "sub/recolor.png", UI);
    cmp_put(act, "sub/recolor.png", "inputs/ui_96x64_rgb_recolor.png");
    cmp_put(exp, "gone.png", UI);
    cmp_put(exp, "gone.mask.png", "inputs/ui_96x64_mask.png");
    cmp_put(act, "extra.png", UI);
    cmp_put(exp, "size.png", UI);
    cmp_put(act, "size.png", "inputs/camera_64x48_gray.png");
    cmp_put(exp, "masked.png", UI);
    cmp_put(exp, "masked.mask.png", "inputs/ui_96x64_mask.png");
    cmp_put(act, "masked.png", "inputs/ui_96x64_rgb_vanish.png");
    cmp_put(exp, "notes.txt", NULL); /* not an image: never a pair */
    if (bad) {
        cmp_put(exp, "bad.png", UI);
        cmp_put(act, "bad.png", NULL);
    }
}

/* The test's two folders, exp and act in its temporary folder, filled by make_folders. */
void cmp_test_folders(char exp[512], char act[512], int bad)
{
    snprintf(exp, 512, "%s/exp", tu_tmpdir());
    snprintf(act, 512, "%s/act", tu_tmpdir());
    make_folders(exp, act, bad);
}

static char snapshot_buf[1 << 16];
static size_t snapshot_len;

static int snap_one(const char *path, const struct stat *sb, int type, struct FTW *ftw)
{
    (void)sb;
    (void)ftw;
    if (type != FTW_F)
        return 0;
    size_t len;
    char *data = tu_read_file(path, &len);
    unsigned h = 2166136261u;
    for (size_t i = 0; data && i < len; i++)
        h = (h ^ (unsigned char)data[i]) * 16777619u;
    free(data);
    snapshot_len += (size_t)snprintf(snapshot_buf + snapshot_len,
                                     sizeof snapshot_buf - snapshot_len, "%s %08x\n", path, h);
    return 0;
}

/* Every file under dir with a hash of its bytes, in walk order. */
static char *snapshot(const char *dir)
{
    snapshot_len = 0;
    snapshot_buf[0] = '\0';
    ck_assert_int_eq(nftw(dir, snap_one, 16, FTW_PHYS), 0);
    return strdup(snapshot_buf);
}

/* The line of a snapshot for path, or NULL. */
static const char *snap_line(const char *snap, const char *path)
{
    char key[1100];
    snprintf(key, sizeof key, "%s ", path);
    const char *p = strstr(snap, key);
    return p && (p == snap || p[-1] == '\n') ? p : NULL;
}

START_TEST(folder_statuses_and_exit_codes)
{
    char exp[512], act[512];
    cmp_test_folders(exp, act, 1);
    char *out, *err;
    /* an unreadable file wins over every difference: exit 3 */
    ck_assert_int_eq(RUN(&out, &err, "compare", exp, act, "--recursive", "--max-shift", "1"), 3);
    ck_assert_ptr_nonnull(strstr(out, "8 pairs: 1 identical, 1 passed, 2 failed, 1 size, "
                                      "1 missing, 1 new, 1 error\n"));
    ck_assert_ptr_nonnull(strstr(out, "error bad.png: "));
    ck_assert_ptr_nonnull(strstr(out, "failed sub/recolor.png: differing 336 pixels"));
    ck_assert_ptr_nonnull(strstr(out, "failed masked.png: differing 36 pixels"));
    ck_assert_ptr_nonnull(strstr(out, "size size.png: size 64x48, expected 96x64"));
    ck_assert_ptr_nonnull(strstr(out, "missing gone.png"));
    ck_assert_ptr_nonnull(strstr(out, "new extra.png"));
    ck_assert_ptr_null(strstr(out, "same.png")); /* identical and passed: no line */
    ck_assert_ptr_null(strstr(out, "notes.txt"));
    ck_assert_ptr_null(strstr(out, "mask.png")); /* masks are not pairs */
    free(out);
    free(err);
    char path[1024];
    snprintf(path, sizeof path, "%s/bad.png", act);
    unlink(path);
    snprintf(path, sizeof path, "%s/bad.png", exp);
    unlink(path);
    /* without it: failed, size, missing and new fail with 1 */
    ck_assert_int_eq(RUN(&out, &err, "compare", exp, act, "--recursive", "--max-shift", "1"), 1);
    free(out);
    free(err);
    /* --verbose names every pair; without --recursive sub/ is not walked */
    ck_assert_int_eq(RUN(&out, &err, "-v", "compare", exp, act, "--max-shift", "1"), 1);
    ck_assert_ptr_nonnull(strstr(out, "identical same.png\n"));
    ck_assert_ptr_nonnull(strstr(out, "passed shifted.png\n"));
    ck_assert_ptr_null(strstr(out, "recolor"));
    free(out);
    free(err);
    /* only new ones left, and allowed: 0 */
    const char *const gone[] = {"sub/recolor.png", "size.png", "masked.png"};
    for (int i = 0; i < 3; i++) {
        snprintf(path, sizeof path, "%s/%s", act, gone[i]);
        unlink(path);
        snprintf(path, sizeof path, "%s/%s", exp, gone[i]);
        unlink(path);
    }
    cmp_put(act, "gone.png", UI);
    ck_assert_int_eq(RUN(&out, &err, "compare", exp, act, "--max-shift", "1"), 1); /* new */
    free(out);
    free(err);
    ck_assert_int_eq(RUN(&out, &err, "compare", exp, act, "--max-shift", "1", "--allow-new"), 0);
    ck_assert_ptr_nonnull(strstr(out, "new extra.png"));
    free(out);
    free(err);
}
END_TEST

START_TEST(update_and_prune_change_exactly_that)
{
    char exp[512], act[512];
    cmp_test_folders(exp, act, 0);
    char *before_e = snapshot(exp), *before_a = snapshot(act), *out, *err;
    /* --update alone: failed, size and new goldens become their actuals */
    ck_assert_int_eq(
        RUN(&out, &err, "compare", exp, act, "--recursive", "--max-shift", "1", "--update"), 0);
    ck_assert_ptr_nonnull(strstr(out, "; 4 goldens updated, 0 pruned\n"));
    free(out);
    free(err);
    char *after_e = snapshot(exp), *after_a = snapshot(act);
    ck_assert_str_eq(after_a, before_a); /* the actuals: untouched */
    const char *changed[] = {"sub/recolor.png", "size.png", "masked.png", "extra.png"};
    for (int i = 0; i < 4; i++) {
        char e[1024], a[1024];
        snprintf(e, sizeof e, "%s/%s", exp, changed[i]);
        snprintf(a, sizeof a, "%s/%s", act, changed[i]);
        ck_assert_msg(tu_same_file(e, a), "%s was not updated", changed[i]);
    }
    /* every other golden, its bytes and its mask as before; nothing else */
    int lines = 0;
    for (const char *l = before_e; *l; l = strchr(l, '\n') + 1, lines++) {
        char path[1024];
        sscanf(l, "%1023s", path);
        int is_changed = 0;
        for (int i = 0; i < 4; i++)
            is_changed |= strlen(path) > strlen(changed[i]) &&
                          strcmp(path + strlen(path) - strlen(changed[i]), changed[i]) == 0 &&
                          path[strlen(path) - strlen(changed[i]) - 1] == '/';
        const char *now = snap_line(after_e, path);
        ck_assert_msg(now != NULL, "%s disappeared", path);
        if (!is_changed)
            ck_assert_msg(strncmp(now, l, (size_t)(strchr(l, '\n') - l)) == 0, "%s changed", path);
    }
    int after_lines = 0;
    for (const char *l = after_e; *l; l = strchr(l, '\n') + 1)
        after_lines++;
    ck_assert_int_eq(after_lines, lines + 1); /* extra.png, and no temporary left */
    /* --update --prune: the missing golden and its mask go, nothing else */
    ck_assert_int_eq(RUN(&out, &err, "compare", exp, act, "--recursive", "--update", "--prune"), 0);
    ck_assert_ptr_nonnull(strstr(out, "1 pruned"));
    free(out);
    free(err);
    char *pruned = snapshot(exp);
    char gone[1024];
    snprintf(gone, sizeof gone, "%s/gone.png", exp);
    ck_assert_ptr_null(snap_line(pruned, gone));
    snprintf(gone, sizeof gone, "%s/gone.mask.png", exp);
    ck_assert_ptr_null(snap_line(pruned, gone));
    snprintf(gone, sizeof gone, "%s/notes.txt", exp);
    ck_assert_ptr_nonnull(snap_line(pruned, gone)); /* not an image: never touched */
    ck_assert_int_eq(RUN(&out, &err, "compare", exp, act, "--recursive"), 0);
    ck_assert_ptr_nonnull(strstr(out, "6 identical"));
    free(out);
    free(err);
    free(before_e);
    free(before_a);
    free(after_e);
    free(after_a);
    free(pruned);
}
END_TEST

START_TEST(report_junit_and_json)
{
    char exp[512], act[512], rep[512], junit[512];
    cmp_test_folders(exp, act, 1);
    snprintf(rep, sizeof rep, "%s/report", tu_tmpdir());
    snprintf(junit, sizeof junit, "%s/junit.xml", tu_tmpdir());
    char *out, *err;
    ck_assert_int_eq(RUN(&out, &err, "compare", exp, act, "--recursive", "--max-shift", "1",
                         "--report", rep, "--junit", junit, "--json"),
                     3);
    /* --json: one document, every pair in path order, the summary */
    double n;
    ck_assert_int_eq(tu_json_numbers(strstr(out, "\"summary\""), "error", &n, 1), 1);
    ck_assert_double_eq(n, 1);
    ck_assert_int_eq(tu_json_numbers(strstr(out, "\"summary\""), "pairs", &n, 1), 1);
    ck_assert_double_eq(n, 8);
    const char *order[] = {"bad.png",  "extra.png",   "gone.png", "masked.png",
                           "same.png", "shifted.png", "size.png", "sub/recolor.png"};
    const char *at = out;
    for (int i = 0; i < 8; i++) {
        char key[64];
        snprintf(key, sizeof key, "\"path\": \"%s\"", order[i]);
        ck_assert_msg((at = strstr(at, key)) != NULL, "%s out of order", order[i]);
    }
    free(out);
    free(err);
    /* the page: every failing pair, its images present, nothing fetched */
    char page[1024];
    snprintf(page, sizeof page, "%s/index.html", rep);
    char *html = tu_read_file(page, NULL);
    ck_assert_ptr_nonnull(html);
    ck_assert_ptr_null(strstr(html, "http://"));
    ck_assert_ptr_null(strstr(html, "https://"));
    for (const char *p = strstr(html, "src=\"images/"); p; p = strstr(p + 1, "src=\"images/")) {
        char rel[256], file[1024];
        ck_assert_int_eq(sscanf(p + 5, "%255[^\"]", rel), 1);
        snprintf(file, sizeof file, "%s/%s", rep, rel);
        ck_assert_msg(access(file, R_OK) == 0, "the page shows %s, which is not there", rel);
    }
    const char *failing[] = {"failed: sub/recolor.png", "failed: masked.png", "size: size.png",
                             "missing: gone.png",       "new: extra.png",     "error: bad.png"};
    for (int i = 0; i < 6; i++)
        ck_assert_msg(strstr(html, failing[i]) != NULL, "the page lacks %s", failing[i]);
    ck_assert_ptr_nonnull(strstr(html, "type=range")); /* the wipe between expected and actual */
    free(html);
    snprintf(page, sizeof page, "%s/report.json", rep);
    char *json = tu_read_file(page, NULL);
    ck_assert_ptr_nonnull(strstr(json, "\"path\": \"sub/recolor.png\""));
    free(json);
    char *xml = tu_read_file(junit, NULL);
    ck_assert_ptr_nonnull(strstr(xml, "tests=\"8\" failures=\"5\" errors=\"1\""));
    ck_assert_ptr_nonnull(
        strstr(xml, "<testcase classname=\"gpuimg.compare\" name=\"same.png\"/>"));
    ck_assert_ptr_nonnull(strstr(xml, "name=\"sub/recolor.png\">\n      <failure type=\"failed\""));
    free(xml);
    /* a second report in the same folder replaces the first's images */
    ck_assert_int_eq(RUN(&out, &err, "compare", exp, exp, "--report", rep), 0);
    free(out);
    free(err);
    snprintf(page, sizeof page, "%s/images", rep);
    char *images = snapshot(page);
    ck_assert_str_eq(images, "");
    free(images);
}
END_TEST

START_TEST(limits_and_one_pair_json)
{
    const char *a = tu_golden(UI);
    char b[1024], *out, *err;
    snprintf(b, sizeof b, "%s", tu_golden("inputs/ui_96x64_rgb_vanish.png"));
    /* 36 counted pixels with --max-shift 2: a limit equal to them passes */
    ck_assert_int_eq(RUN(&out, &err, "compare", a, b, "--max-shift", "2", "--max-differing", "36"),
                     0);
    free(out);
    free(err);
    ck_assert_int_eq(RUN(&out, &err, "compare", a, b, "--max-shift", "2", "--max-differing", "35"),
                     1);
    ck_assert_ptr_nonnull(strstr(out, "differing 36 pixels (0.5859%) > 35"));
    free(out);
    free(err);
    /* a count and a percentage: both must hold (36 of 6144 is 0.586%) */
    ck_assert_int_eq(RUN(&out, &err, "compare", a, b, "--max-shift", "2", "--max-differing", "40",
                         "--max-differing", "0.5%", "--json"),
                     1);
    ck_assert_ptr_nonnull(strstr(out, "\"failed\": [\"max_differing_pct\"]"));
    ck_assert_ptr_nonnull(
        strstr(out, "\"bbox\": {\"x\": 70, \"y\": 40, \"width\": 6, \"height\": 6}"));
    ck_assert_ptr_nonnull(strstr(out, "\"ssim\": null")); /* not asked for */
    free(out);
    free(err);
    /* sizes that differ: both sizes in the record, figures null */
    ck_assert_int_eq(
        RUN(&out, &err, "compare", a, tu_golden("inputs/camera_64x48_gray.png"), "--json"), 1);
    ck_assert_ptr_nonnull(strstr(out, "\"status\": \"size\""));
    ck_assert_ptr_nonnull(strstr(out, "\"expected_size\": [96, 64], \"actual_size\": [64, 48]"));
    ck_assert_ptr_nonnull(strstr(out, "\"differing\": null"));
    free(out);
    free(err);
    /* an unreadable file: still a record, with its error, and exit 3 */
    char junk[1024];
    snprintf(junk, sizeof junk, "%s/junk.png", tu_tmpdir());
    tu_write_file(junk, "junk", 4);
    ck_assert_int_eq(RUN(&out, &err, "compare", a, junk, "--json"), 3);
    ck_assert_ptr_nonnull(strstr(out, "\"status\": \"error\""));
    ck_assert_ptr_nonnull(strstr(out, "\"error\": \""));
    ck_assert_ptr_nonnull(strstr(err, "junk.png"));
    free(out);
    free(err);
    /* SSIM when asked; every threshold applied is echoed */
    ck_assert_int_eq(RUN(&out, &err, "compare", a, b, "--ssim", "--threshold", "0.1", "--ignore",
                         "70,40,6,6", "--json"),
                     1);
    ck_assert_ptr_null(strstr(out, "\"ssim\": null"));
    ck_assert_ptr_nonnull(strstr(out, "\"threshold\": 0.1"));
    ck_assert_ptr_nonnull(strstr(out, "\"ignore\": [[70, 40, 6, 6]]"));
    free(out);
    free(err);
}
END_TEST

/* PNG chunk surgery for the byte-identical tests: the CRC-32 of PNG. */
static uint32_t png_crc(const unsigned char *p, size_t n)
{
    uint32_t c = 0xffffffffu;
    for (size_t i = 0; i < n; i++) {
        c ^= p[i];
        for (int k = 0; k < 8; k++)
            c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
    }
    return c ^ 0xffffffffu;
}

static uint32_t be32(const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static void put_be32(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)(v >> 24), p[1] = (unsigned char)(v >> 16);
    p[2] = (unsigned char)(v >> 8), p[3] = (unsigned char)v;
}

/* The golden's bytes, with (text) a tEXt chunk after IHDR: other bytes,
 * the same pixels. */
static void write_png(const char *path, const char *golden, int text)
{
    size_t len;
    unsigned char *d = (unsigned char *)tu_read_file(tu_golden(golden), &len);
    ck_assert_ptr_nonnull(d);
    if (!text) {
        tu_write_file(path, d, len);
        free(d);
        return;
    }
    static const char body[] = "tEXtComment\0re-encoded";
    size_t n = sizeof body - 1, at = 33; /* signature 8, IHDR 25 */
    unsigned char *o = malloc(len + n + 8);
    ck_assert_ptr_nonnull(o);
    memcpy(o, d, at);
    put_be32(o + at, (uint32_t)(n - 4));
    memcpy(o + at + 4, body, n);
    put_be32(o + at + 4 + n, png_crc(o + at + 4, n));
    memcpy(o + at + 8 + n, d + at, len - at);
    tu_write_file(path, o, len + n + 8);
    free(o);
    free(d);
}

/* Byte-identical files are not decoded (compare/same_file.c): their record
 * is the one two decoded files of the same pixels give, for every layout,
 * depth and option that changes it. */
START_TEST(identical_files_as_decoded)
{
    static const char *const images[] = {UI,
                                         "inputs/camera_64x48_gray.png",
                                         "inputs/photo16_67x45_rgb.png",
                                         "inputs/rand16_31x29_ga.png",
                                         "inputs/rand_7x5_rgba.png",
                                         "inputs/matte_41x27_rgba.png",
                                         "inputs/oriented_6.png"};
    static const char *const opts[][8] = {
        {NULL},
        {"--ssim", NULL},
        {"--ssim", "--ignore", "0,0,20,20", "--ignore", "10,10,200,3", NULL},
        {"--threshold", "0.1", "--antialiasing", "--max-shift", "2", NULL},
        {"--ssim", "--ignore", "-5,-5,500,500", "--max-differing", "1%", NULL},
        {"--min-psnr", "30", "--min-ssim", "0.9", NULL},
        {"--depth", "16", "--ssim", NULL},
        {"--no-auto-orient", "--max-diff", "0", NULL},
    };
    char a[1024], b[1024], ea[1024], eb[1024];
    snprintf(a, sizeof a, "%s/a.png", tu_tmpdir());
    snprintf(b, sizeof b, "%s/b.png", tu_tmpdir());
    snprintf(ea, sizeof ea, "%s/e", tu_tmpdir());
    snprintf(eb, sizeof eb, "%s/f", tu_tmpdir());
    mkdir(ea, 0777);
    mkdir(eb, 0777);
    for (size_t i = 0; i < sizeof images / sizeof images[0]; i++)
        for (size_t k = 0; k < sizeof opts / sizeof opts[0]; k++) {
            char *out[2][2], *err;
            int rc[2][2];
            const char *args[16] = {tu_bin(), "compare", a, b, "--json"};
            int n = 5;
            for (int j = 0; opts[k][j]; j++)
                args[n++] = opts[k][j];
            const char *fargs[16];
            memcpy(fargs, args, sizeof fargs);
            fargs[2] = ea;
            fargs[3] = eb;
            write_png(a, images[i], 0);
            for (int text = 0; text < 2; text++) { /* the same bytes, then other bytes */
                char p[1100];
                write_png(b, images[i], text);
                snprintf(p, sizeof p, "%s/p.png", ea);
                write_png(p, images[i], 0);
                snprintf(p, sizeof p, "%s/p.png", eb);
                write_png(p, images[i], text);
                rc[0][text] = tu_run(args, NULL, &out[0][text], &err);
                free(err);
                rc[1][text] = tu_run(fargs, NULL, &out[1][text], &err);
                free(err);
            }
            for (int m = 0; m < 2; m++) {
                ck_assert_msg(rc[m][0] == rc[m][1] && strcmp(out[m][0], out[m][1]) == 0,
                              "%s, options %zu (%s): exit %d %d\n%s\n%s", images[i], k,
                              m ? "folders" : "one pair", rc[m][0], rc[m][1], out[m][0], out[m][1]);
                ck_assert_ptr_nonnull(strstr(out[m][0], "identical"));
                free(out[m][0]);
                free(out[m][1]);
            }
        }
}
END_TEST

/* Byte-identical files that are not whole (cut, a CRC wrong) are decoded,
 * so still an error; one whose chunks are whole, CRCs right, but whose
 * compressed pixels were changed is identical to itself, undecoded, as
 * cmp would say (README: compare). */
START_TEST(identical_damaged_files)
{
    size_t len;
    unsigned char *d = (unsigned char *)tu_read_file(tu_golden(UI), &len);
    ck_assert_ptr_nonnull(d);
    size_t idat = 8;
    while (memcmp(d + idat + 4, "IDAT", 4) != 0)
        idat += 12 + be32(d + idat);
    uint32_t idat_len = be32(d + idat);
    char a[1024], b[1024];
    snprintf(a, sizeof a, "%s/a.png", tu_tmpdir());
    snprintf(b, sizeof b, "%s/b.png", tu_tmpdir());
    for (int damage = 0; damage < 3; damage++) {
        unsigned char *c = malloc(len);
        ck_assert_ptr_nonnull(c);
        memcpy(c, d, len);
        size_t n = len;
        if (damage == 0) {
            n = idat + 8 + idat_len / 2; /* cut inside the pixels */
        } else {
            c[idat + 8 + idat_len / 2] ^= 0x55;
            if (damage == 2) /* the CRC made right again */
                put_be32(c + idat + 8 + idat_len, png_crc(c + idat + 4, idat_len + 4));
        }
        tu_write_file(a, c, n);
        tu_write_file(b, c, n);
        free(c);
        char *out, *err;
        int rc = RUN(&out, &err, "compare", a, b, "--json");
        if (damage < 2) {
            ck_assert_msg(rc == 3, "damage %d: exit %d", damage, rc);
            ck_assert_ptr_nonnull(strstr(out, "\"status\": \"error\""));
        } else {
            ck_assert_int_eq(rc, 0);
            ck_assert_ptr_nonnull(strstr(out, "\"status\": \"identical\""));
        }
        free(out);
        free(err);
    }
    free(d);
}
END_TEST

/* The file at path with a chunk (type, body) after IHDR. */
static void insert_chunk(const char *path, const char *type, const void *body, size_t n)
{
    size_t len;
    unsigned char *d = (unsigned char *)tu_read_file(path, &len);
    ck_assert_ptr_nonnull(d);
    unsigned char *o = malloc(len + n + 12);
    ck_assert_ptr_nonnull(o);
    memcpy(o, d, 33); /* signature 8, IHDR 25 */
    put_be32(o + 33, (uint32_t)n);
    memcpy(o + 37, type, 4);
    memcpy(o + 41, body, n);
    put_be32(o + 41 + n, png_crc(o + 37, n + 4));
    memcpy(o + 45 + n, d + 33, len - 33);
    tu_write_file(path, o, len + n + 12);
    free(o);
    free(d);
}

/* The first len / 2 bytes of from, written to to. */
static void cut_copy(const char *from, const char *to)
{
    size_t len;
    char *d = tu_read_file(from, &len);
    ck_assert_ptr_nonnull(d);
    tu_write_file(to, d, len / 2);
    free(d);
}

/* A pair's two images decode at once (each over 4 MiB decoded, more than
 * one thread): the same record as one after the other, A's error when both
 * fail, B's warnings said only when A loads. */
START_TEST(pair_decoded_at_once)
{
    char a[1024], b[1024], acut[1024], bcut[1024], bwarn[1024], ea[1024], eb[1024];
    const char *dir = tu_tmpdir();
    snprintf(a, sizeof a, "%s/a.png", dir);
    snprintf(b, sizeof b, "%s/b.png", dir);
    snprintf(acut, sizeof acut, "%s/a_cut.png", dir);
    snprintf(bcut, sizeof bcut, "%s/b_cut.png", dir);
    snprintf(bwarn, sizeof bwarn, "%s/b_warn.png", dir);
    snprintf(ea, sizeof ea, "%s/e", dir);
    snprintf(eb, sizeof eb, "%s/f", dir);
    gpuimg_ctx *ctx = tu_ctx();
    gpuimg_image img;
    tu_random_image(&img, 1100, 1000, 4, 7); /* 4.4 MB */
    ck_assert_int_eq(gpuimg_save(ctx, a, GPUIMG_FORMAT_NONE, &img), GPUIMG_OK);
    for (int i = 0; i < 5000; i += 7)
        img.data[i * 37 % (1100 * 1000 * 4)] ^= 0x40;
    ck_assert_int_eq(gpuimg_save(ctx, b, GPUIMG_FORMAT_NONE, &img), GPUIMG_OK);
    gpuimg_image_free(&img);
    gpuimg_ctx_destroy(ctx);
    cut_copy(a, acut);
    cut_copy(b, bcut);
    size_t len;
    char *bytes = tu_read_file(b, &len);
    ck_assert_ptr_nonnull(bytes);
    tu_write_file(bwarn, bytes, len);
    free(bytes);
    static const unsigned char exif[12] = {'I', 'I', 42, 0, 0xff, 0xff, 0, 0, 1, 2, 3, 4};
    insert_chunk(bwarn, "eXIf", exif, sizeof exif); /* malformed: a warning */
    mkdir(ea, 0777);
    mkdir(eb, 0777);
    char p[1100];
    snprintf(p, sizeof p, "%s/p.png", ea);
    bytes = tu_read_file(a, &len);
    tu_write_file(p, bytes, len);
    free(bytes);
    snprintf(p, sizeof p, "%s/p.png", eb);
    bytes = tu_read_file(b, &len);
    tu_write_file(p, bytes, len);
    free(bytes);
    /* the figures: two threads as one */
    const char *pairs[2][2] = {{a, b}, {ea, eb}};
    for (int m = 0; m < 2; m++) {
        char *out[2], *err;
        int rc[2];
        const char *threads[2] = {"1", "2"};
        for (int t = 0; t < 2; t++) {
            rc[t] = RUN(&out[t], &err, "--threads", threads[t], "compare", pairs[m][0], pairs[m][1],
                        "--json", "--ssim", "--threshold", "0.1", "--antialiasing");
            free(err);
        }
        ck_assert_int_eq(rc[0], 1);
        ck_assert_int_eq(rc[1], 1);
        ck_assert_msg(strcmp(out[0], out[1]) == 0, "%s\n%s", out[0], out[1]);
        free(out[0]);
        free(out[1]);
    }
    /* errors: A's first, as when A was decoded first */
    const char *cases[3][3] = {
        {acut, b, "a_cut.png"}, {a, bcut, "b_cut.png"}, {acut, bcut, "a_cut.png"}};
    for (int k = 0; k < 3; k++) {
        char *out, *err;
        ck_assert_int_eq(RUN(&out, &err, "--threads", "2", "compare", cases[k][0], cases[k][1]), 3);
        ck_assert_msg(strstr(err, cases[k][2]) && (k < 2 || !strstr(err, "b_cut")), "%s", err);
        free(out);
        free(err);
    }
    /* B's warning: said when A loads, not when A fails */
    char *out, *err;
    ck_assert_int_eq(RUN(&out, &err, "--threads", "2", "compare", a, bwarn), 1);
    ck_assert_msg(strstr(err, "b_warn.png: EXIF") != NULL, "%s", err);
    free(out);
    free(err);
    ck_assert_int_eq(RUN(&out, &err, "--threads", "2", "compare", acut, bwarn), 3);
    ck_assert_msg(strstr(err, "a_cut.png") && !strstr(err, "EXIF"), "%s", err);
    free(out);
    free(err);
}
END_TEST

START_TEST(usage_errors)
{
    char exp[512], act[512];
    cmp_test_folders(exp, act, 0);
    const char *a = tu_golden(UI);
    static const char *const bad[][4] = {
        {"--prune", NULL},     {"--ignore", "1,2,3"},  {"--ignore", "1,2,0,4"},
        {"--threshold", "0"},  {"--threshold", "1.5"}, {"--max-shift", "9"},
        {"--recursive", NULL}, {"--update", NULL},     {"--report", "-"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char *out, *err;
        int rc = bad[i][1] ? RUN(&out, &err, "compare", a, a, bad[i][0], bad[i][1])
                           : RUN(&out, &err, "compare", a, a, bad[i][0]);
        ck_assert_msg(rc == 2, "%s: exit %d", bad[i][0], rc);
        ck_assert_msg(strstr(err, bad[i][0]) != NULL, "%s: %s", bad[i][0], err);
        free(out);
        free(err);
    }
    char *out, *err;
    ck_assert_int_eq(
        RUN(&out, &err, "compare", a, a, "--max-differing", "3", "--max-differing", "4"), 2);
    free(out);
    free(err);
    ck_assert_int_eq(RUN(&out, &err, "compare", exp, act, "--diff", "d.png"), 2);
    free(out);
    free(err);
    ck_assert_int_eq(RUN(&out, &err, "compare", exp, a), 2); /* a folder and an image */
    free(out);
    free(err);
}
END_TEST

/* Polls until the file at path is another inode than `ino` (--update
 * writes a temporary and renames it over the golden), or the child has
 * exited (not reaped: the test still signals and waits for it), or 60 s
 * have passed: the safety net. Returns 1 when the file was replaced. */
static int wait_replaced(const char *path, ino_t ino, pid_t pid)
{
    const struct timespec step = {0, 100 * 1000};
    for (long i = 0; i < 600000; i++) {
        struct stat sb;
        if (stat(path, &sb) == 0 && sb.st_ino != ino)
            return 1;
        siginfo_t si;
        si.si_pid = 0;
        if (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 && si.si_pid == pid)
            return 0;
        nanosleep(&step, NULL);
    }
    return 0;
}

/* SIGTERM at moments of --update: every golden is whole (its old bytes or
 * the actual's), and no temporary file is left. The moments: at once
 * (before the program's handlers or during the comparison), and just
 * after golden pK was replaced, the program then writing the next ones;
 * the folder says when (wait_replaced). The goldens are old again before
 * each. The property holds at every moment; these make sure some fall
 * amid the writes, however fast or loaded the machine. */
START_TEST(interrupted_update_leaves_goldens_whole)
{
    char exp[512], act[512];
    snprintf(exp, sizeof exp, "%s/exp", tu_tmpdir());
    snprintf(act, sizeof act, "%s/act", tu_tmpdir());
    mkdir(exp, 0777);
    mkdir(act, 0777);
    enum { PAIRS = 40 };
    for (int i = 0; i < PAIRS; i++) {
        char name[64];
        snprintf(name, sizeof name, "p%02d.png", i);
        cmp_put(act, name,
                i % 2 ? "inputs/ui_96x64_rgb_recolor.png" : "inputs/photo_257x131_rgb.png");
    }
    size_t old_len;
    char *old = tu_read_file(tu_golden(UI), &old_len);
    static const int after[] = {-1, 0, 9, 19, 29}; /* -1: at once */
    for (size_t m = 0; m < sizeof after / sizeof after[0]; m++) {
        char watched[600];
        ino_t ino = 0;
        for (int i = 0; i < PAIRS; i++) {
            char name[64];
            snprintf(name, sizeof name, "p%02d.png", i);
            cmp_put(exp, name, UI);
        }
        if (after[m] >= 0) {
            snprintf(watched, sizeof watched, "%s/p%02d.png", exp, after[m]);
            struct stat sb;
            ck_assert_int_eq(stat(watched, &sb), 0);
            ino = sb.st_ino;
        }
        /* Check's runner handles SIGTERM by signalling its whole process
         * group; a child signalled before its exec would still run that
         * handler: it takes the default one first, with SIGTERM held. */
        sigset_t term, before;
        sigemptyset(&term);
        sigaddset(&term, SIGTERM);
        sigprocmask(SIG_BLOCK, &term, &before);
        pid_t pid = fork();
        if (pid == 0) {
            signal(SIGTERM, SIG_DFL);
            sigprocmask(SIG_SETMASK, &before, NULL);
            int null = open("/dev/null", O_WRONLY);
            dup2(null, 1);
            dup2(null, 2);
            execl(tu_bin(), tu_bin(), "compare", exp, act, "--update", (char *)NULL);
            _exit(127);
        }
        sigprocmask(SIG_SETMASK, &before, NULL);
        ck_assert_int_ge(pid, 0);
        if (after[m] >= 0)
            ck_assert_msg(wait_replaced(watched, ino, pid), "%s was never replaced", watched);
        kill(pid, SIGTERM);
        int status;
        waitpid(pid, &status, 0);
        DIR *d = opendir(exp);
        int files = 0;
        for (struct dirent *e; (e = readdir(d)) != NULL;) {
            if (e->d_name[0] == '.' && strstr(e->d_name, "gpuimg"))
                ck_abort_msg("a temporary file was left: %s", e->d_name);
            if (e->d_name[0] == '.')
                continue;
            char g[1024], a[1024];
            snprintf(g, sizeof g, "%s/%s", exp, e->d_name);
            snprintf(a, sizeof a, "%s/%s", act, e->d_name);
            size_t len;
            char *now = tu_read_file(g, &len);
            ck_assert_msg(tu_same_file(g, a) || (now && len == old_len && !memcmp(now, old, len)),
                          "%s is neither the old golden nor the actual", e->d_name);
            free(now);
            files++;
        }
        closedir(d);
        ck_assert_int_eq(files, PAIRS);
    }
    free(old);
    char *out, *err;
    ck_assert_int_eq(RUN(&out, &err, "compare", exp, act, "--update"), 0);
    free(out);
    free(err);
    ck_assert_int_eq(RUN(&out, &err, "compare", exp, act), 0);
    free(out);
    free(err);
}
END_TEST

/* A workflow command's text as GitHub's runner reads it back (%25, %0D,
 * %0A, and in a property %3A and %2C). */
static void unescape_command(const char *s, size_t len, char *out, size_t cap)
{
    static const char *const codes[][2] = {
        {"%25", "%"}, {"%0D", "\r"}, {"%0A", "\n"}, {"%3A", ":"}, {"%2C", ","}};
    size_t n = 0;
    for (size_t i = 0; i < len && n + 1 < cap; n++) {
        int done = 0;
        for (int k = 0; k < 5 && !done; k++)
            if (len - i >= 3 && strncmp(s + i, codes[k][0], 3) == 0) {
                out[n] = codes[k][1][0];
                i += 3;
                done = 1;
            }
        if (!done)
            out[n] = s[i++];
    }
    out[n] = '\0';
}

/* The "::error" lines of out, parsed: file property and message. */
static int annotations(const char *out, char file[][512], char message[][512], int max)
{
    int n = 0;
    for (const char *line = out; line && *line; line = strchr(line, '\n'), line += line != NULL) {
        if (strncmp(line, "::error ", 8) != 0)
            continue;
        ck_assert_int_lt(n, max);
        const char *end = strchr(line, '\n'), *props = line + 8;
        const char *sep = strstr(props, "::");
        ck_assert_msg(sep && sep < end, "no message in %.*s", (int)(end - line), line);
        const char *title = strstr(props, ",title=gpuimg compare::");
        ck_assert_msg(title && title + strlen(",title=gpuimg compare") == sep, "properties: %.*s",
                      (int)(end - line), line);
        ck_assert_int_eq(strncmp(props, "file=", 5), 0);
        unescape_command(props + 5, (size_t)(title - props - 5), file[n], 512);
        unescape_command(sep + 2, (size_t)(end - sep - 2), message[n], 512);
        n++;
    }
    return n;
}

START_TEST(github_annotations_and_summary)
{
    char exp[512], act[512], sum[512], want[4096], file[4][512], msg[4][512];
    const char *tmp = tu_tmpdir();
    snprintf(exp, sizeof exp, "%s/e", tmp);
    snprintf(act, sizeof act, "%s/a", tmp);
    snprintf(sum, sizeof sum, "%s/summary.md", tmp);
    mkdir(exp, 0777);
    mkdir(act, 0777);
    /* a failed pair whose name holds a property's and a cell's separators */
    const char *odd = "v1,2:3|50%.png";
    cmp_put(exp, "same.png", UI);
    cmp_put(act, "same.png", UI);
    cmp_put(exp, odd, UI);
    cmp_put(act, odd, "inputs/ui_96x64_rgb_recolor.png");
    cmp_put(act, "new.png", UI);
    tu_write_file(sum, "earlier step\n", 13);
    setenv("GITHUB_ACTIONS", "true", 1);
    setenv("GITHUB_STEP_SUMMARY", sum, 1);
    char *out, *err;
    ck_assert_int_eq(RUN(&out, &err, "compare", exp, act), 1);
    /* the raw line, escaped as GitHub's rules say */
    snprintf(
        want, sizeof want,
        "\n::error file=%s/v1%%2C2%%3A3|50%%25.png,title=gpuimg compare::failed: differing 336 "
        "pixels (5.469%%25) > 0\n",
        act);
    ck_assert_msg(strstr(out, want) != NULL, "%s", out);
    ck_assert_int_eq(annotations(out, file, msg, 4), 2); /* new and failed; same is not */
    snprintf(want, sizeof want, "%s/new.png", act);
    ck_assert_str_eq(file[0], want);
    snprintf(want, sizeof want, "new: no golden %s/new.png", exp);
    ck_assert_str_eq(msg[0], want);
    snprintf(want, sizeof want, "%s/%s", act, odd);
    ck_assert_str_eq(file[1], want);
    ck_assert_str_eq(msg[1], "failed: differing 336 pixels (5.469%) > 0");
    /* the annotations come before the summary line */
    ck_assert_ptr_nonnull(strstr(out, "> 0\n3 pairs: 1 identical, 0 passed, 1 failed"));
    free(out);
    free(err);
    /* the summary: appended after what was there, a table of the pairs that
     * are not identical, the failing ones first */
    char *md = tu_read_file(sum, NULL);
    ck_assert_ptr_nonnull(md);
    snprintf(want, sizeof want,
             "earlier step\n### gpuimg compare: %s (expected) and %s (actual)\n\n"
             "3 pairs: 1 identical, 0 passed, 1 failed, 0 size, 0 missing, 1 new, 0 error\n\n"
             "| status | path | reason | differing | max_diff |\n|---|---|---|---:|---:|\n"
             "| new | new.png | no golden %s/new.png | | |\n"
             "| failed | v1,2:3\\|50%%.png | differing 336 pixels (5.469%%) > 0 | 336 | 170 |\n\n",
             exp, act, exp);
    ck_assert_str_eq(md, want);
    free(md);
    /* --allow-new: the new pair no longer fails, so no annotation, but it
     * differs, so it has a row (after the failing one) */
    tu_write_file(sum, "", 0);
    ck_assert_int_eq(RUN(&out, &err, "compare", exp, act, "--allow-new"), 1);
    ck_assert_int_eq(annotations(out, file, msg, 4), 1);
    free(out);
    free(err);
    md = tu_read_file(sum, NULL);
    const char *f = strstr(md, "| failed |"), *n = strstr(md, "| new |");
    ck_assert_msg(f && n && f < n, "%s", md);
    free(md);
    /* --json: standard output stays one JSON document, the annotations go
     * to standard error (the runner reads commands from both) */
    ck_assert_int_eq(RUN(&out, &err, "compare", exp, act, "--json"), 1);
    ck_assert_int_eq(out[0], '{');
    ck_assert_ptr_null(strstr(out, "::error"));
    ck_assert_int_eq(annotations(err, file, msg, 4), 2);
    free(out);
    free(err);
    /* a summary that cannot be written is a report that cannot: exit 3 */
    snprintf(want, sizeof want, "%s/no/such/folder.md", tmp);
    setenv("GITHUB_STEP_SUMMARY", want, 1);
    ck_assert_int_eq(RUN(&out, &err, "compare", exp, act), 3);
    ck_assert_ptr_nonnull(strstr(err, "GITHUB_STEP_SUMMARY"));
    free(out);
    free(err);
    /* --github alone, outside Actions: the annotations, and no summary
     * without GITHUB_STEP_SUMMARY */
    unsetenv("GITHUB_ACTIONS");
    unsetenv("GITHUB_STEP_SUMMARY");
    ck_assert_int_eq(RUN(&out, &err, "compare", exp, act, "--github"), 1);
    ck_assert_int_eq(annotations(out, file, msg, 4), 2);
    free(out);
    free(err);
    /* neither: no annotation; GITHUB_ACTIONS other than "true" neither */
    setenv("GITHUB_ACTIONS", "false", 1);
    setenv("GITHUB_STEP_SUMMARY", sum, 1);
    tu_write_file(sum, "", 0);
    ck_assert_int_eq(RUN(&out, &err, "compare", exp, act), 1);
    ck_assert_ptr_null(strstr(out, "::error"));
    free(out);
    free(err);
    md = tu_read_file(sum, NULL);
    ck_assert_str_eq(md, "");
    free(md);
    /* one pair: one line when it fails, none when it passes */
    char a[1024], b[1024];
    snprintf(a, sizeof a, "%s/%s", exp, odd);
    snprintf(b, sizeof b, "%s/%s", act, odd);
    ck_assert_int_eq(RUN(&out, &err, "compare", a, b, "--github"), 1);
    ck_assert_int_eq(annotations(out, file, msg, 4), 1);
    ck_assert_str_eq(file[0], b);
    ck_assert_str_eq(msg[0], "failed: differing 336 pixels (5.469%) > 0");
    free(out);
    free(err);
    md = tu_read_file(sum, NULL); /* its row names the actual */
    snprintf(want, sizeof want, "\n| failed | %s/v1,2:3\\|50%%.png | differing 336", act);
    ck_assert_msg(strstr(md, want) != NULL, "%s", md);
    free(md);
    ck_assert_int_eq(RUN(&out, &err, "compare", a, a, "--github"), 0);
    ck_assert_ptr_null(strstr(out, "::error"));
    free(out);
    free(err);
    unsetenv("GITHUB_ACTIONS");
    unsetenv("GITHUB_STEP_SUMMARY");
}
END_TEST

Suite *compare_suite(void)
{
    Suite *s = suite_create("compare");
    TCase *tc = tu_tcase("compare");
    tcase_add_test(tc, folder_statuses_and_exit_codes);
    tcase_add_test(tc, update_and_prune_change_exactly_that);
    tcase_add_test(tc, report_junit_and_json);
    tcase_add_test(tc, limits_and_one_pair_json);
    tcase_add_test(tc, identical_files_as_decoded);
    tcase_add_test(tc, identical_damaged_files);
    tcase_add_test(tc, pair_decoded_at_once);
    tcase_add_test(tc, usage_errors);
    tcase_add_test(tc, interrupted_update_leaves_goldens_whole);
    tcase_add_test(tc, github_annotations_and_summary);
    suite_add_tcase(s, tc);
    return s;
}
