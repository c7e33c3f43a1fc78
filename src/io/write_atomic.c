/* SPDX-License-Identifier: MIT */
/* Writing a file so that nothing is ever lost (SPEC §1): the bytes go to a
 * temporary file in the same folder, renamed over the target only when all
 * of them are written, so a reader sees the old file or the new one, never
 * a part; a failure or a signal (gpuimg_remove_temporaries) leaves no
 * temporary behind. Every output of the library is written here: encoded
 * images, golden updates, and through gpuimg_write_file the CLI's reports. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/internal.h"

/* The folder part of path ("." when it has none), in buf. */
void gpuimg__parent_folder(const char *path, char *buf, size_t len)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        snprintf(buf, len, ".");
    else if (slash == path)
        snprintf(buf, len, "/");
    else
        snprintf(buf, len, "%.*s", (int)(slash - path), path);
}

/* Temporary files of writes in progress, for gpuimg_remove_temporaries()
 * to delete from a signal handler: a slot is 0 free, 1 being filled, 2 live.
 * One per writer: batch's --jobs is at most 1024 (4 MiB of address space,
 * touched only as slots are used). */
#define TEMP_SLOTS 1088
static char temp_paths[TEMP_SLOTS][4200];
static atomic_int temp_state[TEMP_SLOTS];

static int temp_register(const char *path)
{
    for (int i = 0; i < TEMP_SLOTS; i++) {
        int expected = 0;
        if (atomic_compare_exchange_strong(&temp_state[i], &expected, 1)) {
            snprintf(temp_paths[i], sizeof temp_paths[i], "%s", path);
            atomic_store(&temp_state[i], 2);
            return i;
        }
    }
    return -1; /* more writes in flight than slots: this one is not covered */
}

static void temp_unregister(int slot)
{
    if (slot >= 0)
        atomic_store(&temp_state[slot], 0);
}

/* A signal's handler may run on any thread while another is between making
 * its temporary and registering it. So a writer counts itself in `creating`
 * for that moment (with the fatal signals blocked on its own thread, so the
 * handler never waits for itself), and the handler, once it has set
 * `dying` (no writer starts after it), waits for the count to drop before it
 * deletes what is registered. */
static atomic_int creating, dying;

void gpuimg_remove_temporaries(void)
{
    atomic_store(&dying, 1);
    struct timespec ms = {0, 1000000};
    for (int i = 0; i < 500 && atomic_load(&creating) > 0; i++)
        nanosleep(&ms, NULL); /* async-signal-safe; a stuck writer costs 0.5 s */
    for (int i = 0; i < TEMP_SLOTS; i++)
        if (atomic_load(&temp_state[i]) == 2)
            unlink(temp_paths[i]);
}

/* Creates "<folder>/.<name>.gpuimg-XXXXXXXX" exclusively, mode 0666 less the
 * umask (mkstemp's 0600 would need the umask read back, which is racy).
 * The name is cut to what fits NAME_MAX (255 bytes) with the 17 added, so
 * a target of 238-255 bytes can still be written. */
#define TEMP_NAME_ROOM (255 - 17)
static int create_temp(const char *folder, const char *base, char *tmp, size_t len)
{
    static atomic_uint counter;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    for (int attempt = 0; attempt < 100; attempt++) {
        unsigned x = (unsigned)getpid() * 2654435761u ^ (unsigned)ts.tv_nsec ^
                     atomic_fetch_add(&counter, 1) * 40503u;
        int n = snprintf(tmp, len, "%s/.%.*s.gpuimg-%08x", folder, TEMP_NAME_ROOM, base, x);
        if (n < 0 || (size_t)n >= len) {
            errno = ENAMETOOLONG;
            return -1;
        }
        int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd >= 0 || errno != EEXIST)
            return fd;
    }
    return -1;
}

gpuimg_status gpuimg__write_atomic(gpuimg_ctx *ctx, const char *path,
                                   gpuimg_status (*write)(gpuimg_ctx *ctx, FILE *f, void *user),
                                   void *user)
{
    char folder[4096], tmp[4200];
    gpuimg__parent_folder(path, folder, sizeof folder);
    const char *slash = strrchr(path, '/');
    /* made and registered as one step for gpuimg_remove_temporaries (above) */
    sigset_t fatal, before;
    sigemptyset(&fatal);
    sigaddset(&fatal, SIGINT);
    sigaddset(&fatal, SIGTERM);
    sigaddset(&fatal, SIGHUP);
    sigaddset(&fatal, SIGALRM); /* batch's grace after a first signal (cmd_batch.c) */
    pthread_sigmask(SIG_BLOCK, &fatal, &before);
    atomic_fetch_add(&creating, 1);
    int fd = -1, slot = -1, e = EINTR;
    if (!atomic_load(&dying)) {
        fd = create_temp(folder, slash ? slash + 1 : path, tmp, sizeof tmp);
        e = errno;
        slot = fd >= 0 ? temp_register(tmp) : -1;
    }
    atomic_fetch_sub(&creating, 1);
    pthread_sigmask(SIG_SETMASK, &before, NULL);
    if (fd < 0)
        return gpuimg__fail(ctx, GPUIMG_ERR_IO, "%s: cannot create a file in %s: %s", path, folder,
                            strerror(e));
    FILE *f = fdopen(fd, "wb");
    if (!f) {
        int e = errno;
        close(fd);
        unlink(tmp);
        temp_unregister(slot);
        return gpuimg__fail(ctx, GPUIMG_ERR_NOMEM, "%s: %s", path, strerror(e));
    }
    gpuimg_status st = write(ctx, f, user);
    if (fclose(f) != 0 && st == GPUIMG_OK)
        st = gpuimg__fail_errno(ctx, path);
    if (st == GPUIMG_OK && rename(tmp, path) != 0)
        st = gpuimg__fail_errno(ctx, path);
    if (st != GPUIMG_OK)
        unlink(tmp);
    temp_unregister(slot);
    return st;
}

struct bytes {
    const char *path;
    const void *data;
    size_t len;
};

static gpuimg_status write_bytes(gpuimg_ctx *ctx, FILE *f, void *user)
{
    const struct bytes *b = user;
    if (b->len > 0 && fwrite(b->data, 1, b->len, f) != b->len)
        return gpuimg__fail_errno(ctx, b->path);
    return GPUIMG_OK;
}

gpuimg_status gpuimg_write_file(gpuimg_ctx *ctx, const char *path, const void *data, size_t len)
{
    struct bytes b = {path, data, len};
    return gpuimg__write_atomic(ctx, path, write_bytes, &b);
}

/* An encoder writes a FILE; open_memstream gives it one over memory, so
 * every format's writer serves gpuimg_encode and gpuimg_process_memory
 * unchanged (the bytes are those a file would hold). */
gpuimg_status gpuimg__capture_begin(gpuimg_ctx *ctx, const char *name, char **buf, size_t *len)
{
    *buf = NULL;
    *len = 0;
    FILE *f = open_memstream(buf, len);
    if (!f)
        return gpuimg__fail(ctx, GPUIMG_ERR_NOMEM, "%s: out of memory", name);
    ctx->stdout_stream = f;
    ctx->stdout_name = name;
    return GPUIMG_OK;
}

gpuimg_status gpuimg__capture_end(gpuimg_ctx *ctx, gpuimg_status st, char **buf, size_t *len,
                                  uint8_t **out, size_t *out_len)
{
    FILE *f = ctx->stdout_stream;
    const char *name = ctx->stdout_name;
    ctx->stdout_stream = NULL;
    ctx->stdout_name = NULL;
    *out = NULL;
    *out_len = 0;
    if (!f)
        return st;
    if (fclose(f) != 0 && st == GPUIMG_OK) /* the stream's last growth */
        st = gpuimg__fail(ctx, GPUIMG_ERR_NOMEM, "%s: out of memory", name);
    if (st == GPUIMG_OK) {
        *out = (uint8_t *)*buf;
        *out_len = *len;
    } else {
        free(*buf);
    }
    *buf = NULL;
    return st;
}
