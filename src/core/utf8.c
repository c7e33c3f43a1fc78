/* SPDX-License-Identifier: MIT */
#include <string.h>

#include "core/utf8.h"

int gpuimg__utf8_next(const char *text, uint32_t *cp)
{
    const unsigned char *s = (const unsigned char *)text;
    if (s[0] < 0x80) {
        *cp = s[0];
        return 1;
    }
    int len = s[0] >= 0xF0 ? 4 : s[0] >= 0xE0 ? 3 : s[0] >= 0xC0 ? 2 : 0;
    if (len == 0 || s[0] > 0xF4)
        return 0;
    uint32_t c = s[0] & (0x7F >> len);
    for (int i = 1; i < len; i++) {
        if ((s[i] & 0xC0) != 0x80) /* the NUL too: a character cut short */
            return 0;
        c = c << 6 | (s[i] & 0x3F);
    }
    static const uint32_t least[5] = {0, 0, 0x80, 0x800, 0x10000};
    if (c < least[len] || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF))
        return 0;
    *cp = c;
    return len;
}

void gpuimg__utf8_trim(char *s)
{
    size_t n = strlen(s), start = n;
    /* the last character's first byte: at most three continuation bytes back */
    while (start > 0 && n - start < 3 && ((unsigned char)s[start - 1] & 0xC0) == 0x80)
        start--;
    if (start == 0 || (unsigned char)s[start - 1] < 0xC0)
        return; /* ends in ASCII or in stray continuation bytes: nothing was cut */
    start--;
    uint32_t cp;
    if (gpuimg__utf8_next(s + start, &cp) == 0)
        s[start] = '\0';
}
