/* SPDX-License-Identifier: MIT */
/* Large pixel memory in huge pages (big_alloc.h). */
#define _DEFAULT_SOURCE
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "big_alloc.h"

#define HUGE_PAGE ((size_t)2 << 20)

void *gpuimg__big_alloc(size_t bytes, size_t align)
{
    if (bytes < 2 * HUGE_PAGE) { /* a few pages' faults: not worth a huge page */
        size_t a = align < sizeof(void *) ? sizeof(void *) : align;
        size_t rounded = (bytes + a - 1) / a * a;
        return aligned_alloc(a, rounded ? rounded : a);
    }
    if (bytes > SIZE_MAX - HUGE_PAGE)
        return NULL;
    size_t rounded = (bytes + HUGE_PAGE - 1) / HUGE_PAGE * HUGE_PAGE;
    void *p = aligned_alloc(HUGE_PAGE, rounded);
#ifdef MADV_HUGEPAGE
    if (p) /* advice only: where the kernel has no huge pages, nothing changes */
        madvise(p, rounded, MADV_HUGEPAGE);
#endif
    return p;
}
