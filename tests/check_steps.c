/* SPDX-License-Identifier: MIT */
/* The op table: STEP parsing, ranges, combinations, blur's defaults, kernel
 * files and their error messages; every row by its example and in the man
 * page. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ops/ops.h"
#include "testutil.h"

static gpuimg_status parse_finish(gpuimg_ctx *ctx, const char *text, gpuimg_step **out)
{
    gpuimg_status st = gpuimg_step_parse(ctx, text, out);
    if (st == GPUIMG_OK && (st = gpuimg_step_finish(ctx, *out)) != GPUIMG_OK) {
        gpuimg_step_free(*out);
        *out = NULL;
    }
    return st;
}

START_TEST(valid_steps)
{
    static const char *const ok[] = {"blur",
                                     "blur:sigma=2",
                                     "blur:radius=1000",
                                     "blur:sigma=200,radius=1",
                                     "blur:sigma=0.01",
                                     "box:radius=1",
                                     "box:radius=1000,border=constant",
                                     "convolve:kernel=sharpen,abs",
                                     "convolve:kernel=edge,abs=1,flip=true,bias=-3.5,scale=0.5",
                                     "convolve:kernel=box3,normalize=yes",
                                     "sobel:border=wrap",
                                     "transpose",
                                     "rotate:angle=270",
                                     "flip:axis=v",
                                     "grayscale",
                                     "invert",
                                     "equalize",
                                     "gamma:gamma=0.1",
                                     "gamma:gamma=10"};
    gpuimg_ctx *ctx = tu_ctx();
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        gpuimg_step *s;
        ck_assert_msg(parse_finish(ctx, ok[i], &s) == GPUIMG_OK, "%s: %s", ok[i],
                      gpuimg_ctx_error(ctx));
        gpuimg_step_free(s);
    }
    gpuimg_ctx_destroy(ctx);
}
END_TEST

START_TEST(invalid_steps)
{
    static const struct {
        const char *step, *needle;
    } bad[] = {
        {"nope", "unknown operation"},
        {"blur:sigma=0", "out of range"},
        {"blur:sigma=200.5", "out of range"},
        {"blur:sigma=abc", "not a number"},
        {"blur:sigma=", "not a number"},
        {"blur:sigma=nan", "not a number"},
        {"blur:radius=1001", "out of range"},
        {"blur:radius=2.5", "whole number"},
        {"blur:size=3", "unknown parameter"},
        {"blur:border=mirror", "not one of"},
        {"box", "missing --radius"},
        {"box:radius=0", "out of range"},
        {"rotate:angle=45", "not one of"},
        {"rotate", "missing --angle"},
        {"flip:axis=d", "not one of"},
        {"convolve", "missing --kernel"},
        {"convolve:kernel=no-such-kernel", "neither a named kernel nor a readable file"},
        {"convolve:kernel=sharpen,abs=maybe", "abs"},
        {"convolve:kernel=sharpen,scale=1e7", "out of range"},
        {"gamma", "missing --gamma"},
        {"gamma:gamma=0.09", "out of range"},
        {"gamma:gamma=10.5", "out of range"},
    };
    gpuimg_ctx *ctx = tu_ctx();
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        gpuimg_step *s = NULL;
        ck_assert_msg(parse_finish(ctx, bad[i].step, &s) == GPUIMG_ERR_USAGE, "%s accepted",
                      bad[i].step);
        ck_assert_msg(strstr(gpuimg_ctx_error(ctx), bad[i].needle), "%s: message '%s' lacks '%s'",
                      bad[i].step, gpuimg_ctx_error(ctx), bad[i].needle);
    }
    gpuimg_ctx_destroy(ctx);
}
END_TEST

/* SPEC §3: R = max(1, ceil(3σ)); σ = R/3 with --radius alone; σ = 2 with neither. */
START_TEST(blur_defaults)
{
    static const struct {
        const char *step;
        int radius;
        double sigma;
    } cases[] = {{"blur", 6, 2.0},
                 {"blur:radius=9", 9, 3.0},
                 {"blur:sigma=0.1", 1, 0.1},
                 {"blur:sigma=1.01", 4, 1.01},
                 {"blur:sigma=1,radius=2", 2, 1.0}};
    gpuimg_ctx *ctx = tu_ctx();
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        gpuimg_step *s;
        ck_assert_int_eq(parse_finish(ctx, cases[i].step, &s), GPUIMG_OK);
        ck_assert_int_eq(s->radius, cases[i].radius);
        double sum = 0.0, sigma = cases[i].sigma;
        for (int k = 0; k <= 2 * s->radius; k++)
            sum += s->weights[k];
        ck_assert_double_eq_tol(sum, 1.0, 1e-6);
        /* the ratio of neighbouring weights fixes sigma */
        double ratio = s->weights[s->radius + 1] / s->weights[s->radius];
        ck_assert_double_eq_tol(ratio, exp(-1.0 / (2 * sigma * sigma)), 1e-5);
        gpuimg_step_free(s);
    }
    gpuimg_ctx_destroy(ctx);
}
END_TEST

static void kernel_file(const char *dir, const char *name, const char *text, char *path, size_t len)
{
    snprintf(path, len, "%s/%s", dir, name);
    tu_write_file(path, text, strlen(text));
}

START_TEST(kernel_files)
{
    const char *dir = tu_tmpdir();
    char path[512], step[600];
    gpuimg_ctx *ctx = tu_ctx();
    gpuimg_step *s;

    kernel_file(dir, "ok.txt",
                "# a 5x3 kernel\n1, 2 3 4,5\n\n 0 0 0 0 0 # middle\n-1 -2 -3 -4 -5\n", path,
                sizeof path);
    snprintf(step, sizeof step, "convolve:kernel=%s", path);
    ck_assert_msg(parse_finish(ctx, step, &s) == GPUIMG_OK, "%s", gpuimg_ctx_error(ctx));
    ck_assert_int_eq(s->conv.width, 5);
    ck_assert_int_eq(s->conv.height, 3);
    ck_assert_float_eq(s->conv.weights[1], 2.0f);
    ck_assert_float_eq(s->conv.weights[14], -5.0f);
    gpuimg_step_free(s);

    /* --flip rotates by 180 degrees */
    snprintf(step, sizeof step, "convolve:kernel=%s,flip", path);
    ck_assert_int_eq(parse_finish(ctx, step, &s), GPUIMG_OK);
    ck_assert_float_eq(s->conv.weights[0], -5.0f);
    ck_assert_float_eq(s->conv.weights[14], 1.0f);
    gpuimg_step_free(s);

    static const struct {
        const char *name, *text, *needle;
    } bad[] = {
        {"ragged.txt", "1 2 3\n4 5\n6 7 8\n", ":2: row has 2 values"},
        {"even.txt", "1 2\n3 4\n", "both sides must be odd"},
        {"word.txt", "1 2 3\n4 x 6\n7 8 9\n", ":2:3: not a number"},
        {"typo.txt", "1 2 3\n4 1.5.2 6\n7 8 9\n", ":2:3: '1.5.2' is not a number"},
        {"empty.txt", "", "no numbers"},
        {"comments.txt", "# nothing\n\n", "no numbers"},
        {"wide.txt",
         "1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 "
         "1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1\n",
         "at most 63"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        kernel_file(dir, bad[i].name, bad[i].text, path, sizeof path);
        snprintf(step, sizeof step, "convolve:kernel=%s", path);
        ck_assert_msg(parse_finish(ctx, step, &s) == GPUIMG_ERR_USAGE, "%s accepted", bad[i].name);
        ck_assert_msg(strstr(gpuimg_ctx_error(ctx), bad[i].needle) &&
                          strstr(gpuimg_ctx_error(ctx), bad[i].name),
                      "%s: message '%s' lacks '%s' or the file name", bad[i].name,
                      gpuimg_ctx_error(ctx), bad[i].needle);
    }
    gpuimg_ctx_destroy(ctx);
}
END_TEST

START_TEST(normalize_rule)
{
    gpuimg_ctx *ctx = tu_ctx();
    gpuimg_step *s;
    ck_assert_int_eq(parse_finish(ctx, "convolve:kernel=sharpen,normalize", &s), GPUIMG_OK);
    ck_assert_float_eq(s->conv.scale, 1.0f); /* sum 1 */
    gpuimg_step_free(s);
    ck_assert_int_eq(parse_finish(ctx, "convolve:kernel=laplacian,normalize", &s), GPUIMG_OK);
    ck_assert_float_eq(s->conv.scale, 1.0f); /* sum 0: scale stays */
    gpuimg_step_free(s);
    ck_assert_int_eq(parse_finish(ctx, "convolve:kernel=edge,normalize,scale=3", &s), GPUIMG_OK);
    ck_assert_float_eq(s->conv.scale, 3.0f); /* sum 0: the given scale stays */
    gpuimg_step_free(s);
    ck_assert_int_eq(parse_finish(ctx, "convolve:kernel=gaussian3,normalize,scale=3", &s),
                     GPUIMG_OK);
    ck_assert_float_eq(s->conv.scale, 1.0f); /* normalize wins */
    gpuimg_step_free(s);
    ck_assert_int_eq(parse_finish(ctx, "convolve:kernel=box3,scale=2,bias=1", &s), GPUIMG_OK);
    ck_assert_float_eq(s->conv.scale, 2.0f);
    ck_assert_float_eq(s->conv.bias, 1.0f);
    gpuimg_step_free(s);
    gpuimg_ctx_destroy(ctx);
}
END_TEST

/* Extremes inside the accepted ranges stay finite: a σ so small that 2σ²
 * underflows is the identity, and a kernel whose sum is too small to divide
 * by is refused rather than turned into inf. */
START_TEST(finite_extremes)
{
    gpuimg_ctx *ctx = tu_ctx();
    gpuimg_step *s;
    ck_assert_int_eq(parse_finish(ctx, "blur:sigma=1e-300", &s), GPUIMG_OK);
    ck_assert_float_eq(s->weights[s->radius], 1.0f);
    ck_assert_float_eq(s->weights[0], 0.0f);
    gpuimg_step_free(s);
    const char *dir = tu_tmpdir();
    char path[512], step[600];
    snprintf(path, sizeof path, "%s/tiny.txt", dir);
    tu_write_file(path, "1e-40\n", 6);
    snprintf(step, sizeof step, "convolve:kernel=%s,normalize", path);
    ck_assert_int_eq(parse_finish(ctx, step, &s), GPUIMG_ERR_USAGE);
    ck_assert_ptr_nonnull(strstr(gpuimg_ctx_error(ctx), "too small"));
    gpuimg_ctx_destroy(ctx);
}
END_TEST

/* Every row is found by its name and index, once; nothing past the end. */
START_TEST(op_table_lookup)
{
    int rows = 0;
    for (int i = 0; gpuimg_op_at(i); i++, rows++) {
        const char *name = gpuimg_op_at(i)->name;
        ck_assert_ptr_eq(gpuimg_op_find(name), gpuimg_op_at(i));
        for (int k = 0; k < i; k++)
            ck_assert_str_ne(gpuimg_op_at(k)->name, name);
    }
    ck_assert_int_gt(rows, 0);
    ck_assert_ptr_null(gpuimg_op_at(rows));
    ck_assert_ptr_null(gpuimg_op_at(-1));
    ck_assert_ptr_null(gpuimg__op_example(rows));
    ck_assert_ptr_null(gpuimg_op_find("stats"));
}
END_TEST

/* --name as the man page writes it: \fB\-\-name\fR, each hyphen \-. */
static void man_option(const char *name, char *out, size_t len)
{
    size_t at = (size_t)snprintf(out, len, "\\fB\\-\\-");
    for (; *name && at + 8 < len; name++)
        if (*name == '-')
            at += (size_t)snprintf(out + at, len - at, "\\-");
        else
            out[at++] = *name;
    snprintf(out + at, len - at, "\\fR");
}

/* Every row has an entry in the man page's OPERATIONS (docs/gpuimg.1): a
 * paragraph that opens with its name in bold and names each of its
 * options. */
START_TEST(every_row_in_man_page)
{
    const char *path = tu_golden("../../docs/gpuimg.1");
    char *man = tu_read_file(path, NULL);
    ck_assert_msg(man != NULL, "cannot read %s", path);
    const char *ops = strstr(man, "\n.SH OPERATIONS\n"),
               *end = ops ? strstr(ops + 1, "\n.SH ") : NULL;
    ck_assert_msg(ops && end, "%s: no OPERATIONS section", path);
    for (int i = 0; gpuimg_op_at(i); i++) {
        const gpuimg_op_info *op = gpuimg_op_at(i);
        char head[96];
        snprintf(head, sizeof head, "\n.TP\n\\fB%s\\fR", op->name);
        const char *entry = strstr(ops, head);
        ck_assert_msg(entry && entry < end, "the man page has no entry for %s (%s)", op->name,
                      path);
        const char *next = strstr(entry + 1, "\n.TP\n"), *pp = strstr(entry + 1, "\n.PP\n");
        if (!next || (pp && pp < next))
            next = pp;
        if (!next || next > end)
            next = end;
        for (int k = 0; k < op->nparams; k++) {
            char opt[96];
            man_option(op->params[k].name, opt, sizeof opt);
            const char *at = strstr(entry, opt);
            ck_assert_msg(at && at < next, "the man page's %s entry lacks --%s", op->name,
                          op->params[k].name);
        }
    }
    free(man);
}
END_TEST

/* Every row of the op table: its example is a step of its own name that
 * parses and finishes, gives the shape its op promises on every channel
 * count, writes every output value (poisoned twice), leaves alpha alone
 * when it is a value operation, and has a CPU cost for --backend auto. */
START_TEST(every_row_by_example)
{
    gpuimg_ctx *ctx = tu_ctx();
    int rows = 0;
    for (int i = 0; gpuimg_op_at(i); i++, rows++) {
        const char *example = gpuimg__op_example(i), *name = gpuimg_op_at(i)->name;
        ck_assert_msg(example && strncmp(example, name, strlen(name)) == 0, "%s: example %s", name,
                      example ? example : "(none)");
        gpuimg_step *step;
        ck_assert_msg(gpuimg_step_parse(ctx, example, &step) == GPUIMG_OK, "%s: %s", example,
                      gpuimg_ctx_error(ctx));
        ck_assert_int_eq(gpuimg_step_finish(ctx, step), GPUIMG_OK);
        ck_assert_msg(step->op->cost(step) > 0, "%s: no cost", example);
        int value_op = step->op->value_op;
        gpuimg_step_free(step);
        for (int c = 1; c <= 4; c++) {
            gpuimg_image in, out[2];
            tu_random_image(&in, 13, 7, c, (unsigned)(i * 4 + c));
            char err[256], msg[256];
            for (int p = 0; p < 2; p++)
                ck_assert_msg(tu_apply(ctx, example, &in, p ? 0xFF : 0x00, &out[p], err,
                                       sizeof err) == GPUIMG_OK,
                              "%s: %s", example, err);
            ck_assert_msg(tu_images_agree(&out[0], &out[1], 1, msg, sizeof msg),
                          "%s on %d channels leaves pixels unwritten: %s", example, c, msg);
            if (value_op && c % 2 == 0) /* alpha: the last channel, unchanged */
                for (size_t k = 0; k < 13 * 7; k++)
                    ck_assert_int_eq(
                        out[0].data[k * (size_t)out[0].channels + (size_t)out[0].channels - 1],
                        in.data[k * (size_t)c + (size_t)c - 1]);
            gpuimg_image_free(&in);
            gpuimg_image_free(&out[0]);
            gpuimg_image_free(&out[1]);
        }
    }
    ck_assert_int_gt(rows, 0);
    gpuimg_ctx_destroy(ctx);
}
END_TEST

Suite *steps_suite(void)
{
    Suite *s = suite_create("steps");
    TCase *tc = tu_tcase("parse");
    tcase_add_test(tc, valid_steps);
    tcase_add_test(tc, invalid_steps);
    tcase_add_test(tc, blur_defaults);
    tcase_add_test(tc, kernel_files);
    tcase_add_test(tc, normalize_rule);
    tcase_add_test(tc, finite_extremes);
    tcase_add_test(tc, op_table_lookup);
    tcase_add_test(tc, every_row_in_man_page);
    tcase_add_test(tc, every_row_by_example);
    suite_add_tcase(s, tc);
    return s;
}
