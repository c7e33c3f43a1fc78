/* SPDX-License-Identifier: MIT */
/* JPEG on the GPU (SPEC §4): the structure check that decides which files
 * the device's decoder is given, and nvJPEG's loader where it is absent
 * (suite "jpeg_gpu", everywhere, CI included); and where a CUDA device is,
 * nvJPEG itself (suite "nvjpeg"): its decode against libjpeg-turbo's at
 * every subsampling (PSNR >= 50 dB), its encode read back (>= 40 dB against
 * the source at quality 90), a batch decoded in one call equal byte for
 * byte to each file decoded alone, orientation turned on the device,
 * `batch` equal to `run` file for file, and a damaged file in the middle of
 * a batch failing alone. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <turbojpeg.h>
#include <unistd.h>

#include "io/io.h"
#include "io/metadata.h"
#include "run/jpeg_gpu.h"
#include "testutil.h"

/* kernels/nvjpeg_api.cu (src/cuda_absent.c without CUDA) */
int gpuimg__nvjpeg_try(const char *path, char *why, size_t len);

/* A smooth, photograph-like test card: gradients and soft discs, so that
 * JPEG's rounding, not its blocking of noise, is what differs. */
static void card(gpuimg_image *img, int w, int h, int c)
{
    ck_assert_int_eq(gpuimg_image_alloc(img, w, h, c), GPUIMG_OK);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            for (int k = 0; k < c; k++) {
                double v = 128 + 60 * sin(x * (0.02 + 0.01 * k) + y * 0.013) +
                           50 * cos(hypot(x - w / 3.0, y - h / 2.0) * (0.03 + 0.005 * k));
                img->data[((size_t)y * w + x) * c + k] = (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
            }
}

/* img as a JPEG by libjpeg-turbo: subsampling samp, flags (progressive). */
static uint8_t *tj_encode(const gpuimg_image *img, int samp, int flags, int quality, size_t *len)
{
    tjhandle tj = tjInitCompress();
    ck_assert_ptr_nonnull(tj);
    unsigned char *out = NULL;
    unsigned long n = 0;
    int pf = img->channels == 1 ? TJPF_GRAY : TJPF_RGB;
    ck_assert_int_eq(
        tjCompress2(tj, img->data, img->width, 0, img->height, pf, &out, &n, samp, quality, flags),
        0);
    tjDestroy(tj);
    uint8_t *copy = malloc(n);
    memcpy(copy, out, n);
    tjFree(out);
    *len = n;
    return copy;
}

/* ---- everywhere ---- */

START_TEST(scan_shapes)
{
    static const int samps[] = {TJSAMP_420, TJSAMP_422, TJSAMP_444, TJSAMP_GRAY};
    for (int s = 0; s < 4; s++)
        for (int prog = 0; prog < 2; prog++) {
            gpuimg_image img;
            int c = samps[s] == TJSAMP_GRAY ? 1 : 3;
            card(&img, 123, 77, c);
            size_t len;
            uint8_t *jpeg = tj_encode(&img, samps[s], prog ? TJFLAG_PROGRESSIVE : 0, 90, &len);
            gpuimg__jpeg_shape sh;
            /* a progressive file is the CPU's (its scans are not walked),
             * but its header is read */
            ck_assert_msg(gpuimg__jpeg_scan(jpeg, len, &sh) == !prog, "samp %d prog %d", samps[s],
                          prog);
            ck_assert_int_eq(sh.width, 123);
            ck_assert_int_eq(sh.height, 77);
            ck_assert_int_eq(sh.components, c);
            ck_assert_int_eq(sh.progressive, prog);
            ck_assert_int_eq(sh.hs, samps[s] == TJSAMP_420 || samps[s] == TJSAMP_422 ? 2 : 1);
            ck_assert_int_eq(sh.vs, samps[s] == TJSAMP_420 ? 2 : 1);
            /* cut anywhere: never whole (the end marker is gone) */
            for (size_t cut = 0; cut < len; cut += 1 + len / 97)
                ck_assert_msg(!gpuimg__jpeg_scan(jpeg, cut, &sh), "cut at %zu of %zu", cut, len);
            ck_assert(!gpuimg__jpeg_scan(jpeg, len - 1, &sh));
            /* bytes after the end marker are ignored, as libjpeg ignores them */
            uint8_t *more = malloc(len + 5);
            memcpy(more, jpeg, len);
            memcpy(more + len, "trail", 5);
            ck_assert(gpuimg__jpeg_scan(more, len + 5, &sh) == !prog);
            free(more);
            free(jpeg);
            gpuimg_image_free(&img);
        }
}
END_TEST

START_TEST(scan_refuses)
{
    gpuimg_image img;
    card(&img, 40, 30, 3);
    size_t len;
    uint8_t *jpeg = tj_encode(&img, TJSAMP_420, 0, 90, &len);
    gpuimg__jpeg_shape sh;
    ck_assert(gpuimg__jpeg_scan(jpeg, len, &sh));
    /* 12 bits: the precision byte of SOF0 */
    uint8_t *bad = malloc(len);
    size_t sof = 2;
    while (!(jpeg[sof] == 0xFF && jpeg[sof + 1] == 0xC0))
        sof++;
    memcpy(bad, jpeg, len);
    bad[sof + 4] = 12;
    ck_assert(!gpuimg__jpeg_scan(bad, len, &sh));
    /* arithmetic coding (SOF9) and lossless (SOF3): the CPU's */
    memcpy(bad, jpeg, len);
    bad[sof + 1] = 0xC9;
    ck_assert(!gpuimg__jpeg_scan(bad, len, &sh));
    bad[sof + 1] = 0xC3;
    ck_assert(!gpuimg__jpeg_scan(bad, len, &sh));
    /* a segment length running past the end */
    memcpy(bad, jpeg, len);
    bad[sof + 2] = 0xFF;
    ck_assert(!gpuimg__jpeg_scan(bad, len, &sh));
    /* a side over libjpeg's 65500: a strip 65500 wide passes, and with the
     * header's width one more it does not (its data is one MCU short too) */
    gpuimg_image strip;
    card(&strip, 65500, 8, 1);
    size_t slen;
    uint8_t *sj = tj_encode(&strip, TJSAMP_GRAY, 0, 50, &slen);
    ck_assert(gpuimg__jpeg_scan(sj, slen, &sh));
    ck_assert_int_eq(sh.width, 65500);
    size_t ssof = 2;
    while (!(sj[ssof] == 0xFF && sj[ssof + 1] == 0xC0))
        ssof++;
    sj[ssof + 8] = 0xDD; /* 65501 */
    ck_assert(!gpuimg__jpeg_scan(sj, slen, &sh));
    free(sj);
    gpuimg_image_free(&strip);
    /* the header's height one MCU row more than the data: cut short */
    memcpy(bad, jpeg, len);
    bad[sof + 6] = (uint8_t)(bad[sof + 6] + 16);
    ck_assert(!gpuimg__jpeg_scan(bad, len, &sh));
    /* DAC (arithmetic coding's conditioning): libjpeg checks it, and stops
     * at a bad one, even in a Huffman file */
    {
        uint8_t *dac = malloc(len + 6);
        memcpy(dac, jpeg, 2);
        memcpy(dac + 2, (const uint8_t[]){0xFF, 0xCC, 0x00, 0x04, 0x20, 0x00}, 6);
        memcpy(dac + 8, jpeg + 2, len - 2);
        ck_assert(!gpuimg__jpeg_scan(dac, len + 6, &sh));
        free(dac);
    }
    /* a second SOI, and a marker libjpeg does not know (JPG0) */
    static const uint8_t marker[] = {0xD8, 0xF0};
    for (int k = 0; k < 2; k++) {
        uint8_t *more = malloc(len + 4);
        memcpy(more, jpeg, 2);
        more[2] = 0xFF, more[3] = marker[k];
        if (k) /* JPG0 has a length */
            memcpy(more + 2, (const uint8_t[]){0xFF, 0xF0, 0x00, 0x02}, 4);
        memcpy(more + (k ? 6 : 4), jpeg + 2, len - 2);
        ck_assert_msg(!gpuimg__jpeg_scan(more, len + (k ? 4 : 2), &sh), "marker %02x", marker[k]);
        free(more);
    }
    /* Without JFIF's APP0, libjpeg-turbo guesses from the component
     * identifiers (R G B: RGB, which the device would convert as YCbCr)
     * and from Adobe's transform (0 RGB, 1 YCbCr, others a warning). */
    size_t app0 = 4 + ((size_t)jpeg[4] << 8 | jpeg[5]); /* TurboJPEG writes JFIF first */
    ck_assert(jpeg[3] == 0xE0);
    size_t nlen = len - (app0 - 2);
    uint8_t *bare = malloc(nlen + 16);
    memcpy(bare, jpeg, 2);
    memcpy(bare + 2, jpeg + app0, len - app0);
    size_t bsof = sof - (app0 - 2);
    ck_assert(gpuimg__jpeg_scan(bare, nlen, &sh)); /* ids 1 2 3: YCbCr */
    bare[bsof + 10] = 'R', bare[bsof + 13] = 'G', bare[bsof + 16] = 'B';
    size_t sos = bsof; /* and the scan's selectors with them (libjpeg matches them) */
    while (!(bare[sos] == 0xFF && bare[sos + 1] == 0xDA))
        sos++;
    bare[sos + 5] = 'R', bare[sos + 7] = 'G', bare[sos + 9] = 'B';
    ck_assert(!gpuimg__jpeg_scan(bare, nlen, &sh));
    { /* JFIF after the scan does not make it YCbCr: libjpeg-turbo has decided
       * at the first SOS */
        static const uint8_t app0[18] = {0xFF, 0xE0, 0, 16, 'J', 'F', 'I', 'F', 0,
                                         1,    1,    0, 0,  1,   0,   1,   0,   0};
        uint8_t *late = malloc(nlen + sizeof app0);
        memcpy(late, bare, nlen - 2);
        memcpy(late + nlen - 2, app0, sizeof app0);
        memcpy(late + nlen - 2 + sizeof app0, bare + nlen - 2, 2);
        ck_assert(!gpuimg__jpeg_scan(late, nlen + sizeof app0, &sh));
        free(late);
    }
    for (int t = 0; t < 3; t++) { /* Adobe's APP14 before the rest, ids R G B */
        uint8_t *ad = malloc(nlen + 16);
        static const uint8_t app14[16] = {0xFF, 0xEE, 0,   14, 'A', 'd', 'o', 'b',
                                          'e',  0,    100, 0,  0,   0,   0,   0};
        memcpy(ad, bare, 2);
        memcpy(ad + 2, app14, 16);
        ad[17] = (uint8_t)t;
        memcpy(ad + 18, bare + 2, nlen - 2);
        ck_assert_msg(gpuimg__jpeg_scan(ad, nlen + 16, &sh) == (t == 1), "transform %d", t);
        free(ad);
    }
    free(bare);
    free(bad);
    free(jpeg);
    /* CMYK: four components */
    gpuimg_image cmyk;
    card(&cmyk, 40, 30, 4);
    tjhandle tj = tjInitCompress();
    unsigned char *out = NULL;
    unsigned long n = 0;
    ck_assert_int_eq(tjCompress2(tj, cmyk.data, 40, 0, 30, TJPF_CMYK, &out, &n, TJSAMP_444, 90, 0),
                     0);
    ck_assert(!gpuimg__jpeg_scan(out, n, &sh));
    tjFree(out);
    tjDestroy(tj);
    gpuimg_image_free(&cmyk);
    /* subsamplings the device does not upsample as libjpeg-turbo does, and a
     * subsampled image too narrow for libjpeg-turbo's smooth upsampling */
    static const int other[] = {TJSAMP_440, TJSAMP_411};
    for (int k = 0; k < 2; k++) {
        jpeg = tj_encode(&img, other[k], 0, 90, &len);
        ck_assert_msg(!gpuimg__jpeg_scan(jpeg, len, &sh), "subsampling %d", other[k]);
        free(jpeg);
    }
    gpuimg_image narrow;
    card(&narrow, 4, 30, 3);
    jpeg = tj_encode(&narrow, TJSAMP_420, 0, 90, &len);
    ck_assert(!gpuimg__jpeg_scan(jpeg, len, &sh));
    free(jpeg);
    jpeg = tj_encode(&narrow, TJSAMP_444, 0, 90, &len);
    ck_assert(gpuimg__jpeg_scan(jpeg, len, &sh));
    free(jpeg);
    gpuimg_image_free(&narrow);
    /* not a JPEG at all */
    ck_assert(!gpuimg__jpeg_scan((const uint8_t *)"\x89PNG\r\n\x1a\n", 8, &sh));
    gpuimg_image_free(&img);
}
END_TEST

/* tests/jpeg_damaged/NAME, beside tests/golden (GPUIMG_GOLDEN). */
static const char *damaged_path(const char *name)
{
    char rel[4096];
    snprintf(rel, sizeof rel, "../jpeg_damaged/%.200s", name);
    return tu_golden(rel);
}

/* The corpus's rows (expected.tsv: file, libjpeg-turbo's verdict "ok" or
 * "refused", its message): n of them into names[] and ok[]. */
enum { DAMAGED_MAX = 512 };
static int damaged_rows(char names[][128], int *ok)
{
    char *text = tu_read_file(damaged_path("expected.tsv"), NULL);
    ck_assert_ptr_nonnull(text);
    int n = 0;
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        char *tab = strchr(line, '\t');
        ck_assert_ptr_nonnull(tab);
        *tab = '\0';
        ck_assert_int_lt(n, DAMAGED_MAX);
        snprintf(names[n], 128, "%s", line);
        ok[n++] = strncmp(tab + 1, "ok", 2) == 0;
    }
    free(text);
    return n;
}

/* The damaged-JPEG corpus (tests/jpeg_damaged: files cut inside the scan
 * and closed with EOI, restart intervals cut short, bytes flipped, zeroed
 * or added, public broken files): the CPU decoder refuses exactly the
 * files libjpeg-turbo warns about, and the structure walk that decides
 * what the GPU's decoder is given passes none of those, while it passes
 * every clean sequential file. (The GPU's side: nvjpeg suite,
 * damaged_agree.) */
START_TEST(damaged_corpus)
{
    static char names[DAMAGED_MAX][128];
    int ok[DAMAGED_MAX];
    int n = damaged_rows(names, ok), passed = 0, refused = 0;
    ck_assert_int_ge(n, 100);
    gpuimg_ctx *ctx = tu_ctx();
    for (int i = 0; i < n; i++) {
        size_t len;
        uint8_t *data = (uint8_t *)tu_read_file(damaged_path(names[i]), &len);
        ck_assert_ptr_nonnull(data);
        gpuimg_image img;
        gpuimg_status st = gpuimg_load(ctx, damaged_path(names[i]), &img);
        ck_assert_msg((st == GPUIMG_OK) == ok[i], "%s: libjpeg-turbo says %s, the CPU decoder %s",
                      names[i], ok[i] ? "ok" : "refused", gpuimg_ctx_error(ctx));
        if (st == GPUIMG_OK)
            gpuimg_image_free(&img);
        else /* exit 3: undecodable, too large or unreadable (an empty file) */
            ck_assert_msg(st == GPUIMG_ERR_DECODE || st == GPUIMG_ERR_TOO_LARGE ||
                              st == GPUIMG_ERR_IO,
                          "%s: %s", names[i], gpuimg_strerror(st));
        gpuimg__jpeg_shape sh;
        int whole = gpuimg__jpeg_scan(data, len, &sh);
        ck_assert_msg(!whole || ok[i], "%s: the walk passes a file libjpeg-turbo refuses",
                      names[i]);
        if (strncmp(names[i], "clean_", 6) == 0 && strcmp(names[i], "clean_prog.jpg") != 0)
            ck_assert_msg(whole, "%s: a clean sequential file not passed", names[i]);
        passed += whole;
        refused += !ok[i];
        free(data);
    }
    /* what it passes, for the log: files it leaves to the CPU cost time only */
    printf("damaged corpus: %d files, %d refused by libjpeg-turbo, %d passed to the GPU\n", n,
           refused, passed);
    ck_assert_int_ge(refused, n / 2);
    gpuimg_ctx_destroy(ctx);
}
END_TEST

/* CI has no nvJPEG: its absence (or a library that is not nvJPEG) is a
 * clear reason, never a crash; the program then keeps libjpeg-turbo. */
START_TEST(loader_absent)
{
    char why[512];
    const char *missing = "/nonexistent/gpuimg-test/libnvjpeg.so.13";
    ck_assert_int_eq(gpuimg__nvjpeg_try(missing, why, sizeof why), -1);
    if (gpuimg__cuda_backend()->planes_alloc == NULL) { /* a build without nvcc */
        ck_assert_msg(strstr(why, "without CUDA") != NULL, "%s", why);
        return;
    }
    ck_assert_msg(strstr(why, missing) != NULL, "%s", why);
    ck_assert_int_eq(gpuimg__nvjpeg_try("none", why, sizeof why), -1);
    ck_assert_msg(strstr(why, "disabled") != NULL, "%s", why);
    /* a real library, but not nvJPEG */
    ck_assert_int_eq(gpuimg__nvjpeg_try("libz.so.1", why, sizeof why), -1);
    ck_assert_msg(strstr(why, "lacks nvjpeg") != NULL, "%s", why);
}
END_TEST

/* --jpeg-codec: a bad name and a contradiction are usage errors; gpu
 * where no device can be had is a device error (exit 4), with no output.
 * (Run where CUDA is absent; on a GPU machine the nvjpeg suite covers it.) */
START_TEST(codec_option)
{
    const char *dir = tu_tmpdir();
    char in[512], out[512];
    snprintf(in, sizeof in, "%s/in.jpg", dir);
    snprintf(out, sizeof out, "%s/out.jpg", dir);
    gpuimg_image img;
    card(&img, 64, 48, 3);
    size_t len;
    uint8_t *jpeg = tj_encode(&img, TJSAMP_420, 0, 90, &len);
    tu_write_file(in, jpeg, len);
    free(jpeg);
    gpuimg_image_free(&img);
    char *err = NULL;
    ck_assert_int_eq(
        tu_run((const char *const[]){tu_bin(), "--jpeg-codec", "nvidia", "invert", in, out, NULL},
               NULL, NULL, &err),
        2);
    ck_assert_msg(strstr(err, "--jpeg-codec") != NULL, "%s", err);
    free(err);
    ck_assert_int_eq(tu_run((const char *const[]){tu_bin(), "--jpeg-codec", "gpu", "--backend",
                                                  "cpu", "invert", in, out, NULL},
                            NULL, NULL, &err),
                     2);
    ck_assert_msg(strstr(err, "--jpeg-codec gpu") != NULL, "%s", err);
    free(err);
    /* cpu: the same bytes as the default where CUDA is not used */
    char cpu[512];
    snprintf(cpu, sizeof cpu, "%s/cpu.jpg", dir);
    ck_assert_int_eq(tu_run((const char *const[]){tu_bin(), "--backend", "cpu", "--jpeg-codec",
                                                  "cpu", "invert", in, cpu, NULL},
                            NULL, NULL, NULL),
                     0);
    ck_assert_int_eq(
        tu_run((const char *const[]){tu_bin(), "--backend", "cpu", "invert", in, out, NULL}, NULL,
               NULL, NULL),
        0);
    ck_assert(tu_same_file(cpu, out));
    if (access("/dev/nvidiactl", F_OK) != 0) {
        remove(out);
        ck_assert_int_eq(tu_run((const char *const[]){tu_bin(), "-q", "--jpeg-codec", "gpu",
                                                      "invert", in, out, NULL},
                                NULL, NULL, &err),
                         4);
        ck_assert_msg(strstr(err, "--jpeg-codec gpu") != NULL, "%s", err);
        ck_assert_int_eq(access(out, F_OK), -1);
        free(err);
        /* and a batch, which would otherwise run on the CPU */
        char dst[512];
        snprintf(dst, sizeof dst, "%s/batch", dir);
        ck_assert_int_eq(tu_run((const char *const[]){tu_bin(), "-q", "--jpeg-codec", "gpu",
                                                      "batch", dir, dst, "invert", NULL},
                                NULL, NULL, &err),
                         4);
        ck_assert_msg(strstr(err, "--jpeg-codec gpu") != NULL, "%s", err);
        ck_assert_int_eq(tu_count_entries(dst), 0);
        free(err);
    }
}
END_TEST

Suite *jpeg_gpu_suite(void)
{
    Suite *s = suite_create("jpeg_gpu");
    TCase *tc = tu_tcase("scan");
    tcase_add_test(tc, scan_shapes);
    tcase_add_test(tc, scan_refuses);
    tcase_add_test(tc, damaged_corpus);
    tcase_add_test(tc, loader_absent);
    tcase_add_test(tc, codec_option);
    suite_add_tcase(s, tc);
    return s;
}

/* ---- on a CUDA device ---- */

static gpuimg_ctx *cuda_ctx(gpuimg_backend **be)
{
    gpuimg_config cfg;
    gpuimg_config_init(&cfg);
    cfg.backend = GPUIMG_BACKEND_CUDA;
    gpuimg_ctx *ctx;
    ck_assert_int_eq(gpuimg_ctx_create(&cfg, &ctx), GPUIMG_OK);
    ck_assert_int_eq(gpuimg__backend(ctx, be), GPUIMG_OK);
    ck_assert_msg(gpuimg__jpeg_device(ctx, *be) == 1, "nvJPEG: %s", gpuimg_ctx_error(ctx));
    return ctx;
}

/* n files decoded on the device in one call; out[i] downloaded. */
static void gpu_decode(gpuimg_ctx *ctx, gpuimg_backend *be, int n, uint8_t **jpeg, size_t *len,
                       gpuimg_image *out, int *refused)
{
    gpuimg__jpeg_file f[16], *fp[16];
    gpuimg_planes p[16];
    ck_assert_int_le(n, 16);
    for (int i = 0; i < n; i++) {
        int eligible = 0;
        ck_assert_int_eq(gpuimg__jpeg_probe(ctx, "test", jpeg[i], len[i], &f[i], &eligible),
                         GPUIMG_OK);
        ck_assert(eligible);
        fp[i] = &f[i];
    }
    ck_assert_msg(gpuimg__jpeg_decode(ctx, be, n, fp, p, refused) == GPUIMG_OK, "%s",
                  gpuimg_ctx_error(ctx));
    for (int i = 0; i < n; i++) {
        memset(&out[i], 0, sizeof out[i]);
        if (!refused[i]) {
            ck_assert_int_eq(gpuimg__download(ctx, be, &p[i], &out[i]), GPUIMG_OK);
            be->ops->planes_free(be, &p[i]);
        }
        gpuimg__jpeg_file_free(&f[i]);
    }
}

/* The samples (photographs) and the test card, at every subsampling, at
 * sizes that are and are not whole MCUs. */
START_TEST(decode_like_libjpeg)
{
    gpuimg_backend *be;
    gpuimg_ctx *ctx = cuda_ctx(&be);
    gpuimg_ctx *cpu = NULL;
    gpuimg_config cfg;
    gpuimg_config_init(&cfg);
    cfg.backend = GPUIMG_BACKEND_CPU;
    ck_assert_int_eq(gpuimg_ctx_create(&cfg, &cpu), GPUIMG_OK);
    static const char *const samples[] = {"astronaut.png", "chelsea.png", "coffee.png",
                                          "camera.png", NULL};
    static const int samps[] = {TJSAMP_420, TJSAMP_422, TJSAMP_444, TJSAMP_GRAY};
    const char *root = getenv("GPUIMG_SAMPLES") ? getenv("GPUIMG_SAMPLES") : "samples";
    double worst = INFINITY;
    for (int k = 0; k <= 4; k++) {
        gpuimg_image src;
        if (samples[k]) {
            char path[1024];
            snprintf(path, sizeof path, "%s/%s", root, samples[k]);
            tu_load(cpu, path, &src);
        } else {
            card(&src, 1001, 333, 3);
        }
        for (int s = 0; s < 4; s++) {
            gpuimg_image in;
            if (samps[s] == TJSAMP_GRAY || src.channels == 1) {
                gpuimg_image g;
                ck_assert_int_eq(gpuimg_image_alloc(&g, src.width, src.height, 1), GPUIMG_OK);
                for (size_t i = 0; i < (size_t)src.width * src.height; i++)
                    g.data[i] = src.data[i * src.channels];
                in = g;
            } else {
                ck_assert_int_eq(gpuimg_image_alloc(&in, src.width, src.height, 3), GPUIMG_OK);
                memcpy(in.data, src.data, (size_t)src.width * src.height * 3);
            }
            int samp = in.channels == 1 ? TJSAMP_GRAY : samps[s];
            /* progressive files are the CPU's (scan_shapes) */
            {
                const int prog = 0;
                size_t len;
                uint8_t *jpeg = tj_encode(&in, samp, prog ? TJFLAG_PROGRESSIVE : 0, 90, &len);
                gpuimg_image want, got;
                ck_assert_int_eq(gpuimg_load_memory(cpu, jpeg, len, "t.jpg", &want), GPUIMG_OK);
                int refused;
                gpu_decode(ctx, be, 1, &jpeg, &len, &got, &refused);
                ck_assert_msg(!refused, "sample %d samp %d prog %d refused", k, samp, prog);
                double db = tu_psnr(&got, &want);
                printf("nvjpeg decode: %s subsampling %d%s: %.1f dB against libjpeg-turbo\n",
                       samples[k] ? samples[k] : "card 1001x333", samp, prog ? " progressive" : "",
                       db);
                ck_assert_msg(db >= 50, "%.2f dB", db);
                gpuimg_image_free(&want);
                gpuimg_image_free(&got);
                free(jpeg);
            }
            gpuimg_image_free(&in);
        }
        gpuimg_image_free(&src);
    }
    ck_assert_msg(worst >= 50, "the worst file: %.2f dB", worst);
    gpuimg_ctx_destroy(cpu);
    gpuimg_ctx_destroy(ctx);
}
END_TEST

/* The device's encode read back by libjpeg-turbo: against the source, at
 * least 40 dB at quality 90 on the test card, and on the photographs
 * (where libjpeg-turbo's own quality 90 gives 35-40 dB) within 1 dB of
 * what libjpeg-turbo's encoder gives at the same quality and subsampling. */
START_TEST(encode_read_back)
{
    gpuimg_backend *be;
    gpuimg_ctx *ctx = cuda_ctx(&be);
    const char *root = getenv("GPUIMG_SAMPLES") ? getenv("GPUIMG_SAMPLES") : "samples";
    static const char *const samples[] = {"astronaut.png", "coffee.png", "camera.png", NULL};
    for (int k = 0; k < 4; k++)
        for (int q = 0; q < 2; q++) { /* 90: 4:2:0; 95: 4:4:4 */
            int quality = q ? 95 : 90;
            gpuimg_image src, back, cpu_back;
            if (samples[k]) {
                char path[1024];
                snprintf(path, sizeof path, "%s/%s", root, samples[k]);
                tu_load(ctx, path, &src);
            } else {
                card(&src, 1001, 333, 3);
            }
            gpuimg_planes p;
            ck_assert_int_eq(gpuimg__upload(ctx, be, &src, &p), GPUIMG_OK);
            uint8_t *jpeg;
            size_t len;
            ck_assert_int_eq(be->ops->jpeg_encode(be, &p, quality, &jpeg, &len), GPUIMG_OK);
            be->ops->planes_free(be, &p);
            tjhandle tj = tjInitDecompress();
            int w, h, samp, cs;
            ck_assert_int_eq(tjDecompressHeader3(tj, jpeg, len, &w, &h, &samp, &cs), 0);
            tjDestroy(tj);
            int want_samp = src.channels == 1 ? TJSAMP_GRAY : q ? TJSAMP_444 : TJSAMP_420;
            ck_assert_int_eq(samp, want_samp);
            ck_assert_int_eq(gpuimg_load_memory(ctx, jpeg, len, "gpu.jpg", &back), GPUIMG_OK);
            size_t cpu_len;
            uint8_t *cpu_jpeg = tj_encode(&src, want_samp, 0, quality, &cpu_len);
            ck_assert_int_eq(gpuimg_load_memory(ctx, cpu_jpeg, cpu_len, "cpu.jpg", &cpu_back),
                             GPUIMG_OK);
            double db = tu_psnr(&back, &src), cpu_db = tu_psnr(&cpu_back, &src);
            printf("nvjpeg encode: %s at quality %d: %zu bytes, %.1f dB against the source "
                   "(libjpeg-turbo: %zu bytes, %.1f dB)\n",
                   samples[k] ? samples[k] : "card 1001x333", quality, len, db, cpu_len, cpu_db);
            ck_assert_msg(db >= cpu_db - 1, "%.2f dB, libjpeg-turbo %.2f", db, cpu_db);
            if (!samples[k])
                ck_assert_msg(db >= 40, "%.2f dB", db);
            free(jpeg);
            free(cpu_jpeg);
            gpuimg_image_free(&src);
            gpuimg_image_free(&back);
            gpuimg_image_free(&cpu_back);
        }
    gpuimg_ctx_destroy(ctx);
}
END_TEST

/* torchcodec#1634: batched hardware decode corrupting images on an H100.
 * Sixteen files of different sizes, subsamplings and components in one
 * call, twice over, against each alone: byte for byte. */
START_TEST(batched_equals_single)
{
    gpuimg_backend *be;
    gpuimg_ctx *ctx = cuda_ctx(&be);
    enum { N = 16 };
    uint8_t *jpeg[N];
    size_t len[N];
    static const int samps[] = {TJSAMP_420, TJSAMP_422, TJSAMP_444, TJSAMP_GRAY};
    for (int i = 0; i < N; i++) {
        gpuimg_image img;
        int samp = samps[i % 4];
        card(&img, 200 + 97 * i, 150 + 61 * (N - i), samp == TJSAMP_GRAY ? 1 : 3);
        jpeg[i] = tj_encode(&img, samp, 0, 80 + i, &len[i]);
        gpuimg_image_free(&img);
    }
    gpuimg_image one[N], all[N];
    int refused[N];
    for (int i = 0; i < N; i++) {
        gpu_decode(ctx, be, 1, &jpeg[i], &len[i], &one[i], &refused[i]);
        ck_assert(!refused[i]);
    }
    for (int round = 0; round < 2; round++) {
        gpu_decode(ctx, be, N, jpeg, len, all, refused);
        for (int i = 0; i < N; i++) {
            ck_assert(!refused[i]);
            char msg[256];
            ck_assert_msg(tu_images_agree(&all[i], &one[i], 1, msg, sizeof msg),
                          "file %d of the batch, round %d: %s", i, round, msg);
            gpuimg_image_free(&all[i]);
        }
    }
    for (int i = 0; i < N; i++) {
        gpuimg_image_free(&one[i]);
        free(jpeg[i]);
    }
    gpuimg_ctx_destroy(ctx);
}
END_TEST

/* EXIF Orientation 6 read on the CPU, turned on the device: the same
 * picture as the CPU's decode, and the output says Orientation 1. */
START_TEST(orientation_on_device)
{
    const char *dir = tu_tmpdir();
    char in[512], gpu[512], cpu[512];
    snprintf(in, sizeof in, "%s/rot.jpg", dir);
    snprintf(gpu, sizeof gpu, "%s/gpu.png", dir);
    snprintf(cpu, sizeof cpu, "%s/cpu.png", dir);
    gpuimg_image img;
    card(&img, 161, 97, 3);
    static const uint8_t exif[] = {'I', 'I', 42, 0, 8, 0, 0, 0, 1, 0, 0x12, 0x01, 3,
                                   0,   1,   0,  0, 0, 6, 0, 0, 0, 0, 0,    0,    0};
    ck_assert_ptr_nonnull(img.meta = calloc(1, sizeof *img.meta));
    img.meta->exif = malloc(sizeof exif);
    memcpy(img.meta->exif, exif, sizeof exif);
    img.meta->exif_len = sizeof exif;
    gpuimg_ctx *ctx = tu_ctx();
    ck_assert_int_eq(gpuimg_save(ctx, in, GPUIMG_FORMAT_NONE, &img), GPUIMG_OK);
    gpuimg_image_free(&img);
    ck_assert_int_eq(tu_run((const char *const[]){tu_bin(), "--backend", "cuda", "--jpeg-codec",
                                                  "gpu", "invert", in, gpu, NULL},
                            NULL, NULL, NULL),
                     0);
    ck_assert_int_eq(tu_run((const char *const[]){tu_bin(), "--backend", "cuda", "--jpeg-codec",
                                                  "cpu", "invert", in, cpu, NULL},
                            NULL, NULL, NULL),
                     0);
    gpuimg_image a, b;
    tu_load(ctx, gpu, &a);
    tu_load(ctx, cpu, &b);
    ck_assert_int_eq(a.width, 97);
    ck_assert_int_eq(a.height, 161);
    double db = tu_psnr(&a, &b);
    ck_assert_msg(db >= 50, "%.2f dB", db);
    ck_assert_ptr_nonnull(a.meta);
    ck_assert_int_eq(gpuimg__exif_orientation(a.meta->exif, a.meta->exif_len), 1);
    gpuimg_image_free(&a);
    gpuimg_image_free(&b);
    gpuimg_ctx_destroy(ctx);
}
END_TEST

/* A folder through `batch` on the device codec: every output equal to
 * `run` of its file; a cut file in the middle fails alone (exit 1, its
 * name said, no output for it, every other written). GPUIMG_NVJPEG=none:
 * one notice and libjpeg-turbo, the same bytes as --jpeg-codec cpu. */
START_TEST(batch_like_run)
{
    const char *dir = tu_tmpdir();
    char in[512], out[512], ref[512], path[1024], o[1024], r[1024];
    snprintf(in, sizeof in, "%s/in", dir);
    snprintf(out, sizeof out, "%s/out", dir);
    snprintf(ref, sizeof ref, "%s/ref", dir);
    ck_assert_int_eq(mkdir(in, 0755), 0);
    ck_assert_int_eq(mkdir(ref, 0755), 0);
    enum { N = 11, BAD = 6 };
    for (int i = 0; i < N; i++) {
        gpuimg_image img;
        card(&img, 300 + 37 * i, 200 + 11 * i, i % 3 == 2 ? 1 : 3);
        size_t len;
        uint8_t *jpeg = tj_encode(&img,
                                  i % 3 == 2 ? TJSAMP_GRAY
                                  : i % 2    ? TJSAMP_444
                                             : TJSAMP_420,
                                  i == 3 ? TJFLAG_PROGRESSIVE : 0, 90, &len);
        snprintf(path, sizeof path, "%s/f%02d.jpg", in, i);
        tu_write_file(path, jpeg, i == BAD ? len / 2 : len);
        free(jpeg);
        gpuimg_image_free(&img);
    }
    /* a PNG among them: decoded on the CPU, encoded on the device */
    snprintf(path, sizeof path, "%s/f99.png", in);
    gpuimg_image img;
    card(&img, 99, 51, 3);
    ck_assert_int_eq(gpuimg_save(tu_ctx(), path, GPUIMG_FORMAT_NONE, &img), GPUIMG_OK);
    gpuimg_image_free(&img);
    char *err = NULL;
    ck_assert_int_eq(tu_run((const char *const[]){tu_bin(), "-q", "--backend", "cuda", "batch", in,
                                                  out, "--format", "jpg", "blur:sigma=2", NULL},
                            NULL, NULL, &err),
                     1);
    ck_assert_msg(strstr(err, "f06.jpg") != NULL, "%s", err);
    free(err);
    ck_assert_int_eq(tu_count_entries(out), N);
    for (int i = 0; i <= N; i++) {
        int k = i == N ? 99 : i;
        snprintf(path, sizeof path, "%s/f%02d.%s", in, k, k == 99 ? "png" : "jpg");
        snprintf(o, sizeof o, "%s/f%02d.jpg", out, k);
        snprintf(r, sizeof r, "%s/f%02d.jpg", ref, k);
        int rc = tu_run((const char *const[]){tu_bin(), "-q", "--backend", "cuda", "run", path, r,
                                              "blur:sigma=2", NULL},
                        NULL, NULL, NULL);
        if (k == BAD) { /* a damaged file: exit 3, as for any undecodable input */
            ck_assert_int_eq(rc, 3);
            ck_assert_int_eq(access(o, F_OK), -1);
            continue;
        }
        ck_assert_int_eq(rc, 0);
        ck_assert_msg(tu_same_file(o, r), "%s: batch and run differ", o);
    }
    /* nvJPEG absent: a notice, libjpeg-turbo, and --jpeg-codec cpu's bytes */
    snprintf(path, sizeof path, "%s/f00.jpg", in);
    snprintf(o, sizeof o, "%s/none.jpg", dir);
    snprintf(r, sizeof r, "%s/cpu.jpg", dir);
    setenv("GPUIMG_NVJPEG", "none", 1);
    int rc = tu_run(
        (const char *const[]){tu_bin(), "--backend", "cuda", "run", path, o, "blur:sigma=2", NULL},
        NULL, NULL, &err);
    int rc_gpu = tu_run((const char *const[]){tu_bin(), "--backend", "cuda", "--jpeg-codec", "gpu",
                                              "invert", path, r, NULL},
                        NULL, NULL, NULL);
    unsetenv("GPUIMG_NVJPEG");
    ck_assert_int_eq(rc, 0);
    ck_assert_msg(strstr(err, "JPEG on the CPU") && strstr(err, "disabled"), "%s", err);
    free(err);
    ck_assert_int_eq(rc_gpu, 4);
    ck_assert_int_eq(tu_run((const char *const[]){tu_bin(), "--backend", "cuda", "--jpeg-codec",
                                                  "cpu", "run", path, r, "blur:sigma=2", NULL},
                            NULL, NULL, NULL),
                     0);
    ck_assert(tu_same_file(o, r));
}
END_TEST

/* A corpus file's name in one folder: public/x.jpg as public_x.jpg. */
static void flat_name(char *flat, size_t len, const char *name)
{
    snprintf(flat, len, "%.127s", name);
    for (char *c = flat; *c; c++)
        *c = *c == '/' ? '_' : *c;
}

/* The damaged-JPEG corpus on the device (issue 26: three cut files of a
 * public corpus decoded there with exit 0): `batch` and `run` with the
 * device's codec, and `run` on the CPU, give every file the same exit
 * code, the one libjpeg-turbo's verdict says (0 or 3), and `batch` writes
 * an output exactly for the files that decode. */
START_TEST(damaged_agree)
{
    static char names[DAMAGED_MAX][128];
    int ok[DAMAGED_MAX];
    int n = damaged_rows(names, ok), failed = 0;
    const char *dir = tu_tmpdir();
    char in[512], out[512], flat[256], path[1024], o[1024];
    snprintf(in, sizeof in, "%s/in", dir);
    snprintf(out, sizeof out, "%s/out", dir);
    ck_assert_int_eq(mkdir(in, 0755), 0);
    for (int i = 0; i < n; i++) {
        flat_name(flat, sizeof flat, names[i]);
        size_t len;
        char *data = tu_read_file(damaged_path(names[i]), &len);
        snprintf(path, sizeof path, "%s/%s", in, flat);
        tu_write_file(path, data, len);
        free(data);
        failed += !ok[i];
    }
    char *err = NULL;
    int rc =
        tu_run((const char *const[]){tu_bin(), "-q", "--backend", "cuda", "--jpeg-codec", "gpu",
                                     "batch", in, out, "--format", "png", "invert", NULL},
               NULL, NULL, &err);
    ck_assert_msg(rc == (failed ? 1 : 0), "batch exits %d: %.300s", rc, err);
    free(err);
    for (int i = 0; i < n; i++) {
        flat_name(flat, sizeof flat, names[i]);
        snprintf(path, sizeof path, "%s/%s", in, flat);
        snprintf(o, sizeof o, "%s/%.*s.png", out, (int)(strrchr(flat, '.') - flat), flat);
        int in_batch = access(o, F_OK) == 0 ? 0 : 3;
        char r[1024];
        snprintf(r, sizeof r, "%s/run.png", dir);
        int rc_gpu = tu_run((const char *const[]){tu_bin(), "-q", "--backend", "cuda",
                                                  "--jpeg-codec", "gpu", "invert", path, r, NULL},
                            NULL, NULL, NULL);
        int rc_cpu = tu_run(
            (const char *const[]){tu_bin(), "-q", "--backend", "cpu", "invert", path, r, NULL},
            NULL, NULL, NULL);
        ck_assert_msg(rc_cpu == (ok[i] ? 0 : 3), "%s: the CPU's exit %d", names[i], rc_cpu);
        ck_assert_msg(rc_gpu == rc_cpu, "%s: run on the GPU exits %d, on the CPU %d", names[i],
                      rc_gpu, rc_cpu);
        ck_assert_msg(in_batch == rc_cpu, "%s: batch on the GPU %s it, run on the CPU exits %d",
                      names[i], in_batch ? "failed" : "wrote", rc_cpu);
    }
}
END_TEST

/* One 20000x15000 JPEG among small ones (issue 26): the batch on the
 * device neither fails nor runs out of device memory; every output is
 * written with the input's size. */
START_TEST(huge_among_small)
{
    const char *dir = tu_tmpdir();
    char in[512], out[512], path[1024];
    snprintf(in, sizeof in, "%s/in", dir);
    snprintf(out, sizeof out, "%s/out", dir);
    ck_assert_int_eq(mkdir(in, 0755), 0);
    gpuimg_image img;
    enum { W = 20000, H = 15000 };
    ck_assert_int_eq(gpuimg_image_alloc(&img, W, H, 3), GPUIMG_OK);
    for (size_t y = 0; y < H; y++) /* smooth bands: a small file, fast to encode */
        memset(img.data + y * W * 3, (int)(y * 255 / H), (size_t)W * 3);
    size_t len;
    uint8_t *jpeg = tj_encode(&img, TJSAMP_420, 0, 75, &len);
    gpuimg_image_free(&img);
    snprintf(path, sizeof path, "%s/m_huge.jpg", in);
    tu_write_file(path, jpeg, len);
    free(jpeg);
    for (int i = 0; i < 16; i++) {
        card(&img, 640 + i, 480, 3);
        jpeg = tj_encode(&img, TJSAMP_420, 0, 90, &len);
        snprintf(path, sizeof path, "%s/%c_small%02d.jpg", in, i < 8 ? 'a' : 'z', i);
        tu_write_file(path, jpeg, len);
        free(jpeg);
        gpuimg_image_free(&img);
    }
    char *err = NULL;
    ck_assert_int_eq(tu_run((const char *const[]){tu_bin(), "-q", "--backend", "cuda", "batch", in,
                                                  out, "blur:sigma=2", NULL},
                            NULL, NULL, &err),
                     0);
    free(err);
    ck_assert_int_eq(tu_count_entries(out), 17);
    gpuimg_file_info fi;
    snprintf(path, sizeof path, "%s/m_huge.jpg", out);
    gpuimg_ctx *ctx = tu_ctx();
    ck_assert_int_eq(gpuimg_probe(ctx, path, &fi), GPUIMG_OK);
    gpuimg_ctx_destroy(ctx);
    ck_assert_int_eq(fi.width, W);
    ck_assert_int_eq(fi.height, H);
}
END_TEST

Suite *nvjpeg_suite(void)
{
    Suite *s = suite_create("nvjpeg");
    TCase *tc = tu_tcase("nvjpeg");
    tcase_add_test(tc, decode_like_libjpeg);
    tcase_add_test(tc, encode_read_back);
    tcase_add_test(tc, batched_equals_single);
    tcase_add_test(tc, orientation_on_device);
    tcase_add_test(tc, batch_like_run);
    tcase_add_test(tc, damaged_agree);
    tcase_add_test(tc, huge_among_small);
    suite_add_tcase(s, tc);
    return s;
}
