/* SPDX-License-Identifier: MIT */
/* Large pixel memory in huge pages (big_alloc.h). */
#define _DEFAULT_SOURCE
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "core/big_alloc.h"

#define HUGE_PAGE ((size_t)2 << 20)
#define BIG (2 * HUGE_PAGE)

#if defined(__SANITIZE_ADDRESS__)
#define SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(memory_sanitizer)
#define SANITIZED 1
#endif
#endif
#ifndef SANITIZED
#define SANITIZED 0
#endif

/* Under ASan (whose red zones see a row written past a plane) and under
 * valgrind (GPUIMG_MALLOC=1 in `make test-valgrind`: mapped pages read as
 * defined, malloc'ed ones as undefined until written), the C library's. */
static int use_malloc(void)
{
    /* asked from several threads at once (a pair's two images decode
     * together): each may work it out, the answer is the same */
    static atomic_int cached = -1;
    int v = atomic_load_explicit(&cached, memory_order_relaxed);
    if (v < 0) {
        const char *e = getenv("GPUIMG_MALLOC");
        v = SANITIZED || (e && *e == '1');
        atomic_store_explicit(&cached, v, memory_order_relaxed);
    }
    return v;
}

static size_t rounded(size_t bytes)
{
    return (bytes + HUGE_PAGE - 1) / HUGE_PAGE * HUGE_PAGE;
}

void *gpuimg__big_alloc(size_t bytes, size_t align)
{
    if (bytes < BIG || use_malloc()) {
        size_t a = align < sizeof(void *) ? sizeof(void *) : align;
        size_t r = (bytes + a - 1) / a * a;
        return aligned_alloc(a, r ? r : a);
    }
    if (bytes > SIZE_MAX - 2 * HUGE_PAGE)
        return NULL;
    /* mapped, not malloc'ed: the C library keeps freed heap memory (and a
     * freed mapping raises its threshold for the next ones), so the pages
     * of a freed image would stay resident; a mapping goes back whole. An
     * extra huge page of address space, trimmed, aligns it to 2 MB. */
    size_t size = rounded(bytes), span = size + HUGE_PAGE;
    uint8_t *m = mmap(NULL, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED)
        return NULL;
    uint8_t *p = (uint8_t *)(((uintptr_t)m + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1));
    if (p > m)
        munmap(m, (size_t)(p - m));
    if (m + span > p + size)
        munmap(p + size, (size_t)(m + span - (p + size)));
#ifdef MADV_HUGEPAGE
    madvise(p, size, MADV_HUGEPAGE); /* advice: without huge pages nothing changes */
#endif
    return p;
}

void gpuimg__big_free(void *p, size_t bytes)
{
    if (!p)
        return;
    if (bytes < BIG || use_malloc())
        free(p);
    else
        munmap(p, rounded(bytes));
}
