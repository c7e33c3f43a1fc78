/* SPDX-License-Identifier: MIT */
/* What a batch will do, worked out before it does anything (SPEC §5): the
 * folder walk, the pairing of each input with its output, the refusals
 * (OUT_DIR equal to IN_DIR, an output that is an input or that two inputs
 * would write), the shard, and the files --skip-existing leaves alone. No
 * thread, no write: the unit tests exercise it directly, and the folder
 * comparison reuses its walk. */
#ifndef GPUIMG_BATCH_PLAN_H
#define GPUIMG_BATCH_PLAN_H

#include <limits.h>
#include <sys/stat.h>

#include "core/internal.h"

/* A folder plus a relative path: longer than any real path, never truncated. */
#define GPUIMG__PATH_BUF (2 * PATH_MAX + 2)

typedef struct gpuimg__file_list {
    char **rel; /* paths relative to the folder walked */
    size_t n, cap;
} gpuimg__file_list;

void gpuimg__file_list_free(gpuimg__file_list *l);

/* The regular files a walk passed over (not hidden, not an image's
 * extension): how many, and the first GPUIMG_BATCH_IGNORED_NAMED of them
 * in sorted path order (as the inputs are), relative to the folder walked.
 * Only those are kept, whatever the count: a folder of a million other
 * files costs ten names. */
typedef struct gpuimg__ignored {
    uint64_t count;
    char *first[GPUIMG_BATCH_IGNORED_NAMED];
    int named;
} gpuimg__ignored;

void gpuimg__ignored_free(gpuimg__ignored *ig);

/* The image files under root, by extension (gpuimg_is_image_path), sorted
 * by relative path; subfolders only with recursive, never the folder skip
 * (its device and inode; NULL for none: so OUT_DIR inside IN_DIR is not
 * read back), never through a symbolic link. An unreadable subfolder is
 * listed in bad ("PATH: why (folder skipped)"); an unreadable root fails.
 * Other regular files (not hidden) go into *ignored (NULL: not wanted). */
gpuimg_status gpuimg__walk(gpuimg_ctx *ctx, const char *root, int recursive,
                           const struct stat *skip, gpuimg__file_list *files,
                           gpuimg__file_list *bad, gpuimg__ignored *ignored);

/* mkdir -p for the folder part of path (modified and restored), inside a
 * folder known to exist: 0, or -1 with errno. */
int gpuimg__make_parents(char *path);

typedef struct gpuimg__plan {
    gpuimg__file_list files;       /* this shard's inputs, relative to IN_DIR, sorted */
    char **outputs;                /* each input's output path */
    unsigned char *skip;           /* 1: --skip-existing leaves it (its output is newer) */
    size_t skipped;                /* how many are */
    gpuimg__file_list bad_folders; /* unreadable subfolders, as messages */
    gpuimg__ignored ignored;       /* files that are not images */
    uint64_t *bytes, total_bytes;  /* each input's size; those not skipped, summed */
    int out_dir_exists;
} gpuimg__plan;

/* The plan of a batch of options opt; on failure the error is the
 * context's and plan is empty. Free with gpuimg__plan_free. */
gpuimg_status gpuimg__plan_batch(gpuimg_ctx *ctx, const gpuimg_batch_options *opt,
                                 gpuimg__plan *plan);
void gpuimg__plan_free(gpuimg__plan *plan);

#endif
