// SPDX-License-Identifier: MIT
#pragma once
/// \file kernel_common.cuh
/// Device helpers shared by the kernel sources (quantize.cu, metric_passes.cu, int_quant.cu,
/// fp8_quant.cu): loading and decoding chunks, the group arithmetic, fixed-order block reductions,
/// the exact histogram bin correction, and the host-side dispatch of the launchers.
/// Included after QS_HD is defined as `__host__ __device__`; one copy per translation unit.
#include <type_traits>

#include "kernels.h"
#include "qs_gpu_compat.h"

namespace quantscope::gpu::launch {

namespace {

#define QS_DEV __device__ __forceinline__

constexpr int kThreads = 256;

QS_DEV float finf()
{
    return qmath::fromBits(0x7F800000u);
}
QS_DEV double dinf()
{
    return gpumath::dfromBits(0x7FF0000000000000ull);
}

// ---- loading ----------------------------------------------------------------------------------

template <int IN> QS_DEV float decode1(const void *p, i64 i)
{
    if constexpr (IN == kInF32)
        return static_cast<const float *>(p)[i];
    else if constexpr (IN == kInBf16)
        return gpumath::bf16ToF32(static_cast<const unsigned short *>(p)[i]);
    else
        return gpumath::f16ToF32(static_cast<const unsigned short *>(p)[i]);
}

template <int IN> QS_DEV float decodeHalf(unsigned h)
{
    if constexpr (IN == kInBf16)
        return gpumath::bf16ToF32(h);
    else
        return gpumath::f16ToF32(h);
}

/// Chunk k (elements 8k..8k+7); returns how many exist.
template <int IN> QS_DEV int loadChunk(const void *p, i64 n, i64 k, float v[kChunk])
{
    const i64 i0 = k * kChunk;
    if (i0 + kChunk <= n) {
        if constexpr (IN == kInF32) {
            const float4 *q = static_cast<const float4 *>(p) + 2 * k;
            const float4 a = q[0], b = q[1];
            v[0] = a.x, v[1] = a.y, v[2] = a.z, v[3] = a.w, v[4] = b.x, v[5] = b.y, v[6] = b.z, v[7] = b.w;
        } else {
            const uint4 u = static_cast<const uint4 *>(p)[k];
            const unsigned w[4] = {u.x, u.y, u.z, u.w};
#pragma unroll
            for (int j = 0; j < 4; ++j) {
                v[2 * j] = decodeHalf<IN>(w[j] & 0xFFFFu);
                v[2 * j + 1] = decodeHalf<IN>(w[j] >> 16);
            }
        }
        return kChunk;
    }
    const int c = i0 < n ? static_cast<int>(n - i0) : 0;
#pragma unroll
    for (int j = 0; j < kChunk; ++j)
        v[j] = j < c ? decode1<IN>(p, i0 + j) : 0.0f;
    return c;
}

/// The stored bits of chunk k, loaded now and decoded later (so the next chunk's load is in
/// flight while the current one is processed).
struct RawChunk {
    uint4 a, b;
};

template <int IN> QS_DEV void loadRaw(const void *p, i64 n, i64 k, RawChunk &r)
{
    const i64 i0 = k * kChunk;
    if (i0 + kChunk <= n) {
        if constexpr (IN == kInF32) {
            const uint4 *q = static_cast<const uint4 *>(p) + 2 * k;
            r.a = q[0];
            r.b = q[1];
        } else {
            r.a = static_cast<const uint4 *>(p)[k];
        }
        return;
    }
    unsigned w[8] = {};
    for (int j = 0; j < kChunk; ++j)
        if (i0 + j < n) {
            if constexpr (IN == kInF32)
                w[j] = static_cast<const unsigned *>(p)[i0 + j];
            else
                w[j] = static_cast<const unsigned short *>(p)[i0 + j];
        }
    if constexpr (IN == kInF32) {
        r.a = make_uint4(w[0], w[1], w[2], w[3]);
        r.b = make_uint4(w[4], w[5], w[6], w[7]);
    } else {
        r.a = make_uint4(w[0] | (w[1] << 16), w[2] | (w[3] << 16), w[4] | (w[5] << 16), w[6] | (w[7] << 16));
    }
}

template <int IN> QS_DEV int decodeRaw(const RawChunk &r, i64 n, i64 k, float v[kChunk])
{
    if constexpr (IN == kInF32) {
        const unsigned w[8] = {r.a.x, r.a.y, r.a.z, r.a.w, r.b.x, r.b.y, r.b.z, r.b.w};
#pragma unroll
        for (int j = 0; j < kChunk; ++j)
            v[j] = qmath::fromBits(w[j]);
    } else {
        const unsigned w[4] = {r.a.x, r.a.y, r.a.z, r.a.w};
#pragma unroll
        for (int j = 0; j < 4; ++j) {
            v[2 * j] = decodeHalf<IN>(w[j] & 0xFFFFu);
            v[2 * j + 1] = decodeHalf<IN>(w[j] >> 16);
        }
    }
    const i64 i0 = k * kChunk;
    const i64 c = n - i0;
    const int cnt = c >= kChunk ? kChunk : (c > 0 ? static_cast<int>(c) : 0);
#pragma unroll
    for (int j = 0; j < kChunk; ++j)
        if (j >= cnt)
            v[j] = 0.0f;
    return cnt;
}

QS_DEV void loadY(const float *y, i64 n, i64 k, float v[kChunk])
{
    const i64 i0 = k * kChunk;
    if (i0 + kChunk <= n) {
        const float4 *q = reinterpret_cast<const float4 *>(y) + 2 * k;
        const float4 a = q[0], b = q[1];
        v[0] = a.x, v[1] = a.y, v[2] = a.z, v[3] = a.w, v[4] = b.x, v[5] = b.y, v[6] = b.z, v[7] = b.w;
        return;
    }
#pragma unroll
    for (int j = 0; j < kChunk; ++j)
        v[j] = i0 + j < n ? y[i0 + j] : 0.0f;
}

// ---- groups -------------------------------------------------------------------------------------

QS_DEV i64 groupOf(const QuantPlan &P, i64 r, i64 c)
{
    switch (P.gran) {
    case kGranTensor:
        return 0;
    case kGranChannel:
        return P.axis == 0 ? r : c;
    case kGranGroup:
        return r * P.gridCols + c / P.group;
    default:
        return (r / P.block) * P.gridCols + c / P.block;
    }
}

QS_DEV i64 chunkGroup(const QuantPlan &P, i64 k)
{
    if (P.fastGroup)
        return k >> P.teamLog2;
    if (P.gran == kGranTensor)
        return 0;
    const i64 i0 = k * kChunk;
    const i64 r = i0 / P.cols;
    return groupOf(P, r, i0 - r * P.cols);
}

/// The FP4 schemes' per-element scale: NVFP4 divides the E4M3 block scale by the global scale
/// (quant/nvfp4.h); MXFP4 and constOpt use the group scale itself. The code of x is
/// e2m1(x / e) for e > 0 (fp4::constOptCode: a constOpt scale of 0 codes 0; MX and NV scales are
/// always positive, where it is fp4::mxCode / fp4::nvCode).
QS_DEV float fp4Effective(const QuantPlan &P, float s)
{
    return P.fp4 == kFp4Nv ? fp4::nvEffective(s, *P.nvGlobal) : s;
}

/// ProgressiveSpec's stage 1 (FP8 per tensor): the FP8 value of x's code (the domain value stage
/// 2 quantizes; 0 when the tensor holds NaN/Inf, whose stage-1 codes are 0). Exact in FP32 and in
/// the BF16/F16 source, so no rounding to the source dtype is needed (quant/progressive.cpp).
QS_DEV float progStage1(const QuantPlan &P, float x)
{
    if (*P.outerBad)
        return 0.0f;
    const unsigned c = gpumath::fp8Code(P.fp, x, *P.outerScale);
    return P.fp.e4m3 ? gpumath::decodeE4m3(c) : gpumath::decodeE5m2(c);
}
/// ProgressiveSpec's outer level: Ŵ = a1(x̂1 · s1).
QS_DEV float progOuter(const QuantPlan &P, float xhat1)
{
    return qmath::roundArith(xhat1 * *P.outerScale, P.fp.arith);
}
/// One element: code and Ŵ (bad groups: code 0, Ŵ 0 — groupwise.h).
template <int KIND> QS_DEV float quantOne(const QuantPlan &P, float x, float s, int z, bool bad, unsigned &code)
{
    if (bad) {
        code = 0;
        return 0.0f;
    }
    if constexpr (KIND == kKindInt) {
        const int q = intCode(P.ip, x, s, z);
        code = static_cast<unsigned>(q) & 0xFFu;
        return intDequant(P.ip, q, s, z);
    } else if constexpr (KIND == kKindProg) {
        const int q = intCode(P.ip, progStage1(P, x), s, z);
        code = static_cast<unsigned>(q) & 0xFFu;
        return progOuter(P, intDequant(P.ip, q, s, z));
    } else if constexpr (KIND == kKindFp4) {
        const float e = fp4Effective(P, s);
        const std::uint8_t c = fp4::constOptCode(x, e);
        code = c;
        return fp4::fp4Dequant(c, e);
    } else {
        const unsigned c = gpumath::fp8Code(P.fp, x, s);
        code = c;
        return gpumath::fp8Dequant(P.fp, c, s);
    }
}

/// A whole chunk of one group: codes and Ŵ without int↔float conversions (device_math.h).
template <typename IP>
QS_DEV void intChunk(const IP &ip, const float v[kChunk], float s, int z, bool bad, unsigned codes[kChunk],
                     float y[kChunk])
{
    const float zf = static_cast<float>(z), qminF = static_cast<float>(ip.qmin), qmaxF = static_cast<float>(ip.qmax);
#pragma unroll
    for (int j = 0; j < kChunk; ++j) {
        const float q = gpumath::intCodeValue(ip, v[j], s, zf, qminF, qmaxF);
        codes[j] = bad ? 0u : (gpumath::intOfFloat(q) & 0xFFu);
        y[j] = bad ? 0.0f : gpumath::intDequantValue(ip, q, s, zf);
    }
}

template <int KIND>
QS_DEV void quantChunk(const QuantPlan &P, const float v[kChunk], float s, int z, bool bad, unsigned codes[kChunk],
                       float y[kChunk])
{
    if constexpr (KIND == kKindProg) {
#pragma unroll
        for (int j = 0; j < kChunk; ++j) {
            const int q = intCode(P.ip, progStage1(P, v[j]), s, z);
            codes[j] = bad ? 0u : (static_cast<unsigned>(q) & 0xFFu);
            y[j] = bad ? 0.0f : progOuter(P, intDequant(P.ip, q, s, z));
        }
    } else if constexpr (KIND == kKindInt) {
        if (P.ip.reciprocal) { // Quark's x·(1/s): the shared scalar functions (uniform_math.h)
#pragma unroll
            for (int j = 0; j < kChunk; ++j) {
                const int q = intCode(P.ip, v[j], s, z);
                codes[j] = bad ? 0u : (static_cast<unsigned>(q) & 0xFFu);
                y[j] = bad ? 0.0f : intDequant(P.ip, q, s, z);
            }
        } else if (P.ip.arith == 0 && !P.ip.halfAway) { // the common options, folded at compile time
            IntParams q = P.ip;
            q.arith = 0;
            q.halfAway = false;
            intChunk(q, v, s, z, bad, codes, y);
        } else {
            intChunk(P.ip, v, s, z, bad, codes, y);
        }
    } else if constexpr (KIND == kKindFp4) {
        const float e = fp4Effective(P, s);
#pragma unroll
        for (int j = 0; j < kChunk; ++j) {
            const std::uint8_t c = fp4::constOptCode(v[j], e);
            codes[j] = bad ? 0u : c;
            y[j] = bad ? 0.0f : fp4::fp4Dequant(c, e);
        }
    } else {
        gpumath::Fp8Params f = P.fp;
        if (f.arith == 0) {
            f.arith = 0;
#pragma unroll
            for (int j = 0; j < kChunk; ++j) {
                const unsigned c = gpumath::fp8Code(f, v[j], s);
                codes[j] = bad ? 0u : c;
                y[j] = bad ? 0.0f : gpumath::fp8Dequant(f, c, s);
            }
        } else {
#pragma unroll
            for (int j = 0; j < kChunk; ++j) {
                const unsigned c = gpumath::fp8Code(f, v[j], s);
                codes[j] = bad ? 0u : c;
                y[j] = bad ? 0.0f : gpumath::fp8Dequant(f, c, s);
            }
        }
    }
}

/// Ŵ of a chunk from its codes (the CPU's dequantizeGroupwise formula; bad groups hold code 0,
/// whose Ŵ is 0 for every quantizer).
template <int KIND> QS_DEV void dequantChunk(const QuantPlan &P, uint2 packed, float s, int z, float y[kChunk])
{
    const unsigned w[2] = {packed.x, packed.y};
    if constexpr (KIND == kKindProg) {
#pragma unroll
        for (int j = 0; j < kChunk; ++j) {
            const int q = static_cast<signed char>((w[j / 4] >> (8 * (j % 4))) & 0xFFu);
            y[j] = progOuter(P, intDequant(P.ip, q, s, z));
        }
    } else if constexpr (KIND == kKindInt) {
        const float zf = static_cast<float>(z);
#pragma unroll
        for (int j = 0; j < kChunk; ++j) {
            const unsigned c = (w[j / 4] >> (8 * (j % 4))) & 0xFFu;
            // (float)(int8)c without a conversion: the float 2^23 + (q + 128), minus 2^23 + 128.
            const float q = __fsub_rn(qmath::fromBits(0x4B000000u | (c ^ 0x80u)), 8388736.0f);
            y[j] = P.ip.arith == 0 ? __fmul_rn(s, __fsub_rn(q, zf)) : gpumath::intDequantValue(P.ip, q, s, zf);
        }
    } else if constexpr (KIND == kKindFp4) {
        const float e = fp4Effective(P, s);
#pragma unroll
        for (int j = 0; j < kChunk; ++j)
            y[j] = fp4::fp4Dequant(static_cast<std::uint8_t>((w[j / 4] >> (8 * (j % 4))) & 0xFFu), e);
    } else {
#pragma unroll
        for (int j = 0; j < kChunk; ++j)
            y[j] = gpumath::fp8Dequant(P.fp, (w[j / 4] >> (8 * (j % 4))) & 0xFFu, s);
    }
}

/// All 8 values finite: the largest magnitude pattern is below the Inf pattern.
QS_DEV bool chunkFinite(const float v[kChunk])
{
    unsigned m = 0;
#pragma unroll
    for (int j = 0; j < kChunk; ++j)
        m = max(m, qmath::bitsOf(v[j]) & 0x7FFFFFFFu);
    return m < 0x7F800000u;
}

/// All 8 values finite normal numbers or zeros (the branch-free fast paths).
QS_DEV bool chunkNormal(const float v[kChunk])
{
    bool ok = true;
#pragma unroll
    for (int j = 0; j < kChunk; ++j)
        ok = ok && gpumath::isNormalOrZero(v[j]);
    return ok;
}

// ---- reductions ---------------------------------------------------------------------------------

QS_DEV double opD(int op, double a, double b)
{
    return op == 0 ? a + b : (op == 1 ? fmin(a, b) : fmax(a, b));
}

QS_DEV int p1Op(int f)
{
    return (f == dMinW || f == dMinY || f == dEmin) ? 1 : ((f == dMaxW || f == dMaxY || f == dEmax) ? 2 : 0);
}

struct P1Ops {
    QS_DEV int operator()(int f) const { return p1Op(f); }
};
struct SumOps {
    QS_DEV int operator()(int) const { return 0; }
};

/// Block reduction of per-thread fields into row `blockIdx.x` of (outD, outI). ND doubles with
/// ops opOf(f), NI integer sums. Fixed order: shuffle tree, then warps in index order.
template <int ND, int NI, typename OpOf>
QS_DEV void blockRow(const double *d, const i64 *iv, OpOf opOf, double *outD, i64 *outI)
{
    constexpr int kMaxWarps = 1024 / 32;
    __shared__ double sd[kMaxWarps][ND > 0 ? ND : 1];
    __shared__ i64 si[kMaxWarps][NI > 0 ? NI : 1];
    const int lane = threadIdx.x % QS_WARP_SIZE, warp = threadIdx.x / QS_WARP_SIZE;
    const int nw = blockDim.x / QS_WARP_SIZE;
#pragma unroll
    for (int f = 0; f < ND; ++f) {
        double v = d[f];
        for (int o = QS_WARP_SIZE / 2; o > 0; o >>= 1)
            v = opD(opOf(f), v, QS_SHFL_XOR(v, o));
        if (lane == 0)
            sd[warp][f] = v;
    }
#pragma unroll
    for (int f = 0; f < NI; ++f) {
        i64 v = iv[f];
        for (int o = QS_WARP_SIZE / 2; o > 0; o >>= 1)
            v += QS_SHFL_XOR(v, o);
        if (lane == 0)
            si[warp][f] = v;
    }
    __syncthreads();
    const int t = threadIdx.x;
    if (t < ND) {
        double v = sd[0][t];
        for (int w = 1; w < nw; ++w)
            v = opD(opOf(t), v, sd[w][t]);
        outD[static_cast<i64>(blockIdx.x) * ND + t] = v;
    } else if (NI > 0 && t >= 32 && t < 32 + NI) {
        const int f = t - 32;
        i64 v = si[0][f];
        for (int w = 1; w < nw; ++w)
            v += si[w][f];
        outI[static_cast<i64>(blockIdx.x) * NI + f] = v;
    }
}

/// One warp reduces column f of `rows` rows (lanes stride, then a fixed tree); result in lane 0.
template <typename T, typename Op> QS_DEV T warpColumn(const T *base, int stride, int f, int rows, T init, Op op)
{
    const int lane = threadIdx.x % QS_WARP_SIZE;
    T v = init;
#pragma unroll 4
    for (int r = lane; r < rows; r += QS_WARP_SIZE)
        v = op(v, base[static_cast<i64>(r) * stride + f]);
    for (int o = QS_WARP_SIZE / 2; o > 0; o >>= 1)
        v = op(v, QS_SHFL_XOR(v, o));
    return v;
}

// ---- scales and zero points ---------------------------------------------------------------------

/// The FP4 schemes' group scales from a group's finite min/max (quant/mxfp4.h, nvfp4.h,
/// constopt.h), and the scale stored for a group holding NaN/Inf.
QS_DEV float fp4GroupScale(const QuantPlan &P, float mn, float mx)
{
    if (P.fp4 == kFp4Mx)
        return fp4::mxGroupScale(mn, mx, P.mxMode);
    const float amax = qmath::absf(mn) > qmath::absf(mx) ? qmath::absf(mn) : qmath::absf(mx);
    if (P.fp4 == kFp4Nv) {
        const float b = gpumath::decodeE4m3(gpumath::encodeE4m3(fp4::nvBlockTarget(amax, *P.nvGlobal)));
        return b == 0.0f ? 0.125f : b; // finfo(e4m3fn).eps, compressed-tensors' rule
    }
    return fp4::constOptScale(amax, P.coC, P.coUnrounded);
}
QS_DEV float fp4BadScale(const QuantPlan &P)
{
    return P.fp4 == kFp4Mx ? fp4::mxBadScale() : (P.fp4 == kFp4Nv ? 0.125f : fp4::constOptBadScale(P.coUnrounded));
}

QS_DEV void groupParams(const QuantPlan &P, float mn, float mx, bool bad, float &s, int &z)
{
    z = 0;
    if (P.kind == kKindProg) {
        // Stage 1 (FP8 per tensor) is monotone non-decreasing in x, so the stage-2 group's extremes
        // of the domain values are stage 1's values of W's extremes; a tensor holding NaN/Inf has
        // domain values 0 (its stage-1 codes are 0). Stage-2 groups are never bad (the caller).
        const bool bad1 = *P.outerBad != 0;
        mn = bad1 ? 0.0f : progStage1(P, mn);
        mx = bad1 ? 0.0f : progStage1(P, mx);
    }
    if (bad) {
        s = (P.kind == kKindInt || P.kind == kKindProg) ? P.ip.eps : (P.kind == kKindFp4 ? fp4BadScale(P) : P.fp.eps);
        return;
    }
    if (P.kind == kKindFp4) {
        s = fp4GroupScale(P, mn, mx);
    } else if (P.kind == kKindInt || P.kind == kKindProg) {
        if (P.ip.arith == 0 && P.ip.scaleDtype == 0) { // common options, folded at compile time
            IntParams q = P.ip;
            q.arith = 0;
            q.scaleDtype = 0;
            intGroupParams(q, mn, mx, s, z);
        } else {
            intGroupParams(P.ip, mn, mx, s, z);
        }
    } else {
        s = gpumath::fp8Scale(P.fp, mn, mx);
    }
}

QS_DEV int roundGuess(float g, int B)
{
    g = fminf(fmaxf(g, 0.0f), static_cast<float>(B - 1));
    const float r = __fadd_rn(g, 12582912.0f); // 1.5·2^23: the integer lands in the low bits
    return static_cast<int>(qmath::bitsOf(r) - 0x4B400000u);
}

/// Bin among T[1..B−1] (T[k] smallest value of bin ≥ k): from a guess, corrected exactly.
template <typename V> QS_DEV int correctBin(V v, int b, const V *T, int B)
{
    while (b > 0 && v < T[b])
        --b;
    while (b < B - 1 && v >= T[b + 1])
        ++b;
    return b;
}

/// With an accurate guess (Stats1::fastBins) the bin is r or r − 1: one comparison decides.
template <typename V> QS_DEV int oneStepBin(V v, int r, const V *T)
{
    return (r > 0 && v < T[r]) ? r - 1 : r;
}

/// W / Ŵ bin with the float thresholds: −1 below, B above.
QS_DEV int binW(float x, const float *T, int B, float scale, float off)
{
    if (x < T[0])
        return -1;
    if (x > T[B])
        return B;
    if (scale == 0.0f) {        // degenerate range: search
        int lo = 0, hi = B - 1; // largest k in [0, B−1] with k == 0 or T[k] ≤ x
        while (lo < hi) {
            const int m = (lo + hi + 1) / 2;
            if (x >= T[m])
                lo = m;
            else
                hi = m - 1;
        }
        return lo;
    }
    return correctBin(x, roundGuess(__fmul_rn(__fsub_rn(x, off), scale), B), T, B);
}

/// The calling warp reduces field f of pass 1's rows (kP1D doubles in D, kP1I counts in I, `rows`
/// rows, in row order) into rd[f] or ri[f − kP1D].
QS_DEV void reduceP1Field(int f, const double *D, const i64 *I, int rows, double *rd, i64 *ri)
{
    const int lane = threadIdx.x % QS_WARP_SIZE;
    if (f < kP1D) {
        const int op = p1Op(f);
        const double init = op == 1 ? dinf() : (op == 2 ? -dinf() : 0.0);
        const double v = warpColumn<double>(D, kP1D, f, rows, init, [op](double a, double b) { return opD(op, a, b); });
        if (lane == 0)
            rd[f] = v;
    } else {
        const i64 v = warpColumn<i64>(I, kP1I, f - kP1D, rows, 0, [](i64 a, i64 b) { return a + b; });
        if (lane == 0)
            ri[f - kP1D] = v;
    }
}

/// Barrier across a grid launched with qsLaunchCooperativeKernel (all blocks resident). bar[0]
/// counts arrivals, bar[1] is the generation; both zero before the launch.
QS_DEV void gridBarrier(unsigned *bar)
{
    __syncthreads();
    if (threadIdx.x == 0) {
        volatile unsigned *vb = bar;
        const unsigned gen = vb[1];
        __threadfence();
        if (QS_ATOMIC_ADD(bar, 1u) == gridDim.x - 1) {
            vb[0] = 0;
            __threadfence();
            QS_ATOMIC_ADD(bar + 1, 1u);
        } else {
            while (vb[1] == gen) {
            }
        }
        __threadfence();
    }
    __syncthreads();
}

/// Pass 1 reduced (rd, ri) → Stats1: means, histogram ranges, FP32 guess constants (kFinalize1 and
/// the value-table kernel share it).
QS_DEV void stats1From(const double *rd, const i64 *ri, const HistConfig &hc, Stats1 &st)
{
    const int B = hc.bins;
    for (int f = 0; f < kP1D; ++f)
        st.d[f] = rd[f];
    for (int f = 0; f < kP1I; ++f)
        st.i[f] = ri[f];
    if (hc.wSource == 2) {
        st.d[dSumW] = hc.knownSum;
        st.d[dMinW] = hc.knownMin;
        st.d[dMaxW] = hc.knownMax;
        st.i[iNan] = hc.knownNan;
        st.i[iInf] = hc.knownInf;
    }
    const i64 nFW = hc.wSource == 2 ? hc.knownFinite : st.i[iNF];
    st.meanW = nFW > 0 ? gpumath::ddiv(st.d[dSumW], static_cast<double>(nFW)) : 0.0;
    st.meanY = st.i[iNFY] > 0 ? gpumath::ddiv(st.d[dSumY], static_cast<double>(st.i[iNFY])) : 0.0;
    st.lo = hc.haveLo ? hc.lo : (nFW ? st.d[dMinW] : 0.0);
    st.hi = hc.haveHi ? hc.hi : (nFW ? st.d[dMaxW] : 0.0);
    const i64 counted = st.i[iNF];
    st.flags = 0;
    if (counted > 0) {
        st.emin = st.d[dEmin];
        st.emax = st.d[dEmax];
        if (!isfinite(st.emin) || !isfinite(st.emax))
            st.flags |= kFlagNonFiniteError;
    } else {
        st.emin = st.emax = 0.0;
    }
    st.errRange = gpumath::dsub(st.emax, st.emin);
    st.maxAbs = counted > 0 ? fmax(fabs(st.emin), fabs(st.emax)) : 0.0;
    st.wScale = st.hi > st.lo ? static_cast<float>(B / (st.hi - st.lo)) : 0.0f;
    st.wOffset = static_cast<float>(st.lo);
    st.eScale = st.errRange > 0 ? static_cast<float>(B / st.errRange) : 0.0f;
    st.eOffset = static_cast<float>(st.emin);
    st.aScale = st.maxAbs > 0 ? static_cast<float>(kAbsBins / st.maxAbs) : 0.0f;
    // The guesses are (x − lo)·scale in FP32: a few FP32 ulps of |lo|, |hi| (and of x) in bins.
    // Plus 2^-140 absolute: below 2^-126 FP32 values are subnormal and their spacing is absolute
    // (ranges of a few subnormals take the exact correction loop).
    const double kSubnormalUlp = 7.174648137343064e-43;                                     // 2^-140
    const double ulpW = (fabs(st.lo) + fabs(st.hi)) * 2.384185791015625e-7 + kSubnormalUlp; // 2^-22
    const double ulpE = (fabs(st.emin) + fabs(st.emax)) * 2.384185791015625e-7 + kSubnormalUlp;
    st.fastBins = 0;
    // The FP32 guess forms x − lo in FP32: only when that cannot overflow (values near ±FLT_MAX
    // take the exact correction loop instead).
    const double kFltMax = 3.4028234663852886e38;
    if (st.hi > st.lo && fabs(st.lo) + fabs(st.hi) <= kFltMax && ulpW * B / (st.hi - st.lo) < 0.05)
        st.fastBins |= 1;
    if (st.errRange > 0 && fabs(st.emin) + fabs(st.emax) <= kFltMax && ulpE * B / st.errRange < 0.05)
        st.fastBins |= 2;
    // |e|·aScale in FP32: aScale finite and |e| resolved to far below a bin (|e| < 2^-100 is
    // subnormal-heavy territory: the exact loop).
    if (st.maxAbs >= 7.888609052210118e-31 && isfinite(st.maxAbs)) // 2^-100
        st.fastBins |= 4;
    if (!isfinite(st.wScale))
        st.wScale = 0.0f;
    if (!isfinite(st.eScale))
        st.eScale = 0.0f;
    if (!isfinite(st.aScale))
        st.aScale = 0.0f;
}

// ---- launching (host side) ----------------------------------------------------------------------
// Dispatch of the runtime input type (and kind) to the kernel templates, grid sizes, the stream.

template <typename F> void dispatchIn(int in, F &&f)
{
    switch (in) {
    case kInF32:
        f(std::integral_constant<int, kInF32>{});
        break;
    case kInBf16:
        f(std::integral_constant<int, kInBf16>{});
        break;
    default:
        f(std::integral_constant<int, kInF16>{});
        break;
    }
}
template <typename F> void dispatchInKind(int in, int kind, F &&f)
{
    dispatchIn(in, [&](auto I) {
        if (kind == kKindInt)
            f(I, std::integral_constant<int, kKindInt>{});
        else if (kind == kKindFp4)
            f(I, std::integral_constant<int, kKindFp4>{});
        else if (kind == kKindProg)
            f(I, std::integral_constant<int, kKindProg>{});
        else
            f(I, std::integral_constant<int, kKindFp8>{});
    });
}

template <typename K> int occupancy(K kernel, std::size_t smem)
{
    int blocks = 0;
    QS_GPU_CHECK(qsOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, kThreads, smem));
    return blocks > 0 ? blocks : 1;
}

inline int gridFor(int perSm, int sms, i64 chunks)
{
    const i64 need = (chunks + kThreads - 1) / kThreads;
    const i64 full = static_cast<i64>(perSm) * sms;
    return static_cast<int>(need < full ? (need > 0 ? need : 1) : full);
}

inline qsStream_t S(void *s)
{
    return static_cast<qsStream_t>(s);
}

template <typename F> void dispatch16(int in, F &&f)
{
    if (in == kInBf16)
        f(std::integral_constant<int, kInBf16>{});
    else
        f(std::integral_constant<int, kInF16>{});
}

inline qsStream_t Sx(void *s)
{
    return static_cast<qsStream_t>(s);
}

template <typename K> void allowShared(K kernel, std::size_t bytes)
{
    QS_GPU_CHECK(qsFuncSetMaxDynamicSharedMemory(kernel, static_cast<int>(bytes)));
}

} // namespace
} // namespace quantscope::gpu::launch
