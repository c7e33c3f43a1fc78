/* SPDX-License-Identifier: MIT */
/* Linked instead of kernels/ when the build found no nvcc. */
#include <stdio.h>

#include "core/backend.h"

static gpuimg_status absent_open(gpuimg_backend **out, int device, char *msg, size_t msglen)
{
    (void)device;
    *out = NULL;
    snprintf(msg, msglen, "this gpuimg was built without CUDA (no nvcc at build time)");
    return GPUIMG_ERR_NO_DEVICE;
}

static const gpuimg_backend_ops absent = {.name = "cuda", .open = absent_open};

const gpuimg_backend_ops *gpuimg__cuda_backend(void)
{
    return &absent;
}

int gpuimg__cuda_used(void)
{
    return 0;
}

int gpuimg__cuda_device_count(void)
{
    return 0;
}

/* kernels/nvjpeg_api.cu's loader, for the tests: nothing to load here. */
int gpuimg__nvjpeg_try(const char *path, char *why, size_t len);
int gpuimg__nvjpeg_try(const char *path, char *why, size_t len)
{
    (void)path;
    snprintf(why, len, "this gpuimg was built without CUDA (no nvJPEG loader)");
    return -1;
}
