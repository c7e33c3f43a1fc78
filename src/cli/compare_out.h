/* SPDX-License-Identifier: MIT */
/* What `gpuimg compare` writes: the records of pairs (text and JSON, one
 * shape for one pair and for a folder's), the HTML report and JUnit XML
 * (compare_report.c). */
#ifndef GPUIMG_CLI_COMPARE_OUT_H
#define GPUIMG_CLI_COMPARE_OUT_H

#include <stdio.h>

#include "gpuimg.h"

/* The options a run applied, for the records' "thresholds", and what a
 * folder's document says of the run (so that --merge can join shards). */
typedef struct compare_settings {
    gpuimg_compare_options opt;
    gpuimg_compare_limits lim;
    const char *mask; /* --mask, single pair */
    const char *expected_dir, *actual_dir;
    int shard_index, shard_count; /* count 0: not sharded */
    size_t all_pairs;             /* of every shard */
    int allow_new, allow_empty;
    size_t updated, pruned;
    const gpuimg_ignore_region *regions; /* --ignore-file's */
    size_t nregions;
} compare_settings;

/* --ignore-file's text (name for the messages) as regions: 0, or -1 with a
 * one-line reason in why. */
int compare_regions_parse(const char *name, const char *text, size_t len,
                          gpuimg_ignore_region **out, size_t *nout, char *why, size_t whylen);
void compare_regions_free(gpuimg_ignore_region *regions, size_t n);
/* The rectangles of the regions whose glob matches path (at most room). */
size_t compare_regions_for(const gpuimg_ignore_region *regions, size_t n, const char *path,
                           gpuimg_rect *out, size_t room);
/* A whole file (at most 1 GiB) in memory, or NULL. */
char *compare_read_text(const char *path, size_t *len);

/* One pair as JSON: its name fields ("path", or "a" and "b"), the status,
 * both sizes, every figure (null where there is none), the bounding box of
 * the counted pixels, the thresholds applied, the failed limits and the
 * reason or error. */
void compare_json_record(FILE *f, const gpuimg_pair *p, const compare_settings *s, int single);
/* A folder's document (--json, report.json, a shard's part): the records,
 * the summary, then the run: folders, shard, thresholds, allowances. */
void compare_json_document(FILE *f, const gpuimg_folder_result *res, const compare_settings *s);
/* A document built in memory by fill, then written to path atomically:
 * 0, or -1 with the context's error set (compare_report.c). */
int compare_write_document(gpuimg_ctx *ctx, const char *path, void (*fill)(FILE *, void *),
                           void *arg);
/* The document written atomically to path: 0, or -1 with the context's
 * error set. */
int compare_json_file(gpuimg_ctx *ctx, const char *path, const gpuimg_folder_result *res,
                      const compare_settings *s);

/* compare --merge: the parts (--json FILE documents of --shard K/N runs)
 * joined into one result and the settings they were made with, the pairs
 * sorted by path. 0, or -1 with a one-line reason in why (exit 3: a part
 * unreadable or not a part; exit 2: parts that do not make one run, in
 * *usage). */
int compare_merge_read(gpuimg_ctx *ctx, char *const *parts, int nparts, gpuimg_folder_result *res,
                       compare_settings *s, char *why, size_t len, int *usage);
void compare_merge_free(compare_settings *s);

/* The report folder (--report DIR): index.html, report.json, and the images
 * of the failing pairs (expected, actual, diff) under DIR/images. open
 * makes the folder (its parent must exist): NULL with errno when it cannot;
 * the others return 0, or -1 with the context's error set. */
typedef struct compare_report compare_report;
compare_report *compare_report_open(gpuimg_ctx *ctx, const char *dir);
/* Called for each failing pair, with its difference image (may be NULL). */
int compare_report_add_images(compare_report *r, const gpuimg_pair *p, const gpuimg_image *diff);
int compare_report_finish(compare_report *r, const gpuimg_folder_result *res,
                          const compare_settings *s, const char *expected_dir,
                          const char *actual_dir);
void compare_report_free(compare_report *r);

/* JUnit XML: one test case per pair, a failure for each failing one. */
int compare_junit(gpuimg_ctx *ctx, const char *path, const gpuimg_folder_result *res,
                  int allow_new);

/* GitHub Actions (compare_github.c): on when flag (--github) is set or
 * GITHUB_ACTIONS is "true". One `::error file=ACTUAL,title=gpuimg
 * compare::STATUS: REASON` line for a failing pair, escaped as workflow
 * commands are. The summary appends a Markdown section (the counts, a
 * table of the pairs that are not identical, failing ones first, at most
 * 200 rows) to the file GITHUB_STEP_SUMMARY names: 0 (also when it names
 * none), or -1 with errno. */
int compare_github_on(int flag);
void compare_github_annotation(FILE *f, const gpuimg_pair *p);
int compare_github_summary(const gpuimg_folder_result *res, const char *expected,
                           const char *actual, int allow_new);

/* 1 for the statuses that fail a run (missing and new counted apart). */
int compare_pair_fails(gpuimg_pair_status s, int allow_new);

#endif
