// SPDX-License-Identifier: MIT
// FP4 E2M1 on the value-table path (kernels.h: fp4FastPlan, fp4Fast1): MXFP4 (every shared-
// exponent mode) and constOpt pow2, whose group scales are powers of two, on row-local groups
// ≤ 128 of 16-bit inputs.
// Pass 1 quantizes in registers with no division (x/s is x times the exact reciprocal 2^−k,
// fp4_fast_math.h) and no per-element rounding decision other than the CPU's own (the E2M1 code as
// threshold comparisons, Ŵ = value·s by the CPU's product), keeps Σe² and the error extremes in
// FP32-exact form where fp4ErrorsExact vouches for it, and counts the 16 codes of each group. The
// rest of the run is the INT value-table path's kernels (int_quant.cu: Ŵ from the code counts,
// pass 2 with FP32 error thresholds, W from its value counts), which take the FP4 plan.
// NVFP4, constOpt unrounded and every other FP4 case run the generic kernels.
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

// A thread takes E = 8 or 16 consecutive elements of one group (16 when the group allows); a team
// of g/E lanes holds a group and reduces its range with shuffles (as kIntFast1). The per-element
// work is straight-line: t = x·2^−k (exact), the code by seven comparisons, Ŵ by one product, the
// error and its FP64 square, the code's 4-bit counter.
template <int IN, int E, int SCHEME>
__global__ void __launch_bounds__(kThreads, E == 16 ? 2 : 3) kFp4Fast1(const void *w, i64 n, QuantPlan P, IntFast1 A)
{
    constexpr int L = E / kChunk; // 16-byte loads per unit
    __shared__ float sVal[16];    // the E2M1 value of each code (sign included)
    if (threadIdx.x < 16)
        sVal[threadIdx.x] = fp4::e2m1Value(static_cast<std::uint8_t>(threadIdx.x));
    __syncthreads();
    const i64 units = n / E; // n is a multiple of the group size, itself of E
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
        const float s = fp4Pow2Scale<SCHEME>(P, mn, mx);
        const float r = gpumath::pow2Reciprocal(s); // x·r is the CPU's x/s, bit for bit
        // Every error of the group an exact FP32 difference (fp4_fast_math.h: always for MXFP4,
        // for constOpt unless c is small). Otherwise the unit's errors go the FP64 route below and
        // pass 2 checks each element (kFastInexact): a per-element check here, as a second version
        // of the loop, made the kernel spill.
        const float tmax = __fmul_rn(fmaxf(fabsf(mn), fabsf(mx)), r);
        const bool exact = gpumath::fp4ErrorsExact(tmax);
        unsigned codes[E];
        unsigned c4[4] = {0, 0, 0, 0}; // code counts, bytes (see IntFast1::counts)
        float y[E], cmn = finf(), cmx = -finf();
        double seC = 0;
        {
#pragma unroll
            for (int l = 0; l < L; ++l) {
                unsigned nib0 = 0, nib1 = 0; // 4-bit counts of 8 elements: codes 0–7, 8–15
#pragma unroll
                for (int jj = 0; jj < kChunk; ++jj) {
                    const int j = kChunk * l + jj;
                    const unsigned c = gpumath::e2m1CodeNotNaN(__fmul_rn(v[j], r));
                    codes[j] = c;
                    y[j] = __fmul_rn(sVal[c], s); // fp4::mxDequant / fp4Dequant: value·s
                    const float e = __fsub_rn(v[j], y[j]);
                    seC = fma(static_cast<double>(e), static_cast<double>(e), seC);
                    cmn = fminf(cmn, e);
                    cmx = fmaxf(cmx, e);
                    const unsigned inc = 1u << ((c & 7u) << 2);
                    const unsigned lo = c < 8u ? inc : 0u;
                    nib0 += lo;
                    nib1 += inc - lo;
                }
                c4[0] += nib0 & 0x0F0F0F0Fu;
                c4[1] += (nib0 >> 4) & 0x0F0F0F0Fu;
                c4[2] += nib1 & 0x0F0F0F0Fu;
                c4[3] += (nib1 >> 4) & 0x0F0F0F0Fu;
            }
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
        for (int o = 1; o < team; o <<= 1) {
#pragma unroll
            for (int i = 0; i < 4; ++i)
                c4[i] += QS_SHFL_XOR(c4[i], o);
        }
        if (!act)
            continue;
        const i64 g = k >> teamLog2;
        if (sub == 0) {
            A.scales[g] = s;
            A.zeros[g] = 0;
            A.bad[g] = 0;
            reinterpret_cast<uint4 *>(A.counts)[g] = make_uint4(c4[0], c4[1], c4[2], c4[3]);
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
        // Ŵ of the group from its counts: lane `sub` of the team takes codes sub, sub + team, …
        for (int idx = sub; idx < 16; idx += team) {
            const unsigned word = (idx & 8) ? ((idx & 1) ? c4[3] : c4[2]) : ((idx & 1) ? c4[1] : c4[0]);
            const unsigned c = (word >> (8 * ((idx & 7) >> 1))) & 0xFFu;
            const float yv = __fmul_rn(sVal[idx], s);
            nonFinite |= (c != 0 && !qmath::isFinite(yv)) ? 1u : 0u; // Ŵ overflows: the generic path
            const double yd = yv, cd = static_cast<double>(c);
            sumY = fma(cd, yd, sumY);
            sy = fma(cd, yd * yd, sy);
            mnY = c ? fminf(mnY, yv) : mnY;
            mxY = c ? fmaxf(mxY, yv) : mxY;
            nFY += c;
        }
    }
    if (nonFinite | inexact)
        QS_ATOMIC_OR(A.flags, (nonFinite ? kFastNonFinite : 0u) | (inexact ? kFastInexact : 0u));
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
        else
            fp4Fast1Elems(p) == 16 ? f(kFp4Fast1<IN, 16, kFp4ConstOpt>) : f(kFp4Fast1<IN, 8, kFp4ConstOpt>);
    });
}

} // namespace

bool fp4FastPlan(const QuantPlan &p)
{
    return p.kind == kKindFp4 && p.fastGroup && p.group <= 128 &&
           (p.fp4 == kFp4Mx || (p.fp4 == kFp4ConstOpt && !p.coUnrounded));
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

void fp4Fast1(int in, const void *w, i64 n, const QuantPlan &p, const IntFast1 &a, int blocks, void *stream)
{
    dispatchFp4Fast1(in, p, [&](auto *kernel) { kernel<<<blocks, kThreads, 0, Sx(stream)>>>(w, n, p, a); });
    QS_GPU_CHECK_LAUNCH("fp4Fast1");
}

} // namespace quantscope::gpu::launch
