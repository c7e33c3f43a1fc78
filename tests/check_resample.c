/* SPDX-License-Identifier: MIT */
/* A resize axis's weight table (src/ops/resample.c) against SPEC §3 read
 * directly: each output sample computed from a random signal by the
 * formula itself (every index of the kernel's window, edges replicated,
 * normalized in double) must equal the table applied to it; area and
 * nearest by their footprints. Sizes: 1, 1 -> N, N -> 1, primes, 2x and
 * 3.7x down, 1.5x and 4x up, equal. */
#include <check.h>
#include <math.h>
#include <stdlib.h>

#include "ops/resample.h"
#include "testutil.h"

static const struct {
    int n, m;
} sizes[] = {{1, 1},   {1, 7},   {7, 1},    {13, 13}, {31, 29}, {29, 31},
             {64, 32}, {37, 10}, {100, 27}, {20, 30}, {11, 44}, {640, 173}};

static const char *const names[] = {"lanczos3", "cubic", "linear", "area", "nearest"};

static double sinc(double t)
{
    return t == 0.0 ? 1.0 : sin(3.14159265358979323846 * t) / (3.14159265358979323846 * t);
}

/* SPEC §3's K, R for a kernel filter (area up is linear). */
static double spec_kernel(int filter, double t, double *r)
{
    double a = fabs(t);
    if (filter == GPUIMG__FILTER_LANCZOS3) {
        *r = 3;
        return a < 3 ? sinc(t) * sinc(t / 3) : 0;
    }
    if (filter == GPUIMG__FILTER_CUBIC) {
        *r = 2;
        double A = -0.5;
        return a < 1   ? (A + 2) * a * a * a - (A + 3) * a * a + 1
               : a < 2 ? A * a * a * a - 5 * A * a * a + 8 * A * a - 4 * A
                       : 0;
    }
    *r = 1;
    return a < 1 ? 1 - a : 0;
}

/* Output x of signal v (n samples) by the formula itself. */
static double spec_sample(int filter, const double *v, int n, int m, int x)
{
    double f = (double)m / n;
    if (filter == GPUIMG__FILTER_NEAREST) {
        int i = (int)floor((x + 0.5) / f);
        return v[i < n - 1 ? i : n - 1];
    }
    if (filter == GPUIMG__FILTER_AREA && m <= n) {
        double a = x / f, b = (x + 1) / f, sum = 0;
        for (int i = 0; i < n; i++) {
            double lo = fmax(a, i), hi = fmin(b, i + 1);
            if (hi > lo)
                sum += (hi - lo) * v[i];
        }
        return sum / (b - a);
    }
    double c = (x + 0.5) / f - 0.5, s = fmax(1, 1 / f), r, num = 0, den = 0;
    spec_kernel(filter, 0, &r);
    for (int i = (int)floor(c - r * s) - 1; i <= (int)ceil(c + r * s) + 1; i++) {
        if (!(fabs(i - c) < r * s))
            continue;
        double k = spec_kernel(filter, (i - c) / s, &r);
        num += k * v[i < 0 ? 0 : i >= n ? n - 1 : i];
        den += k;
    }
    return num / den;
}

START_TEST(table_is_the_formula)
{
    int filter = _i / (int)(sizeof sizes / sizeof sizes[0]);
    int n = sizes[_i % (int)(sizeof sizes / sizeof sizes[0])].n;
    int m = sizes[_i % (int)(sizeof sizes / sizeof sizes[0])].m;
    gpuimg__axis a;
    ck_assert_int_eq(gpuimg__axis_make(n, m, (gpuimg__filter)filter, &a), GPUIMG_OK);
    ck_assert_int_eq(a.n, n);
    ck_assert_int_eq(a.m, m);
    double *v = malloc((size_t)n * sizeof *v);
    ck_assert_ptr_nonnull(v);
    srand(17u + (unsigned)_i);
    for (int i = 0; i < n; i++)
        v[i] = rand() % 256;
    for (int x = 0; x < m; x++) {
        ck_assert_msg(a.first[x] >= 0 && a.first[x] < n, "x %d: window at %d", x, a.first[x]);
        double got = 0, sum = 0;
        for (int k = 0; k < a.taps; k++) {
            float w = a.weights[(size_t)x * a.taps + k];
            if (w != 0.0f)
                ck_assert_msg(a.first[x] + k < n, "%s %d->%d: x %d reads past the input",
                              names[filter], n, m, x);
            if (a.first[x] + k < n)
                got += w * v[a.first[x] + k];
            sum += w;
        }
        double want = spec_sample(filter, v, n, m, x);
        ck_assert_msg(fabs(got - want) < 1e-3, "%s %d->%d: x %d: table %.6f, formula %.6f",
                      names[filter], n, m, x, got, want);
        ck_assert_msg(fabs(sum - 1) < 1e-5, "%s %d->%d: x %d: weights sum %.8f", names[filter], n,
                      m, x, sum);
    }
    free(v);
    gpuimg__axis_free(&a);
}
END_TEST

/* Exact cases: equal sizes copy, nearest copies, area halves in pairs. */
START_TEST(exact_cases)
{
    for (int filter = 0; filter < 5; filter++) {
        gpuimg__axis a;
        ck_assert_int_eq(gpuimg__axis_make(17, 17, (gpuimg__filter)filter, &a), GPUIMG_OK);
        for (int x = 0; x < 17; x++)
            for (int k = 0; k < a.taps; k++)
                ck_assert(a.weights[x * a.taps + k] ==
                          (a.first[x] + k == x ? 1.0f : 0.0f)); /* K(0) = 1, K(j) = 0 */
        gpuimg__axis_free(&a);
    }
    gpuimg__axis a;
    ck_assert_int_eq(gpuimg__axis_make(10, 4, GPUIMG__FILTER_NEAREST, &a), GPUIMG_OK);
    ck_assert_int_eq(a.taps, 1);
    static const int nearest[4] = {1, 3, 6, 8}; /* floor((x + 0.5) * 2.5) */
    for (int x = 0; x < 4; x++)
        ck_assert_int_eq(a.first[x], nearest[x]);
    gpuimg__axis_free(&a);
    ck_assert_int_eq(gpuimg__axis_make(8, 4, GPUIMG__FILTER_AREA, &a), GPUIMG_OK);
    ck_assert_int_eq(a.taps, 2);
    for (int x = 0; x < 4; x++) {
        ck_assert_int_eq(a.first[x], 2 * x);
        ck_assert(a.weights[2 * x] == 0.5f && a.weights[2 * x + 1] == 0.5f);
    }
    gpuimg__axis_free(&a);
}
END_TEST

Suite *resample_suite(void)
{
    Suite *s = suite_create("resample");
    TCase *tc = tcase_create("resample");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, table_is_the_formula, 0, 5 * (int)(sizeof sizes / sizeof sizes[0]));
    tcase_add_test(tc, exact_cases);
    suite_add_tcase(s, tc);
    return s;
}
