/* SPDX-License-Identifier: MIT */
/* Large pixel memory (an image's pixels, a plane): aligned to align bytes
 * (a power of two), and from 4 MB on mapped in 2 MB-aligned blocks the
 * kernel is asked to back with transparent huge pages. Fresh memory costs
 * a page fault and a zeroed page per 4 KB touched; a 12-megapixel RGB
 * image is 9000 of them, a third of a CPU blur's time, and with huge pages
 * 18. Freed with gpuimg__big_free and the same byte count. NULL when out
 * of memory. */
#ifndef GPUIMG_BIG_ALLOC_H
#define GPUIMG_BIG_ALLOC_H

#include <stddef.h>

void *gpuimg__big_alloc(size_t bytes, size_t align);
void gpuimg__big_free(void *p, size_t bytes);

#endif
