/* SPDX-License-Identifier: MIT */
/* PNG reading through libpng: it checks every chunk's CRC and the stream's
 * completeness (stb_image does neither). Writing is io_png_write.c. */
#include <errno.h>
#include <png.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

#include "io/io.h"

struct png_job {
    gpuimg_ctx *ctx;
    const char *name;
    const uint8_t *data;
    size_t size, pos;
    int hit_end; /* the reader ran out of bytes: truncated file */
    char message[200];
};

static void on_error(png_structp png, png_const_charp msg)
{
    struct png_job *job = png_get_error_ptr(png);
    snprintf(job->message, sizeof job->message, "%s", msg);
    png_longjmp(png, 1);
}

static void on_warning(png_structp png, png_const_charp msg)
{
    (void)png;
    (void)msg; /* ancillary-chunk complaints: libpng recovers, and so do we */
}

static void read_bytes(png_structp png, png_bytep dst, size_t len)
{
    struct png_job *job = png_get_io_ptr(png);
    if (len > job->size - job->pos) {
        job->hit_end = 1;
        png_error(png, "unexpected end of file");
    }
    memcpy(dst, job->data + job->pos, len);
    job->pos += len;
}

int gpuimg__is_png(const uint8_t *data, size_t size)
{
    return size >= 8 && png_sig_cmp(data, 0, 8) == 0;
}

gpuimg_status gpuimg__decode_png(gpuimg_ctx *ctx, const uint8_t *data, size_t size,
                                 const char *name, gpuimg_image *out)
{
    /* The size is refused from IHDR (always the first chunk, right after the
     * 8-byte signature) before libpng reads on: png_read_info would read up
     * to the first IDAT and could fail for another reason first. */
    if (size >= 24 && memcmp(data + 12, "IHDR", 4) == 0) {
        gpuimg_status st =
            gpuimg__check_size(ctx, name, gpuimg__be32(data + 16), gpuimg__be32(data + 20));
        if (st == GPUIMG_ERR_TOO_LARGE)
            return st;
    }
    int fast = gpuimg__decode_png_fast(ctx, data, size, out);
    if (fast > 0)
        return GPUIMG_OK;
    if (fast < 0)
        return gpuimg__fail(ctx, GPUIMG_ERR_NOMEM, "%s: out of memory", name);
    /* A chunk that claims more bytes than the file has left is a cut file.
     * Said here, before libpng, which would first allocate what an ancillary
     * chunk claims (a fuzzed iTXt of 1.8 GB in a 302-byte file) whatever
     * png_set_chunk_malloc_max says. */
    for (size_t pos = 8; size - pos >= 8;) {
        uint32_t len = gpuimg__be32(data + pos);
        if (len > size - pos - 8)
            return gpuimg__fail(ctx, GPUIMG_ERR_DECODE, "%s: not a supported image (truncated PNG)",
                                name);
        if (memcmp(data + pos + 4, "IEND", 4) == 0)
            break;
        pos += (size_t)len + 12 <= size - pos ? (size_t)len + 12 : size - pos;
    }
    return gpuimg__decode_png_libpng(ctx, data, size, name, out);
}

gpuimg_status gpuimg__decode_png_libpng(gpuimg_ctx *ctx, const uint8_t *data, size_t size,
                                        const char *name, gpuimg_image *out)
{
    memset(out, 0, sizeof *out);
    /* The callbacks write into job between setjmp and longjmp; on the heap,
     * behind a pointer that never changes, its contents stay defined. */
    struct png_job *job = calloc(1, sizeof *job);
    png_structp png =
        job ? png_create_read_struct(PNG_LIBPNG_VER_STRING, job, on_error, on_warning) : NULL;
    png_infop info = png ? png_create_info_struct(png) : NULL;
    if (!info) {
        png_destroy_read_struct(&png, NULL, NULL);
        free(job);
        return gpuimg__fail(ctx, GPUIMG_ERR_NOMEM, "%s: out of memory", name);
    }
    *job = (struct png_job){.ctx = ctx, .name = name, .data = data, .size = size};
    /* Set inside the setjmp region, so volatile keeps them valid after a longjmp. */
    gpuimg_image *volatile img = NULL;
    png_bytep *volatile rows = NULL;
    gpuimg_status volatile st = GPUIMG_ERR_DECODE;

    if (setjmp(png_jmpbuf(png))) {
        if (st == GPUIMG_ERR_DECODE) {
            if (job->hit_end)
                gpuimg__fail(ctx, st, "%s: not a supported image (truncated PNG)", name);
            else
                gpuimg__fail(ctx, st, "%s: not a supported image (damaged PNG: %s)", name,
                             job->message);
        }
        goto done;
    }
    png_set_read_fn(png, job, read_bytes);
    /* Our own limits apply (checked below with a clear message); libpng's
     * default 1,000,000 would only give a vaguer one. */
    png_set_user_limits(png, 0x7fffffff, 0x7fffffff);
    /* An ancillary chunk's inflated text or profile: 64 MiB holds any real
     * one (libpng's own limit is higher, or none). */
    png_set_chunk_malloc_max(png, (png_alloc_size_t)64 << 20);
    png_read_info(png, info);
    png_uint_32 w = png_get_image_width(png, info), h = png_get_image_height(png, info);
    if ((st = gpuimg__check_size(ctx, name, w, h)) != GPUIMG_OK)
        goto done;
    st = GPUIMG_ERR_DECODE;
    /* 16-bit samples stay 16 bits (SPEC §2), in the machine's byte order. */
    int depth = png_get_bit_depth(png, info) == 16 ? 16 : 8;
    png_set_expand(png); /* palette -> RGB, gray < 8 bits -> 8, tRNS -> alpha */
    if (depth == 16) {
        const uint16_t one = 1;
        if (*(const uint8_t *)&one == 1)
            png_set_swap(png); /* PNG stores big-endian */
    }
    png_set_interlace_handling(png);
    png_read_update_info(png, info);
    int channels = png_get_channels(png, info);
    size_t row = (size_t)w * (size_t)channels * (depth / 8);
    if (channels < 1 || channels > 4 || png_get_rowbytes(png, info) != row) {
        gpuimg__fail(ctx, st, "%s: not a supported image (unexpected PNG layout)", name);
        goto done;
    }
    img = out;
    gpuimg_status ast = gpuimg__image_take_depth(ctx, img, (int)w, (int)h, channels, depth);
    if (ast != GPUIMG_OK) {
        st = ast;
        gpuimg__fail(ctx, st, "%s: %s", name, gpuimg_strerror(st));
        goto done;
    }
    rows = malloc(sizeof(png_bytep) * h);
    if (!rows) {
        st = GPUIMG_ERR_NOMEM;
        gpuimg__fail(ctx, st, "%s: out of memory", name);
        goto done;
    }
    for (png_uint_32 y = 0; y < h; y++)
        rows[y] = img->data + (size_t)y * row;
    png_read_image(png, rows);
    png_read_end(png, NULL); /* reads up to IEND: a cut after the pixels still fails */
    st = GPUIMG_OK;
done:
    free(rows);
    png_destroy_read_struct(&png, &info, NULL);
    free(job);
    if (st != GPUIMG_OK && img)
        gpuimg_image_free(img);
    return st;
}
