/* SPDX-License-Identifier: MIT */
/* Exact properties through the backend seam on seeded random images at
 * awkward sizes: geometry identities, histogram and stats against direct
 * counts, equalize and invert rules, filters that must be exact, a table
 * through map_lut. */
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "testutil.h"

static const int sizes[][2] = {{1, 1}, {1, 37}, {37, 1}, {31, 29}, {4097, 7}, {7, 4097}, {64, 64}};
#define NSIZES (int)(sizeof sizes / sizeof sizes[0])

/* Applies a chain of steps, freeing intermediates. */
static void chain(gpuimg_ctx *ctx, const gpuimg_image *in, const char *const *steps, int n,
                  gpuimg_image *out)
{
    gpuimg_image cur = {0};
    const gpuimg_image *src = in;
    for (int i = 0; i < n; i++) {
        gpuimg_image next;
        char err[256];
        ck_assert_msg(tu_apply(ctx, steps[i], src, 0x5A, &next, err, sizeof err) == GPUIMG_OK,
                      "%s: %s", steps[i], err);
        gpuimg_image_free(&cur);
        cur = next;
        src = &cur;
    }
    *out = cur;
}

static void assert_same(const gpuimg_image *a, const gpuimg_image *b, const char *what, int w,
                        int h, int c)
{
    char msg[256];
    ck_assert_msg(tu_images_agree(a, b, 1, msg, sizeof msg), "%s on %dx%dx%d: %s", what, w, h, c,
                  msg);
}

START_TEST(geometry_identities)
{
    gpuimg_ctx *ctx = tu_ctx();
    int w = sizes[_i][0], h = sizes[_i][1];
    for (int c = 1; c <= 4; c++) {
        gpuimg_image in, a, b;
        tu_random_image(&in, w, h, c, (unsigned)(_i * 4 + c));
        static const char *const r90x4[] = {"rotate:angle=90", "rotate:angle=90", "rotate:angle=90",
                                            "rotate:angle=90"};
        chain(ctx, &in, r90x4, 4, &a);
        assert_same(&a, &in, "rotate 90 four times", w, h, c);
        gpuimg_image_free(&a);

        static const char *const r90[] = {"rotate:angle=90"};
        static const char *const tf[] = {"transpose", "flip:axis=h"};
        chain(ctx, &in, r90, 1, &a);
        chain(ctx, &in, tf, 2, &b);
        assert_same(&a, &b, "rotate 90 vs transpose+flip h", w, h, c);
        ck_assert_int_eq(a.width, h);
        gpuimg_image_free(&a);
        gpuimg_image_free(&b);

        static const char *const r180[] = {"rotate:angle=180"};
        static const char *const hv[] = {"flip:axis=h", "flip:axis=v"};
        chain(ctx, &in, r180, 1, &a);
        chain(ctx, &in, hv, 2, &b);
        assert_same(&a, &b, "rotate 180 vs flip h+v", w, h, c);
        gpuimg_image_free(&a);
        gpuimg_image_free(&b);

        static const char *const r270[] = {"rotate:angle=270"};
        static const char *const r90x3[] = {"rotate:angle=90", "rotate:angle=90",
                                            "rotate:angle=90"};
        chain(ctx, &in, r270, 1, &a);
        chain(ctx, &in, r90x3, 3, &b);
        assert_same(&a, &b, "rotate 270 vs 3 x rotate 90", w, h, c);
        gpuimg_image_free(&a);
        gpuimg_image_free(&b);

        static const char *const tt[] = {"transpose", "transpose"};
        static const char *const vv[] = {"flip:axis=v", "flip:axis=v"};
        static const char *const ii[] = {"invert", "invert"};
        chain(ctx, &in, tt, 2, &a);
        assert_same(&a, &in, "transpose twice", w, h, c);
        gpuimg_image_free(&a);
        chain(ctx, &in, vv, 2, &a);
        assert_same(&a, &in, "flip v twice", w, h, c);
        gpuimg_image_free(&a);
        chain(ctx, &in, ii, 2, &a);
        assert_same(&a, &in, "invert twice", w, h, c);
        gpuimg_image_free(&a);

        /* transpose: out(y, x) = in(x, y), checked pixel by pixel */
        static const char *const t[] = {"transpose"};
        chain(ctx, &in, t, 1, &a);
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++)
                for (int k = 0; k < c; k++)
                    ck_assert_int_eq(a.data[((size_t)x * h + y) * c + k],
                                     in.data[((size_t)y * w + x) * c + k]);
        gpuimg_image_free(&a);
        gpuimg_image_free(&in);
    }
    gpuimg_ctx_destroy(ctx);
}
END_TEST

START_TEST(histogram_and_stats_exact)
{
    gpuimg_ctx *ctx = tu_ctx();
    int w = sizes[_i][0], h = sizes[_i][1];
    uint64_t *counts = malloc(65536 * sizeof *counts);
    ck_assert_ptr_nonnull(counts);
    for (int depth = 8; depth <= 16; depth += 8)
        for (int c = 1; c <= 4; c++) {
            gpuimg_image in;
            tu_random_image_depth(&in, w, h, c, depth, (unsigned)(100 + _i * 4 + c));
            gpuimg_histogram hist;
            gpuimg_stats st;
            ck_assert_int_eq(gpuimg_histogram_compute(ctx, &in, &hist), GPUIMG_OK);
            ck_assert_int_eq(gpuimg_stats_compute(ctx, &in, &st), GPUIMG_OK);
            ck_assert_int_eq(hist.bins, 1 << depth);
            ck_assert_int_eq(st.depth, depth);
            size_t n = (size_t)w * h, values = (size_t)1 << depth;
            for (int k = 0; k < c; k++) {
                uint64_t sum = 0, sq = 0;
                int lo = (int)values - 1, hi = 0;
                memset(counts, 0, values * sizeof *counts);
                for (size_t i = 0; i < n; i++) {
                    int v = tu_value(&in, i * c + k);
                    counts[v]++;
                    sum += (uint64_t)v;
                    sq += (uint64_t)v * (uint64_t)v;
                    lo = v < lo ? v : lo;
                    hi = v > hi ? v : hi;
                }
                ck_assert_mem_eq(hist.counts[k], counts, values * sizeof *counts);
                ck_assert_uint_eq(st.sum[k], sum);
                ck_assert_uint_eq(st.sum_squares[k], sq);
                ck_assert_int_eq(st.min[k], lo);
                ck_assert_int_eq(st.max[k], hi);
                uint64_t cdf = 0, half = (n + 1) / 2;
                int median = 0;
                while ((cdf += counts[median]) < half)
                    median++;
                ck_assert_int_eq(st.median[k], median);
            }
            gpuimg_histogram_free(&hist);
            gpuimg_image_free(&in);
        }
    free(counts);
    gpuimg_ctx_destroy(ctx);
}
END_TEST

/* One value everywhere: histogram in one bin, equalize unchanged, every
 * mapping-mode filter returns the value itself, sobel returns 0. */
START_TEST(uniform_image)
{
    gpuimg_ctx *ctx = tu_ctx();
    int w = sizes[_i][0], h = sizes[_i][1];
    gpuimg_image in;
    ck_assert_int_eq(gpuimg_image_alloc(&in, w, h, 3), GPUIMG_OK);
    memset(in.data, 77, (size_t)w * h * 3);
    static const char *const same[] = {"equalize",
                                       "blur:sigma=3",
                                       "blur:radius=1000,border=wrap",
                                       "box:radius=5",
                                       "box:radius=999,border=reflect",
                                       "convolve:kernel=gaussian5",
                                       "blur:sigma=1,border=replicate",
                                       "convolve:kernel=identity,border=constant"};
    for (size_t k = 0; k < sizeof same / sizeof same[0]; k++) {
        gpuimg_image out;
        chain(ctx, &in, &same[k], 1, &out);
        assert_same(&out, &in, same[k], w, h, 3);
        gpuimg_image_free(&out);
    }
    gpuimg_image out;
    static const char *const sobel[] = {"sobel"};
    chain(ctx, &in, sobel, 1, &out);
    for (size_t i = 0; i < (size_t)w * h * 3; i++)
        ck_assert_int_eq(out.data[i], 0);
    gpuimg_image_free(&out);
    gpuimg_image_free(&in);
    gpuimg_ctx_destroy(ctx);
}
END_TEST

START_TEST(equalize_rules)
{
    gpuimg_ctx *ctx = tu_ctx();
    int w = sizes[_i][0], h = sizes[_i][1];
    gpuimg_image in, out;
    tu_random_image(&in, w, h, 4, (unsigned)(200 + _i));
    for (size_t i = 0; i < (size_t)w * h * 4; i += 4)
        in.data[i] /= 4; /* a narrow channel, so equalize has work to do */
    static const char *const eq[] = {"equalize"};
    chain(ctx, &in, eq, 1, &out);
    size_t n = (size_t)w * h;
    for (int k = 0; k < 3; k++) {
        int map[256];
        memset(map, -1, sizeof map);
        int top = 0;
        for (size_t i = 0; i < n; i++) {
            int v = in.data[i * 4 + k], o = out.data[i * 4 + k];
            ck_assert_msg(map[v] < 0 || map[v] == o, "equalize is not a function of the value");
            map[v] = o;
            top = v > top ? v : top;
        }
        int last = -1, distinct = 0;
        for (int v = 0; v < 256; v++)
            if (map[v] >= 0) {
                ck_assert_int_ge(map[v], last); /* monotone */
                last = map[v];
                distinct++;
            }
        if (distinct > 1)
            ck_assert_int_eq(map[top], 255);
    }
    for (size_t i = 0; i < n; i++)
        ck_assert_int_eq(out.data[i * 4 + 3], in.data[i * 4 + 3]); /* alpha untouched */
    gpuimg_image_free(&in);
    gpuimg_image_free(&out);
    gpuimg_ctx_destroy(ctx);
}
END_TEST

/* The table seam (map_lut) on 1 to 4 planes at both depths: every value
 * becomes its entry in a table that scrambles values (no entry equal to
 * its index, neighbours far apart), so a wrong index, plane or depth, or a
 * value the backend never writes (dst poisoned), shows. */
START_TEST(map_lut_table)
{
    gpuimg_ctx *ctx = tu_ctx();
    gpuimg_backend *be;
    ck_assert_int_eq(gpuimg__backend(ctx, &be), GPUIMG_OK);
    int w = sizes[_i][0], h = sizes[_i][1];
    static uint8_t lut8[256];
    static uint16_t lut16[65536];
    for (uint32_t v = 0; v < 256; v++)
        lut8[v] = (uint8_t)(v * 167 + 13);
    for (uint32_t v = 0; v < 65536; v++)
        lut16[v] = (uint16_t)(v * 40503 + 4097);
    for (int depth = 8; depth <= 16; depth += 8)
        for (int c = 1; c <= 4; c++) {
            gpuimg_image in, out;
            gpuimg_planes src, dst;
            tu_random_image_depth(&in, w, h, c, depth, (unsigned)(300 + 8 * _i + c));
            ck_assert_int_eq(gpuimg__upload(ctx, be, &in, &src), GPUIMG_OK);
            ck_assert_int_eq(be->ops->planes_alloc(be, &dst, w, h, c, depth), GPUIMG_OK);
            ck_assert_int_eq(be->ops->planes_fill(be, &dst, 0xA5), GPUIMG_OK);
            ck_assert_int_eq(be->ops->map_lut(be, &src, &dst, lut8, lut16), GPUIMG_OK);
            ck_assert_int_eq(gpuimg_image_alloc_depth(&out, w, h, c, depth), GPUIMG_OK);
            ck_assert_int_eq(be->ops->download(be, &dst, &out), GPUIMG_OK);
            for (size_t i = 0; i < (size_t)w * h * c; i++) {
                int v = tu_value(&in, i), want = depth == 16 ? lut16[v] : lut8[v];
                ck_assert_msg(tu_value(&out, i) == want,
                              "map_lut %dx%dx%d at %d bits: value %zu is %d, table[%d] = %d", w, h,
                              c, depth, i, tu_value(&out, i), v, want);
            }
            be->ops->planes_free(be, &dst);
            be->ops->planes_free(be, &src);
            gpuimg_image_free(&out);
            gpuimg_image_free(&in);
        }
    gpuimg_ctx_destroy(ctx);
}
END_TEST

Suite *properties_suite(void)
{
    Suite *s = suite_create("properties");
    TCase *tc = tu_tcase("sizes");
    tcase_add_loop_test(tc, geometry_identities, 0, NSIZES);
    tcase_add_loop_test(tc, histogram_and_stats_exact, 0, NSIZES);
    tcase_add_loop_test(tc, uniform_image, 0, NSIZES);
    tcase_add_loop_test(tc, equalize_rules, 0, NSIZES);
    tcase_add_loop_test(tc, map_lut_table, 0, NSIZES);
    suite_add_tcase(s, tc);
    return s;
}
