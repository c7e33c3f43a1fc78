// SPDX-License-Identifier: MIT
// JPEG decoded and encoded on the GPU with nvJPEG, straight between the
// file's bytes on the host and the backend's device planes: only
// compressed bytes cross PCIe (about a tenth of the pixels).
//
// Decoding: a file the hardware engine takes (A100, H100: baseline, one
// scan, 1 or 3 components, not 4:1:1 or 4:1:0) joins one batched call per
// output format (RGB planes, or the Y plane of a grayscale file), which
// spreads the batch over the engine's cores; any other file (progressive,
// or a GPU without the engine) takes nvJPEG's CUDA decoder, one file a
// call. What nvJPEG refuses (CMYK, 12-bit, arithmetic coding, a damaged
// file) is handed back to the caller for libjpeg-turbo, file by file, so
// that one file never fails a batch. A failed batched call is retried file
// by file, so a damaged file costs only itself.
//
// Ordering: the hardware path writes its outputs without waiting for the
// caller's stream (torchcodec#1634 found H100s corrupting images whose
// memory the stream was still using), and its completion is not ordered
// on that stream either. So the stream is drained before each decode and
// after it: the planes may be blocks freed a moment ago whose last kernels
// are still queued, and the steps that read them must see them whole.
//
// Encoding: the CUDA encoder, chroma 4:2:0 up to quality 90 and 4:4:4
// above (the CPU encoder's choice, src/io_jpeg.c); a grayscale image as the
// Y plane alone.
#include <new>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jpeg_codec.h"
#include "nvjpeg_api.h"

struct GpuJpeg {
    const NvjpegApi *api = nullptr;
    nvjpegHandle_t hw = nullptr; // the hardware engine's; null without one
    nvjpegJpegState_t hw_state = nullptr;
    int hw_batch = 0; // the batch size and format hw_state is initialized for
    nvjpegOutputFormat_t hw_format = NVJPEG_OUTPUT_RGB;
    nvjpegJpegStream_t parsed = nullptr; // a file's headers, for the engine's yes or no
    nvjpegHandle_t sw = nullptr;         // the CUDA decoder and encoder
    nvjpegJpegState_t sw_state = nullptr;
    nvjpegEncoderState_t enc_state = nullptr;
    nvjpegEncoderParams_t enc_params = nullptr;
    int enc_quality = -1, enc_css = -1;
    // per-batch arrays, grown as needed
    int cap = 0;
    const unsigned char **b_data = nullptr;
    size_t *b_size = nullptr;
    nvjpegImage_t *b_out = nullptr;
    int *b_index = nullptr;
};

namespace
{

bool ok(nvjpegStatus_t s)
{
    return s == NVJPEG_STATUS_SUCCESS;
}

gpuimg_status device_fail(char *msg, size_t len, const char *what, cudaError_t err)
{
    snprintf(msg, len, "%s: %s (%s)", what, cudaGetErrorString(err), cudaGetErrorName(err));
    cudaGetLastError();
    return GPUIMG_ERR_DEVICE;
}

int grow(GpuJpeg *j, int n)
{
    if (n <= j->cap)
        return 0;
    free(j->b_data);
    free(j->b_size);
    free(j->b_out);
    free(j->b_index);
    j->b_data = static_cast<const unsigned char **>(malloc(n * sizeof *j->b_data));
    j->b_size = static_cast<size_t *>(malloc(n * sizeof *j->b_size));
    j->b_out = static_cast<nvjpegImage_t *>(calloc(n, sizeof *j->b_out));
    j->b_index = static_cast<int *>(malloc(n * sizeof *j->b_index));
    if (!j->b_data || !j->b_size || !j->b_out || !j->b_index) {
        j->cap = 0;
        return -1;
    }
    j->cap = n;
    return 0;
}

nvjpegImage_t image_of(gpuimg_planes *p)
{
    nvjpegImage_t img = {};
    for (int c = 0; c < p->channels && c < NVJPEG_MAX_COMPONENT; c++) {
        img.channel[c] = p->plane[c];
        img.pitch[c] = (size_t)p->width;
    }
    return img;
}

// One file with the CUDA decoder; refused when nvJPEG says no.
void decode_one(GpuJpeg *j, cudaStream_t stream, const uint8_t *data, size_t size,
                gpuimg_planes *dst, int *refused)
{
    nvjpegImage_t img = image_of(dst);
    nvjpegOutputFormat_t fmt = dst->channels == 1 ? NVJPEG_OUTPUT_Y : NVJPEG_OUTPUT_RGB;
    if (!ok(j->api->Decode(j->sw, j->sw_state, data, size, fmt, &img, stream)))
        *refused = 1;
}

// The hardware engine on the files listed in b_index[0..m) (one format).
gpuimg_status decode_hw(GpuJpeg *j, cudaStream_t stream, int m, nvjpegOutputFormat_t fmt,
                        const uint8_t *const *data, const size_t *size, gpuimg_planes *const *dst,
                        int *refused, char *msg, size_t msglen)
{
    for (int k = 0; k < m; k++) {
        int i = j->b_index[k];
        j->b_data[k] = data[i];
        j->b_size[k] = size[i];
        j->b_out[k] = image_of(dst[i]);
    }
    bool done = false;
    if (j->hw_batch != m || j->hw_format != fmt) {
        j->hw_batch = 0; // a failed initialization leaves no usable size
        if (ok(j->api->DecodeBatchedInitialize(j->hw, j->hw_state, m, 1, fmt))) {
            j->hw_batch = m;
            j->hw_format = fmt;
        }
    }
    if (j->hw_batch == m)
        done =
            ok(j->api->DecodeBatched(j->hw, j->hw_state, j->b_data, j->b_size, j->b_out, stream));
    cudaError_t err = cudaStreamSynchronize(stream);
    if (err != cudaSuccess)
        return device_fail(msg, msglen, "cudaStreamSynchronize (nvJPEG decode)", err);
    if (!done) {         // one file may have failed the call: each alone, so only it fails
        j->hw_batch = 0; // nvJPEG's rule: initialize again after a failed batch
        for (int k = 0; k < m; k++) {
            int i = j->b_index[k];
            decode_one(j, stream, data[i], size[i], dst[i], &refused[i]);
        }
    }
    return GPUIMG_OK;
}

} // namespace

GpuJpeg *gpuimg__gpujpeg_create(char *why, size_t len)
{
    const NvjpegApi *api = gpuimg__nvjpeg(why, len);
    if (!api)
        return nullptr;
    GpuJpeg *j = new (std::nothrow) GpuJpeg();
    if (!j) {
        snprintf(why, len, "out of memory");
        return nullptr;
    }
    j->api = api;
    nvjpegStatus_t s;
    if (!ok(s = api->CreateEx(NVJPEG_BACKEND_DEFAULT, nullptr, nullptr, NVJPEG_FLAGS_DEFAULT,
                              &j->sw)) ||
        !ok(s = api->JpegStateCreate(j->sw, &j->sw_state)) ||
        !ok(s = api->EncoderStateCreate(j->sw, &j->enc_state, nullptr)) ||
        !ok(s = api->EncoderParamsCreate(j->sw, &j->enc_params, nullptr))) {
        snprintf(why, len, "nvJPEG could not be set up (%s)", gpuimg__nvjpeg_status(s));
        gpuimg__gpujpeg_destroy(j);
        return nullptr;
    }
    // The engine is optional: on a GPU without one, the CUDA decoder does all.
    if (!ok(api->CreateEx(NVJPEG_BACKEND_HARDWARE, nullptr, nullptr, NVJPEG_FLAGS_DEFAULT,
                          &j->hw)) ||
        !ok(api->JpegStateCreate(j->hw, &j->hw_state)) ||
        !ok(api->JpegStreamCreate(j->hw, &j->parsed))) {
        if (j->hw_state)
            api->JpegStateDestroy(j->hw_state);
        if (j->hw)
            api->Destroy(j->hw);
        j->hw = nullptr;
        j->hw_state = nullptr;
        j->parsed = nullptr;
    }
    cudaGetLastError(); // a refused hardware handle leaves nothing to report
    return j;
}

void gpuimg__gpujpeg_destroy(GpuJpeg *j)
{
    if (!j)
        return;
    const NvjpegApi *a = j->api;
    if (j->parsed)
        a->JpegStreamDestroy(j->parsed);
    if (j->hw_state)
        a->JpegStateDestroy(j->hw_state);
    if (j->hw)
        a->Destroy(j->hw);
    if (j->enc_params)
        a->EncoderParamsDestroy(j->enc_params);
    if (j->enc_state)
        a->EncoderStateDestroy(j->enc_state);
    if (j->sw_state)
        a->JpegStateDestroy(j->sw_state);
    if (j->sw)
        a->Destroy(j->sw);
    free(j->b_data);
    free(j->b_size);
    free(j->b_out);
    free(j->b_index);
    delete j;
}

void gpuimg__gpujpeg_describe(const GpuJpeg *j, char *text, size_t len)
{
    snprintf(text, len, "nvJPEG %d.%d.%d, %s", j->api->major, j->api->minor, j->api->patch,
             j->hw ? "hardware decoder" : "CUDA decoder (no hardware engine)");
}

gpuimg_status gpuimg__gpujpeg_decode(GpuJpeg *j, cudaStream_t stream, int n,
                                     const uint8_t *const *data, const size_t *size,
                                     gpuimg_planes *const *dst, int *refused, char *msg,
                                     size_t msglen)
{
    if (grow(j, n) != 0) {
        snprintf(msg, msglen, "out of memory");
        return GPUIMG_ERR_NOMEM;
    }
    cudaError_t err = cudaStreamSynchronize(stream); // see "Ordering" above
    if (err != cudaSuccess)
        return device_fail(msg, msglen, "cudaStreamSynchronize (before nvJPEG decode)", err);
    // Which files the engine takes; the rest now, one by one.
    int on_hw[2] = {0, 0}; // gray, colour
    int *engine = static_cast<int *>(calloc(n ? n : 1, sizeof(int)));
    if (!engine) {
        snprintf(msg, msglen, "out of memory");
        return GPUIMG_ERR_NOMEM;
    }
    for (int i = 0; i < n; i++) {
        refused[i] = 0;
        int unsupported = 1;
        if (j->hw && ok(j->api->JpegStreamParse(j->hw, data[i], size[i], 0, 0, j->parsed)) &&
            ok(j->api->DecodeBatchedSupported(j->hw, j->parsed, &unsupported)) && !unsupported) {
            engine[i] = 1;
            on_hw[dst[i]->channels == 3]++;
        } else {
            decode_one(j, stream, data[i], size[i], dst[i], &refused[i]);
        }
    }
    gpuimg_status st = GPUIMG_OK;
    for (int colour = 0; colour < 2 && st == GPUIMG_OK; colour++) {
        if (!on_hw[colour])
            continue;
        int m = 0;
        for (int i = 0; i < n; i++)
            if (engine[i] && (dst[i]->channels == 3) == (colour == 1))
                j->b_index[m++] = i;
        st = decode_hw(j, stream, m, colour ? NVJPEG_OUTPUT_RGB : NVJPEG_OUTPUT_Y, data, size, dst,
                       refused, msg, msglen);
    }
    free(engine);
    if (st == GPUIMG_OK && (err = cudaStreamSynchronize(stream)) != cudaSuccess)
        st = device_fail(msg, msglen, "cudaStreamSynchronize (nvJPEG decode)", err);
    return st;
}

gpuimg_status gpuimg__gpujpeg_encode(GpuJpeg *j, cudaStream_t stream, const gpuimg_planes *src,
                                     int quality, uint8_t **out, size_t *out_len, char *msg,
                                     size_t msglen)
{
    *out = nullptr;
    *out_len = 0;
    const NvjpegApi *a = j->api;
    nvjpegChromaSubsampling_t css = src->channels == 1 ? NVJPEG_CSS_GRAY
                                    : quality <= 90    ? NVJPEG_CSS_420
                                                       : NVJPEG_CSS_444;
    nvjpegStatus_t s = NVJPEG_STATUS_SUCCESS;
    if (j->enc_quality != quality || j->enc_css != (int)css) {
        j->enc_quality = -1;
        if (!ok(s = a->EncoderParamsSetQuality(j->enc_params, quality, stream)) ||
            !ok(s = a->EncoderParamsSetSamplingFactors(j->enc_params, css, stream)))
            goto failed;
        j->enc_quality = quality;
        j->enc_css = (int)css;
    }
    {
        nvjpegImage_t img = image_of(const_cast<gpuimg_planes *>(src));
        s = src->channels == 1 ? a->EncodeYUV(j->sw, j->enc_state, j->enc_params, &img, css,
                                              src->width, src->height, stream)
                               : a->EncodeImage(j->sw, j->enc_state, j->enc_params, &img,
                                                NVJPEG_INPUT_RGB, src->width, src->height, stream);
        size_t len = 0;
        if (!ok(s) ||
            !ok(s = a->EncodeRetrieveBitstream(j->sw, j->enc_state, nullptr, &len, stream)))
            goto failed;
        uint8_t *buf = static_cast<uint8_t *>(malloc(len ? len : 1));
        if (!buf) {
            snprintf(msg, msglen, "out of memory");
            return GPUIMG_ERR_NOMEM;
        }
        if (!ok(s = a->EncodeRetrieveBitstream(j->sw, j->enc_state, buf, &len, stream))) {
            free(buf);
            goto failed;
        }
        cudaError_t err = cudaStreamSynchronize(stream);
        if (err != cudaSuccess) {
            free(buf);
            return device_fail(msg, msglen, "cudaStreamSynchronize (nvJPEG encode)", err);
        }
        *out = buf;
        *out_len = len;
        return GPUIMG_OK;
    }
failed:
    snprintf(msg, msglen, "nvJPEG encode: %s", gpuimg__nvjpeg_status(s));
    cudaGetLastError();
    return GPUIMG_ERR_DEVICE;
}
