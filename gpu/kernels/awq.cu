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
    dispatchIn(a.in, [&](auto I) {
        constexpr int IN = decltype(I)::value;
        if (smem > 48u * 1024u) {
            int dev = 0, optin = 0;
            QS_GPU_CHECK(cudaGetDevice(&dev));
            QS_GPU_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
            if (smem > static_cast<std::size_t>(optin))
                throw GpuError("AWQ: " + std::to_string(gr) + " groups per row do not fit in shared memory");
            QS_GPU_CHECK(qsFuncSetMaxDynamicSharedMemory(kRows<IN>, static_cast<int>(smem)));
        }
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
