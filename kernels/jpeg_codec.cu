// SPDX-License-Identifier: MIT
// JPEG decoded and encoded on the GPU with nvJPEG, straight between the
// file's bytes on the host and the backend's device planes: only
// compressed bytes cross PCIe (about a tenth of the pixels).
//
// Decoding: nvJPEG writes a colour file's luma into the first plane and
// its chroma, still subsampled, into scratch; jpeg_colour.cu then upsamples
// and converts them into RGB as libjpeg-turbo does (nvJPEG's own RGB
// replicates the chroma and misses libjpeg-turbo by 43 dB on a photograph;
// this way only the inverse DCT's last bit differs). A grayscale file is its
// luma plane. A file the hardware engine takes (A100, H100: baseline, one
// scan, 1 or 3 components, not 4:1:1 or 4:1:0) joins one batched call per
// output format (YUV, or the Y plane of a grayscale file), which
// spreads the batch over the engine's cores; any other file (progressive,
// or a GPU without the engine) takes nvJPEG's CUDA decoder, one file a
// call. What nvJPEG refuses (src/io/jpeg/scan.c has kept CMYK, 12-bit and
// arithmetic-coded files away; this is damage it could not see) is handed
// back to the caller for libjpeg-turbo, file by file, so that one file
// never fails a batch. A failed batched call is retried file by file on the
// engine, so a damaged file costs only itself and the others keep the
// engine's bytes.
//
// Ordering: the hardware path writes its outputs without waiting for the
// caller's stream (torchcodec#1634 found H100s corrupting images whose
// memory the stream was still using), and its completion is not ordered
// on that stream either. So the stream is drained before each decode and
// after it: the planes may be blocks freed a moment ago whose last kernels
// are still queued, and the steps that read them must see them whole.
//
// Encoding: the CUDA encoder, chroma 4:2:0 up to quality 90 and 4:4:4
// above (the CPU encoder's choice, src/io/jpeg/jpeg.c); a grayscale image as the
// Y plane alone.
#include <new>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/floor.h"
#include "core/trace.h"
#include "jpeg_codec.h"
#include "kernels.h"
#include "nvjpeg_api.h"

// nvJPEG's library handles, per device for the whole process: the engine's
// (which also encodes), and the CUDA decoder's, made at its first file (or
// first, on a GPU without the engine). A handle is thread-safe (its states
// are not), and on an H100 each takes 0.28 s to make, and an engine state
// 0.37-0.45 s, the driver making them one at a time (GPUIMG_TRACE's timeline of
// a batch on two H100s: eight workers' states took 2 s), so a batch's
// workers share the handles, make only the states they use (a decoding
// worker the engine's, a finishing worker the encoder's), and give their
// codec back to a per-device cache when they close. Never destroyed: the
// process's end takes them, and destroying them then races the driver's
// own teardown (torchcodec leaks its decoders for the same reason).
struct Handles {
    bool made = false, sw_made = false;
    nvjpegStatus_t status = NVJPEG_STATUS_SUCCESS; // of the first handle made
    nvjpegHandle_t hw = nullptr, sw = nullptr;
};

struct GpuJpeg {
    const NvjpegApi *api = nullptr;
    int device = 0;
    GpuJpeg *next_idle = nullptr; // in its device's cache of idle codecs
    bool dec_tried = false;       // the engine's state, made at the first decode
    nvjpegHandle_t hw = nullptr;  // the hardware engine's (shared); null without one
    nvjpegJpegState_t hw_state = nullptr;
    int hw_batch = 0; // the batch size and format hw_state is initialized for
    nvjpegOutputFormat_t hw_format = NVJPEG_OUTPUT_RGB;
    nvjpegJpegStream_t parsed = nullptr; // a file's headers, for the engine's yes or no
    // the CUDA decoder (shared handle), set up at its first file
    struct Handles *handles = nullptr;
    nvjpegHandle_t sw = nullptr;
    nvjpegJpegState_t sw_state = nullptr;
    bool sw_tried = false;
    nvjpegHandle_t main = nullptr; // the encoder's and the headers' (hw, else sw)
    nvjpegEncoderState_t enc_state = nullptr;
    nvjpegEncoderParams_t enc_params = nullptr;
    int enc_quality = -1, enc_css = -1;
    // per-batch arrays, grown as needed
    int cap = 0;
    const unsigned char **b_data = nullptr;
    size_t *b_size = nullptr;
    nvjpegImage_t *b_out = nullptr;
    int *b_index = nullptr;
    nvjpegImage_t *b_ycc = nullptr; // where file i's planes go (luma in its first plane)
    int *b_hs = nullptr, *b_vs = nullptr;
    // the batch's chroma planes, subsampled, before jpeg_colour.cu
    uint8_t *d_chroma = nullptr;
    size_t chroma_cap = 0;
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

void free_arrays(GpuJpeg *j)
{
    free(j->b_data);
    free(j->b_size);
    free(j->b_out);
    free(j->b_index);
    free(j->b_ycc);
    free(j->b_hs);
    free(j->b_vs);
}

int grow(GpuJpeg *j, int n) // n > 0
{
    if (n <= j->cap)
        return 0;
    free_arrays(j);
    j->b_ycc = static_cast<nvjpegImage_t *>(calloc(n, sizeof *j->b_ycc));
    j->b_hs = static_cast<int *>(malloc(n * sizeof *j->b_hs));
    j->b_vs = static_cast<int *>(malloc(n * sizeof *j->b_vs));
    j->b_data = static_cast<const unsigned char **>(malloc(n * sizeof *j->b_data));
    j->b_size = static_cast<size_t *>(malloc(n * sizeof *j->b_size));
    j->b_out = static_cast<nvjpegImage_t *>(calloc(n, sizeof *j->b_out));
    j->b_index = static_cast<int *>(malloc(n * sizeof *j->b_index));
    if (!j->b_data || !j->b_size || !j->b_out || !j->b_index || !j->b_ycc || !j->b_hs || !j->b_vs) {
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

nvjpegHandle_t sw_handle(const NvjpegApi *api, Handles *h);

// The CUDA decoder, made at its first file: a batch of baseline files on an
// engine never needs it, and it costs 0.3 s.
bool sw_ready(GpuJpeg *j)
{
    if (!j->sw_tried) {
        j->sw_tried = true;
        nvjpegHandle_t sw = sw_handle(j->api, j->handles);
        if (sw && ok(j->api->JpegStateCreate(sw, &j->sw_state)))
            j->sw = sw;
        else
            j->sw_state = nullptr;
        cudaGetLastError();
    }
    return j->sw_state != nullptr;
}

// One file with the CUDA decoder into b_ycc[i]; refused when nvJPEG says no.
void decode_one(GpuJpeg *j, cudaStream_t stream, int i, const uint8_t *data, size_t size,
                int channels, int *refused)
{
    nvjpegOutputFormat_t fmt = channels == 1 ? NVJPEG_OUTPUT_Y : NVJPEG_OUTPUT_YUV;
    if (!sw_ready(j) ||
        !ok(j->api->Decode(j->sw, j->sw_state, data, size, fmt, &j->b_ycc[i], stream)))
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
        j->b_out[k] = j->b_ycc[i];
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
    if (!done) {
        // One file may have failed the call: each alone on the engine (the
        // CUDA decoder's last bits differ, so the rest keep the bytes they
        // have alone), and the CUDA decoder only for one the engine fails.
        j->hw_batch = 0; // nvJPEG's rule: initialize again after a failed batch
        for (int k = 0; k < m; k++) {
            int i = j->b_index[k];
            bool alone = false;
            if (j->hw_batch == 1 ||
                ok(j->api->DecodeBatchedInitialize(j->hw, j->hw_state, 1, 1, fmt)))
                alone = ok(j->api->DecodeBatched(j->hw, j->hw_state, &j->b_data[k], &j->b_size[k],
                                                 &j->b_out[k], stream));
            j->hw_batch = alone ? 1 : 0;
            j->hw_format = fmt;
            if ((err = cudaStreamSynchronize(stream)) != cudaSuccess)
                return device_fail(msg, msglen, "cudaStreamSynchronize (nvJPEG decode)", err);
            if (!alone)
                decode_one(j, stream, i, data[i], size[i], dst[i]->channels, &refused[i]);
        }
    }
    return GPUIMG_OK;
}

// Where file i's planes go: its luma straight into dst's first plane, its
// chroma (subsampled as the file has it) into the batch's scratch at
// *offset; b_hs, b_vs say how. refused when nvJPEG cannot read its header
// or the file is not one jpeg_colour.cu converts (src/io/jpeg/scan.c sends
// none such).
void place(GpuJpeg *j, int i, const uint8_t *data, size_t size, gpuimg_planes *dst, size_t *offset,
           int *refused)
{
    int comps = 0, widths[NVJPEG_MAX_COMPONENT], heights[NVJPEG_MAX_COMPONENT];
    nvjpegChromaSubsampling_t css;
    nvjpegImage_t *img = &j->b_ycc[i];
    memset(img, 0, sizeof *img);
    img->channel[0] = dst->plane[0];
    img->pitch[0] = (size_t)dst->width;
    j->b_hs[i] = j->b_vs[i] = 1;
    if (!ok(j->api->GetImageInfo(j->main, data, size, &comps, &css, widths, heights)) ||
        widths[0] != dst->width || heights[0] != dst->height) {
        *refused = 1;
        return;
    }
    if (dst->channels == 1)
        return;
    if (css == NVJPEG_CSS_422)
        j->b_hs[i] = 2;
    else if (css == NVJPEG_CSS_420)
        j->b_hs[i] = j->b_vs[i] = 2;
    else if (css != NVJPEG_CSS_444 || comps != 3) {
        *refused = 1;
        return;
    }
    size_t cw = (size_t)(dst->width + j->b_hs[i] - 1) / j->b_hs[i],
           ch = (size_t)(dst->height + j->b_vs[i] - 1) / j->b_vs[i];
    // offsets only: the scratch is sized once every file is placed
    img->channel[1] = reinterpret_cast<unsigned char *>(*offset);
    img->channel[2] = reinterpret_cast<unsigned char *>(*offset + cw * ch);
    img->pitch[1] = img->pitch[2] = cw;
    *offset += (2 * cw * ch + 255) & ~(size_t)255;
}

} // namespace

namespace
{

Handles g_handles[64];
pthread_mutex_t g_handles_lock = PTHREAD_MUTEX_INITIALIZER; // the CUDA decoder's, and the cache
pthread_mutex_t g_device_lock[64];
pthread_once_t g_device_lock_once = PTHREAD_ONCE_INIT;

void init_device_locks()
{
    for (pthread_mutex_t &m : g_device_lock)
        pthread_mutex_init(&m, nullptr);
}

Handles *handles_for(const NvjpegApi *api)
{
    int dev = 0;
    if (cudaGetDevice(&dev) != cudaSuccess || dev < 0 || dev >= 64) {
        cudaGetLastError();
        return nullptr;
    }
    Handles *h = &g_handles[dev];
    pthread_once(&g_device_lock_once, init_device_locks);
    // each device's own lock: two GPUs' handles are made side by side (one
    // lock for all had the second device's workers wait 0.28 s more)
    pthread_mutex_lock(&g_device_lock[dev]);
    if (!h->made) {
        h->made = true;
        // the engine's handle also encodes; on a GPU without the engine the
        // CUDA decoder's does all
        if (!ok(api->CreateEx(NVJPEG_BACKEND_HARDWARE, nullptr, nullptr, NVJPEG_FLAGS_DEFAULT,
                              &h->hw))) {
            h->hw = nullptr;
            cudaGetLastError(); // a refused hardware handle leaves nothing to report
            h->sw_made = true;
            h->status = api->CreateEx(NVJPEG_BACKEND_DEFAULT, nullptr, nullptr,
                                      NVJPEG_FLAGS_DEFAULT, &h->sw);
        }
    }
    pthread_mutex_unlock(&g_device_lock[dev]);
    return h;
}

nvjpegHandle_t sw_handle(const NvjpegApi *api, Handles *h)
{
    pthread_mutex_lock(&g_handles_lock);
    if (!h->sw_made) {
        h->sw_made = true;
        if (!ok(api->CreateEx(NVJPEG_BACKEND_DEFAULT, nullptr, nullptr, NVJPEG_FLAGS_DEFAULT,
                              &h->sw)))
            h->sw = nullptr;
        cudaGetLastError();
    }
    pthread_mutex_unlock(&g_handles_lock);
    return h->sw;
}

} // namespace

namespace
{

// Codecs given back by backends that closed, by device, for the next
// backend there: an engine state costs 0.37-0.45 s to make on an H100 and the
// driver makes them one at a time (four workers' took a second, eight on
// two GPUs two), and about as long to destroy. Like the handles, they
// stay until the process ends.
GpuJpeg *g_idle[64];

// The engine's state and its header parser, made at the first decode (a
// worker that only encodes never pays for them); without them the CUDA
// decoder takes every file.
void decoder_ready(GpuJpeg *j)
{
    if (j->dec_tried)
        return;
    j->dec_tried = true;
    double t0 = gpuimg__now_ms();
    nvjpegHandle_t hw = j->handles->hw;
    if (hw && ok(j->api->JpegStateCreate(hw, &j->hw_state)) &&
        ok(j->api->JpegStreamCreate(hw, &j->parsed))) {
        j->hw = hw;
    } else {
        if (j->hw_state)
            j->api->JpegStateDestroy(j->hw_state);
        j->hw_state = nullptr;
        j->parsed = nullptr;
        j->dec_tried = !hw; // a failure may pass (memory): tried again at the next decode
    }
    cudaGetLastError();
    gpuimg__trace_since("nvJPEG decoder state", t0);
}

// The encoder's state and parameters, made at the first encode.
nvjpegStatus_t encoder_ready(GpuJpeg *j)
{
    if (j->enc_state && j->enc_params)
        return NVJPEG_STATUS_SUCCESS;
    double t0 = gpuimg__now_ms();
    nvjpegStatus_t s = NVJPEG_STATUS_SUCCESS;
    if (!j->enc_state)
        s = j->api->EncoderStateCreate(j->main, &j->enc_state, nullptr);
    if (ok(s) && !j->enc_params)
        s = j->api->EncoderParamsCreate(j->main, &j->enc_params, nullptr);
    if (!ok(s)) { // made again at the next encode
        if (j->enc_state)
            j->api->EncoderStateDestroy(j->enc_state);
        j->enc_state = nullptr;
        j->enc_params = nullptr;
        cudaGetLastError();
    }
    j->enc_quality = j->enc_css = -1;
    gpuimg__trace_since("nvJPEG encoder state", t0);
    return s;
}

} // namespace

GpuJpeg *gpuimg__gpujpeg_create(char *why, size_t len)
{
    double t0 = gpuimg__now_ms();
    const NvjpegApi *api = gpuimg__nvjpeg(why, len);
    if (!api)
        return nullptr;
    t0 = gpuimg__trace_since("nvJPEG library", t0);
    Handles *h = handles_for(api);
    gpuimg__trace_since("nvJPEG handle", t0);
    if (!h || !ok(h->status)) {
        snprintf(why, len, "nvJPEG could not be set up (%s)",
                 h ? gpuimg__nvjpeg_status(h->status) : "no current device");
        return nullptr;
    }
    int dev = static_cast<int>(h - g_handles); // handles_for's device
    pthread_mutex_lock(&g_handles_lock);
    GpuJpeg *j = g_idle[dev];
    if (j)
        g_idle[dev] = j->next_idle;
    pthread_mutex_unlock(&g_handles_lock);
    if (j)
        return j;
    if (!(j = new (std::nothrow) GpuJpeg())) {
        snprintf(why, len, "out of memory");
        return nullptr;
    }
    j->api = api;
    j->handles = h;
    j->device = dev;
    j->main = h->hw ? h->hw : h->sw;
    return j;
}

void gpuimg__gpujpeg_destroy(GpuJpeg *j)
{
    if (!j)
        return;
    pthread_mutex_lock(&g_handles_lock);
    j->next_idle = g_idle[j->device];
    g_idle[j->device] = j;
    pthread_mutex_unlock(&g_handles_lock);
}

void gpuimg__gpujpeg_describe(const GpuJpeg *j, char *text, size_t len)
{
    snprintf(text, len, "nvJPEG %d.%d.%d, %s", j->api->major, j->api->minor, j->api->patch,
             j->handles->hw ? "hardware decoder" : "CUDA decoder (no hardware engine)");
}

gpuimg_status gpuimg__gpujpeg_decode(GpuJpeg *j, cudaStream_t stream, int n,
                                     const uint8_t *const *data, const size_t *size,
                                     gpuimg_planes *const *dst, int *refused, char *msg,
                                     size_t msglen)
{
    if (n <= 0)
        return GPUIMG_OK;
    decoder_ready(j);
    if (grow(j, n) != 0) {
        snprintf(msg, msglen, "out of memory");
        return GPUIMG_ERR_NOMEM;
    }
    double t_wait = gpuimg__now_ms();
    cudaError_t err = cudaStreamSynchronize(stream); // see "Ordering" above
    if (err != cudaSuccess)
        return device_fail(msg, msglen, "cudaStreamSynchronize (before nvJPEG decode)", err);
    double t_place = gpuimg__trace_since("stream drained", t_wait);
    size_t chroma = 0;
    for (int i = 0; i < n; i++) {
        refused[i] = 0;
        place(j, i, data[i], size[i], dst[i], &chroma, &refused[i]);
    }
    t_place = gpuimg__trace_since("nvJPEG image info", t_place);
    if (chroma > j->chroma_cap) { // the stream is idle: the old scratch is free to go
        cudaFree(j->d_chroma);
        j->d_chroma = nullptr;
        j->chroma_cap = 0;
        if ((err = cudaMalloc(&j->d_chroma, chroma)) != cudaSuccess)
            return device_fail(msg, msglen, "cudaMalloc (JPEG chroma)", err);
        j->chroma_cap = chroma;
    }
    for (int i = 0; i < n; i++)
        for (int c = 1; c < 3 && dst[i]->channels == 3; c++)
            j->b_ycc[i].channel[c] = j->d_chroma + reinterpret_cast<size_t>(j->b_ycc[i].channel[c]);
    // Which files the engine takes; the rest now, one by one.
    int on_hw[2] = {0, 0}; // gray, colour
    int *engine = static_cast<int *>(calloc((size_t)n, sizeof(int)));
    if (!engine) {
        snprintf(msg, msglen, "out of memory");
        return GPUIMG_ERR_NOMEM;
    }
    for (int i = 0; i < n; i++) {
        if (refused[i])
            continue;
        int unsupported = 1;
        // the headers suffice for the engine's answer (a whole parse cost
        // three times as much CPU in a batch)
        if (j->hw && ok(j->api->JpegStreamParseHeader(j->hw, data[i], size[i], j->parsed)) &&
            ok(j->api->DecodeBatchedSupported(j->hw, j->parsed, &unsupported)) && !unsupported) {
            engine[i] = 1;
            on_hw[dst[i]->channels == 3]++;
        } else {
            decode_one(j, stream, i, data[i], size[i], dst[i]->channels, &refused[i]);
        }
    }
    gpuimg_status st = GPUIMG_OK;
    double t0 = gpuimg__now_ms();
    for (int colour = 0; colour < 2 && st == GPUIMG_OK; colour++) {
        if (!on_hw[colour])
            continue;
        int m = 0;
        for (int i = 0; i < n; i++)
            if (engine[i] && (dst[i]->channels == 3) == (colour == 1))
                j->b_index[m++] = i;
        st = decode_hw(j, stream, m, colour ? NVJPEG_OUTPUT_YUV : NVJPEG_OUTPUT_Y, data, size, dst,
                       refused, msg, msglen);
    }
    free(engine);
    gpuimg__trace_since("nvJPEG headers", t_place);
    if (st == GPUIMG_OK && (err = cudaStreamSynchronize(stream)) != cudaSuccess)
        st = device_fail(msg, msglen, "cudaStreamSynchronize (nvJPEG decode)", err);
    t0 = gpuimg__trace_since("nvJPEG decode (engine)", t0);
    for (int i = 0; i < n && st == GPUIMG_OK; i++) {
        if (refused[i] || dst[i]->channels != 3)
            continue;
        gpuimg_dplanes rgb = {{dst[i]->plane[0], dst[i]->plane[1], dst[i]->plane[2], nullptr}};
        err =
            gpuimg__cuda_ycc_to_rgb(rgb, j->b_ycc[i].channel[1], j->b_ycc[i].channel[2],
                                    dst[i]->width, dst[i]->height, j->b_hs[i], j->b_vs[i], stream);
        if (err != cudaSuccess)
            st = device_fail(msg, msglen, "ycc_rgb_kernel", err);
    }
    // the scratch is the next batch's: its kernels must be done with it first
    if (st == GPUIMG_OK && (err = cudaStreamSynchronize(stream)) != cudaSuccess)
        st = device_fail(msg, msglen, "cudaStreamSynchronize (JPEG colour)", err);
    gpuimg__trace_since("JPEG colour", t0);
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
    nvjpegStatus_t s = encoder_ready(j);
    if (!ok(s))
        goto failed;
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
        s = src->channels == 1 ? a->EncodeYUV(j->main, j->enc_state, j->enc_params, &img, css,
                                              src->width, src->height, stream)
                               : a->EncodeImage(j->main, j->enc_state, j->enc_params, &img,
                                                NVJPEG_INPUT_RGB, src->width, src->height, stream);
        size_t len = 0;
        if (!ok(s) ||
            !ok(s = a->EncodeRetrieveBitstream(j->main, j->enc_state, nullptr, &len, stream)))
            goto failed;
        uint8_t *buf = static_cast<uint8_t *>(malloc(len ? len : 1));
        if (!buf) {
            snprintf(msg, msglen, "out of memory");
            return GPUIMG_ERR_NOMEM;
        }
        if (!ok(s = a->EncodeRetrieveBitstream(j->main, j->enc_state, buf, &len, stream))) {
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
