/* SPDX-License-Identifier: MIT */
#define _DEFAULT_SOURCE /* _SC_PHYS_PAGES */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "core/budget.h"

/* A container's memory limit (cgroup v2, else v1), or 0 when none is set. */
static uint64_t cgroup_limit(void)
{
    static const char *const files[] = {"/sys/fs/cgroup/memory.max",
                                        "/sys/fs/cgroup/memory/memory.limit_in_bytes"};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        FILE *f = fopen(files[i], "r");
        if (!f)
            continue;
        unsigned long long v = 0;
        int got = fscanf(f, "%llu", &v); /* "max": no limit */
        fclose(f);
        if (got == 1 && v > 0)
            return (uint64_t)v;
    }
    return 0;
}

uint64_t gpuimg__budget_of(const gpuimg_config *cfg)
{
    if (cfg->memory_budget)
        return cfg->memory_budget;
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    uint64_t memory = pages > 0 && page > 0 ? (uint64_t)pages * (uint64_t)page : UINT64_C(16) << 30;
    uint64_t container = cgroup_limit(); /* a CI job's limit on a large host */
    if (container && container < memory)
        memory = container;
    return memory / 4;
}

void gpuimg__budget_init(gpuimg__budget *b, uint64_t limit)
{
    pthread_mutex_init(&b->lock, NULL);
    pthread_cond_init(&b->room, NULL);
    b->limit = limit;
    b->used = 0;
}

void gpuimg__budget_destroy(gpuimg__budget *b)
{
    pthread_mutex_destroy(&b->lock);
    pthread_cond_destroy(&b->room);
}

static double mib(uint64_t bytes)
{
    return (double)bytes / (1024.0 * 1024.0);
}

gpuimg_status gpuimg__budget_take(gpuimg__budget *b, gpuimg_ctx *ctx, const char *name,
                                  uint64_t need)
{
    if (need > b->limit)
        return gpuimg__fail(ctx, GPUIMG_ERR_TOO_LARGE,
                            "%s: decodes to %.0f MiB, more than the memory budget of %.0f MiB "
                            "(--memory-budget)",
                            name, mib(need), mib(b->limit));
    pthread_mutex_lock(&b->lock);
    while (b->used > 0 && b->used + need > b->limit)
        pthread_cond_wait(&b->room, &b->lock);
    b->used += need;
    pthread_mutex_unlock(&b->lock);
    return GPUIMG_OK;
}

void gpuimg__budget_give(gpuimg__budget *b, uint64_t n)
{
    if (n == 0)
        return;
    pthread_mutex_lock(&b->lock);
    b->used -= n;
    pthread_cond_broadcast(&b->room);
    pthread_mutex_unlock(&b->lock);
}
