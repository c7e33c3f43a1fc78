/* SPDX-License-Identifier: MIT */
/* A recursive-descent JSON reader (json_read.h). The files it reads may come
 * from another machine's shard or a user's editor, so it is strict: trailing
 * garbage, bad escapes and control characters in strings are errors, and
 * nesting stops at 64 levels so that a hostile file cannot exhaust the
 * stack. */
#define _POSIX_C_SOURCE 200809L
#include "json_read.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/utf8.h"

#define MAX_DEPTH 64

typedef struct reader {
    const char *s;
    size_t len, at;
    char *err;
    size_t errlen;
    int failed;
} reader;

static int fail(reader *r, const char *what)
{
    if (!r->failed)
        snprintf(r->err, r->errlen, "%s at byte %zu", what, r->at);
    r->failed = 1;
    return -1;
}

static void skip_space(reader *r)
{
    while (r->at < r->len && (r->s[r->at] == ' ' || r->s[r->at] == '\t' || r->s[r->at] == '\n' ||
                              r->s[r->at] == '\r'))
        r->at++;
}

static int literal(reader *r, const char *word)
{
    size_t n = strlen(word);
    if (r->len - r->at < n || memcmp(r->s + r->at, word, n) != 0)
        return fail(r, "not JSON");
    r->at += n;
    return 0;
}

static int hex4(reader *r, unsigned *out)
{
    if (r->len - r->at < 4)
        return fail(r, "a short \\u escape");
    unsigned v = 0;
    for (int k = 0; k < 4; k++) {
        char c = r->s[r->at++];
        int d = c >= '0' && c <= '9'   ? c - '0'
                : c >= 'a' && c <= 'f' ? c - 'a' + 10
                : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                       : -1;
        if (d < 0)
            return fail(r, "a bad \\u escape");
        v = v * 16 + (unsigned)d;
    }
    *out = v;
    return 0;
}

static size_t put_utf8(char *o, unsigned cp)
{
    if (cp < 0x80) {
        o[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        o[0] = (char)(0xc0 | cp >> 6);
        o[1] = (char)(0x80 | (cp & 0x3f));
        return 2;
    }
    if (cp < 0x10000) {
        o[0] = (char)(0xe0 | cp >> 12);
        o[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
        o[2] = (char)(0x80 | (cp & 0x3f));
        return 3;
    }
    o[0] = (char)(0xf0 | cp >> 18);
    o[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
    o[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
    o[3] = (char)(0x80 | (cp & 0x3f));
    return 4;
}

/* A string (the opening quote next); its UTF-8 never longer than its text. */
static int string(reader *r, char **out)
{
    r->at++;
    size_t start = r->at;
    while (r->at < r->len && r->s[r->at] != '"')
        r->at += r->s[r->at] == '\\' ? 2 : 1;
    if (r->at >= r->len)
        return fail(r, "an unterminated string");
    size_t end = r->at;
    char *o = malloc(end - start + 1);
    if (!o)
        return fail(r, "out of memory");
    size_t n = 0;
    r->at = start;
    while (r->at < end) {
        unsigned char c = (unsigned char)r->s[r->at];
        if (c < 0x20) {
            free(o);
            return fail(r, "a control character in a string");
        }
        if (c != '\\') {
            uint32_t cp;
            int len = gpuimg__utf8_next(r->s + r->at, &cp);
            if (len == 0 || r->at + (size_t)len > end) {
                free(o);
                return fail(r, "invalid UTF-8");
            }
            memcpy(o + n, r->s + r->at, (size_t)len);
            n += (size_t)len;
            r->at += (size_t)len;
            continue;
        }
        char e = r->s[++r->at];
        r->at++;
        const char *from = "\"\\/bfnrt", *to = "\"\\/\b\f\n\r\t";
        const char *k = e ? strchr(from, e) : NULL;
        if (k) {
            o[n++] = to[k - from];
            continue;
        }
        unsigned cp, lo;
        if (e != 'u' || hex4(r, &cp) != 0) {
            free(o);
            return fail(r, "a bad escape");
        }
        if (cp >= 0xd800 && cp < 0xdc00) { /* a high surrogate needs its low one */
            if (r->at + 2 > end || r->s[r->at] != '\\' || r->s[r->at + 1] != 'u' ||
                (r->at += 2, hex4(r, &lo)) != 0 || lo < 0xdc00 || lo >= 0xe000) {
                free(o);
                return fail(r, "a lone surrogate");
            }
            cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
        } else if ((cp >= 0xdc00 && cp < 0xe000) || cp == 0) {
            free(o);
            return fail(r, cp ? "a lone surrogate" : "a NUL in a string");
        }
        n += put_utf8(o + n, cp); /* \uXXXX (6 bytes) is at most 4 */
    }
    o[n] = 0;
    r->at = end + 1;
    *out = o;
    return 0;
}

static int number(reader *r, double *out)
{
    size_t start = r->at;
    if (r->s[r->at] == '-')
        r->at++;
    size_t digits = r->at;
    while (r->at < r->len && r->s[r->at] >= '0' && r->s[r->at] <= '9')
        r->at++;
    if (r->at == digits || (r->s[digits] == '0' && r->at - digits > 1))
        return fail(r, "a bad number");
    if (r->at < r->len && r->s[r->at] == '.') {
        size_t f = ++r->at;
        while (r->at < r->len && r->s[r->at] >= '0' && r->s[r->at] <= '9')
            r->at++;
        if (r->at == f)
            return fail(r, "a bad number");
    }
    if (r->at < r->len && (r->s[r->at] == 'e' || r->s[r->at] == 'E')) {
        r->at++;
        if (r->at < r->len && (r->s[r->at] == '+' || r->s[r->at] == '-'))
            r->at++;
        size_t e = r->at;
        while (r->at < r->len && r->s[r->at] >= '0' && r->s[r->at] <= '9')
            r->at++;
        if (r->at == e)
            return fail(r, "a bad number");
    }
    char buf[64];
    size_t n = r->at - start;
    if (n >= sizeof buf)
        return fail(r, "a number too long");
    memcpy(buf, r->s + start, n);
    buf[n] = 0;
    *out = strtod(buf, NULL);
    return isfinite(*out) ? 0 : fail(r, "a number out of range");
}

static int value(reader *r, json_value *v, int depth);

/* Appends a zeroed slot to v's items (and a key slot for objects). */
static json_value *grow(reader *r, json_value *v, size_t *cap)
{
    if (v->n == *cap) {
        size_t want = *cap ? *cap * 2 : 4;
        json_value *items = realloc(v->items, want * sizeof *items);
        if (!items)
            return fail(r, "out of memory"), NULL;
        v->items = items;
        if (v->type == JSON_OBJECT) {
            char **keys = realloc(v->keys, want * sizeof *keys);
            if (!keys)
                return fail(r, "out of memory"), NULL;
            v->keys = keys;
        }
        *cap = want;
    }
    memset(&v->items[v->n], 0, sizeof v->items[v->n]);
    return &v->items[v->n];
}

static int container(reader *r, json_value *v, int depth)
{
    int object = r->s[r->at] == '{';
    char close = object ? '}' : ']';
    v->type = object ? JSON_OBJECT : JSON_ARRAY;
    r->at++;
    size_t cap = 0;
    skip_space(r);
    if (r->at < r->len && r->s[r->at] == close) {
        r->at++;
        return 0;
    }
    for (;;) {
        skip_space(r);
        json_value *item = grow(r, v, &cap);
        if (!item)
            return -1;
        if (object) {
            char *key = NULL;
            if (r->at >= r->len || r->s[r->at] != '"' || string(r, &key) != 0)
                return fail(r, "an object key expected");
            v->keys[v->n] = key;
            skip_space(r);
            if (r->at >= r->len || r->s[r->at] != ':') {
                v->n++; /* the key is freed with the object */
                return fail(r, "':' expected");
            }
            r->at++;
        }
        int st = value(r, item, depth + 1);
        v->n++;
        if (st != 0)
            return -1;
        skip_space(r);
        if (r->at < r->len && r->s[r->at] == ',') {
            r->at++;
            continue;
        }
        if (r->at < r->len && r->s[r->at] == close) {
            r->at++;
            return 0;
        }
        return fail(r, object ? "',' or '}' expected" : "',' or ']' expected");
    }
}

static int value(reader *r, json_value *v, int depth)
{
    if (depth > MAX_DEPTH)
        return fail(r, "nested too deep");
    skip_space(r);
    if (r->at >= r->len)
        return fail(r, "a value expected");
    char c = r->s[r->at];
    switch (c) {
    case '{':
    case '[': return container(r, v, depth);
    case '"': v->type = JSON_STRING; return string(r, &v->string);
    case 't':
        v->type = JSON_BOOL;
        v->boolean = 1;
        return literal(r, "true");
    case 'f': v->type = JSON_BOOL; return literal(r, "false");
    case 'n': v->type = JSON_NULL; return literal(r, "null");
    default:
        v->type = JSON_NUMBER;
        if (c == '-' || (c >= '0' && c <= '9'))
            return number(r, &v->number);
        return fail(r, "not JSON");
    }
}

static void free_inside(json_value *v)
{
    for (size_t i = 0; i < v->n; i++) {
        free_inside(&v->items[i]);
        if (v->type == JSON_OBJECT)
            free(v->keys[i]);
    }
    free(v->items);
    free(v->keys);
    free(v->string);
}

void json_free(json_value *v)
{
    if (v) {
        free_inside(v);
        free(v);
    }
}

json_value *json_parse(const char *text, size_t len, char *err, size_t errlen)
{
    reader r = {text, len, 0, err, errlen, 0};
    json_value *v = calloc(1, sizeof *v);
    if (!v) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    if (value(&r, v, 0) == 0) {
        skip_space(&r);
        if (r.at == r.len)
            return v;
        fail(&r, "text after the document");
    }
    json_free(v);
    return NULL;
}

const json_value *json_get(const json_value *obj, const char *key)
{
    if (!obj || obj->type != JSON_OBJECT)
        return NULL;
    for (size_t i = 0; i < obj->n; i++)
        if (strcmp(obj->keys[i], key) == 0)
            return &obj->items[i];
    return NULL;
}

double json_number_or(const json_value *obj, const char *key, double fallback)
{
    const json_value *v = json_get(obj, key);
    return v && v->type == JSON_NUMBER ? v->number : fallback;
}

const char *json_string_or(const json_value *obj, const char *key, const char *fallback)
{
    const json_value *v = json_get(obj, key);
    return v && v->type == JSON_STRING ? v->string : fallback;
}

int json_bool_or(const json_value *obj, const char *key, int fallback)
{
    const json_value *v = json_get(obj, key);
    return v && v->type == JSON_BOOL ? v->boolean : fallback;
}
