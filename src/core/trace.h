/* SPDX-License-Identifier: MIT */
/* A timeline of the work, for finding what limits a run: with the
 * environment variable GPUIMG_TRACE=FILE, every stage each thread runs (the
 * stages --time sums, and a batch's own: read, walk, waits) is recorded,
 * and FILE is written at the process's end in the Chrome trace format
 * (Perfetto, chrome://tracing), one row per thread. Without it a record
 * costs one load and a branch. */
#ifndef GPUIMG_TRACE_H
#define GPUIMG_TRACE_H

#ifdef __cplusplus
extern "C" {
#endif

/* Whether GPUIMG_TRACE is set (read once). */
int gpuimg__trace_on(void);
/* What ran on this thread from t0 to t1 (gpuimg__now_ms): name is a
 * literal, or text copied up to 31 bytes. */
void gpuimg__trace(const char *name, double t0, double t1);
/* The same, from t0 to now; returns now (the next stage's start). */
double gpuimg__trace_since(const char *name, double t0);
/* Writes the file now (once), for a process that leaves without its
 * exit handlers (the CLI after CUDA); nothing when tracing is off. */
void gpuimg__trace_finish(void);

#ifdef __cplusplus
}
#endif

#endif
