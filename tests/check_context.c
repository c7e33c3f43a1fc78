/* SPDX-License-Identifier: MIT */
/* The context: gpuimg_ctx_create refuses a bad configuration and says
 * which field, through gpuimg_ctx_error(NULL), on the thread that asked. */
#include <check.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

static void png_level(gpuimg_config *c)
{
    c->png_level = 12;
}
static void jpeg_quality(gpuimg_config *c)
{
    c->jpeg_quality = 0;
}
static void threads(gpuimg_config *c)
{
    c->threads = -1;
}
static void device(gpuimg_config *c)
{
    c->device = -2;
}
static void depth(gpuimg_config *c)
{
    c->depth = 12;
}
static void backend(gpuimg_config *c)
{
    c->backend = (gpuimg_backend_kind)9;
}
static void codec(gpuimg_config *c)
{
    c->jpeg_codec = (gpuimg_jpeg_codec)7;
}
static void gpu_on_cpu(gpuimg_config *c)
{
    c->backend = GPUIMG_BACKEND_CPU;
    c->jpeg_codec = GPUIMG_JPEG_GPU;
}

static const struct {
    void (*spoil)(gpuimg_config *c);
    const char *says;
} cases[] = {
    {png_level, "png_level 12"}, {jpeg_quality, "jpeg_quality 0"},
    {threads, "threads -1"},     {device, "device -2"},
    {depth, "depth 12"},         {backend, "backend 9"},
    {codec, "jpeg_codec 7"},     {gpu_on_cpu, "CUDA backend"},
};

START_TEST(create_names_the_field)
{
    gpuimg_config c;
    gpuimg_config_init(&c);
    cases[_i].spoil(&c);
    gpuimg_ctx *ctx = (gpuimg_ctx *)&c; /* must be set to NULL */
    ck_assert_int_eq(gpuimg_ctx_create(&c, &ctx), GPUIMG_ERR_USAGE);
    ck_assert_ptr_null(ctx);
    ck_assert_msg(strstr(gpuimg_ctx_error(NULL), cases[_i].says) != NULL, "detail '%s', not '%s'",
                  gpuimg_ctx_error(NULL), cases[_i].says);
}
END_TEST

static void *create_bad(void *arg)
{
    (void)arg;
    gpuimg_config c;
    gpuimg_config_init(&c);
    c.depth = 3;
    gpuimg_ctx *ctx;
    gpuimg_ctx_create(&c, &ctx);
    return NULL;
}

/* Another thread's failure is not this thread's detail. */
START_TEST(detail_is_per_thread)
{
    gpuimg_config c;
    gpuimg_config_init(&c);
    c.png_level = -1;
    gpuimg_ctx *ctx;
    ck_assert_int_eq(gpuimg_ctx_create(&c, &ctx), GPUIMG_ERR_USAGE);
    pthread_t t;
    ck_assert_int_eq(pthread_create(&t, NULL, create_bad, NULL), 0);
    pthread_join(t, NULL);
    ck_assert_msg(strstr(gpuimg_ctx_error(NULL), "png_level -1") != NULL, "detail '%s'",
                  gpuimg_ctx_error(NULL));
    gpuimg_config_init(&c);
    ck_assert_int_eq(gpuimg_ctx_create(&c, &ctx), GPUIMG_OK);
    gpuimg_ctx_destroy(ctx);
}
END_TEST

/* A file that fails before its size is read leaves no expectation behind:
 * the context's next decode neither reaches the caller's (freed) steps nor
 * starts the device for them. --backend cuda starts the device for any
 * size, and in a build without CUDA the opener still runs. */
START_TEST(failed_file_forgets_its_steps)
{
    gpuimg_config c;
    gpuimg_config_init(&c);
    c.backend = GPUIMG_BACKEND_CUDA;
    gpuimg_ctx *ctx;
    ck_assert_int_eq(gpuimg_ctx_create(&c, &ctx), GPUIMG_OK);
    char bad[4096], out[4096];
    const char *dir = tu_tmpdir();
    snprintf(bad, sizeof bad, "%s/cut.png", dir);
    snprintf(out, sizeof out, "%s/out.png", dir);
    static const uint8_t cut[] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n', 0, 0, 0, 13, 'I'};
    tu_write_file(bad, cut, sizeof cut);
    gpuimg_step **steps = calloc(1, sizeof *steps);
    ck_assert_ptr_nonnull(steps);
    ck_assert_int_eq(gpuimg_step_parse(ctx, "blur:sigma=2", &steps[0]), GPUIMG_OK);
    ck_assert_int_eq(gpuimg_process_file(ctx, bad, out, GPUIMG_FORMAT_NONE, steps, 1, NULL),
                     GPUIMG_ERR_DECODE);
    gpuimg_step_free(steps[0]);
    steps[0] = NULL; /* what a stale expectation would now follow */
    free(steps);
    gpuimg_image img;
    ck_assert_int_eq(gpuimg_load(ctx, tu_golden("inputs/camera_64x48_rgb.png"), &img), GPUIMG_OK);
    ck_assert_int_eq(img.width, 64);
    gpuimg_image_free(&img);
    gpuimg_ctx_destroy(ctx);
}
END_TEST

Suite *context_suite(void)
{
    Suite *s = suite_create("context");
    TCase *tc = tcase_create("context");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, create_names_the_field, 0, (int)(sizeof cases / sizeof cases[0]));
    tcase_add_test(tc, detail_is_per_thread);
    tcase_add_test(tc, failed_file_forgets_its_steps);
    suite_add_tcase(s, tc);
    return s;
}
