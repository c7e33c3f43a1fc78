/* SPDX-License-Identifier: MIT */
/* The floor every file of the library may stand on: a failure's status
 * and its one-line detail, warnings, the clock. Nothing here knows images,
 * operations, formats or files (context.c implements it). */
#ifndef GPUIMG_FLOOR_H
#define GPUIMG_FLOOR_H

#include "gpuimg.h"

#ifdef __cplusplus
extern "C" { /* the clock is the kernels' too */
#endif

/* Records the detail of a failure and returns st, so callers can write
 * `return gpuimg__fail(ctx, GPUIMG_ERR_IO, "%s: %s", path, strerror(errno));`. */
gpuimg_status gpuimg__fail(gpuimg_ctx *ctx, gpuimg_status st, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* The same, the detail being "WHAT: " and the status's own text
 * (gpuimg_strerror): "in.png: out of memory". */
gpuimg_status gpuimg__fail_as(gpuimg_ctx *ctx, gpuimg_status st, const char *what);
/* GPUIMG_ERR_IO, the detail being "WHAT: " and errno's text: the one
 * wording of a failed system call ("out/a.png: Permission denied"). */
gpuimg_status gpuimg__fail_errno(gpuimg_ctx *ctx, const char *what);
void gpuimg__warn(gpuimg_ctx *ctx, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The same, unless *flag was already set (it is set, atomically, here). */
void gpuimg__warn_once(gpuimg_ctx *ctx, int *flag, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Monotonic milliseconds. */
double gpuimg__now_ms(void);

#ifdef __cplusplus
}
#endif

#endif
