/* SPDX-License-Identifier: MIT */
/* The smallest gpuimg program: reads an image, blurs it, writes it. Uses
 * only the installed header; build it with
 *     cc blur_file.c $(pkg-config --cflags --libs gpuimg) -o blur_file */
#include <gpuimg.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: %s IN OUT STEP   (e.g. blur:sigma=2)\n", argv[0]);
        return 2;
    }
    gpuimg_config cfg;
    gpuimg_config_init(&cfg);
    gpuimg_ctx *ctx;
    if (gpuimg_ctx_create(&cfg, &ctx) != GPUIMG_OK)
        return 4;
    gpuimg_image in, out;
    gpuimg_step *step = NULL;
    gpuimg_status st = gpuimg_load(ctx, argv[1], &in);
    if (st == GPUIMG_OK && (st = gpuimg_step_parse(ctx, argv[3], &step)) == GPUIMG_OK &&
        (st = gpuimg_step_finish(ctx, step)) == GPUIMG_OK &&
        (st = gpuimg_run(ctx, &in, &step, 1, &out)) == GPUIMG_OK) {
        st = gpuimg_save(ctx, argv[2], GPUIMG_FORMAT_NONE, &out);
        gpuimg_image_free(&out);
    }
    if (st != GPUIMG_OK)
        fprintf(stderr, "%s: %s\n", argv[0], gpuimg_ctx_error(ctx));
    gpuimg_step_free(step);
    gpuimg_image_free(&in);
    gpuimg_ctx_destroy(ctx);
    printf("gpuimg %s (%d.%d.%d): %s\n", GPUIMG_VERSION, GPUIMG_VERSION_MAJOR, GPUIMG_VERSION_MINOR,
           GPUIMG_VERSION_PATCH, st == GPUIMG_OK ? "done" : "failed");
    return st == GPUIMG_OK ? 0 : 3;
}
