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
    /* the chroma's subsampling, horizontal and vertical: 1 1 (4:4:4, and
     * grayscale), 2 1 (4:2:2) or 2 2 (4:2:0) */
    int hs, vs;
} gpuimg__jpeg_shape;

/* 1 when the file is one the GPU's decoder may be given: Huffman-coded,
 * sequential (SOF0, SOF1) with one scan of every component, 8 bits, at
 * most 65500 pixels a side, 1 component or 3 that libjpeg-turbo reads as
 * YCbCr (not RGB by Adobe's marker or R G B identifiers) at 4:4:4, 4:2:2 or
 * 4:2:0 (the device upsamples those exactly as libjpeg-turbo does; a
 * subsampled image at least 5 pixels wide, where libjpeg-turbo's
 * upsampling is its smooth one), a size, every segment whole, and the
 * scan's entropy-coded data walked to its last MCU as libjpeg-turbo reads
 * it (jpeg/entropy.h), ending in EOI, with no marker libjpeg refuses. 0
 * for anything else (progressive, CMYK, 12 bits, arithmetic coding, a
 * truncated or damaged file): the CPU decoder takes those, and says what
 * is wrong. shape is filled as far as the header goes, eligible or not
 * (progressive says so). Reads only the size bytes at data. */
int gpuimg__jpeg_scan(const uint8_t *data, size_t size, gpuimg__jpeg_shape *out);

#endif
