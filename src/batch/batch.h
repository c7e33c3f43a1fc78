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

/* Finishing workers per GPU (steps and encode, each its own stream): while
 * one waits for its image's encode, the others' kernels run. Measured on
 * an H100 with 400 photographs (bench/README.md): 2, 3 and 4 within 5%
 * of each other once one worker decodes for them all. GPUIMG_STREAMS
 * overrides it (bench/: a knob for measuring, 1 to 16). */
#define STREAMS_PER_DEVICE 3
/* JPEG files a decoding worker hands nvJPEG at once: the hardware engine
 * spreads a batch over its cores (an H100 has seven); 16 a call ran 400
 * photographs about 4% faster than 8. GPUIMG_JPEG_BATCH overrides it (1 to
 * JPEG_BATCH_MAX). */
#define JPEG_BATCH 16
#define JPEG_BATCH_MAX 32
/* Decoding workers per GPU, where the device decodes JPEG: each holds one
 * state of the hardware engine and hands its decoded planes to the
 * finishing workers (steps and encode), which hold only the encoder's.
 * Two: between one's engine calls (headers, colour, hand-over) the other's
 * keep the engine busy; measured on an H100, 2000 photographs took
 * 4.55-4.62 s with two against 5.07-5.21 s with one, 400 within 4%. (A
 * state for each of four workers, as before, cost a second of start-up:
 * the driver makes them one at a time, about 0.37 s each.)
 * GPUIMG_DECODERS overrides it (0 to 4; 0: each finishing worker decodes
 * its own). */
#define DECODERS_PER_DEVICE 2
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
    gpuimg_planes planes; /* decoded on the device, for a finishing worker */
    int on_planes;
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
    int streams, jpeg_batch; /* STREAMS_PER_DEVICE, JPEG_BATCH, or the knobs' */
    int decoders;            /* DECODERS_PER_DEVICE or its knob; 0 where none decode */
    queue to_device;
    queue *decoded; /* per device: from its decoding workers to its finishing ones */
    int ndecoded;
    /* Per device, once its first decoding worker has decoded (or left):
     * the next device's workers set nvJPEG up only then. The driver makes
     * nvJPEG's handles and states one at a time, process-wide (0.28 s and
     * 0.37 s each on an H100): interleaved, two GPUs both started 0.6 s
     * late; in turn the first starts as it does alone. */
    int *device_ready;
    pthread_mutex_t ready_lock;
    pthread_cond_t ready_changed;
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
    int device; /* the device stage's: which GPU (open_devices) */
    /* the device stage's: a decoding worker reads to_device and writes
     * decoded planes to out; a finishing one reads in (to_device, or its
     * device's decoded queue) and queues encode jobs */
    int decodes;
    queue *in, *out;
    int order; /* its device's place in the batch: 0, 1, ... */
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
/* Device `order` has decoded its first JPEGs, or will not: the next may
 * set nvJPEG up (device_ready). */
void gpuimg__device_ready(batch *b, int order);
/* Thread bodies: a decoder (arg: its worker), and a device-stage worker
 * (decoding or finishing, as its worker says). */
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
