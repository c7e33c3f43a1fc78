/* SPDX-License-Identifier: MIT */
#ifndef GPUIMG_CLI_JSON_H
#define GPUIMG_CLI_JSON_H

#include <stdio.h>

/* Writes s as a JSON string literal, escaping quotes, backslashes and
 * control characters. */
static inline void json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\')
            fprintf(f, "\\%c", ch);
        else if (ch < 0x20)
            fprintf(f, "\\u%04x", ch);
        else
            fputc(ch, f);
    }
    fputc('"', f);
}

/* A double, or null when it is not finite (JSON has no inf). */
static inline void json_number(FILE *f, double v, int valid)
{
    if (valid)
        fprintf(f, "%.17g", v);
    else
        fputs("null", f);
}

#endif
