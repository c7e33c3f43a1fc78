/* SPDX-License-Identifier: MIT */
#define _POSIX_C_SOURCE 200809L /* open_memstream */
/* `compare --github` (and GITHUB_ACTIONS=true), SPEC §7: an `::error`
 * workflow command per failing pair, which GitHub shows as an annotation on
 * the run and in the pull request, and a Markdown table of the pairs that
 * are not identical appended to the job's summary ($GITHUB_STEP_SUMMARY). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "compare_out.h"

int compare_github_on(int flag)
{
    const char *env = getenv("GITHUB_ACTIONS");
    return flag || (env && strcmp(env, "true") == 0);
}

/* GitHub's escaping of a workflow command (the runner's
 * ActionCommand.Unescape* reverses exactly these): '%', CR and LF in the
 * message; also ':' and ',' in a property, where they would end it. Other
 * control characters are written as %XX too: the runner does not decode
 * them (the annotation shows "%1B"), but a raw escape sequence would reach
 * the log's terminal colouring, and a name holding one is hostile anyway. */
static void command_text(FILE *f, const char *s, int property)
{
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '%' || c < 0x20 || c == 0x7f || (property && (c == ':' || c == ',')))
            fprintf(f, "%%%02X", c);
        else
            fputc(c, f);
    }
}

void compare_github_annotation(FILE *f, const gpuimg_pair *p)
{
    fputs("::error file=", f);
    command_text(f, p->actual ? p->actual : p->path, 1);
    fputs(",title=gpuimg compare::", f);
    /* the status names what happened when the reason alone does not
     * ("no actual ..." is clear, a bare limit like "max_diff 9 > 3" less so) */
    fputs(gpuimg_pair_status_name(p->status), f);
    if (p->reason[0]) {
        fputs(": ", f);
        command_text(f, p->reason, 0);
    }
    fputc('\n', f);
}

/* A table cell: '|' would end the cell and a newline the row; Markdown's
 * characters and "<" are backslash-escaped so that a file name shows
 * as written, never as emphasis, a link or a tag; control characters as C
 * escapes (gpuimg_escape_controls), like the text output. */
static void cell(FILE *f, const char *s)
{
    size_t cap = 4 * strlen(s) + 1;
    char *text = malloc(cap);
    if (text)
        gpuimg_escape_controls(s, text, cap);
    for (const char *t = text ? text : ""; *t; t++) {
        if (strchr("\\`*_[]<|~&", *t))
            fputc('\\', f);
        fputc(*t, f);
    }
    free(text);
}

static void row(FILE *f, const gpuimg_pair *p)
{
    fprintf(f, "| %s | ", gpuimg_pair_status_name(p->status));
    cell(f, p->path ? p->path : p->actual); /* one pair has no relative path */
    fputs(" | ", f);
    cell(f, p->reason);
    /* the figures exist for compared pairs only */
    if (p->status <= GPUIMG_PAIR_FAILED)
        fprintf(f, " | %llu | %d |\n", (unsigned long long)p->result.differing, p->result.max_diff);
    else
        fputs(" | | |\n", f);
}

#define SUMMARY_ROWS 200

int compare_github_summary(const gpuimg_folder_result *res, const char *expected,
                           const char *actual, int allow_new)
{
    const char *path = getenv("GITHUB_STEP_SUMMARY");
    if (!path || !*path)
        return 0;
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    if (!m)
        return -1;
    fputs("### gpuimg compare: ", m);
    cell(m, expected);
    fputs(" (expected) and ", m);
    cell(m, actual);
    fprintf(m, " (actual)\n\n%zu pair%s:", res->npairs, res->npairs == 1 ? "" : "s");
    for (int k = 0; k < GPUIMG_PAIR_STATUS_COUNT; k++)
        fprintf(m, "%s %zu %s", k ? "," : "", res->count[k],
                gpuimg_pair_status_name((gpuimg_pair_status)k));
    fputs("\n\n", m);
    size_t shown = 0, rows = res->npairs - res->count[GPUIMG_PAIR_IDENTICAL];
    if (rows) {
        fputs("| status | path | reason | differing | max_diff |\n"
              "|---|---|---|---:|---:|\n",
              m);
        /* the pairs that fail the run first, then those that merely differ
         * (passed, a new one under --allow-new): the first 200 rows are the
         * ones that matter */
        for (int failing = 1; failing >= 0; failing--)
            for (size_t i = 0; i < res->npairs && shown < SUMMARY_ROWS; i++) {
                const gpuimg_pair *p = &res->pairs[i];
                if (p->status != GPUIMG_PAIR_IDENTICAL &&
                    compare_pair_fails(p->status, allow_new) == failing) {
                    row(m, p);
                    shown++;
                }
            }
        if (shown < rows)
            fprintf(m, "\n... and %zu more\n", rows - shown);
        fputc('\n', m);
    }
    if (fclose(m) != 0) {
        free(buf);
        return -1;
    }
    /* appended in one write: other steps' sections stay whole */
    FILE *f = fopen(path, "a");
    int ok = f && fwrite(buf, 1, len, f) == len;
    int saved = errno;
    if (f && fclose(f) != 0 && ok) {
        ok = 0;
        saved = errno;
    }
    free(buf);
    errno = saved;
    return ok ? 0 : -1;
}
