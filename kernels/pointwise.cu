// SPDX-License-Identifier: MIT
// Map kernels: Rec.601 luma, inversion, histogram equalization (per channel,
// and of the luma keeping hue: equalize --luma), and a per-value
// operation's table made on the host (map_lut), at 8 and 16 bits.
//
// Each thread maps one 16-byte vector per plane and step (16 values at 8
// bits, 8 at 16) through 16-byte loads and stores (planes are 256-byte
// aligned): coalesced, and enough bytes in flight (with 4-byte words a full
// device held 8 KB of loads per SM, under what the memory needs to run at
// its rate: 73% of copy, measured). The last n % (values per vector) values
// go one by one.
//
// Equalization's table (SPEC §3) is built on the device in exact integers,
// 1 << depth entries: per block of SCAN_THREADS bins a sum and the first
// value present (equalize_sums_kernel), then per block a scan of its bins
// that starts from the blocks before it (equalize_lut_kernel): two small
// launches of 64 blocks at 16 bits, no loop over the 65536 bins in one
// block; at 8 bits one block of 256 threads does both in one launch.
//
// The lookup reads the table from shared memory: 256 bytes at 8 bits; at
// 16 bits 128 KB, one block of 1024 threads per SM, each block loading the
// table once (so the grid is one block per SM, grid-stride). Devices whose
// blocks cannot opt in to 128 KB (sm_86 / sm_89) read it through the
// read-only cache instead.
#include <type_traits>

#include "device.cuh"
#include "kernels.h"

constexpr int MAP_THREADS = 256;
constexpr int MAP16_THREADS = 1024; // the 16-bit table's one block per SM
static_assert(MAP_THREADS >= 16 && MAP16_THREADS >= 16,
              "block 0 maps the last n % 16 values, one per thread");

// ---- grayscale, invert ----

template <typename T>
__global__ void __launch_bounds__(MAP_THREADS)
    grayscale_kernel(const uint8_t *__restrict__ r, const uint8_t *__restrict__ g,
                     const uint8_t *__restrict__ b, uint8_t *__restrict__ dst, size_t n)
{
    using V = Vec16<T>;
    size_t nvec = n / V::N, stride = (size_t)gridDim.x * MAP_THREADS;
    for (size_t i = (size_t)blockIdx.x * MAP_THREADS + threadIdx.x; i < nvec; i += stride) {
        uint4 qr = reinterpret_cast<const uint4 *>(r)[i];
        uint4 qg = reinterpret_cast<const uint4 *>(g)[i];
        uint4 qb = reinterpret_cast<const uint4 *>(b)[i];
        uint32_t y[V::N];
#pragma unroll
        for (int k = 0; k < V::N; k++)
            y[k] = luma_value(V::get(qr, k), V::get(qg, k), V::get(qb, k));
        reinterpret_cast<uint4 *>(dst)[i] = V::pack(y);
    }
    if (blockIdx.x == 0 && threadIdx.x < n % V::N) {
        size_t i = nvec * V::N + threadIdx.x;
        reinterpret_cast<T *>(dst)[i] =
            (T)luma_value(reinterpret_cast<const T *>(r)[i], reinterpret_cast<const T *>(g)[i],
                          reinterpret_cast<const T *>(b)[i]);
    }
}

// Every plane in one launch (blockIdx.y), 16 bytes per thread and step.
// M - v is the complement of v's bits at either depth (255 - v = v ^ 0xff,
// 65535 - v = v ^ 0xffff), so inversion complements bytes: one kernel over
// the plane's bytes serves both depths.
__global__ void invert_kernel(gpuimg_dplanes srcs, gpuimg_dplanes dsts, size_t nbytes)
{
    const uint8_t *__restrict__ src = plane_at(srcs, blockIdx.y);
    uint8_t *__restrict__ dst = plane_at(dsts, blockIdx.y);
    size_t nquads = nbytes / 16, stride = (size_t)gridDim.x * MAP_THREADS;
    for (size_t i = (size_t)blockIdx.x * MAP_THREADS + threadIdx.x; i < nquads; i += stride) {
        uint4 q = reinterpret_cast<const uint4 *>(src)[i];
        reinterpret_cast<uint4 *>(dst)[i] = make_uint4(~q.x, ~q.y, ~q.z, ~q.w);
    }
    if (blockIdx.x == 0 && threadIdx.x < nbytes % 16) {
        size_t i = nquads * 16 + threadIdx.x;
        dst[i] = (uint8_t)~src[i];
    }
}

// ---- equalization's table ----

constexpr int SCAN_THREADS_8 = 256, SCAN_THREADS_16 = 1024; // bins per block
template <typename T> struct LutShape {
    static constexpr int BINS = 1 << (8 * sizeof(T));
    static constexpr int THREADS = sizeof(T) == 1 ? SCAN_THREADS_8 : SCAN_THREADS_16;
    static constexpr int BLOCKS = BINS / THREADS; // 1 or 64
    static_assert(BLOCKS <= 64, "equalize_lut_kernel's first warp reads every block's sum");
    static_assert(THREADS % 32 == 0 && THREADS / 32 <= 32, "the block scan's warp totals");
};

// The scratch after the table: per block of bins its total and first value.
template <typename T> struct LutAux {
    unsigned long long *total;
    int *first;
    __host__ __device__ static LutAux at(uint8_t *d_lut)
    {
        uint8_t *aux = d_lut + (size_t)LutShape<T>::BINS * sizeof(T);
        return LutAux{reinterpret_cast<unsigned long long *>(aux),
                      reinterpret_cast<int *>(aux + LutShape<T>::BLOCKS * 8)};
    }
};

// Block-wide inclusive sum of v over THREADS threads (all of them call it);
// *total gets the block's sum. s_warp: THREADS / 32 entries of scratch.
template <int THREADS>
__device__ __forceinline__ unsigned long long
block_scan(unsigned long long v, unsigned long long *s_warp, unsigned long long *total)
{
    const int lane = threadIdx.x & 31, warp = threadIdx.x / 32;
#pragma unroll
    for (int d = 1; d < 32; d <<= 1) {
        unsigned long long up = __shfl_up_sync(0xffffffffu, v, d);
        if (lane >= d)
            v += up;
    }
    if (lane == 31)
        s_warp[warp] = v;
    __syncthreads();
    if (warp == 0) {
        unsigned long long t = lane < THREADS / 32 ? s_warp[lane] : 0;
#pragma unroll
        for (int d = 1; d < 32; d <<= 1) {
            unsigned long long up = __shfl_up_sync(0xffffffffu, t, d);
            if (lane >= d)
                t += up;
        }
        if (lane < THREADS / 32)
            s_warp[lane] = t; // inclusive over warps
    }
    __syncthreads();
    unsigned long long before = warp > 0 ? s_warp[warp - 1] : 0;
    *total = s_warp[THREADS / 32 - 1];
    return v + before;
}

// Per block of bins: its total and the lowest value present in it (BINS
// when none).
template <typename T>
__global__ void __launch_bounds__(LutShape<T>::THREADS)
    equalize_sums_kernel(const unsigned long long *__restrict__ counts, uint8_t *d_lut)
{
    using S = LutShape<T>;
    __shared__ unsigned long long s_warp[S::THREADS / 32];
    __shared__ int s_first;
    const int v = blockIdx.x * S::THREADS + threadIdx.x;
    const unsigned long long c = counts[v];
    if (threadIdx.x == 0)
        s_first = S::BINS;
    unsigned long long total;
    block_scan<S::THREADS>(c, s_warp, &total); // its barriers also publish s_first
    if (c)
        atomicMin(&s_first, v);
    __syncthreads();
    if (threadIdx.x == 0) {
        LutAux<T> aux = LutAux<T>::at(d_lut);
        aux.total[blockIdx.x] = total;
        aux.first[blockIdx.x] = s_first;
    }
}

// One entry of the table below: cdf = cdf[v], n the pixels, v0 the lowest
// value present.
template <typename T>
__device__ __forceinline__ void write_lut_entry(const unsigned long long *__restrict__ counts,
                                                uint8_t *d_lut, int v, unsigned long long cdf,
                                                unsigned long long n, int v0)
{
    const unsigned long long base = v0 < LutShape<T>::BINS ? counts[v0] : 0, den = n - base;
    const unsigned long long M = value_max<T>();
    uint32_t out;
    if (den == 0)
        out = (uint32_t)v; // a one-value channel is unchanged
    else if (v < v0)
        out = 0;
    else
        out = (uint32_t)((2 * (cdf - base) * M + den) / (2 * den));
    reinterpret_cast<T *>(d_lut)[v] = (T)out;
}

// SPEC §3's table: lut[v] = (2 (cdf[v] - cdf[v0]) M + den) / (2 den), den =
// N - cdf[v0], v0 the lowest value present (so cdf[v0] = counts[v0]);
// absent values below v0 map to 0 (never looked up); a one-value channel
// (den = 0) is unchanged. Exact in 64 bits: cdf <= N < 2^32, so the
// numerator is below 2^33 x 65535 < 2^49.
template <typename T>
__global__ void __launch_bounds__(LutShape<T>::THREADS)
    equalize_lut_kernel(const unsigned long long *__restrict__ counts, uint8_t *d_lut)
{
    using S = LutShape<T>;
    __shared__ unsigned long long s_warp[S::THREADS / 32];
    __shared__ unsigned long long s_before, s_n;
    __shared__ int s_v0;
    const LutAux<T> aux = LutAux<T>::at(d_lut);
    const int v = blockIdx.x * S::THREADS + threadIdx.x;
    unsigned long long total;
    if constexpr (S::BLOCKS == 1) {
        // One block holds every bin (8 bits): the lowest value present and
        // the count come from this block's own scan, with no sums kernel
        // before it (its launch cost 3 us a channel, 7% of an 8K equalize).
        if (threadIdx.x == 0)
            s_v0 = S::BINS;
        __syncthreads();
        if (counts[v])
            atomicMin(&s_v0, v);
        unsigned long long cdf = block_scan<S::THREADS>(counts[v], s_warp, &total); // barriers
        write_lut_entry<T>(counts, d_lut, v, cdf, total, s_v0);
        return;
    }
    if (threadIdx.x < 32) {
        // The blocks before this one, all blocks, the lowest value present.
        const int lane = threadIdx.x;
        unsigned long long before = 0, n = 0;
        int v0 = S::BINS;
        for (int b = lane; b < S::BLOCKS; b += 32) {
            unsigned long long t = aux.total[b];
            n += t;
            before += b < (int)blockIdx.x ? t : 0;
            v0 = min(v0, aux.first[b]);
        }
        n = warp_reduce_sum_u64(n);
        before = warp_reduce_sum_u64(before);
        for (int offset = 16; offset > 0; offset >>= 1)
            v0 = min(v0, __shfl_down_sync(0xffffffffu, v0, offset));
        if (lane == 0) {
            s_before = before;
            s_n = n;
            s_v0 = v0;
        }
    }
    unsigned long long cdf = block_scan<S::THREADS>(counts[v], s_warp, &total); // barriers inside
    write_lut_entry<T>(counts, d_lut, v, cdf + s_before, s_n, s_v0);
}

template <typename T>
static cudaError_t build_lut(const unsigned long long *d_counts, uint8_t *d_lut,
                             cudaStream_t stream)
{
    using S = LutShape<T>;
    if (S::BLOCKS > 1) { /* one block finds its own sums */
        equalize_sums_kernel<T><<<S::BLOCKS, S::THREADS, 0, stream>>>(d_counts, d_lut);
        cudaError_t err = cudaGetLastError();
        if (err != cudaSuccess)
            return err;
    }
    equalize_lut_kernel<T><<<S::BLOCKS, S::THREADS, 0, stream>>>(d_counts, d_lut);
    return cudaGetLastError();
}

// ---- the lookups ----

// Equalization and map_lut: each value through the table.
template <typename T> struct LutMap {
    using V = Vec16<T>;
    const uint8_t *src;
    uint8_t *dst;
    struct Item {
        uint4 q;
    };
    __device__ Item load(size_t i) const
    {
        return Item{reinterpret_cast<const uint4 *>(src)[i]};
    }
    template <typename Table> __device__ void store(size_t i, const Item &it, Table table) const
    {
        uint32_t out[V::N];
#pragma unroll
        for (int k = 0; k < V::N; k++)
            out[k] = table[V::get(it.q, k)];
        reinterpret_cast<uint4 *>(dst)[i] = V::pack(out);
    }
    template <typename Table> __device__ void one(size_t i, Table table) const
    {
        reinterpret_cast<T *>(dst)[i] = (T)table[reinterpret_cast<const T *>(src)[i]];
    }
};

// equalize --luma's colour value: min(M, (2 c L + Y) / (2 Y)) for Y > 0, L
// = lut[Y], in integers (the CPU's 64-bit formula). A 64-bit division per
// value is a long subroutine; instead: the clamp is decided exactly first
// (the quotient exceeds M iff n >= (M + 1) 2Y), the quotient (then <= M <
// 2^16) is estimated in float (c, L, Y exact; one rounding in the FMA, one
// in the correctly rounded reciprocal and one in the product: relative error
// under 2^-22, so within 2^-6 of n / 2Y), and one remainder test corrects
// the estimate's floor, which is off by at most one. At 8 bits everything
// fits 32 bits (n < 2^18); at 16 bits n < 2^34 needs 64.
template <typename T>
__device__ __forceinline__ uint32_t luma_scale(uint32_t c, uint32_t L, uint32_t Y, float inv2y)
{
    using W = typename std::conditional<sizeof(T) == 1, uint32_t, uint64_t>::type;
    using SW = typename std::conditional<sizeof(T) == 1, int32_t, int64_t>::type;
    constexpr uint32_t M = value_max<T>();
    const W n = (W)2 * c * L + Y, d = (W)2 * Y;
    if (n >= (W)(M + 1) * d)
        return M;
    float nf = fmaf(2.0f * (float)c, (float)L, (float)Y);
    uint32_t q = __float2uint_rz(nf * inv2y);
    SW r = (SW)n - (SW)((W)q * d);
    if (r < 0)
        q--;
    else if (r >= (SW)d)
        q++;
    return q;
}

// equalize --luma: planes 0, 1, 2 (R, G, B) through the luma's table.
template <typename T> struct LumaMap {
    using V = Vec16<T>;
    const uint8_t *r, *g, *b;
    uint8_t *dr, *dg, *db;
    struct Item {
        uint4 r, g, b;
    };
    __device__ Item load(size_t i) const
    {
        return Item{reinterpret_cast<const uint4 *>(r)[i], reinterpret_cast<const uint4 *>(g)[i],
                    reinterpret_cast<const uint4 *>(b)[i]};
    }
    template <typename Table>
    __device__ static void pixel(uint32_t cr, uint32_t cg, uint32_t cb, Table table, uint32_t &or_,
                                 uint32_t &og, uint32_t &ob)
    {
        uint32_t Y = luma_value(cr, cg, cb), L = table[Y];
        if (Y == 0) {
            or_ = og = ob = L;
            return;
        }
        float inv2y = __frcp_rn((float)(2 * Y));
        or_ = luma_scale<T>(cr, L, Y, inv2y);
        og = luma_scale<T>(cg, L, Y, inv2y);
        ob = luma_scale<T>(cb, L, Y, inv2y);
    }
    template <typename Table> __device__ void store(size_t i, const Item &it, Table table) const
    {
        uint32_t o_r[V::N], o_g[V::N], o_b[V::N];
#pragma unroll
        for (int k = 0; k < V::N; k++)
            pixel(V::get(it.r, k), V::get(it.g, k), V::get(it.b, k), table, o_r[k], o_g[k], o_b[k]);
        reinterpret_cast<uint4 *>(dr)[i] = V::pack(o_r);
        reinterpret_cast<uint4 *>(dg)[i] = V::pack(o_g);
        reinterpret_cast<uint4 *>(db)[i] = V::pack(o_b);
    }
    template <typename Table> __device__ void one(size_t i, Table table) const
    {
        uint32_t o_r, o_g, o_b;
        pixel(reinterpret_cast<const T *>(r)[i], reinterpret_cast<const T *>(g)[i],
              reinterpret_cast<const T *>(b)[i], table, o_r, o_g, o_b);
        reinterpret_cast<T *>(dr)[i] = (T)o_r;
        reinterpret_cast<T *>(dg)[i] = (T)o_g;
        reinterpret_cast<T *>(db)[i] = (T)o_b;
    }
};

// The table as the lookups see it: shared memory, or (the fallback) global
// memory through the read-only cache.
template <typename T> struct SharedTable {
    const T *t;
    __device__ uint32_t operator[](uint32_t v) const
    {
        return t[v];
    }
};
template <typename T> struct GlobalTable {
    const T *t;
    __device__ uint32_t operator[](uint32_t v) const
    {
        return __ldg(t + v);
    }
};

// The lookup kernel: Map's items (one 16-byte vector per plane) through the
// table, two items in flight per thread. SHARED: the table is copied to
// shared memory first (dynamic, 1 << depth values).
template <typename T, typename Map, bool SHARED, int THREADS>
__global__ void __launch_bounds__(THREADS)
    table_map_kernel(Map map, const uint8_t *__restrict__ d_lut, size_t n)
{
    using V = Vec16<T>;
    extern __shared__ uint4 s_table[];
    const T *table = reinterpret_cast<const T *>(d_lut);
    if (SHARED) {
        constexpr int UNITS = (1 << (8 * sizeof(T))) * (int)sizeof(T) / 16;
        for (int i = threadIdx.x; i < UNITS; i += THREADS)
            s_table[i] = reinterpret_cast<const uint4 *>(d_lut)[i];
        __syncthreads();
        table = reinterpret_cast<const T *>(s_table);
    }
    using Table = typename std::conditional<SHARED, SharedTable<T>, GlobalTable<T>>::type;
    const Table lut{table};
    size_t nvec = n / V::N, stride = (size_t)gridDim.x * THREADS;
    for (size_t i = (size_t)blockIdx.x * THREADS + threadIdx.x; i < nvec; i += 2 * stride) {
        bool second = i + stride < nvec;
        typename Map::Item a = map.load(i), b = second ? map.load(i + stride) : a;
        map.store(i, a, lut);
        if (second)
            map.store(i + stride, b, lut);
    }
    if (blockIdx.x == 0 && threadIdx.x < n % V::N)
        map.one(nvec * V::N + threadIdx.x, lut);
}

template <typename T, typename Map>
static cudaError_t run_table_map(const Map &map, const uint8_t *d_lut, size_t n,
                                 cudaStream_t stream)
{
    size_t nvec = (n + Vec16<T>::N - 1) / Vec16<T>::N;
    if constexpr (sizeof(T) == 1) {
        table_map_kernel<T, Map, true, MAP_THREADS>
            <<<gpuimg__grid_for(nvec, MAP_THREADS), MAP_THREADS, 256, stream>>>(map, d_lut, n);
        return cudaGetLastError();
    } else {
        constexpr size_t TABLE = 65536 * sizeof(T);
        if ((size_t)gpuimg__device_shared_optin() < TABLE) {
            table_map_kernel<T, Map, false, MAP_THREADS>
                <<<gpuimg__grid_for(nvec, MAP_THREADS), MAP_THREADS, 0, stream>>>(map, d_lut, n);
            return cudaGetLastError();
        }
        cudaError_t err = smem_opt_in(table_map_kernel<T, Map, true, MAP16_THREADS>, TABLE);
        if (err != cudaSuccess)
            return err;
        // One block per SM (each copies the table once), none idle on a
        // small image.
        long long need = (long long)((nvec + 2 * MAP16_THREADS - 1) / (2 * MAP16_THREADS));
        long long sms = gpuimg__device_sms();
        int blocks = (int)(need < 1 ? 1 : need < sms ? need : (sms > 0 ? sms : 1));
        table_map_kernel<T, Map, true, MAP16_THREADS>
            <<<blocks, MAP16_THREADS, TABLE, stream>>>(map, d_lut, n);
        return cudaGetLastError();
    }
}

// ---- launchers ----

extern "C" cudaError_t gpuimg__cuda_grayscale(const uint8_t *d_r, const uint8_t *d_g,
                                              const uint8_t *d_b, uint8_t *d_dst, size_t n,
                                              int depth, cudaStream_t stream)
{
    if (n == 0)
        return cudaSuccess;
    return by_depth(depth, [&](auto v) {
        using T = decltype(v);
        size_t nvec = (n + Vec16<T>::N - 1) / Vec16<T>::N;
        grayscale_kernel<T><<<gpuimg__grid_for(nvec, MAP_THREADS), MAP_THREADS, 0, stream>>>(
            d_r, d_g, d_b, d_dst, n);
        return cudaGetLastError();
    });
}

extern "C" cudaError_t gpuimg__cuda_invert(gpuimg_dplanes d_src, gpuimg_dplanes d_dst, int planes,
                                           size_t n, int depth, cudaStream_t stream)
{
    if (n == 0 || planes == 0)
        return cudaSuccess;
    if (depth != 8 && depth != 16)
        return cudaErrorInvalidValue;
    size_t nbytes = n * (depth == 16 ? 2 : 1);
    int blocks = (gpuimg__grid_for((nbytes + 15) / 16, MAP_THREADS) + planes - 1) / planes;
    invert_kernel<<<dim3(blocks, planes), MAP_THREADS, 0, stream>>>(d_src, d_dst, nbytes);
    return cudaGetLastError();
}

// The table, then LutAux's sums and first values, rounded to 256 bytes so
// that one plane's scratch after another's stays aligned.
extern "C" size_t gpuimg__cuda_equalize_scratch(int depth)
{
    size_t bytes = depth == 16
                       ? (size_t)LutShape<uint16_t>::BINS * 2 + LutShape<uint16_t>::BLOCKS * 12
                       : (size_t)LutShape<uint8_t>::BINS + LutShape<uint8_t>::BLOCKS * 12;
    return (bytes + 255) / 256 * 256;
}

extern "C" cudaError_t gpuimg__cuda_equalize(const uint8_t *d_src, uint8_t *d_dst, size_t n,
                                             int depth, const unsigned long long *d_counts,
                                             uint8_t *d_lut, cudaStream_t stream)
{
    if (n == 0)
        return cudaSuccess;
    return by_depth(depth, [&](auto v) {
        using T = decltype(v);
        cudaError_t err = build_lut<T>(d_counts, d_lut, stream);
        if (err != cudaSuccess)
            return err;
        return run_table_map<T>(LutMap<T>{d_src, d_dst}, d_lut, n, stream);
    });
}

extern "C" cudaError_t gpuimg__cuda_equalize_luma(gpuimg_dplanes d_src, gpuimg_dplanes d_dst,
                                                  size_t n, int depth,
                                                  const unsigned long long *d_counts,
                                                  uint8_t *d_lut, cudaStream_t stream)
{
    if (n == 0)
        return cudaSuccess;
    return by_depth(depth, [&](auto v) {
        using T = decltype(v);
        cudaError_t err = build_lut<T>(d_counts, d_lut, stream);
        if (err != cudaSuccess)
            return err;
        LumaMap<T> map{d_src.p[0], d_src.p[1], d_src.p[2], d_dst.p[0], d_dst.p[1], d_dst.p[2]};
        return run_table_map<T>(map, d_lut, n, stream);
    });
}

// The table is the op's (built on the host, copied by the backend); the
// lookup is equalization's, LutMap through the same table kernel.
extern "C" cudaError_t gpuimg__cuda_map_lut(const uint8_t *d_src, uint8_t *d_dst, size_t n,
                                            int depth, const uint8_t *d_lut, cudaStream_t stream)
{
    if (n == 0)
        return cudaSuccess;
    return by_depth(depth, [&](auto v) {
        using T = decltype(v);
        return run_table_map<T>(LutMap<T>{d_src, d_dst}, d_lut, n, stream);
    });
}

// ---- fill, widen, unsharp: one value per thread, grid-stride ----
// (a padded canvas, and unsharp's ends around the float blur: small next
// to the resize or blur beside them, so the plain coalesced form)

__global__ void fill16_kernel(uint16_t *__restrict__ dst, size_t n, uint16_t value)
{
    for (size_t i = (size_t)blockIdx.x * MAP_THREADS + threadIdx.x; i < n;
         i += (size_t)gridDim.x * MAP_THREADS)
        dst[i] = value;
}

template <typename T>
__global__ void widen_kernel(const T *__restrict__ src, float *__restrict__ dst, size_t n)
{
    for (size_t i = (size_t)blockIdx.x * MAP_THREADS + threadIdx.x; i < n;
         i += (size_t)gridDim.x * MAP_THREADS)
        dst[i] = (float)src[i];
}

// v = in + amount (in - b) where |in - b| > threshold, each operation
// rounded apart as the CPU's (no FMA contraction there)
template <typename T>
__global__ void unsharp_kernel(const T *__restrict__ src, const float *__restrict__ blurred,
                               T *__restrict__ dst, size_t n, float amount, float threshold)
{
    for (size_t i = (size_t)blockIdx.x * MAP_THREADS + threadIdx.x; i < n;
         i += (size_t)gridDim.x * MAP_THREADS) {
        float in = (float)src[i], d = __fsub_rn(in, blurred[i]);
        float v = fabsf(d) > threshold ? __fadd_rn(in, __fmul_rn(amount, d)) : in;
        dst[i] = store_value<T>(v);
    }
}

extern "C" cudaError_t gpuimg__cuda_fill16(uint8_t *d_dst, size_t n, uint16_t value,
                                           cudaStream_t stream)
{
    if (n == 0)
        return cudaSuccess;
    fill16_kernel<<<gpuimg__grid_for(n, MAP_THREADS), MAP_THREADS, 0, stream>>>(
        reinterpret_cast<uint16_t *>(d_dst), n, value);
    return cudaGetLastError();
}

extern "C" cudaError_t gpuimg__cuda_widen(const uint8_t *d_src, uint8_t *d_dst, size_t n, int depth,
                                          cudaStream_t stream)
{
    if (n == 0)
        return cudaSuccess;
    return by_depth(depth, [&](auto v) {
        using T = decltype(v);
        widen_kernel<T><<<gpuimg__grid_for(n, MAP_THREADS), MAP_THREADS, 0, stream>>>(
            reinterpret_cast<const T *>(d_src), reinterpret_cast<float *>(d_dst), n);
        return cudaGetLastError();
    });
}

extern "C" cudaError_t gpuimg__cuda_unsharp(const uint8_t *d_src, const uint8_t *d_blurred,
                                            uint8_t *d_dst, size_t n, int depth, float amount,
                                            float threshold, cudaStream_t stream)
{
    if (n == 0)
        return cudaSuccess;
    return by_depth(depth, [&](auto v) {
        using T = decltype(v);
        unsharp_kernel<T><<<gpuimg__grid_for(n, MAP_THREADS), MAP_THREADS, 0, stream>>>(
            reinterpret_cast<const T *>(d_src), reinterpret_cast<const float *>(d_blurred),
            reinterpret_cast<T *>(d_dst), n, amount, threshold);
        return cudaGetLastError();
    });
}
