// SPDX-License-Identifier: MIT
// SSIM, compare's one figure worth a device (the rest of a comparison is a
// pass on the host, src/compare.c).
//
// SSIM follows the CPU reference (src/cpu/ssim.c): only pixels at least
// SSIM_RADIUS from every edge that are not ignored are summed, and their
// 11 x 11 windows lie
// inside the image, so no border is ever read. One fused kernel per plane:
// a block stages its tile of a and b plus the 5-pixel halo in shared memory,
// runs the horizontal Gaussian pass for the five quantities (x, y, x², y²,
// xy) into shared memory, then the vertical pass, evaluates SSIM per pixel
// and adds the block's total into one double atomic. Nothing goes through
// global memory but the two images.
//
// Precision. The figure must match the float64 reference to 1e-9, and the
// variances are differences of ~65025-sized terms (x² window sum minus the
// squared mean), so every window sum is accumulated in double: float would
// leave errors of ~1e-2 in the variances. The arithmetic is arranged so the
// double work is the minimum the separable filter needs:
//  - the window is symmetric, so the horizontal pass first adds the two
//    pixels (or squares, or products) at equal distance from the centre in
//    exact integers, halving the double multiply-adds (6 instead of 11);
//  - those integers (n < 2^9 for x, y; n < 2^17 for the products) become
//    doubles without a conversion instruction (64-bit conversions run at a
//    quarter of the DFMA rate): n shifted into the high word of 2^k gives
//    exactly 2^k + n. The constant 2^k rides through both passes as a known
//    offset (2^k · Σ pair weights · Σ g) subtracted once per pixel; it keeps
//    the magnitudes where the reference's own are, so the rounding stays at
//    ~1e-11 on the second moments and ~1e-13 on the means;
//  - the vertical pass keeps 11 taps in double (its inputs are no longer
//    integers); each thread runs down a strip of SSIM_STRIP rows so that
//    every value it loads feeds up to 11 outputs from registers;
//  - the per-pixel quotient uses the hardware reciprocal estimate refined by
//    one cubic Newton step (relative error far below 1e-15 of a value <= 1).
// Per output pixel that is 30 · 40/30 (horizontal, halo rows included) + 55
// (vertical) + ~25 (SSIM) ≈ 121 double instructions (counted in the SASS).
//
// 16 bits (ssim_kernel<uint16_t>). SSIM with L = 65535 is SSIM of v / 257
// with L = 255: every term of the quotient scales by 257², the constants
// with L². So the kernel runs on the raw values with c1 and c2 times 257²
// (SsimParams), which is the same figure (to rounding, ~1e-16 relative)
// without a division per value. The staged rows hold 16-bit values; the
// pair sums of x and y (< 2^17) ride in 2^17 + n the same way as above, but
// the pair sums of the squares and products reach 2 · 65535² > 2^33, past
// a double's high word, and an offset of 2^52 riding through the passes
// would cost the second moments their fractional bits. Those become exact
// doubles at once instead (exact_pair: 2^52 + n built from the two words,
// minus 2^52, one DADD), so the second moments carry no offset at all.
#include "device.cuh"
#include "kernels.h"

constexpr int SSIM_RADIUS = GPUIMG_SSIM_RADIUS;
constexpr int SSIM_TAPS = GPUIMG_SSIM_TAPS;

// ---- SSIM ----

// A block computes SSIM_TILE_W x SSIM_TILE_H output pixels (indices into the
// inner region, whose windows start at the same image coordinates). The
// horizontal pass covers the tile's SSIM_ROWS input rows in items of
// SSIM_GROUP adjacent outputs, SSIM_ITEMS_PER_THREAD per thread (one at a
// time: a larger item keeps too many doubles live and spills); the vertical
// pass gives each thread one column and a strip of SSIM_STRIP rows.
constexpr int SSIM_TILE_W = 32, SSIM_TILE_H = 30, SSIM_THREADS = 160;
constexpr int SSIM_ROWS = SSIM_TILE_H + 2 * SSIM_RADIUS;
constexpr int SSIM_GROUP = 4, SSIM_SPAN = SSIM_GROUP + 2 * SSIM_RADIUS; // inputs per item
constexpr int SSIM_GROUPS = SSIM_TILE_W / SSIM_GROUP;                   // items per row
constexpr int SSIM_ITEMS_PER_THREAD = SSIM_ROWS * SSIM_GROUPS / SSIM_THREADS;
constexpr int SSIM_STRIP = 6;
constexpr int SSIM_IN_W = 48;               // staged values per row and image (>= TILE_W + 10)
constexpr int SSIM_PAIRS = SSIM_RADIUS + 1; // distinct horizontal weights
constexpr int SSIM_QUANTITIES = 5;          // x, y, x², y², xy
// Staged bytes per row, a then b: 96 at 8 bits keeps the item loads
// conflict-free; 192 at 16 bits, where a warp's item loads (4 rows x 8
// groups, 2 words apart) fall on 16 even or odd banks: 2-way, a small part
// of the kernel's time, which is its doubles.
template <typename T> __host__ __device__ constexpr int ssim_in_stride()
{
    return 2 * SSIM_IN_W * (int)sizeof(T);
}
static_assert(SSIM_TILE_W == 32, "the vertical pass maps one warp to the tile's columns, and the "
                                 "shared-memory swizzle assumes 16 chunks of two doubles per row");
static_assert(SSIM_ITEMS_PER_THREAD * SSIM_THREADS == SSIM_ROWS * SSIM_GROUPS,
              "the horizontal items divide evenly among the threads");
static_assert(SSIM_TILE_W * (SSIM_TILE_H / SSIM_STRIP) == SSIM_THREADS &&
                  SSIM_TILE_H % SSIM_STRIP == 0,
              "one vertical strip each");
static_assert(SSIM_GROUP == 4 && SSIM_SPAN <= 16 && (SSIM_GROUPS - 1) * 4 + 16 <= SSIM_IN_W,
              "an item reads 16 values per image (four or eight words), inside the staged row");
static_assert(SSIM_TILE_W + 2 * SSIM_RADIUS <= SSIM_IN_W, "the staged row holds the halo");

template <typename T> __host__ __device__ constexpr size_t ssim_shared()
{
    return (size_t)SSIM_QUANTITIES * SSIM_ROWS * SSIM_TILE_W * sizeof(double) +
           (size_t)SSIM_ROWS * ssim_in_stride<T>() + SSIM_THREADS / 32 * sizeof(double);
}

// Offsets of the exact-conversion trick. 8 bits: pair sums of x or y are <
// 2^9 and ride in 2^9 + n; pair sums of x², y², xy are <= 2 · 255² < 2^17
// and ride in 2^17 + n. 16 bits: pair sums of x or y are < 2^17 and ride in
// 2^17 + n; the squares take exact_pair (above). Each per-pixel value
// carries half the constant, so the sum of a pair is the high word of the
// double 2^k + n (low word 0).
template <typename T> struct SsimBits;
template <> struct SsimBits<uint8_t> {
    static constexpr unsigned int HI_MEAN = 0x40800000u; // high word of 2^9
    static constexpr int SHIFT_MEAN = 52 - 32 - 9;       // n's place in the high word of 2^9 + n
    static constexpr double MEAN_OFFSET = 512.0;         // 2^9
    static constexpr unsigned int HI_SQ = 0x41000000u;   // high word of 2^17
    static constexpr int SHIFT_SQ = 52 - 32 - 17;
    static constexpr double SQ_OFFSET = 131072.0; // 2^17
};
template <> struct SsimBits<uint16_t> {
    static constexpr unsigned int HI_MEAN = 0x41000000u; // high word of 2^17
    static constexpr int SHIFT_MEAN = 52 - 32 - 17;
    static constexpr double MEAN_OFFSET = 131072.0;
    static constexpr double SQ_OFFSET = 0.0; // exact, no offset
};
static_assert(2 * 255 < (1 << 9) && 2 * 255 * 255 < (1 << 17) && 2 * 65535 < (1 << 17),
              "pair sums fit their offsets");

// The window and the constants derived from it, by value: every launch
// carries its own copy (a __constant__ array would be shared by the threads
// of a batch).
struct SsimParams {
    double g[SSIM_TAPS];     // vertical taps
    double pair[SSIM_PAIRS]; // horizontal: pair[d] weighs x[c-d] + x[c+d]; pair[0] = g[5]/2
    double mean_offset;      // what 2^9 (16 bits: 2^17) adds to a finished x or y window sum
    double sq_offset;        // what 2^17 adds to a finished x², y² or xy window sum (16 bits: 0)
    double c1;               // (K1 L)², at 16 bits in raw units (times 257²)
    double k_den2;           // c1 + c2 - 2 sq_offset
    double k_num2;           // c2 - 2 sq_offset
};

__device__ __forceinline__ double with_high_word(unsigned int hi)
{
    return __hiloint2double((int)hi, 0);
}

// x + y (each < 2^32) as an exact double: 2^52 + (x + y), whose mantissa
// takes the 33-bit sum whole (the carry in bit 0 of the high word's
// mantissa), minus 2^52.
__device__ __forceinline__ double exact_pair(unsigned int x, unsigned int y)
{
    unsigned int lo = x + y, carry = lo < x;
    return __hiloint2double((int)(0x43300000u + carry), (int)lo) - 4503599627370496.0;
}

// The symmetric window sums of one row item: for each of the group's
// outputs, pair[0] times the centre, then pair[d] times the values d either
// side, fused in that order. pair_value(x, y) turns two of the row's values
// into the double their sum stands for (MeanPair or MomentPair, below).
template <typename PairValue>
__device__ __forceinline__ void symmetric_sums(const unsigned int v[SSIM_SPAN], const SsimParams &p,
                                               PairValue pair_value, double s[SSIM_GROUP])
{
#pragma unroll
    for (int k = 0; k < SSIM_GROUP; k++) {
        int c = k + SSIM_RADIUS;
        s[k] = p.pair[0] * pair_value(v[c], v[c]);
#pragma unroll
        for (int d = 1; d < SSIM_PAIRS; d++)
            s[k] = fma(p.pair[d], pair_value(v[c - d], v[c + d]), s[k]);
    }
}

// The pair values, as types so that each call inlines: the means' pairs
// (2^k + x and 2^k + y: their high word's sum) and the second moments'.
struct MeanPair {
    __device__ __forceinline__ double operator()(unsigned int x, unsigned int y) const
    {
        return with_high_word(x + y);
    }
};
struct MomentPair {
    __device__ __forceinline__ double operator()(unsigned int x, unsigned int y) const
    {
        return exact_pair(x, y);
    }
};

// Where chunk c (columns 2c, 2c + 1) of a row of the shared planes lives:
// at chunk c ^ (bit 3 of c). A row stays one contiguous 256-byte span, so the
// vertical pass's row reads are conflict-free; in the horizontal stores (a
// quarter-warp writes one chunk for each of the 8 items of a row) items 0-3
// land on even and items 4-7 on odd 16-byte bank groups.
__device__ __forceinline__ int ssim_chunk(int c)
{
    return c ^ ((c >> 3) & 1);
}

// A group's sums of quantity q into its two-double chunks of the plane.
__device__ __forceinline__ void store_group(double *dst, int q, int group,
                                            const double s[SSIM_GROUP])
{
    double2 *plane = reinterpret_cast<double2 *>(dst + q * SSIM_ROWS * SSIM_TILE_W);
#pragma unroll
    for (int k = 0; k < SSIM_GROUP / 2; k++)
        plane[ssim_chunk(SSIM_GROUP / 2 * group + k)] = make_double2(s[2 * k], s[2 * k + 1]);
}

// Horizontal pass of one item: the five window sums (offset, see above) of
// SSIM_GROUP adjacent outputs from the SSIM_SPAN staged bytes of a and b,
// stored to row `row` of the five shared planes. Reads s_in, writes s_h;
// the caller holds the barriers.
__device__ __forceinline__ void ssim_row_item(const uint8_t *s_row, int group, int row, double *s_h,
                                              const SsimParams &p, uint8_t)
{
    using B = SsimBits<uint8_t>;
    const unsigned int *wa = reinterpret_cast<const unsigned int *>(s_row + group * SSIM_GROUP);
    const unsigned int *wb =
        reinterpret_cast<const unsigned int *>(s_row + SSIM_IN_W + group * SSIM_GROUP);
    unsigned int ra[4], rb[4];
#pragma unroll
    for (int k = 0; k < 4; k++)
        ra[k] = wa[k], rb[k] = wb[k];
    unsigned int a[SSIM_SPAN], b[SSIM_SPAN];
#pragma unroll
    for (int i = 0; i < SSIM_SPAN; i++) {
        a[i] = __byte_perm(ra[i / 4], 0, 0x4440 + i % 4);
        b[i] = __byte_perm(rb[i / 4], 0, 0x4440 + i % 4);
    }
    double *dst = s_h + row * SSIM_TILE_W;
#pragma unroll
    for (int q = 0; q < SSIM_QUANTITIES; q++) {
        unsigned int v[SSIM_SPAN];
#pragma unroll
        for (int i = 0; i < SSIM_SPAN; i++) {
            switch (q) {
            case 0: v[i] = (a[i] << B::SHIFT_MEAN) + B::HI_MEAN / 2; break;
            case 1: v[i] = (b[i] << B::SHIFT_MEAN) + B::HI_MEAN / 2; break;
            case 2: v[i] = ((a[i] * a[i]) << B::SHIFT_SQ) + B::HI_SQ / 2; break;
            case 3: v[i] = ((b[i] * b[i]) << B::SHIFT_SQ) + B::HI_SQ / 2; break;
            default: v[i] = ((a[i] * b[i]) << B::SHIFT_SQ) + B::HI_SQ / 2; break;
            }
        }
        double s[SSIM_GROUP];
        symmetric_sums(v, p, MeanPair(), s);
        store_group(dst, q, group, s);
    }
}

// The same at 16 bits: 14 values of a and of b from seven words each; the
// means ride in 2^17 + n, the second moments' pair sums are exact doubles.
__device__ __forceinline__ void ssim_row_item(const uint8_t *s_row, int group, int row, double *s_h,
                                              const SsimParams &p, uint16_t)
{
    using B = SsimBits<uint16_t>;
    constexpr int WORDS = (SSIM_SPAN + 1) / 2;
    const unsigned int *wa = reinterpret_cast<const unsigned int *>(s_row) + group * SSIM_GROUP / 2;
    const unsigned int *wb =
        reinterpret_cast<const unsigned int *>(s_row + SSIM_IN_W * 2) + group * SSIM_GROUP / 2;
    unsigned int ra[WORDS], rb[WORDS];
#pragma unroll
    for (int k = 0; k < WORDS; k++)
        ra[k] = wa[k], rb[k] = wb[k];
    unsigned int a[SSIM_SPAN], b[SSIM_SPAN];
#pragma unroll
    for (int i = 0; i < SSIM_SPAN; i++) {
        a[i] = (ra[i / 2] >> (16 * (i % 2))) & 0xffffu;
        b[i] = (rb[i / 2] >> (16 * (i % 2))) & 0xffffu;
    }
    double *dst = s_h + row * SSIM_TILE_W;
#pragma unroll
    for (int q = 0; q < SSIM_QUANTITIES; q++) {
        double s[SSIM_GROUP];
        if (q < 2) {
            unsigned int v[SSIM_SPAN];
#pragma unroll
            for (int i = 0; i < SSIM_SPAN; i++)
                v[i] = ((q == 0 ? a[i] : b[i]) << B::SHIFT_MEAN) + B::HI_MEAN / 2;
            symmetric_sums(v, p, MeanPair(), s);
        } else {
            unsigned int v[SSIM_SPAN]; // squares and products: < 2^32
#pragma unroll
            for (int i = 0; i < SSIM_SPAN; i++)
                v[i] = q == 2 ? a[i] * a[i] : q == 3 ? b[i] * b[i] : a[i] * b[i];
            symmetric_sums(v, p, MomentPair(), s);
        }
        store_group(dst, q, group, s);
    }
}

// SSIM of one pixel from its five offset window sums m (x, y, x², y², xy),
// as the reference: ((2 ux uy + c1)(2 vxy + c2)) / ((ux² + uy² + c1)(vx + vy + c2)).
__device__ __forceinline__ double ssim_pixel(const double m[SSIM_QUANTITIES], const SsimParams &p)
{
    const double c1 = p.c1;
    double ux = m[0] - p.mean_offset, uy = m[1] - p.mean_offset;
    double uxuy = ux * uy;
    double num1 = fma(2.0, uxuy, c1);
    double den1 = fma(ux, ux, fma(uy, uy, c1));
    double den2 = (m[2] + m[3] + p.k_den2) - den1;           // vx + vy + c2
    double num2 = fma(-2.0, uxuy, fma(2.0, m[4], p.k_num2)); // 2 vxy + c2
    double num = num1 * num2, den = den1 * den2;
    // den >= c1 · c2 > 0, no denormals. One step r (1 + e + e²), e = 1 - den r,
    // cubes the estimate's relative error (2^-16 or better becomes < 2^-48).
    double r;
    asm("rcp.approx.ftz.f64 %0, %1;" : "=d"(r) : "d"(den));
    double e = fma(-den, r, 1.0);
    r = fma(r, fma(e, e, e), r);
    return num * r;
}

template <typename T>
__global__ void __launch_bounds__(SSIM_THREADS, 4)
    ssim_kernel(const uint8_t *__restrict__ a_bytes, const uint8_t *__restrict__ b_bytes,
                const uint8_t *__restrict__ ignore, int w, int h, double *__restrict__ total,
                const SsimParams p)
{
    constexpr int IN_STRIDE = ssim_in_stride<T>();
    extern __shared__ double2 s_raw[];               // 16-byte aligned
    double *s_h = reinterpret_cast<double *>(s_raw); // [quantity][SSIM_ROWS][SSIM_TILE_W]
    uint8_t *s_in = reinterpret_cast<uint8_t *>(s_h + SSIM_QUANTITIES * SSIM_ROWS * SSIM_TILE_W);
    double *s_warps = reinterpret_cast<double *>(s_in + SSIM_ROWS * IN_STRIDE);
    const T *a = reinterpret_cast<const T *>(a_bytes), *b = reinterpret_cast<const T *>(b_bytes);

    int inner_w = w - 2 * SSIM_RADIUS, inner_h = h - 2 * SSIM_RADIUS;
    int x0 = blockIdx.x * SSIM_TILE_W, y0 = blockIdx.y * SSIM_TILE_H;
    int tid = threadIdx.x;

    // 1. Stage the tile and its halo: image columns x0 .. x0 + 47, rows
    // y0 .. y0 + SSIM_ROWS - 1, zero outside the image (those values only
    // reach outputs outside the inner region, which are not counted). A
    // word holds 4 (8 bits) or 2 (16 bits) values.
    constexpr int WORDS = IN_STRIDE / 4, PER_WORD = 4 / (int)sizeof(T);
    for (int i = tid; i < SSIM_ROWS * WORDS; i += SSIM_THREADS) {
        int row = i / WORDS, word = i % WORDS;
        const T *img = word < WORDS / 2 ? a : b;
        int x = x0 + PER_WORD * (word % (WORDS / 2)), y = y0 + row;
        unsigned int v = 0;
        if (y < h) {
            const T *src = img + (size_t)y * (size_t)w;
#pragma unroll
            for (int k = 0; k < PER_WORD; k++)
                if (x + k < w)
                    v |= (unsigned int)__ldg(src + x + k) << (8 * (int)sizeof(T) * k);
        }
        reinterpret_cast<unsigned int *>(s_in)[i] = v;
    }
    __syncthreads();

    // 2. Horizontal pass: items (row, group of SSIM_GROUP outputs), one at a time.
#pragma unroll 1
    for (int item = tid; item < SSIM_ROWS * SSIM_GROUPS; item += SSIM_THREADS) {
        int row = item / SSIM_GROUPS, group = item % SSIM_GROUPS;
        ssim_row_item(s_in + row * IN_STRIDE, group, row, s_h, p, T());
    }
    __syncthreads();

    // 3. Vertical pass: column col, output rows r0 .. r0 + SSIM_STRIP - 1,
    // reading rows r0 .. r0 + SSIM_STRIP + 9 once each.
    int col = tid % SSIM_TILE_W, r0 = (tid / SSIM_TILE_W) * SSIM_STRIP;
    int slot = 2 * ssim_chunk(col >> 1) + (col & 1);
    double m[SSIM_STRIP][SSIM_QUANTITIES];
#pragma unroll
    for (int j = 0; j < SSIM_STRIP + SSIM_TAPS - 1; j++) {
        const double *src = s_h + (r0 + j) * SSIM_TILE_W + slot;
#pragma unroll
        for (int q = 0; q < SSIM_QUANTITIES; q++) {
            double v = src[q * SSIM_ROWS * SSIM_TILE_W];
#pragma unroll
            for (int k = 0; k < SSIM_STRIP; k++) {
                int t = j - k;
                if (t == 0)
                    m[k][q] = p.g[0] * v;
                else if (t > 0 && t < SSIM_TAPS)
                    m[k][q] = fma(p.g[t], v, m[k][q]);
            }
        }
    }
    double value = 0.0;
    if (x0 + col < inner_w) {
#pragma unroll
        for (int k = 0; k < SSIM_STRIP; k++) {
            // the pixel's image coordinates are its inner ones plus the radius
            size_t at = (size_t)(y0 + r0 + k + SSIM_RADIUS) * (size_t)w + x0 + col + SSIM_RADIUS;
            if (y0 + r0 + k < inner_h && !(ignore && __ldg(ignore + at)))
                value += ssim_pixel(m[k], p);
        }
    }

    value = warp_reduce_sum_f64(value);
    if ((tid & 31) == 0)
        s_warps[tid / 32] = value;
    __syncthreads();
    if (tid == 0) {
        double block = 0.0;
        for (int k = 0; k < SSIM_THREADS / 32; k++)
            block += s_warps[k];
        atomicAdd(total, block);
    }
}

template <typename T>
static cudaError_t launch_ssim(const uint8_t *d_a, const uint8_t *d_b, const uint8_t *d_ignore,
                               int w, int h, double *d_ssim_sum, cudaStream_t stream)
{
    using B = SsimBits<T>;
    SsimParams p;
    gpuimg__ssim_window(p.g);
    double pairs = 0.0, taps = 0.0;
    for (int d = 0; d < SSIM_PAIRS; d++) {
        p.pair[d] = d == 0 ? p.g[SSIM_RADIUS] / 2 : p.g[SSIM_RADIUS - d];
        pairs += p.pair[d];
    }
    for (int k = 0; k < SSIM_TAPS; k++)
        taps += p.g[k];
    // At 16 bits the constants in raw units: (K L)² with L = 65535 = 257 x 255.
    const double scale = sizeof(T) == 1 ? 1.0 : 257.0 * 257.0;
    const double c1 = GPUIMG_SSIM_C1 * scale, c2 = GPUIMG_SSIM_C2 * scale;
    p.c1 = c1;
    p.mean_offset = B::MEAN_OFFSET * pairs * taps;
    p.sq_offset = B::SQ_OFFSET * pairs * taps;
    p.k_den2 = c1 + c2 - 2 * p.sq_offset;
    p.k_num2 = c2 - 2 * p.sq_offset;
    constexpr size_t shared = ssim_shared<T>();
    cudaError_t err = smem_opt_in(ssim_kernel<T>, shared);
    if (err != cudaSuccess)
        return err;
    dim3 grid(ceil_div(w - 2 * SSIM_RADIUS, SSIM_TILE_W),
              ceil_div(h - 2 * SSIM_RADIUS, SSIM_TILE_H));
    ssim_kernel<T><<<grid, SSIM_THREADS, shared, stream>>>(d_a, d_b, d_ignore, w, h, d_ssim_sum, p);
    return cudaGetLastError();
}

extern "C" cudaError_t gpuimg__cuda_ssim(const uint8_t *d_a, const uint8_t *d_b,
                                         const uint8_t *d_ignore, int w, int h, int depth,
                                         double *d_ssim_sum, cudaStream_t stream)
{
    if (w < SSIM_TAPS || h < SSIM_TAPS)
        return cudaSuccess;
    return by_depth(depth, [&](auto v) {
        using T = decltype(v);
        return launch_ssim<T>(d_a, d_b, d_ignore, w, h, d_ssim_sum, stream);
    });
}
