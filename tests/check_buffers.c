/* SPDX-License-Identifier: MIT */
/* Host images: the reusable, pinned host buffers (host_buffers.h, driven
 * through a counting stand-in for a backend's pinning) and images with a
 * row stride of their own, which every entry point takes as the packed
 * image they show. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/host_buffers.h"
#include "testutil.h"

static int registered, unregistered;

static gpuimg_status count_register(void *p, size_t n)
{
    (void)p;
    ck_assert_uint_gt(n, 0);
    registered++;
    return GPUIMG_OK;
}

static void count_unregister(void *p)
{
    (void)p;
    unregistered++;
}

static const gpuimg_backend_ops pinning = {
    .name = "pinning", .host_register = count_register, .host_unregister = count_unregister};

static void reset_counts(void)
{
    registered = unregistered = 0;
}

/* A set that pins with the counting stand-in, the counts at zero. */
static gpuimg_host_buffers *pinning_set(void)
{
    reset_counts();
    gpuimg_host_buffers *hb = gpuimg__host_buffers_create();
    ck_assert_ptr_nonnull(hb);
    gpuimg__host_buffers_pin_with(hb, &pinning);
    return hb;
}

START_TEST(reused_and_pinned_once)
{
    reset_counts();
    gpuimg_host_buffers *hb = gpuimg__host_buffers_create();
    ck_assert_ptr_nonnull(hb);
    struct gpuimg_buffer *a = gpuimg__buffer_take(hb, 100000);
    ck_assert_ptr_nonnull(a);
    uint8_t *data = gpuimg__buffer_data(a);
    memset(data, 7, 100000);                                 /* all of it is there to write */
    ck_assert_int_eq(registered, 0);                         /* nothing pins yet */
    gpuimg__host_buffers_pin_with(hb, &gpuimg__cpu_backend); /* the CPU pins nothing */
    gpuimg__buffer_pin(a);
    ck_assert_int_eq(registered, 0);
    gpuimg__buffer_give(a);

    gpuimg__host_buffers_pin_with(hb, &pinning);
    a = gpuimg__buffer_take(hb, 100000);
    ck_assert_ptr_eq(gpuimg__buffer_data(a), data); /* the same memory, again */
    ck_assert_int_eq(registered, 1);                /* pinned when reused */
    gpuimg__buffer_pin(a);
    ck_assert_int_eq(registered, 1); /* once */
    struct gpuimg_buffer *b = gpuimg__buffer_take(hb, 100000);
    ck_assert_ptr_ne(gpuimg__buffer_data(b), data); /* a is out: a new one, pinned as made */
    ck_assert_int_eq(registered, 2);
    gpuimg__buffer_give(a);
    gpuimg__buffer_give(b);
    /* a size no idle buffer fits (over a quarter smaller) is a new buffer */
    struct gpuimg_buffer *c = gpuimg__buffer_take(hb, 50000);
    ck_assert_ptr_ne(gpuimg__buffer_data(c), data);
    ck_assert_int_eq(registered, 3);
    gpuimg__buffer_give(c);
    ck_assert_int_eq(unregistered, 0); /* all idle, all kept */
    gpuimg__host_buffers_release(hb);
    ck_assert_int_eq(unregistered, 3);
}
END_TEST

START_TEST(idle_buffers_are_capped)
{
    gpuimg_host_buffers *hb = pinning_set();
    struct gpuimg_buffer *held[12];
    for (int i = 0; i < 12; i++) /* sizes apart, so that none fits another's take */
        ck_assert_ptr_nonnull(held[i] = gpuimg__buffer_take(hb, (size_t)(i + 1) * 40000));
    ck_assert_int_eq(registered, 12);
    for (int i = 0; i < 12; i++)
        gpuimg__buffer_give(held[i]);
    ck_assert_int_eq(unregistered, 4); /* eight stay idle, the oldest went */
    /* the newest given back is still there */
    struct gpuimg_buffer *again = gpuimg__buffer_take(hb, 12 * 40000);
    ck_assert_int_eq(registered, 12);
    gpuimg__buffer_give(again);
    gpuimg__host_buffers_release(hb);
    ck_assert_int_eq(unregistered, 12);
}
END_TEST

START_TEST(buffer_outlives_its_set)
{
    gpuimg_host_buffers *hb = pinning_set();
    struct gpuimg_buffer *a = gpuimg__buffer_take(hb, 5000);
    memset(gpuimg__buffer_data(a), 1, 5000);
    gpuimg__host_buffers_release(hb);
    ck_assert_int_eq(unregistered, 0); /* still held */
    memset(gpuimg__buffer_data(a), 2, 5000);
    gpuimg__buffer_give(a); /* frees it, and the set with it (valgrind: no leak) */
    ck_assert_int_eq(unregistered, 1);
}
END_TEST

START_TEST(prepared_buffer_pinned_elsewhere)
{
    gpuimg_host_buffers *hb = pinning_set();
    struct gpuimg_buffer *p = gpuimg__buffer_prepare(hb, 300000);
    ck_assert_ptr_nonnull(p);
    /* the decoder's take finds it while the opener still pins it: no second pin */
    struct gpuimg_buffer *a = gpuimg__buffer_take(hb, 300000);
    ck_assert_ptr_eq(a, p);
    gpuimg__buffer_pin(a);
    ck_assert_int_eq(registered, 0);
    memset(gpuimg__buffer_data(a), 3, 300000);
    gpuimg__buffer_pin_now(p, &pinning);
    ck_assert_int_eq(registered, 1);
    gpuimg__buffer_give(a);
    /* a device that failed to open leaves its buffer pageable, usable */
    struct gpuimg_buffer *q = gpuimg__buffer_prepare(hb, 800000);
    gpuimg__buffer_pin_now(q, NULL);
    ck_assert_int_eq(registered, 1);
    gpuimg__host_buffers_release(hb);
    ck_assert_int_eq(unregistered, 1);
}
END_TEST

/* A copy of img with rows of stride bytes, the padding filled with noise. */
static void strided_copy(const gpuimg_image *img, size_t stride, gpuimg_image *out)
{
    size_t row = (size_t)img->width * (size_t)img->channels;
    *out = *img;
    out->stride = stride;
    out->data = malloc(stride * (size_t)img->height);
    ck_assert_ptr_nonnull(out->data);
    for (size_t i = 0; i < stride * (size_t)img->height; i++)
        out->data[i] = (uint8_t)(i * 97 + 13);
    for (int y = 0; y < img->height; y++)
        memcpy(out->data + (size_t)y * stride, img->data + (size_t)y * row, row);
}

START_TEST(strided_images_read_as_packed)
{
    gpuimg_ctx *ctx = tu_ctx();
    gpuimg_image packed, strided;
    tu_random_image(&packed, 67, 23, 3, 5);
    ck_assert_uint_eq(packed.stride, 67 * 3);
    strided_copy(&packed, 67 * 3 + 29, &strided);

    gpuimg_step *step;
    ck_assert_int_eq(gpuimg_step_parse(ctx, "blur:sigma=1.5", &step), GPUIMG_OK);
    gpuimg_image a, b;
    ck_assert_int_eq(gpuimg_run(ctx, &packed, &step, 1, &a), GPUIMG_OK);
    ck_assert_int_eq(gpuimg_run(ctx, &strided, &step, 1, &b), GPUIMG_OK);
    ck_assert_uint_eq(b.stride, 67 * 3); /* outputs are packed */
    ck_assert_mem_eq(a.data, b.data, 67 * 23 * 3);
    gpuimg_image_free(&a);
    gpuimg_image_free(&b);
    gpuimg_step_free(step);

    gpuimg_compare_result r;
    ck_assert_int_eq(gpuimg_compare(ctx, &strided, &packed, NULL, &r, NULL), GPUIMG_OK);
    ck_assert_int_eq(r.identical, 1);
    gpuimg_histogram hp, hs;
    ck_assert_int_eq(gpuimg_histogram_compute(ctx, &packed, &hp), GPUIMG_OK);
    ck_assert_int_eq(gpuimg_histogram_compute(ctx, &strided, &hs), GPUIMG_OK);
    ck_assert_int_eq(hp.bins, 256);
    ck_assert_int_eq(hs.bins, 256);
    for (int c = 0; c < 3; c++)
        ck_assert_mem_eq(hp.counts[c], hs.counts[c], 256 * sizeof hp.counts[c][0]);
    gpuimg_histogram_free(&hp);
    gpuimg_histogram_free(&hs);

    char pa[4096], pb[4096];
    snprintf(pa, sizeof pa, "%s/packed.png", tu_tmpdir());
    snprintf(pb, sizeof pb, "%s/strided.png", tu_tmpdir());
    ck_assert_int_eq(gpuimg_save(ctx, pa, GPUIMG_FORMAT_NONE, &packed), GPUIMG_OK);
    ck_assert_int_eq(gpuimg_save(ctx, pb, GPUIMG_FORMAT_NONE, &strided), GPUIMG_OK);
    ck_assert(tu_same_file(pa, pb));

    /* a stride shorter than a row is refused, by name, and nothing written */
    strided.stride = 67 * 3 - 1;
    gpuimg_image none;
    step = NULL;
    ck_assert_int_eq(gpuimg_step_parse(ctx, "invert", &step), GPUIMG_OK);
    ck_assert_int_eq(gpuimg_run(ctx, &strided, &step, 1, &none), GPUIMG_ERR_USAGE);
    ck_assert_ptr_nonnull(strstr(gpuimg_ctx_error(ctx), "stride"));
    snprintf(pb, sizeof pb, "%s/short.png", tu_tmpdir());
    ck_assert_int_eq(gpuimg_save(ctx, pb, GPUIMG_FORMAT_NONE, &strided), GPUIMG_ERR_USAGE);
    ck_assert_int_ne(access(pb, F_OK), 0);
    gpuimg_step_free(step);
    gpuimg_image_free(&strided);
    gpuimg_image_free(&packed);
    gpuimg_ctx_destroy(ctx);
}
END_TEST

START_TEST(image_outlives_its_context)
{
    gpuimg_ctx *ctx = tu_ctx();
    gpuimg_image in, out;
    tu_random_image(&in, 300, 200, 4, 9);
    gpuimg_step *step;
    ck_assert_int_eq(gpuimg_step_parse(ctx, "invert", &step), GPUIMG_OK);
    ck_assert_int_eq(gpuimg_run(ctx, &in, &step, 1, &out), GPUIMG_OK);
    ck_assert_ptr_nonnull(out.buffer); /* the library's own, from the context's set */
    gpuimg_step_free(step);
    gpuimg_ctx_destroy(ctx);
    for (size_t i = 0; i < (size_t)300 * 200 * 4; i++) /* still there, still right */
        ck_assert_uint_eq(out.data[i], i % 4 == 3 ? in.data[i] : 255 - in.data[i]);
    gpuimg_image_free(&out);
    gpuimg_image_free(&in);
}
END_TEST

Suite *buffers_suite(void)
{
    Suite *s = suite_create("buffers");
    TCase *tc = tu_tcase("buffers");
    tcase_add_test(tc, reused_and_pinned_once);
    tcase_add_test(tc, idle_buffers_are_capped);
    tcase_add_test(tc, buffer_outlives_its_set);
    tcase_add_test(tc, prepared_buffer_pinned_elsewhere);
    tcase_add_test(tc, strided_images_read_as_packed);
    tcase_add_test(tc, image_outlives_its_context);
    suite_add_tcase(s, tc);
    return s;
}
