/* SPDX-License-Identifier: MIT */
/* stb_image, compiled here from Debian's header (libstb-dev), with only the
 * TGA decoder (STBI_ONLY_TGA) and every stb function static: whatever a
 * file is called or holds, no other stb decoder exists in the program to
 * reach (stb's Softimage PIC and Radiance HDR readers crash and hang on
 * crafted files: CVE-2023-43898, CVE-2021-42715; its PNG, JPEG, PNM, PSD,
 * BMP and GIF readers are replaced by libpng, libjpeg-turbo, io/pnm.c,
 * io/psd.c, io/bmp.c and io/gif.c). Debian's libstb.so, which holds every
 * decoder, is linked only for stb_image_write.
 *
 * The decoders' memory is zeroed when allocated, so a path in stb that
 * leaves a pixel unwritten gives 0, never an earlier image's bytes.
 *
 * This file holds stb and two wrappers, nothing else: stb's API functions
 * that are not called, and the ones its header declares for decoders left
 * out, are unused static functions, and with PNG and PSD left out one of
 * its functions no longer reads its parameter; those two warnings (about
 * stb's code) are off for this file alone. */
#include <stdlib.h>
#include <string.h>

#include "io/stb_image.h"

static void *stb_zeroed(size_t size)
{
    return calloc(1, size ? size : 1);
}

#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wunused-parameter"
#define STB_IMAGE_IMPLEMENTATION
#define STB_IMAGE_STATIC
#define STBI_ONLY_TGA
#define STBI_NO_STDIO
#define STBI_NO_LINEAR
#define STBI_NO_HDR
#define STBI_MAX_DIMENSIONS 65535
#define STBI_MALLOC(sz) stb_zeroed(sz)
/* stb wants one; the TGA decoder grows no block (stb's zlib did, for PNG) */
#define STBI_REALLOC(p, newsz) realloc(p, newsz)
#define STBI_FREE(p) free(p)
#include <stb_image.h>

int gpuimg__stbi_info(const unsigned char *data, int len, int *w, int *h, int *channels)
{
    return stbi_info_from_memory(data, len, w, h, channels);
}

unsigned char *gpuimg__stbi_load(const gpuimg__stbi_callbacks *io, void *user, int *w, int *h,
                                 int *channels)
{
    const stbi_io_callbacks cb = {io->read, io->skip, io->eof};
    return stbi_load_from_callbacks(&cb, user, w, h, channels, 0);
}

const char *gpuimg__stbi_failure_reason(void)
{
    return stbi_failure_reason();
}
