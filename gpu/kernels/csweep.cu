// SPDX-License-Identifier: MIT
// The constOpt c sweep on the device (core/quant/constopt_sweep.h): MSE(c) for a tile of c values
// from one read of the (rotated) FP32 matrix, bit-identical to the CPU evaluator. Each group's SSE
// is csweep_math.h's groupSse (the CPU's very function: FP32 x/s and ·s as __fdiv_rn/__fmul_rn, FP64
// differences and squares explicitly rounded, four partials in the CPU's order), turned into the
// integer k = RNE(SSE·2^-u) (numeric/fixedsum.h); the k are added in 128-bit integers — exact, so
// the block split and the order of the atomics cannot change a bit.
//   pow2:      a group's scale byte is monotone in c, so over the ascending tile its SSE is piecewise
//              constant: per group, the SSE of each byte the tile reaches is added to the range of c
//              where that byte applies (difference array in shared memory; prefix sum at the end).
//   unrounded: every group at every c (brute force); the k of a warp are added by shuffles, then
//              into the block's shared sums.
// Blocks write their sums to parts[block][i]; sweepReduce adds the blocks in integers.
#define QS_HD __host__ __device__

#include "kernels_sweep.h"
#include "numeric/fixedsum.h"
#include "qs_gpu_compat.h"
#include "numeric/csweep_math.h"

namespace quantscope::gpu::launch {

namespace {

using u64 = unsigned long long;
using fixed::U128;

constexpr int kSThreads = 256;
constexpr int kRegGroup = 32; // groups of ≤ 32 elements (a multiple of 4, K too) are held in registers

__device__ __forceinline__ void atomicAdd128(u64 *p, U128 v)
{
    if (v.lo == 0 && v.hi == 0)
        return;
    const u64 old = atomicAdd(p, static_cast<u64>(v.lo));
    const u64 carry = old + v.lo < old ? 1u : 0u;
    const u64 h = v.hi + carry;
    if (h)
        atomicAdd(p + 1, h);
}

/// Group g of the matrix: its first element and length.
__device__ __forceinline__ const float *groupAt(const float *x, long long K, long long group, long long perRow,
                                                long long g, int &len)
{
    const long long r = g / perRow, c0 = (g - r * perRow) * group;
    const long long l = K - c0 < group ? K - c0 : group;
    len = static_cast<int>(l);
    return x + r * K + c0;
}

/// A group held in registers (len ≤ kRegGroup, loaded by float4: K and group multiples of 4).
struct RegGroup {
    float v[kRegGroup];
    int len;
};

__device__ __forceinline__ void loadReg(const float *p, int len, RegGroup &G)
{
    G.len = len;
#pragma unroll
    for (int i = 0; i < kRegGroup; i += 4) {
        if (i < len) {
            const float4 q = *reinterpret_cast<const float4 *>(p + i);
            G.v[i] = q.x, G.v[i + 1] = q.y, G.v[i + 2] = q.z, G.v[i + 3] = q.w;
        } else {
            G.v[i] = G.v[i + 1] = G.v[i + 2] = G.v[i + 3] = 0.0f;
        }
    }
}

/// csweep::groupSse on a register group, unrolled (the same operations in the same order: runs of
/// four into e[0..3], the tail — none here, len is a multiple of 4 — into e[0]).
__device__ __forceinline__ double regSse(const RegGroup &G, float s)
{
    if (!(s > 0.0f)) {
        double e = 0;
#pragma unroll
        for (int i = 0; i < kRegGroup; ++i)
            if (i < G.len) {
                const double v = static_cast<double>(G.v[i]);
                e = qmath::dadd(e, qmath::dmul(v, v));
            }
        return e;
    }
    double e[4] = {0, 0, 0, 0};
#pragma unroll
    for (int i = 0; i < kRegGroup; i += 4)
        if (i < G.len) {
#pragma unroll
            for (int j = 0; j < 4; ++j)
                e[j] = qmath::dadd(e[j], csweep::err2(G.v[i + j], s));
        }
    return qmath::dadd(qmath::dadd(e[0], e[1]), qmath::dadd(e[2], e[3]));
}

template <bool REG>
__global__ void __launch_bounds__(kSThreads)
    kSweepPow2(const float *x, long long G, long long K, long long group, const float *m, const float *fcIn, int n,
               int unit, u64 *parts, unsigned *bad)
{
    __shared__ float fc[kSweepTile];
    __shared__ u64 diff[2 * kSweepTile];
    for (int i = threadIdx.x; i < kSweepTile; i += blockDim.x) {
        fc[i] = i < n ? fcIn[i] : 0.0f;
        diff[2 * i] = diff[2 * i + 1] = 0;
    }
    __syncthreads();
    const long long perRow = (K + group - 1) / group;
    for (long long g = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; g < G;
         g += static_cast<long long>(gridDim.x) * blockDim.x) {
        const float mg = m[g];
        if (mg < 0.0f) // a group holding NaN/Inf: left out, as the CPU does
            continue;
        int len = 0;
        const float *p = groupAt(x, K, group, perRow, g, len);
        RegGroup R;
        if constexpr (REG)
            loadReg(p, len, R);
        csweep::pow2Runs(fc, n, mg, [&](int b, int start, int end) {
            const float s = fp4::e8m0Scale(static_cast<std::uint8_t>(b));
            double sse;
            if constexpr (REG)
                sse = regSse(R, s);
            else
                sse = csweep::groupSse(csweep::PtrLoad{p}, len, s);
            U128 k;
            if (!fixed::toFixed(sse, unit, k)) {
                for (int i = start; i < end; ++i)
                    atomicOr(bad + i, 1u);
            } else if (k.lo | k.hi) {
                atomicAdd128(diff + 2 * start, k);
                if (end < n)
                    atomicAdd128(diff + 2 * end, fixed::neg(k));
            }
        });
    }
    __syncthreads();
    u64 *out = parts + static_cast<long long>(blockIdx.x) * 2 * kSweepTile;
    for (int i = threadIdx.x; i < 2 * n; i += blockDim.x)
        out[i] = diff[i];
}

__device__ __forceinline__ U128 warpSum(U128 k)
{
    for (int off = QS_WARP_SIZE / 2; off > 0; off >>= 1) {
        U128 o;
        o.lo = QS_SHFL_DOWN(k.lo, off);
        o.hi = QS_SHFL_DOWN(k.hi, off);
        k = fixed::add(k, o);
    }
    return k;
}

template <bool REG>
__global__ void __launch_bounds__(kSThreads)
    kSweepUnrounded(const float *x, long long G, long long K, long long group, const float *m, const float *fcIn, int n,
                    int unit, u64 *parts, unsigned *bad)
{
    __shared__ float fc[kSweepTile];
    __shared__ u64 acc[2 * kSweepTile];
    for (int i = threadIdx.x; i < kSweepTile; i += blockDim.x) {
        fc[i] = i < n ? fcIn[i] : 0.0f;
        acc[2 * i] = acc[2 * i + 1] = 0;
    }
    __syncthreads();
    const long long perRow = (K + group - 1) / group;
    const int lane = threadIdx.x % QS_WARP_SIZE;
    // Every thread of the block runs the same iterations (the warp shuffles need all lanes).
    for (long long g0 = static_cast<long long>(blockIdx.x) * blockDim.x; g0 < G;
         g0 += static_cast<long long>(gridDim.x) * blockDim.x) {
        const long long g = g0 + threadIdx.x;
        const float mg = g < G ? m[g] : -1.0f;
        const bool valid = mg >= 0.0f;
        int len = 0;
        const float *p = valid ? groupAt(x, K, group, perRow, g, len) : x;
        RegGroup R;
        if constexpr (REG) {
            if (valid)
                loadReg(p, len, R);
            else
                R.len = 0;
        }
        for (int i = 0; i < n; ++i) {
            U128 k;
            if (valid) {
                const float s = csweep::scaleOf(mg, fc[i], false);
                double sse;
                if constexpr (REG)
                    sse = regSse(R, s);
                else
                    sse = csweep::groupSse(csweep::PtrLoad{p}, len, s);
                if (!fixed::toFixed(sse, unit, k))
                    atomicOr(bad + i, 1u);
            }
            k = warpSum(k);
            if (lane == 0)
                atomicAdd128(acc + 2 * i, k);
        }
    }
    __syncthreads();
    u64 *out = parts + static_cast<long long>(blockIdx.x) * 2 * kSweepTile;
    for (int i = threadIdx.x; i < 2 * n; i += blockDim.x)
        out[i] = acc[i];
}

__global__ void __launch_bounds__(kSThreads)
    kSweepGroups(const float *x, long long G, long long K, long long group, float *m, SweepCounters *ctr)
{
    const long long perRow = (K + group - 1) / group;
    u64 counted = 0, nonFinite = 0;
    unsigned amax = 0;
    for (long long g = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; g < G;
         g += static_cast<long long>(gridDim.x) * blockDim.x) {
        int len = 0;
        const float *p = groupAt(x, K, group, perRow, g, len);
        float mx = 0.0f;
        bool badGroup = false;
        for (int i = 0; i < len; ++i) {
            const float v = p[i];
            badGroup |= !qmath::isFinite(v);
            const float a = qmath::absf(v);
            mx = a > mx ? a : mx;
        }
        if (badGroup) {
            m[g] = -1.0f;
            ++nonFinite;
        } else {
            m[g] = mx;
            counted += static_cast<u64>(len);
            const unsigned bits = qmath::bitsOf(mx); // non-negative floats order as their bits
            amax = bits > amax ? bits : amax;
        }
    }
    for (int off = QS_WARP_SIZE / 2; off > 0; off >>= 1) {
        counted += QS_SHFL_DOWN(counted, off);
        nonFinite += QS_SHFL_DOWN(nonFinite, off);
        const unsigned o = QS_SHFL_DOWN(amax, off);
        amax = o > amax ? o : amax;
    }
    if (threadIdx.x % QS_WARP_SIZE == 0) {
        if (counted)
            atomicAdd(&ctr->counted, counted);
        if (nonFinite)
            atomicAdd(&ctr->nonFinite, nonFinite);
        if (amax)
            atomicMax(&ctr->amaxBits, amax);
    }
}

__global__ void __launch_bounds__(kSweepTile) kSweepReduce(bool pow2, const u64 *parts, int blocks, int n, u64 *out)
{
    __shared__ u64 s[2][2 * kSweepTile];
    const int i = threadIdx.x;
    U128 v;
    if (i < n)
        for (int b = 0; b < blocks; ++b) {
            const u64 *q = parts + static_cast<long long>(b) * 2 * kSweepTile + 2 * i;
            v = fixed::add(v, U128{q[0], q[1]});
        }
    if (pow2) {
        // Inclusive scan (Hillis–Steele over the tile, double-buffered): integers, exact.
        int cur = 0;
        s[cur][2 * i] = v.lo;
        s[cur][2 * i + 1] = v.hi;
        __syncthreads();
        for (int d = 1; d < kSweepTile; d *= 2) {
            U128 t{s[cur][2 * i], s[cur][2 * i + 1]};
            if (i >= d)
                t = fixed::add(t, U128{s[cur][2 * (i - d)], s[cur][2 * (i - d) + 1]});
            s[cur ^ 1][2 * i] = t.lo;
            s[cur ^ 1][2 * i + 1] = t.hi;
            cur ^= 1;
            __syncthreads();
        }
        v = U128{s[cur][2 * i], s[cur][2 * i + 1]};
    }
    if (i < n) {
        out[2 * i] = v.lo;
        out[2 * i + 1] = v.hi;
    }
}

} // namespace

int sweepBlocks(long long groups, int sms)
{
    const long long want = (groups + kSThreads - 1) / kSThreads;
    const long long cap = static_cast<long long>(sms > 0 ? sms : 1) * 4;
    return static_cast<int>(want < 1 ? 1 : (want < cap ? want : cap));
}

void sweepGroups(const float *x, long long rows, long long K, long long group, float *m, SweepCounters *ctr, int sms,
                 void *stream)
{
    const long long G = rows * ((K + group - 1) / group);
    if (G <= 0)
        return;
    kSweepGroups<<<sweepBlocks(G, sms * 2), kSThreads, 0, static_cast<qsStream_t>(stream)>>>(x, G, K, group, m, ctr);
    QS_GPU_CHECK_LAUNCH("sweepGroups");
}

void sweepTile(bool pow2, const float *x, long long rows, long long K, long long group, const float *m, const float *fc,
               int n, int unit, unsigned long long *parts, unsigned *bad, int blocks, void *stream)
{
    const long long G = rows * ((K + group - 1) / group);
    if (G <= 0 || n <= 0)
        return;
    if (n > kSweepTile)
        throw GpuError("sweepTile: more than " + std::to_string(kSweepTile) + " values of c in one tile");
    const bool reg = group <= kRegGroup && group % 4 == 0 && K % 4 == 0;
    const auto s = static_cast<qsStream_t>(stream);
    if (pow2) {
        if (reg)
            kSweepPow2<true><<<blocks, kSThreads, 0, s>>>(x, G, K, group, m, fc, n, unit, parts, bad);
        else
            kSweepPow2<false><<<blocks, kSThreads, 0, s>>>(x, G, K, group, m, fc, n, unit, parts, bad);
    } else {
        if (reg)
            kSweepUnrounded<true><<<blocks, kSThreads, 0, s>>>(x, G, K, group, m, fc, n, unit, parts, bad);
        else
            kSweepUnrounded<false><<<blocks, kSThreads, 0, s>>>(x, G, K, group, m, fc, n, unit, parts, bad);
    }
    QS_GPU_CHECK_LAUNCH(pow2 ? "sweepTile (pow2)" : "sweepTile (unrounded)");
}

void sweepReduce(bool pow2, const unsigned long long *parts, int blocks, int n, unsigned long long *out, void *stream)
{
    if (n <= 0)
        return;
    kSweepReduce<<<1, kSweepTile, 0, static_cast<qsStream_t>(stream)>>>(pow2, parts, blocks, n, out);
    QS_GPU_CHECK_LAUNCH("sweepReduce");
}

} // namespace quantscope::gpu::launch
