// SPDX-License-Identifier: MIT
// INT quantization on the value-table path (QuantPlan::fastGroup: row-local groups ≤ 128, ≤ 16
// levels, FP32 arithmetic and scales) for 16-bit inputs (BF16, F16). Pass 1 quantizes in
// registers, keeps Σe² and the error extremes, and counts the codes of each group (Ŵ takes ≤ 16
// values per group, so Ŵ's histogram and moments come from the counts); pass 2 counts W's values
// (value_counts.cuh) and bins the errors with FP32 threshold tables (errors are FP32 values:
// checked per element, FP64 otherwise); W's histogram, sums and moments come from the value counts.
// Other INT specs run the generic kernels (quantize.cu, metric_passes.cu). The FP4 value-table
// path (fp4_quant.cu) has its own pass 1 and shares the kernels after it (kGroupsY, kIntFast2 and
// kValueW with FP4 = true: the level of a code is its E2M1 nibble, x̂ = value·s).
//
// Same contract as quantize.cu: the quantizer and bin decisions are the QS_HD functions the CPU
// reference runs; no FMA contraction (-fmad=false); sums in FP64, reduced in a fixed order.
#define QS_HD __host__ __device__

#include "value_counts.cuh"

namespace quantscope::gpu::launch {

namespace {

// ---- INT per group, pass 1 ----------------------------------------------------------------------

// The per-element work is straight-line code (selects, no branches). A group whose extreme codes
// need no clamp (the usual case) runs without clamps and exactness checks; a quotient near a
// rounding boundary takes the division for that element only (a warp-wide branch per element,
// rarely taken: with one branch per unit, half of all warps ran the 16 divisions). A thread takes
// E = 8 or 16 consecutive elements (16 when the group allows: half the per-unit work per element).
template <int IN, int E, bool SYM>
__global__ void __launch_bounds__(kThreads, E == 16 ? 2 : 3) kIntFast1(const void *w, i64 n, QuantPlan P, IntFast1 A)
{
    constexpr int L = E / kChunk; // 16-byte loads per unit
    IntParams ip = P.ip;          // the options this path runs with, folded at compile time
    ip.arith = 0;
    ip.halfAway = false;
    ip.scaleDtype = 0;
    const i64 units = n / E; // n is a multiple of the group size, itself of E
    const int lane = threadIdx.x % QS_WARP_SIZE;
    const int teamLog2 = P.teamLog2 - (E == 16 ? 1 : 0);
    const int team = 1 << teamLog2, sub = lane & (team - 1);
    const i64 stride = static_cast<i64>(gridDim.x) * blockDim.x;
    const float qminF = static_cast<float>(ip.qmin), qmaxF = static_cast<float>(ip.qmax);
    const int levels = ip.qmax - ip.qmin + 1;
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
        // Units are a whole number of teams and teams never straddle a warp: a team is wholly
        // active or wholly idle, so its shuffles are safe.
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
        nonFinite |= finite ? 0u : 1u;
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
        float s;
        int z;
        intGroupParams(ip, mn, mx, s, z);
        const float zf = static_cast<float>(z);
        // x/s by the correctly rounded reciprocal: within 3·2^-24 relative of the correctly
        // rounded quotient, so both round to the same integer unless a half-integer lies within
        // 2^-21·|t| of t. There, and for scales whose reciprocal is not normal, the division
        // itself (intCodeValue, the CPU's op sequence), element by element.
        const float r = 1.0f / s;
        const bool sNormal = s >= 1.1754943508222875e-38f && s < 4.2535295865117308e37f;
        // The unclamped code rint(RN(x/s)) + z is monotone in x, so the group's extremes bound it
        // for every element: when they need no clamping, no element does. Then every error is an
        // exact FP32 difference (Sterbenz: |q − z| ≥ 2 gives |e| ≤ |x̂|/2; |q − z| = 1 gives
        // x̂ = ±s and |x/s| ∈ (1/2, 3/2]; q = z gives x̂ = 0), so neither the clamp nor the
        // per-element exactness check is needed (device_math.h, tested on the host).
        // Symmetric groups instead clamp one level over (their positive extreme, 7.5·s, rounds to 8
        // and is clamped to 7) with errors that stay exact (groupErrorsExact): the clamp stays, the
        // exactness check goes. Each kernel has the two versions its kind of group needs (a third
        // made the asymmetric kernel 5 % slower). Decided for the whole warp: its teams would
        // otherwise run both versions one after the other.
        const bool fastVersion = SYM ? QS_ALL(sNormal && gpumath::groupErrorsExact(mn, mx, s, r, zf, qminF, qmaxF))
                                     : QS_ALL(sNormal && gpumath::groupCodesInRange(mn, mx, s, r, zf, qminF, qmaxF));
        // One threshold for the unit: |t| ≤ max(|RN(mn·r)|, |RN(mx·r)|) (t is monotone in x).
        const float safeBelow = gpumath::reciprocalSafeBelow(fmaxf(fabsf(__fmul_rn(mn, r)), fabsf(__fmul_rn(mx, r))));
        float qv[E];
        unsigned nearMask = sNormal ? 0u : 0xFFFFu;
        unsigned codes[E];
        unsigned c4[4] = {0, 0, 0, 0}; // code counts, bytes (see IntFast1::counts)
        float y[E], cmn = finf(), cmx = -finf();
        double seC = 0;
        bool exact = true;
        auto body = [&](auto clampTag, auto checkTag) {
            constexpr bool kClamp = decltype(clampTag)::value, kCheck = decltype(checkTag)::value;
#pragma unroll
            for (int j = 0; j < E; ++j) {
                const float t = __fmul_rn(v[j], r);
                const float rt = rintf(t);
                nearMask |= fabsf(__fsub_rn(t, rt)) < safeBelow ? 0u : (1u << j); // NaN: near
                qv[j] = kClamp ? fminf(fmaxf(__fadd_rn(rt, zf), qminF), qmaxF) : __fadd_rn(rt, zf);
            }
            if (nearMask) {
#pragma unroll
                for (int j = 0; j < E; ++j)
                    if (nearMask & (1u << j))
                        qv[j] = gpumath::intCodeValue(ip, v[j], s, zf, qminF, qmaxF);
            }
#pragma unroll
            for (int l = 0; l < L; ++l) {
                unsigned nib0 = 0, nib1 = 0; // 4-bit counts of 8 elements: levels 0–7, 8–15
#pragma unroll
                for (int jj = 0; jj < kChunk; ++jj) {
                    const int j = kChunk * l + jj;
                    const unsigned bits = qmath::bitsOf(__fadd_rn(qv[j], 12582912.0f)); // 1.5·2^23 + q
                    codes[j] = bits & 0xFFu;
                    y[j] = gpumath::intDequantValue(ip, qv[j], s, zf);
                    const float e = __fsub_rn(v[j], y[j]);
                    if constexpr (kCheck)
                        exact = exact & gpumath::exactDifference(e, y[j]);
                    seC = fma(static_cast<double>(e), static_cast<double>(e), seC);
                    cmn = fminf(cmn, e);
                    cmx = fmaxf(cmx, e);
                    countLevelNibble((bits - static_cast<unsigned>(ip.qmin)) & 15u, nib0, nib1);
                }
                addLevelNibbles(nib0, nib1, c4);
            }
        };
        if (!fastVersion)
            body(std::true_type{}, std::true_type{});
        else if constexpr (SYM)
            body(std::true_type{}, std::false_type{});
        else
            body(std::false_type{}, std::false_type{});
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
        // Per-group code counts: bytes, summed over the team.
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
            A.zeros[g] = static_cast<signed char>(z);
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
        // Ŵ of the group from its counts: lane `sub` of the team takes levels sub, sub + team, …
        for (int idx = sub; idx < levels; idx += team) {
            const unsigned word = (idx & 8) ? ((idx & 1) ? c4[3] : c4[2]) : ((idx & 1) ? c4[1] : c4[0]);
            const unsigned c = (word >> (8 * ((idx & 7) >> 1))) & 0xFFu;
            const float yv = gpumath::intDequantValue(ip, __fadd_rn(qminF, static_cast<float>(idx)), s, zf);
            nonFinite |= (c != 0 && !qmath::isFinite(yv)) ? 1u : 0u;
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

// ---- INT per group: Ŵ from the code counts ------------------------------------------------------

template <bool FP4>
__global__ void __launch_bounds__(kThreads)
    kGroupsY(QuantPlan P, const uint4 *counts, const float *scales, const signed char *zeros, const Stats1 *st,
             const float *Tw, int B, u64 *hist, double *pd2)
{
    extern __shared__ unsigned hy[]; // Ŵ[B], below, above; then the thresholds
    const float *sTw = clearWHatBins(hy, B, Tw);
    __syncthreads();
    IntParams ip = P.ip;
    ip.arith = 0;
    const float qminF = static_cast<float>(ip.qmin);
    const int levels = FP4 ? 16 : ip.qmax - ip.qmin + 1;
    const Stats1 &S = *st;
    const double meanY = S.meanY;
    const float loF = sTw[0], hiF = sTw[B], wScale = S.wScale, wOff = S.wOffset;
    double s2 = 0, s3 = 0, s4 = 0;
    // A group per thread, straight-line: a level with no elements adds 0 to the moments and skips
    // only its atomic. The levels are visited in an order rotated by the lane, so the lanes of a
    // warp (neighbouring groups, similar scales) add to different bins at each step instead of
    // all to the bin of the same level. With an accurate guess (fastBins) one comparison decides
    // the bin; otherwise the corrected search (binW).
    auto run = [&](auto fastTag) {
        constexpr bool kFast = decltype(fastTag)::value;
        const int rot = static_cast<int>(threadIdx.x & 15u);
        for (i64 g = static_cast<i64>(blockIdx.x) * blockDim.x + threadIdx.x; g < P.groups;
             g += static_cast<i64>(gridDim.x) * blockDim.x) {
            const uint4 cw = counts[g]; // byte b of word i: level 8(i/2) + 2b + i%2
            // FP4: the scale the elements use (NVFP4: b/global, fp4Effective).
            const float s = FP4 ? fp4Effective(P, scales[g]) : scales[g], zf = static_cast<float>(zeros[g]);
#pragma unroll 4
            for (int step = 0; step < 16; ++step) {
                const int idx = (step + rot) & 15;
                const unsigned word = (idx & 8) ? ((idx & 1) ? cw.w : cw.z) : ((idx & 1) ? cw.y : cw.x);
                const unsigned c = idx < levels ? (word >> (8 * ((idx & 7) >> 1))) & 0xFFu : 0u;
                // FP4: the code's E2M1 value times s (fp4::fp4Dequant, the CPU's product).
                const float y = FP4 ? fp4::fp4Dequant(static_cast<std::uint8_t>(idx), s)
                                    : gpumath::intDequantValue(ip, __fadd_rn(qminF, static_cast<float>(idx)), s, zf);
                int b = 0;
                if constexpr (kFast) {
                    const int r = roundGuess(__fmul_rn(__fsub_rn(y, wOff), wScale), B);
                    b = y < loF ? B : (y > hiF ? B + 1 : oneStepBin(y, r, sTw));
                } else if (c != 0) {
                    const int r = binW(y, sTw, B, wScale, wOff);
                    b = r < 0 ? B : (r >= B ? B + 1 : r);
                }
                if (c != 0)
                    QS_ATOMIC_ADD(hy + b, c);
                // An empty level adds exact zeros (its x̂ may not even be finite: levels ≥ `levels`).
                const double cd = static_cast<double>(c), dv = c ? static_cast<double>(y) - meanY : 0.0, d2 = dv * dv;
                s2 = fma(cd, d2, s2);
                s3 = fma(cd, d2 * dv, s3);
                s4 = fma(cd, d2 * d2, s4);
            }
        }
    };
    if (S.fastBins & 1)
        run(std::true_type{});
    else
        run(std::false_type{});
    __syncthreads();
    flushWHatBins(hy, B, hist);
    double d[kP2D] = {0, 0, 0, s2, s3, s4};
    blockRow<kP2D, 0>(d, nullptr, SumOps{}, pd2, nullptr);
}

/// x̂ = (q − z)·s of the int8 code in byte j of a chunk's code words, XORed with 0x80 per byte:
/// the float 2^23 + (q + 128) (one byte permute) minus K = 2^23 + 128 + z is q − z exactly, so
/// no int→float conversion; the product is the CPU's (intDequantValue: s·(q − z), one rounding).
QS_DEV float dequantByte(const unsigned cc[2], int j, float K, float s)
{
    const unsigned qb = __byte_perm(cc[j / 4], 0x4B000000u, 0x7650u + (j % 4));
    return __fmul_rn(__fsub_rn(qmath::fromBits(qb), K), s);
}

// ---- INT per group, pass 2: W's values, error histograms -----------------------------------------

// MODE: 0 INT, 1 FP4 (the level is the E2M1 nibble, x̂ = value·s), 2 ProgressiveSpec (INT's x̂
// times stage 1's scale, progOuter's product; P.teamLog2 = log2(cols/8): a row per group).
template <int IN, int MODE>
__global__ void __launch_bounds__(kPass2Threads, 1) kIntFast2(const void *w, i64 n, QuantPlan P, IntFast2 A)
{
    constexpr bool FP4 = MODE == 1;
    __shared__ float sVal[16]; // FP4: the E2M1 value of each code (sign included)
    if (FP4 && threadIdx.x < 16)
        sVal[threadIdx.x] = fp4::e2m1Value(static_cast<std::uint8_t>(threadIdx.x));
    extern __shared__ unsigned smem2[];
    const int B = A.bins;
    unsigned *vh = smem2;                                  // vcWords<IN>
    unsigned *he = vh + vcWords<IN>;                       // error[B]
    unsigned *ha = he + B;                                 // |error|[4096]
    float *sTe = reinterpret_cast<float *>(ha + kAbsBins); // B + 1
    float *sTa = sTe + (B + 1);                            // 4097
    vcClear<IN>(vh);
    for (int i = threadIdx.x; i < B + kAbsBins; i += blockDim.x)
        he[i] = 0;
    for (int i = threadIdx.x; i < B + 1; i += blockDim.x)
        sTe[i] = A.Te[i];
    for (int i = threadIdx.x; i < kAbsBins + 1; i += blockDim.x)
        sTa[i] = A.Ta[i];
    __syncthreads();
    __syncthreads();
    if (threadIdx.x == 0) { // sentinels: bin = guess − (v < T[guess]) for every guess in [0, B]
        sTe[0] = -finf();
        sTa[0] = -finf();
        sTe[B] = finf();
        sTa[kAbsBins] = finf();
    }
    __syncthreads();
    const Stats1 &S = *A.st;
    const float eScale = S.eScale, eOff = S.eOffset, aScale = S.aScale;
    const bool fast = (S.fastBins & 6) == 6; // both guesses within half a bin: one comparison
    // Pass 1 found every error an exact FP32 difference (the usual case): no check per element.
    const bool allExact = (*A.flags & kFastInexact) == 0;
    const double emin = S.emin, emax = S.emax, maxAbs = S.maxAbs;
    const i64 chunks = n / kChunk;
    const i64 stride = static_cast<i64>(gridDim.x) * blockDim.x;
    const uint4 *wq = static_cast<const uint4 *>(w);
    const uint2 *cq = reinterpret_cast<const uint2 *>(A.codes);
    // One chunk of 8 elements: W's values counted and decoded, the code bytes (XORed with 0x80 per
    // byte, see dequantByte), the scale and K = 2^23 + 128 + z. Backwards: pass 1 ended at the top
    // of the tensor, whose lines are still in L2.
    auto chunk = [&](i64 t, float x[kChunk], unsigned cc[2], float &s, float &K) {
        const i64 k = chunks - 1 - t;
        const uint4 raw = wq[k];
        const uint2 cw = cq[k];
        const i64 g = k >> P.teamLog2;
        s = FP4 ? fp4Effective(P, A.scales[g]) : A.scales[g]; // NVFP4: b/global
        K = FP4 ? 0.0f : __fadd_rn(8388736.0f, static_cast<float>(A.zeros[g]));
        vcAdd8<IN>(vh, A.gvh, raw);
        decode8<IN>(raw, x);
        cc[0] = FP4 ? cw.x : cw.x ^ 0x80808080u;
        cc[1] = FP4 ? cw.y : cw.y ^ 0x80808080u;
    };
    const float s1 = MODE == 2 ? *P.outerScale : 1.0f;
    // x̂ of element j: INT by the byte permute (dequantByte), FP4 the code's value times s.
    auto yOf = [&](const unsigned cc[2], int j, float K, float s) {
        if constexpr (FP4)
            return __fmul_rn(sVal[(cc[j / 4] >> (8 * (j % 4))) & 15u], s);
        else if constexpr (MODE == 2)
            return __fmul_rn(dequantByte(cc, j, K, s), s1);
        else
            return dequantByte(cc, j, K, s);
    };
    const i64 first = static_cast<i64>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (fast && allExact) {
        // The usual case, straight-line. The |error| bin from its FP32 position (one FMA), which
        // decides alone unless it lies within a few 2^-20 of a bin edge (gpumath::bandBin): the
        // 4096-entry table, 3.3 bank wavefronts per read, is read for about one element in a
        // hundred. The error's 256 bins: the rounded position and one table read (few conflicts
        // there: errors crowd the middle bins, and a word many lanes read is one broadcast).
        // The positions lie in [0, B] for errors in [emin, emax] (fastBins), and the sentinels
        // T[0] = −inf, T[B] = +inf make the comparison clamp-free.
        const gpumath::Band bE = gpumath::band(emin, emax, eScale, B);
        const gpumath::Band bA = gpumath::band(0.0, maxAbs, aScale, kAbsBins);
        for (i64 t = first; t < chunks; t += stride) {
            float x[kChunk], s, K;
            unsigned cc[2];
            chunk(t, x, cc, s, K);
#pragma unroll
            for (int j = 0; j < kChunk; ++j) {
                const float e = __fsub_rn(x[j], yOf(cc, j, K, s));
                const float ae = fabsf(e);
                const int re =
                    static_cast<int>(qmath::bitsOf(__fadd_rn(__fmaf_rn(e, bE.scale, bE.offset), 12582912.0f))) -
                    0x4B400000;
                const int be = re - (e < sTe[re] ? 1 : 0);
                const int ba =
                    gpumath::bandBin(ae, __fmaf_rn(ae, bA.scale, bA.offset), bA.eps, [&](int r) { return sTa[r]; });
                QS_ATOMIC_ADD(he + be, 1u);
                QS_ATOMIC_ADD(ha + ba, 1u);
            }
        }
    } else {
        for (i64 t = first; t < chunks; t += stride) {
            float x[kChunk], e[kChunk], s, K;
            unsigned cc[2];
            chunk(t, x, cc, s, K);
            int be[kChunk], ba[kChunk];
            bool exact = true;
#pragma unroll
            for (int j = 0; j < kChunk; ++j) {
                const float y = yOf(cc, j, K, s);
                e[j] = __fsub_rn(x[j], y);
                exact = exact & (allExact || gpumath::exactDifference(e[j], y));
                const float ae = fabsf(e[j]);
                be[j] = roundGuess(__fmul_rn(__fsub_rn(e[j], eOff), eScale), B);
                ba[j] = roundGuess(__fmul_rn(ae, aScale), kAbsBins);
                if (fast) { // uniform across the grid
                    be[j] -= e[j] < sTe[be[j]] ? 1 : 0;
                    ba[j] -= ae < sTa[ba[j]] ? 1 : 0;
                } else {
                    be[j] = correctBin(e[j], be[j], sTe, B);
                    ba[j] = correctBin(ae, ba[j], sTa, kAbsBins);
                }
            }
            if (!exact) {
                // A rounded FP32 difference: these elements' bins from the exact FP64 error.
#pragma unroll
                for (int j = 0; j < kChunk; ++j) {
                    const float y = yOf(cc, j, K, s);
                    if (gpumath::exactDifference(e[j], y))
                        continue;
                    const double ed = static_cast<double>(x[j]) - static_cast<double>(y);
                    const int b1 = gpumath::histBin(ed, emin, emax, B);
                    be[j] = b1 < 0 ? 0 : (b1 >= B ? B - 1 : b1);
                    const int b2 = gpumath::histBin(fabs(ed), 0.0, maxAbs, kAbsBins);
                    ba[j] = b2 < 0 ? 0 : (b2 >= kAbsBins ? kAbsBins - 1 : b2);
                }
            }
#pragma unroll
            for (int j = 0; j < kChunk; ++j) {
                QS_ATOMIC_ADD(he + be[j], 1u);
                QS_ATOMIC_ADD(ha + ba[j], 1u);
            }
        }
    }
    __syncthreads();
    vcFlush<IN>(vh, A.gvh);
    flushCounts(he, B, A.hist + 2 * B);
    flushCounts(ha, kAbsBins, A.hist + 3 * B);
}

// ---- W from its value counts (INT path) ---------------------------------------------------------

/// One cooperative launch over the 65536 values: Σx, Σx² weighted by the counts → (grid barrier)
/// → W's mean (unless W's stats were given), Σx², Σxx̂ = (Σx² + Σx̂² − Σe²)/2 into Stats1, W's
/// histogram (the CPU's bin formula per value) and the rows of W's central moments.
template <int IN>
__global__ void __launch_bounds__(kCoopThreads)
    kValueW(const unsigned *gvh, int B, bool keepW, bool wMoments, unsigned *flags, unsigned *bar, double *pv,
            Stats1 *stG, u64 *hist, double *pd2)
{
    extern __shared__ unsigned hw[]; // W[B], below, above
    __shared__ double sums[2];
    __shared__ Stats1 st;
    for (int i = threadIdx.x; i < B + 2; i += blockDim.x)
        hw[i] = 0;
    const unsigned key = blockIdx.x * blockDim.x + threadIdx.x;
    const unsigned c = gvh[key];
    const float x = decodeHalf<IN>(key);
    const bool counted = c != 0 && qmath::isFinite(x);
    if (c != 0 && !qmath::isFinite(x))
        QS_ATOMIC_OR(flags, kFastNonFinite);
    const double xd = x, cd = static_cast<double>(c);
    {
        double d[2] = {0, 0};
        if (counted) {
            d[0] = cd * xd;
            d[1] = cd * (xd * xd);
        }
        blockRow<2, 0>(d, nullptr, SumOps{}, pv, nullptr);
    }
    gridBarrier(bar);
    if (threadIdx.x < 2 * QS_WARP_SIZE) {
        const int f = threadIdx.x / QS_WARP_SIZE;
        const double v = warpColumn<double>(pv, 2, f, kCoopBlocks, 0.0, [](double a, double b) { return a + b; });
        if (threadIdx.x % QS_WARP_SIZE == 0)
            sums[f] = v;
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        st = *stG;
        if (!keepW) { // W's stats given at open: their sum and mean stay
            st.d[dSumW] = sums[0];
            st.meanW = st.i[iNF] > 0 ? gpumath::ddiv(sums[0], static_cast<double>(st.i[iNF])) : 0.0;
        }
        st.d[dSx] = sums[1];
        st.d[dSxy] = 0.5 * ((sums[1] + st.d[dSy]) - st.d[dSe]);
    }
    __syncthreads();
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        stG->d[dSumW] = st.d[dSumW];
        stG->meanW = st.meanW;
        stG->d[dSx] = st.d[dSx];
        stG->d[dSxy] = st.d[dSxy];
    }
    double d[kP2D] = {};
    if (counted) {
        const int b = gpumath::histBin(xd, st.lo, st.hi, B);
        QS_ATOMIC_ADD(hw + (b < 0 ? B : (b >= B ? B + 1 : b)), c);
        if (wMoments) {
            const double dx = xd - st.meanW, dx2 = dx * dx;
            d[dS2W] = cd * dx2;
            d[dS3W] = cd * (dx2 * dx);
            d[dS4W] = cd * (dx2 * dx2);
        }
    }
    blockRow<kP2D, 0>(d, nullptr, SumOps{}, pd2, nullptr); // its barrier also orders the counts
    flushCounts(hw, B, hist);
    if (threadIdx.x < 2 && hw[B + threadIdx.x])
        QS_ATOMIC_ADD(hist + 3 * B + kAbsBins + threadIdx.x, static_cast<u64>(hw[B + threadIdx.x]));
}

} // namespace

/// Elements per thread of INT pass 1: 16 when the group size allows (then teams are half as wide).
int intFast1Elems(const QuantPlan &p)
{
    return p.group % 16 == 0 ? 16 : 8;
}

template <typename F> void dispatchIntFast1(int in, const QuantPlan &p, F &&f)
{
    dispatch16(in, [&](auto I) {
        constexpr int IN = decltype(I)::value;
        if (p.ip.symmetric)
            intFast1Elems(p) == 16 ? f(kIntFast1<IN, 16, true>) : f(kIntFast1<IN, 8, true>);
        else
            intFast1Elems(p) == 16 ? f(kIntFast1<IN, 16, false>) : f(kIntFast1<IN, 8, false>);
    });
}

int blocksIntFast1(int in, const QuantPlan &p, i64 n, int sms)
{
    int r = 1;
    dispatchIntFast1(in, p, [&](auto *kernel) {
        int perSm = 0;
        QS_GPU_CHECK(qsOccupancyMaxActiveBlocksPerMultiprocessor(&perSm, kernel, kThreads, 0));
        const i64 need = (n / intFast1Elems(p) + kThreads - 1) / kThreads;
        const i64 full = static_cast<i64>(perSm > 0 ? perSm : 1) * sms;
        r = static_cast<int>(std::max<i64>(1, std::min(need, full)));
    });
    return r;
}

void intFast1(int in, const void *w, i64 n, const QuantPlan &p, const IntFast1 &a, int blocks, void *stream)
{
    dispatchIntFast1(in, p, [&](auto *kernel) { kernel<<<blocks, kThreads, 0, Sx(stream)>>>(w, n, p, a); });
    QS_GPU_CHECK_LAUNCH("intFast1");
}

int blocksGroupsY(i64 groups, int sms)
{
    const i64 need = (groups + kThreads - 1) / kThreads; // a group per thread
    return static_cast<int>(std::max<i64>(1, std::min<i64>(need, static_cast<i64>(sms) * 8)));
}

void groupsY(const QuantPlan &p, const unsigned char *counts, const float *scales, const signed char *zeros,
             const Stats1 *st, const float *Tw, int bins, u64 *hist, double *pd2, int blocks, void *stream)
{
    const std::size_t smem =
        sizeof(unsigned) * (static_cast<std::size_t>(bins) + 2) + sizeof(float) * (static_cast<std::size_t>(bins) + 1);
    auto *k = p.kind == kKindFp4 ? kGroupsY<true> : kGroupsY<false>;
    allowShared(k, smem);
    k<<<blocks, kThreads, smem, Sx(stream)>>>(p, reinterpret_cast<const uint4 *>(counts), scales, zeros, st, Tw, bins,
                                              hist, pd2);
    QS_GPU_CHECK_LAUNCH("groupsY");
}

void intFast2(int in, const void *w, i64 n, const QuantPlan &p, const IntFast2 &a, int sms, void *stream)
{
    dispatch16(in, [&](auto I) {
        constexpr int IN = decltype(I)::value;
        const std::size_t smem = sizeof(unsigned) * (vcWords<IN> + static_cast<std::size_t>(a.bins) + kAbsBins) +
                                 sizeof(float) * (static_cast<std::size_t>(a.bins) + 1 + kAbsBins + 1);
        auto *k = p.kind == kKindFp4 ? kIntFast2<IN, 1> : (p.kind == kKindProg ? kIntFast2<IN, 2> : kIntFast2<IN, 0>);
        allowShared(k, smem);
        k<<<sms, kPass2Threads, smem, Sx(stream)>>>(w, n, p, a);
    });
    QS_GPU_CHECK_LAUNCH("intFast2");
}

int valueWRows()
{
    return kCoopBlocks;
}

void valueW(int in, const unsigned *gvh, const HistConfig &hc, unsigned *flags, unsigned *bar, double *pv, Stats1 *st,
            u64 *hist, double *pd2, void *stream)
{
    dispatch16(in, [&](auto I) {
        auto *k = kValueW<decltype(I)::value>;
        const std::size_t smem = sizeof(unsigned) * (static_cast<std::size_t>(hc.bins) + 2);
        allowShared(k, smem);
        int B = hc.bins;
        bool keepW = hc.wSource == 2, wMoments = hc.wMoments;
        void *args[] = {&gvh, &B, &keepW, &wMoments, &flags, &bar, &pv, &st, &hist, &pd2};
        QS_GPU_CHECK(qsLaunchCooperativeKernel(k, dim3(kCoopBlocks), dim3(kCoopThreads), args, smem, Sx(stream)));
    });
    QS_GPU_CHECK_LAUNCH("valueW");
}

} // namespace quantscope::gpu::launch
