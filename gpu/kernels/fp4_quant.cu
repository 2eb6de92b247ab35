// SPDX-License-Identifier: MIT
// FP4 E2M1 on the value-table path (kernels.h: fp4FastPlan, fp4Fast1): MXFP4 (every shared-
// exponent mode), constOpt pow2 and NVFP4 on row-local groups ≤ 128 of 16-bit inputs.
// Pass 1 quantizes in registers. With power-of-two group scales (MXFP4, constOpt pow2) there is no
// division (x/s is x times the exact reciprocal 2^−k, fp4_fast_math.h) and no rounding decision
// other than the CPU's own (the E2M1 code as threshold comparisons, Ŵ = value·s by the CPU's
// product); Σe² and the error extremes come from FP32 errors where fp4ErrorsExact vouches for them.
// NVFP4 (effective scale e = b/global) codes by seven comparisons of |x| with the group's exact
// FP32 thresholds (nvCodeThresholds: no division, no near test), checks each error's exactness,
// and counts each element at (b's E4M3 byte, code) in a table of ≤ 2048 levels: Ŵ is a function
// of the level, so its sums, histogram and moments come from the table (kNvLevelsRow,
// kNvLevelsY), not from 16 levels per group. MXFP4 and constOpt count each group's 16 codes. The
// rest of the run is the INT value-table path's kernels (int_quant.cu: Ŵ from the code counts
// (not NVFP4), pass 2 with FP32 error thresholds, W from its value counts), which take the FP4
// plan. constOpt unrounded and other FP4 cases run the generic kernels.
//
// Same contract as quantize.cu: the quantizer and bin decisions are the QS_HD functions the CPU
// reference runs; no FMA contraction (-fmad=false); sums in FP64, reduced in a fixed order.
#define QS_HD __host__ __device__

#include "fp4_fast_math.h"
#include "value_counts.cuh"

namespace quantscope::gpu::launch {

namespace {

/// The group scale of the power-of-two schemes (the CPU's functions, fp4math.h).
template <int SCHEME> QS_DEV float fp4Pow2Scale(const QuantPlan &P, float mn, float mx)
{
    if constexpr (SCHEME == kFp4Mx) {
        return fp4::mxGroupScale(mn, mx, P.mxMode);
    } else {
        const float amax = qmath::absf(mn) > qmath::absf(mx) ? qmath::absf(mn) : qmath::absf(mx);
        return fp4::constOptScale(amax, P.coC, false);
    }
}

/// NVFP4's level table for kLevelsRow / kLevelsY: level i is (block-scale byte i/16, code i%16),
/// its Ŵ the E2M1 value times b/global, the product pass 1 and the CPU form (fp4::fp4Dequant,
/// fp4::nvEffective).
struct NvLevels {
    const u64 *counts;
    const float *global;
    QS_DEV i64 size() const { return kNvLevels; }
    QS_DEV float value(i64 i) const
    {
        const float b = gpumath::decodeE4m3(static_cast<std::uint32_t>(i) >> 4);
        return fp4::fp4Dequant(static_cast<std::uint8_t>(i & 15), fp4::nvEffective(b, *global));
    }
};

// A thread takes E = 8 or 16 consecutive elements of one group (16 when the group allows); a team
// of g/E lanes holds a group and reduces its range with shuffles (as kIntFast1). The per-element
// work is straight-line: t = x·r (r = 2^−k exact) and the code by seven comparisons of t (NVFP4:
// of |x| with the group's thresholds), Ŵ by one product, the error and its FP64 square, the code's
// 4-bit counter (NVFP4: one shared-memory increment of its level).
template <int IN, int E, int SCHEME>
__global__ void __launch_bounds__(kThreads, E == 16 ? 2 : 3) kFp4Fast1(const void *w, i64 n, QuantPlan P, IntFast1 A)
{
    constexpr int L = E / kChunk; // 16-byte loads per unit
    constexpr bool kNv = SCHEME == kFp4Nv;
    __shared__ float sVal[16]; // the E2M1 value of each code (sign included)
    // NVFP4: the element counts of the level table, [block-scale byte][code] (IntFast1::levels).
    __shared__ unsigned sLev[kNv ? kNvLevels : 1];
    if (threadIdx.x < 16)
        sVal[threadIdx.x] = fp4::e2m1Value(static_cast<std::uint8_t>(threadIdx.x));
    if constexpr (kNv) {
        for (int i = threadIdx.x; i < kNvLevels; i += blockDim.x)
            sLev[i] = 0;
    }
    __syncthreads();
    const float global = SCHEME == kFp4Nv ? *P.nvGlobal : 1.0f; // NVFP4's FP32 global scale
    const i64 units = n / E;                                    // n is a multiple of the group size, itself of E
    const int lane = threadIdx.x % QS_WARP_SIZE;
    const int teamLog2 = P.teamLog2 - (E == 16 ? 1 : 0);
    const int team = 1 << teamLog2, sub = lane & (team - 1);
    const i64 stride = static_cast<i64>(gridDim.x) * blockDim.x;
    const uint4 *wq = static_cast<const uint4 *>(w);

    float mnW = finf(), mxW = -finf(), mnY = finf(), mxY = -finf(), emnF = finf(), emxF = -finf();
    double sumY = 0, se = 0, sy = 0, emnD = dinf(), emxD = -dinf();
    i64 nF = 0, nFY = 0;
    unsigned nonFinite = 0, inexact = 0;

    i64 k = static_cast<i64>(blockIdx.x) * blockDim.x + threadIdx.x;
    uint4 next[L];
#pragma unroll
    for (int l = 0; l < L; ++l)
        next[l] = k < units ? wq[k * L + l] : make_uint4(0, 0, 0, 0);
    for (i64 base = k - lane; base < units; base += stride, k += stride) {
        // A team is wholly active or wholly idle (units are whole teams), so its shuffles are safe.
        const bool act = k < units;
        float v[E];
#pragma unroll
        for (int l = 0; l < L; ++l)
            decode8<IN>(next[l], v + kChunk * l);
        if (k + stride < units) {
#pragma unroll
            for (int l = 0; l < L; ++l)
                next[l] = wq[(k + stride) * L + l];
        }
        bool finite = true;
#pragma unroll
        for (int l = 0; l < L; ++l)
            finite = finite & chunkFinite(v + kChunk * l);
        nonFinite |= finite ? 0u : 1u; // the engine reruns the generic kernels
        float mn = v[0], mx = v[0];
#pragma unroll
        for (int j = 1; j < E; ++j) {
            mn = fminf(mn, v[j]);
            mx = fmaxf(mx, v[j]);
        }
        for (int o = 1; o < team; o <<= 1) {
            mn = fminf(mn, QS_SHFL_XOR(mn, o));
            mx = fmaxf(mx, QS_SHFL_XOR(mx, o));
        }
        // The group's stored scale s and the scale the elements use, eff (NVFP4: b/global).
        float s, eff;
        bool exact = true;
        unsigned codes[E];
        unsigned levBase = 0; // NVFP4: the group's row of the level table
        if constexpr (kNv) {
            // b from its E4M3 byte (the CPU's rule, fp4_fast_math.h); the codes by seven
            // comparisons of |x| with the group's exact thresholds (nvCodeThresholds): no
            // division, no reciprocal, no near test.
            const std::uint32_t sb = gpumath::nvBlockByte(fp4::nvBlockTarget(fmaxf(fabsf(mn), fabsf(mx)), global));
            levBase = sb << 4;
            s = gpumath::decodeE4m3(sb);
            eff = fp4::nvEffective(s, global);
            float thr[7];
            gpumath::nvCodeThresholds(eff, thr);
#pragma unroll
            for (int j = 0; j < E; ++j)
                codes[j] = gpumath::nvCodeByThresholds(v[j], thr);
        } else {
            float r;
            s = fp4Pow2Scale<SCHEME>(P, mn, mx);
            eff = s;
            r = gpumath::pow2Reciprocal(s); // x·r is the CPU's x/s, bit for bit
            // Every error of the group an exact FP32 difference (fp4_fast_math.h: always for
            // MXFP4, for constOpt unless c is small). Otherwise the unit's errors go the FP64 route
            // below and pass 2 checks each element (kFastInexact): a per-element check here, as a
            // second version of the loop, made the kernel spill.
            exact = gpumath::fp4ErrorsExact(__fmul_rn(fmaxf(fabsf(mn), fabsf(mx)), r));
#pragma unroll
            for (int j = 0; j < E; ++j)
                codes[j] = gpumath::e2m1CodeNotNaN(__fmul_rn(v[j], r));
        }
        unsigned c4[4] = {0, 0, 0, 0}; // code counts, bytes (see IntFast1::counts)
        float y[E], cmn = finf(), cmx = -finf();
        double seC = 0;
#pragma unroll
        for (int l = 0; l < L; ++l) {
            unsigned nib0 = 0, nib1 = 0; // 4-bit counts of 8 elements: codes 0–7, 8–15
#pragma unroll
            for (int jj = 0; jj < kChunk; ++jj) {
                const int j = kChunk * l + jj;
                const unsigned c = codes[j];
                y[j] = __fmul_rn(sVal[c], eff); // fp4::fp4Dequant: value·eff, the CPU's product
                const float e = __fsub_rn(v[j], y[j]);
                if constexpr (kNv) // x̂ is rounded: check each error (Sterbenz)
                    exact = exact & gpumath::exactDifference(e, y[j]);
                seC = fma(static_cast<double>(e), static_cast<double>(e), seC);
                cmn = fminf(cmn, e);
                cmx = fmaxf(cmx, e);
                if constexpr (!kNv)
                    countLevelNibble(c, nib0, nib1);
            }
            if constexpr (!kNv)
                addLevelNibbles(nib0, nib1, c4);
        }
        if (act && exact) {
            se += seC;
            emnF = fminf(emnF, cmn);
            emxF = fmaxf(emxF, cmx);
        } else if (act) {
            inexact = 1;
            // Some FP32 difference may be rounded: this unit's errors in FP64 (exact differences
            // of two floats), as the CPU computes them.
#pragma unroll
            for (int j = 0; j < E; ++j) {
                const double ed = static_cast<double>(v[j]) - static_cast<double>(y[j]);
                se = fma(ed, ed, se);
                emnD = fmin(emnD, ed);
                emxD = fmax(emxD, ed);
            }
        }
        if constexpr (!kNv) {
            for (int o = 1; o < team; o <<= 1) {
#pragma unroll
                for (int i = 0; i < 4; ++i)
                    c4[i] += QS_SHFL_XOR(c4[i], o);
            }
        }
        if (!act)
            continue;
        const i64 g = k >> teamLog2;
        if (sub == 0) {
            A.scales[g] = s;
            A.zeros[g] = 0;
            A.bad[g] = 0;
            if constexpr (!kNv)
                reinterpret_cast<uint4 *>(A.counts)[g] = make_uint4(c4[0], c4[1], c4[2], c4[3]);
        }
        if constexpr (kNv) {
            // Each element counted at (b's byte, code): Ŵ's sums, histogram and moments come from
            // this table (≤ 2048 levels, kNvLevelsRow / kNvLevelsY) instead of per group.
#pragma unroll
            for (int j = 0; j < E; ++j)
                QS_ATOMIC_ADD(sLev + levBase + codes[j], 1u);
        }
        unsigned packed[E / 4];
#pragma unroll
        for (int q = 0; q < E / 4; ++q)
            packed[q] = codes[4 * q] | (codes[4 * q + 1] << 8) | (codes[4 * q + 2] << 16) | (codes[4 * q + 3] << 24);
        if constexpr (E == 16)
            reinterpret_cast<uint4 *>(A.codes)[k] = make_uint4(packed[0], packed[1], packed[2], packed[3]);
        else
            reinterpret_cast<uint2 *>(A.codes)[k] = make_uint2(packed[0], packed[1]);
        if (A.wHat) {
            float4 *o = reinterpret_cast<float4 *>(A.wHat) + (E / 4) * k;
#pragma unroll
            for (int q = 0; q < E / 4; ++q)
                o[q] = make_float4(y[4 * q], y[4 * q + 1], y[4 * q + 2], y[4 * q + 3]);
        }
        nF += E;
        mnW = fminf(mnW, mn);
        mxW = fmaxf(mxW, mx);
        // Ŵ of the group from its counts (NVFP4: from the level table after the pass): lane `sub`
        // of the team takes codes sub, sub + team, …
        if constexpr (!kNv) {
            for (int idx = sub; idx < 16; idx += team) {
                const unsigned word = (idx & 8) ? ((idx & 1) ? c4[3] : c4[2]) : ((idx & 1) ? c4[1] : c4[0]);
                const unsigned c = (word >> (8 * ((idx & 7) >> 1))) & 0xFFu;
                const float yv = __fmul_rn(sVal[idx], eff);
                nonFinite |= (c != 0 && !qmath::isFinite(yv)) ? 1u : 0u; // Ŵ overflows: the generic path
                const double yd = yv, cd = static_cast<double>(c);
                sumY = fma(cd, yd, sumY);
                sy = fma(cd, yd * yd, sy);
                mnY = c ? fminf(mnY, yv) : mnY;
                mxY = c ? fmaxf(mxY, yv) : mxY;
                nFY += c;
            }
        }
    }
    if (nonFinite | inexact)
        QS_ATOMIC_OR(A.flags, (nonFinite ? kFastNonFinite : 0u) | (inexact ? kFastInexact : 0u));
    if constexpr (kNv) {
        __syncthreads();
        flushCounts(sLev, kNvLevels, A.levels);
    }
    double d[kP1D];
    d[dSumW] = 0; // from W's value counts (kValueW)
    d[dMinW] = mnW;
    d[dMaxW] = mxW;
    d[dSumY] = sumY;
    d[dMinY] = mnY;
    d[dMaxY] = mxY;
    d[dSe] = se;
    d[dSx] = 0; // from W's value counts
    d[dSy] = sy;
    d[dSxy] = 0; // (Σx² + Σx̂² − Σe²)/2 once Σx² is known (kValueW)
    d[dEmin] = fmin(static_cast<double>(emnF), emnD);
    d[dEmax] = fmax(static_cast<double>(emxF), emxD);
    i64 iv[kP1I] = {};
    iv[iNF] = nF;
    iv[iNFY] = nFY;
    blockRow<kP1D, kP1I>(d, iv, P1Ops{}, A.pd, A.pi);
}

/// NVFP4's global scale from the FP8 range pass's per-block parts (~min key, max key, flags):
/// amax of W's values (an Inf among them makes the run leave the path), then nvGlobalScale, as
/// the generic path's kNvGlobal computes it from W's statistics. One block.
__global__ void __launch_bounds__(kThreads) kNvGlobalParts(const unsigned *parts, int blocks, float *out)
{
    __shared__ unsigned sk[2][kThreads / 32];
    unsigned k0 = 0, k1 = 0;
    for (int i = threadIdx.x; i < blocks; i += blockDim.x) {
        k0 = max(k0, parts[3 * i]);
        k1 = max(k1, parts[3 * i + 1]);
    }
    for (int o = QS_WARP_SIZE / 2; o > 0; o >>= 1) {
        k0 = max(k0, static_cast<unsigned>(QS_SHFL_XOR(k0, o)));
        k1 = max(k1, static_cast<unsigned>(QS_SHFL_XOR(k1, o)));
    }
    const int lane = threadIdx.x % QS_WARP_SIZE, warp = threadIdx.x / QS_WARP_SIZE;
    if (lane == 0) {
        sk[0][warp] = k0;
        sk[1][warp] = k1;
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        for (int i = 1; i < static_cast<int>(blockDim.x) / QS_WARP_SIZE; ++i) {
            k0 = max(k0, sk[0][i]);
            k1 = max(k1, sk[1][i]);
        }
        const bool any = k1 != 0; // no finite value has key 0
        const float mn = any ? gpumath::keyFloat(~k0) : 0.0f, mx = any ? gpumath::keyFloat(k1) : 0.0f;
        out[0] = fp4::nvGlobalScale(fmaxf(qmath::absf(mn), qmath::absf(mx)));
    }
}

/// Elements per thread: 16 when the group size allows (then teams are half as wide).
int fp4Fast1Elems(const QuantPlan &p)
{
    return p.group % 16 == 0 ? 16 : 8;
}

template <typename F> void dispatchFp4Fast1(int in, const QuantPlan &p, F &&f)
{
    dispatch16(in, [&](auto I) {
        constexpr int IN = decltype(I)::value;
        if (p.fp4 == kFp4Mx)
            fp4Fast1Elems(p) == 16 ? f(kFp4Fast1<IN, 16, kFp4Mx>) : f(kFp4Fast1<IN, 8, kFp4Mx>);
        else if (p.fp4 == kFp4Nv)
            fp4Fast1Elems(p) == 16 ? f(kFp4Fast1<IN, 16, kFp4Nv>) : f(kFp4Fast1<IN, 8, kFp4Nv>);
        else
            fp4Fast1Elems(p) == 16 ? f(kFp4Fast1<IN, 16, kFp4ConstOpt>) : f(kFp4Fast1<IN, 8, kFp4ConstOpt>);
    });
}

} // namespace

bool fp4FastPlan(const QuantPlan &p)
{
    return p.kind == kKindFp4 && p.fastGroup && p.group <= 128 &&
           (p.fp4 == kFp4Mx || p.fp4 == kFp4Nv || (p.fp4 == kFp4ConstOpt && !p.coUnrounded));
}

int blocksFp4Fast1(int in, const QuantPlan &p, i64 n, int sms)
{
    int r = 1;
    dispatchFp4Fast1(in, p, [&](auto *kernel) {
        int perSm = 0;
        QS_GPU_CHECK(qsOccupancyMaxActiveBlocksPerMultiprocessor(&perSm, kernel, kThreads, 0));
        const i64 need = (n / fp4Fast1Elems(p) + kThreads - 1) / kThreads;
        const i64 full = static_cast<i64>(perSm > 0 ? perSm : 1) * sms;
        r = static_cast<int>(std::max<i64>(1, std::min(need, full)));
    });
    return r;
}

void nvGlobalParts(const unsigned *parts, int blocks, float *out, void *stream)
{
    kNvGlobalParts<<<1, kThreads, 0, Sx(stream)>>>(parts, blocks, out);
    QS_GPU_CHECK_LAUNCH("nvGlobalParts");
}

void nvLevelsRow(const u64 *levels, const float *global, unsigned *flags, double *pd, i64 *pi, void *stream)
{
    levelsRow(NvLevels{levels, global}, 1, flags, pd, pi, stream);
}

void nvLevelsY(const u64 *levels, const float *global, const Stats1 *st, const float *Tw, int bins, u64 *hist,
               double *pd2, void *stream)
{
    levelsY(NvLevels{levels, global}, 1, st, Tw, bins, hist, pd2, stream);
}

void fp4Fast1(int in, const void *w, i64 n, const QuantPlan &p, const IntFast1 &a, int blocks, void *stream)
{
    dispatchFp4Fast1(in, p, [&](auto *kernel) { kernel<<<blocks, kThreads, 0, Sx(stream)>>>(w, n, p, a); });
    QS_GPU_CHECK_LAUNCH("fp4Fast1");
}

} // namespace quantscope::gpu::launch
