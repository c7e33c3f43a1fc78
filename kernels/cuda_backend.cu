// SPDX-License-Identifier: MIT
// The CUDA backend: device memory, the stream, host pinning, and the table
// that plugs the kernels into the seam (src/backend.h).
//
// Every CUDA call and launch is checked; a failure becomes GPUIMG_ERR_DEVICE
// with the CUDA error's name and text in the backend's message. An error
// that poisons the context (an illegal address, a launch failure) is sticky:
// the backend then refuses further work and says why. GPUIMG_SYNC=1
// synchronizes after every launch, to pin an asynchronous error to its kernel.
#include <atomic>
#include <new>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/floor.h"
#include "core/trace.h"
#include "device.cuh"
#include "jpeg_codec.h"
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
    // Histogram counts: channels << depth of them (4 x 256 from the start,
    // grown to 4 x 65536 by the first 16-bit histogram).
    unsigned long long *d_counts = nullptr;
    size_t counts_size = 0;     // bytes
    void *d_partials = nullptr; // the 16-bit histogram's per-block counts
    size_t partials_size = 0;
    double *d_ssim = nullptr;
    float *d_weights = nullptr; // a two-pass blur's weights, GPUIMG_CUDA_MAX_WEIGHTS
    float *h_weights = nullptr; // pinned: their copy is asynchronous (a pageable one syncs)
    cudaEvent_t weights_copied = nullptr; // h_weights may be rewritten once this fired
    // A per-value operation's table (map_lut), made on its first call: the
    // largest (16-bit) table, staged in pinned memory as the weights are.
    static constexpr size_t TABLE_BYTES = 65536 * sizeof(uint16_t);
    uint8_t *d_table = nullptr;
    void *h_table = nullptr;
    cudaEvent_t table_copied = nullptr; // h_table may be rewritten once this fired
    // A colour conversion's table (colour_map), copied when a conversion
    // other than the last one copied comes (by its id): a batch converting
    // one phone's photographs copies it once.
    float *d_colour = nullptr;
    unsigned long long colour_id = 0;
    // A resize's axis tables, both axes in one copy, staged in pinned
    // memory as the weights are; grown as sizes need.
    uint8_t *d_axes = nullptr;
    size_t axes_size = 0;
    void *h_axes = nullptr;
    size_t h_axes_size = 0;
    cudaEvent_t axes_copied = nullptr; // h_axes may be rewritten once this fired
    // Planes come from gpuimg's own stream-ordered pool on the device
    // (cudaMallocFromPoolAsync on this backend's stream, device_pool),
    // which keeps what is freed for the next image: no cudaMalloc per
    // image, and no cudaFree, which waits for the whole device, every other
    // stream's work included. (Four kept blocks per backend did that
    // before: a batch's group of eight JPEGs freed four blocks with
    // cudaFree each round, stalling every worker's decodes and encodes.)
    // Null where the device has no pools: cudaMalloc and cudaFree then.
    cudaMemPool_t pool = nullptr;
    // nvJPEG, set up on the first JPEG (jpeg_codec.cu); jpeg_why says why
    // not when that failed.
    GpuJpeg *jpeg = nullptr;
    bool jpeg_tried = false;
    char jpeg_why[200] = "";
};

constexpr size_t SMALL_COUNTS = 4 * 256;
constexpr size_t PLANE_ALIGN = 256; // keeps every plane aligned for vector access

// The grid of a grid-stride launch: a few blocks per SM of the backend's own
// device. usable() sets it for the thread that drives the backend, at each
// planes_alloc and upload (every operation allocates its output first), so
// each of a batch's backends, on GPUs of different sizes, sizes its own
// launches; the launchers read it without a backend at hand.
thread_local int t_grid_limit = 1024;

// Set once a backend opened: the CLI then leaves without CUDA's teardown.
std::atomic<int> g_cuda_used{0};

// gpuimg's pool of each device, made by its first backend and shared by
// all (a batch's workers); its release threshold lifted, so that freed
// planes stay for the next image (the default gives them back at every
// synchronization). Its own, not the device's default pool, whose settings
// belong to the program gpuimg is part of. Null where the device has no
// pools. Kept until the process ends; a closing backend trims what is
// unused.
cudaMemPool_t g_pools[64];
bool g_pools_tried[64];
pthread_mutex_t g_pools_lock = PTHREAD_MUTEX_INITIALIZER;

cudaMemPool_t device_pool(int device)
{
    if (device < 0 || device >= 64)
        return nullptr;
    pthread_mutex_lock(&g_pools_lock);
    if (!g_pools_tried[device]) {
        g_pools_tried[device] = true;
        int supported = 0;
        cudaMemPoolProps props = {};
        props.allocType = cudaMemAllocationTypePinned;
        props.location.type = cudaMemLocationTypeDevice;
        props.location.id = device;
        uint64_t keep = UINT64_MAX;
        if (cudaDeviceGetAttribute(&supported, cudaDevAttrMemoryPoolsSupported, device) !=
                cudaSuccess ||
            !supported || cudaMemPoolCreate(&g_pools[device], &props) != cudaSuccess ||
            cudaMemPoolSetAttribute(g_pools[device], cudaMemPoolAttrReleaseThreshold, &keep) !=
                cudaSuccess) {
            if (g_pools[device])
                cudaMemPoolDestroy(g_pools[device]);
            g_pools[device] = nullptr;
            cudaGetLastError();
        }
    }
    cudaMemPool_t pool = g_pools[device];
    pthread_mutex_unlock(&g_pools_lock);
    return pool;
}

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

// The counts of `planes` histograms of n values each, and the scratch of
// the kernels that make them.
gpuimg_status reserve_counts(CudaBackend *cb, int planes, int depth, size_t n)
{
    gpuimg_status st =
        reserve(cb, reinterpret_cast<void **>(&cb->d_counts), &cb->counts_size,
                ((size_t)planes << depth) * sizeof(unsigned long long), "cudaMalloc (counts)");
    if (st == GPUIMG_OK)
        st = reserve(cb, &cb->d_partials, &cb->partials_size,
                     gpuimg__cuda_histogram_scratch(planes, depth, n), "cudaMalloc (partials)");
    return st;
}

// Bytes from one plane to the next: the plane's values (1 or 2 bytes each,
// 4 for float planes), rounded up so that every plane starts 256-byte
// aligned (and the kernels' whole-word and 16-byte reads near a plane's end
// stay inside it).
size_t plane_pitch(int w, int h, int depth)
{
    size_t n = (size_t)w * (size_t)h * gpuimg__value_size(depth);
    return (n + PLANE_ALIGN - 1) / PLANE_ALIGN * PLANE_ALIGN;
}

// The seam's depth and the launchers' agree on 8 and 16 (and float planes
// where a seam entry takes them); anything else is a caller's bug, said as
// such.
gpuimg_status check_depth(CudaBackend *cb, int depth, const char *what, bool floats = false)
{
    if (depth == 8 || depth == 16 || (floats && depth == GPUIMG_DEPTH_FLOAT))
        return GPUIMG_OK;
    snprintf(cb->base.message, sizeof cb->base.message, "%s: depth %d (not 8 or 16%s)", what, depth,
             floats ? " or float" : "");
    return GPUIMG_ERR_INTERNAL;
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
    gpuimg__gpujpeg_destroy(cb->jpeg);
    if (cb->pool && cb->stream) { // what nothing uses goes back (a batch's last images aside)
        cudaStreamSynchronize(cb->stream);
        cudaMemPoolTrimTo(cb->pool, 0);
    }
    cudaFree(cb->d_scratch);
    cudaFree(cb->d_interleaved);
    cudaFree(cb->d_counts);
    cudaFree(cb->d_partials);
    cudaFree(cb->d_ssim);
    cudaFree(cb->d_weights);
    cudaFreeHost(cb->h_weights);
    if (cb->weights_copied)
        cudaEventDestroy(cb->weights_copied);
    cudaFree(cb->d_table);
    cudaFree(cb->d_colour);
    cudaFreeHost(cb->h_table);
    cudaFree(cb->d_axes);
    cudaFreeHost(cb->h_axes);
    if (cb->axes_copied)
        cudaEventDestroy(cb->axes_copied);
    if (cb->table_copied)
        cudaEventDestroy(cb->table_copied);
    if (cb->stream)
        cudaStreamDestroy(cb->stream);
    delete cb;
}

gpuimg_status cuda_open(gpuimg_backend **out, int device, char *msg, size_t msglen);
int cuda_jpeg_ready(gpuimg_backend *be, char *why, size_t len);

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
    char jpeg[512];
    size_t used = strlen(text);
    if (used < len && cuda_jpeg_ready(be, jpeg, sizeof jpeg))
        gpuimg__gpujpeg_describe(cb->jpeg, jpeg, sizeof jpeg);
    if (used < len)
        snprintf(text + used, len - used, "; JPEG: %s", jpeg);
}

gpuimg_status cuda_planes_alloc(gpuimg_backend *be, gpuimg_planes *p, int w, int h, int c,
                                int depth)
{
    CudaBackend *cb = cuda(be);
    memset(p, 0, sizeof *p);
    gpuimg_status st = check_depth(cb, depth, "planes_alloc", true);
    if (st == GPUIMG_OK)
        st = usable(cb);
    if (st != GPUIMG_OK)
        return st;
    void *base = nullptr;
    size_t bytes = plane_pitch(w, h, depth) * c;
    cudaError_t err = cb->pool ? cudaMallocFromPoolAsync(&base, bytes, cb->pool, cb->stream)
                               : cudaMalloc(&base, bytes);
    if (err == cudaErrorMemoryAllocation && cb->pool) {
        // what the pool keeps may be what fills the device: once every
        // stream's frees have completed, it gives the rest back
        cudaGetLastError();
        if ((err = cudaDeviceSynchronize()) == cudaSuccess &&
            (err = cudaMemPoolTrimTo(cb->pool, 0)) == cudaSuccess)
            err = cudaMallocFromPoolAsync(&base, bytes, cb->pool, cb->stream);
    }
    TRY(cb, "cudaMalloc (planes)", err);
    p->width = w;
    p->height = h;
    p->channels = c;
    p->depth = depth;
    for (int k = 0; k < c; k++)
        p->plane[k] = static_cast<uint8_t *>(base) + k * plane_pitch(w, h, depth);
    return GPUIMG_OK;
}

void cuda_planes_free(gpuimg_backend *be, gpuimg_planes *p)
{
    CudaBackend *cb = cuda(be);
    // ordered after the stream's work on them; another stream's allocation
    // reuses the block only once this free has run (the pool's rules)
    if (p->plane[0] && cb->pool)
        cudaFreeAsync(p->plane[0], cb->stream); // an error would be sticky: the next call says
    else if (p->plane[0])
        cudaFree(p->plane[0]);
    memset(p, 0, sizeof *p);
}

gpuimg_status cuda_planes_fill(gpuimg_backend *be, gpuimg_planes *p, uint8_t value)
{
    CudaBackend *cb = cuda(be);
    for (int c = 0; c < p->channels; c++)
        TRY(cb, "cudaMemsetAsync",
            cudaMemsetAsync(p->plane[c], value, gpuimg__plane_bytes(p), cb->stream));
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

// The image and the planes must agree on the depth: the interleaved copy
// is pixels * channels values of the planes' size.
gpuimg_status same_depth(CudaBackend *cb, const gpuimg_image *img, const gpuimg_planes *p,
                         const char *what)
{
    if (gpuimg_image_depth(img) == p->depth)
        return check_depth(cb, p->depth, what);
    snprintf(cb->base.message, sizeof cb->base.message, "%s: a %d-bit image and %d-bit planes",
             what, gpuimg_image_depth(img), p->depth);
    return GPUIMG_ERR_INTERNAL;
}

gpuimg_status cuda_upload(gpuimg_backend *be, const gpuimg_image *src, gpuimg_planes *dst)
{
    CudaBackend *cb = cuda(be);
    size_t bytes = npix(dst) * src->channels * gpuimg_image_value_size(src);
    gpuimg_status st = same_depth(cb, src, dst, "upload");
    if (st == GPUIMG_OK)
        st = usable(cb);
    if (st == GPUIMG_OK)
        st = reserve_interleaved(cb, bytes);
    if (st != GPUIMG_OK)
        return st;
    TRY(cb, "cudaMemcpyAsync (upload)",
        cudaMemcpyAsync(cb->d_interleaved, src->data, bytes, cudaMemcpyHostToDevice, cb->stream));
    LAUNCH(cb, "deinterleave",
           gpuimg__cuda_deinterleave(cb->d_interleaved, dplanes(dst), src->channels, dst->depth,
                                     npix(dst), cb->stream));
    // The caller may free or refill src once this returns: wait for the copy.
    TRY(cb, "cudaStreamSynchronize (upload)", cudaStreamSynchronize(cb->stream));
    return GPUIMG_OK;
}

gpuimg_status cuda_download(gpuimg_backend *be, const gpuimg_planes *src, gpuimg_image *dst)
{
    CudaBackend *cb = cuda(be);
    size_t bytes = npix(src) * src->channels * gpuimg_image_value_size(dst);
    gpuimg_status st = same_depth(cb, dst, src, "download");
    if (st == GPUIMG_OK)
        st = reserve_interleaved(cb, bytes);
    if (st != GPUIMG_OK)
        return st;
    LAUNCH(cb, "interleave",
           gpuimg__cuda_interleave(dplanes(src), cb->d_interleaved, src->channels, src->depth,
                                   npix(src), cb->stream));
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
                                        src->depth, cb->stream),
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
                                       src->height, radius, border, src->depth, cb->stream),
                      "box");
    return st;
}

gpuimg_status cuda_convolve(gpuimg_backend *be, const gpuimg_planes *src, gpuimg_planes *dst,
                            const gpuimg_conv *k, gpuimg_border border)
{
    CudaBackend *cb = cuda(be);
    LAUNCH(cb, "convolve",
           gpuimg__cuda_convolve(dplanes(src), dplanes(dst), src->channels, src->width, src->height,
                                 k, border, src->depth, cb->stream));
    return GPUIMG_OK;
}

gpuimg_status cuda_sobel(gpuimg_backend *be, const gpuimg_planes *src, gpuimg_planes *dst,
                         gpuimg_border border)
{
    CudaBackend *cb = cuda(be);
    for (int c = 0; c < src->channels; c++)
        LAUNCH(cb, "sobel",
               gpuimg__cuda_sobel(src->plane[c], dst->plane[c], src->width, src->height, border,
                                  src->depth, cb->stream));
    return GPUIMG_OK;
}

// --alpha premultiplied: src's planes (alpha last) into float planes, and
// the filtered float planes back at dst's depth (alpha.cu).
gpuimg_status cuda_premultiply(gpuimg_backend *be, const gpuimg_planes *src, gpuimg_planes *dst)
{
    CudaBackend *cb = cuda(be);
    LAUNCH(cb, "premultiply",
           gpuimg__cuda_premultiply(dplanes(src), dplanes(dst), src->channels, npix(src),
                                    src->depth, cb->stream));
    return GPUIMG_OK;
}

gpuimg_status cuda_unpremultiply(gpuimg_backend *be, const gpuimg_planes *src, gpuimg_planes *dst)
{
    CudaBackend *cb = cuda(be);
    LAUNCH(cb, "unpremultiply",
           gpuimg__cuda_unpremultiply(dplanes(src), dplanes(dst), src->channels, npix(src),
                                      dst->depth, cb->stream));
    return GPUIMG_OK;
}

// resize's tables go to the device in one asynchronous copy: the first
// indexes and weights of each axis, each part 256-byte aligned.
gpuimg_status upload_axes(CudaBackend *cb, const gpuimg_axis *ax, const gpuimg_axis *ay,
                          gpuimg_daxis *dax, gpuimg_daxis *day)
{
    const gpuimg_axis *axes[2] = {ax, ay};
    size_t off[5] = {0}, at = 0;
    for (int a = 0; a < 2; a++) {
        off[2 * a] = at;
        at += ((size_t)axes[a]->m * sizeof(int) + 255) / 256 * 256;
        off[2 * a + 1] = at;
        at += ((size_t)axes[a]->m * axes[a]->taps * sizeof(float) + 255) / 256 * 256;
    }
    gpuimg_status st = reserve(cb, reinterpret_cast<void **>(&cb->d_axes), &cb->axes_size, at,
                               "cudaMalloc (axes)");
    if (st != GPUIMG_OK)
        return st;
    if (!cb->axes_copied) {
        cudaEvent_t event;
        TRY(cb, "cudaEventCreate (axes)", cudaEventCreateWithFlags(&event, cudaEventDisableTiming));
        cb->axes_copied = event;
    } else {
        TRY(cb, "cudaEventSynchronize (axes)", cudaEventSynchronize(cb->axes_copied));
    }
    if (cb->h_axes_size < at) {
        cudaFreeHost(cb->h_axes);
        cb->h_axes = nullptr;
        cb->h_axes_size = 0;
        TRY(cb, "cudaHostAlloc (axes)", cudaHostAlloc(&cb->h_axes, at, 0));
        cb->h_axes_size = at;
    }
    uint8_t *h = static_cast<uint8_t *>(cb->h_axes);
    for (int a = 0; a < 2; a++) {
        memcpy(h + off[2 * a], axes[a]->first, (size_t)axes[a]->m * sizeof(int));
        memcpy(h + off[2 * a + 1], axes[a]->weights,
               (size_t)axes[a]->m * axes[a]->taps * sizeof(float));
    }
    TRY(cb, "cudaMemcpyAsync (axes)",
        cudaMemcpyAsync(cb->d_axes, cb->h_axes, at, cudaMemcpyHostToDevice, cb->stream));
    TRY(cb, "cudaEventRecord (axes)", cudaEventRecord(cb->axes_copied, cb->stream));
    *dax = {ax->m, ax->taps, gpuimg__cuda_axis_span(ax),
            reinterpret_cast<const int *>(cb->d_axes + off[0]),
            reinterpret_cast<const float *>(cb->d_axes + off[1])};
    *day = {ay->m, ay->taps, 0, reinterpret_cast<const int *>(cb->d_axes + off[2]),
            reinterpret_cast<const float *>(cb->d_axes + off[3])};
    return GPUIMG_OK;
}

gpuimg_status cuda_resample(gpuimg_backend *be, const gpuimg_planes *src, gpuimg_planes *dst,
                            const gpuimg_axis *ax, const gpuimg_axis *ay, int dx, int dy)
{
    CudaBackend *cb = cuda(be);
    gpuimg_daxis dax, day;
    gpuimg_status st = upload_axes(cb, ax, ay, &dax, &day);
    if (st == GPUIMG_OK)
        st = reserve_scratch(cb, gpuimg__cuda_resample_scratch(ax->m, src->height));
    for (int c = 0; st == GPUIMG_OK && c < src->channels; c++)
        st = launched(cb,
                      gpuimg__cuda_resample(src->plane[c], src->width, src->height, src->depth,
                                            dst->plane[c], dst->width, dst->depth, dx, dy, dax, day,
                                            static_cast<float *>(cb->d_scratch), cb->stream),
                      "resample");
    return st;
}

gpuimg_status cuda_copy_rect(gpuimg_backend *be, const gpuimg_planes *src, gpuimg_planes *dst,
                             int sx, int sy, int dx, int dy, int w, int h)
{
    CudaBackend *cb = cuda(be);
    size_t vs = gpuimg__value_size(src->depth);
    for (int c = 0; c < src->channels; c++)
        TRY(cb, "cudaMemcpy2DAsync (rectangle)",
            cudaMemcpy2DAsync(
                dst->plane[c] + ((size_t)dy * dst->width + dx) * vs, (size_t)dst->width * vs,
                src->plane[c] + ((size_t)sy * src->width + sx) * vs, (size_t)src->width * vs,
                (size_t)w * vs, (size_t)h, cudaMemcpyDeviceToDevice, cb->stream));
    return GPUIMG_OK;
}

gpuimg_status cuda_fill(gpuimg_backend *be, gpuimg_planes *dst, const uint16_t value[4])
{
    CudaBackend *cb = cuda(be);
    for (int c = 0; c < dst->channels; c++) {
        if (dst->depth == 8)
            TRY(cb, "cudaMemsetAsync (fill)",
                cudaMemsetAsync(dst->plane[c], value[c], npix(dst), cb->stream));
        else
            LAUNCH(cb, "fill", gpuimg__cuda_fill16(dst->plane[c], npix(dst), value[c], cb->stream));
    }
    return GPUIMG_OK;
}

// unsharp: the planes widened to float, blurred there (the float blur,
// nothing rounded), then each value against its blur.
gpuimg_status cuda_unsharp(gpuimg_backend *be, const gpuimg_planes *src, gpuimg_planes *dst,
                           const float *weights, int radius, float amount, float threshold)
{
    gpuimg_planes wide, blurred;
    int w = src->width, h = src->height, c = src->channels;
    gpuimg_status st = be->ops->planes_alloc(be, &wide, w, h, c, GPUIMG_DEPTH_FLOAT);
    if (st != GPUIMG_OK)
        return st;
    if ((st = be->ops->planes_alloc(be, &blurred, w, h, c, GPUIMG_DEPTH_FLOAT)) == GPUIMG_OK) {
        CudaBackend *cb = cuda(be);
        for (int i = 0; st == GPUIMG_OK && i < c; i++)
            st = launched(
                cb,
                gpuimg__cuda_widen(src->plane[i], wide.plane[i], npix(src), src->depth, cb->stream),
                "widen");
        if (st == GPUIMG_OK)
            st = cuda_blur(be, &wide, &blurred, weights, radius, GPUIMG_BORDER_REFLECT101);
        for (int i = 0; st == GPUIMG_OK && i < c; i++)
            st =
                launched(cb,
                         gpuimg__cuda_unsharp(src->plane[i], blurred.plane[i], dst->plane[i],
                                              npix(src), src->depth, amount, threshold, cb->stream),
                         "unsharp");
        be->ops->planes_free(be, &blurred);
    }
    be->ops->planes_free(be, &wide);
    return st;
}

gpuimg_status cuda_move(gpuimg_backend *be, const gpuimg_planes *src, gpuimg_planes *dst,
                        gpuimg_move move)
{
    CudaBackend *cb = cuda(be);
    LAUNCH(cb, "move",
           gpuimg__cuda_move(dplanes(src), dplanes(dst), src->channels, src->width, src->height,
                             src->depth, move, cb->stream));
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
                                      npix(src), src->depth, cb->stream));
    else
        TRY(cb, "cudaMemcpyAsync (gray)",
            cudaMemcpyAsync(dst->plane[0], src->plane[0], gpuimg__plane_bytes(src),
                            cudaMemcpyDeviceToDevice, cb->stream));
    return GPUIMG_OK;
}

gpuimg_status cuda_invert(gpuimg_backend *be, const gpuimg_planes *src, gpuimg_planes *dst)
{
    CudaBackend *cb = cuda(be);
    LAUNCH(cb, "invert",
           gpuimg__cuda_invert(dplanes(src), dplanes(dst), src->channels, npix(src), src->depth,
                               cb->stream));
    return GPUIMG_OK;
}

// The table buffers, made once (each kept as soon as it is made, so that a
// failure leaves nothing to undo).
gpuimg_status reserve_table(CudaBackend *cb)
{
    if (!cb->d_table)
        TRY(cb, "cudaMalloc (table)", cudaMalloc(&cb->d_table, CudaBackend::TABLE_BYTES));
    if (!cb->h_table)
        TRY(cb, "cudaHostAlloc (table)", cudaHostAlloc(&cb->h_table, CudaBackend::TABLE_BYTES, 0));
    if (!cb->table_copied) {
        cudaEvent_t event;
        TRY(cb, "cudaEventCreate (table)",
            cudaEventCreateWithFlags(&event, cudaEventDisableTiming));
        cb->table_copied = event;
    }
    return GPUIMG_OK;
}

// colour_map: the conversion's table on the device (once per conversion),
// then the tetrahedral kernel over the 3 colour planes.
gpuimg_status cuda_colour_map(gpuimg_backend *be, const gpuimg_planes *src, gpuimg_planes *dst,
                              const gpuimg_colour_map *map)
{
    CudaBackend *cb = cuda(be);
    gpuimg_status st = check_depth(cb, src->depth, "colour_map");
    if (st != GPUIMG_OK)
        return st;
    const size_t bytes = (size_t)GPUIMG_COLOUR_FLOATS * sizeof(float);
    if (!cb->d_colour)
        TRY(cb, "cudaMalloc (colour table)", cudaMalloc(&cb->d_colour, bytes));
    if (cb->colour_id != map->id) {
        // pageable, so the call returns once the table is staged: the
        // table is the step's and outlives the copy anyway
        TRY(cb, "cudaMemcpyAsync (colour table)",
            cudaMemcpyAsync(cb->d_colour, map->lut, bytes, cudaMemcpyHostToDevice, cb->stream));
        cb->colour_id = map->id;
    }
    LAUNCH(cb, "colour",
           gpuimg__cuda_colour_lut(dplanes(src), dplanes(dst), npix(src), src->depth, cb->d_colour,
                                   cb->stream));
    return GPUIMG_OK;
}

// map_lut: the table of the planes' depth goes to the device once per call,
// through pinned memory so that the copy stays asynchronous (a pageable one
// waits for the stream), then every colour plane is looked up through it.
gpuimg_status cuda_map_lut(gpuimg_backend *be, const gpuimg_planes *src, gpuimg_planes *dst,
                           const uint8_t *lut8, const uint16_t *lut16)
{
    CudaBackend *cb = cuda(be);
    gpuimg_status st = check_depth(cb, src->depth, "map_lut");
    if (st == GPUIMG_OK)
        st = reserve_table(cb);
    if (st != GPUIMG_OK)
        return st;
    size_t bytes = src->depth == 16 ? 65536 * sizeof *lut16 : 256 * sizeof *lut8;
    const void *table = src->depth == 16 ? static_cast<const void *>(lut16) : lut8;
    TRY(cb, "cudaEventSynchronize (table)", cudaEventSynchronize(cb->table_copied));
    memcpy(cb->h_table, table, bytes);
    TRY(cb, "cudaMemcpyAsync (table)",
        cudaMemcpyAsync(cb->d_table, cb->h_table, bytes, cudaMemcpyHostToDevice, cb->stream));
    TRY(cb, "cudaEventRecord (table)", cudaEventRecord(cb->table_copied, cb->stream));
    for (int c = 0; st == GPUIMG_OK && c < src->channels; c++)
        st = launched(cb,
                      gpuimg__cuda_map_lut(src->plane[c], dst->plane[c], npix(src), src->depth,
                                           cb->d_table, cb->stream),
                      "map_lut");
    return st;
}

// The counts of every channel into d_counts[(c << depth) ..].
gpuimg_status device_histograms(CudaBackend *cb, const gpuimg_planes *src)
{
    size_t counts = (size_t)src->channels << src->depth;
    gpuimg_status st = check_depth(cb, src->depth, "histogram");
    if (st == GPUIMG_OK)
        st = reserve_counts(cb, src->channels, src->depth, npix(src));
    if (st != GPUIMG_OK)
        return st;
    TRY(cb, "cudaMemsetAsync (counts)",
        cudaMemsetAsync(cb->d_counts, 0, counts * sizeof(unsigned long long), cb->stream));
    LAUNCH(cb, "histogram",
           gpuimg__cuda_histogram(dplanes(src), src->channels, src->depth, npix(src), cb->d_counts,
                                  cb->d_partials, cb->stream));
    return GPUIMG_OK;
}

gpuimg_status cuda_equalize(gpuimg_backend *be, const gpuimg_planes *src, gpuimg_planes *dst)
{
    CudaBackend *cb = cuda(be);
    gpuimg_status st = device_histograms(cb, src);
    size_t lut = gpuimg__cuda_equalize_scratch(src->depth); // a multiple of 256
    if (st == GPUIMG_OK)
        st = reserve_scratch(cb, lut * src->channels);
    for (int c = 0; st == GPUIMG_OK && c < src->channels; c++)
        st = launched(cb,
                      gpuimg__cuda_equalize(src->plane[c], dst->plane[c], npix(src), src->depth,
                                            cb->d_counts + ((size_t)c << src->depth),
                                            static_cast<uint8_t *>(cb->d_scratch) + lut * c,
                                            cb->stream),
                      "equalize");
    return st;
}

// equalize --luma: the luma's histogram, its table, then every colour value
// scaled by lut[Y] / Y (pointwise.cu); 3 colour planes (the op table passes
// alpha on).
gpuimg_status cuda_equalize_luma(gpuimg_backend *be, const gpuimg_planes *src, gpuimg_planes *dst)
{
    CudaBackend *cb = cuda(be);
    if (src->channels < 3) {
        snprintf(cb->base.message, sizeof cb->base.message,
                 "equalize_luma: %d colour planes (not 3)", src->channels);
        return GPUIMG_ERR_INTERNAL;
    }
    size_t counts = (size_t)1 << src->depth;
    gpuimg_status st = check_depth(cb, src->depth, "equalize_luma");
    if (st == GPUIMG_OK)
        st = reserve_counts(cb, 1, src->depth, npix(src));
    if (st == GPUIMG_OK)
        st = reserve_scratch(cb, gpuimg__cuda_equalize_scratch(src->depth));
    if (st != GPUIMG_OK)
        return st;
    TRY(cb, "cudaMemsetAsync (counts)",
        cudaMemsetAsync(cb->d_counts, 0, counts * sizeof(unsigned long long), cb->stream));
    LAUNCH(cb, "histogram (luma)",
           gpuimg__cuda_histogram_luma(dplanes(src), src->depth, npix(src), cb->d_counts,
                                       cb->d_partials, cb->stream));
    LAUNCH(cb, "equalize (luma)",
           gpuimg__cuda_equalize_luma(dplanes(src), dplanes(dst), npix(src), src->depth,
                                      cb->d_counts, static_cast<uint8_t *>(cb->d_scratch),
                                      cb->stream));
    return GPUIMG_OK;
}

// The caller's out: counts[c] for each channel, out->bins of them each
// (1 << depth), zeroed; filled here with the device's counts.
gpuimg_status cuda_histogram(gpuimg_backend *be, const gpuimg_planes *src, gpuimg_histogram *out)
{
    CudaBackend *cb = cuda(be);
    gpuimg_status st = check_depth(cb, src->depth, "histogram");
    if (st != GPUIMG_OK)
        return st;
    size_t bins = (size_t)1 << src->depth;
    for (int c = 0; c < src->channels; c++)
        if (!out->counts[c] || out->bins < 0 || (size_t)out->bins < bins) {
            snprintf(cb->base.message, sizeof cb->base.message,
                     "histogram: %d bins for channel %d of a %d-bit image", out->bins, c,
                     src->depth);
            return GPUIMG_ERR_INTERNAL;
        }
    st = device_histograms(cb, src);
    if (st != GPUIMG_OK)
        return st;
    static_assert(sizeof(unsigned long long) == sizeof(uint64_t), "the counts copy as they are");
    for (int c = 0; c < src->channels; c++)
        TRY(cb, "cudaMemcpy (histogram)",
            cudaMemcpyAsync(out->counts[c], cb->d_counts + c * bins, bins * sizeof(uint64_t),
                            cudaMemcpyDeviceToHost, cb->stream));
    TRY(cb, "cudaStreamSynchronize (histogram)", cudaStreamSynchronize(cb->stream));
    out->channels = src->channels;
    out->depth = src->depth;
    return GPUIMG_OK;
}

gpuimg_status cuda_ssim(gpuimg_backend *be, const gpuimg_planes *a, const gpuimg_planes *b,
                        const uint8_t *ignore, double *sum)
{
    CudaBackend *cb = cuda(be);
    TRY(cb, "cudaMemsetAsync (ssim)", cudaMemsetAsync(cb->d_ssim, 0, sizeof(double), cb->stream));
    for (int c = 0; c < a->channels; c++)
        LAUNCH(cb, "ssim",
               gpuimg__cuda_ssim(a->plane[c], b->plane[c], ignore, a->width, a->height, a->depth,
                                 cb->d_ssim, cb->stream));
    double total = 0.0;
    TRY(cb, "cudaMemcpy (ssim)",
        cudaMemcpyAsync(&total, cb->d_ssim, sizeof total, cudaMemcpyDeviceToHost, cb->stream));
    TRY(cb, "cudaStreamSynchronize (ssim)", cudaStreamSynchronize(cb->stream));
    *sum += total;
    return GPUIMG_OK;
}

gpuimg_status cuda_flip(gpuimg_backend *be, const gpuimg_planes *a, const gpuimg_planes *b,
                        const gpuimg_flip_params *p, float *map)
{
    CudaBackend *cb = cuda(be);
    size_t n = (size_t)a->width * (size_t)a->height;
    gpuimg_status st = reserve_scratch(cb, gpuimg__cuda_flip_scratch(a->width, a->height));
    if (st != GPUIMG_OK)
        return st;
    LAUNCH(cb, "flip",
           gpuimg__cuda_flip(dplanes(a), dplanes(b), a->channels, a->depth, a->width, a->height, p,
                             cb->d_scratch, cb->stream));
    TRY(cb, "cudaMemcpy (flip)",
        cudaMemcpyAsync(map, cb->d_scratch, n * sizeof(float), cudaMemcpyDeviceToHost, cb->stream));
    TRY(cb, "cudaStreamSynchronize (flip)", cudaStreamSynchronize(cb->stream));
    return GPUIMG_OK;
}

// ---- JPEG (jpeg_codec.cu) ----

int cuda_jpeg_ready(gpuimg_backend *be, char *why, size_t len)
{
    CudaBackend *cb = cuda(be);
    if (usable(cb) != GPUIMG_OK) {
        snprintf(why, len, "%s", cb->base.message);
        return 0;
    }
    if (!cb->jpeg_tried) {
        cb->jpeg_tried = true;
        cb->jpeg = gpuimg__gpujpeg_create(cb->jpeg_why, sizeof cb->jpeg_why);
    }
    if (!cb->jpeg)
        snprintf(why, len, "%s", cb->jpeg_why);
    return cb->jpeg != nullptr;
}

// The codec entries need jpeg_ready's yes first (the seam's contract).
gpuimg_status jpeg_usable(CudaBackend *cb)
{
    gpuimg_status st = usable(cb);
    if (st == GPUIMG_OK && !cb->jpeg) {
        snprintf(cb->base.message, sizeof cb->base.message, "nvJPEG is not set up (%s)",
                 cb->jpeg_why[0] ? cb->jpeg_why : "jpeg_ready was not asked");
        st = GPUIMG_ERR_DEVICE;
    }
    return st;
}

gpuimg_status cuda_jpeg_decode(gpuimg_backend *be, int n, const uint8_t *const *data,
                               const size_t *size, gpuimg_planes *const *dst, int *refused)
{
    CudaBackend *cb = cuda(be);
    gpuimg_status st = jpeg_usable(cb);
    if (st != GPUIMG_OK)
        return st;
    st = gpuimg__gpujpeg_decode(cb->jpeg, cb->stream, n, data, size, dst, refused, cb->base.message,
                                sizeof cb->base.message);
    if (st == GPUIMG_ERR_DEVICE && cudaGetLastError() != cudaSuccess && !cb->broken[0])
        snprintf(cb->broken, sizeof cb->broken, "%s", cb->base.message);
    return st;
}

gpuimg_status cuda_jpeg_encode(gpuimg_backend *be, const gpuimg_planes *src, int quality,
                               uint8_t **out, size_t *len)
{
    CudaBackend *cb = cuda(be);
    gpuimg_status st = jpeg_usable(cb);
    if (st != GPUIMG_OK)
        return st;
    return gpuimg__gpujpeg_encode(cb->jpeg, cb->stream, src, quality, out, len, cb->base.message,
                                  sizeof cb->base.message);
}

gpuimg_status cuda_synchronize(gpuimg_backend *be)
{
    CudaBackend *cb = cuda(be);
    TRY(cb, "cudaStreamSynchronize", cudaStreamSynchronize(cb->stream));
    return GPUIMG_OK;
}

// Every stream of the device: a DLPack consumer's kernels may still read
// planes it has let go of, and the pool would hand them out again as soon
// as this backend's stream passed their free.
gpuimg_status cuda_device_synchronize(gpuimg_backend *be)
{
    CudaBackend *cb = cuda(be);
    TRY(cb, "cudaSetDevice", cudaSetDevice(cb->device));
    TRY(cb, "cudaDeviceSynchronize", cudaDeviceSynchronize());
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
    o.premultiply = cuda_premultiply;
    o.unpremultiply = cuda_unpremultiply;
    o.resample = cuda_resample;
    o.copy_rect = cuda_copy_rect;
    o.fill = cuda_fill;
    o.unsharp = cuda_unsharp;
    o.move = cuda_move;
    o.grayscale = cuda_grayscale;
    o.invert = cuda_invert;
    o.equalize = cuda_equalize;
    o.equalize_luma = cuda_equalize_luma;
    o.map_lut = cuda_map_lut;
    o.colour_map = cuda_colour_map;
    o.copy_plane = cuda_copy_plane;
    o.histogram = cuda_histogram;
    o.synchronize = cuda_synchronize;
    o.device_synchronize = cuda_device_synchronize;
    o.ssim = cuda_ssim;
    o.flip = cuda_flip;
    o.jpeg_ready = cuda_jpeg_ready;
    o.jpeg_decode = cuda_jpeg_decode;
    o.jpeg_encode = cuda_jpeg_encode;
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
    double t0 = gpuimg__now_ms();
    bool ok = (err = cudaSetDevice(device)) == cudaSuccess && (err = cudaFree(0)) == cudaSuccess;
    if (ok)
        t0 = gpuimg__trace_since("CUDA context", t0);
    ok = ok && (err = cudaGetDeviceProperties(&cb->prop, device)) == cudaSuccess &&
         (err = cudaStreamCreateWithFlags(&cb->stream, cudaStreamNonBlocking)) == cudaSuccess &&
         (err = cudaMalloc(&cb->d_counts, SMALL_COUNTS * sizeof(unsigned long long))) ==
             cudaSuccess &&
         (err = cudaMalloc(&cb->d_ssim, sizeof(double))) == cudaSuccess &&
         (err = cudaMalloc(&cb->d_weights, GPUIMG_CUDA_MAX_WEIGHTS * sizeof(float))) ==
             cudaSuccess &&
         (err = cudaHostAlloc(&cb->h_weights, GPUIMG_CUDA_MAX_WEIGHTS * sizeof(float), 0)) ==
             cudaSuccess &&
         (err = cudaEventCreateWithFlags(&cb->weights_copied, cudaEventDisableTiming)) ==
             cudaSuccess &&
         (err = cudaEventRecord(cb->weights_copied, cb->stream)) == cudaSuccess;
    if (err != cudaSuccess) {
        snprintf(msg, msglen, "CUDA device %d unusable: %s", device, cudaGetErrorString(err));
        cudaGetLastError();
        cuda_close(&cb->base);
        return GPUIMG_ERR_NO_DEVICE;
    }
    cb->pool = device_pool(device);
    gpuimg__trace_since("CUDA backend set-up", t0);
    g_cuda_used.store(1);
    cb->counts_size = SMALL_COUNTS * sizeof(unsigned long long);
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

// Read at each launch that needs them (not cached: batch drives several
// devices from several threads); cudaDeviceGetAttribute answers from the
// runtime's own table, without a device round trip.
int gpuimg__device_sms(void)
{
    int dev = 0, v = 0;
    if (cudaGetDevice(&dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&v, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess) {
        cudaGetLastError();
        return 0;
    }
    return v;
}

int gpuimg__device_shared_optin(void)
{
    int dev = 0, v = 0;
    if (cudaGetDevice(&dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&v, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev) != cudaSuccess) {
        cudaGetLastError();
        return 0;
    }
    return v;
}

extern "C" int gpuimg__cuda_used(void)
{
    return g_cuda_used.load();
}

extern "C" int gpuimg__cuda_device_count(void)
{
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess) {
        cudaGetLastError();
        return 0;
    }
    return count;
}

extern "C" const gpuimg_backend_ops *gpuimg__cuda_backend(void)
{
    return &cuda_ops;
}
