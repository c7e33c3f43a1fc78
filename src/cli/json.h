/* SPDX-License-Identifier: MIT */
#ifndef GPUIMG_CLI_JSON_H
#define GPUIMG_CLI_JSON_H

#include <stdio.h>
#include <stdlib.h>

#include "core/utf8.h"

/* Writes s as a JSON string literal: quotes, backslashes and control
 * characters escaped, and each byte that is not part of a well-formed UTF-8
 * character (a file name is bytes) written as U+FFFD, so that the document
 * is valid UTF-8 JSON whatever the names hold. */
static inline void json_string(FILE *f, const char *s)
{
    fputc('"', f);
    while (*s) {
        uint32_t cp;
        int len = gpuimg__utf8_next(s, &cp);
        if (len == 0) {
            fputs("\\ufffd", f);
            s++;
            continue;
        }
        if (cp == '"' || cp == '\\')
            fprintf(f, "\\%c", (int)cp);
        else if (cp < 0x20 || cp == 0x7f)
            fprintf(f, "\\u%04x", (unsigned)cp);
        else
            fwrite(s, 1, (size_t)len, f);
        s += len;
    }
    fputc('"', f);
}

/* A double in the fewest significant digits (15 to 17) that read back as the
 * same double, or null when not valid (JSON has no inf). */
static inline void json_number(FILE *f, double v, int valid)
{
    if (!valid) {
        fputs("null", f);
        return;
    }
    char text[32];
    for (int digits = 15; digits <= 17; digits++) {
        snprintf(text, sizeof text, "%.*g", digits, v);
        if (strtod(text, NULL) == v)
            break;
    }
    fputs(text, f);
}

#endif
