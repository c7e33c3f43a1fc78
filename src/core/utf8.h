/* SPDX-License-Identifier: MIT */
/* UTF-8 as the outputs need it. File names are bytes, and a name that is
 * not UTF-8 (or a message cut mid-character) must not make a JSON, XML or
 * text output invalid: each writer walks its text with gpuimg__utf8_next
 * and writes what the format allows in place of what it does not. */
#ifndef GPUIMG_UTF8_H
#define GPUIMG_UTF8_H

#include <stddef.h>
#include <stdint.h>

/* The length (1-4) of the well-formed UTF-8 character at s, and its code
 * point in *cp; 0 when the bytes there are not one (a stray continuation
 * byte, an overlong form, a surrogate, past U+10FFFF, cut short by the
 * terminating NUL). s points at a NUL-terminated string, not at its NUL. */
int gpuimg__utf8_next(const char *s, uint32_t *cp);

/* Shortens s so that it does not end in the first bytes of a character
 * (what snprintf leaves when it cuts a longer text). */
void gpuimg__utf8_trim(char *s);

#endif
