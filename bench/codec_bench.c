/* SPDX-License-Identifier: MIT */
/* The codecs on one photograph, beside the libraries they replace: PNG
 * encoding against single-threaded libpng at the same level (the speed-up
 * and the size), PNG decoding against libpng and stb_image, JPEG both ways
 * against stb_image / stb_image_write. Medians of REPS runs, in one process.
 * Usage: codec_bench IN.png IN.jpg [THREADS] (THREADS 0: every core). */
#define _POSIX_C_SOURCE 200809L
#include <png.h>
#include <stb_image.h>
#include <stb_image_write.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "gpuimg.h"

#define REPS 5
#define SLOW_REPS 1 /* single-threaded encoding at level 6 takes 20 s on the GPU machine */

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, by_value);
    return v[n / 2];
}

static void die(const char *what)
{
    fprintf(stderr, "codec_bench: %s\n", what);
    exit(1);
}

static uint8_t *read_all(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        die(path);
    fseek(f, 0, SEEK_END);
    *len = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *d = malloc(*len);
    if (!d || fread(d, 1, *len, f) != *len)
        die(path);
    fclose(f);
    return d;
}

struct membuf {
    uint8_t *data;
    size_t len, cap;
};

static void mem_grow(struct membuf *m, const void *src, size_t n)
{
    if (m->len + n > m->cap) {
        m->cap = (m->len + n) * 2;
        if (!(m->data = realloc(m->data, m->cap)))
            die("out of memory");
    }
    memcpy(m->data + m->len, src, n);
    m->len += n;
}

static void png_mem_write(png_structp png, png_bytep src, size_t n)
{
    mem_grow(png_get_io_ptr(png), src, n);
}

static void png_mem_flush(png_structp png)
{
    (void)png;
}

static void stb_mem_write(void *user, void *data, int n)
{
    mem_grow(user, data, (size_t)n);
}

/* libpng as an application uses it: default filter heuristic, one thread. */
static size_t libpng_encode(const gpuimg_image *img, int level)
{
    struct membuf m = {0};
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
    png_infop info = png_create_info_struct(png);
    if (!info || setjmp(png_jmpbuf(png)))
        die("libpng write failed");
    png_set_write_fn(png, &m, png_mem_write, png_mem_flush);
    png_set_compression_level(png, level);
    png_set_IHDR(png, info, (png_uint_32)img->width, (png_uint_32)img->height, 8,
                 img->channels == 4 ? PNG_COLOR_TYPE_RGB_ALPHA : PNG_COLOR_TYPE_RGB,
                 PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_write_info(png, info);
    for (int y = 0; y < img->height; y++)
        png_write_row(png, img->data + (size_t)y * img->width * img->channels);
    png_write_end(png, NULL);
    png_destroy_write_struct(&png, &info);
    free(m.data);
    return m.len;
}

static void libpng_decode(const uint8_t *data, size_t len, uint8_t *out)
{
    png_image im;
    memset(&im, 0, sizeof im);
    im.version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_memory(&im, data, len))
        die(im.message);
    im.format = PNG_FORMAT_RGB;
    if (!png_image_finish_read(&im, NULL, out, 0, NULL))
        die(im.message);
}

static gpuimg_ctx *make_ctx(int threads, int level)
{
    gpuimg_config cfg;
    gpuimg_config_init(&cfg);
    cfg.backend = GPUIMG_BACKEND_CPU;
    cfg.threads = threads;
    cfg.png_level = level;
    gpuimg_ctx *ctx;
    if (gpuimg_ctx_create(&cfg, &ctx) != GPUIMG_OK)
        die("context");
    return ctx;
}

static size_t file_size(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0 ? (size_t)sb.st_size : 0;
}

/* gpuimg_save to a file (the write included), median ms; *bytes the size. */
static double gpuimg_encode(gpuimg_ctx *ctx, const gpuimg_image *img, const char *path, int reps,
                            size_t *bytes)
{
    double t[REPS];
    for (int r = 0; r < reps; r++) {
        double t0 = now_ms();
        if (gpuimg_save(ctx, path, GPUIMG_FORMAT_NONE, img) != GPUIMG_OK)
            die(gpuimg_ctx_error(ctx));
        t[r] = now_ms() - t0;
    }
    *bytes = file_size(path);
    return median(t, reps);
}

int main(int argc, char **argv)
{
    if (argc < 3)
        die("usage: codec_bench IN.png IN.jpg [THREADS]");
    int threads = argc > 3 ? atoi(argv[3]) : 0;
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    int n = threads > 0 ? threads : (int)cores;
    size_t png_len, jpg_len;
    uint8_t *png = read_all(argv[1], &png_len), *jpg = read_all(argv[2], &jpg_len);
    gpuimg_ctx *ctx = make_ctx(threads, 6);
    gpuimg_image img, jimg;
    if (gpuimg_load_memory(ctx, png, png_len, argv[1], &img) != GPUIMG_OK ||
        gpuimg_load_memory(ctx, jpg, jpg_len, argv[2], &jimg) != GPUIMG_OK)
        die(gpuimg_ctx_error(ctx));
    size_t bytes = (size_t)img.width * img.height * img.channels;
    printf("%s: %dx%d, %d channels (%.1f MB of pixels), %zu bytes; %s: %zu bytes; "
           "%d threads of %ld cores\n",
           argv[1], img.width, img.height, img.channels, bytes / 1e6, png_len, argv[2], jpg_len, n,
           cores);
    printf("%-34s %10s %12s %9s\n", "", "ms", "bytes", "speed-up");
    char tmp_png[64], tmp_jpg[64];
    snprintf(tmp_png, sizeof tmp_png, "/tmp/codec_bench_%d.png", (int)getpid());
    snprintf(tmp_jpg, sizeof tmp_jpg, "/tmp/codec_bench_%d.jpg", (int)getpid());
    double t[REPS];

    /* PNG encoding, levels 6 and 1 */
    static const int levels[] = {6, 1};
    for (int l = 0; l < 2; l++) {
        int level = levels[l];
        size_t ref = 0, ours1, oursn;
        for (int r = 0; r < SLOW_REPS; r++) {
            double t0 = now_ms();
            ref = libpng_encode(&img, level);
            t[r] = now_ms() - t0;
        }
        double ref_ms = median(t, SLOW_REPS);
        gpuimg_ctx *one = make_ctx(1, level), *all = make_ctx(threads, level);
        double one_ms = gpuimg_encode(one, &img, tmp_png, SLOW_REPS, &ours1);
        double all_ms = gpuimg_encode(all, &img, tmp_png, REPS, &oursn);
        printf("PNG encode level %d, libpng 1 thread %10.1f %12zu %9s\n", level, ref_ms, ref,
               "1.00");
        printf("PNG encode level %d, gpuimg 1 thread %10.1f %12zu %8.2fx  size %+.2f%%\n", level,
               one_ms, ours1, ref_ms / one_ms, 100.0 * ((double)ours1 / (double)ref - 1));
        printf("PNG encode level %d, gpuimg %2d thr.  %10.1f %12zu %8.2fx  size %+.2f%%\n", level,
               n, all_ms, oursn, ref_ms / all_ms, 100.0 * ((double)oursn / (double)ref - 1));
        gpuimg_ctx_destroy(one);
        gpuimg_ctx_destroy(all);
    }

    /* PNG decoding */
    uint8_t *px = malloc(bytes);
    for (int r = 0; r < REPS; r++) {
        double t0 = now_ms();
        libpng_decode(png, png_len, px);
        t[r] = now_ms() - t0;
    }
    double libpng_ms = median(t, REPS);
    for (int r = 0; r < REPS; r++) {
        double t0 = now_ms();
        int w, h, c;
        stbi_image_free(stbi_load_from_memory(png, (int)png_len, &w, &h, &c, 0));
        t[r] = now_ms() - t0;
    }
    double stb_ms = median(t, REPS);
    gpuimg_ctx *one = make_ctx(1, 6);
    gpuimg_ctx *ctxs[2] = {one, ctx};
    double ours[2];
    for (int k = 0; k < 2; k++) {
        for (int r = 0; r < REPS; r++) {
            gpuimg_image back;
            double t0 = now_ms();
            if (gpuimg_load_memory(ctxs[k], png, png_len, "png", &back) != GPUIMG_OK)
                die(gpuimg_ctx_error(ctxs[k]));
            t[r] = now_ms() - t0;
            if (memcmp(back.data, px, bytes) != 0)
                die("PNG decoders disagree");
            gpuimg_image_free(&back);
        }
        ours[k] = median(t, REPS);
    }
    printf("PNG decode, libpng                 %10.1f %12s %9s\n", libpng_ms, "", "1.00");
    printf("PNG decode, stb_image              %10.1f %12s %8.2fx\n", stb_ms, "",
           libpng_ms / stb_ms);
    printf("PNG decode, gpuimg 1 thread        %10.1f %12s %8.2fx\n", ours[0], "",
           libpng_ms / ours[0]);
    printf("PNG decode, gpuimg %2d threads      %10.1f %12s %8.2fx\n", n, ours[1], "",
           libpng_ms / ours[1]);

    /* JPEG */
    for (int r = 0; r < REPS; r++) {
        double t0 = now_ms();
        int w, h, c;
        stbi_image_free(stbi_load_from_memory(jpg, (int)jpg_len, &w, &h, &c, 0));
        t[r] = now_ms() - t0;
    }
    double stb_dec = median(t, REPS);
    for (int r = 0; r < REPS; r++) {
        gpuimg_image back;
        double t0 = now_ms();
        if (gpuimg_load_memory(ctx, jpg, jpg_len, "jpg", &back) != GPUIMG_OK)
            die(gpuimg_ctx_error(ctx));
        t[r] = now_ms() - t0;
        gpuimg_image_free(&back);
    }
    double our_dec = median(t, REPS);
    size_t stb_bytes = 0, our_bytes;
    for (int r = 0; r < REPS; r++) {
        struct membuf m = {0};
        double t0 = now_ms();
        stbi_write_jpg_to_func(stb_mem_write, &m, jimg.width, jimg.height, jimg.channels, jimg.data,
                               90);
        t[r] = now_ms() - t0;
        stb_bytes = m.len;
        free(m.data);
    }
    double stb_enc = median(t, REPS);
    double our_enc = gpuimg_encode(ctx, &jimg, tmp_jpg, REPS, &our_bytes);
    printf("JPEG decode, stb_image             %10.1f %12s %9s\n", stb_dec, "", "1.00");
    printf("JPEG decode, gpuimg (libjpeg-turbo)%10.1f %12s %8.2fx\n", our_dec, "",
           stb_dec / our_dec);
    printf("JPEG encode q90, stb_image_write   %10.1f %12zu %9s\n", stb_enc, stb_bytes, "1.00");
    printf("JPEG encode q90, gpuimg            %10.1f %12zu %8.2fx\n", our_enc, our_bytes,
           stb_enc / our_enc);
    unlink(tmp_png);
    unlink(tmp_jpg);
    free(px);
    gpuimg_image_free(&img);
    gpuimg_image_free(&jimg);
    gpuimg_ctx_destroy(one);
    gpuimg_ctx_destroy(ctx);
    free(png);
    free(jpg);
    return 0;
}
