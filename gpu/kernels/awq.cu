// SPDX-License-Identifier: MIT
// AWQ's scale search on the device (kernels_awq.h; docs/numerics.md "AWQ"): the CPU's arithmetic
// (core/quant/awq.cpp) with explicitly rounded operations. Sums whose order decides bits (x̄, w̄) run
// one thread per column in the CPU's row order; min/max are exact in any order; the loss's FP64
// reduction has a fixed order independent of the device. CUDA builds (the product X·Dᵀ is cuBLAS's).
#define QS_HD __host__ __device__

#include "kernel_common.cuh"
#include "kernels_awq.h"
#include "quant/awq_math.h"

namespace quantscope::gpu::launch {

namespace {

constexpr int kAThreads = 256;
constexpr unsigned kFull = 0xFFFFFFFFu;
constexpr unsigned kNoMin = 0xFFFFFFFFu; // no finite key is all ones or zero (those are NaNs)
constexpr unsigned kNoMax = 0u;

bool g_awqGenericRows = false; // awqUseGenericRows: the benchmark's switch to time kRows alone
bool g_awqOverlap = true;      // awqUseOverlap

/// W·diag(s) at column c, rounded to FP32: the CPU's static_cast<float>(double(w) · s_c).
__device__ __forceinline__ float scaledAt(float x, double s)
{
    return __double2float_rn(__dmul_rn(static_cast<double>(x), s));
}

__global__ void kResetWords(AwqWords *w)
{
    w->firstBadW = ~0ull;
    w->firstBadWs = ~0ull;
    w->badGroups = 0;
    w->tensorMaxAbs = 0;
    w->tmin = kNoMin;
    w->tmax = kNoMax;
    w->tbad = 0;
}

__global__ void __launch_bounds__(kAThreads)
    kActivationMeans(const float *x, long long r, long long k, float *xMean, double *x64)
{
    const long long j = static_cast<long long>(blockIdx.x) * kAThreads + threadIdx.x;
    if (j >= k)
        return;
    double sum = 0;
    for (long long i = 0; i < r; ++i) {
        const float v = x[i * k + j];
        x64[i * k + j] = static_cast<double>(v);
        sum = __dadd_rn(sum, fabs(static_cast<double>(v)));
    }
    xMean[j] = __fdiv_rn(__double2float_rn(sum), static_cast<float>(r));
}

/// One warp per (row, chunk): max |w| (and the first non-finite W).
template <int IN>
__global__ void __launch_bounds__(kAThreads) kChunkMax(const void *w, long long n, long long k, long long chunk,
                                                       long long chunks, bool tensor, float *chunkMax, AwqWords *words)
{
    const int lane = threadIdx.x & 31;
    const long long warps = static_cast<long long>(gridDim.x) * (kAThreads / 32);
    for (long long p = static_cast<long long>(blockIdx.x) * (kAThreads / 32) + threadIdx.x / 32; p < n * chunks;
         p += warps) {
        const long long r = p / chunks, c0 = (p % chunks) * chunk, c1 = c0 + chunk < k ? c0 + chunk : k;
        float m = 0.0f;
        for (long long c = c0 + lane; c < c1; c += 32) {
            const float v = decode1<IN>(w, r * k + c);
            if (!qmath::isFinite(v))
                QS_ATOMIC_MIN(&words->firstBadW, static_cast<unsigned long long>(r * k + c));
            const float a = fabsf(v);
            m = a > m ? a : m;
        }
#pragma unroll
        for (int off = 16; off > 0; off >>= 1) {
            const float o = __shfl_xor_sync(kFull, m, off);
            m = o > m ? o : m;
        }
        if (lane == 0) {
            chunkMax[p] = m;
            if (tensor)
                QS_ATOMIC_MAX(&words->tensorMaxAbs, __float_as_uint(m)); // m ≥ 0: bits order as values
        }
    }
}

/// One thread per (column, segment of kAwqSegmentRows rows): the segment's Σ FP32(|w_rc| / FP32(max +
/// 1e-6)) in FP64 in row order from 0 (core/quant/awq.cpp awqWeightMeans' order).
template <int IN>
__global__ void __launch_bounds__(128)
    kColumnMeans(const void *w, long long n, long long k, long long chunk, long long chunks, bool tensor,
                 const float *chunkMax, const AwqWords *words, double *partials)
{
    const long long c = static_cast<long long>(blockIdx.x) * 128 + threadIdx.x;
    if (c >= k)
        return;
    const long long seg = blockIdx.y, r0 = seg * kAwqSegmentRows,
                    r1 = r0 + kAwqSegmentRows < n ? r0 + kAwqSegmentRows : n;
    const long long ci = c / chunk;
    const float tmax = __uint_as_float(words->tensorMaxAbs);
    double sum = 0;
    for (long long r = r0; r < r1; ++r) {
        const float a = fabsf(decode1<IN>(w, r * k + c));
        const float m = tensor ? tmax : chunkMax[r * chunks + ci];
        sum = __dadd_rn(sum, static_cast<double>(__fdiv_rn(a, __fadd_rn(m, 1e-6f))));
    }
    partials[seg * k + c] = sum;
}

/// w̄_c = (the segments' sums added in order, from 0) / n.
__global__ void __launch_bounds__(128)
    kColumnMeansFinish(const double *partials, long long segments, long long n, long long k, double *wMean)
{
    const long long c = static_cast<long long>(blockIdx.x) * 128 + threadIdx.x;
    if (c >= k)
        return;
    double sum = 0;
    for (long long sIdx = 0; sIdx < segments; ++sIdx)
        sum = __dadd_rn(sum, partials[sIdx * k + c]);
    wMean[c] = __ddiv_rn(sum, static_cast<double>(n));
}

/// Per-tensor groups: min/max key and non-finite flag of W·diag(s) over the whole tensor.
template <int IN> __global__ void __launch_bounds__(kAThreads) kTensorRange(AwqRowArgs a)
{
    const long long total = a.n * a.k, stride = static_cast<long long>(gridDim.x) * kAThreads;
    unsigned lo = kNoMin, hi = kNoMax, bad = 0;
    for (long long i = static_cast<long long>(blockIdx.x) * kAThreads + threadIdx.x; i < total; i += stride) {
        const float xs = scaledAt(decode1<IN>(a.w, i), a.s[i % a.k]);
        if (qmath::isFinite(xs)) {
            const unsigned key = gpumath::floatKey(xs);
            lo = key < lo ? key : lo;
            hi = key > hi ? key : hi;
        } else {
            bad = 1;
            if (a.codes) // the final pass reports the first one
                QS_ATOMIC_MIN(&a.words->firstBadWs, static_cast<unsigned long long>(i));
        }
    }
#pragma unroll
    for (int off = 16; off > 0; off >>= 1) {
        const unsigned l = __shfl_xor_sync(kFull, lo, off), h = __shfl_xor_sync(kFull, hi, off);
        lo = l < lo ? l : lo;
        hi = h > hi ? h : hi;
    }
    bad = __any_sync(kFull, bad != 0) ? 1u : 0u;
    if ((threadIdx.x & 31) == 0) {
        if (lo != kNoMin)
            QS_ATOMIC_MIN(&a.words->tmin, lo);
        if (hi != kNoMax)
            QS_ATOMIC_MAX(&a.words->tmax, hi);
        if (bad)
            QS_ATOMIC_OR(&a.words->tbad, 1u);
    }
}

/// Scale and zero point of a group from its min/max keys, as quantizeGroupwise: a group with a
/// non-finite element gets the spec's eps and zero point 0 (its codes are 0).
__device__ __forceinline__ void groupParams(const IntParams &p, unsigned kmin, unsigned kmax, bool bad, float &scale,
                                            int &zero)
{
    zero = 0;
    if (bad) {
        scale = p.eps;
        return;
    }
    const float mn = kmin == kNoMin ? 0.0f : gpumath::keyFloat(kmin);
    const float mx = kmax == kNoMax ? 0.0f : gpumath::keyFloat(kmax);
    intGroupParams(p, mn, mx, scale, zero);
}

/// One block per row: the row's groups' ranges (segmented warp reduction, then shared atomics),
/// their scales and zero points, then every element's code, Ŵ and D (or the stored results).
template <int IN> __global__ void __launch_bounds__(kAThreads) kRows(AwqRowArgs a, long long gr)
{
    extern __shared__ unsigned smem[];
    unsigned *kmin = smem, *kmax = smem + gr;
    unsigned char *bad = reinterpret_cast<unsigned char *>(smem + 2 * gr);
    const int lane = threadIdx.x & 31;
    const bool final = a.codes != nullptr;
    for (long long r = blockIdx.x; r < a.n; r += gridDim.x) {
        const long long base = r * a.k;
        for (long long g = threadIdx.x; g < gr; g += kAThreads) {
            kmin[g] = kNoMin;
            kmax[g] = kNoMax;
            bad[g] = 0;
        }
        __syncthreads();
        if (!a.tensor) {
            // Every lane runs the same number of steps (the shuffles need the whole warp).
            for (long long c0 = 0; c0 < a.k; c0 += kAThreads) {
                const long long c = c0 + threadIdx.x;
                const bool valid = c < a.k;
                const long long g = valid ? c / a.group : -1;
                unsigned lo = kNoMin, hi = kNoMax;
                if (valid) {
                    const float xs = scaledAt(decode1<IN>(a.w, base + c), a.s[c]);
                    if (qmath::isFinite(xs)) {
                        lo = hi = gpumath::floatKey(xs);
                    } else {
                        bad[g] = 1;
                        if (final)
                            QS_ATOMIC_MIN(&a.words->firstBadWs, static_cast<unsigned long long>(base + c));
                    }
                }
                // Lanes of one group are contiguous: after the steps, the group's first lane in this
                // warp holds the min/max over its lanes.
#pragma unroll
                for (int off = 1; off < 32; off <<= 1) {
                    const unsigned l = __shfl_down_sync(kFull, lo, off), h = __shfl_down_sync(kFull, hi, off);
                    const long long g2 = __shfl_down_sync(kFull, g, off);
                    if (lane + off < 32 && g2 == g) {
                        lo = l < lo ? l : lo;
                        hi = h > hi ? h : hi;
                    }
                }
                const long long gp = __shfl_up_sync(kFull, g, 1);
                if (valid && (lane == 0 || gp != g)) {
                    if (lo != kNoMin)
                        atomicMin(&kmin[g], lo);
                    if (hi != kNoMax)
                        atomicMax(&kmax[g], hi);
                }
            }
            __syncthreads();
            for (long long g = threadIdx.x; g < gr; g += kAThreads) {
                float sc;
                int z;
                groupParams(a.ip, kmin[g], kmax[g], bad[g] != 0, sc, z);
                if (final) {
                    a.scales[r * gr + g] = sc;
                    if (a.zeros)
                        a.zeros[r * gr + g] = static_cast<signed char>(z);
                    if (bad[g])
                        QS_ATOMIC_ADD(&a.words->badGroups, 1ull);
                }
                kmin[g] = __float_as_uint(sc);
                kmax[g] = static_cast<unsigned>(z);
            }
        } else if (threadIdx.x == 0) {
            float sc;
            int z;
            const bool b = a.words->tbad != 0;
            groupParams(a.ip, a.words->tmin, a.words->tmax, b, sc, z);
            if (final && r == 0) {
                a.scales[0] = sc;
                if (a.zeros)
                    a.zeros[0] = static_cast<signed char>(z);
                if (b)
                    QS_ATOMIC_ADD(&a.words->badGroups, 1ull);
            }
            kmin[0] = __float_as_uint(sc);
            kmax[0] = static_cast<unsigned>(z);
            bad[0] = b ? 1 : 0;
        }
        __syncthreads();
        for (long long c = threadIdx.x; c < a.k; c += kAThreads) {
            const long long g = a.tensor ? 0 : c / a.group;
            const float x = decode1<IN>(a.w, base + c);
            const double s = a.s[c];
            int q = 0;
            float deq = 0.0f;
            if (!bad[g]) {
                const float sc = __uint_as_float(kmin[g]);
                const int z = static_cast<int>(kmax[g]);
                q = intCode(a.ip, scaledAt(x, s), sc, z);
                deq = intDequant(a.ip, q, sc, z);
            }
            const float wh = __double2float_rn(__ddiv_rn(static_cast<double>(deq), s));
            if (a.d)
                a.d[base + c] = __dsub_rn(static_cast<double>(x), static_cast<double>(wh));
            if (a.codes)
                a.codes[base + c] = static_cast<unsigned char>(static_cast<signed char>(q));
            if (a.wHat)
                a.wHat[base + c] = wh;
        }
        __syncthreads();
    }
}

/// Chunks of 8 columns a thread of kRowsChunked keeps in registers (K ≤ 8 · kAThreads · kRowChunks).
constexpr int kRowChunks = 4;

/// kRows for the common shapes (K a multiple of 8, groups of 8·2^j columns, K ≤ 8192): the same
/// arithmetic per element, reorganised for the memory system. A thread loads 8 consecutive columns
/// with one vector load and keeps W and W·diag(s) in registers for the codes (W is read once per
/// point); a group's min/max is a shuffle tree over its lanes (groups of ≤ 128 columns) or a warp
/// tree plus shared atomics (groups of whole warps). min/max are exact in any order, so the codes,
/// Ŵ and D are kRows' bits.
template <int IN, bool PLAIN>
__global__ void __launch_bounds__(kAThreads) kRowsChunked(AwqRowArgs a, long long gr, int lanes)
{
    // PLAIN: FP32 arithmetic and a true division (the launcher checked): the same values written
    // as constants, so intCode's and intDequant's other modes fold away instead of branching.
    if constexpr (PLAIN) {
        a.ip.arith = 0;
        a.ip.reciprocal = false;
    }
    extern __shared__ unsigned smem[];
    unsigned *kmin = smem, *kmax = smem + gr;
    unsigned char *badS = reinterpret_cast<unsigned char *>(smem + 2 * gr);
    const bool final = a.codes != nullptr;
    const bool shared = lanes >= 32; // a group spans whole warps
    const long long chunksRow = a.k / kChunk;
    for (long long r = blockIdx.x; r < a.n; r += gridDim.x) {
        const long long base = r * a.k;
        if (shared) {
            for (long long g = threadIdx.x; g < gr; g += kAThreads) {
                kmin[g] = kNoMin;
                kmax[g] = kNoMax;
                badS[g] = 0;
            }
            __syncthreads();
        }
        RawChunk raw[kRowChunks]; // W's stored bits (4 registers per 8 BF16 values), decoded again for the codes
        float scale[kRowChunks] = {};
        int zero[kRowChunks] = {};
        bool bad[kRowChunks] = {};
#pragma unroll
        for (int it = 0; it < kRowChunks; ++it) {
            const long long ch = static_cast<long long>(it) * kAThreads + threadIdx.x;
            if (static_cast<long long>(it) * kAThreads >= chunksRow)
                break; // uniform across the block
            const bool valid = ch < chunksRow;
            unsigned lo = kNoMin, hi = kNoMax;
            bool b = false;
            if (valid) {
                loadRaw<IN>(a.w, a.n * a.k, base / kChunk + ch, raw[it]);
                float x[kChunk], xs[kChunk];
                decodeRaw<IN>(raw[it], a.n * a.k, base / kChunk + ch, x);
                const double2 *s2 = reinterpret_cast<const double2 *>(a.s + ch * kChunk);
#pragma unroll
                for (int j = 0; j < kChunk; j += 2) {
                    const double2 sv = s2[j / 2];
                    xs[j] = scaledAt(x[j], sv.x);
                    xs[j + 1] = scaledAt(x[j + 1], sv.y);
                }
#pragma unroll
                for (int j = 0; j < kChunk; ++j) {
                    if (qmath::isFinite(xs[j])) {
                        const unsigned key = gpumath::floatKey(xs[j]);
                        lo = key < lo ? key : lo;
                        hi = key > hi ? key : hi;
                    } else {
                        b = true;
                        if (final)
                            QS_ATOMIC_MIN(&a.words->firstBadWs,
                                          static_cast<unsigned long long>(base + ch * kChunk + j));
                    }
                }
            }
            // The group's lanes are aligned runs of `lanes` (or the whole warp): an xor tree stays inside.
            const int width = shared ? 32 : lanes;
            unsigned bi = b ? 1u : 0u;
            for (int off = 1; off < width; off <<= 1) {
                const unsigned l = __shfl_xor_sync(kFull, lo, off), h = __shfl_xor_sync(kFull, hi, off);
                lo = l < lo ? l : lo;
                hi = h > hi ? h : hi;
                bi |= __shfl_xor_sync(kFull, bi, off);
            }
            b = bi != 0;
            if (shared) {
                if ((threadIdx.x & 31) == 0 && valid) {
                    const long long g = ch / lanes;
                    if (lo != kNoMin)
                        atomicMin(&kmin[g], lo);
                    if (hi != kNoMax)
                        atomicMax(&kmax[g], hi);
                    if (b)
                        badS[g] = 1;
                }
            } else {
                groupParams(a.ip, lo, hi, b, scale[it], zero[it]);
                bad[it] = b;
                if (final && valid && ch % lanes == 0) {
                    const long long g = ch / lanes;
                    a.scales[r * gr + g] = scale[it];
                    if (a.zeros)
                        a.zeros[r * gr + g] = static_cast<signed char>(zero[it]);
                    if (b)
                        QS_ATOMIC_ADD(&a.words->badGroups, 1ull);
                }
            }
        }
        if (shared) {
            __syncthreads();
            for (long long g = threadIdx.x; g < gr; g += kAThreads) {
                float sc;
                int z;
                groupParams(a.ip, kmin[g], kmax[g], badS[g] != 0, sc, z);
                if (final) {
                    a.scales[r * gr + g] = sc;
                    if (a.zeros)
                        a.zeros[r * gr + g] = static_cast<signed char>(z);
                    if (badS[g])
                        QS_ATOMIC_ADD(&a.words->badGroups, 1ull);
                }
                kmin[g] = __float_as_uint(sc);
                kmax[g] = static_cast<unsigned>(z);
            }
            __syncthreads();
        }
#pragma unroll
        for (int it = 0; it < kRowChunks; ++it) {
            const long long ch = static_cast<long long>(it) * kAThreads + threadIdx.x;
            if (static_cast<long long>(it) * kAThreads >= chunksRow)
                break;
            if (ch >= chunksRow)
                continue;
            float sc = scale[it];
            int z = zero[it];
            bool b = bad[it];
            if (shared) {
                const long long g = ch / lanes;
                sc = __uint_as_float(kmin[g]);
                z = static_cast<int>(kmax[g]);
                b = badS[g] != 0;
            }
            const float scInv = __frcp_rn(sc); // RN(1/sc): intCodeBy's reciprocal
            const long long c0 = ch * kChunk;
            const double2 *s2 = reinterpret_cast<const double2 *>(a.s + c0);
            const double2 *y2 = reinterpret_cast<const double2 *>(a.sInv + c0);
            float x[kChunk];
            decodeRaw<IN>(raw[it], a.n * a.k, base / kChunk + ch, x);
            float wh[kChunk];
            int q[kChunk];
#pragma unroll
            for (int j = 0; j < kChunk; j += 2) {
                const double2 sv = s2[j / 2], yv = y2[j / 2];
                const double sj[2] = {sv.x, sv.y}, yj[2] = {yv.x, yv.y};
#pragma unroll
                for (int u = 0; u < 2; ++u) {
                    q[j + u] = 0;
                    float deq = 0.0f;
                    if (!b) {
                        q[j + u] = PLAIN ? gpumath::intCodeBy(a.ip, scaledAt(x[j + u], sj[u]), sc, scInv, z)
                                         : intCode(a.ip, scaledAt(x[j + u], sj[u]), sc, z);
                        deq = intDequant(a.ip, q[j + u], sc, z);
                    }
                    wh[j + u] = __double2float_rn(gpumath::divByReciprocal(static_cast<double>(deq), sj[u], yj[u]));
                }
            }
            if (a.d) {
                double2 *d2 = reinterpret_cast<double2 *>(a.d + base + c0);
#pragma unroll
                for (int j = 0; j < kChunk; j += 2)
                    d2[j / 2] = make_double2(__dsub_rn(static_cast<double>(x[j]), static_cast<double>(wh[j])),
                                             __dsub_rn(static_cast<double>(x[j + 1]), static_cast<double>(wh[j + 1])));
            }
            if (a.codes) {
                unsigned lo4 = 0, hi4 = 0;
#pragma unroll
                for (int j = 0; j < 4; ++j) {
                    lo4 |= (static_cast<unsigned>(q[j]) & 0xFFu) << (8 * j);
                    hi4 |= (static_cast<unsigned>(q[j + 4]) & 0xFFu) << (8 * j);
                }
                *reinterpret_cast<uint2 *>(a.codes + base + c0) = make_uint2(lo4, hi4);
            }
            if (a.wHat) {
                float4 *h4 = reinterpret_cast<float4 *>(a.wHat + base + c0);
                h4[0] = make_float4(wh[0], wh[1], wh[2], wh[3]);
                h4[1] = make_float4(wh[4], wh[5], wh[6], wh[7]);
            }
        }
        if (shared)
            __syncthreads();
    }
}

/// Sums a[0..kAThreads) into a[0] with a fixed tree.
__device__ void blockSum(double *a)
{
    for (int s = kAThreads / 2; s > 0; s /= 2) {
        __syncthreads();
        if (threadIdx.x < s)
            a[threadIdx.x] = __dadd_rn(a[threadIdx.x], a[threadIdx.x + s]);
    }
    __syncthreads();
}

__global__ void __launch_bounds__(kAThreads) kSquares(const double *e, long long count, double *partials)
{
    __shared__ double a[kAThreads];
    const long long stride = static_cast<long long>(kLossBlocks) * kAThreads;
    double s = 0;
    for (long long i = static_cast<long long>(blockIdx.x) * kAThreads + threadIdx.x; i < count; i += stride)
        s = __dadd_rn(s, __dmul_rn(e[i], e[i]));
    a[threadIdx.x] = s;
    blockSum(a);
    if (threadIdx.x == 0)
        partials[blockIdx.x] = a[0];
}

__global__ void __launch_bounds__(kAThreads) kLossFinish(const double *partials, double divisor, double *loss)
{
    __shared__ double a[kAThreads];
    double s = 0;
    for (int i = threadIdx.x; i < kLossBlocks; i += kAThreads)
        s = __dadd_rn(s, partials[i]);
    a[threadIdx.x] = s;
    blockSum(a);
    if (threadIdx.x == 0)
        *loss = __ddiv_rn(a[0], divisor);
}

__global__ void __launch_bounds__(kAThreads) kReciprocals(const double *s, long long count, double *y)
{
    const long long i = static_cast<long long>(blockIdx.x) * kAThreads + threadIdx.x;
    if (i < count)
        y[i] = __drcp_rn(s[i]);
}

unsigned blocksFor(long long items, long long perBlock, long long cap)
{
    const long long b = (items + perBlock - 1) / perBlock;
    return static_cast<unsigned>(b < 1 ? 1 : (b > cap ? cap : b));
}

} // namespace

void awqResetWords(AwqWords *w, void *stream)
{
    kResetWords<<<1, 1, 0, static_cast<qsStream_t>(stream)>>>(w);
    QS_GPU_CHECK_LAUNCH("AWQ reset");
}

void awqActivationMeans(const float *x, long long r, long long k, float *xMean, double *x64, void *stream)
{
    kActivationMeans<<<blocksFor(k, kAThreads, 1ll << 30), kAThreads, 0, static_cast<qsStream_t>(stream)>>>(x, r, k,
                                                                                                            xMean, x64);
    QS_GPU_CHECK_LAUNCH("AWQ activation means");
}

void awqWeightMeans(int in, const void *w, long long n, long long k, long long chunk, bool tensor, float *chunkMax,
                    double *partials, double *wMean, AwqWords *words, void *stream)
{
    const auto s = static_cast<qsStream_t>(stream);
    const long long chunks = (k + chunk - 1) / chunk;
    dispatchIn(in, [&](auto I) {
        constexpr int IN = decltype(I)::value;
        kChunkMax<IN><<<blocksFor(n * chunks, kAThreads / 32, 1 << 20), kAThreads, 0, s>>>(w, n, k, chunk, chunks,
                                                                                           tensor, chunkMax, words);
        const long long segments = (n + kAwqSegmentRows - 1) / kAwqSegmentRows;
        const dim3 grid(static_cast<unsigned>((k + 127) / 128), static_cast<unsigned>(segments));
        kColumnMeans<IN><<<grid, 128, 0, s>>>(w, n, k, chunk, chunks, tensor, chunkMax, words, partials);
        kColumnMeansFinish<<<static_cast<unsigned>((k + 127) / 128), 128, 0, s>>>(partials, segments, n, k, wMean);
    });
    QS_GPU_CHECK_LAUNCH("AWQ weight means");
}

void awqReciprocals(const double *s, long long count, double *y, void *stream)
{
    kReciprocals<<<blocksFor(count, kAThreads, 1ll << 30), kAThreads, 0, static_cast<qsStream_t>(stream)>>>(s, count,
                                                                                                            y);
    QS_GPU_CHECK_LAUNCH("AWQ reciprocals");
}

void awqUseOverlap(bool on)
{
    g_awqOverlap = on;
}

bool awqOverlap()
{
    return g_awqOverlap;
}

void awqUseGenericRows(bool on)
{
    g_awqGenericRows = on;
}

void awqTensorRange(const AwqRowArgs &a, void *stream)
{
    const auto s = static_cast<qsStream_t>(stream);
    dispatchIn(a.in, [&](auto I) {
        kTensorRange<decltype(I)::value><<<blocksFor(a.n * a.k, kAThreads * 8, 4096), kAThreads, 0, s>>>(a);
    });
    QS_GPU_CHECK_LAUNCH("AWQ tensor range");
}

void awqRows(const AwqRowArgs &a, void *stream)
{
    const auto s = static_cast<qsStream_t>(stream);
    const long long gr = a.tensor ? 1 : (a.k + a.group - 1) / a.group;
    const std::size_t smem = static_cast<std::size_t>(gr) * 9;
    // The chunked kernel's shapes: whole chunks of 8, groups of 8·2^j columns (≤ 128, or whole
    // warps' worth: a multiple of 256), the row in registers.
    const long long lanes = a.group / kChunk;
    const bool pow2Lanes = lanes > 0 && (lanes & (lanes - 1)) == 0;
    const bool chunked = !a.tensor && !g_awqGenericRows && a.sInv && a.k % kChunk == 0 && a.group % kChunk == 0 &&
                         ((lanes < 32 && pow2Lanes) || lanes % 32 == 0) &&
                         a.k <= static_cast<long long>(kChunk) * kAThreads * kRowChunks;
    dispatchIn(a.in, [&](auto I) {
        constexpr int IN = decltype(I)::value;
        if (smem > 48u * 1024u) {
            int dev = 0, optin = 0;
            QS_GPU_CHECK(cudaGetDevice(&dev));
            QS_GPU_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
            if (smem > static_cast<std::size_t>(optin))
                throw GpuError("AWQ: " + std::to_string(gr) + " groups per row do not fit in shared memory");
            QS_GPU_CHECK(qsFuncSetMaxDynamicSharedMemory(kRows<IN>, static_cast<int>(smem)));
            QS_GPU_CHECK(qsFuncSetMaxDynamicSharedMemory((kRowsChunked<IN, true>), static_cast<int>(smem)));
            QS_GPU_CHECK(qsFuncSetMaxDynamicSharedMemory((kRowsChunked<IN, false>), static_cast<int>(smem)));
        }
        if (chunked && a.ip.arith == 0 && !a.ip.reciprocal)
            kRowsChunked<IN, true><<<blocksFor(a.n, 1, 1ll << 30), kAThreads, smem, s>>>(a, gr, lanes);
        else if (chunked)
            kRowsChunked<IN, false><<<blocksFor(a.n, 1, 1ll << 30), kAThreads, smem, s>>>(a, gr, lanes);
        else
            kRows<IN><<<blocksFor(a.n, 1, 1ll << 30), kAThreads, smem, s>>>(a, gr);
    });
    QS_GPU_CHECK_LAUNCH("AWQ rows");
}

void awqLoss(const double *e, long long count, double divisor, double *partials, double *loss, void *stream)
{
    const auto s = static_cast<qsStream_t>(stream);
    kSquares<<<kLossBlocks, kAThreads, 0, s>>>(e, count, partials);
    kLossFinish<<<1, kAThreads, 0, s>>>(partials, divisor, loss);
    QS_GPU_CHECK_LAUNCH("AWQ loss");
}

} // namespace quantscope::gpu::launch
