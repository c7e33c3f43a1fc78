/* SPDX-License-Identifier: MIT */
/* Convolution kernels: SPEC §3's named kernels and the kernel-file parser.
 * A file is text, one row per line, numbers separated by spaces or commas,
 * '#' starting a comment; errors name the file and line. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ops/ops.h"

static const struct {
    const char *name;
    float divisor;
    float w[25];
    int side;
} named[] = {
    {"identity", 1, {0, 0, 0, 0, 1, 0, 0, 0, 0}, 3},
    {"box3", 9, {1, 1, 1, 1, 1, 1, 1, 1, 1}, 3},
    {"gaussian3", 16, {1, 2, 1, 2, 4, 2, 1, 2, 1}, 3},
    {"gaussian5",
     256,
     {1, 4, 6, 4, 1, 4, 16, 24, 16, 4, 6, 24, 36, 24, 6, 4, 16, 24, 16, 4, 1, 4, 6, 4, 1},
     5},
    {"sharpen", 1, {0, -1, 0, -1, 5, -1, 0, -1, 0}, 3},
    {"laplacian", 1, {0, 1, 0, 1, -4, 1, 0, 1, 0}, 3},
    {"edge", 1, {-1, -1, -1, -1, 8, -1, -1, -1, -1}, 3},
    {"emboss", 1, {-2, -1, 0, -1, 1, 1, 0, 1, 2}, 3},
    {"sobel-x", 1, {-1, 0, 1, -2, 0, 2, -1, 0, 1}, 3},
    {"sobel-y", 1, {-1, -2, -1, 0, 0, 0, 1, 2, 1}, 3},
    {"prewitt-x", 1, {-1, 0, 1, -1, 0, 1, -1, 0, 1}, 3},
    {"prewitt-y", 1, {-1, -1, -1, 0, 0, 0, 1, 1, 1}, 3},
};

#define MAX_FILE_BYTES (1 << 20)

static gpuimg_status read_text(gpuimg_ctx *ctx, const char *path, char **text)
{
    /* O_NONBLOCK: a FIFO given as the kernel is refused below, not waited on */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    FILE *f = fd >= 0 ? fdopen(fd, "rb") : NULL;
    if (fd >= 0 && !f)
        close(fd);
    if (!f)
        return gpuimg__fail(ctx, GPUIMG_ERR_USAGE,
                            "kernel: '%s' is neither a named kernel nor a readable file (%s)", path,
                            strerror(errno));
    struct stat sb;
    if (fstat(fileno(f), &sb) != 0 || !S_ISREG(sb.st_mode)) {
        fclose(f);
        return gpuimg__fail(ctx, GPUIMG_ERR_USAGE, "kernel: %s: not a regular file", path);
    }
    if (sb.st_size > MAX_FILE_BYTES) {
        fclose(f);
        return gpuimg__fail(ctx, GPUIMG_ERR_USAGE, "kernel: %s: over 1 MiB", path);
    }
    char *buf = malloc((size_t)sb.st_size + 1);
    if (!buf) {
        fclose(f);
        return gpuimg__fail(ctx, GPUIMG_ERR_NOMEM, "kernel: %s: out of memory", path);
    }
    size_t got = fread(buf, 1, (size_t)sb.st_size, f);
    fclose(f);
    buf[got] = '\0';
    if (strlen(buf) != got) {
        free(buf);
        return gpuimg__fail(ctx, GPUIMG_ERR_USAGE, "kernel: %s: not a text file", path);
    }
    *text = buf;
    return GPUIMG_OK;
}

/* The error for a word that is not a number. Its text is quoted only when
 * it could be a mistyped number (digits, '.', 'e', signs; a few of them):
 * a kernel= that names any file the user can read (a key, a file of
 * tokens, "1 2 1" followed by a secret) must not put that file's text into
 * a CI log, so anything else gets its position alone. */
static gpuimg_status not_a_number(gpuimg_ctx *ctx, const char *path, int line, int column,
                                  const char *tok, int after_numbers)
{
    size_t n = strlen(tok);
    if (n <= 16 && strspn(tok, "0123456789.eE+-") == n)
        return gpuimg__fail(ctx, GPUIMG_ERR_USAGE, "kernel: %s:%d:%d: '%s' is not a number", path,
                            line, column, tok);
    if (after_numbers)
        return gpuimg__fail(ctx, GPUIMG_ERR_USAGE, "kernel: %s:%d:%d: not a number", path, line,
                            column);
    return gpuimg__fail(ctx, GPUIMG_ERR_USAGE,
                        "kernel: %s:%d:%d: not a kernel file (rows of numbers)", path, line,
                        column);
}

gpuimg_status gpuimg__kernel_parse(gpuimg_ctx *ctx, const char *path, char *text, float **weights,
                                   int *width, int *height)
{
    float *w = malloc(GPUIMG__MAX_KERNEL * GPUIMG__MAX_KERNEL * sizeof(float));
    if (!w)
        return gpuimg__fail(ctx, GPUIMG_ERR_NOMEM, "kernel: %s: out of memory", path);
    int rows = 0, cols = 0, line_no = 0;
    char *save_line = NULL;
    gpuimg_status st = GPUIMG_OK;
    /* strtok_r would merge empty lines and so lose the numbering: split by hand. */
    for (char *line = text; line && st == GPUIMG_OK; line = save_line) {
        line_no++;
        char *nl = strchr(line, '\n');
        save_line = nl ? nl + 1 : NULL;
        if (nl)
            *nl = '\0';
        char *hash = strchr(line, '#');
        if (hash)
            *hash = '\0';
        int n = 0;
        char *save = NULL;
        for (char *tok = strtok_r(line, " \t\r,", &save); tok;
             tok = strtok_r(NULL, " \t\r,", &save)) {
            double v;
            if (!gpuimg_parse_number(tok, &v)) {
                st =
                    not_a_number(ctx, path, line_no, (int)(tok - line) + 1, tok, rows > 0 || n > 0);
                break;
            }
            if (fabs(v) > 1e30) { /* keeps every sum of products finite in float */
                st = gpuimg__fail(ctx, GPUIMG_ERR_USAGE,
                                  "kernel: %s:%d: %s is out of range (|weight| <= 1e30)", path,
                                  line_no, tok);
                break;
            }
            if (n >= GPUIMG__MAX_KERNEL || rows >= GPUIMG__MAX_KERNEL) {
                st = gpuimg__fail(ctx, GPUIMG_ERR_USAGE,
                                  "kernel: %s:%d: a kernel has at most %d rows and columns", path,
                                  line_no, GPUIMG__MAX_KERNEL);
                break;
            }
            w[rows * GPUIMG__MAX_KERNEL + n++] = (float)v;
        }
        if (st != GPUIMG_OK || n == 0)
            continue;
        if (rows > 0 && n != cols)
            st = gpuimg__fail(ctx, GPUIMG_ERR_USAGE,
                              "kernel: %s:%d: row has %d values where the first row has %d", path,
                              line_no, n, cols);
        cols = n;
        rows++;
    }
    if (st == GPUIMG_OK && rows == 0)
        st = gpuimg__fail(ctx, GPUIMG_ERR_USAGE, "kernel: %s: no numbers in the file", path);
    if (st == GPUIMG_OK && (rows % 2 == 0 || cols % 2 == 0))
        st = gpuimg__fail(ctx, GPUIMG_ERR_USAGE,
                          "kernel: %s: kernel is %dx%d (columns x rows); both sides must be odd",
                          path, cols, rows);
    if (st != GPUIMG_OK) {
        free(w);
        return st;
    }
    /* Compact the 63-wide scratch rows into width-wide rows. */
    for (int r = 0; r < rows; r++)
        memmove(w + r * cols, w + r * GPUIMG__MAX_KERNEL, (size_t)cols * sizeof(float));
    *weights = w;
    *width = cols;
    *height = rows;
    return GPUIMG_OK;
}

gpuimg_status gpuimg__kernel_load(gpuimg_ctx *ctx, const char *name_or_path, float **weights,
                                  int *width, int *height)
{
    for (size_t i = 0; i < sizeof named / sizeof named[0]; i++) {
        if (strcmp(named[i].name, name_or_path) != 0)
            continue;
        int n = named[i].side * named[i].side;
        float *w = malloc((size_t)n * sizeof(float));
        if (!w)
            return gpuimg__fail(ctx, GPUIMG_ERR_NOMEM, "kernel: out of memory");
        for (int k = 0; k < n; k++)
            w[k] = named[i].w[k] / named[i].divisor;
        *weights = w;
        *width = *height = named[i].side;
        return GPUIMG_OK;
    }
    char *text = NULL;
    gpuimg_status st = read_text(ctx, name_or_path, &text);
    if (st == GPUIMG_OK)
        st = gpuimg__kernel_parse(ctx, name_or_path, text, weights, width, height);
    free(text);
    return st;
}
