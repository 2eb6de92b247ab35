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

/// One thread per column, the rows in order; 8 rows' loads in flight at once (K threads are few:
/// one load at a time left the kernel waiting on memory for every row).
__global__ void __launch_bounds__(kAThreads)
    kActivationMeans(const float *__restrict__ x, long long r, long long k, float *xMean, double *__restrict__ x64)
{
    const long long j = static_cast<long long>(blockIdx.x) * kAThreads + threadIdx.x;
    if (j >= k)
        return;
    double sum = 0;
    long long i = 0;
    for (; i + 8 <= r; i += 8) {
        float v[8];
#pragma unroll
        for (int u = 0; u < 8; ++u)
            v[u] = x[(i + u) * k + j];
#pragma unroll
        for (int u = 0; u < 8; ++u) {
            x64[(i + u) * k + j] = static_cast<double>(v[u]);
            sum = __dadd_rn(sum, fabs(static_cast<double>(v[u])));
        }
    }
    for (; i < r; ++i) {
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

/// Elements a lane of kRowsTeam takes per group (the group's T = group / E lanes form a team), or 0
/// where the layout is kRows': groups along K of 32…256 columns, K a whole number of them, y given,
/// FP32 arithmetic with a true division (the only arithmetic AWQ validates).
int teamElems(const AwqRowArgs &a)
{
    if (a.tensor || !a.y || a.ip.arith != 0 || a.ip.reciprocal || a.group <= 0 || a.k % a.group != 0 ||
        a.k > (1ll << 30))
        return 0;
    switch (a.group) {
    case 32:
        return 2; // teams of 16
    case 64:
        return 4; // 16
    case 128:
        return 8; // 16
    case 256:
        return 8; // 32
    default:
        return 0;
    }
}

/// W's elements i and i + 1 (i even), streaming (read once a point: L1 stays with s and 1/s).
template <int IN> __device__ __forceinline__ void loadPair(const void *w, long long i, float &x0, float &x1)
{
    if constexpr (IN == kInF32) {
        const float2 v = __ldcs(reinterpret_cast<const float2 *>(static_cast<const float *>(w) + i));
        x0 = v.x;
        x1 = v.y;
    } else {
        const unsigned u = __ldcs(reinterpret_cast<const unsigned *>(static_cast<const unsigned short *>(w) + i));
        x0 = decodeHalf<IN>(u & 0xFFFFu);
        x1 = decodeHalf<IN>(u >> 16);
    }
}

/// kRows for groups of 32…256 columns along K (teamElems), the same bits by fewer instructions: a
/// team of T lanes takes one group, E elements a lane in pairs 2T columns apart (a team's loads and
/// stores are contiguous), W·diag(s) stays in registers, the group's min/max is an xor tree inside the
/// team (exact in any order), every lane of the team computes the group's scale and zero point
/// (intGroupParams). The code by the reciprocal where it rounds like the division, else the
/// division (device_math.h, as int_quant.cu); Ŵ = FP32(deq / s) by y = RN(1/s) where its bits allow
/// (awqHatFast), else the division. No shared memory, no block barrier, no 64-bit division; the
/// search writes D, the final pass the codes, scales, zero points and Ŵ. A warp's teams run the
/// same steps (idle teams too), so the shuffles see the whole warp.
template <int IN, int E, bool SYM, bool FINAL> __global__ void __launch_bounds__(kAThreads, 4) kRowsTeam(AwqRowArgs a)
{
    IntParams ip = a.ip; // AWQ's arithmetic, folded at compile time
    ip.arith = 0;
    ip.reciprocal = false;
    ip.symmetric = SYM;
    const int T = static_cast<int>(a.group) / E; // 16 or 32
    const int lane = threadIdx.x & 31, t = lane & (T - 1);
    const int teamsPerWarp = 32 / T, warp = threadIdx.x / 32;
    const int G = static_cast<int>(a.group), gr = static_cast<int>(a.k / a.group);
    const float qminF = static_cast<float>(ip.qmin), qmaxF = static_cast<float>(ip.qmax);
    const float inf = __uint_as_float(0x7F800000u);
    for (long long r = blockIdx.x; r < a.n; r += gridDim.x) {
        for (int g0 = warp * teamsPerWarp; g0 < gr; g0 += (kAThreads / 32) * teamsPerWarp) {
            const int g = g0 + lane / T;
            const bool active = g < gr;
            const int col0 = g * G;
            const long long base = r * a.k + col0;
            float x[E], xs[E];
            float mn = inf, mx = -inf;
            if (active) {
#pragma unroll
                for (int p = 0; p < E / 2; ++p) {
                    const int off = 2 * (p * T + t);
                    loadPair<IN>(a.w, base + off, x[2 * p], x[2 * p + 1]);
                    const double2 sv = *reinterpret_cast<const double2 *>(a.s + col0 + off);
                    xs[2 * p] = scaledAt(x[2 * p], sv.x);
                    xs[2 * p + 1] = scaledAt(x[2 * p + 1], sv.y);
                }
#pragma unroll
                for (int j = 0; j < E; ++j) {
                    mn = fminf(mn, xs[j]); // ±Inf (W·s overflowed) reaches mn or mx: the group is bad
                    mx = fmaxf(mx, xs[j]);
                }
            }
            for (int o = 1; o < T; o <<= 1) {
                mn = fminf(mn, QS_SHFL_XOR(mn, o));
                mx = fmaxf(mx, QS_SHFL_XOR(mx, o));
            }
            if (!active)
                continue;
            const bool bad = !(mx < inf) || !(mn > -inf);
            float sc = ip.eps;
            int z = 0;
            if (!bad)
                intGroupParams(ip, mn, mx, sc, z);
            const float zf = static_cast<float>(z);
            if constexpr (FINAL) {
                const long long gi = r * gr + g;
                if (t == 0) {
                    a.scales[gi] = sc;
                    if (a.zeros)
                        a.zeros[gi] = static_cast<signed char>(z);
                    if (bad)
                        QS_ATOMIC_ADD(&a.words->badGroups, 1ull);
                }
                if (bad) {
#pragma unroll
                    for (int j = 0; j < E; ++j)
                        if (!qmath::isFinite(xs[j]))
                            QS_ATOMIC_MIN(&a.words->firstBadWs,
                                          static_cast<unsigned long long>(base + 2 * ((j / 2) * T + t) + (j & 1)));
                }
            }
            // Per pair: the code by t = RN(xs·RN(1/sc)), which rounds like RN(xs/sc) unless a
            // half-integer is near (int_quant.cu's rule); Ŵ = FP32(deq / s_j) in FP64 by y_j =
            // RN(1/s_j) where that gives the division's bits (awqHatFast). A pair where either
            // shortcut does not vouch is written again below by the CPU's own operations.
            const float rc = 1.0f / sc;
            const bool sNormal = sc >= 1.1754943508222875e-38f && sc < 4.2535295865117308e37f;
            const float safeBelow =
                gpumath::reciprocalSafeBelow(fmaxf(fabsf(__fmul_rn(mn, rc)), fabsf(__fmul_rn(mx, rc))));
            auto store = [&](int p, float v0, float v1, double w0, double w1) {
                const long long i = base + 2 * (p * T + t);
                if constexpr (FINAL) {
                    const unsigned c0 = gpumath::intOfFloat(v0) & 0xFFu, c1 = gpumath::intOfFloat(v1) & 0xFFu;
                    *reinterpret_cast<unsigned short *>(a.codes + i) = static_cast<unsigned short>(c0 | (c1 << 8));
                    if (a.wHat) {
                        float2 hv;
                        hv.x = __double2float_rn(w0);
                        hv.y = __double2float_rn(w1);
                        __stwb(reinterpret_cast<float2 *>(a.wHat + i), hv);
                    }
                } else {
                    // One 16-byte store a lane (a team's stores are contiguous), streaming: D is read
                    // back by the DGEMM from DRAM (it is larger than L2).
                    double2 dv;
                    dv.x = __dsub_rn(static_cast<double>(x[2 * p]), w0);
                    dv.y = __dsub_rn(static_cast<double>(x[2 * p + 1]), w1);
                    __stcs(reinterpret_cast<double2 *>(a.d + i), dv);
                }
            };
            unsigned redo = 0;
#pragma unroll
            for (int p = 0; p < E / 2; ++p) {
                const double2 yv = *reinterpret_cast<const double2 *>(a.y + col0 + 2 * (p * T + t));
                float v[2];
                double w[2];
                bool ok = sNormal | bad;
#pragma unroll
                for (int u = 0; u < 2; ++u) {
                    const float tq = __fmul_rn(xs[2 * p + u], rc);
                    const float rt = rintf(tq);
                    ok = ok & (bad | (fabsf(__fsub_rn(tq, rt)) < safeBelow));
                    // + z: a −0 becomes +0, as intCode; a non-finite group: code 0, Ŵ 0
                    v[u] = bad ? 0.0f : fminf(fmaxf(__fadd_rn(rt, zf), qminF), qmaxF);
                    const float deq = bad ? 0.0f : gpumath::intDequantValue(ip, v[u], sc, zf);
                    ok = ok & gpumath::awqHatFast(deq, u ? yv.y : yv.x, w[u]);
                }
                redo |= ok ? 0u : (1u << p);
                store(p, v[0], v[1], w[0], w[1]);
            }
            if (redo) {
#pragma unroll
                for (int p = 0; p < E / 2; ++p)
                    if (redo & (1u << p)) {
                        const int c = col0 + 2 * (p * T + t);
                        float v[2];
                        double w[2];
#pragma unroll
                        for (int u = 0; u < 2; ++u) {
                            v[u] = bad ? 0.0f : gpumath::intCodeValue(ip, xs[2 * p + u], sc, zf, qminF, qmaxF);
                            const float deq = bad ? 0.0f : gpumath::intDequantValue(ip, v[u], sc, zf);
                            w[u] = gpumath::awqHatDivide(deq, a.s[c + u]);
                        }
                        store(p, v[0], v[1], w[0], w[1]);
                    }
            }
        }
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
    if (const int e = teamElems(a)) {
        const bool final = a.codes != nullptr;
        dispatchIn(a.in, [&](auto I) {
            constexpr int IN = decltype(I)::value;
            auto go = [&](auto E, auto SYM, auto FIN) {
                kRowsTeam<IN, decltype(E)::value, decltype(SYM)::value, decltype(FIN)::value>
                    <<<blocksFor(a.n, 1, 1ll << 30), kAThreads, 0, s>>>(a);
            };
            auto sym = [&](auto E, auto FIN) {
                if (a.ip.symmetric)
                    go(E, std::true_type{}, FIN);
                else
                    go(E, std::false_type{}, FIN);
            };
            auto fin = [&](auto E) {
                if (final)
                    sym(E, std::true_type{});
                else
                    sym(E, std::false_type{});
            };
            if (e == 2)
                fin(std::integral_constant<int, 2>{});
            else if (e == 4)
                fin(std::integral_constant<int, 4>{});
            else
                fin(std::integral_constant<int, 8>{});
        });
        QS_GPU_CHECK_LAUNCH("AWQ rows (teams)");
        return;
    }
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
