/* SPDX-License-Identifier: MIT */
/* BMP and GIF, read by io/bmp.c and io/gif.c (SPEC §2): the kinds of BMP
 * that BMP Suite calls good decode to the pixels tests/bmp/make_bmps.py
 * chose for them, with the channels `gpuimg info` reports; damaged BMPs and
 * GIFs (data that ends early, runs past the image, headers that lie) are
 * refused with exit 3 and leave no output; no cut of a good file decodes
 * to pixels other than the whole file's. The files and their expected
 * pixels are committed beside the generator (tests/bmp/cases.tsv lists
 * them), so running these tests needs no Python. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

/* tests/bmp/NAME: the data sits beside tests/golden (GPUIMG_GOLDEN). */
static const char *data_path(const char *name)
{
    static char buf[2][4096];
    static int slot;
    char rel[512];
    snprintf(rel, sizeof rel, "../bmp/%s", name);
    char *out = buf[slot++ % 2];
    snprintf(out, sizeof buf[0], "%s", tu_golden(rel));
    return out;
}

struct bmp_case {
    char kind[8], file[128], third[256];
    int channels;
};

/* The rows of cases.tsv: "good FILE EXPECTED CHANNELS" or "bad FILE
 * NEEDLE", tab-separated. */
static int read_cases(struct bmp_case *cases, int max)
{
    char *text = tu_read_file(data_path("cases.tsv"), NULL);
    ck_assert_msg(text != NULL, "cannot read %s", data_path("cases.tsv"));
    int n = 0;
    char *save = NULL;
    for (char *line = strtok_r(text, "\n", &save); line && n < max;
         line = strtok_r(NULL, "\n", &save)) {
        if (line[0] == '#')
            continue;
        struct bmp_case *c = &cases[n];
        memset(c, 0, sizeof *c);
        char *f[4] = {NULL, NULL, NULL, NULL}, *fs = NULL;
        int k = 0;
        for (char *t = strtok_r(line, "\t", &fs); t && k < 4; t = strtok_r(NULL, "\t", &fs))
            f[k++] = t;
        ck_assert_msg(k >= 3, "cases.tsv: short row");
        snprintf(c->kind, sizeof c->kind, "%s", f[0]);
        snprintf(c->file, sizeof c->file, "%s", f[1]);
        snprintf(c->third, sizeof c->third, "%s", f[2]);
        c->channels = f[3] ? atoi(f[3]) : 0;
        n++;
    }
    free(text);
    return n;
}

#define MAX_CASES 128

static void assert_same_pixels(const gpuimg_image *got, const gpuimg_image *want, const char *what)
{
    ck_assert_msg(got->width == want->width && got->height == want->height,
                  "%s: %dx%d, expected %dx%d", what, got->width, got->height, want->width,
                  want->height);
    ck_assert_msg(got->channels == want->channels, "%s: %d channels, expected %d", what,
                  got->channels, want->channels);
    char msg[256];
    ck_assert_msg(tu_images_agree(got, want, 1, msg, sizeof msg), "%s: %s", what, msg);
}

/* Every good file: its pixels, its channels, and gpuimg_probe's account of
 * it, which must match what the decoder gives. */
START_TEST(good_files_decode_exactly)
{
    static struct bmp_case cases[MAX_CASES];
    int n = read_cases(cases, MAX_CASES), good = 0;
    gpuimg_ctx *ctx = tu_ctx();
    for (int i = 0; i < n; i++) {
        if (strcmp(cases[i].kind, "good") != 0)
            continue;
        gpuimg_image got, want;
        tu_load(ctx, data_path(cases[i].file), &got);
        tu_load(ctx, data_path(cases[i].third), &want);
        ck_assert_msg(got.channels == cases[i].channels, "%s: %d channels, expected %d",
                      cases[i].file, got.channels, cases[i].channels);
        assert_same_pixels(&got, &want, cases[i].file);
        gpuimg_file_info info;
        ck_assert_msg(gpuimg_probe(ctx, data_path(cases[i].file), &info) == GPUIMG_OK, "%s: %s",
                      cases[i].file, gpuimg_ctx_error(ctx));
        ck_assert_msg(info.width == got.width && info.height == got.height &&
                          info.channels == got.channels && info.depth == 8,
                      "%s: probe says %dx%d, %d channels; decoder %dx%d, %d", cases[i].file,
                      info.width, info.height, info.channels, got.width, got.height, got.channels);
        gpuimg_image_free(&got);
        gpuimg_image_free(&want);
        good++;
    }
    ck_assert_int_ge(good, 30);
    gpuimg_ctx_destroy(ctx);
}
END_TEST

/* The issue's own cases, by name: a plain 32-bit BMP's fourth byte is
 * padding (0x7f throughout, or BMP Suite's "fake alpha"), never alpha; an
 * alpha mask makes RGBA. */
START_TEST(padding_byte_is_not_alpha)
{
    gpuimg_ctx *ctx = tu_ctx();
    static const struct {
        const char *file;
        int channels;
    } want[] = {{"rgb32.bmp", 3},
                {"rgb32_fakealpha.bmp", 3},
                {"rgb32_v5_topdown.bmp", 3},
                {"rgba32_v4.bmp", 4},
                {"rgba32_abf.bmp", 4},
                {"rgba32_zeroalpha.bmp", 4},
                {"gif_clear.gif", 4},
                {"pal8.bmp", 3},
                {"rle4.bmp", 3}};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        gpuimg_image img;
        tu_load(ctx, data_path(want[i].file), &img);
        ck_assert_msg(img.channels == want[i].channels, "%s: %d channels", want[i].file,
                      img.channels);
        if (strcmp(want[i].file, "rgba32_zeroalpha.bmp") == 0) /* an alpha no pixel uses */
            for (size_t p = 0; p < (size_t)img.width * img.height; p++)
                ck_assert_int_eq(img.data[4 * p + 3], 255);
        gpuimg_image_free(&img);
    }
    gpuimg_ctx_destroy(ctx);
}
END_TEST

/* Every damaged file through the program: exit 3, the reason on stderr,
 * no output file. */
START_TEST(damaged_files_refused)
{
    static struct bmp_case cases[MAX_CASES];
    int n = read_cases(cases, MAX_CASES), bad = 0;
    const char *dir = tu_tmpdir();
    char out[512];
    snprintf(out, sizeof out, "%s/out.png", dir);
    for (int i = 0; i < n; i++) {
        if (strcmp(cases[i].kind, "bad") != 0)
            continue;
        char in[4096];
        snprintf(in, sizeof in, "%s", data_path(cases[i].file));
        const char *args[] = {tu_bin(), "run", in, out, "--backend", "cpu", NULL};
        char *err = NULL;
        int rc = tu_run(args, NULL, NULL, &err);
        ck_assert_msg(rc == 3, "%s: exit %d (%s)", cases[i].file, rc, err ? err : "");
        ck_assert_msg(err && strstr(err, cases[i].third), "%s: '%s' lacks '%s'", cases[i].file,
                      err ? err : "", cases[i].third);
        ck_assert_msg(strchr(err, '\n') == strrchr(err, '\n'), "%s: more than one line: %s",
                      cases[i].file, err);
        free(err);
        ck_assert_msg(tu_count_entries(dir) == 0, "%s: left a file behind", cases[i].file);
        bad++;
    }
    ck_assert_int_ge(bad, 30);
}
END_TEST

/* The same files through the library: refused, nothing handed back. */
START_TEST(damaged_files_refused_in_library)
{
    static struct bmp_case cases[MAX_CASES];
    int n = read_cases(cases, MAX_CASES);
    gpuimg_ctx *ctx = tu_ctx();
    for (int i = 0; i < n; i++) {
        if (strcmp(cases[i].kind, "bad") != 0)
            continue;
        size_t len;
        char *data = tu_read_file(data_path(cases[i].file), &len);
        ck_assert_ptr_nonnull(data);
        gpuimg_image img;
        gpuimg_status st = gpuimg_load_memory(ctx, data, len, cases[i].file, &img);
        ck_assert_msg(st == GPUIMG_ERR_DECODE || st == GPUIMG_ERR_TOO_LARGE, "%s: %s",
                      cases[i].file, gpuimg_strerror(st));
        ck_assert_ptr_null(img.data);
        free(data);
    }
    gpuimg_ctx_destroy(ctx);
}
END_TEST

/* Every cut of a good file (up to 600 bytes off its end) either is refused
 * or, where only what follows the pixels went (a GIF's trailer, an RLE
 * stream's end-of-bitmap after its last row), decodes to exactly the whole
 * file's pixels: never a made-up row. */
START_TEST(cuts_never_make_up_pixels)
{
    static struct bmp_case cases[MAX_CASES];
    int n = read_cases(cases, MAX_CASES);
    gpuimg_ctx *ctx = tu_ctx();
    for (int i = 0; i < n; i++) {
        if (strcmp(cases[i].kind, "good") != 0)
            continue;
        size_t len;
        char *data = tu_read_file(data_path(cases[i].file), &len);
        ck_assert_ptr_nonnull(data);
        gpuimg_image full;
        ck_assert_int_eq(gpuimg_load_memory(ctx, data, len, cases[i].file, &full), GPUIMG_OK);
        for (size_t cut = 1; cut <= 600 && cut < len; cut++) {
            gpuimg_image img;
            if (gpuimg_load_memory(ctx, data, len - cut, cases[i].file, &img) != GPUIMG_OK) {
                ck_assert_ptr_null(img.data);
                continue;
            }
            char what[256];
            snprintf(what, sizeof what, "%s cut by %zu bytes", cases[i].file, cut);
            assert_same_pixels(&img, &full, what);
            gpuimg_image_free(&img);
        }
        gpuimg_image_free(&full);
        free(data);
    }
    gpuimg_ctx_destroy(ctx);
}
END_TEST

/* --max-pixels is applied before a BMP's or a GIF's pixels are decoded. */
START_TEST(max_pixels_before_decoding)
{
    const char *dir = tu_tmpdir();
    char out[512];
    snprintf(out, sizeof out, "%s/out.png", dir);
    static const char *const files[] = {"rgb24.bmp", "rle8.bmp", "gif_clear.gif"};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        char in[4096];
        snprintf(in, sizeof in, "%s", data_path(files[i]));
        const char *args[] = {tu_bin(), "run",       in,    out, "--max-pixels",
                              "50",     "--backend", "cpu", NULL};
        char *err = NULL;
        ck_assert_int_eq(tu_run(args, NULL, NULL, &err), 3);
        ck_assert_msg(err && strstr(err, "max-pixels"), "%s: %s", files[i], err ? err : "");
        free(err);
        ck_assert_int_eq(tu_count_entries(dir), 0);
    }
}
END_TEST

Suite *bmp_gif_suite(void)
{
    Suite *s = suite_create("bmp_gif");
    TCase *tc = tu_tcase("bmp_gif");
    tcase_add_test(tc, good_files_decode_exactly);
    tcase_add_test(tc, padding_byte_is_not_alpha);
    tcase_add_test(tc, damaged_files_refused);
    tcase_add_test(tc, damaged_files_refused_in_library);
    tcase_add_test(tc, cuts_never_make_up_pixels);
    tcase_add_test(tc, max_pixels_before_decoding);
    suite_add_tcase(s, tc);
    return s;
}
