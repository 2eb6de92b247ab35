// SPDX-License-Identifier: MIT
// HQQ on the device (kernels_hqq.h): the CPU reference's op sequence (core/quant/hqq.h) with the
// same QS_HD arithmetic (core/quant/hqq_math.h): one thread per group walks its g elements in the
// CPU's lane order, so the groups' FP64 sums, the z updates, the global error and the stop
// decision are the CPU's bit for bit. No FMA contraction (-fmad=false), IEEE division.
// Axis 0 groups (element t·G + j) are read strided: consecutive threads read consecutive
// addresses. Axis 1 groups are g consecutive elements per thread (cached lines).
#define QS_HD __host__ __device__

#include <algorithm>
#include <type_traits>

#if !defined(QUANTSCOPE_HIP) && !defined(__HIPCC__)
#include <cuda_fp16.h> // hqqH's conversions (hqq_math.h)
#endif

#include "kernels_hqq.h"
#include "plan.h"
#include "qs_gpu_compat.h"
#include "quant/hqq_math.h"

namespace quantscope::gpu::launch {

namespace {

using i64 = long long;
using u64 = unsigned long long;
constexpr int kHqqThreads = 256;

template <int IN> __device__ __forceinline__ float loadW(const void *p, i64 i)
{
    if constexpr (IN == kInF32)
        return static_cast<const float *>(p)[i];
    else if constexpr (IN == kInBf16)
        return gpumath::bf16ToF32(static_cast<const unsigned short *>(p)[i]);
    else
        return gpumath::f16ToF32(static_cast<const unsigned short *>(p)[i]);
}

template <bool FP16> __device__ __forceinline__ float optimiserValue(float v)
{
    return FP16 ? hqqmath::hqqH(v) : v;
}

/// Element t of group j in the optimiser dtype (the CPU's working copy x). Axis 1 with the 8
/// elements aligned: one 16-byte load (two for F32); otherwise element by element (axis 0:
/// consecutive threads read consecutive addresses).
template <int IN, bool AXIS1, bool FP16> struct GroupX {
    const void *w;
    i64 base, stride;
    __device__ float operator()(i64 t) const { return optimiserValue<FP16>(loadW<IN>(w, base + t * stride)); }
    __device__ void load8(i64 t0, float v[8]) const
    {
        const i64 i0 = base + t0 * stride;
        if (AXIS1 && (i0 & 7) == 0) {
            if constexpr (IN == kInF32) {
                const float4 *p = reinterpret_cast<const float4 *>(static_cast<const float *>(w) + i0);
                const float4 a = p[0], b = p[1];
                const float f[8] = {a.x, a.y, a.z, a.w, b.x, b.y, b.z, b.w};
#pragma unroll
                for (int k = 0; k < 8; ++k)
                    v[k] = optimiserValue<FP16>(f[k]);
            } else {
                const uint4 u = *reinterpret_cast<const uint4 *>(static_cast<const unsigned short *>(w) + i0);
                const unsigned h[4] = {u.x, u.y, u.z, u.w};
#pragma unroll
                for (int k = 0; k < 4; ++k) {
                    const float lo =
                        IN == kInBf16 ? gpumath::bf16ToF32(h[k] & 0xFFFFu) : gpumath::f16ToF32(h[k] & 0xFFFFu);
                    const float hi = IN == kInBf16 ? gpumath::bf16ToF32(h[k] >> 16) : gpumath::f16ToF32(h[k] >> 16);
                    v[2 * k] = optimiserValue<FP16>(lo);
                    v[2 * k + 1] = optimiserValue<FP16>(hi);
                }
            }
            return;
        }
#pragma unroll
        for (int k = 0; k < 8; ++k)
            v[k] = (*this)(t0 + k);
    }
};

template <int IN, bool AXIS1, bool FP16> __global__ void __launch_bounds__(kHqqThreads) kHqqInit(HqqArgs a)
{
    const i64 j = static_cast<i64>(blockIdx.x) * kHqqThreads + threadIdx.x;
    if (blockIdx.x == 0 && threadIdx.x == 0)
        a.st->best = qmath::fromBits(0x7F800000u);
    if (j >= a.groups)
        return;
    const i64 g = a.group, G = a.groups;
    const i64 base = AXIS1 ? j * g : j, stride = AXIS1 ? 1 : G;
    float mn = qmath::fromBits(0x7F800000u), mx = -mn;
    bool nonFinite = false;
    auto take = [&](float v, i64 t) {
        if (!qmath::isFinite(v)) {
            nonFinite = true;
            QS_ATOMIC_MAX(&a.st->firstBadNeg, ~static_cast<u64>(base + t * stride)); // the first index wins
        }
        mn = v < mn ? v : mn;
        mx = v > mx ? v : mx;
    };
    if (AXIS1 && g % 8 == 0) { // aligned 16-byte loads of the raw FP32 values (no optimiser rounding)
        const GroupX<IN, true, false> x{a.w, base, 1};
        for (i64 t0 = 0; t0 < g; t0 += 8) {
            float v[8];
            x.load8(t0, v);
#pragma unroll
            for (int k = 0; k < 8; ++k)
                take(v[k], t0 + k);
        }
    } else {
        for (i64 t = 0; t < g; ++t)
            take(loadW<IN>(a.w, base + t * stride), t);
    }
    if (nonFinite) {
        a.bad[j] = 1;
        a.sigma[j] = 1.0f;
        a.zero[j] = 0.0f;
        QS_ATOMIC_ADD(&a.st->badGroups, 1ull);
        return;
    }
    a.bad[j] = 0;
    const float am = qmath::absf(mn) > qmath::absf(mx) ? qmath::absf(mn) : qmath::absf(mx);
    QS_ATOMIC_MAX(&a.st->amaxBits, qmath::bitsOf(am));
    // hqq.cpp's initialisation, FP32.
    const float d = mx - mn;
    float s = a.qmax / d;
    if (a.libRange && qmath::absf(d) <= 1e-4f)
        s = 1.0f;
    s = s > 2e4f ? 2e4f : s;
    float zz = -mn * s;
    if (a.roundZero)
        zz = hqqmath::rne(zz);
    a.sigma[j] = FP16 ? qmath::roundF16(s) : s;
    a.zero[j] = FP16 ? qmath::roundF16(zz) : zz;
}

#if !defined(QUANTSCOPE_HIP) && !defined(__HIPCC__)
/// hqqGroupSums for `compute fp16` with the code table, in native FP16 arithmetic: for FP16
/// operands a and b, RN16(a ∘ b) for ∘ ∈ {+, −, ×} equals h(RN32(a ∘ b)) — FP32 carries more than
/// 2·11 + 2 bits, so the double rounding is innocuous — so __hmul/__hadd/__hsub give hqqElement's
/// h(·) values without the conversions, two elements per instruction (half2). hrint is round half to
/// even, as rne; the clamp keeps −0 as clampf does. An error at or above kHqqShrinkFrom takes
/// hqqElement itself (the shrink's power). The FP64 sums in hqqGroupSums' lane order. GS > 0: the
/// group size is the constant GS and the blocks of 8 are unrolled (hqqGroupSums' GS).
template <int GS = 0, class X>
__device__ __forceinline__ void groupSumsHalf(const X &x, i64 g, float s, float zz, const hqqmath::HqqIterParams &P,
                                              const float *wrT, int wrStride, double &es, double &zs)
{
    double le[4] = {0.0, 0.0, 0.0, 0.0}, lz[4] = {0.0, 0.0, 0.0, 0.0};
    if constexpr (GS > 0)
        g = GS;
    const i64 g8 = g / 8 * 8;
    const __half2 s2 = __float2half2_rn(s), z2 = __float2half2_rn(zz);
    auto block8 = [&](i64 t0) {
        float xv[8];
        x.load8(t0, xv);
#pragma unroll
        for (int k = 0; k < 8; k += 2) {
            const __half2 xh = __floats2half2_rn(xv[k], xv[k + 1]); // exact: xv are FP16 values
            const __half2 xs = __hmul2(xh, s2);
            __half2 q = h2rint(__hadd2(xs, z2));
            // clampf(v, 0, qmax): v < 0 → 0, v > qmax → qmax, else v (−0 stays −0).
            const float q0 = __low2float(q), q1 = __high2float(q);
            const float c0 = q0 < 0.0f ? 0.0f : (q0 > P.qmax ? P.qmax : q0);
            const float c1 = q1 < 0.0f ? 0.0f : (q1 > P.qmax ? P.qmax : q1);
            const __half2 qc = __floats2half2_rn(c0, c1);
            const __half2 wr =
                __floats2half2_rn(wrT[static_cast<int>(c0) * wrStride], wrT[static_cast<int>(c1) * wrStride]);
            const __half2 e = __hsub2(xh, wr);
            const __half2 zt = __hsub2(qc, xs);
            const float ev[2] = {__low2float(e), __high2float(e)}, zv[2] = {__low2float(zt), __high2float(zt)};
#pragma unroll
            for (int h = 0; h < 2; ++h) {
                float av = qmath::absf(ev[h]), zterm = zv[h];
                if (av >= hqqmath::kHqqShrinkFrom)
                    hqqmath::hqqElement(xv[k + h], s, zz, P, av, zterm, wrT, wrStride);
                le[(k + h) & 3] = hqqmath::dadd(le[(k + h) & 3], static_cast<double>(av));
                lz[(k + h) & 3] = hqqmath::dadd(lz[(k + h) & 3], static_cast<double>(zterm));
            }
        }
    };
    if constexpr (GS > 0) {
#pragma unroll
        for (int t0 = 0; t0 < GS / 8 * 8; t0 += 8)
            block8(t0);
    } else {
        for (i64 t0 = 0; t0 < g8; t0 += 8)
            block8(t0);
    }
    es = hqqmath::dadd(hqqmath::dadd(le[0], le[1]), hqqmath::dadd(le[2], le[3]));
    zs = hqqmath::dadd(hqqmath::dadd(lz[0], lz[1]), hqqmath::dadd(lz[2], lz[3]));
    for (i64 t = g8; t < g; ++t) {
        float av, zterm;
        hqqmath::hqqElement(x(t), s, zz, P, av, zterm, wrT, wrStride);
        es = hqqmath::dadd(es, static_cast<double>(av));
        zs = hqqmath::dadd(zs, static_cast<double>(zterm));
    }
}
#endif

template <int IN, bool AXIS1, bool FP16> __global__ void __launch_bounds__(kHqqThreads) kHqqIterate(HqqArgs a, int iter)
{
    HqqState *st = a.st;
    const i64 G = a.groups, g = a.group;
    if (st->stopped || static_cast<i64>(st->badGroups) >= G)
        return; // uniform: every thread of every block reads the same words
    const i64 counted = (G - static_cast<i64>(st->badGroups)) * g;
    const int unit = hqqmath::hqqFixedUnit(qmath::fromBits(st->amaxBits), a.qmax, counted);
    const i64 j = static_cast<i64>(blockIdx.x) * kHqqThreads + threadIdx.x;
    hqqmath::U128 k;
    unsigned status = 0;
    if (j < G && !a.bad[j]) {
        hqqmath::HqqIterParams P;
        P.qmax = a.qmax;
        P.fp16 = FP16;
        P.powExp = a.powExp;
        GroupX<IN, AXIS1, FP16> x{a.w, AXIS1 ? j * g : j, AXIS1 ? 1 : G};
        double es = 0.0, zs = 0.0;
        const float sg = a.sigma[j], zg = a.zero[j];
        if (a.qmax <= 15.0f) {
            // ≤ 16 codes: their W_r once per group (hqqElement's table) — no division per element.
            __shared__ float wrT[16 * kHqqThreads];
            for (int c = 0; c <= static_cast<int>(a.qmax); ++c)
                wrT[c * kHqqThreads + threadIdx.x] = hqqmath::hqqDequantCode(static_cast<float>(c), sg, zg, FP16);
#if !defined(QUANTSCOPE_HIP) && !defined(__HIPCC__)
            if constexpr (FP16)
                groupSumsHalf(x, g, sg, zg, P, wrT + threadIdx.x, kHqqThreads, es, zs);
            else
#endif
                hqqmath::hqqGroupSums(x, g, sg, zg, P, es, zs, wrT + threadIdx.x, kHqqThreads);
        } else {
            hqqmath::hqqGroupSums(x, g, sg, zg, P, es, zs);
        }
        a.zero[j] = hqqmath::hqqNewZero(zs, a.zfactor, g, FP16);
        status = hqqmath::hqqToFixed(es, unit, k);
    }
    // Block sums of the four 32-bit limbs (each < 2^32: the sums stay far below 2^64).
    u64 limb[4] = {k.lo & 0xFFFFFFFFull, k.lo >> 32, k.hi & 0xFFFFFFFFull, k.hi >> 32};
#pragma unroll
    for (int o = QS_WARP_SIZE / 2; o > 0; o >>= 1)
#pragma unroll
        for (int l = 0; l < 4; ++l)
            limb[l] += QS_SHFL_DOWN(limb[l], o);
    if (status)
        QS_ATOMIC_OR(&st->status, status);
    constexpr int kWarps = kHqqThreads / QS_WARP_SIZE;
    __shared__ u64 part[kWarps][4];
    __shared__ bool last;
    const int lane = threadIdx.x % QS_WARP_SIZE, warp = threadIdx.x / QS_WARP_SIZE;
    if (lane == 0)
#pragma unroll
        for (int l = 0; l < 4; ++l)
            part[warp][l] = limb[l];
    __syncthreads();
    if (threadIdx.x == 0) {
        for (int l = 0; l < 4; ++l) {
            u64 s = 0;
            for (int w2 = 0; w2 < kWarps; ++w2)
                s += part[w2][l];
            if (s)
                QS_ATOMIC_ADD(&st->acc[l], s);
        }
        __threadfence();
        const unsigned ticket = QS_ATOMIC_ADD(&st->blocksDone, 1u);
        last = ticket == gridDim.x - 1;
    }
    __syncthreads();
    if (!last || threadIdx.x != 0)
        return;
    __threadfence();
    // The last block: the exact total, err_i, the stop rule (hqq.cpp's loop), reset for the next.
    volatile HqqState *vs = st;
    const u64 a0 = vs->acc[0], a1 = vs->acc[1], a2 = vs->acc[2], a3 = vs->acc[3];
    hqqmath::U128 total{a0, 0};
    total = hqqmath::add(total, hqqmath::U128{a1 << 32, a1 >> 32});
    total = hqqmath::add(total, hqqmath::U128{0, a2});
    total = hqqmath::add(total, hqqmath::U128{0, a3 << 32});
    const float err = hqqmath::hqqGlobalError(total, unit, vs->status, counted, FP16);
    a.errHist[iter - 1] = err;
    st->itersRun = iter;
    if (err < st->best)
        st->best = err;
    else
        st->stopped = 1;
    for (int l = 0; l < 4; ++l)
        st->acc[l] = 0;
    st->status = 0;
    st->blocksDone = 0;
    __threadfence();
}

/// A group of GS values held in registers (the fused iterations' accessor: once unrolled, every
/// index is a constant).
template <int GS> struct RegGroup {
    float v[GS];
    __device__ float operator()(i64 t) const { return v[t]; }
    __device__ void load8(i64 t0, float o[8]) const
    {
#pragma unroll
        for (int k = 0; k < 8; ++k)
            o[k] = v[t0 + k];
    }
};

/// Threads per block of the fused chunks: a thread's group and the unrolled iteration take ~200–254
/// registers (one 256-thread block would fill an SM's register file), so blocks of 128 let two
/// blocks share an SM — one loading its groups while the other iterates.
constexpr int kChunkThreads = 128;

/// Iterations it0 … it0 + count − 1, fused (kernels_hqq.h "chunk"): thread j loads group j once (in
/// the optimiser dtype, as GroupX reads it for kHqqIterate) and runs each iteration with the same
/// per-group arithmetic as kHqqIterate (the code table, groupSumsHalf / hqqGroupSums, hqqNewZero),
/// writing the iteration's z to its zHist slot and its Σ|e| into that iteration's exact sum. The
/// last block evaluates the chunk's errors in order (hqqChunkVerdict) and names the kept z's slot.
template <int IN, bool AXIS1, bool FP16>
__global__ void __launch_bounds__(kChunkThreads) kHqqChunk(HqqArgs a, int it0, int count)
{
    constexpr int GS = static_cast<int>(kHqqFusedGroup);
    HqqState *st = a.st;
    const i64 G = a.groups;
    if (st->stopped || static_cast<i64>(st->badGroups) >= G)
        return; // uniform: every thread of every block reads the same words
    const i64 counted = (G - static_cast<i64>(st->badGroups)) * GS;
    const int unit = hqqmath::hqqFixedUnit(qmath::fromBits(st->amaxBits), a.qmax, counted);
    const int slotIn = st->zSlot1 - 1; // uniform; −1: a.zero holds z
    const i64 j = static_cast<i64>(blockIdx.x) * kChunkThreads + threadIdx.x;
    const bool active = j < G && !a.bad[j];
    hqqmath::HqqIterParams P;
    P.qmax = a.qmax;
    P.fp16 = FP16;
    P.powExp = a.powExp;
    RegGroup<GS> x;
    float zg = 0.0f, sg = 1.0f;
    if (active) {
        const GroupX<IN, AXIS1, FP16> src{a.w, AXIS1 ? j * GS : j, AXIS1 ? 1 : G};
#pragma unroll
        for (int t0 = 0; t0 < GS; t0 += 8)
            src.load8(t0, x.v + t0);
        sg = a.sigma[j];
        zg = slotIn < 0 ? a.zero[j] : a.zHist[static_cast<i64>(slotIn) * G + j];
    }
    constexpr int kWarps = kChunkThreads / QS_WARP_SIZE;
    __shared__ float wrT[16 * kChunkThreads];
    __shared__ u64 part[kHqqMaxChunk][kWarps][4];
    __shared__ bool last;
    const int lane = threadIdx.x % QS_WARP_SIZE, warp = threadIdx.x / QS_WARP_SIZE;
    for (int k = 0; k < count; ++k) { // count is uniform: every thread takes part in every reduction
        hqqmath::U128 fk;
        unsigned status = 0;
        if (active) {
            double es = 0.0, zs = 0.0;
            // ≤ 16 codes (hqqChunked): their W_r once per group and iteration, as kHqqIterate.
            for (int c = 0; c <= static_cast<int>(a.qmax); ++c)
                wrT[c * kChunkThreads + threadIdx.x] = hqqmath::hqqDequantCode(static_cast<float>(c), sg, zg, FP16);
#if !defined(QUANTSCOPE_HIP) && !defined(__HIPCC__)
            if constexpr (FP16)
                groupSumsHalf<GS>(x, GS, sg, zg, P, wrT + threadIdx.x, kChunkThreads, es, zs);
            else
#endif
                hqqmath::hqqGroupSums<GS>(x, GS, sg, zg, P, es, zs, wrT + threadIdx.x, kChunkThreads);
            zg = hqqmath::hqqNewZero(zs, a.zfactor, GS, FP16);
            a.zHist[static_cast<i64>(k) * G + j] = zg;
            status = hqqmath::hqqToFixed(es, unit, fk);
        }
        u64 limb[4] = {fk.lo & 0xFFFFFFFFull, fk.lo >> 32, fk.hi & 0xFFFFFFFFull, fk.hi >> 32};
#pragma unroll
        for (int o = QS_WARP_SIZE / 2; o > 0; o >>= 1)
#pragma unroll
            for (int l = 0; l < 4; ++l)
                limb[l] += QS_SHFL_DOWN(limb[l], o);
        if (status)
            QS_ATOMIC_OR(&st->chunkStatus[k], status);
        if (lane == 0)
#pragma unroll
            for (int l = 0; l < 4; ++l)
                part[k][warp][l] = limb[l];
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        for (int k = 0; k < count; ++k)
            for (int l = 0; l < 4; ++l) {
                u64 s = 0;
                for (int w2 = 0; w2 < kWarps; ++w2)
                    s += part[k][w2][l];
                if (s)
                    QS_ATOMIC_ADD(&st->chunkAcc[k][l], s);
            }
        __threadfence();
        const unsigned ticket = QS_ATOMIC_ADD(&st->blocksDone, 1u);
        last = ticket == gridDim.x - 1;
    }
    __syncthreads();
    if (!last || threadIdx.x != 0)
        return;
    __threadfence();
    // The last block: the chunk's exact totals, its errors, the stop rule, the kept z's slot.
    volatile HqqState *vs = st;
    float errs[kHqqMaxChunk];
    for (int k = 0; k < count; ++k) {
        const u64 a0 = vs->chunkAcc[k][0], a1 = vs->chunkAcc[k][1], a2 = vs->chunkAcc[k][2], a3 = vs->chunkAcc[k][3];
        hqqmath::U128 total{a0, 0};
        total = hqqmath::add(total, hqqmath::U128{a1 << 32, a1 >> 32});
        total = hqqmath::add(total, hqqmath::U128{0, a2});
        total = hqqmath::add(total, hqqmath::U128{0, a3 << 32});
        errs[k] = hqqmath::hqqGlobalError(total, unit, vs->chunkStatus[k], counted, FP16);
        for (int l = 0; l < 4; ++l)
            st->chunkAcc[k][l] = 0;
        st->chunkStatus[k] = 0;
    }
    float best = st->best;
    int itersRun = st->itersRun;
    bool stopped = false;
    const int kept = hqqmath::hqqChunkVerdict(errs, it0, count, best, a.errHist, itersRun, stopped);
    st->best = best;
    st->itersRun = itersRun;
    st->zSlot1 = kept + 1;
    if (stopped)
        st->stopped = 1;
    st->blocksDone = 0;
    __threadfence();
}

/// Element i of MiLo's original W (HqqArgs::w0, in0) as FP32: the exact conversions of loadW.
__device__ __forceinline__ float loadW0(const HqqArgs &a, i64 i)
{
    switch (a.in0) {
    case kInBf16:
        return loadW<kInBf16>(a.w0, i);
    case kInF16:
        return loadW<kInF16>(a.w0, i);
    default:
        return loadW<kInF32>(a.w0, i);
    }
}

/// Elements i0 … i0 + 3 of W as FP32 (i0 a multiple of 4; 16- or 8-byte aligned): loadW's exact
/// conversions from one load.
template <int IN> __device__ __forceinline__ void loadW4(const void *p, i64 i0, float v[4])
{
    if constexpr (IN == kInF32) {
        const float4 q = *reinterpret_cast<const float4 *>(static_cast<const float *>(p) + i0);
        v[0] = q.x, v[1] = q.y, v[2] = q.z, v[3] = q.w;
    } else {
        const uint2 q = *reinterpret_cast<const uint2 *>(static_cast<const unsigned short *>(p) + i0);
        const unsigned short h[4] = {static_cast<unsigned short>(q.x & 0xFFFFu), static_cast<unsigned short>(q.x >> 16),
                                     static_cast<unsigned short>(q.y & 0xFFFFu),
                                     static_cast<unsigned short>(q.y >> 16)};
#pragma unroll
        for (int k = 0; k < 4; ++k)
            v[k] = IN == kInBf16 ? gpumath::bf16ToF32(h[k]) : gpumath::f16ToF32(h[k]);
    }
}

__device__ __forceinline__ bool alignedTo(const void *p, unsigned bytes)
{
    return (reinterpret_cast<unsigned long long>(p) & (bytes - 1)) == 0;
}

template <int IN, bool AXIS1, bool FP16> __global__ void __launch_bounds__(kHqqThreads) kHqqFinal(HqqArgs a)
{
    const i64 G = a.groups, g = a.group;
    if (!AXIS1 && G % 4 == 0 && alignedTo(a.sigma, 16) && alignedTo(a.zero, 16) && alignedTo(a.scales, 16) &&
        alignedTo(a.bad, 4) && alignedTo(a.w, IN == kInF32 ? 16 : 8) && alignedTo(a.codes, 4) &&
        alignedTo(a.wHat, 16) && alignedTo(a.e64, 16) && alignedTo(a.w0, a.in0 == kInF32 ? 16 : 8)) {
        // Axis-0 groups (group j = elements {t·G + j}; MiLo's inner HQQ): with G a multiple of 4,
        // elements i0 … i0 + 3 (i0 a multiple of 4) are groups j0 … j0 + 3 — a thread takes the
        // four: 16-byte loads of W and of the groups' σ, z and scale, one 4-byte code store, 16-byte
        // Ŵ and E stores, one index division for four elements. The same operations an element.
        const bool small = a.numel < (i64{1} << 32);
        const i64 quads = a.numel / 4;
        for (i64 c = static_cast<i64>(blockIdx.x) * kHqqThreads + threadIdx.x; c < quads;
             c += static_cast<i64>(gridDim.x) * kHqqThreads) {
            const i64 i0 = c * 4;
            const i64 j0 = small ? static_cast<i64>(static_cast<unsigned>(i0) % static_cast<unsigned>(G)) : i0 % G;
            const float4 s4 = *reinterpret_cast<const float4 *>(a.sigma + j0);
            const float4 z4 = *reinterpret_cast<const float4 *>(a.zero + j0);
            const float4 c4 = *reinterpret_cast<const float4 *>(a.scales + j0);
            const unsigned b4 = *reinterpret_cast<const unsigned *>(a.bad + j0);
            const float sg[4] = {s4.x, s4.y, s4.z, s4.w}, zr[4] = {z4.x, z4.y, z4.z, z4.w},
                        sc[4] = {c4.x, c4.y, c4.z, c4.w};
            float v[4], code[4], y[4], w0[4];
            loadW4<IN>(a.w, i0, v);
            if (a.e64) {
                if (a.in0 == kInBf16)
                    loadW4<kInBf16>(a.w0, i0, w0);
                else if (a.in0 == kInF16)
                    loadW4<kInF16>(a.w0, i0, w0);
                else
                    loadW4<kInF32>(a.w0, i0, w0);
            }
#pragma unroll
            for (int k = 0; k < 4; ++k) {
                code[k] = y[k] = 0.0f;
                if (((b4 >> (8 * k)) & 0xFFu) == 0) {
                    code[k] = hqqmath::clampf(hqqmath::rne(v[k] * sg[k] + zr[k]), 0.0f, a.qmax);
                    y[k] = FP16 ? hqqmath::hqqH(hqqmath::hqqH(code[k] - zr[k]) * sc[k]) : (code[k] - zr[k]) * sc[k];
                }
            }
            unsigned pk = 0;
#pragma unroll
            for (int k = 0; k < 4; ++k)
                pk |= static_cast<unsigned>(code[k]) << (8 * k);
            reinterpret_cast<unsigned *>(a.codes)[c] = pk;
            if (a.wHat)
                reinterpret_cast<float4 *>(a.wHat)[c] = make_float4(y[0], y[1], y[2], y[3]);
            if (a.e64) {
                double2 *e = reinterpret_cast<double2 *>(a.e64 + i0);
                e[0] = make_double2(static_cast<double>(w0[0]) - static_cast<double>(y[0]),
                                    static_cast<double>(w0[1]) - static_cast<double>(y[1]));
                e[1] = make_double2(static_cast<double>(w0[2]) - static_cast<double>(y[2]),
                                    static_cast<double>(w0[3]) - static_cast<double>(y[3]));
            }
        }
        return;
    }
    if (AXIS1 && g % 8 == 0) {
        // Axis-1 groups of a multiple of 8: a thread takes 8 consecutive elements of one group —
        // one 16-byte load, one 8-byte code store, two 16-byte Ŵ stores.
        const i64 chunks = a.numel / 8;
        for (i64 c = static_cast<i64>(blockIdx.x) * kHqqThreads + threadIdx.x; c < chunks;
             c += static_cast<i64>(gridDim.x) * kHqqThreads) {
            const i64 i0 = c * 8, j = i0 / g;
            float code[8], y[8];
            if (!a.bad[j]) {
                const float s = a.sigma[j], zz = a.zero[j], scale = a.scales[j];
                float v[8];
                GroupX<IN, true, false>{a.w, i0, 1}.load8(0, v);
#pragma unroll
                for (int k = 0; k < 8; ++k) {
                    code[k] = hqqmath::clampf(hqqmath::rne(v[k] * s + zz), 0.0f, a.qmax);
                    y[k] = FP16 ? hqqmath::hqqH(hqqmath::hqqH(code[k] - zz) * scale) : (code[k] - zz) * scale;
                }
            } else {
#pragma unroll
                for (int k = 0; k < 8; ++k)
                    code[k] = y[k] = 0.0f;
            }
            unsigned pk[2] = {0, 0};
#pragma unroll
            for (int k = 0; k < 8; ++k)
                pk[k / 4] |= static_cast<unsigned>(code[k]) << (8 * (k % 4));
            reinterpret_cast<uint2 *>(a.codes)[c] = make_uint2(pk[0], pk[1]);
            if (a.wHat) {
                float4 *o = reinterpret_cast<float4 *>(a.wHat) + 2 * c;
                o[0] = make_float4(y[0], y[1], y[2], y[3]);
                o[1] = make_float4(y[4], y[5], y[6], y[7]);
            }
            if (a.e64)
#pragma unroll
                for (int k = 0; k < 8; ++k)
                    a.e64[i0 + k] = static_cast<double>(loadW0(a, i0 + k)) - static_cast<double>(y[k]);
        }
        return;
    }
    // The group of element i in 32-bit arithmetic where the tensor allows (a 64-bit division is
    // several times the cost of the rest of the element).
    const bool small = a.numel < (i64{1} << 32);
    for (i64 i = static_cast<i64>(blockIdx.x) * kHqqThreads + threadIdx.x; i < a.numel;
         i += static_cast<i64>(gridDim.x) * kHqqThreads) {
        const i64 j = small ? static_cast<i64>(AXIS1 ? static_cast<unsigned>(i) / static_cast<unsigned>(g)
                                                     : static_cast<unsigned>(i) % static_cast<unsigned>(G))
                            : (AXIS1 ? i / g : i % G);
        float code = 0.0f, y = 0.0f;
        if (!a.bad[j]) {
            const float s = a.sigma[j], zz = a.zero[j];
            const float scale = a.scales[j]; // kHqqScales: h(1/σ) (fp16) or 1/σ
            const float w = loadW<IN>(a.w, i);
            code = hqqmath::clampf(hqqmath::rne(w * s + zz), 0.0f, a.qmax);
            y = FP16 ? hqqmath::hqqH(hqqmath::hqqH(code - zz) * scale) : (code - zz) * scale;
        }
        a.codes[i] = static_cast<unsigned char>(code);
        if (a.wHat)
            a.wHat[i] = y;
        if (a.e64)
            a.e64[i] = static_cast<double>(loadW0(a, i)) - static_cast<double>(y);
    }
}

/// The stored scale and zero of every group (hqq.h: s = h(1/σ), z; a bad group 1 and 0), once per
/// group before the element pass reads them.
template <bool FP16> __global__ void __launch_bounds__(kHqqThreads) kHqqScales(HqqArgs a)
{
    const i64 j = static_cast<i64>(blockIdx.x) * kHqqThreads + threadIdx.x;
    if (j >= a.groups)
        return;
    if (a.bad[j]) {
        a.scales[j] = 1.0f;
        a.zeros[j] = 0.0f;
        return;
    }
    const float s = a.sigma[j];
    a.scales[j] = FP16 ? qmath::roundF16(1.0f / s) : 1.0f / s;
    // The fused chunks leave the kept z in a zHist slot: it becomes the group's z here, before the
    // codes pass (and MiLo's Ŵ) read `zero`.
    const int slot = a.zHist ? a.st->zSlot1 - 1 : -1;
    if (slot >= 0)
        a.zero[j] = a.zHist[static_cast<i64>(slot) * a.groups + j];
    a.zeros[j] = a.zero[j];
}

int blocksFor(i64 n)
{
    return static_cast<int>((n + kHqqThreads - 1) / kHqqThreads);
}

/// Calls f<IN, AXIS1, FP16>() for the run's combination.
template <class F> void dispatch(const HqqArgs &a, F &&f)
{
    auto byIn = [&](auto axis1, auto fp16) {
        constexpr bool A1 = decltype(axis1)::value, F16 = decltype(fp16)::value;
        switch (a.in) {
        case kInBf16:
            f.template operator()<kInBf16, A1, F16>();
            break;
        case kInF16:
            f.template operator()<kInF16, A1, F16>();
            break;
        default:
            f.template operator()<kInF32, A1, F16>();
            break;
        }
    };
    using T = std::true_type;
    using Fa = std::false_type;
    if (a.axis1)
        a.fp16 ? byIn(T{}, T{}) : byIn(T{}, Fa{});
    else
        a.fp16 ? byIn(Fa{}, T{}) : byIn(Fa{}, Fa{});
}

struct InitL {
    const HqqArgs &a;
    qsStream_t s;
    template <int IN, bool A1, bool F16> void operator()() const
    {
        kHqqInit<IN, A1, F16><<<blocksFor(a.groups), kHqqThreads, 0, s>>>(a);
    }
};
struct IterL {
    const HqqArgs &a;
    int iter;
    qsStream_t s;
    template <int IN, bool A1, bool F16> void operator()() const
    {
        kHqqIterate<IN, A1, F16><<<blocksFor(a.groups), kHqqThreads, 0, s>>>(a, iter);
    }
};
struct ChunkL {
    const HqqArgs &a;
    int it0, count;
    qsStream_t s;
    template <int IN, bool A1, bool F16> void operator()() const
    {
        const int blocks = static_cast<int>((a.groups + kChunkThreads - 1) / kChunkThreads);
        kHqqChunk<IN, A1, F16><<<blocks, kChunkThreads, 0, s>>>(a, it0, count);
    }
};
struct FinalL {
    const HqqArgs &a;
    qsStream_t s;
    template <int IN, bool A1, bool F16> void operator()() const
    {
        kHqqScales<F16><<<blocksFor(a.groups), kHqqThreads, 0, s>>>(a);
        // Axis 0 with G a multiple of 4: four elements a thread where the pointers allow (the
        // kernel checks; its grid-stride loop covers the tensor either way).
        const i64 perThread = !A1 && a.groups % 4 == 0 ? 4 : 1;
        const i64 blocks = std::min<i64>((a.numel / perThread + kHqqThreads - 1) / kHqqThreads, i64{1} << 20);
        kHqqFinal<IN, A1, F16><<<static_cast<int>(blocks), kHqqThreads, 0, s>>>(a);
    }
};

} // namespace

void hqqInit(const HqqArgs &a, void *stream)
{
    dispatch(a, InitL{a, static_cast<qsStream_t>(stream)});
    QS_GPU_CHECK_LAUNCH("HQQ init");
}

void hqqIterate(const HqqArgs &a, int iter, void *stream)
{
    dispatch(a, IterL{a, iter, static_cast<qsStream_t>(stream)});
    QS_GPU_CHECK_LAUNCH("HQQ iteration");
}

bool hqqChunked(const HqqArgs &a)
{
    return a.group == kHqqFusedGroup && a.qmax <= 15.0f && a.zHist != nullptr;
}

void hqqIterateChunk(const HqqArgs &a, int it0, int count, void *stream)
{
    if (!hqqChunked(a) || count < 1 || count > kHqqMaxChunk)
        throw GpuError("HQQ chunk: group " + std::to_string(a.group) + ", " + std::to_string(count) + " iterations");
    dispatch(a, ChunkL{a, it0, count, static_cast<qsStream_t>(stream)});
    QS_GPU_CHECK_LAUNCH("HQQ iterations (fused)");
}

void hqqFinal(const HqqArgs &a, void *stream)
{
    dispatch(a, FinalL{a, static_cast<qsStream_t>(stream)});
    QS_GPU_CHECK_LAUNCH("HQQ codes");
}

} // namespace quantscope::gpu::launch
