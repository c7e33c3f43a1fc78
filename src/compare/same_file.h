/* SPDX-License-Identifier: MIT */
/* A pair's files as the comparison reads them (issue 28): byte-identical
 * files compared without decoding them (the result gpuimg_compare would
 * give for an image against itself, from the file's header alone), and
 * the two images of a pair decoded at once. */
#ifndef GPUIMG_SAME_FILE_H
#define GPUIMG_SAME_FILE_H

#include "core/internal.h"

/* When a and b (the files named name_a and name_b) hold the same bytes and
 * those are a PNG that is whole (every chunk within the file, its CRC
 * right, IEND last) whose header probes fine within the size limits, and
 * the result passes limits (NULL: the defaults): fills out as
 * gpuimg_compare would for the decoded pair (identical, the figures 0,
 * SSIM 1 where it applies; opt must have no mask) and *width, *height
 * with the images' size, says the warnings the loads of both would
 * (metadata dropped), and returns 1. Otherwise returns 0, having changed
 * nothing (the context's error included): the pair is then decoded and
 * compared as any other, so a damaged file is still an error. The pixels
 * are never read: a PNG whose chunks are whole but whose compressed data
 * is not (made so on purpose: the CRCs hold) is called identical to
 * itself, as cmp would. */
int gpuimg__compare_same_file(gpuimg_ctx *ctx, const char *name_a, const uint8_t *a, size_t a_size,
                              const char *name_b, const uint8_t *b, size_t b_size,
                              const gpuimg_compare_options *opt,
                              const gpuimg_compare_limits *limits, gpuimg_compare_result *out,
                              int *width, int *height);

/* The two files' bytes (taken: freed here) decoded into ia and ib, as
 * gpuimg__load_owned of A then of B would: A's error when both fail, B's
 * warnings said after A's and only once A has loaded. When both are large
 * and the context has more than one thread, B decodes on a thread of its
 * own (a context of its own, sharing ctx's pool and buffers) while A
 * decodes here: a pair's two images at once (issue 28). */
gpuimg_status gpuimg__load_both(gpuimg_ctx *ctx, uint8_t *da, size_t na, const char *name_a,
                                gpuimg_image *ia, uint8_t *db, size_t nb, const char *name_b,
                                gpuimg_image *ib);

#endif
