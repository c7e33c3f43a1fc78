/* SPDX-License-Identifier: MIT */
/* Host pixel buffers: reused, and pinned when a device reads them.
 *
 * A decoded image is written once by its decoder and read once by an upload;
 * an output is written once by a download and read by an encoder. So the
 * library's own images come from here, never zeroed, and go back here when
 * freed. When the backend in use has host_register (CUDA), buffers are
 * pinned once, as they are made or first reused, and the device's copy
 * engines read and write them directly: no staging copy, no page faults on
 * the next image of the same size.
 *
 * A context owns a set; a batch owns one that all its workers' contexts
 * share (decoders take, device workers give and take, encoders give). A
 * buffer given back after its set's owner released it is freed then. */
#ifndef GPUIMG_HOST_BUFFERS_H
#define GPUIMG_HOST_BUFFERS_H

#include <stddef.h>
#include <stdint.h>

#include "core/backend.h"

typedef struct gpuimg_host_buffers gpuimg_host_buffers;

/* NULL when out of memory. */
gpuimg_host_buffers *gpuimg__host_buffers_create(void);
/* The owner's release: idle buffers are unpinned and freed now, the ones
 * still held by images when those are freed. */
void gpuimg__host_buffers_release(gpuimg_host_buffers *hb);
/* From now on, buffers are pinned with ops->host_register (the first
 * backend that has one wins; a CPU backend changes nothing). */
void gpuimg__host_buffers_pin_with(gpuimg_host_buffers *hb, const gpuimg_backend_ops *ops);

/* A buffer of at least bytes, contents undefined; NULL when out of memory.
 * Pinned when the set pins and pinning works (a failure to pin leaves it
 * pageable: slower transfers, same results). */
struct gpuimg_buffer *gpuimg__buffer_take(gpuimg_host_buffers *hb, size_t bytes);
/* Back to its set (or freed); any thread. */
void gpuimg__buffer_give(struct gpuimg_buffer *buf);
/* Freed now, not kept: memory a single image's run no longer needs (a
 * buffer being pinned on another thread is kept instead). */
void gpuimg__buffer_discard(struct gpuimg_buffer *buf);
/* Pins a buffer taken before its set began to pin. */
void gpuimg__buffer_pin(struct gpuimg_buffer *buf);
uint8_t *gpuimg__buffer_data(const struct gpuimg_buffer *buf);

/* Makes a buffer of bytes now, to be pinned on another thread: pinning
 * 100 MB takes tens of milliseconds, which a helper of the context runs
 * beside the decode (context.c). The buffer waits, idle, for the take of
 * its size; a decoder may write it while it is being pinned (pinning moves
 * no data). Returns it, marked busy, for gpuimg__buffer_pin_now; NULL when
 * out of memory. */
struct gpuimg_buffer *gpuimg__buffer_prepare(gpuimg_host_buffers *hb, size_t bytes);
/* That thread: pins with ops (NULL: leaves it pageable) and clears busy. */
void gpuimg__buffer_pin_now(struct gpuimg_buffer *buf, const gpuimg_backend_ops *ops);

#endif
