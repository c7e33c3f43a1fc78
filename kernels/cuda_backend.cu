// SPDX-License-Identifier: MIT
// The CUDA backend: device memory, the stream, host pinning, and the table
// that plugs the kernels into the seam (src/backend.h).
//
// Every CUDA call and launch is checked; a failure becomes GPUIMG_ERR_DEVICE
// with the CUDA error's name and text in the backend's message. An error
// that poisons the context (an illegal address, a launch failure) is sticky:
// the backend then refuses further work and says why. GPUIMG_SYNC=1
// synchronizes after every launch, to pin an asynchronous error to its kernel.
#include <new>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device.cuh"
#include "kernels.h"

namespace
{

struct CudaBackend {
    gpuimg_backend base; // first: the seam passes gpuimg_backend *
    int device;
    cudaStream_t stream;
    cudaDeviceProp prop;
    int sync_launches;
    int grid_limit;                   // blocks of a grid-stride launch: 8 per SM
    char broken[256];                 // non-empty after a sticky error
    uint8_t *d_interleaved = nullptr; // an image as the host holds it, for the layout kernels
    size_t interleaved_size = 0;
    void *d_scratch = nullptr; // sized by the kernels' scratch queries
    size_t scratch_size = 0;
    unsigned long long *d_small = nullptr; // 4 x 256 counts
    double *d_ssim = nullptr;
    float *d_weights = nullptr; // a two-pass blur's weights, GPUIMG_CUDA_MAX_WEIGHTS
    float *h_weights = nullptr; // pinned: their copy is asynchronous (a pageable one syncs)
    cudaEvent_t weights_copied = nullptr; // h_weights may be rewritten once this fired
    // Freed plane blocks kept for the next image: a batch of same-sized
    // images then allocates nothing, and no cudaFree (which waits for the
    // whole device, every other stream's work included) runs per image.
    static constexpr int SPARE_BLOCKS = 4;
    void *spare[SPARE_BLOCKS] = {};
    size_t spare_bytes[SPARE_BLOCKS] = {};
};

constexpr size_t SMALL_COUNTS = 4 * 256;
constexpr size_t PLANE_ALIGN = 256; // keeps every plane aligned for word access

// The grid of a grid-stride launch: a few blocks per SM of the backend's own
// device. usable() sets it for the thread that drives the backend, at each
// planes_alloc and upload (every operation allocates its output first), so
// each of a batch's backends, on GPUs of different sizes, sizes its own
// launches; the launchers read it without a backend at hand.
thread_local int t_grid_limit = 1024;

CudaBackend *cuda(gpuimg_backend *be)
{
    return reinterpret_cast<CudaBackend *>(be);
}

gpuimg_status fail(CudaBackend *cb, cudaError_t err, const char *what)
{
    snprintf(cb->base.message, sizeof cb->base.message, "%s: %s (%s)", what,
             cudaGetErrorString(err), cudaGetErrorName(err));
    // cudaGetLastError clears a plain error; a sticky one (the context is
    // corrupt) survives it, and then nothing more can run.
    cudaGetLastError();
    if (cudaGetLastError() != cudaSuccess && !cb->broken[0])
        snprintf(cb->broken, sizeof cb->broken, "%s", cb->base.message);
    return GPUIMG_ERR_DEVICE;
}

#define TRY(cb, what, call)                                                                        \
    do {                                                                                           \
        cudaError_t err_ = (call);                                                                 \
        if (err_ != cudaSuccess)                                                                   \
            return fail((cb), err_, (what));                                                       \
    } while (0)

// After each launch: its error, and in GPUIMG_SYNC mode its completion.
gpuimg_status launched(CudaBackend *cb, cudaError_t err, const char *kernel)
{
    if (err == cudaSuccess && cb->sync_launches)
        err = cudaStreamSynchronize(cb->stream);
    return err == cudaSuccess ? GPUIMG_OK : fail(cb, err, kernel);
}

#define LAUNCH(cb, kernel, call)                                                                   \
    do {                                                                                           \
        gpuimg_status st_ = launched((cb), (call), (kernel));                                      \
        if (st_ != GPUIMG_OK)                                                                      \
            return st_;                                                                            \
    } while (0)

// Checked where every operation starts (planes_alloc: each one allocates
// its output first) and in upload: the context is sound, and the calling
// thread uses this backend's device and grid (the runtime keeps the current
// device per thread, and batch drives backends from several threads).
gpuimg_status usable(CudaBackend *cb)
{
    if (!cb->broken[0]) {
        TRY(cb, "cudaSetDevice", cudaSetDevice(cb->device));
        t_grid_limit = cb->grid_limit;
        return GPUIMG_OK;
    }
    snprintf(cb->base.message, sizeof cb->base.message,
             "the CUDA context is unusable after an earlier error: %.180s", cb->broken);
    return GPUIMG_ERR_DEVICE;
}

// Grows a device buffer to at least `bytes` (contents are not kept).
gpuimg_status reserve(CudaBackend *cb, void **buf, size_t *size, size_t bytes, const char *what)
{
    if (*size >= bytes)
        return GPUIMG_OK;
    if (*buf) {
        TRY(cb, "cudaFree", cudaFree(*buf));
        *buf = nullptr;
        *size = 0;
    }
    TRY(cb, what, cudaMalloc(buf, bytes));
    *size = bytes;
    return GPUIMG_OK;
}

gpuimg_status reserve_scratch(CudaBackend *cb, size_t bytes)
{
    return reserve(cb, &cb->d_scratch, &cb->scratch_size, bytes, "cudaMalloc (scratch)");
}

gpuimg_status reserve_interleaved(CudaBackend *cb, size_t bytes)
{
    return reserve(cb, reinterpret_cast<void **>(&cb->d_interleaved), &cb->interleaved_size, bytes,
                   "cudaMalloc (interleaved)");
}

size_t plane_pitch(int w, int h)
{
    size_t n = (size_t)w * (size_t)h;
    return (n + PLANE_ALIGN - 1) / PLANE_ALIGN * PLANE_ALIGN;
}

gpuimg_dplanes dplanes(const gpuimg_planes *p)
{
    gpuimg_dplanes d;
    for (int c = 0; c < 4; c++)
        d.p[c] = p->plane[c];
    return d;
}

size_t npix(const gpuimg_planes *p)
{
    return (size_t)p->width * (size_t)p->height;
}

// ---- the table ----

void cuda_close(gpuimg_backend *be)
{
    CudaBackend *cb = cuda(be);
    // Teardown errors cannot be reported any more; the process is leaving
    // the backend either way.
    for (void *block : cb->spare)
        cudaFree(block);
    cudaFree(cb->d_scratch);
    cudaFree(cb->d_interleaved);
    cudaFree(cb->d_small);
    cudaFree(cb->d_ssim);
    cudaFree(cb->d_weights);
    cudaFreeHost(cb->h_weights);
    if (cb->weights_copied)
        cudaEventDestroy(cb->weights_copied);
    if (cb->stream)
        cudaStreamDestroy(cb->stream);
    delete cb;
}

gpuimg_status cuda_open(gpuimg_backend **out, int device, char *msg, size_t msglen);

void cuda_describe(gpuimg_backend *be, char *text, size_t len)
{
    CudaBackend *cb = cuda(be);
    int runtime = 0, driver = 0;
    cudaRuntimeGetVersion(&runtime);
    cudaDriverGetVersion(&driver);
    snprintf(text, len,
             "cuda: device %d: %s, %.1f GiB, compute capability %d.%d, %d SMs; "
             "CUDA runtime %d.%d, driver %d.%d",
             cb->device, cb->prop.name, cb->prop.totalGlobalMem / 1073741824.0, cb->prop.major,
             cb->prop.minor, cb->prop.multiProcessorCount, runtime / 1000, runtime % 1000 / 10,
             driver / 1000, driver % 1000 / 10);
}

gpuimg_status cuda_planes_alloc(gpuimg_backend *be, gpuimg_planes *p, int w, int h, int c)
{
    CudaBackend *cb = cuda(be);
    memset(p, 0, sizeof *p);
    gpuimg_status st = usable(cb);
    if (st != GPUIMG_OK)
        return st;
    void *base = nullptr;
    size_t bytes = plane_pitch(w, h) * c;
    for (int i = 0; i < CudaBackend::SPARE_BLOCKS && !base; i++)
        if (cb->spare[i] && cb->spare_bytes[i] == bytes) {
            base = cb->spare[i];
            cb->spare[i] = nullptr;
        }
    if (!base) {
        cudaError_t err = cudaMalloc(&base, bytes);
        if (err == cudaErrorMemoryAllocation) { // the spares may be what fills the device
            cudaGetLastError();
            for (void *&spare : cb->spare) {
                cudaFree(spare);
                spare = nullptr;
            }
            err = cudaMalloc(&base, bytes);
        }
        TRY(cb, "cudaMalloc (planes)", err);
    }
    p->width = w;
    p->height = h;
    p->channels = c;
    for (int k = 0; k < c; k++)
        p->plane[k] = static_cast<uint8_t *>(base) + k * plane_pitch(w, h);
    return GPUIMG_OK;
}

void cuda_planes_free(gpuimg_backend *be, gpuimg_planes *p)
{
    CudaBackend *cb = cuda(be);
    void *base = p->plane[0];
    for (int i = 0; i < CudaBackend::SPARE_BLOCKS && base; i++)
        if (!cb->spare[i]) {
            cb->spare[i] = base;
            cb->spare_bytes[i] = plane_pitch(p->width, p->height) * p->channels;
            base = nullptr;
        }
    cudaFree(base); // an error here would be a sticky one, reported by the next call
    memset(p, 0, sizeof *p);
}

gpuimg_status cuda_planes_fill(gpuimg_backend *be, gpuimg_planes *p, uint8_t value)
{
    CudaBackend *cb = cuda(be);
    for (int c = 0; c < p->channels; c++)
        TRY(cb, "cudaMemsetAsync", cudaMemsetAsync(p->plane[c], value, npix(p), cb->stream));
    return GPUIMG_OK;
}

// Pinned host memory (the library's buffers) is read and written by the
// copy engines directly, at the link's rate; pageable memory (a caller's
// own image) goes through the driver's staging, slower but the same bytes.
// Portable: one registration serves every device of a batch.
gpuimg_status cuda_host_register(void *p, size_t n)
{
    if (cudaHostRegister(p, n, cudaHostRegisterPortable) == cudaSuccess)
        return GPUIMG_OK;
    cudaGetLastError(); // not sticky: the buffer just stays pageable
    return GPUIMG_ERR_DEVICE;
}

void cuda_host_unregister(void *p)
{
    if (cudaHostUnregister(p) != cudaSuccess)
        cudaGetLastError();
}

gpuimg_status cuda_upload(gpuimg_backend *be, const gpuimg_image *src, gpuimg_planes *dst)
{
    CudaBackend *cb = cuda(be);
    size_t bytes = npix(dst) * src->channels;
    gpuimg_status st = usable(cb);
    if (st == GPUIMG_OK)
        st = reserve_interleaved(cb, bytes);
    if (st != GPUIMG_OK)
        return st;
    TRY(cb, "cudaMemcpyAsync (upload)",
        cudaMemcpyAsync(cb->d_interleaved, src->data, bytes, cudaMemcpyHostToDevice, cb->stream));
    LAUNCH(cb, "deinterleave",
           gpuimg__cuda_deinterleave(cb->d_interleaved, dplanes(dst), src->channels, npix(dst),
                                     cb->stream));
    // The caller may free or refill src once this returns: wait for the copy.
    TRY(cb, "cudaStreamSynchronize (upload)", cudaStreamSynchronize(cb->stream));
    return GPUIMG_OK;
}

gpuimg_status cuda_download(gpuimg_backend *be, const gpuimg_planes *src, gpuimg_image *dst)
{
    CudaBackend *cb = cuda(be);
    size_t bytes = npix(src) * src->channels;
    gpuimg_status st = reserve_interleaved(cb, bytes);
    if (st != GPUIMG_OK)
        return st;
    LAUNCH(cb, "interleave",
           gpuimg__cuda_interleave(dplanes(src), cb->d_interleaved, src->channels, npix(src),
                                   cb->stream));
    TRY(cb, "cudaMemcpyAsync (download)",
        cudaMemcpyAsync(dst->data, cb->d_interleaved, bytes, cudaMemcpyDeviceToHost, cb->stream));
    TRY(cb, "cudaStreamSynchronize (download)", cudaStreamSynchronize(cb->stream));
    return GPUIMG_OK;
}

// Puts an operation's weights on the device once for all its planes, through
// pinned memory so the copy stays asynchronous.
gpuimg_status upload_weights(CudaBackend *cb, const float *weights, size_t n)
{
    TRY(cb, "cudaEventSynchronize (weights)", cudaEventSynchronize(cb->weights_copied));
    memcpy(cb->h_weights, weights, n * sizeof(float));
    TRY(cb, "cudaMemcpyAsync (weights)",
        cudaMemcpyAsync(cb->d_weights, cb->h_weights, n * sizeof(float), cudaMemcpyHostToDevice,
                        cb->stream));
    TRY(cb, "cudaEventRecord (weights)", cudaEventRecord(cb->weights_copied, cb->stream));
    return GPUIMG_OK;
}

gpuimg_status cuda_blur(gpuimg_backend *be, const gpuimg_planes *src, gpuimg_planes *dst,
                        const float *weights, int radius, gpuimg_border border)
{
    CudaBackend *cb = cuda(be);
    size_t scratch = gpuimg__cuda_separable_scratch(src->width, src->height, radius);
    gpuimg_status st = GPUIMG_OK;
    if (scratch) { // the two-pass form: an intermediate and the weights on the device
        st = reserve_scratch(cb, scratch);
        if (st == GPUIMG_OK)
            st = upload_weights(cb, weights, (size_t)(2 * radius + 1));
    }
    for (int c = 0; st == GPUIMG_OK && c < src->channels; c++)
        st = launched(cb,
                      gpuimg__cuda_blur(src->plane[c], dst->plane[c], cb->d_scratch, weights,
                                        cb->d_weights, src->width, src->height, radius, border,
                                        cb->stream),
                      "blur");
    return st;
}

gpuimg_status cuda_box(gpuimg_backend *be, const gpuimg_planes *src, gpuimg_planes *dst, int radius,
                       gpuimg_border border)
{
    CudaBackend *cb = cuda(be);
    gpuimg_status st =
        reserve_scratch(cb, gpuimg__cuda_separable_scratch(src->width, src->height, radius));
    for (int c = 0; st == GPUIMG_OK && c < src->channels; c++)
        st = launched(cb,
                      gpuimg__cuda_box(src->plane[c], dst->plane[c], cb->d_scratch, src->width,
                                       src->height, radius, border, cb->stream),
                      "box");
    return st;
}

gpuimg_status cuda_convolve(gpuimg_backend *be, const gpuimg_planes *src, gpuimg_planes *dst,
                            const gpuimg_conv *k, gpuimg_border border)
{
    CudaBackend *cb = cuda(be);
    LAUNCH(cb, "convolve",
           gpuimg__cuda_convolve(dplanes(src), dplanes(dst), src->channels, src->width, src->height,
                                 k, border, cb->stream));
    return GPUIMG_OK;
}

gpuimg_status cuda_sobel(gpuimg_backend *be, const gpuimg_planes *src, gpuimg_planes *dst,
                         gpuimg_border border)
{
    CudaBackend *cb = cuda(be);
    for (int c = 0; c < src->channels; c++)
        LAUNCH(cb, "sobel",
               gpuimg__cuda_sobel(src->plane[c], dst->plane[c], src->width, src->height, border,
                                  cb->stream));
    return GPUIMG_OK;
}

gpuimg_status cuda_move(gpuimg_backend *be, const gpuimg_planes *src, gpuimg_planes *dst,
                        gpuimg_move move)
{
    CudaBackend *cb = cuda(be);
    LAUNCH(cb, "move",
           gpuimg__cuda_move(dplanes(src), dplanes(dst), src->channels, src->width, src->height,
                             move, cb->stream));
    return GPUIMG_OK;
}

gpuimg_status cuda_copy_plane(gpuimg_backend *be, const uint8_t *src, uint8_t *dst, size_t n)
{
    CudaBackend *cb = cuda(be);
    TRY(cb, "cudaMemcpyAsync (plane)",
        cudaMemcpyAsync(dst, src, n, cudaMemcpyDeviceToDevice, cb->stream));
    return GPUIMG_OK;
}

// Value operations see colour planes only: the op table passes alpha on.
gpuimg_status cuda_grayscale(gpuimg_backend *be, const gpuimg_planes *src, gpuimg_planes *dst)
{
    CudaBackend *cb = cuda(be);
    if (src->channels >= 3)
        LAUNCH(cb, "grayscale",
               gpuimg__cuda_grayscale(src->plane[0], src->plane[1], src->plane[2], dst->plane[0],
                                      npix(src), cb->stream));
    else
        TRY(cb, "cudaMemcpyAsync (gray)",
            cudaMemcpyAsync(dst->plane[0], src->plane[0], npix(src), cudaMemcpyDeviceToDevice,
                            cb->stream));
    return GPUIMG_OK;
}

gpuimg_status cuda_invert(gpuimg_backend *be, const gpuimg_planes *src, gpuimg_planes *dst)
{
    CudaBackend *cb = cuda(be);
    LAUNCH(cb, "invert",
           gpuimg__cuda_invert(dplanes(src), dplanes(dst), src->channels, npix(src), cb->stream));
    return GPUIMG_OK;
}

// The counts of every channel into d_small[0 .. 256 channels).
gpuimg_status device_histograms(CudaBackend *cb, const gpuimg_planes *src)
{
    TRY(cb, "cudaMemsetAsync (counts)",
        cudaMemsetAsync(cb->d_small, 0, SMALL_COUNTS * sizeof(unsigned long long), cb->stream));
    LAUNCH(cb, "histogram",
           gpuimg__cuda_histogram(dplanes(src), src->channels, npix(src), cb->d_small, cb->stream));
    return GPUIMG_OK;
}

gpuimg_status cuda_equalize(gpuimg_backend *be, const gpuimg_planes *src, gpuimg_planes *dst)
{
    CudaBackend *cb = cuda(be);
    gpuimg_status st = device_histograms(cb, src);
    if (st == GPUIMG_OK)
        st = reserve_scratch(cb, 4 * 256);
    for (int c = 0; st == GPUIMG_OK && c < src->channels; c++)
        st = launched(
            cb,
            gpuimg__cuda_equalize(src->plane[c], dst->plane[c], npix(src), cb->d_small + 256 * c,
                                  static_cast<uint8_t *>(cb->d_scratch) + 256 * c, cb->stream),
            "equalize");
    return st;
}

gpuimg_status cuda_histogram(gpuimg_backend *be, const gpuimg_planes *src, gpuimg_histogram *out)
{
    CudaBackend *cb = cuda(be);
    gpuimg_status st = device_histograms(cb, src);
    if (st != GPUIMG_OK)
        return st;
    unsigned long long counts[SMALL_COUNTS];
    TRY(cb, "cudaMemcpy (histogram)",
        cudaMemcpyAsync(counts, cb->d_small, sizeof counts, cudaMemcpyDeviceToHost, cb->stream));
    TRY(cb, "cudaStreamSynchronize (histogram)", cudaStreamSynchronize(cb->stream));
    memset(out, 0, sizeof *out);
    out->channels = src->channels;
    for (int c = 0; c < src->channels; c++)
        for (int v = 0; v < 256; v++)
            out->counts[c][v] = counts[256 * c + v];
    return GPUIMG_OK;
}

gpuimg_status cuda_ssim(gpuimg_backend *be, const gpuimg_planes *a, const gpuimg_planes *b,
                        const uint8_t *ignore, double *sum)
{
    CudaBackend *cb = cuda(be);
    TRY(cb, "cudaMemsetAsync (ssim)", cudaMemsetAsync(cb->d_ssim, 0, sizeof(double), cb->stream));
    for (int c = 0; c < a->channels; c++)
        LAUNCH(cb, "ssim",
               gpuimg__cuda_ssim(a->plane[c], b->plane[c], ignore, a->width, a->height, cb->d_ssim,
                                 cb->stream));
    double total = 0.0;
    TRY(cb, "cudaMemcpy (ssim)",
        cudaMemcpyAsync(&total, cb->d_ssim, sizeof total, cudaMemcpyDeviceToHost, cb->stream));
    TRY(cb, "cudaStreamSynchronize (ssim)", cudaStreamSynchronize(cb->stream));
    *sum += total;
    return GPUIMG_OK;
}

gpuimg_status cuda_synchronize(gpuimg_backend *be)
{
    CudaBackend *cb = cuda(be);
    TRY(cb, "cudaStreamSynchronize", cudaStreamSynchronize(cb->stream));
    return GPUIMG_OK;
}

// The table, filled by member name (C++17 has no designated initializers):
// its order in backend.h may change without this file noticing.
gpuimg_backend_ops make_cuda_ops()
{
    gpuimg_backend_ops o = {};
    o.name = "cuda";
    o.open = cuda_open;
    o.close = cuda_close;
    o.describe = cuda_describe;
    o.planes_alloc = cuda_planes_alloc;
    o.planes_free = cuda_planes_free;
    o.planes_fill = cuda_planes_fill;
    o.host_register = cuda_host_register;
    o.host_unregister = cuda_host_unregister;
    o.upload = cuda_upload;
    o.download = cuda_download;
    o.blur = cuda_blur;
    o.box = cuda_box;
    o.convolve = cuda_convolve;
    o.sobel = cuda_sobel;
    o.move = cuda_move;
    o.grayscale = cuda_grayscale;
    o.invert = cuda_invert;
    o.equalize = cuda_equalize;
    o.copy_plane = cuda_copy_plane;
    o.histogram = cuda_histogram;
    o.synchronize = cuda_synchronize;
    o.ssim = cuda_ssim;
    return o;
}

const gpuimg_backend_ops cuda_ops = make_cuda_ops();

gpuimg_status cuda_open(gpuimg_backend **out, int device, char *msg, size_t msglen)
{
    *out = nullptr;
    int count = 0;
    cudaError_t err = cudaGetDeviceCount(&count);
    if (err != cudaSuccess || count == 0) {
        // cudart says "driver version is insufficient" when there is no
        // driver at all; the driver's version (0: none) tells them apart.
        int driver = 0, runtime = 0;
        cudaDriverGetVersion(&driver);
        cudaRuntimeGetVersion(&runtime);
        if (err == cudaErrorInsufficientDriver && driver == 0)
            snprintf(msg, msglen, "no NVIDIA driver");
        else if (err == cudaErrorInsufficientDriver)
            snprintf(msg, msglen,
                     "the NVIDIA driver (CUDA %d.%d) is older than gpuimg's CUDA %d.%d",
                     driver / 1000, driver % 1000 / 10, runtime / 1000, runtime % 1000 / 10);
        else
            snprintf(msg, msglen, "no CUDA device (%s)",
                     err != cudaSuccess ? cudaGetErrorString(err) : "none found");
        cudaGetLastError();
        return GPUIMG_ERR_NO_DEVICE;
    }
    if (device >= count) {
        snprintf(msg, msglen, "no CUDA device %d (%d present)", device, count);
        return GPUIMG_ERR_NO_DEVICE;
    }
    CudaBackend *cb = new (std::nothrow) CudaBackend();
    if (!cb) {
        snprintf(msg, msglen, "out of memory");
        return GPUIMG_ERR_NOMEM;
    }
    cb->base.ops = &cuda_ops;
    cb->device = device;
    const char *sync = getenv("GPUIMG_SYNC");
    cb->sync_launches = sync && strcmp(sync, "1") == 0;
    // cudaFree(0) creates the context now, so its cost shows as "init".
    if ((err = cudaSetDevice(device)) != cudaSuccess || (err = cudaFree(0)) != cudaSuccess ||
        (err = cudaGetDeviceProperties(&cb->prop, device)) != cudaSuccess ||
        (err = cudaStreamCreateWithFlags(&cb->stream, cudaStreamNonBlocking)) != cudaSuccess ||
        (err = cudaMalloc(&cb->d_small, SMALL_COUNTS * sizeof(unsigned long long))) !=
            cudaSuccess ||
        (err = cudaMalloc(&cb->d_ssim, sizeof(double))) != cudaSuccess ||
        (err = cudaMalloc(&cb->d_weights, GPUIMG_CUDA_MAX_WEIGHTS * sizeof(float))) !=
            cudaSuccess ||
        (err = cudaHostAlloc(&cb->h_weights, GPUIMG_CUDA_MAX_WEIGHTS * sizeof(float), 0)) !=
            cudaSuccess ||
        (err = cudaEventCreateWithFlags(&cb->weights_copied, cudaEventDisableTiming)) !=
            cudaSuccess ||
        (err = cudaEventRecord(cb->weights_copied, cb->stream)) != cudaSuccess) {
        snprintf(msg, msglen, "CUDA device %d unusable: %s", device, cudaGetErrorString(err));
        cudaGetLastError();
        cuda_close(&cb->base);
        return GPUIMG_ERR_NO_DEVICE;
    }
    cb->grid_limit = cb->prop.multiProcessorCount * 8;
    *out = &cb->base;
    return GPUIMG_OK;
}

} // namespace

int gpuimg__grid_for(size_t n, int threads)
{
    size_t blocks = (n + (size_t)threads - 1) / (size_t)threads;
    if (blocks < 1)
        blocks = 1;
    size_t limit = (size_t)t_grid_limit;
    return (int)(blocks < limit ? blocks : limit);
}

extern "C" const gpuimg_backend_ops *gpuimg__cuda_backend(void)
{
    return &cuda_ops;
}
