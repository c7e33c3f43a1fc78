/* SPDX-License-Identifier: MIT */
/* A fixed set of worker threads and one queue, for work that splits into
 * pieces (the PNG encoder's chunks) and work made of pieces (batch's files).
 *
 * A piece is short and never waits. A job (one file of a batch) may submit
 * pieces and wait for them; while it waits its thread runs queued pieces, so
 * a pool whose every worker sits in a job still moves, and the waiting
 * core is not idle. Workers take pieces before jobs, so a file that has
 * started finishes before another starts (memory stays flat).
 *
 * Tasks are the caller's memory: embed a gpuimg_task at the head of the
 * struct the function needs and submit its address; nothing here allocates
 * per task, so submitting cannot fail. A NULL pool runs each task at once,
 * on the caller's thread. */
#ifndef GPUIMG_POOL_H
#define GPUIMG_POOL_H

typedef struct gpuimg_task gpuimg_task;
struct gpuimg_task {
    void (*run)(gpuimg_task *self);
    gpuimg_task *next; /* the pool's queue link */
    int done;          /* under the pool's lock */
};

typedef struct gpuimg_pool gpuimg_pool;

/* workers threads (0: none; the threads that wait do all the work). NULL
 * when out of memory; fewer workers than asked when threads cannot start. */
gpuimg_pool *gpuimg__pool_create(int workers);
/* Runs everything still queued, then stops and joins the workers. */
void gpuimg__pool_destroy(gpuimg_pool *pool);
int gpuimg__pool_workers(const gpuimg_pool *pool);

void gpuimg__pool_piece(gpuimg_pool *pool, gpuimg_task *task);
/* A job's run function may free the task: the pool never touches it after. */
void gpuimg__pool_job(gpuimg_pool *pool, gpuimg_task *task);
/* Returns once the piece has run, running queued pieces meanwhile. */
void gpuimg__pool_wait(gpuimg_pool *pool, gpuimg_task *task);

/* Threads for --threads N (0: the machine's cores), at least 1. */
int gpuimg__thread_count(int asked);

#endif
