/* SPDX-License-Identifier: MIT */
/* make dist's binary runs on glibc 2.35 (Ubuntu 22.04) although it is
 * built against Debian 12's 2.36: the one 2.36 symbol it would need is
 * arc4random, which GCC 12's static libstdc++ (std::random_device) calls.
 * Defined here, in the dist build alone (GPUIMG_DIST), the link takes this
 * one and the binary asks glibc for nothing newer than GLIBC_2.35
 * (tests/dist/check.sh checks). Elsewhere this file is empty. */
#ifdef GPUIMG_DIST
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/random.h>

/* As glibc's: the kernel's random bytes, waiting out interruptions, and
 * abort() where none can be had (glibc's arc4random aborts too). */
uint32_t arc4random(void)
{
    uint32_t v;
    for (;;) {
        ssize_t n = getrandom(&v, sizeof v, 0);
        if (n == (ssize_t)sizeof v)
            return v;
        if (n < 0 && errno != EINTR)
            abort();
    }
}
#else
typedef int gpuimg__dist_glibc_empty; /* ISO C: no empty translation unit */
#endif
