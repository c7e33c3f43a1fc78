/* SPDX-License-Identifier: MIT */
/* A sequential Huffman scan walked as libjpeg-turbo decodes it, to know
 * that its entropy-coded data reaches the last MCU (jpeg/entropy.c), for
 * the structure check of jpeg/scan.c. */
#ifndef GPUIMG_JPEG_ENTROPY_H
#define GPUIMG_JPEG_ENTROPY_H

#include <stddef.h>
#include <stdint.h>

/* The Huffman tables a file has defined so far (DHT), by class and slot. */
typedef struct gpuimg__huff_tables gpuimg__huff_tables;

/* libjpeg's D_MAX_BLOCKS_IN_MCU */
#define GPUIMG__SCAN_BLOCKS 10

/* What the walk needs of the frame and the scan: the blocks of one MCU in
 * order (each its component's index in the scan), each component's
 * tables, the MCUs, and DRI's interval (0: none). */
typedef struct gpuimg__scan_layout {
    int blocks;
    uint8_t block_comp[GPUIMG__SCAN_BLOCKS];
    uint8_t dc_table[4], ac_table[4];
    uint32_t mcus_per_row, mcu_rows;
    unsigned restart_interval;
} gpuimg__scan_layout;

/* None defined yet (NULL when out of memory); free() frees them. */
gpuimg__huff_tables *gpuimg__huff_tables_new(void);
/* A DHT segment's body (len bytes): 1, or 0 where libjpeg-turbo stops. */
int gpuimg__huff_define(gpuimg__huff_tables *t, const uint8_t *seg, size_t len);

/* The scan whose entropy-coded data starts at pos: the offset of the
 * 0xFF that begins the marker after it, when every MCU is there as
 * libjpeg-turbo reads them and nothing is left over; 0 when not (or not
 * surely). */
size_t gpuimg__jpeg_walk_scan(const uint8_t *data, size_t size, size_t pos,
                              const gpuimg__huff_tables *t, const gpuimg__scan_layout *s);

#endif
