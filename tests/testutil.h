/* SPDX-License-Identifier: MIT */
/* Helpers shared by the Check suites: the backend under test (GPUIMG_BACKEND,
 * default cpu), running one step through the seam with poisoned outputs,
 * image comparison at SPEC's tolerances, goldens, and running the program. */
#ifndef GPUIMG_TESTUTIL_H
#define GPUIMG_TESTUTIL_H

#include <check.h>
#include <stddef.h>

#include "gpuimg.h"

/* A context on the backend under test; the tests' failures abort via Check. */
gpuimg_ctx *tu_ctx(void);
const char *tu_backend_name(void);

/* Runs one step (STEP syntax) through the seam: upload, the op into planes
 * poisoned with `poison`, download. Returns the status; err gets the detail. */
gpuimg_status tu_apply(gpuimg_ctx *ctx, const char *step, const gpuimg_image *in, int poison,
                       gpuimg_image *out, char *err, size_t errlen);

/* Value i (of width * height * channels, packed) of an 8- or 16-bit image. */
int tu_value(const gpuimg_image *img, size_t i);
/* Compares got with want. exact: every byte equal. Otherwise SPEC §4: no
 * value off by more than 1, and at most 0.1% of values off by 1 (1% at 16
 * bits, SPEC §4). Same depth required. Returns 1
 * when they agree; else describes the first mismatch in msg. */
/* Every value of got within most of want, and at most share of them
 * (0..1) differing at all; msg says where not. */
int tu_images_close(const gpuimg_image *got, const gpuimg_image *want, int most, double share,
                    char *msg, size_t len);
int tu_images_agree(const gpuimg_image *got, const gpuimg_image *want, int exact, char *msg,
                    size_t len);

/* A seeded random image, or one filled with a pattern. */
void tu_random_image(gpuimg_image *img, int w, int h, int c, unsigned seed);
/* The same at depth 8 or 16 (every bit of a 16-bit value random). */
void tu_random_image_depth(gpuimg_image *img, int w, int h, int c, int depth, unsigned seed);

/* Path under tests/golden (GPUIMG_GOLDEN), in one of four static buffers
 * used in turn: copy it to keep more than four at once. */
const char *tu_golden(const char *rel);
/* The program under test (GPUIMG_BIN). */
const char *tu_bin(void);
/* Loads an image or fails the test. */
void tu_load(gpuimg_ctx *ctx, const char *path, gpuimg_image *img);

/* Numbers of a JSON value "key": a number, null (NaN) or an array, nested
 * arrays flattened. Returns the count, or -1 when the key is missing. */
int tu_json_numbers(const char *json, const char *key, double *out, int max);
/* Reads a whole file into a NUL-terminated malloc'ed buffer (NULL on failure). */
char *tu_read_file(const char *path, size_t *len);
void tu_write_file(const char *path, const void *data, size_t len);
/* 1 when both files exist with identical bytes. */
int tu_same_file(const char *a, const char *b);
/* PSNR in dB of two 8-bit images of one shape (INFINITY when equal). */
double tu_psnr(const gpuimg_image *a, const gpuimg_image *b);

/* A fresh temporary folder for the current test, under the run's own
 * folder (tu_root_open), which tu_root_remove deletes whole at the end. */
const char *tu_tmpdir(void);
/* The run's temporary folder: made under TMPDIR (or /tmp) before any test,
 * removed with everything in it after the last. */
void tu_root_open(void);
void tu_root_remove(void);
/* A test case with a timeout no loaded machine reaches (10 minutes: the
 * slowest case takes seconds; Check's default of 4 s fails a busy CI). */
TCase *tu_tcase(const char *name);
/* Runs args (NULL-terminated; args[0] a path) with stdin from in_path
 * (NULL: /dev/null); captures stdout and stderr (either may be NULL).
 * Returns the exit code (or 128 + signal). */
int tu_run(const char *const *args, const char *in_path, char **out, char **err);
/* Number of entries in a folder other than . and .. */
int tu_count_entries(const char *dir);

#endif
