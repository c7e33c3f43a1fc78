/* SPDX-License-Identifier: MIT */
/* Shared by the libFuzzer harnesses (see tests/fuzz/README.md): one CPU
 * context for the whole run, with a pixel limit that keeps a mutated
 * header from asking for more memory than the fuzzer allows, and a check
 * that turns a broken property into a crash libFuzzer records. */
#ifndef GPUIMG_FUZZ_H
#define GPUIMG_FUZZ_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuimg.h"

static inline gpuimg_ctx *fuzz_ctx(int threads)
{
    static gpuimg_ctx *ctx;
    if (!ctx) {
        gpuimg_config cfg;
        gpuimg_config_init(&cfg);
        cfg.backend = GPUIMG_BACKEND_CPU;
        cfg.threads = threads;
        cfg.max_pixels = 1u << 22;
        if (gpuimg_ctx_create(&cfg, &ctx) != GPUIMG_OK)
            abort();
    }
    return ctx;
}

#define FUZZ_CHECK(cond, ...)                                                                      \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "fuzz: " __VA_ARGS__);                                                 \
            fputc('\n', stderr);                                                                   \
            abort();                                                                               \
        }                                                                                          \
    } while (0)

/* The input as a NUL-terminated string (malloc'ed; NULL when out of memory). */
static inline char *fuzz_text(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (text) {
        memcpy(text, data, size);
        text[size] = '\0';
    }
    return text;
}

/* Same size, channels and bytes. */
static inline int fuzz_same_image(const gpuimg_image *a, const gpuimg_image *b)
{
    return a->width == b->width && a->height == b->height && a->channels == b->channels &&
           gpuimg_image_depth(a) == gpuimg_image_depth(b) &&
           memcmp(a->data, b->data,
                  (size_t)a->width * (size_t)a->height * (size_t)a->channels *
                      gpuimg_image_value_size(a)) == 0;
}

#endif
