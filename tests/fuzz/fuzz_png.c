/* SPDX-License-Identifier: MIT */
/* The project's PNG reader (libdeflate and a wavefront unfilter) against
 * libpng, differentially: whatever it takes, libpng must read to the same
 * pixels. The chunks' CRCs are made right first, so that the mutations
 * reach the data rather than dying at the first CRC, and the signature
 * set (fuzz_load keeps both checks under the fuzzer). The fast reader
 * works on bytes it owns, as the loader's, which it rearranges in place:
 * whenever it gives up they must be as they were. */
#include <string.h>

#include "fuzz.h"
#include "io/io.h"

static uint32_t crc_table[256];

static uint32_t crc32_png(const uint8_t *p, size_t n)
{
    if (!crc_table[1])
        for (uint32_t i = 0; i < 256; i++) {
            uint32_t c = i;
            for (int k = 0; k < 8; k++)
                c = c & 1 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
            crc_table[i] = c;
        }
    uint32_t c = 0xFFFFFFFFu;
    for (size_t i = 0; i < n; i++)
        c = crc_table[(c ^ p[i]) & 0xFF] ^ (c >> 8);
    return c ^ 0xFFFFFFFFu;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint8_t *png = malloc(size ? size : 1);
    if (!png)
        return 0;
    memcpy(png, data, size);
    /* both readers are reached only through the signature (gpuimg__sniff) */
    static const uint8_t signature[8] = {137, 'P', 'N', 'G', '\r', '\n', 26, '\n'};
    memcpy(png, signature, size < 8 ? size : 8);
    for (size_t at = 8; at + 12 <= size;) {
        uint32_t len = gpuimg__be32(png + at);
        if (len > size - at - 12)
            break;
        uint32_t crc = crc32_png(png + at + 4, 4 + (size_t)len);
        for (int i = 0; i < 4; i++)
            png[at + 8 + len + i] = (uint8_t)(crc >> (24 - 8 * i));
        at += 12 + (size_t)len;
    }
    gpuimg_ctx *ctx = fuzz_ctx(2);
    gpuimg_image fast, lib;
    memset(&fast, 0, sizeof fast);
    /* The fast reader on bytes of its own, as the loader's are: it joins the
     * IDATs in place, and must leave the bytes as they were whenever it
     * gives up (libpng then reads them), and frees them once done. */
    uint8_t *own = malloc(size ? size : 1);
    if (!own) {
        free(png);
        return 0;
    }
    memcpy(own, png, size);
    ctx->input_owned = own;
    int got = gpuimg__decode_png_fast(ctx, own, size, &fast);
    if (ctx->input_owned) { /* not released: untouched */
        FUZZ_CHECK(got <= 0, "the fast reader kept the file's bytes");
        FUZZ_CHECK(got < 0 || memcmp(own, png, size) == 0,
                   "the fast reader gave up and left the file's bytes changed");
        ctx->input_owned = NULL;
        free(own);
    }
    if (got > 0) {
        gpuimg_status st = gpuimg__decode_png_libpng(ctx, png, size, "fuzz", &lib);
        FUZZ_CHECK(st == GPUIMG_OK, "the fast reader took a PNG libpng refuses: %s",
                   gpuimg_ctx_error(ctx));
        FUZZ_CHECK(fuzz_same_image(&fast, &lib), "the fast reader and libpng disagree");
        gpuimg_image_free(&lib);
        gpuimg_image_free(&fast);
    }
    free(png);
    return 0;
}
