/* SPDX-License-Identifier: MIT */
/* The restricted stb_image of io/stb_image.c: TGA only.
 * Its results are freed with free(). */
#ifndef GPUIMG_IO_STB_IMAGE_H
#define GPUIMG_IO_STB_IMAGE_H

/* stb_image's stbi_io_callbacks, without its header. */
typedef struct gpuimg__stbi_callbacks {
    int (*read)(void *user, char *data, int size);
    void (*skip)(void *user, int n);
    int (*eof)(void *user);
} gpuimg__stbi_callbacks;

/* stbi_load_from_callbacks with the file's own channels. */
unsigned char *gpuimg__stbi_load(const gpuimg__stbi_callbacks *io, void *user, int *w, int *h,
                                 int *channels);
/* stbi_info_from_memory: the header's size and channels; 0 when unknown. */
int gpuimg__stbi_info(const unsigned char *data, int len, int *w, int *h, int *channels);
/* stbi_failure_reason (thread-local). */
const char *gpuimg__stbi_failure_reason(void);

#endif
