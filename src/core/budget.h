/* SPDX-License-Identifier: MIT */
/* The memory budget of a folder's run (batch, folder compare): images are
 * admitted by their decoded size, so that a folder of decompression bombs
 * (a 1 MB PNG of 32768 x 32768 zeros decodes to 1-4 GiB) is taken one at a
 * time instead of one per core, and an image that alone exceeds the budget
 * is refused before it is decoded (SPEC §5, §7; gpuimg_config.memory_budget).
 * What an image needs is io/io.h's gpuimg__decoded_bytes. */
#ifndef GPUIMG_BUDGET_H
#define GPUIMG_BUDGET_H

#include <pthread.h>

#include "core/internal.h"

typedef struct gpuimg__budget {
    pthread_mutex_t lock;
    pthread_cond_t room;
    uint64_t limit, used;
} gpuimg__budget;

/* The budget of cfg: its memory_budget, or by default a quarter of the machine's
 * physical memory. */
uint64_t gpuimg__budget_of(const gpuimg_config *cfg);
void gpuimg__budget_init(gpuimg__budget *b, uint64_t limit);
void gpuimg__budget_destroy(gpuimg__budget *b);

/* Takes need bytes of b, waiting while the images admitted before hold too
 * much of it (one image is always admitted when nothing else is held);
 * GPUIMG_ERR_TOO_LARGE, naming name, when need alone exceeds the budget. */
gpuimg_status gpuimg__budget_take(gpuimg__budget *b, gpuimg_ctx *ctx, const char *name,
                                  uint64_t need);
void gpuimg__budget_give(gpuimg__budget *b, uint64_t n);

#endif
