/* SPDX-License-Identifier: MIT */
/* The border index mapping of SPEC §3, against its examples and against a
 * naive walker that reflects step by step, for offsets far past the image. */
#include <string.h>

#include "cpu/cpu.h"
#include "testutil.h"

static const char *const mode_names[] = {"reflect101", "reflect", "replicate", "wrap", "constant"};

/* SPEC's table for "abcd": the three indices left of 0 and right of 3. */
START_TEST(spec_examples)
{
    static const char *const expect[5] = {"dcb|cba", "cba|dcb", "aaa|ddd", "bcd|abc", "000|000"};
    for (int m = 0; m < 5; m++) {
        char got[8];
        for (int k = 0; k < 3; k++) {
            long l = gpuimg__border_index(k - 3, 4, (gpuimg_border)m);
            long r = gpuimg__border_index(4 + k, 4, (gpuimg_border)m);
            got[k] = l < 0 ? '0' : (char)('a' + l);
            got[4 + k] = r < 0 ? '0' : (char)('a' + r);
        }
        got[3] = '|';
        got[7] = '\0';
        ck_assert_msg(strcmp(got, expect[m]) == 0, "%s: got %s, expected %s", mode_names[m], got,
                      expect[m]);
    }
}
END_TEST

/* Moves i into [0, n) one reflection or wrap at a time. */
static long walk(long i, long n, gpuimg_border mode)
{
    if (mode == GPUIMG_BORDER_CONSTANT)
        return i >= 0 && i < n ? i : -1;
    if (mode == GPUIMG_BORDER_REPLICATE)
        return i < 0 ? 0 : i >= n ? n - 1 : i;
    if (n == 1)
        return 0;
    while (i < 0 || i >= n) {
        if (mode == GPUIMG_BORDER_WRAP)
            i += i < 0 ? n : -n;
        else if (mode == GPUIMG_BORDER_REFLECT)
            i = i < 0 ? -i - 1 : 2 * n - 1 - i;
        else
            i = i < 0 ? -i : 2 * n - 2 - i;
    }
    return i;
}

START_TEST(far_offsets)
{
    for (int m = 0; m < 5; m++)
        for (long n = 1; n <= 9; n++)
            for (long i = -2100; i <= 2100; i++)
                ck_assert_msg(gpuimg__border_index(i, n, (gpuimg_border)m) ==
                                  walk(i, n, (gpuimg_border)m),
                              "%s: index %ld of %ld", mode_names[m], i, n);
}
END_TEST

START_TEST(side_of_one)
{
    for (int m = 0; m < 4; m++)
        for (long i = -1001; i <= 1001; i++)
            ck_assert_int_eq(gpuimg__border_index(i, 1, (gpuimg_border)m), 0);
    ck_assert_int_eq(gpuimg__border_index(-1, 1, GPUIMG_BORDER_CONSTANT), -1);
    ck_assert_int_eq(gpuimg__border_index(0, 1, GPUIMG_BORDER_CONSTANT), 0);
}
END_TEST

Suite *border_suite(void)
{
    Suite *s = suite_create("border");
    TCase *tc = tu_tcase("mapping");
    tcase_add_test(tc, spec_examples);
    tcase_add_test(tc, far_offsets);
    tcase_add_test(tc, side_of_one);
    suite_add_tcase(s, tc);
    return s;
}
