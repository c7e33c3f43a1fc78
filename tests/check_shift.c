/* SPDX-License-Identifier: MIT */
/* The shift rule by groups (SPEC §7), through the library: content that
 * moved by up to N pixels passes at N and not at N - 1; content that
 * changed (a glyph of a real font), appeared, or two touching elements that
 * moved different ways stay counted whatever N is. The pictures are drawn
 * here, so what each case must give follows from the rule, not from a run
 * of gpuimg; the golden suite's cmp_text_ and cmp_ui_ cases check the
 * counts against make_golden.py's independent reference. */
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

static gpuimg_ctx *ctx; /* each test's, made and destroyed by the fixture */

static void ctx_open(void)
{
    ctx = tu_ctx();
}

static void ctx_close(void)
{
    gpuimg_ctx_destroy(ctx);
    ctx = NULL;
}

static void canvas(gpuimg_image *img, int w, int h)
{
    ck_assert_int_eq(gpuimg_image_alloc(img, w, h, 3), GPUIMG_OK);
    memset(img->data, 255, (size_t)w * h * 3);
}

/* A panel in a dark border: textured (a gradient, so that no part of it
 * matches another part's neighbour by accident, and a move changes every
 * pixel of it) or flat (hue = -1 - colour: only its edges change). */
static void panel(gpuimg_image *img, int x0, int y0, int pw, int ph, int hue)
{
    int flat = hue < 0;
    for (int y = y0; y < y0 + ph; y++)
        for (int x = x0; x < x0 + pw; x++) {
            uint8_t *p = img->data + ((size_t)y * img->width + x) * 3;
            int edge = x == x0 || y == y0 || x == x0 + pw - 1 || y == y0 + ph - 1;
            p[0] = (uint8_t)(edge ? 20 : flat ? 200 : 40 + 7 * (x - x0));
            p[1] = (uint8_t)(edge ? 20 : flat ? 120 : 60 + 9 * (y - y0));
            p[2] = (uint8_t)(edge ? 20 : flat ? -1 - hue : hue);
        }
}

static gpuimg_compare_result run(const gpuimg_image *a, const gpuimg_image *b, int n, double t,
                                 int aa)
{
    gpuimg_compare_options o;
    gpuimg_compare_options_init(&o);
    o.ssim = 0;
    o.max_shift = n;
    o.threshold = t;
    o.antialiasing = aa;
    gpuimg_compare_result r;
    ck_assert_int_eq(gpuimg_compare(ctx, a, b, &o, &r, NULL), GPUIMG_OK);
    return r;
}

START_TEST(moved_panel_passes_at_its_distance)
{
    static const int moves[][2] = {{1, 0}, {0, 1}, {2, 0}, {-2, 1}, {3, -3}, {5, 2}, {0, -8}};
    for (size_t m = 0; m < sizeof moves / sizeof moves[0]; m++) {
        int dx = moves[m][0], dy = moves[m][1];
        int n = abs(dx) > abs(dy) ? abs(dx) : abs(dy);
        gpuimg_image a, b;
        canvas(&a, 80, 60);
        canvas(&b, 80, 60);
        panel(&a, 20, 20, 24, 16, 200);
        panel(&b, 20 + dx, 20 + dy, 24, 16, 200);
        gpuimg_compare_result at = run(&a, &b, n, 0, 0), below = run(&a, &b, n - 1, 0, 0);
        ck_assert_msg(at.differing == 0 && at.shifted > 0 && at.groups_shifted > 0,
                      "moved by (%d,%d): %llu counted at N=%d", dx, dy,
                      (unsigned long long)at.differing, n);
        ck_assert_uint_eq(at.shifted, at.forgiven);
        ck_assert_msg(below.differing > 0, "moved by (%d,%d): passed at N=%d", dx, dy, n - 1);
        gpuimg_image_free(&a);
        gpuimg_image_free(&b);
    }
}
END_TEST

START_TEST(touching_elements_moved_apart_stay_counted)
{
    /* two flat panels side by side, the left one moved 2 left, the right
     * one 2 right: the pixels about the seam form one group that no single
     * displacement explains; the two outer edges are groups that moved.
     * (Textured, each panel would change whole and all be one group.) */
    gpuimg_image a, b;
    canvas(&a, 80, 40);
    canvas(&b, 80, 40);
    panel(&a, 20, 10, 16, 12, -1 - 200);
    panel(&a, 36, 10, 16, 12, -1 - 90);
    panel(&b, 18, 10, 16, 12, -1 - 200);
    panel(&b, 38, 10, 16, 12, -1 - 90);
    for (int n = 2; n <= 8; n++) {
        gpuimg_compare_result r = run(&a, &b, n, 0, 0);
        ck_assert_msg(r.differing > 0, "N=%d: the split was forgiven", n);
        /* the counted box is the seam, x 32..39, not the outer edges */
        ck_assert_int_ge(r.bbox.x, 30);
        ck_assert_int_le(r.bbox.x + r.bbox.width, 40);
        ck_assert_uint_gt(r.shifted, 0);
    }
    gpuimg_image_free(&a);
    gpuimg_image_free(&b);
}
END_TEST

START_TEST(appeared_element_stays_counted)
{
    gpuimg_image a, b;
    canvas(&a, 60, 40);
    canvas(&b, 60, 40);
    panel(&a, 10, 10, 12, 10, 200);
    panel(&b, 10, 10, 12, 10, 200);
    panel(&b, 40, 20, 6, 6, 90); /* new in b */
    for (int n = 1; n <= 8; n++)
        ck_assert_uint_eq(run(&a, &b, n, 0, 0).differing, 36);
    gpuimg_image_free(&a);
    gpuimg_image_free(&b);
}
END_TEST

START_TEST(changed_glyph_fails_at_every_distance)
{
    /* "v1.2.3" and "v1.2.4" in DejaVu Sans (make_golden.py's render_text):
     * every pixel of the 4 matches some pixel of the 3 near it, which the
     * old per-pixel rule forgave; no one displacement explains the group */
    gpuimg_image v3, v4, moved;
    tu_load(ctx, tu_golden("inputs/text_72x24_v123.png"), &v3);
    tu_load(ctx, tu_golden("inputs/text_72x24_v124.png"), &v4);
    tu_load(ctx, tu_golden("inputs/text_72x24_v123_moved.png"), &moved);
    for (int n = 1; n <= 8; n++) {
        ck_assert_msg(run(&v3, &v4, n, 0, 0).differing > 0, "plain rule, N=%d", n);
        ck_assert_msg(run(&v3, &v4, n, 0.1, 1).differing > 0, "threshold 0.1 + AA, N=%d", n);
    }
    /* the same string moved by (2, 1) passes at 2, not at 1 */
    ck_assert_uint_eq(run(&v3, &moved, 2, 0, 0).differing, 0);
    ck_assert_uint_gt(run(&v3, &moved, 1, 0, 0).differing, 0);
    ck_assert_uint_eq(run(&v3, &moved, 2, 0.1, 1).differing, 0);
    gpuimg_image_free(&v3);
    gpuimg_image_free(&v4);
    gpuimg_image_free(&moved);
}
END_TEST

/* The pass skips runs of 16 equal pixels when it paints no picture and
 * ignores nothing: its figures must be those of the pixel-by-pixel pass
 * (which the picture forces), on sparse and dense differences, at 8 and
 * 16 bits, with every rule. */
START_TEST(equal_runs_skipped_change_nothing)
{
    static const char *const pairs[][2] = {
        {"inputs/ui_96x64_rgb.png", "inputs/ui_96x64_rgb_shift1.png"},
        {"inputs/ui_96x64_rgb.png", "inputs/ui_96x64_rgb_vanish.png"},
        {"inputs/text_72x24_v123.png", "inputs/text_72x24_v124.png"},
        {"inputs/photo_257x131_rgb.png", "inputs/photo_257x131_rgb_noisy.png"}};
    for (size_t k = 0; k < sizeof pairs / sizeof pairs[0]; k++)
        for (int depth = 8; depth <= 16; depth += 8)
            for (int rule = 0; rule < 3; rule++) {
                gpuimg_image a, b, a16, b16, pic;
                tu_load(ctx, tu_golden(pairs[k][0]), &a);
                tu_load(ctx, tu_golden(pairs[k][1]), &b);
                if (depth == 16) {
                    ck_assert_int_eq(
                        gpuimg_image_alloc_depth(&a16, a.width, a.height, a.channels, 16),
                        GPUIMG_OK);
                    ck_assert_int_eq(
                        gpuimg_image_alloc_depth(&b16, b.width, b.height, b.channels, 16),
                        GPUIMG_OK);
                    size_t n = (size_t)a.width * a.height * a.channels;
                    for (size_t i = 0; i < n; i++) {
                        ((uint16_t *)a16.data)[i] = (uint16_t)(a.data[i] * 257);
                        ((uint16_t *)b16.data)[i] = (uint16_t)(b.data[i] * 257);
                    }
                    gpuimg_image_free(&a);
                    gpuimg_image_free(&b);
                    a = a16;
                    b = b16;
                }
                gpuimg_compare_options o;
                gpuimg_compare_options_init(&o);
                o.ssim = 0;
                o.threshold = rule == 1 ? 0.1 : 0;
                o.antialiasing = rule == 1;
                o.max_shift = rule == 2 ? 2 : 0;
                gpuimg_compare_result fast, slow;
                ck_assert_int_eq(gpuimg_compare(ctx, &a, &b, &o, &fast, NULL), GPUIMG_OK);
                ck_assert_int_eq(gpuimg_compare(ctx, &a, &b, &o, &slow, &pic), GPUIMG_OK);
                ck_assert_msg(fast.differing == slow.differing && fast.forgiven == slow.forgiven &&
                                  fast.shifted == slow.shifted && fast.max_diff == slow.max_diff &&
                                  fast.mae == slow.mae && fast.rmse == slow.rmse &&
                                  fast.identical == slow.identical &&
                                  memcmp(&fast.bbox, &slow.bbox, sizeof fast.bbox) == 0,
                              "%s depth %d rule %d: %llu vs %llu counted", pairs[k][1], depth, rule,
                              (unsigned long long)fast.differing,
                              (unsigned long long)slow.differing);
                gpuimg_image_free(&pic);
                gpuimg_image_free(&a);
                gpuimg_image_free(&b);
            }
}
END_TEST

Suite *shift_suite(void)
{
    Suite *s = suite_create("shift");
    TCase *tc = tu_tcase("shift");
    tcase_add_checked_fixture(tc, ctx_open, ctx_close);
    tcase_add_test(tc, moved_panel_passes_at_its_distance);
    tcase_add_test(tc, touching_elements_moved_apart_stay_counted);
    tcase_add_test(tc, appeared_element_stays_counted);
    tcase_add_test(tc, changed_glyph_fails_at_every_distance);
    tcase_add_test(tc, equal_runs_skipped_change_nothing);
    suite_add_tcase(s, tc);
    return s;
}
