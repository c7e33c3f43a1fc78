/* SPDX-License-Identifier: MIT */
/* The timeline of GPUIMG_TRACE (trace.h). Events go into one array, each
 * thread claiming a slot with an atomic add (no lock on the hot path); a
 * run longer than the array keeps its first MAX_EVENTS. The file is
 * written by an atexit handler: the library has no end of its own to hang
 * it on, and a diagnostic may take the process's. */
#define _GNU_SOURCE
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "core/trace.h"

enum { MAX_EVENTS = 1 << 20 };

typedef struct event {
    char name[32];
    int tid;
    double t0, t1;
    atomic_int ready; /* set once filled: a thread still running at exit may not be done */
} event;

static event *events;
static atomic_size_t used;
static atomic_int state; /* 0 unread, 1 off, 2 on, 3 being set up */
static atomic_int next_tid;
static _Thread_local int my_tid;
static double origin;
static const char *path;

static atomic_int written;

/* The process's start, about: stages that began before the first record
 * (a device's opening) keep their place on the timeline. */
__attribute__((constructor)) static void trace_origin(void)
{
    origin = gpuimg__now_ms();
}

static void write_trace(void)
{
    if (atomic_exchange(&written, 1))
        return;
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "gpuimg: GPUIMG_TRACE: cannot write %s\n", path);
        return;
    }
    size_t n = atomic_load(&used);
    n = n < MAX_EVENTS ? n : MAX_EVENTS;
    fprintf(f, "{\"traceEvents\":[\n");
    int first = 1;
    for (size_t i = 0; i < n; i++) {
        const event *e = &events[i];
        if (!atomic_load_explicit(&e->ready, memory_order_acquire))
            continue;
        fprintf(f,
                "%s{\"name\":\"%s\",\"ph\":\"X\",\"pid\":1,\"tid\":%d,\"ts\":%.1f,\"dur\":%.1f}\n",
                first ? "" : ",", e->name, e->tid, (e->t0 - origin) * 1e3, (e->t1 - e->t0) * 1e3);
        first = 0;
    }
    fprintf(f, "]}\n");
    fclose(f);
}

int gpuimg__trace_on(void)
{
    int s = atomic_load_explicit(&state, memory_order_acquire);
    if (s == 1 || s == 2)
        return s == 2;
    int unread = 0;
    if (atomic_compare_exchange_strong(&state, &unread, 3)) {
        path = getenv("GPUIMG_TRACE");
        int on = path && path[0] && (events = calloc(MAX_EVENTS, sizeof *events)) != NULL;
        if (on)
            atexit(write_trace);
        atomic_store_explicit(&state, on ? 2 : 1, memory_order_release);
        return on;
    }
    while ((s = atomic_load_explicit(&state, memory_order_acquire)) == 3)
        ; /* another thread is reading the environment: a moment */
    return s == 2;
}

void gpuimg__trace(const char *name, double t0, double t1)
{
    if (!gpuimg__trace_on())
        return;
    if (!my_tid)
        my_tid = atomic_fetch_add(&next_tid, 1) + 1;
    size_t i = atomic_fetch_add(&used, 1);
    if (i >= MAX_EVENTS)
        return;
    event *e = &events[i];
    snprintf(e->name, sizeof e->name, "%s", name);
    for (char *c = e->name; *c; c++) /* nothing to escape in JSON */
        if (*c == '"' || *c == '\\' || (unsigned char)*c < 0x20)
            *c = '_';
    e->tid = my_tid;
    e->t0 = t0;
    e->t1 = t1;
    atomic_store_explicit(&e->ready, 1, memory_order_release);
}

double gpuimg__trace_since(const char *name, double t0)
{
    double t1 = gpuimg__now_ms();
    gpuimg__trace(name, t0, t1);
    return t1;
}

void gpuimg__trace_finish(void)
{
    if (atomic_load(&state) == 2)
        write_trace();
}
