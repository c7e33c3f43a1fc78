/* SPDX-License-Identifier: MIT */
/* Runs every suite. GPUIMG_BACKEND picks the backend the seam suites drive
 * (default cpu); when it names one that cannot open here, those suites are
 * skipped with a visible line and the rest still run. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

Suite *golden_suite(void);
Suite *border_suite(void);
Suite *properties_suite(void);
Suite *steps_suite(void);
Suite *io_suite(void);
Suite *cli_suite(void);

int main(void)
{
    char why[512];
    int seam = gpuimg_backend_probe(tu_backend_name(), 0, why, sizeof why) == GPUIMG_OK;
    if (!seam)
        printf("SKIP: no CUDA device (%s backend: %s); the backend suites are skipped\n",
               tu_backend_name(), why);
    else
        printf("backend under test: %s\n", tu_backend_name());
    fflush(stdout);

    SRunner *sr = srunner_create(steps_suite());
    srunner_add_suite(sr, border_suite());
    srunner_add_suite(sr, io_suite());
    srunner_add_suite(sr, cli_suite());
    if (seam) {
        srunner_add_suite(sr, golden_suite());
        srunner_add_suite(sr, properties_suite());
    }
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
