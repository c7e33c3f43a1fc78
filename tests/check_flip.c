/* SPDX-License-Identifier: MIT */
/* FLIP in `gpuimg compare` (SPEC §7): NVIDIA's LDR-FLIP, its mean and
 * weighted percentiles. The figures against flip-evaluator itself on real
 * and synthetic pairs are tests/formats/check_flip.py's; here, what holds
 * whatever the reference says: identical pairs give 0, FLIP is symmetric,
 * in [0, 1] and grows with the difference, the values flip-evaluator 1.7
 * gives for uniform pairs, 8 and 16 bits and an opaque alpha agree, ignored
 * pixels are excluded (and do not leak into their neighbours), --max-flip
 * passes and fails as the limits do, and the CLI's errors. Runs on the
 * backend GPUIMG_BACKEND names. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

#define RUN(out, err, ...)                                                                         \
    tu_run((const char *const[]){tu_bin(), __VA_ARGS__, NULL}, NULL, out, err)

/* One context a test (tu_ctx makes a new one each call). */
static gpuimg_ctx *ctx;

static void setup(void)
{
    ctx = tu_ctx();
}

static void teardown(void)
{
    gpuimg_ctx_destroy(ctx);
    ctx = NULL;
}

static gpuimg_compare_result flip_of(const gpuimg_image *a, const gpuimg_image *b,
                                     const gpuimg_rect *ignore, int nignore)
{
    gpuimg_compare_options o;
    gpuimg_compare_options_init(&o);
    o.ssim = 0;
    o.flip = 1;
    o.ignore = ignore;
    o.nignore = nignore;
    gpuimg_compare_result r;
    ck_assert_int_eq(gpuimg_compare(ctx, a, b, &o, &r, NULL), GPUIMG_OK);
    return r;
}

/* A w x h image of one colour. */
static void uniform(gpuimg_image *img, int w, int h, int c, int v)
{
    ck_assert_int_eq(gpuimg_image_alloc(img, w, h, c), GPUIMG_OK);
    memset(img->data, v, (size_t)w * h * c);
}

START_TEST(identical_is_zero)
{
    gpuimg_image a;
    tu_random_image(&a, 67, 45, 3, 11u);
    gpuimg_compare_result r = flip_of(&a, &a, NULL, 0);
    ck_assert_int_eq(r.has_flip, 1);
    ck_assert_double_eq(r.flip_mean, 0.0);
    ck_assert_double_eq(r.flip_p95, 0.0);
    ck_assert_double_eq(r.flip_p99, 0.0);
    /* not asked: not computed */
    gpuimg_compare_options o;
    gpuimg_compare_options_init(&o);
    ck_assert_int_eq(o.flip, 0);
    ck_assert_int_eq(gpuimg_compare(ctx, &a, &a, &o, &r, NULL), GPUIMG_OK);
    ck_assert_int_eq(r.has_flip, 0);
    gpuimg_image_free(&a);
}
END_TEST

/* Uniform pairs: every pixel has the same value, which flip-evaluator 1.7
 * gives as 0.9673883 (black against white) and 0.1490103 (gray 128
 * against 138); the percentiles of a constant map are that value. */
START_TEST(uniform_pairs_match_the_reference)
{
    static const struct {
        int va, vb;
        double want;
    } cases[] = {{0, 255, 0.9673883318901062}, {128, 138, 0.1490103304386139}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        gpuimg_image a, b;
        uniform(&a, 32, 24, 3, cases[i].va);
        uniform(&b, 32, 24, 3, cases[i].vb);
        gpuimg_compare_result r = flip_of(&a, &b, NULL, 0);
        ck_assert_double_eq_tol(r.flip_mean, cases[i].want, 1e-5);
        ck_assert_double_eq_tol(r.flip_p95, cases[i].want, 1e-5);
        ck_assert_double_eq_tol(r.flip_p99, cases[i].want, 1e-5);
        gpuimg_image_free(&a);
        gpuimg_image_free(&b);
    }
}
END_TEST

START_TEST(symmetric_bounded_and_monotonic)
{
    gpuimg_image a, b;
    tu_load(ctx, tu_golden("inputs/ui_96x64_rgb.png"), &a);
    tu_load(ctx, tu_golden("inputs/ui_96x64_rgb_recolor.png"), &b);
    gpuimg_compare_result ab = flip_of(&a, &b, NULL, 0), ba = flip_of(&b, &a, NULL, 0);
    /* every step of the pipeline treats the two images alike */
    ck_assert_double_eq(ab.flip_mean, ba.flip_mean);
    ck_assert_double_eq(ab.flip_p95, ba.flip_p95);
    ck_assert_double_eq(ab.flip_p99, ba.flip_p99);
    ck_assert(ab.flip_mean > 0 && ab.flip_mean <= ab.flip_p95 + 1e-12);
    ck_assert(ab.flip_p95 <= ab.flip_p99 && ab.flip_p99 <= 1.0);
    /* flip-evaluator 1.7: mean 0.0590445, p95 0.9407908, p99 0.9410316 */
    ck_assert_double_eq_tol(ab.flip_mean, 0.05904450772581882, 1e-4);
    ck_assert_double_eq_tol(ab.flip_p95, 0.9407908320426941, 1e-3);
    ck_assert_double_eq_tol(ab.flip_p99, 0.9410316348075867, 1e-3);
    /* a larger change of a gray level scores higher */
    double last = 0;
    for (int d = 2; d <= 64; d *= 2) {
        gpuimg_image u, v;
        uniform(&u, 24, 20, 3, 100);
        uniform(&v, 24, 20, 3, 100 + d);
        gpuimg_compare_result r = flip_of(&u, &v, NULL, 0);
        ck_assert_msg(r.flip_mean > last, "d %d: %g after %g", d, r.flip_mean, last);
        last = r.flip_mean;
        gpuimg_image_free(&u);
        gpuimg_image_free(&v);
    }
    gpuimg_image_free(&a);
    gpuimg_image_free(&b);
}
END_TEST

/* v / 255 and v * 257 / 65535 are the same float; an opaque alpha changes
 * nothing; a gray image is its RGB widening. */
START_TEST(depths_and_layouts_agree)
{
    gpuimg_image a, b, a16, b16, a4, b4;
    tu_random_image(&a, 40, 30, 3, 21u);
    tu_random_image(&b, 40, 30, 3, 22u);
    gpuimg_compare_result r8 = flip_of(&a, &b, NULL, 0);
    ck_assert_int_eq(gpuimg_image_alloc_depth(&a16, 40, 30, 3, 16), GPUIMG_OK);
    ck_assert_int_eq(gpuimg_image_alloc_depth(&b16, 40, 30, 3, 16), GPUIMG_OK);
    ck_assert_int_eq(gpuimg_image_alloc(&a4, 40, 30, 4), GPUIMG_OK);
    ck_assert_int_eq(gpuimg_image_alloc(&b4, 40, 30, 4), GPUIMG_OK);
    for (size_t i = 0; i < 40 * 30; i++)
        for (int k = 0; k < 4; k++) {
            if (k < 3) {
                ((uint16_t *)a16.data)[i * 3 + k] = (uint16_t)(a.data[i * 3 + k] * 257);
                ((uint16_t *)b16.data)[i * 3 + k] = (uint16_t)(b.data[i * 3 + k] * 257);
            }
            a4.data[i * 4 + k] = k < 3 ? a.data[i * 3 + k] : 255;
            b4.data[i * 4 + k] = k < 3 ? b.data[i * 3 + k] : 255;
        }
    gpuimg_compare_result r16 = flip_of(&a16, &b16, NULL, 0), r4 = flip_of(&a4, &b4, NULL, 0);
    ck_assert_double_eq(r16.flip_mean, r8.flip_mean);
    ck_assert_double_eq(r16.flip_p99, r8.flip_p99);
    ck_assert_double_eq(r4.flip_mean, r8.flip_mean);
    ck_assert_double_eq(r4.flip_p95, r8.flip_p95);
    /* half transparent over white is lighter: a black/white pair at alpha
     * 128 scores less than the opaque one */
    gpuimg_image k, w;
    uniform(&k, 16, 16, 4, 0);
    uniform(&w, 16, 16, 4, 255);
    for (size_t i = 0; i < 16 * 16; i++)
        k.data[i * 4 + 3] = 255;
    gpuimg_compare_result opaque = flip_of(&k, &w, NULL, 0);
    for (size_t i = 0; i < 16 * 16; i++)
        k.data[i * 4 + 3] = w.data[i * 4 + 3] = 128;
    gpuimg_compare_result half = flip_of(&k, &w, NULL, 0);
    ck_assert(half.flip_mean > 0 && half.flip_mean < opaque.flip_mean);
    gpuimg_image *all[] = {&a, &b, &a16, &b16, &a4, &b4, &k, &w};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        gpuimg_image_free(all[i]);
}
END_TEST

/* A change inside an ignored rectangle counts for nothing, not even in the
 * pixels beside it (b takes a's values there before the filters); the
 * figures are over the pixels compared; all ignored: n/a. */
START_TEST(ignored_pixels_excluded)
{
    gpuimg_image a, b;
    tu_random_image(&a, 80, 60, 3, 31u);
    ck_assert_int_eq(gpuimg_image_alloc(&b, 80, 60, 3), GPUIMG_OK);
    memcpy(b.data, a.data, (size_t)80 * 60 * 3);
    for (int y = 20; y < 30; y++)
        for (int x = 30; x < 45; x++)
            memset(b.data + ((size_t)y * 80 + x) * 3, 255 - a.data[((size_t)y * 80 + x) * 3], 3);
    gpuimg_compare_result plain = flip_of(&a, &b, NULL, 0);
    ck_assert(plain.flip_mean > 0.01);
    gpuimg_rect clock = {30, 20, 15, 10};
    gpuimg_compare_result r = flip_of(&a, &b, &clock, 1);
    ck_assert_int_eq(r.has_flip, 1);
    ck_assert_uint_eq(r.ignored, 150);
    ck_assert_double_eq(r.flip_mean, 0.0);
    ck_assert_double_eq(r.flip_p99, 0.0);
    /* a change outside the rectangle: the mean is over the 4650 pixels
     * compared, more than over all 4800 */
    b.data[0] ^= 0xFF;
    gpuimg_compare_result outside = flip_of(&a, &b, &clock, 1);
    ck_assert(outside.flip_mean > 0);
    gpuimg_image b2;
    ck_assert_int_eq(gpuimg_image_alloc(&b2, 80, 60, 3), GPUIMG_OK);
    memcpy(b2.data, a.data, (size_t)80 * 60 * 3);
    b2.data[0] = b.data[0];
    gpuimg_compare_result whole = flip_of(&a, &b2, NULL, 0);
    ck_assert_double_eq_tol(outside.flip_mean * 4650, whole.flip_mean * 4800, 1e-9);
    gpuimg_rect everything = {0, 0, 80, 60};
    gpuimg_compare_result none = flip_of(&a, &b, &everything, 1);
    ck_assert_int_eq(none.has_flip, 0);
    gpuimg_image_free(&a);
    gpuimg_image_free(&b);
    gpuimg_image_free(&b2);
}
END_TEST

START_TEST(max_flip_limit)
{
    gpuimg_compare_result r;
    memset(&r, 0, sizeof r);
    r.width = r.height = 10;
    r.compared = 100;
    r.differing = 100;
    r.has_flip = 1;
    r.flip_mean = 0.0312;
    gpuimg_compare_limits l;
    memset(&l, 0, sizeof l);
    l.has_max_flip = 1;
    l.max_flip = 0.02;
    char why[200];
    /* the only limit given: the no-limit rule does not apply */
    ck_assert_uint_eq(gpuimg_compare_check(&r, &l, why, sizeof why), GPUIMG_FAILED_MAX_FLIP);
    ck_assert_str_eq(why, "flip mean 0.0312 > 0.02");
    ck_assert_str_eq(gpuimg_compare_failure_name(GPUIMG_FAILED_MAX_FLIP), "max_flip");
    l.max_flip = 0.0312; /* equal passes */
    ck_assert_uint_eq(gpuimg_compare_check(&r, &l, why, sizeof why), 0);
    r.has_flip = 0; /* n/a: the limit cannot apply, the no-limit rule decides */
    ck_assert_uint_eq(gpuimg_compare_check(&r, &l, why, sizeof why), GPUIMG_FAILED_DIFFERS);
}
END_TEST

START_TEST(cli_text_json_and_exit_codes)
{
    const char *a = tu_golden("inputs/ui_96x64_rgb.png");
    const char *b = tu_golden("inputs/ui_96x64_rgb_recolor.png");
    char *out, *err;
    ck_assert_int_eq(RUN(&out, &err, "compare", a, b, "--flip"), 1);
    ck_assert_ptr_nonnull(strstr(out, "flip       mean 0.0590"));
    ck_assert_ptr_nonnull(strstr(out, " p95 0.94"));
    free(out);
    free(err);
    ck_assert_int_eq(RUN(&out, &err, "compare", a, b, "--max-flip", "0.05", "--json"), 1);
    ck_assert_ptr_nonnull(strstr(out, "\"flip\": {\"mean\": 0.0590"));
    ck_assert_ptr_nonnull(strstr(out, "\"max_flip\": 0.05"));
    ck_assert_ptr_nonnull(strstr(out, "\"failed\": [\"max_flip\"]"));
    ck_assert_ptr_nonnull(strstr(out, "\"reason\": \"flip mean 0.059"));
    free(out);
    free(err);
    ck_assert_int_eq(RUN(&out, &err, "compare", a, b, "--max-flip", "0.06"), 0);
    free(out);
    free(err);
    ck_assert_int_eq(RUN(&out, &err, "compare", a, b, "--json"), 1);
    ck_assert_ptr_nonnull(strstr(out, "\"flip\": null")); /* not asked for */
    free(out);
    free(err);
    static const char *const bad[] = {"1.5", "-0.1", "x", ""};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ck_assert_int_eq(RUN(&out, &err, "compare", a, b, "--max-flip", bad[i]), 2);
        ck_assert_ptr_nonnull(strstr(err, "max-flip"));
        free(out);
        free(err);
    }
}
END_TEST

Suite *flip_suite(void)
{
    Suite *s = suite_create("flip");
    TCase *tc = tu_tcase("flip");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, identical_is_zero);
    tcase_add_test(tc, uniform_pairs_match_the_reference);
    tcase_add_test(tc, symmetric_bounded_and_monotonic);
    tcase_add_test(tc, depths_and_layouts_agree);
    tcase_add_test(tc, ignored_pixels_excluded);
    tcase_add_test(tc, max_flip_limit);
    tcase_add_test(tc, cli_text_json_and_exit_codes);
    suite_add_tcase(s, tc);
    return s;
}
