/* SPDX-License-Identifier: MIT */
/* The command line's argument parsing: the input split at NUL bytes into
 * arguments, run through the program's own entry with parse_only, which
 * stops each command before it touches a file. Leaks count (LeakSanitizer). */
#include <string.h>

#include "cli.h"
#include "fuzz.h"

#define MAX_ARGS 24

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_text(data, size);
    if (!text)
        return 0;
    char *argv[MAX_ARGS + 2] = {"gpuimg"};
    int argc = 1;
    for (size_t at = 0; at <= size && argc <= MAX_ARGS; at += strlen(text + at) + 1)
        argv[argc++] = text + at;
    argv[argc] = NULL;
    int rc = cli_main(argc, argv, 1);
    FUZZ_CHECK(rc >= 0 && rc <= 4, "exit code %d", rc);
    free(text);
    return 0;
}
