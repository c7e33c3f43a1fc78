/* SPDX-License-Identifier: MIT */
/* Bands of rows over the context's pool (pool.h). Every output value is
 * computed by the same code in the same float order whichever band holds
 * it, so the bytes never depend on the thread count: only which thread
 * writes them does. */
#include "core/pool.h"
#include "cpu.h"

/* Bands per thread: more than one, so that a core slowed by another
 * process does not hold the rest up for a whole share; few enough that a
 * filter's halo rows, computed again by each band, stay a few per cent. */
#define BANDS_PER_THREAD 4
#define MAX_BANDS 256

typedef struct band {
    gpuimg_task task; /* first: the pool runs &band->task */
    gpuimg_cpu_band_fn fn;
    void *arg;
    int y0, y1;
    int ok;
} band;

static void run_band(gpuimg_task *t)
{
    band *b = (band *)t;
    b->ok = b->fn(b->arg, b->y0, b->y1);
}

int gpuimg__cpu_threads(const gpuimg_backend *be)
{
    return gpuimg__pool_workers(be->pool) + 1;
}

gpuimg_status gpuimg__cpu_bands(gpuimg_backend *be, int rows, int min_rows, gpuimg_cpu_band_fn fn,
                                void *arg)
{
    if (rows <= 0)
        return GPUIMG_OK;
    if (min_rows < 1)
        min_rows = 1;
    /* One thread: one band (the reference the thread tests hold the others
     * to, and no halo made twice). */
    int threads = gpuimg__cpu_threads(be);
    int n = (rows + min_rows - 1) / min_rows, most = threads == 1 ? 1 : threads * BANDS_PER_THREAD;
    if (n > most)
        n = most;
    if (n > MAX_BANDS)
        n = MAX_BANDS;
    if (n <= 1)
        return fn(arg, 0, rows) ? GPUIMG_OK : gpuimg__cpu_nomem(be);
    band bands[MAX_BANDS];
    for (int i = 0; i < n; i++) {
        /* even shares: band i is rows [i*rows/n, (i+1)*rows/n) */
        bands[i] = (band){.task = {.run = run_band},
                          .fn = fn,
                          .arg = arg,
                          .y0 = (int)((long)i * rows / n),
                          .y1 = (int)((long)(i + 1) * rows / n)};
    }
    /* The caller takes the first band itself, then helps with the rest
     * while it waits. */
    for (int i = 1; i < n; i++)
        gpuimg__pool_piece(be->pool, &bands[i].task);
    run_band(&bands[0].task);
    int ok = bands[0].ok;
    for (int i = 1; i < n; i++) {
        gpuimg__pool_wait(be->pool, &bands[i].task);
        ok &= bands[i].ok;
    }
    return ok ? GPUIMG_OK : gpuimg__cpu_nomem(be);
}
