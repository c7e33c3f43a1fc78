/* SPDX-License-Identifier: MIT */
/* The worker pool (pool.h). One lock and one condition for everything:
 * tasks are chunks of at least a quarter of a megabyte of work, so the lock
 * is taken a few thousand times a second at most and a broadcast that wakes
 * a waiter for nothing costs nothing measurable. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

#include "core/pool.h"

typedef struct task_queue {
    gpuimg_task *head, *tail;
} task_queue;

struct gpuimg_pool {
    pthread_mutex_t lock;
    pthread_cond_t changed; /* a task queued or finished, or stop set */
    task_queue pieces, jobs;
    int stop;
    int nthreads;
    pthread_t threads[];
};

static void push(task_queue *q, gpuimg_task *t)
{
    t->next = NULL;
    if (q->tail)
        q->tail->next = t;
    else
        q->head = t;
    q->tail = t;
}

static gpuimg_task *pop(task_queue *q)
{
    gpuimg_task *t = q->head;
    if (t && !(q->head = t->next))
        q->tail = NULL;
    return t;
}

/* Runs t with the lock released; returns with it held again. A job's
 * memory may be gone once it has run (nothing waits for a job), so only a
 * piece is marked done. */
static void run_unlocked(gpuimg_pool *p, gpuimg_task *t, int piece)
{
    pthread_mutex_unlock(&p->lock);
    t->run(t);
    pthread_mutex_lock(&p->lock);
    if (piece)
        t->done = 1;
    pthread_cond_broadcast(&p->changed);
}

static void *worker(void *arg)
{
    gpuimg_pool *p = arg;
    pthread_mutex_lock(&p->lock);
    for (;;) {
        gpuimg_task *t = pop(&p->pieces);
        int piece = t != NULL;
        if (!t)
            t = pop(&p->jobs);
        if (t)
            run_unlocked(p, t, piece);
        else if (p->stop)
            break;
        else
            pthread_cond_wait(&p->changed, &p->lock);
    }
    pthread_mutex_unlock(&p->lock);
    return NULL;
}

gpuimg_pool *gpuimg__pool_create(int workers)
{
    if (workers < 0)
        workers = 0;
    gpuimg_pool *p = calloc(1, sizeof *p + (size_t)workers * sizeof(pthread_t));
    if (!p)
        return NULL;
    pthread_mutex_init(&p->lock, NULL);
    pthread_cond_init(&p->changed, NULL);
    for (int i = 0; i < workers; i++) {
        if (pthread_create(&p->threads[p->nthreads], NULL, worker, p) != 0)
            break; /* fewer workers: the waiters do more of the work */
        p->nthreads++;
    }
    return p;
}

void gpuimg__pool_destroy(gpuimg_pool *p)
{
    if (!p)
        return;
    pthread_mutex_lock(&p->lock);
    /* With no worker at all, queued jobs run here. */
    for (gpuimg_task *t; p->nthreads == 0 && (t = pop(&p->jobs));)
        run_unlocked(p, t, 0);
    p->stop = 1;
    pthread_cond_broadcast(&p->changed);
    pthread_mutex_unlock(&p->lock);
    for (int i = 0; i < p->nthreads; i++)
        pthread_join(p->threads[i], NULL);
    pthread_mutex_destroy(&p->lock);
    pthread_cond_destroy(&p->changed);
    free(p);
}

int gpuimg__pool_workers(const gpuimg_pool *p)
{
    return p ? p->nthreads : 0;
}

static void submit(gpuimg_pool *p, task_queue *q, gpuimg_task *t, int piece)
{
    t->done = 0;
    if (!p) {
        t->run(t);
        if (piece)
            t->done = 1;
        return;
    }
    pthread_mutex_lock(&p->lock);
    push(q, t);
    pthread_cond_broadcast(&p->changed);
    pthread_mutex_unlock(&p->lock);
}

void gpuimg__pool_piece(gpuimg_pool *p, gpuimg_task *t)
{
    submit(p, p ? &p->pieces : NULL, t, 1);
}

void gpuimg__pool_job(gpuimg_pool *p, gpuimg_task *t)
{
    submit(p, p ? &p->jobs : NULL, t, 0);
}

void gpuimg__pool_wait(gpuimg_pool *p, gpuimg_task *t)
{
    if (!p)
        return; /* ran when submitted */
    pthread_mutex_lock(&p->lock);
    while (!t->done) {
        /* Only pieces: a job could wait in turn, and so on without end. */
        gpuimg_task *other = pop(&p->pieces);
        if (other)
            run_unlocked(p, other, 1);
        else
            pthread_cond_wait(&p->changed, &p->lock);
    }
    pthread_mutex_unlock(&p->lock);
}

int gpuimg__thread_count(int asked)
{
    if (asked > 0)
        return asked;
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    return cores > 0 ? (cores > 1024 ? 1024 : (int)cores) : 1;
}
