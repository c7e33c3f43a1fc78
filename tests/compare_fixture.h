/* SPDX-License-Identifier: MIT */
/* The golden and actual folders the compare suites share (check_compare.c). */
#ifndef GPUIMG_TESTS_COMPARE_FIXTURE_H
#define GPUIMG_TESTS_COMPARE_FIXTURE_H

/* dir/rel gets the bytes of the golden-suite file golden (NULL: a file
 * that is no image). */
void cmp_put(const char *dir, const char *rel, const char *golden);
/* exp and act in the test's temporary folder, with a pair of every status:
 * same, shifted (passes with --max-shift 1), sub/recolor, gone (missing),
 * extra (new), size, masked; bad (error) when bad. */
void cmp_test_folders(char exp[512], char act[512], int bad);

#endif
