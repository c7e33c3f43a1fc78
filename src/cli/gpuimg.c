/* SPDX-License-Identifier: MIT */
/* gpuimg's entry point (main.c holds the command line, which the argument
 * parser's fuzz harness also runs). */
#include <stdio.h>
#include <unistd.h>

#include "cli.h"
#include "core/backend.h"
#include "core/trace.h"

int main(int argc, char **argv)
{
    int rc = cli_main(argc, argv, 0);
    /* Every output is written and renamed by now. Where CUDA was opened,
     * the process leaves without the CUDA runtime's teardown of its
     * contexts and nvJPEG's states (0.2-0.4 s on an H100, a tenth of a
     * batch of 400 photographs): the driver frees them as the process
     * ends. Elsewhere it ends as usual (leak checkers run at exit). */
    if (gpuimg__cuda_used()) {
        gpuimg__trace_finish();
        fflush(NULL);
        _exit(rc);
    }
    return rc;
}
