// SPDX-License-Identifier: MIT
// nvJPEG, loaded at run time: the functions gpuimg calls, found with dlsym
// in libnvjpeg.so.<major>. A binary built with them runs unchanged where
// nvJPEG is absent (a machine with the driver but not the toolkit's
// libraries): the CUDA backend then has no JPEG codec and every JPEG takes
// libjpeg-turbo, with one notice.
#ifndef GPUIMG_NVJPEG_API_H
#define GPUIMG_NVJPEG_API_H

#include <stddef.h>

#include <nvjpeg.h>

struct NvjpegApi {
    decltype(&nvjpegGetProperty) GetProperty;
    decltype(&nvjpegCreateEx) CreateEx;
    decltype(&nvjpegJpegStateCreate) JpegStateCreate;
    decltype(&nvjpegJpegStateDestroy) JpegStateDestroy;
    decltype(&nvjpegGetImageInfo) GetImageInfo;
    decltype(&nvjpegDecode) Decode;
    decltype(&nvjpegDecodeBatchedInitialize) DecodeBatchedInitialize;
    decltype(&nvjpegDecodeBatched) DecodeBatched;
    decltype(&nvjpegDecodeBatchedSupported) DecodeBatchedSupported;
    decltype(&nvjpegJpegStreamCreate) JpegStreamCreate;
    decltype(&nvjpegJpegStreamDestroy) JpegStreamDestroy;
    decltype(&nvjpegJpegStreamParseHeader) JpegStreamParseHeader;
    decltype(&nvjpegEncoderStateCreate) EncoderStateCreate;
    decltype(&nvjpegEncoderStateDestroy) EncoderStateDestroy;
    decltype(&nvjpegEncoderParamsCreate) EncoderParamsCreate;
    decltype(&nvjpegEncoderParamsDestroy) EncoderParamsDestroy;
    decltype(&nvjpegEncoderParamsSetQuality) EncoderParamsSetQuality;
    decltype(&nvjpegEncoderParamsSetSamplingFactors) EncoderParamsSetSamplingFactors;
    decltype(&nvjpegEncodeImage) EncodeImage;
    decltype(&nvjpegEncodeYUV) EncodeYUV;
    decltype(&nvjpegEncodeRetrieveBitstream) EncodeRetrieveBitstream;
    int major, minor, patch; // the library's version, from GetProperty
};

// The process's nvJPEG, loaded on first use (thread-safe); NULL, with the
// reason in why, when it cannot be. GPUIMG_NVJPEG names the library's file
// (a path, or "none" to act as if it were absent); otherwise
// libnvjpeg.so.<the header's major> from the loader's path, then from
// /usr/local/cuda/lib64.
const NvjpegApi *gpuimg__nvjpeg(char *why, size_t len);

// One attempt to load path, as the first use would (no caching; for the
// tests, which have no device and call it from C): the library's version as
// major * 1000 + minor, or -1 with the reason in why.
extern "C" int gpuimg__nvjpeg_try(const char *path, char *why, size_t len);

// nvJPEG's name for a status.
const char *gpuimg__nvjpeg_status(nvjpegStatus_t s);

#endif
