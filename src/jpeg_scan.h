/* SPDX-License-Identifier: MIT */
/* A JPEG file's structure read on the CPU, without decoding: what the GPU's
 * decoder is given to decode (src/jpeg_gpu.c). */
#ifndef GPUIMG_JPEG_SCAN_H
#define GPUIMG_JPEG_SCAN_H

#include <stddef.h>
#include <stdint.h>

typedef struct gpuimg__jpeg_shape {
    int width, height;
    int components; /* 1 (grayscale) or 3 (YCbCr) for a file the GPU may take */
    int progressive;
} gpuimg__jpeg_shape;

/* 1 when the file is one the GPU's decoder may be given: Huffman-coded,
 * sequential or progressive (SOF0, SOF1, SOF2), 8 bits, 1 component or 3
 * that are YCbCr (not Adobe's RGB), a size, and every segment and every
 * scan's entropy-coded data whole, ending in EOI. 0 for anything else
 * (CMYK, 12 bits, arithmetic coding, a truncated or damaged structure):
 * the CPU decoder takes those and says what is wrong. Reads only the
 * size bytes at data. */
int gpuimg__jpeg_scan(const uint8_t *data, size_t size, gpuimg__jpeg_shape *out);

#endif
