// SPDX-License-Identifier: MIT
// Loading nvJPEG (see nvjpeg_api.h). dlopen rather than linking: the static
// archive is 300 MB and pulls a CUDA Toolkit into every build, and a shared
// link would make libnvjpeg a dependency of every user, GPU or not.
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nvjpeg_api.h"

#define STR2(x) #x
#define STR(x) STR2(x)
#define SONAME "libnvjpeg.so." STR(NVJPEG_VER_MAJOR)

namespace
{

NvjpegApi g_api;
const NvjpegApi *g_loaded;
char g_why[256];
pthread_once_t g_once = PTHREAD_ONCE_INIT;

int load(const char *path, NvjpegApi *api, char *why, size_t len);

template <typename F> int find(void *lib, const char *name, F *fn, char *why, size_t len)
{
    *fn = reinterpret_cast<F>(dlsym(lib, name));
    if (*fn)
        return 0;
    snprintf(why, len, "%s lacks %s", SONAME, name);
    return -1;
}

void load_once()
{
    const char *env = getenv("GPUIMG_NVJPEG");
    if (env && *env) {
        if (load(env, &g_api, g_why, sizeof g_why) == 0)
            g_loaded = &g_api;
        return;
    }
    static const char *const places[] = {SONAME, "/usr/local/cuda/lib64/" SONAME};
    char first[256] = "";
    for (const char *p : places) {
        if (load(p, &g_api, g_why, sizeof g_why) == 0) {
            g_loaded = &g_api;
            return;
        }
        if (!first[0])
            snprintf(first, sizeof first, "%s", g_why);
    }
    snprintf(g_why, sizeof g_why, "%s", first); // the first place's reason says most
}

int load(const char *path, NvjpegApi *api, char *why, size_t len)
{
    memset(api, 0, sizeof *api);
    if (strcmp(path, "none") == 0) {
        snprintf(why, len, "nvJPEG disabled (GPUIMG_NVJPEG=none)");
        return -1;
    }
    // RTLD_LOCAL: nvJPEG's symbols stay out of the process's namespace.
    void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        const char *e = dlerror();
        snprintf(why, len, "cannot load %s (%s)", path, e ? e : "unknown reason");
        return -1;
    }
    int bad = find(lib, "nvjpegGetProperty", &api->GetProperty, why, len) |
              find(lib, "nvjpegCreateEx", &api->CreateEx, why, len) |
              find(lib, "nvjpegJpegStateCreate", &api->JpegStateCreate, why, len) |
              find(lib, "nvjpegJpegStateDestroy", &api->JpegStateDestroy, why, len) |
              find(lib, "nvjpegGetImageInfo", &api->GetImageInfo, why, len) |
              find(lib, "nvjpegDecode", &api->Decode, why, len) |
              find(lib, "nvjpegDecodeBatchedInitialize", &api->DecodeBatchedInitialize, why, len) |
              find(lib, "nvjpegDecodeBatched", &api->DecodeBatched, why, len) |
              find(lib, "nvjpegDecodeBatchedSupported", &api->DecodeBatchedSupported, why, len) |
              find(lib, "nvjpegJpegStreamCreate", &api->JpegStreamCreate, why, len) |
              find(lib, "nvjpegJpegStreamDestroy", &api->JpegStreamDestroy, why, len) |
              find(lib, "nvjpegJpegStreamParseHeader", &api->JpegStreamParseHeader, why, len) |
              find(lib, "nvjpegEncoderStateCreate", &api->EncoderStateCreate, why, len) |
              find(lib, "nvjpegEncoderStateDestroy", &api->EncoderStateDestroy, why, len) |
              find(lib, "nvjpegEncoderParamsCreate", &api->EncoderParamsCreate, why, len) |
              find(lib, "nvjpegEncoderParamsDestroy", &api->EncoderParamsDestroy, why, len) |
              find(lib, "nvjpegEncoderParamsSetQuality", &api->EncoderParamsSetQuality, why, len) |
              find(lib, "nvjpegEncoderParamsSetSamplingFactors",
                   &api->EncoderParamsSetSamplingFactors, why, len) |
              find(lib, "nvjpegEncodeImage", &api->EncodeImage, why, len) |
              find(lib, "nvjpegEncodeYUV", &api->EncodeYUV, why, len) |
              find(lib, "nvjpegEncodeRetrieveBitstream", &api->EncodeRetrieveBitstream, why, len);
    if (bad || api->GetProperty(MAJOR_VERSION, &api->major) != NVJPEG_STATUS_SUCCESS ||
        api->GetProperty(MINOR_VERSION, &api->minor) != NVJPEG_STATUS_SUCCESS ||
        api->GetProperty(PATCH_LEVEL, &api->patch) != NVJPEG_STATUS_SUCCESS) {
        if (!bad)
            snprintf(why, len, "%s: nvjpegGetProperty failed", path);
        dlclose(lib);
        memset(api, 0, sizeof *api);
        return -1;
    }
    return 0; // the library stays loaded for the process's life
}

} // namespace

extern "C" int gpuimg__nvjpeg_try(const char *path, char *why, size_t len)
{
    NvjpegApi api;
    return load(path, &api, why, len) == 0 ? api.major * 1000 + api.minor : -1;
}

const NvjpegApi *gpuimg__nvjpeg(char *why, size_t len)
{
    pthread_once(&g_once, load_once);
    if (!g_loaded)
        snprintf(why, len, "%s", g_why);
    return g_loaded;
}

const char *gpuimg__nvjpeg_status(nvjpegStatus_t s)
{
    static const char *const names[] = {"success",
                                        "not initialized",
                                        "invalid parameter",
                                        "bad JPEG",
                                        "JPEG not supported",
                                        "allocator failure",
                                        "execution failed",
                                        "architecture mismatch",
                                        "internal error",
                                        "implementation not supported",
                                        "incomplete bitstream"};
    return (unsigned)s < sizeof names / sizeof names[0] ? names[s] : "unknown nvJPEG status";
}
