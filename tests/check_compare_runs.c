/* SPDX-License-Identifier: MIT */
/* compare across runs and machines (SPEC §7): known variants, a suite
 * sharded over N processes and merged back into exactly what one process
 * writes (JSON, JUnit, report, exit code), --ignore-file's regions, and
 * --json FILE. */
#define _XOPEN_SOURCE 700
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "compare_fixture.h"
#include "testutil.h"

#define RUN(out, err, ...)                                                                         \
    tu_run((const char *const[]){tu_bin(), __VA_ARGS__, NULL}, NULL, out, err)

#define UI "inputs/ui_96x64_rgb.png"

static char base[300]; /* the test's own folder (tu_tmpdir makes a new one each call) */

static void fresh(void)
{
    snprintf(base, sizeof base, "%s", tu_tmpdir());
}

static char *tmp(const char *name)
{
    static char paths[16][600];
    static int next;
    char *p = paths[next++ % 16];
    snprintf(p, 600, "%s/%s", base, name);
    return p;
}

static void same_file(const char *a, const char *b)
{
    size_t la, lb;
    char *da = tu_read_file(a, &la), *db = tu_read_file(b, &lb);
    ck_assert_ptr_nonnull(da);
    ck_assert_ptr_nonnull(db);
    ck_assert_msg(la == lb && memcmp(da, db, la) == 0, "%s and %s differ", a, b);
    free(da);
    free(db);
}

START_TEST(variants_pass_and_are_named)
{
    fresh();
    char *exp = tmp("vexp"), *act = tmp("vact"), *out, *err;
    mkdir(exp, 0777);
    mkdir(act, 0777);
    /* btn: the render matches its variant ~2; box: matches none; lone~1:
     * a variant name with no golden NAME beside it is a golden of its own */
    cmp_put(exp, "btn.png", UI);
    cmp_put(exp, "btn~1.png", "inputs/ui_96x64_rgb_recolor.png");
    cmp_put(exp, "btn~2.png", "inputs/ui_96x64_rgb_shift1.png");
    cmp_put(act, "btn.png", "inputs/ui_96x64_rgb_shift1.png");
    cmp_put(exp, "box.png", UI);
    cmp_put(exp, "box~1.png", "inputs/ui_96x64_rgb_recolor.png");
    cmp_put(act, "box.png", "inputs/ui_96x64_rgb_vanish.png");
    cmp_put(exp, "lone~1.png", UI);
    cmp_put(act, "lone~1.png", UI);
    ck_assert_int_eq(RUN(&out, &err, "compare", exp, act, "--json"), 1);
    ck_assert_ptr_nonnull(strstr(out, "\"path\": \"btn.png\", \"status\": \"passed\""));
    ck_assert_ptr_nonnull(strstr(out, "\"variant\": \"btn~2.png\""));
    ck_assert_ptr_nonnull(strstr(out, "\"path\": \"box.png\", \"status\": \"failed\""));
    ck_assert_ptr_nonnull(strstr(out, "\"path\": \"lone~1.png\", \"status\": \"identical\""));
    ck_assert_ptr_null(strstr(out, "\"path\": \"btn~1.png\""));
    ck_assert_ptr_nonnull(strstr(out, "\"pairs\": 3,"));
    free(out);
    free(err);
    ck_assert_int_eq(RUN(&out, &err, "-v", "compare", exp, act), 1);
    ck_assert_ptr_nonnull(strstr(out, "passed btn.png: matched variant btn~2.png\n"));
    free(out);
    free(err);
    /* --update replaces NAME.EXT only; the variants stay as they were */
    char v1[700], v1_before[700];
    snprintf(v1, sizeof v1, "%s/box~1.png", exp);
    snprintf(v1_before, sizeof v1_before, "%s", tu_golden("inputs/ui_96x64_rgb_recolor.png"));
    ck_assert_int_eq(RUN(&out, &err, "compare", exp, act, "--update"), 0);
    free(out);
    free(err);
    same_file(v1, v1_before);
    char box[700], box_act[700];
    snprintf(box, sizeof box, "%s/box.png", exp);
    snprintf(box_act, sizeof box_act, "%s/box.png", act);
    same_file(box, box_act);
}
END_TEST

/* Every output of a run of exp/act with the given shard ("" for none),
 * under prefix. */
static int run_outputs(const char *exp, const char *act, const char *prefix, const char *shard)
{
    char json[600], junit[600], report[600];
    snprintf(json, sizeof json, "%s.json", prefix);
    snprintf(junit, sizeof junit, "%s.xml", prefix);
    snprintf(report, sizeof report, "%s-report", prefix);
    char *out, *err;
    int rc = shard[0] ? RUN(&out, &err, "compare", exp, act, "--recursive", "--max-shift", "1",
                            "--shard", shard, "--json", json)
                      : RUN(&out, &err, "compare", exp, act, "--recursive", "--max-shift", "1",
                            "--json", json, "--junit", junit, "--report", report);
    free(out);
    free(err);
    return rc;
}

START_TEST(shards_merge_into_one_run)
{
    fresh();
    char exp[512], act[512], *out, *err;
    cmp_test_folders(exp, act, 1);
    int one = run_outputs(exp, act, tmp("one"), "");
    ck_assert_int_eq(one, 3); /* bad.png: error */
    for (int k = 0; k < 3; k++) {
        char shard[16], prefix[32];
        snprintf(shard, sizeof shard, "%d/3", k);
        snprintf(prefix, sizeof prefix, "part%d", k);
        int rc = run_outputs(exp, act, tmp(prefix), shard);
        ck_assert_int_ge(rc, 0);
        ck_assert_int_le(rc, 3);
    }
    /* a shard holding no pair of a run that has some passes alone */
    int merged = RUN(&out, &err, "compare", "--merge", tmp("part2.json"), tmp("part0.json"),
                     tmp("part1.json"), "--json", tmp("merged.json"), "--junit", tmp("merged.xml"),
                     "--report", tmp("merged-report"));
    ck_assert_int_eq(merged, one);
    ck_assert_msg(strstr(out, "8 pairs: 1 identical, 1 passed, 2 failed, 1 size, "
                              "1 missing, 1 new, 1 error"),
                  "%s", out);
    free(out);
    free(err);
    same_file(tmp("one.json"), tmp("merged.json"));
    same_file(tmp("one.xml"), tmp("merged.xml"));
    char a[700], b[700];
    snprintf(a, sizeof a, "%s/report.json", tmp("one-report"));
    snprintf(b, sizeof b, "%s/report.json", tmp("merged-report"));
    same_file(a, b);
    snprintf(a, sizeof a, "%s/index.html", tmp("one-report"));
    snprintf(b, sizeof b, "%s/index.html", tmp("merged-report"));
    same_file(a, b);
    ck_assert_int_eq(tu_count_entries(tmp("one-report/images")),
                     tu_count_entries(tmp("merged-report/images")));
    /* parts that do not make one run */
    ck_assert_int_eq(RUN(&out, &err, "compare", "--merge", tmp("part0.json"), tmp("part2.json")),
                     2);
    ck_assert_ptr_nonnull(strstr(err, "shard 1/3 is missing"));
    free(out);
    free(err);
    ck_assert_int_eq(RUN(&out, &err, "compare", "--merge", tmp("part0.json"), tmp("part0.json"),
                         tmp("part1.json")),
                     2);
    ck_assert_ptr_nonnull(strstr(err, "given twice"));
    free(out);
    free(err);
    ck_assert_int_eq(RUN(&out, &err, "compare", "--merge", tmp("one.json"), tmp("part0.json")), 2);
    free(out);
    free(err);
    tu_write_file(tmp("junk.json"), "{\"pairs\": [", 11);
    ck_assert_int_eq(RUN(&out, &err, "compare", "--merge", tmp("junk.json")), 3);
    ck_assert_ptr_nonnull(strstr(err, "junk.json: not JSON"));
    free(out);
    free(err);
    /* the merged document never lands on a part */
    ck_assert_int_eq(RUN(&out, &err, "compare", "--merge", tmp("part0.json"), tmp("part1.json"),
                         tmp("part2.json"), "--json", tmp("part1.json")),
                     2);
    free(out);
    free(err);
    ck_assert_int_eq(RUN(&out, &err, "compare", exp, act, "--shard", "3/3"), 2);
    free(out);
    free(err);
}
END_TEST

START_TEST(ignore_file_regions)
{
    fresh();
    char exp[512], act[512], *out, *err;
    cmp_test_folders(exp, act, 0);
    /* masked.png's actual lacks the square at 70,40 (6x6): a region over it
     * for that path alone, and one for every path that hides nothing */
    const char *regions = "{\"masked.png\": [[68, 38, 10, 10]], \"*\": [{\"x\": 0, \"y\": 0, "
                          "\"width\": 1, \"height\": 1}]}";
    tu_write_file(tmp("regions.json"), regions, strlen(regions));
    int rc = RUN(&out, &err, "compare", exp, act, "--recursive", "--max-shift", "1",
                 "--ignore-file", tmp("regions.json"), "--json");
    ck_assert_msg(rc == 1, "%d: %s", rc, err);
    const char *m = strstr(out, "\"path\": \"masked.png\", \"status\": \"passed\"");
    ck_assert_ptr_nonnull(m);
    ck_assert_ptr_nonnull(strstr(out, "\"regions\": [{\"glob\": \"masked.png\", \"rect\": [68, "
                                      "38, 10, 10]}, {\"glob\": \"*\""));
    free(out);
    free(err);
    const char *bad[] = {"[1, 2]", "{\"a\": [[0, 0, 0, 5]]}", "{\"a\": [[0, 0, 1]]}", "{", ""};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        tu_write_file(tmp("bad.json"), bad[i], strlen(bad[i]));
        ck_assert_int_eq(RUN(&out, &err, "compare", exp, act, "--ignore-file", tmp("bad.json")), 2);
        ck_assert_ptr_nonnull(strstr(err, "bad.json"));
        ck_assert_ptr_null(strchr(strchr(err, '\n') + 1, '\n')); /* one line */
        free(out);
        free(err);
    }
}
END_TEST

Suite *compare_runs_suite(void)
{
    Suite *s = suite_create("compare_runs");
    TCase *tc = tu_tcase("compare_runs");
    tcase_add_test(tc, variants_pass_and_are_named);
    tcase_add_test(tc, shards_merge_into_one_run);
    tcase_add_test(tc, ignore_file_regions);
    suite_add_tcase(s, tc);
    return s;
}
