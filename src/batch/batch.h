/* SPDX-License-Identifier: MIT */
/* A batch's parts, shared by its files: the plan (plan.c: every decision
 * made before a thread starts), the queue and gate (queue.c), the stages
 * (stages.c) and the run that starts and stops them (batch.c). */
#ifndef GPUIMG_BATCH_H
#define GPUIMG_BATCH_H

#include <pthread.h>
#include <stdatomic.h>

#include "batch/plan.h"
#include "core/budget.h"
#include "core/host_buffers.h"
#include "core/internal.h"
#include "core/pool.h"
#include "run/run.h"

/* Device-stage workers per GPU: while one waits for its image's copies,
 * the others' kernels run (four kept an H100 fed where two left it
 * waiting). */
#define STREAMS_PER_DEVICE 4
/* JPEG files one device worker hands nvJPEG at once: the hardware engine
 * spreads a batch over its cores (an H100 has seven), and four workers'
 * batches keep it fed while each worker's kernels and encodes run. */
#define JPEG_BATCH 8
#define PATH_BUF GPUIMG__PATH_BUF

/* Set by gpuimg_batch_cancel (a signal handler); cleared when the batch ends. */
extern atomic_int gpuimg__batch_cancelled;

typedef struct item {
    gpuimg_task task; /* first: an item is its own encode job */
    struct batch *b;
    size_t index;
    gpuimg_image image; /* decoded on the CPU, or */
    uint8_t *bytes;     /* the file, for the device's decoder (jf) */
    size_t size;
    gpuimg__jpeg_file jf;
    gpuimg__output out; /* the device stage's result, for the encode job */
    uint64_t taken;     /* of the batch's memory budget, until the item is freed */
} item;

typedef struct queue {
    item **slots;
    size_t cap, head, count;
    int producers; /* still running; the queue is closed at zero */
    pthread_mutex_t lock;
    pthread_cond_t changed;
} queue;

typedef struct batch {
    const gpuimg_batch_options *opt;
    gpuimg_config cfg; /* for the workers' contexts */
    int *depth_warned; /* the batch's context's: one "written at 8 bits" */
    gpuimg__plan plan;
    gpuimg__steps_plan steps; /* finished once, for every file */
    atomic_size_t next;       /* the next file to decode */
    atomic_int stop;          /* --fail-fast tripped */
    atomic_int abort;         /* the device stage failed to start: drop everything */
    /* whether the device stage decodes and encodes JPEG (nvJPEG): -1 until
     * it has opened; the decoders keep a JPEG's bytes for it unless 0 */
    atomic_int device_jpeg;
    queue to_device;
    gpuimg_pool *pool;            /* the encode jobs and their pieces */
    int one_pool;                 /* the CPU batch: a file is one job (file_job) */
    gpuimg_host_buffers *buffers; /* every image's pixels, lent to every context */
    /* the encoders' contexts, one per job running at once, reused */
    pthread_mutex_t encoders_lock;
    struct encoder *idle_encoders, *encoders;
    /* the gate: images between the start of decode and the end of encode */
    pthread_mutex_t gate_lock;
    pthread_cond_t gate_open;
    int in_flight, max_in_flight;
    /* and the images' decoded bytes among them (budget.h) */
    gpuimg__budget budget;
    /* events and counts */
    pthread_mutex_t report_lock;
    gpuimg_batch_summary sum;
    uint64_t finished, bytes_done;
    /* --time: every worker's stages, summed (under report_lock) */
    double stage_ms[GPUIMG_STAGE_COUNT];
} batch;

typedef struct worker {
    batch *b;
    gpuimg_ctx *ctx;
    pthread_t thread;
    int started;
} worker;

/* An encoder's context: made when a job finds none idle, kept for the next
 * job (so there are as many as jobs ever ran at once), destroyed at the
 * end with its timings counted. */
typedef struct encoder {
    gpuimg_ctx *ctx;
    struct encoder *next_idle, *next;
} encoder;

/* ---- queue.c ---- */
int gpuimg__queue_init(queue *q, size_t cap, int producers);
void gpuimg__queue_destroy(queue *q);
void gpuimg__queue_push(queue *q, item *it);
/* The next item; when the queue is empty, NULL at once (wait 0), or (wait
 * 1) after waiting for one, NULL once every producer has finished. */
item *gpuimg__queue_take(queue *q, int wait);
item *gpuimg__queue_pop(queue *q);
void gpuimg__queue_producer_done(queue *q);
/* Cancelled (a signal) or stopped (--fail-fast). */
int gpuimg__batch_stopping(batch *b);
/* File index's outcome counted and told (on_event). */
void gpuimg__batch_report(batch *b, size_t index, gpuimg_batch_outcome outcome, const char *error);
/* Into the gate (waits while max_in_flight images are in it), and out of
 * it with the item freed (its image, bytes, output and budget). */
void gpuimg__gate_enter(batch *b);
void gpuimg__gate_leave(batch *b, item *it);
/* File i's item, once it is through the gate; NULL (reported, and out of
 * the gate again) when out of memory. */
item *gpuimg__batch_item(batch *b, size_t i);

/* ---- stages.c ---- */
/* Thread bodies: a decoder (arg: its worker) and a device-stage worker. */
void *gpuimg__decode_worker(void *arg);
void *gpuimg__device_worker(void *arg);
/* The CPU batch: every file queued as one job on the pool, in order. */
void gpuimg__feed_pool(batch *b);
/* A worker context's stages into the batch's sums (--time). */
void gpuimg__add_timings(batch *b, const gpuimg_ctx *ctx);
/* Whether the plan reads JPEG files (inputs 1), or reads or writes any
 * (inputs 0), by their names. */
int gpuimg__plan_has_jpeg(const batch *b, int inputs);
/* The device stage's opening, on a thread of its own (gpuimg_batch). It
 * writes the batch's context (its error, the one "auto" notice) while the
 * main thread only starts the decoders and waits for it. */
typedef struct devices_opening {
    gpuimg_ctx *ctx;
    batch *b;
    int jobs;
    worker *dev;
    int ndev;
    gpuimg_status st;
} devices_opening;
void *gpuimg__open_devices(void *arg);

#endif
