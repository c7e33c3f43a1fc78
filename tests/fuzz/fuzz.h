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

/* The same bytes (NULL and empty alike). */
static inline int fuzz_same_bytes(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen)
{
    return alen == blen && (alen == 0 || memcmp(a, b, alen) == 0);
}

/* A context of the fuzz settings and cfg's codec options (one a harness
 * keeps for its run; fuzz_ctx's is the shared default one). */
static inline gpuimg_ctx *fuzz_ctx_with(gpuimg_config *cfg)
{
    gpuimg_ctx *ctx;
    cfg->backend = GPUIMG_BACKEND_CPU;
    cfg->threads = 1;
    cfg->max_pixels = 1u << 22;
    if (gpuimg_ctx_create(cfg, &ctx) != GPUIMG_OK)
        abort();
    return ctx;
}

/* Where the metadata m read back from a file written from an image differs
 * from the blocks the writer was given (gpuimg__metadata_for_output's),
 * or NULL: the same profile and XMP, the same EXIF unless exif is NULL
 * (not compared), and Orientation 1 (the pixels were written upright). */
static inline const char *fuzz_meta_differs(const gpuimg_metadata *m, const uint8_t *icc,
                                            size_t icc_len, const uint8_t *exif, size_t exif_len,
                                            int check_exif, const uint8_t *xmp, size_t xmp_len)
{
    static const gpuimg_metadata none = {.orientation = 1};
    if (!m)
        m = &none;
    if (m->orientation != 1)
        return "orientation";
    if (!fuzz_same_bytes(m->icc, m->icc_len, icc, icc_len))
        return "ICC profile";
    if (check_exif && !fuzz_same_bytes(m->exif, m->exif_len, exif, exif_len))
        return "EXIF";
    if (!fuzz_same_bytes(m->xmp, m->xmp_len, xmp, xmp_len))
        return "XMP";
    return NULL;
}

#endif
