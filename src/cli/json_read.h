/* SPDX-License-Identifier: MIT */
/* A small JSON reader (RFC 8259) for the files compare reads back: its own
 * --json documents (compare --merge) and --ignore-file regions. The whole
 * text becomes a tree; nesting is bounded, strings are UTF-8 with \u
 * escapes (surrogate pairs joined; a NUL, a lone surrogate or invalid UTF-8
 * refused), numbers are doubles. */
#ifndef GPUIMG_CLI_JSON_READ_H
#define GPUIMG_CLI_JSON_READ_H

#include <stddef.h>

typedef enum { JSON_NULL, JSON_BOOL, JSON_NUMBER, JSON_STRING, JSON_ARRAY, JSON_OBJECT } json_type;

typedef struct json_value {
    json_type type;
    int boolean;
    double number;
    char *string;             /* JSON_STRING */
    struct json_value *items; /* JSON_ARRAY: elements; JSON_OBJECT: values */
    char **keys;              /* JSON_OBJECT: the values' keys */
    size_t n;
} json_value;

/* The tree of text[0..len), or NULL with a one-line reason in err (byte
 * offset included). */
json_value *json_parse(const char *text, size_t len, char *err, size_t errlen);
void json_free(json_value *v);
/* An object's member, or NULL (also when obj is no object). */
const json_value *json_get(const json_value *obj, const char *key);
/* The member's number / string / boolean, or fallback when absent or of
 * another type (null included). */
double json_number_or(const json_value *obj, const char *key, double fallback);
const char *json_string_or(const json_value *obj, const char *key, const char *fallback);
int json_bool_or(const json_value *obj, const char *key, int fallback);

#endif
