/* SPDX-License-Identifier: MIT */
/* gpuimg's entry point (main.c holds the command line, which the argument
 * parser's fuzz harness also runs). */
#include "cli.h"

int main(int argc, char **argv)
{
    return cli_main(argc, argv, 0);
}
