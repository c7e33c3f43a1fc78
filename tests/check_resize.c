/* SPDX-License-Identifier: MIT */
/* resize, crop, thumbnail and unsharp (SPEC §3) beyond their goldens: the
 * STEP language's lists, the usage errors, the sizes of every fit, the
 * identities (cover is the resize then the centre crop, pad is inside on a
 * canvas, a thumbnail within its box a copy, unsharp of amount 0 the
 * input), transparent colour kept out by premultiplied alpha, and shrink
 * on load: its factor rule, its PSNR against the exact resize, and the
 * same bytes from `thumbnail`, `run` and `batch`. */
#define _POSIX_C_SOURCE 200809L
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ops/ops.h"
#include "testutil.h"

static gpuimg_step *parsed(gpuimg_ctx *ctx, const char *text)
{
    gpuimg_step *s = NULL;
    ck_assert_msg(gpuimg_step_parse(ctx, text, &s) == GPUIMG_OK, "%s: %s", text,
                  gpuimg_ctx_error(ctx));
    ck_assert_msg(gpuimg_step_finish(ctx, s) == GPUIMG_OK, "%s: %s", text, gpuimg_ctx_error(ctx));
    return s;
}

/* The output shape of text on a w x h image. */
static void shape_of(gpuimg_ctx *ctx, const char *text, int w, int h, int *ow, int *oh)
{
    gpuimg_step *s = parsed(ctx, text);
    int c = 3;
    gpuimg__steps_shape(&s, 1, &w, &h, &c);
    *ow = w;
    *oh = h;
    gpuimg_step_free(s);
}

START_TEST(lists_in_steps)
{
    gpuimg_ctx *ctx = tu_ctx();
    gpuimg_step *s = parsed(ctx, "crop:rect=3,4,5,6");
    ck_assert_int_eq(s->box[0], 3);
    ck_assert_int_eq(s->box[3], 6);
    gpuimg_step_free(s);
    s = parsed(ctx, "resize:size=10x5,fit=pad,background=1,2,3,4,filter=cubic");
    ck_assert_int_eq(s->background_n, 4);
    ck_assert(s->background[3] == 4.0);
    ck_assert_int_eq((int)s->value[6], 1); /* filter: cubic, after the list */
    gpuimg_step_free(s);
    s = parsed(ctx, "thumbnail:size=64,crop");
    ck_assert(s->value[1] == 1.0);
    gpuimg_step_free(s);
    gpuimg_ctx_destroy(ctx);
}
END_TEST

START_TEST(usage_errors)
{
    static const char *const bad[] = {
        "resize",                           /* no size */
        "resize:width=10,size=3x3",         /* two */
        "resize:width=3,fit=pad",           /* fit without a box */
        "resize:size=3x3,background=1,2,3", /* background without pad */
        "resize:size=3x3,fit=pad,background=1,2",
        "resize:size=3x3,fit=pad,background=1,2,300",
        "resize:size=0x3",
        "resize:size=3x",
        "resize:size=70000x3",
        "resize:scale=0",
        "resize:scale=65",
        "resize:size=3x3,filter=bicubic",
        "crop",
        "crop:rect=1,2,3",
        "crop:rect=1,2,3,0",
        "crop:rect=1,2,3,4,5",
        "crop:rect=-1,2,3,4",
        "crop:rect=5555555555555555555555555555555551,2,0,4", /* found by fuzz_steps */
        "crop:rect=1,2,3,4,gravity=north",
        "crop:size=3",
        "thumbnail",
        "thumbnail:size=abc",
        "thumbnail:size=0",
        "unsharp:amount=11",
        "unsharp:sigma=0",
        "unsharp:threshold=256",
    };
    gpuimg_ctx *ctx = tu_ctx();
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        gpuimg_step *s = NULL;
        gpuimg_status st = gpuimg_step_parse(ctx, bad[i], &s);
        if (st == GPUIMG_OK)
            st = gpuimg_step_finish(ctx, s);
        ck_assert_msg(st == GPUIMG_ERR_USAGE, "%s: %d, not a usage error", bad[i], (int)st);
        gpuimg_step_free(s);
    }
    /* a rectangle outside the image: a usage error naming it, at apply */
    gpuimg_image in, out;
    char err[512];
    tu_random_image(&in, 20, 10, 3, 7u);
    ck_assert_int_eq(tu_apply(ctx, "crop:rect=10,5,11,5", &in, -1, &out, err, sizeof err),
                     GPUIMG_ERR_USAGE);
    ck_assert_msg(strstr(err, "10,5,11,5") && strstr(err, "20x10"), "%s", err);
    ck_assert_int_eq(tu_apply(ctx, "crop:size=21x1", &in, -1, &out, err, sizeof err),
                     GPUIMG_ERR_USAGE);
    /* outputs no image may have: refused before anything is allocated */
    static const char *const huge[] = {"resize:width=65535", "resize:size=60000x60000",
                                       "resize:size=65535x65535,fit=cover",
                                       "thumbnail:size=65535x60000,upsize"};
    for (size_t i = 0; i < sizeof huge / sizeof huge[0]; i++) {
        ck_assert_msg(tu_apply(ctx, huge[i], &in, -1, &out, err, sizeof err) ==
                          GPUIMG_ERR_TOO_LARGE,
                      "%s: not refused", huge[i]);
        ck_assert_msg(strstr(err, "output would be"), "%s: %s", huge[i], err);
    }
    gpuimg_image_free(&in);
    gpuimg_ctx_destroy(ctx);
}
END_TEST

START_TEST(sizes_of_every_fit)
{
    static const struct {
        const char *step;
        int w, h, ow, oh;
    } cases[] = {
        {"resize:width=100", 400, 300, 100, 75},
        {"resize:height=100", 400, 300, 133, 100},
        {"resize:width=100,height=7", 400, 300, 100, 7},
        {"resize:width=1", 400, 3, 1, 1},
        {"resize:scale=0.5", 401, 301, 201, 151},
        {"resize:scale=2.5", 3, 1, 8, 3},
        {"resize:size=50x60", 400, 300, 50, 60},
        {"resize:size=50x60,fit=inside", 400, 300, 50, 38},
        {"resize:size=50x60,fit=cover", 400, 300, 50, 60},
        {"resize:size=50x60,fit=pad", 400, 300, 50, 60},
        {"resize:size=1000x1000,fit=inside", 400, 300, 1000, 750},
        {"thumbnail:size=100", 400, 300, 100, 75},
        {"thumbnail:size=100", 30, 20, 30, 20},         /* within: unchanged */
        {"thumbnail:size=100,upsize", 30, 20, 100, 67}, /* enlarged */
        {"thumbnail:size=100x50,crop", 400, 300, 100, 50},
        {"thumbnail:size=100x50,crop", 300, 40, 100, 40}, /* not enlarged: the box's width */
        {"thumbnail:size=100x50", 3000, 3, 100, 1},
        {"crop:size=7x5,gravity=east", 40, 30, 7, 5},
        {"crop:rect=1,2,3,4", 40, 30, 3, 4},
        {"unsharp", 40, 30, 40, 30},
    };
    gpuimg_ctx *ctx = tu_ctx();
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int ow, oh;
        shape_of(ctx, cases[i].step, cases[i].w, cases[i].h, &ow, &oh);
        ck_assert_msg(ow == cases[i].ow && oh == cases[i].oh, "%s on %dx%d: %dx%d, not %dx%d",
                      cases[i].step, cases[i].w, cases[i].h, ow, oh, cases[i].ow, cases[i].oh);
    }
    gpuimg_ctx_destroy(ctx);
}
END_TEST

/* got equals the w x h rectangle of want at (x, y), every channel */
static void same_rect(const gpuimg_image *got, const gpuimg_image *want, int x, int y,
                      const char *what)
{
    int c = got->channels;
    ck_assert_int_eq(c, want->channels);
    for (int r = 0; r < got->height; r++)
        for (int i = 0; i < got->width * c; i++) {
            int g = tu_value(got, (size_t)r * got->width * c + i);
            int v = tu_value(want, ((size_t)(y + r) * want->width + x) * c + i);
            ck_assert_msg(g == v, "%s: row %d value %d: %d, not %d", what, r, i, g, v);
        }
}

START_TEST(cover_pad_crop_identities)
{
    gpuimg_ctx *ctx = tu_ctx();
    char err[512];
    for (int depth = 8; depth <= 16; depth += 8)
        for (int c = 1; c <= 4; c++) {
            gpuimg_image in, full, cover, inside, pad, crop;
            tu_random_image_depth(&in, 97, 53, c, depth, (unsigned)(50 + c + depth));
            /* cover to 20x20: k = 20/53, 37x20 resized, centre 20 kept at x = 8 */
            ck_assert(tu_apply(ctx, "resize:size=37x20", &in, 0x33, &full, err, sizeof err) ==
                      GPUIMG_OK);
            ck_assert(tu_apply(ctx, "resize:size=20x20,fit=cover", &in, 0x44, &cover, err,
                               sizeof err) == GPUIMG_OK);
            same_rect(&cover, &full, 8, 0, "cover");
            /* pad to 50x50: inside is 50x27 at y = 11, the rest the background */
            ck_assert(tu_apply(ctx, "resize:size=50x50,fit=inside", &in, 0x55, &inside, err,
                               sizeof err) == GPUIMG_OK);
            ck_assert_int_eq(inside.height, 27);
            ck_assert(tu_apply(ctx, "resize:size=50x50,fit=pad,background=10,20,30,40", &in, 0x66,
                               &pad, err, sizeof err) == GPUIMG_OK);
            ck_assert(tu_apply(ctx, "crop:rect=0,11,50,27", &pad, 0x77, &crop, err, sizeof err) ==
                      GPUIMG_OK);
            same_rect(&crop, &inside, 0, 0, "pad");
            int scale = depth == 16 ? 257 : 1;
            int luma = (int)floor(0.299 * 10 + 0.587 * 20 + 0.114 * 30 + 0.5);
            int bg[4] = {10, 20, 30, 40}, gray[2] = {luma, 40};
            for (int k = 0; k < c; k++) {
                int want = (c <= 2 ? gray[k] : bg[k]) * scale;
                ck_assert_int_eq(tu_value(&pad, (size_t)k), want);                     /* top */
                ck_assert_int_eq(tu_value(&pad, (size_t)(50 * 49) * c + k), want);     /* bottom */
                ck_assert_int_eq(tu_value(&pad, (size_t)(50 * 11 - 1) * c + k), want); /* above */
            }
            gpuimg_image *all[] = {&in, &full, &cover, &inside, &pad, &crop};
            for (int i = 0; i < 6; i++)
                gpuimg_image_free(all[i]);
        }
    gpuimg_ctx_destroy(ctx);
}
END_TEST

START_TEST(copies_and_no_ops)
{
    gpuimg_ctx *ctx = tu_ctx();
    char err[512];
    static const char *const same[] = {"thumbnail:size=200",
                                       "thumbnail:size=64x40,crop",
                                       "unsharp:amount=0",
                                       "unsharp:threshold=255",
                                       "resize:size=64x40,alpha=independent",
                                       "resize:size=64x40,filter=nearest,alpha=independent"};
    for (int depth = 8; depth <= 16; depth += 8)
        for (int c = 1; c <= 4; c++) {
            gpuimg_image in;
            tu_random_image_depth(&in, 64, 40, c, depth, (unsigned)(70 + c + depth));
            for (size_t i = 0; i < sizeof same / sizeof same[0]; i++) {
                if (strstr(same[i], "threshold") && depth == 16)
                    continue; /* 255 x 257 of 65535: differences past it still sharpen */
                gpuimg_image out;
                ck_assert_msg(tu_apply(ctx, same[i], &in, 0x5A, &out, err, sizeof err) == GPUIMG_OK,
                              "%s: %s", same[i], err);
                ck_assert_int_eq(out.width, 64);
                same_rect(&out, &in, 0, 0, same[i]);
                gpuimg_image_free(&out);
            }
            gpuimg_image_free(&in);
        }
    gpuimg_ctx_destroy(ctx);
}
END_TEST

/* An opaque red square on a transparent field whose hidden colour is
 * green: premultiplied resizing lends the edge no green, independent
 * resizing does. */
START_TEST(transparent_colour_stays_out)
{
    gpuimg_ctx *ctx = tu_ctx();
    gpuimg_image in;
    ck_assert_int_eq(gpuimg_image_alloc(&in, 40, 40, 4), GPUIMG_OK);
    for (int y = 0; y < 40; y++)
        for (int x = 0; x < 40; x++) {
            uint8_t *p = in.data + ((size_t)y * 40 + x) * 4;
            int inside = x >= 10 && x < 30 && y >= 10 && y < 30;
            p[0] = inside ? 255 : 0;
            p[1] = inside ? 0 : 255;
            p[2] = 0;
            p[3] = inside ? 255 : 0;
        }
    gpuimg_image pre, ind;
    char err[512];
    ck_assert(tu_apply(ctx, "resize:size=13x13", &in, 1, &pre, err, sizeof err) == GPUIMG_OK);
    ck_assert(tu_apply(ctx, "resize:size=13x13,alpha=independent", &in, 1, &ind, err, sizeof err) ==
              GPUIMG_OK);
    int green_pre = 0, green_ind = 0;
    for (int i = 0; i < 13 * 13; i++) {
        if (pre.data[i * 4 + 3] > 0)
            green_pre = green_pre > pre.data[i * 4 + 1] ? green_pre : pre.data[i * 4 + 1];
        if (ind.data[i * 4 + 3] > 0)
            green_ind = green_ind > ind.data[i * 4 + 1] ? green_ind : ind.data[i * 4 + 1];
    }
    ck_assert_int_eq(green_pre, 0);
    ck_assert_int_gt(green_ind, 50);
    gpuimg_image_free(&in);
    gpuimg_image_free(&pre);
    gpuimg_image_free(&ind);
    gpuimg_ctx_destroy(ctx);
}
END_TEST

START_TEST(shrink_factor_rule)
{
    static const struct {
        const char *step;
        int w, h, factor;
    } cases[] = {
        {"thumbnail:size=1024", 4000, 3000, 1},         /* 3.9: 2 would leave less than 2 */
        {"thumbnail:size=1000", 4000, 3000, 2},         /* 4: 2, then 2 */
        {"thumbnail:size=300", 4000, 3000, 4},          /* 13.3 */
        {"thumbnail:size=224x224,crop", 4000, 3000, 4}, /* 299x224 resized: 13.4 */
        {"thumbnail:size=100", 8000, 6000, 8},
        {"thumbnail:size=100", 1600, 200, 4}, /* 100 x 13: 8 would leave 1.9 down */
        {"thumbnail:size=100,no-shrink-on-load", 8000, 6000, 1},
        {"thumbnail:size=100", 150, 100, 1},
        {"thumbnail:size=100", 50, 40, 1},    /* within the box */
        {"resize:size=10x10", 8000, 6000, 1}, /* only a thumbnail shrinks */
    };
    gpuimg_ctx *ctx = tu_ctx();
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        gpuimg_step *s = parsed(ctx, cases[i].step);
        int f = gpuimg__thumbnail_shrink(s, cases[i].w, cases[i].h);
        ck_assert_msg(f == cases[i].factor, "%s on %dx%d: %d, not %d", cases[i].step, cases[i].w,
                      cases[i].h, f, cases[i].factor);
        gpuimg_step_free(s);
    }
    gpuimg_ctx_destroy(ctx);
}
END_TEST

/* A photograph as a JPEG: samples/NAME.png encoded by gpuimg. */
static void write_jpeg(gpuimg_ctx *ctx, const char *name, const char *path)
{
    char png[200];
    snprintf(png, sizeof png, "../../samples/%s.png", name);
    gpuimg_image img;
    tu_load(ctx, tu_golden(png), &img);
    ck_assert_int_eq(gpuimg_save(ctx, path, GPUIMG_FORMAT_JPEG, &img), GPUIMG_OK);
    gpuimg_image_free(&img);
}

/* On photographs, at each factor: the size from the file's, the PSNR
 * against the exact resize at least SPEC's 32 dB (libvips' own reaches 34
 * on hard textures, 42 and more on photographs), and the same bytes from
 * thumbnail, run and batch. */
static const struct {
    const char *photo;
    int size, w, h; /* the thumbnail's */
} shrinks[] = {
    {"astronaut", 100, 100, 100}, /* 512: 1/2, then 2.56 down */
    {"astronaut", 40, 40, 40},    /* 1/4 */
    {"astronaut", 30, 30, 30},    /* 1/8 */
    {"coffee", 70, 70, 47},       /* 600 x 400: 1/4, 400 * 70 / 600 = 46.7 */
    {"chelsea", 33, 33, 22},      /* 451 x 300: 1/4, odd sides rounded up */
};

START_TEST(shrink_on_load)
{
    gpuimg_ctx *ctx = tu_ctx();
    const char *photo = shrinks[_i].photo;
    char size[16], step[40], jpg[500], dir[400], out_dir[400], shrunk[400], exact[400], ran[400],
        batched[500];
    snprintf(size, sizeof size, "%d", shrinks[_i].size);
    snprintf(step, sizeof step, "thumbnail:size=%d", shrinks[_i].size);
    snprintf(dir, sizeof dir, "%s/shrink-in-%d", tu_tmpdir(), _i);
    snprintf(out_dir, sizeof out_dir, "%s/shrink-out-%d", tu_tmpdir(), _i);
    ck_assert(mkdir(dir, 0700) == 0);
    snprintf(jpg, sizeof jpg, "%s/%s.jpg", dir, photo);
    snprintf(shrunk, sizeof shrunk, "%s/shrunk-%d.png", tu_tmpdir(), _i);
    snprintf(exact, sizeof exact, "%s/exact-%d.png", tu_tmpdir(), _i);
    snprintf(ran, sizeof ran, "%s/ran-%d.png", tu_tmpdir(), _i);
    snprintf(batched, sizeof batched, "%s/%s.png", out_dir, photo);
    write_jpeg(ctx, photo, jpg);
    ck_assert_int_eq(tu_run((const char *const[]){tu_bin(), "-q", "--backend", "cpu", "thumbnail",
                                                  jpg, shrunk, "--size", size, NULL},
                            NULL, NULL, NULL),
                     0);
    ck_assert_int_eq(
        tu_run((const char *const[]){tu_bin(), "-q", "--backend", "cpu", "thumbnail", jpg, exact,
                                     "--size", size, "--no-shrink-on-load", NULL},
               NULL, NULL, NULL),
        0);
    ck_assert_int_eq(tu_run((const char *const[]){tu_bin(), "-q", "--backend", "cpu", "run", jpg,
                                                  ran, step, NULL},
                            NULL, NULL, NULL),
                     0);
    ck_assert_int_eq(tu_run((const char *const[]){tu_bin(), "-q", "--backend", "cpu", "batch", dir,
                                                  out_dir, step, "--format", "png", NULL},
                            NULL, NULL, NULL),
                     0);
    gpuimg_image a, b;
    tu_load(ctx, shrunk, &a);
    tu_load(ctx, exact, &b);
    ck_assert_int_eq(a.width, shrinks[_i].w);
    ck_assert_int_eq(a.height, shrinks[_i].h);
    ck_assert_int_eq(b.width, shrinks[_i].w);
    ck_assert_int_eq(b.height, shrinks[_i].h);
    double db = tu_psnr(&a, &b);
    /* infinite: it did not shrink at all */
    ck_assert_msg(db >= 32.0 && db < INFINITY, "%s to %d: %.2f dB against the exact resize", photo,
                  shrinks[_i].size, db);
    ck_assert_msg(tu_same_file(shrunk, ran), "thumbnail and run wrote different bytes");
    /* --max-pixels holds for the file's size, not the size it decodes at:
     * one pixel under the file's is refused */
    gpuimg_file_info fi;
    ck_assert_int_eq(gpuimg_probe(ctx, jpg, &fi), GPUIMG_OK);
    char limit[32];
    snprintf(limit, sizeof limit, "%d", fi.width * fi.height - 1);
    ck_assert_int_eq(
        tu_run((const char *const[]){tu_bin(), "-q", "--backend", "cpu", "--max-pixels", limit,
                                     "thumbnail", jpg, ran, "--size", size, NULL},
               NULL, NULL, NULL),
        3);
    ck_assert_msg(tu_same_file(shrunk, batched), "thumbnail and batch wrote different bytes");
    gpuimg_image_free(&a);
    gpuimg_image_free(&b);
    gpuimg_ctx_destroy(ctx);
}
END_TEST

Suite *resize_suite(void)
{
    Suite *s = suite_create("resize");
    TCase *tc = tu_tcase("resize");
    tcase_add_test(tc, lists_in_steps);
    tcase_add_test(tc, usage_errors);
    tcase_add_test(tc, sizes_of_every_fit);
    tcase_add_test(tc, cover_pad_crop_identities);
    tcase_add_test(tc, copies_and_no_ops);
    tcase_add_test(tc, transparent_colour_stays_out);
    tcase_add_test(tc, shrink_factor_rule);
    tcase_add_loop_test(tc, shrink_on_load, 0, (int)(sizeof shrinks / sizeof shrinks[0]));
    suite_add_tcase(s, tc);
    return s;
}
