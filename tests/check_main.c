/* SPDX-License-Identifier: MIT */
/* Runs every suite. GPUIMG_BACKEND picks the backend the seam suites drive
 * (default cpu); when it names one that cannot open here, those suites are
 * skipped with a visible line and the rest still run. The cuda suite (CUDA
 * against the CPU) runs wherever a CUDA device is usable and is skipped,
 * with the same visible line, where none is.
 *
 * Check forks a child per test, and CUDA must not be used in a child of a
 * parent that initialised it: the parent probes CUDA in a child of its own,
 * and where a device is present the tests run without forking. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testutil.h"

Suite *golden_suite(void);
Suite *border_suite(void);
Suite *properties_suite(void);
Suite *steps_suite(void);
Suite *io_suite(void);
Suite *cli_suite(void);
Suite *cuda_suite(void);
Suite *batch_suite(void);
Suite *codecs_suite(void);
Suite *untrusted_suite(void);
Suite *buffers_suite(void);
Suite *compare_suite(void);
Suite *flip_suite(void);
Suite *metadata_suite(void);
Suite *threads_suite(void);
Suite *jpeg_gpu_suite(void);
Suite *nvjpeg_suite(void);
Suite *tiff_suite(void);
Suite *probe_suite(void);
Suite *hostile_suite(void);
Suite *bmp_gif_suite(void);
Suite *layers_suite(void);
Suite *context_suite(void);
Suite *resample_suite(void);
Suite *resize_suite(void);
Suite *colour_suite(void);
Suite *jxl_suite(void);
Suite *heif_suite(void);
Suite *shift_suite(void);
Suite *compare_runs_suite(void);

/* Whether a backend opens, asked in a child process; why gets the reason. */
static int backend_usable(const char *name, char *why, size_t len)
{
    int pipefd[2];
    if (pipe(pipefd) != 0)
        return 0;
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        char text[512];
        int ok = gpuimg_backend_probe(name, 0, text, sizeof text) == GPUIMG_OK;
        if (write(pipefd[1], text, strlen(text) + 1) < 0)
            _exit(2);
        _exit(ok ? 0 : 1);
    }
    close(pipefd[1]);
    ssize_t got = pid > 0 ? read(pipefd[0], why, len - 1) : -1;
    why[got > 0 ? got : 0] = '\0';
    close(pipefd[0]);
    int status = 1;
    if (pid > 0)
        waitpid(pid, &status, 0);
    return pid > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

int main(void)
{
    char why[512];
    /* The suites run as a GitHub Actions job may: compare must not add
     * annotations to the outputs they read, nor write the job's summary
     * (the github test sets both itself). */
    unsetenv("GITHUB_ACTIONS");
    unsetenv("GITHUB_STEP_SUMMARY");
    int seam = backend_usable(tu_backend_name(), why, sizeof why);
    if (!seam)
        printf("SKIP: no CUDA device (%s backend: %s); the backend suites are skipped\n",
               tu_backend_name(), why);
    else
        printf("backend under test: %s\n", tu_backend_name());
    int cuda = backend_usable("cuda", why, sizeof why);
    if (!cuda)
        printf("SKIP: no CUDA device; the cuda suite is skipped (%s)\n", why);
    else
        printf("CUDA device: %s\n", why);
    fflush(stdout);

    SRunner *sr = srunner_create(steps_suite());
    srunner_add_suite(sr, border_suite());
    srunner_add_suite(sr, io_suite());
    srunner_add_suite(sr, codecs_suite());
    srunner_add_suite(sr, untrusted_suite());
    srunner_add_suite(sr, cli_suite());
    srunner_add_suite(sr, batch_suite());
    srunner_add_suite(sr, compare_suite());
    srunner_add_suite(sr, flip_suite());
    srunner_add_suite(sr, metadata_suite());
    srunner_add_suite(sr, colour_suite());
    srunner_add_suite(sr, threads_suite());
    srunner_add_suite(sr, jpeg_gpu_suite());
    srunner_add_suite(sr, tiff_suite());
    srunner_add_suite(sr, probe_suite());
    srunner_add_suite(sr, hostile_suite());
    srunner_add_suite(sr, bmp_gif_suite());
    srunner_add_suite(sr, layers_suite());
    srunner_add_suite(sr, context_suite());
    srunner_add_suite(sr, resample_suite());
    srunner_add_suite(sr, resize_suite());
    srunner_add_suite(sr, jxl_suite());
    srunner_add_suite(sr, heif_suite());
    srunner_add_suite(sr, shift_suite());
    srunner_add_suite(sr, compare_runs_suite());
    if (seam) {
        srunner_add_suite(sr, golden_suite());
        srunner_add_suite(sr, properties_suite());
        srunner_add_suite(sr, buffers_suite());
    }
    if (cuda) {
        srunner_add_suite(sr, cuda_suite());
        srunner_add_suite(sr, nvjpeg_suite());
        srunner_set_fork_status(sr, CK_NOFORK);
    }
    tu_root_open();
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    tu_root_remove();
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
