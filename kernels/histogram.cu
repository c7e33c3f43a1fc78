// SPDX-License-Identifier: MIT
// Exact histograms, one bin per value: 256 per plane at 8 bits, 65536 at
// 16, of up to 4 planes in one launch (blockIdx.y is the plane: one plane
// of an 8K image is read in about 12 us, so three launches lost a fifth of
// that to each launch's ramp-up and tail); and the same of the rounded
// Rec.601 luma of 3 planes (equalize --luma), through the same kernels with
// another source of values (PlaneValues, LumaValues).
//
// 8 bits. Privatized: each warp of a block owns a copy of the 256 bins in
// shared memory, so warps never contend with each other; a block merges its
// copies and adds each non-zero bin to the global counts with one atomic, so
// global atomics number at most 256 per block, whatever the image.
//
// Each lane reads 16 values at once (a 16-byte load; planes are 256-byte
// aligned). On a photograph the 32 lanes' values are mostly distinct and
// plain shared atomics are cheapest. On a one-value region every lane would
// hit the same bin, serializing 32-fold; there one vote (__all_sync) finds
// that the whole warp holds one value and a single lane adds 16 x lanes.
//
// 16 bits. 65536 bins of 32-bit counters are 256 KB, over any block's
// shared memory (227 KB at most), and a copy per warp is out of the
// question. The choices were:
// - global atomics on the counts, warp-aggregated (__match_any_sync): on a
//   photograph a warp's 32 values are nearly all distinct, so that is about
//   one L2 atomic per value, 100 M of them for an 8K RGB image, an order
//   of magnitude slower than reading it;
// - blocks that each count one range of bins (4 ranges of 16384 in 64 KB):
//   every block then reads the whole plane, 4 reads instead of one;
// - one copy of all 65536 bins per block with 16-bit counters packed two to
//   a word, 128 KB: one block per SM (1024 threads), shared atomics as at 8
//   bits, and the image read once. Taken.
// A 16-bit counter wraps after 65535 counts, and the low one's carry lands
// in its neighbour. Both are undone exactly, whatever the interleaving,
// from the old word that every atomicAdd returns (carry_out): the thread
// whose add wraps a counter adds 65536 to that bin's global count; the
// low counter's carry is taken back out with a second atomic (- 65536),
// and since the carry and its removal also move the high counter, each of
// them adds or subtracts 65536 for the high bin when it wraps that counter
// up or down. The high counter's value always equals its true count plus
// the carries not yet removed, modulo 65536, and each wrap of it is seen by
// exactly one atomic, so once every carry is removed (at the block's
// barrier) global wraps + the counter = the count. These extra atomics come
// once per 65536 counts of one bin in one block: none on a photograph.
// Using the returned value must not serialize the atomics, though: a lane
// issues its item's 8 atomics first and tests their old values after (one
// branch per item), or each atomic's latency would be paid in turn (0.162
// against 0.122 ms for an 8K RGB image on the H100).
//
// The end of a block is its 128 KB of counters, and all blocks end at once.
// Flushed as 64-bit global atomics on the non-zero counters (up to 65536 x
// SMs of them, 8.6 M on an H100) that took 0.04 ms, a third of the whole;
// instead each block stores its packed counters (d_scratch, 16-byte
// stores) and a second kernel (histogram16_reduce) sums them per bin and
// adds the sums to the counts: 0.012 ms for 17 MB that L2 mostly holds.
// 0.094 ms in all on the 8K RGB image, 72% of the copy bandwidth (the
// counting alone, 0.082 ms, is 83%). A block whose counters are nearly all
// zero (a one-value region: one or two words) adds those few with atomics
// and flags its partial as unwritten, so that neither it nor the reduction
// moves 128 KB of zeros.
// Devices whose blocks cannot opt in to 128 KB (sm_86 / sm_89: 99 KB) take
// the warp-aggregated global atomics instead: slower, the same counts.
#include "device.cuh"
#include "kernels.h"

// ---- where the values come from ----

// The values of one plane, 16 bytes per item.
template <typename T> struct PlaneValues {
    static constexpr int VALS = Vec16<T>::N; // values per item
    static constexpr int LOADS = 1;          // 16-byte loads per item
    const uint8_t *src;
    struct Item {
        uint4 q;
    };
    __device__ static PlaneValues from(const gpuimg_dplanes &planes, int y)
    {
        return PlaneValues{plane_at(planes, y)};
    }
    __device__ Item load(size_t i) const
    {
        return Item{reinterpret_cast<const uint4 *>(src)[i]};
    }
    __device__ uint32_t value(const Item &it, int k) const
    {
        return Vec16<T>::get(it.q, k);
    }
    // Whether every value of the item is v: four word compares.
    __device__ bool all(const Item &it, uint32_t v) const
    {
        uint32_t pattern = v * (sizeof(T) == 1 ? 0x01010101u : 0x00010001u);
        return it.q.x == pattern && it.q.y == pattern && it.q.z == pattern && it.q.w == pattern;
    }
    __device__ uint32_t at(size_t i) const
    {
        return reinterpret_cast<const T *>(src)[i];
    }
};

// The luma of planes 0, 1, 2 (R, G, B), 16 bytes of each per item.
template <typename T> struct LumaValues {
    static constexpr int VALS = Vec16<T>::N;
    static constexpr int LOADS = 3;
    const uint8_t *r, *g, *b;
    struct Item {
        uint4 r, g, b;
    };
    __device__ static LumaValues from(const gpuimg_dplanes &planes, int)
    {
        return LumaValues{planes.p[0], planes.p[1], planes.p[2]};
    }
    __device__ Item load(size_t i) const
    {
        return Item{reinterpret_cast<const uint4 *>(r)[i], reinterpret_cast<const uint4 *>(g)[i],
                    reinterpret_cast<const uint4 *>(b)[i]};
    }
    __device__ uint32_t value(const Item &it, int k) const
    {
        return luma_value(Vec16<T>::get(it.r, k), Vec16<T>::get(it.g, k), Vec16<T>::get(it.b, k));
    }
    __device__ bool all(const Item &it, uint32_t v) const
    {
        bool same = true;
#pragma unroll
        for (int k = 0; k < VALS; k++)
            same = same && value(it, k) == v;
        return same;
    }
    __device__ uint32_t at(size_t i) const
    {
        return luma_value(reinterpret_cast<const T *>(r)[i], reinterpret_cast<const T *>(g)[i],
                          reinterpret_cast<const T *>(b)[i]);
    }
};

// ---- 8 bits: a private copy of the 256 bins per warp ----

constexpr int HIST_THREADS = 256;
constexpr int HIST_WARPS = HIST_THREADS / 32;
static_assert(HIST_WARPS * 256 * 4 <= 48 * 1024, "private histograms fit");

// add_item8: an item's values into the warp's bins. Called by the lanes in
// `active` together (the vote needs them all); mine is the warp's copy.
template <typename Src>
__device__ __forceinline__ void add_item8(unsigned int *mine, const Src &src,
                                          const typename Src::Item &it, unsigned int active,
                                          int lane)
{
    uint32_t v = src.value(it, 0);
    int leader = __ffs(active) - 1;
    uint32_t leader_v = __shfl_sync(active, v, leader);
    int one_value = v == leader_v && src.all(it, v);
    if (__all_sync(active, one_value)) {
        if (lane == leader)
            atomicAdd(&mine[v], (unsigned int)Src::VALS * __popc(active));
    } else {
#pragma unroll
        for (int k = 0; k < Src::VALS; k++)
            atomicAdd(&mine[src.value(it, k)], 1u);
    }
}

template <typename Src>
__global__ void __launch_bounds__(HIST_THREADS)
    histogram8_kernel(gpuimg_dplanes planes, size_t n, unsigned long long *__restrict__ all_counts)
{
    const Src src = Src::from(planes, blockIdx.y);
    unsigned long long *__restrict__ counts = all_counts + 256 * blockIdx.y;
    __shared__ unsigned int s_bins[HIST_WARPS][256];
    for (int i = threadIdx.x; i < HIST_WARPS * 256; i += HIST_THREADS)
        (&s_bins[0][0])[i] = 0;
    __syncthreads();
    unsigned int *mine = s_bins[threadIdx.x / 32];
    int lane = threadIdx.x & 31;
    size_t nitems = n / Src::VALS, stride = (size_t)gridDim.x * HIST_THREADS;
    // Two 16-byte loads in flight per thread before either is counted.
    for (size_t i = (size_t)blockIdx.x * HIST_THREADS + threadIdx.x; i < nitems; i += 2 * stride) {
        bool second = i + stride < nitems;
        typename Src::Item q0 = src.load(i), q1 = second ? src.load(i + stride) : q0;
        add_item8(mine, src, q0, __activemask(), lane);
        if (second)
            add_item8(mine, src, q1, __activemask(), lane);
    }
    if (blockIdx.x == 0 && threadIdx.x < n % Src::VALS)
        atomicAdd(&mine[src.at(nitems * Src::VALS + threadIdx.x)], 1u);
    __syncthreads();
    for (int b = threadIdx.x; b < 256; b += HIST_THREADS) {
        unsigned int total = 0;
        for (int k = 0; k < HIST_WARPS; k++)
            total += s_bins[k][b];
        if (total)
            atomicAdd(&counts[b], (unsigned long long)total);
    }
}
static_assert(HIST_THREADS >= 16, "block 0 takes the last n % 16 values, one per thread");

// ---- 16 bits: one packed copy of the 65536 bins per block ----

constexpr int HIST16_THREADS = 1024;
constexpr int HIST16_WORDS = 65536 / 2; // two 16-bit counters a word
constexpr size_t HIST16_SHARED = (size_t)HIST16_WORDS * 4;
constexpr int HIST16_BATCH = 8;   // 16-byte loads in flight per thread: up to 128 KB per SM
constexpr int HIST16_SPARSE = 64; // non-zero words up to which a block flushes by atomics
static_assert(HIST16_THREADS >= 8, "block 0 takes the last n % 8 values, one per thread");

// carry_out: the atomic that added k (1 <= k <= 65535) counts of value v to
// the packed bins returned `old`, and that add wrapped v's 16-bit counter
// (the header explains why this is exact under any interleaving). Bin v is
// the low half of word v / 2 when v is even, the high half when odd. Rare:
// out of line.
__device__ __noinline__ void carry_out(unsigned int *bins, uint32_t v, unsigned int old,
                                       unsigned long long *__restrict__ counts)
{
    atomicAdd(&counts[v], 65536ull); // the wrapped counter's 65536
    if (v & 1)
        return; // a carry out of bit 31 is simply lost
    // The low counter's carry moved the high counter (v + 1) up by one.
    if ((old >> 16) == 0xffffu) // and wrapped it up
        atomicAdd(&counts[v + 1], 65536ull);
    unsigned int back = atomicAdd(&bins[v >> 1], 0xffff0000u); // - 65536: the carry taken out
    if ((back >> 16) == 0)                                     // which wrapped it down
        atomicAdd(&counts[v + 1], 0ull - 65536ull);
}

// Where value v's counter sits in its word, and whether adding k to a word
// that held `old` wrapped it.
__device__ __forceinline__ int half_shift(uint32_t v)
{
    return 16 * (int)(v & 1);
}
__device__ __forceinline__ bool wraps(unsigned int old, uint32_t v, uint32_t k)
{
    return ((old >> half_shift(v)) & 0xffffu) + k > 0xffffu;
}

template <typename Src>
__device__ __forceinline__ void add_item16(unsigned int *bins, const Src &src,
                                           const typename Src::Item &it, unsigned int active,
                                           int lane, unsigned long long *__restrict__ counts)
{
    uint32_t v0 = src.value(it, 0);
    int leader = __ffs(active) - 1;
    uint32_t leader_v = __shfl_sync(active, v0, leader);
    int one_value = v0 == leader_v && src.all(it, v0);
    if (__all_sync(active, one_value)) {
        if (lane == leader) { // at most 8 x 32 = 256 counts at once
            uint32_t k = (uint32_t)Src::VALS * __popc(active);
            unsigned int old = atomicAdd(&bins[v0 >> 1], k << half_shift(v0));
            if (wraps(old, v0, k))
                carry_out(bins, v0, old, counts);
        }
        return;
    }
    // Every atomic issued before any old value is looked at.
    uint32_t v[Src::VALS];
    unsigned int old[Src::VALS];
#pragma unroll
    for (int k = 0; k < Src::VALS; k++) {
        v[k] = src.value(it, k);
        old[k] = atomicAdd(&bins[v[k] >> 1], 1u << half_shift(v[k]));
    }
    bool any = false;
#pragma unroll
    for (int k = 0; k < Src::VALS; k++)
        any |= wraps(old[k], v[k], 1);
    if (any)
#pragma unroll
        for (int k = 0; k < Src::VALS; k++)
            if (wraps(old[k], v[k], 1))
                carry_out(bins, v[k], old[k], counts);
}

// Counts into the block's packed copy, then stores it as the block's
// partial, partials[(plane * gridDim.x + block) * HIST16_WORDS ..], and
// written[plane * gridDim.x + block] = 1; or, for a sparse block, adds its
// few counters to the counts itself and sets written[..] = 0.
template <typename Src>
__global__ void __launch_bounds__(HIST16_THREADS, 1)
    histogram16_kernel(gpuimg_dplanes planes, size_t n, unsigned long long *__restrict__ all_counts,
                       unsigned int *__restrict__ partials, int *__restrict__ written)
{
    extern __shared__ uint4 s_packed4[]; // HIST16_WORDS words
    unsigned int *s_packed = reinterpret_cast<unsigned int *>(s_packed4);
    __shared__ int s_nonzero;
    if (threadIdx.x == 0)
        s_nonzero = 0;
    const Src src = Src::from(planes, blockIdx.y);
    unsigned long long *__restrict__ counts = all_counts + ((size_t)blockIdx.y << 16);
    const int tid = threadIdx.x, lane = tid & 31;
    for (int i = tid; i < HIST16_WORDS / 4; i += HIST16_THREADS)
        s_packed4[i] = make_uint4(0, 0, 0, 0);
    __syncthreads();
    // HIST16_BATCH loads in flight, whole items: the luma's items are three
    // loads, so 2 of them (eight would hold 96 registers of loads, over the
    // 64 that 1024 threads leave each, and spilled about 300 bytes a thread).
    constexpr int BATCH = HIST16_BATCH / Src::LOADS;
    static_assert(BATCH >= 1, "at least one item per batch");
    size_t nitems = n / Src::VALS, stride = (size_t)gridDim.x * HIST16_THREADS;
    for (size_t i = (size_t)blockIdx.x * HIST16_THREADS + tid; i < nitems; i += BATCH * stride) {
        typename Src::Item q[BATCH];
#pragma unroll
        for (int u = 0; u < BATCH; u++)
            if (i + u * stride < nitems)
                q[u] = src.load(i + u * stride);
#pragma unroll
        for (int u = 0; u < BATCH; u++)
            if (i + u * stride < nitems)
                add_item16(s_packed, src, q[u], __activemask(), lane, counts);
    }
    if (blockIdx.x == 0 && tid < n % Src::VALS) {
        uint32_t v = src.at(nitems * Src::VALS + tid);
        unsigned int old = atomicAdd(&s_packed[v >> 1], 1u << half_shift(v));
        if (wraps(old, v, 1))
            carry_out(s_packed, v, old, counts);
    }
    __syncthreads(); // every carry has been taken back out
    int mine = 0;
    for (int i = tid; i < HIST16_WORDS; i += HIST16_THREADS)
        mine += s_packed[i] != 0;
    if (mine)
        atomicAdd(&s_nonzero, mine);
    __syncthreads();
    const size_t block = (size_t)blockIdx.y * gridDim.x + blockIdx.x;
    const bool sparse = s_nonzero <= HIST16_SPARSE; // the same in every thread
    if (tid == 0)
        written[block] = !sparse;
    if (sparse) {
        for (int i = tid; i < HIST16_WORDS; i += HIST16_THREADS) {
            unsigned int w = s_packed[i];
            if (w & 0xffffu)
                atomicAdd(&counts[2 * i], (unsigned long long)(w & 0xffffu));
            if (w >> 16)
                atomicAdd(&counts[2 * i + 1], (unsigned long long)(w >> 16));
        }
        return;
    }
    uint4 *part = reinterpret_cast<uint4 *>(partials + block * HIST16_WORDS);
    for (int i = tid; i < HIST16_WORDS / 4; i += HIST16_THREADS)
        part[i] = s_packed4[i];
}

// Sums the `blocks` partials of plane blockIdx.y per bin and adds the sums
// to its counts (each bin is one thread's, so a plain add: the carries'
// atomics on the counts finished with the previous kernel). A block takes
// 512 bins: 64 columns of 16 bytes (8 counters) x 4 groups of partials,
// so that 256 loads of 16 bytes are in flight at once, then adds the groups
// through shared memory. Sums stay below 2^32: at most 2^32 values a plane.
constexpr int REDUCE_THREADS = 256, REDUCE_COLUMNS = 64, REDUCE_GROUPS = 4;
static_assert(REDUCE_COLUMNS * REDUCE_GROUPS == REDUCE_THREADS, "the block's shape");
__global__ void __launch_bounds__(REDUCE_THREADS)
    histogram16_reduce(const unsigned int *__restrict__ partials, const int *__restrict__ written,
                       int blocks, unsigned long long *__restrict__ all_counts)
{
    constexpr int Q = HIST16_WORDS / 4; // uint4 per partial
    const int col = threadIdx.x % REDUCE_COLUMNS, grp = threadIdx.x / REDUCE_COLUMNS;
    const int plane = blockIdx.y;
    const uint4 *p = reinterpret_cast<const uint4 *>(partials) + (size_t)plane * blocks * Q +
                     (size_t)blockIdx.x * REDUCE_COLUMNS + col;
    uint32_t sum[8] = {0, 0, 0, 0, 0, 0, 0, 0}; // bins 2k (low halves) and 2k + 1
#pragma unroll 4
    for (int b = grp; b < blocks; b += REDUCE_GROUPS) {
        if (!written[plane * blocks + b])
            continue; // a sparse block: its counts are in already
        uint4 w = p[(size_t)b * Q];
        const uint32_t words[4] = {w.x, w.y, w.z, w.w};
#pragma unroll
        for (int k = 0; k < 4; k++) {
            sum[2 * k] += words[k] & 0xffffu;
            sum[2 * k + 1] += words[k] >> 16;
        }
    }
    __shared__ uint32_t s_sum[REDUCE_GROUPS][REDUCE_COLUMNS][8];
#pragma unroll
    for (int k = 0; k < 8; k++)
        s_sum[grp][col][k] = sum[k];
    __syncthreads();
    unsigned long long *counts =
        all_counts + ((size_t)plane << 16) + (size_t)blockIdx.x * REDUCE_COLUMNS * 8;
    for (int i = threadIdx.x; i < REDUCE_COLUMNS * 8; i += REDUCE_THREADS) {
        int c = i / 8, k = i % 8;
        uint32_t t = 0;
#pragma unroll
        for (int g = 0; g < REDUCE_GROUPS; g++)
            t += s_sum[g][c][k];
        counts[i] += t;
    }
}
static_assert(HIST16_WORDS / 4 % REDUCE_COLUMNS == 0, "whole blocks of columns");

// The fallback where 128 KB of shared memory cannot be had: lanes holding
// the same value add once (__match_any_sync), straight to the global counts.
template <typename Src>
__global__ void __launch_bounds__(HIST_THREADS)
    histogram16_global_kernel(gpuimg_dplanes planes, size_t n,
                              unsigned long long *__restrict__ all_counts)
{
    const Src src = Src::from(planes, blockIdx.y);
    unsigned long long *__restrict__ counts = all_counts + ((size_t)blockIdx.y << 16);
    const int lane = threadIdx.x & 31;
    size_t nitems = n / Src::VALS, stride = (size_t)gridDim.x * HIST_THREADS;
    for (size_t i = (size_t)blockIdx.x * HIST_THREADS + threadIdx.x; i < nitems; i += stride) {
        typename Src::Item it = src.load(i);
#pragma unroll
        for (int k = 0; k < Src::VALS; k++) {
            uint32_t v = src.value(it, k);
            unsigned int peers = __match_any_sync(__activemask(), v);
            if (lane == __ffs(peers) - 1)
                atomicAdd(&counts[v], (unsigned long long)__popc(peers));
        }
    }
    if (blockIdx.x == 0 && threadIdx.x < n % Src::VALS)
        atomicAdd(&counts[src.at(nitems * Src::VALS + threadIdx.x)], 1ull);
}

// The 16-bit kernel's blocks per plane: one resident block per SM (128 KB
// each), shared among the planes; fewer when the image is small (each
// block clears, stores and is reduced as 128 KB), at least 8 items per
// thread before another block is worth it.
static int blocks16(int nplanes, size_t nitems)
{
    int sms = gpuimg__device_sms();
    long long per_plane = sms / nplanes > 1 ? sms / nplanes : 1;
    long long need = (long long)((nitems + 8 * HIST16_THREADS - 1) / (8 * HIST16_THREADS));
    return (int)(need < 1 ? 1 : need < per_plane ? need : per_plane);
}

template <typename Src>
static cudaError_t launch_histogram16(gpuimg_dplanes planes, int nplanes, size_t n, size_t nitems,
                                      unsigned long long *d_counts, void *d_scratch,
                                      cudaStream_t stream);

// One launch of the kernels above for `nplanes` sets of counts.
template <typename Src, typename T>
static cudaError_t launch_histogram(gpuimg_dplanes planes, int nplanes, size_t n,
                                    unsigned long long *d_counts, void *d_scratch,
                                    cudaStream_t stream)
{
    size_t nitems = (n + Src::VALS - 1) / Src::VALS;
    if constexpr (sizeof(T) == 1) {
        // The grid fills the device once over all planes (grid-stride loops).
        int blocks = (gpuimg__grid_for(nitems, HIST_THREADS) + nplanes - 1) / nplanes;
        histogram8_kernel<Src>
            <<<dim3(blocks, nplanes), HIST_THREADS, 0, stream>>>(planes, n, d_counts);
        return cudaGetLastError();
    } else {
        return launch_histogram16<Src>(planes, nplanes, n, nitems, d_counts, d_scratch, stream);
    }
}

template <typename Src>
static cudaError_t launch_histogram16(gpuimg_dplanes planes, int nplanes, size_t n, size_t nitems,
                                      unsigned long long *d_counts, void *d_scratch,
                                      cudaStream_t stream)
{
    // 128 KB of counters and the kernel's few static bytes (s_nonzero).
    if ((size_t)gpuimg__device_shared_optin() < HIST16_SHARED + 1024) {
        int blocks = (gpuimg__grid_for(nitems, HIST_THREADS) + nplanes - 1) / nplanes;
        histogram16_global_kernel<Src>
            <<<dim3(blocks, nplanes), HIST_THREADS, 0, stream>>>(planes, n, d_counts);
        return cudaGetLastError();
    }
    if (!d_scratch)
        return cudaErrorInvalidValue;
    int blocks = blocks16(nplanes, nitems);
    cudaError_t err = smem_opt_in(histogram16_kernel<Src>, HIST16_SHARED);
    if (err != cudaSuccess)
        return err;
    // The partials, then one flag per block.
    unsigned int *partials = static_cast<unsigned int *>(d_scratch);
    int *written = reinterpret_cast<int *>(partials + (size_t)nplanes * blocks * HIST16_WORDS);
    histogram16_kernel<Src><<<dim3(blocks, nplanes), HIST16_THREADS, HIST16_SHARED, stream>>>(
        planes, n, d_counts, partials, written);
    if ((err = cudaGetLastError()) != cudaSuccess)
        return err;
    histogram16_reduce<<<dim3(HIST16_WORDS / 4 / REDUCE_COLUMNS, nplanes), REDUCE_THREADS, 0,
                         stream>>>(partials, written, blocks, d_counts);
    return cudaGetLastError();
}

// The partials of the 16-bit kernel (HIST16_WORDS words per block, at most
// blocks16's count per plane) and a flag per block; none at 8 bits (the
// fallback uses none either).
extern "C" size_t gpuimg__cuda_histogram_scratch(int planes, int depth, size_t n)
{
    if (depth != 16 || planes < 1 || n == 0)
        return 0;
    size_t blocks = (size_t)planes * blocks16(planes, (n + 7) / 8);
    return blocks * HIST16_SHARED + blocks * sizeof(int);
}

extern "C" cudaError_t gpuimg__cuda_histogram(gpuimg_dplanes planes, int channels, int depth,
                                              size_t n, unsigned long long *d_counts,
                                              void *d_scratch, cudaStream_t stream)
{
    if (n == 0 || channels == 0)
        return cudaSuccess;
    if (channels < 0 || channels > 4)
        return cudaErrorInvalidValue;
    return by_depth(depth, [&](auto v) {
        using T = decltype(v);
        return launch_histogram<PlaneValues<T>, T>(planes, channels, n, d_counts, d_scratch,
                                                   stream);
    });
}

extern "C" cudaError_t gpuimg__cuda_histogram_luma(gpuimg_dplanes rgb, int depth, size_t n,
                                                   unsigned long long *d_counts, void *d_scratch,
                                                   cudaStream_t stream)
{
    if (n == 0)
        return cudaSuccess;
    return by_depth(depth, [&](auto v) {
        using T = decltype(v);
        return launch_histogram<LumaValues<T>, T>(rgb, 1, n, d_counts, d_scratch, stream);
    });
}
