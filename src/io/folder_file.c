/* SPDX-License-Identifier: MIT */
/* Opening a file a folder walk found (batch's inputs, compare's pairs),
 * which an untrusted job may have unpacked and may still be changing.
 *
 * Strictly (an actual folder, batch's IN_DIR) the file must be a regular
 * file reached from the folder without a symbolic link anywhere: each
 * subfolder is opened from the one above with O_NOFOLLOW, so swapping
 * act/sub for a link to a private folder after the walk does not lead
 * there (a path opened whole follows links in every part but the last);
 * the file's own entry is looked at (fstatat) before it is opened, so a
 * device's open, which may do something, is never called; O_NOFOLLOW and
 * O_NONBLOCK keep a link or a FIFO put there since from being followed or
 * waited on, and fstat judges what was opened. Not strictly (a golden
 * folder, the project's own): links are followed, as a repository may
 * share one golden between names, but only a regular file is read. */
#define _DEFAULT_SOURCE /* openat, fstatat */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/io.h"

static const char *file_kind(mode_t mode)
{
    return S_ISLNK(mode)    ? "a symbolic link"
           : S_ISFIFO(mode) ? "a FIFO"
           : S_ISCHR(mode)  ? "a character device"
           : S_ISBLK(mode)  ? "a block device"
           : S_ISSOCK(mode) ? "a socket"
           : S_ISDIR(mode)  ? "a directory"
                            : "not a regular file";
}

static gpuimg_status refuse(gpuimg_ctx *ctx, const char *path, const char *why)
{
    return gpuimg__fail(ctx, GPUIMG_ERR_IO, "%s: %s (only regular files are read)", path, why);
}

/* The folder holding rel's last part, opened from root part by part; its
 * descriptor, or -1 with the context's error. */
static int open_parent(gpuimg_ctx *ctx, const char *path, size_t root_len, const char **last)
{
    char root[4096];
    if (root_len == 0 || root_len >= sizeof root) {
        gpuimg__fail(ctx, GPUIMG_ERR_IO, "%s: path too long", path);
        return -1;
    }
    memcpy(root, path, root_len);
    root[root_len] = '\0';
    /* the folder the user named: its own links are the user's */
    int dir = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir < 0) {
        gpuimg__fail_errno(ctx, root);
        return -1;
    }
    const char *p = path + root_len;
    for (;;) {
        while (*p == '/')
            p++;
        const char *slash = strchr(p, '/');
        if (!slash)
            break;
        char part[4096];
        size_t n = (size_t)(slash - p);
        if (n >= sizeof part) {
            close(dir);
            gpuimg__fail(ctx, GPUIMG_ERR_IO, "%s: path too long", path);
            return -1;
        }
        memcpy(part, p, n);
        part[n] = '\0';
        int sub = openat(dir, part, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        int e = errno;
        close(dir);
        if (sub < 0) {
            if (e == ELOOP || e == ENOTDIR)
                refuse(ctx, path, "a folder on its way is a symbolic link or no folder");
            else
                gpuimg__fail(ctx, GPUIMG_ERR_IO, "%s: %s", path, strerror(e));
            return -1;
        }
        dir = sub;
        p = slash + 1;
    }
    *last = p;
    return dir;
}

static gpuimg_status open_strict(gpuimg_ctx *ctx, const char *path, size_t root_len, int *fd)
{
    const char *name;
    int dir = open_parent(ctx, path, root_len, &name);
    if (dir < 0)
        return GPUIMG_ERR_IO;
    struct stat sb;
    if (fstatat(dir, name, &sb, AT_SYMLINK_NOFOLLOW) != 0) {
        int e = errno;
        close(dir);
        return gpuimg__fail(ctx, GPUIMG_ERR_IO, "%s: %s", path, strerror(e));
    }
    if (!S_ISREG(sb.st_mode)) {
        close(dir);
        return refuse(ctx, path, file_kind(sb.st_mode));
    }
    *fd = openat(dir, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    int e = errno;
    close(dir);
    if (*fd < 0)
        return e == ELOOP ? refuse(ctx, path, "a symbolic link")
                          : gpuimg__fail(ctx, GPUIMG_ERR_IO, "%s: %s", path, strerror(e));
    return GPUIMG_OK;
}

static gpuimg_status open_trusted(gpuimg_ctx *ctx, const char *path, int *fd)
{
    struct stat sb;
    if (stat(path, &sb) != 0)
        return gpuimg__fail_errno(ctx, path);
    if (!S_ISREG(sb.st_mode))
        return refuse(ctx, path, file_kind(sb.st_mode));
    if ((*fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)) < 0)
        return gpuimg__fail_errno(ctx, path);
    return GPUIMG_OK;
}

gpuimg_status gpuimg__open_folder_file(gpuimg_ctx *ctx, const char *path, size_t root_len,
                                       int strict, int *fd, struct stat *sb)
{
    gpuimg_status st = strict ? open_strict(ctx, path, root_len, fd) : open_trusted(ctx, path, fd);
    if (st != GPUIMG_OK)
        return st;
    /* what was opened, whatever the name pointed at a moment before */
    if (fstat(*fd, sb) != 0 || !S_ISREG(sb->st_mode)) {
        close(*fd);
        return refuse(ctx, path, "not a regular file");
    }
    return GPUIMG_OK;
}
