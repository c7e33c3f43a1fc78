/* SPDX-License-Identifier: MIT */
/* A batch's queue and gate (batch.h): the bounded queue from the decoders
 * to the device stage, the gate that caps the images in flight, the items
 * that pass through both, and the reports of their outcomes. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "batch/batch.h"

atomic_int gpuimg__batch_cancelled;

void gpuimg_batch_cancel(void)
{
    atomic_store(&gpuimg__batch_cancelled, 1);
}

int gpuimg__queue_init(queue *q, size_t cap, int producers)
{
    memset(q, 0, sizeof *q);
    q->slots = calloc(cap, sizeof *q->slots);
    q->cap = cap;
    q->producers = producers;
    pthread_mutex_init(&q->lock, NULL);
    pthread_cond_init(&q->changed, NULL);
    return q->slots != NULL;
}

void gpuimg__queue_destroy(queue *q)
{
    free(q->slots);
    pthread_mutex_destroy(&q->lock);
    pthread_cond_destroy(&q->changed);
}

void gpuimg__queue_push(queue *q, item *it)
{
    pthread_mutex_lock(&q->lock);
    while (q->count == q->cap)
        pthread_cond_wait(&q->changed, &q->lock);
    q->slots[(q->head + q->count++) % q->cap] = it;
    pthread_cond_broadcast(&q->changed);
    pthread_mutex_unlock(&q->lock);
}

/* The next item; when the queue is empty, NULL at once (wait 0), or (wait
 * 1) after waiting for one, NULL once every producer has finished. */
item *gpuimg__queue_take(queue *q, int wait)
{
    pthread_mutex_lock(&q->lock);
    while (wait && q->count == 0 && q->producers > 0)
        pthread_cond_wait(&q->changed, &q->lock);
    item *it = NULL;
    if (q->count > 0) {
        it = q->slots[q->head];
        q->head = (q->head + 1) % q->cap;
        q->count--;
        pthread_cond_broadcast(&q->changed);
    }
    pthread_mutex_unlock(&q->lock);
    return it;
}

item *gpuimg__queue_pop(queue *q)
{
    return gpuimg__queue_take(q, 1);
}

void gpuimg__queue_producer_done(queue *q)
{
    pthread_mutex_lock(&q->lock);
    q->producers--;
    pthread_cond_broadcast(&q->changed);
    pthread_mutex_unlock(&q->lock);
}

int gpuimg__batch_stopping(batch *b)
{
    return atomic_load(&gpuimg__batch_cancelled) || atomic_load(&b->stop);
}

void gpuimg__batch_report(batch *b, size_t index, gpuimg_batch_outcome outcome, const char *error)
{
    pthread_mutex_lock(&b->report_lock);
    b->finished++;
    if (outcome != GPUIMG_BATCH_SKIPPED)
        b->bytes_done += b->plan.bytes[index];
    if (outcome == GPUIMG_BATCH_DONE)
        b->sum.processed++;
    else if (outcome == GPUIMG_BATCH_FAILED)
        b->sum.failed++;
    else
        b->sum.skipped++;
    if (outcome == GPUIMG_BATCH_FAILED && b->opt->fail_fast)
        atomic_store(&b->stop, 1);
    if (b->opt->on_event) {
        char input[PATH_BUF];
        snprintf(input, sizeof input, "%s/%s", b->opt->in_dir, b->plan.files.rel[index]);
        gpuimg_batch_event ev = {
            outcome,     input,        b->plan.outputs[index], error,
            b->finished, b->sum.total, b->bytes_done,          b->plan.total_bytes};
        b->opt->on_event(b->opt->user, &ev);
    }
    pthread_mutex_unlock(&b->report_lock);
}

void gpuimg__gate_enter(batch *b)
{
    pthread_mutex_lock(&b->gate_lock);
    while (b->in_flight >= b->max_in_flight)
        pthread_cond_wait(&b->gate_open, &b->gate_lock);
    b->in_flight++;
    pthread_mutex_unlock(&b->gate_lock);
}

void gpuimg__gate_leave(batch *b, item *it)
{
    if (it) {
        gpuimg_image_free(&it->image);
        free(it->bytes);
        gpuimg__jpeg_file_free(&it->jf);
        gpuimg__output_free(&it->out);
        gpuimg__budget_give(&b->budget, it->taken);
    }
    free(it);
    pthread_mutex_lock(&b->gate_lock);
    b->in_flight--;
    pthread_cond_signal(&b->gate_open);
    pthread_mutex_unlock(&b->gate_lock);
}

/* File i's item, once it is through the gate; NULL (reported, and out of
 * the gate again) when out of memory. */
item *gpuimg__batch_item(batch *b, size_t i)
{
    item *it = calloc(1, sizeof *it);
    if (!it) {
        gpuimg__batch_report(b, i, GPUIMG_BATCH_FAILED, "out of memory");
        gpuimg__gate_leave(b, NULL);
        return NULL;
    }
    it->index = i;
    it->b = b;
    return it;
}
