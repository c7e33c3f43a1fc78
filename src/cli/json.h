/* SPDX-License-Identifier: MIT */
#ifndef GPUIMG_CLI_JSON_H
#define GPUIMG_CLI_JSON_H

#include <stdio.h>
#include <stdlib.h>

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
