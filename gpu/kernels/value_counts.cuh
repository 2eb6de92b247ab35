// SPDX-License-Identifier: MIT
#pragma once
/// \file value_counts.cuh
/// What the value-table paths of 16-bit inputs (fp8_quant.cu, int_quant.cu) share: the counts of
/// the 65536 distinct values kept in shared memory and flushed to global counters, the decoding of
/// a 16-byte chunk, and the launch shape of the cooperative kernels that walk the 65536 values.
/// Included instead of kernel_common.cuh (which it includes), after QS_HD is defined; one copy per
/// translation unit.
#include "kernel_common.cuh"

namespace quantscope::gpu::launch {

namespace {

constexpr int kKeys = 65536;        ///< distinct 16-bit values
constexpr int kVhWords = kKeys / 2; ///< shared value counts: two 16-bit counters per word
constexpr int kTableThreads = 256;  ///< value-table kernels: 256 blocks of 256 threads
constexpr int kTableBlocks = kKeys / kTableThreads;
constexpr int kPassThreads = 1024; ///< value-counting passes: one block of 1024 per SM
constexpr int kPass2Threads = 768; ///< INT pass 2: one block per SM, up to 85 registers (no spills)

// ---- shared 16-bit value counts -----------------------------------------------------------------
// Two 16-bit counters per shared word. The thread whose increment takes a counter from 0x7FFF to
// 0x8000 moves 0x8000 to the global count at once, so a counter never carries into its neighbour
// (that would take 32768 more increments of one value between this thread's two atomics).

QS_DEV void vhAdd(unsigned *vh, unsigned *gvh, unsigned key)
{
    const unsigned sh = (key & 1u) << 4;
    const unsigned old = QS_ATOMIC_ADD(vh + (key >> 1), 1u << sh);
    if (((old >> sh) & 0xFFFFu) == 0x7FFFu) {
        QS_ATOMIC_ADD(vh + (key >> 1), 0u - (0x8000u << sh));
        QS_ATOMIC_ADD(gvh + key, 0x8000u);
    }
}

QS_DEV void vhFlush(const unsigned *vh, unsigned *gvh)
{
    for (int i = threadIdx.x; i < kVhWords; i += blockDim.x) {
        const unsigned v = vh[i];
        if (v & 0xFFFFu)
            QS_ATOMIC_ADD(gvh + 2 * i, v & 0xFFFFu);
        if (v >> 16)
            QS_ATOMIC_ADD(gvh + 2 * i + 1, v >> 16);
    }
}

// BF16: 32-bit counters (no overflow, no returned value to wait for) for a window of 63
// exponents, 2^-47 ≤ |x| < 2^16, plus exponent 0 (zeros, subnormals): sign, slot, mantissa =
// 14 bits, 64 KiB. Values outside the window (rare in weights) are counted in global memory.
constexpr unsigned kWinE0 = 79;
constexpr int kWinWords = 16384;

QS_DEV void wvAdd(unsigned *wv, unsigned *gvh, unsigned key)
{
    const unsigned e = (key >> 7) & 0xFFu;
    const unsigned slot = e == 0u ? 0u : e - kWinE0;
    if (e == 0u || slot - 1u < 63u)
        QS_ATOMIC_ADD(wv + (((key >> 2) & 0x2000u) | (slot << 7) | (key & 0x7Fu)), 1u);
    else
        QS_ATOMIC_ADD(gvh + key, 1u);
}

QS_DEV void wvFlush(const unsigned *wv, unsigned *gvh)
{
    for (int i = threadIdx.x; i < kWinWords; i += blockDim.x) {
        const unsigned c = wv[i];
        if (c == 0)
            continue;
        const unsigned slot = (static_cast<unsigned>(i) >> 7) & 63u;
        const unsigned key = ((static_cast<unsigned>(i) & 0x2000u) << 2) | ((slot ? slot + kWinE0 : 0u) << 7) |
                             (static_cast<unsigned>(i) & 0x7Fu);
        QS_ATOMIC_ADD(gvh + key, c);
    }
}

/// The value counter of an input type: windowed 32-bit (BF16) or packed 16-bit (F16, whose
/// 10-bit mantissa leaves no room for a window).
template <int IN> inline constexpr int vcWords = IN == kInBf16 ? kWinWords : kVhWords;
template <int IN> QS_DEV void vcClear(unsigned *t)
{
    for (int i = threadIdx.x; i < vcWords<IN>; i += blockDim.x)
        t[i] = 0;
}
template <int IN> QS_DEV void vcAdd(unsigned *t, unsigned *gvh, unsigned key)
{
    if constexpr (IN == kInBf16)
        wvAdd(t, gvh, key);
    else
        vhAdd(t, gvh, key);
}
/// Window index of a BF16 key, and whether the key is in the window (branch-free). Two ways to
/// the same index, each the faster in one pass (measured on the H100; the compiler schedules them
/// differently): from the magnitude (exponent·128 + mantissa minus kWinE0·128 is already
/// slot·128 + mantissa; the FP8 pass, −3 %), or from the exponent's slot (INT pass 2, −5 %).
template <bool FROM_MAGNITUDE> QS_DEV unsigned wvIndex(unsigned key, bool &in)
{
    if constexpr (FROM_MAGNITUDE) {
        const unsigned a = key & 0x7FFFu;
        const bool zero = a < 128u; // exponent 0 (zeros, subnormals): slot 0
        const unsigned t = a - (kWinE0 << 7);
        in = zero | (t - 128u < 63u * 128u);
        return ((key >> 2) & 0x2000u) | (zero ? a : t);
    } else {
        const unsigned e = (key >> 7) & 0xFFu;
        const unsigned slot = e == 0u ? 0u : e - kWinE0;
        in = (e == 0u) | (slot - 1u < 63u);
        return ((key >> 2) & 0x2000u) | ((slot & 63u) << 7) | (key & 0x7Fu);
    }
}

template <int IN, bool FROM_MAGNITUDE = false> QS_DEV void vcAdd8(unsigned *t, unsigned *gvh, const uint4 &u)
{
    const unsigned w[4] = {u.x, u.y, u.z, u.w};
    if constexpr (IN == kInBf16) {
        // Eight shared increments in a row when the whole chunk is in the window (one test).
        unsigned idx[8];
        bool all = true;
#pragma unroll
        for (int j = 0; j < 8; ++j) {
            bool in;
            idx[j] = wvIndex<FROM_MAGNITUDE>((w[j / 2] >> (16 * (j % 2))) & 0xFFFFu, in);
            all = all & in;
        }
        if (all) {
#pragma unroll
            for (int j = 0; j < 8; ++j)
                QS_ATOMIC_ADD(t + idx[j], 1u);
            return;
        }
    }
#pragma unroll
    for (int j = 0; j < 4; ++j) {
        vcAdd<IN>(t, gvh, w[j] & 0xFFFFu);
        vcAdd<IN>(t, gvh, w[j] >> 16);
    }
}
template <int IN> QS_DEV void vcFlush(const unsigned *t, unsigned *gvh)
{
    if constexpr (IN == kInBf16)
        wvFlush(t, gvh);
    else
        vhFlush(t, gvh);
}

template <int IN> QS_DEV void decode8(const uint4 &u, float v[kChunk])
{
    const unsigned w[4] = {u.x, u.y, u.z, u.w};
#pragma unroll
    for (int j = 0; j < 4; ++j) {
        v[2 * j] = decodeHalf<IN>(w[j] & 0xFFFFu);
        v[2 * j + 1] = decodeHalf<IN>(w[j] >> 16);
    }
}

/// The sum over the warp of a 32-bit word, in every lane (modulo 2^32, as the shuffle tree adds):
/// one REDUX on sm_80+, the XOR-shuffle tree elsewhere (HIP, older CUDA targets).
QS_DEV unsigned warpSumU32(unsigned v)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    return __reduce_add_sync(0xFFFFFFFFu, v);
#else
    for (int o = QS_WARP_SIZE / 2; o > 0; o >>= 1)
        v += QS_SHFL_XOR(v, o);
    return v;
#endif
}

/// A unit's 16 level counts in two words of eight 4-bit counters (levels 0–7 in nib0, 8–15 in
/// nib1; a unit has at most 15 elements a level): one element at level lv (0–15).
QS_DEV void countLevelNibble(unsigned lv, unsigned &nib0, unsigned &nib1)
{
    const unsigned inc = 1u << ((lv & 7u) << 2);
    const unsigned lo = lv < 8u ? inc : 0u;
    nib0 += lo;
    nib1 += inc - lo;
}

/// The unit's nibble counters added to the thread's four words of 8-bit counters (c4[0]: levels
/// 0, 2, 4, 6 … as bytes; the layout pass 1's flush reads).
QS_DEV void addLevelNibbles(unsigned nib0, unsigned nib1, unsigned *c4)
{
    c4[0] += nib0 & 0x0F0F0F0Fu;
    c4[1] += (nib0 >> 4) & 0x0F0F0F0Fu;
    c4[2] += nib1 & 0x0F0F0F0Fu;
    c4[3] += (nib1 >> 4) & 0x0F0F0F0Fu;
}

/// Ŵ's shared histogram (B bins, below, above) cleared and the B + 1 thresholds Tw loaded after it;
/// returns the thresholds' shared copy (the caller's barrier follows).
QS_DEV float *clearWHatBins(unsigned *hy, int B, const float *Tw)
{
    float *sTw = reinterpret_cast<float *>(hy + B + 2);
    for (int i = threadIdx.x; i < B + 2; i += blockDim.x)
        hy[i] = 0;
    for (int i = threadIdx.x; i < B + 1; i += blockDim.x)
        sTw[i] = Tw[i];
    return sTw;
}

/// Shared counters added to global 64-bit counters (only the non-zero ones).
QS_DEV void flushCounts(const unsigned *h, int count, u64 *out)
{
    for (int i = threadIdx.x; i < count; i += blockDim.x)
        if (h[i])
            QS_ATOMIC_ADD(out + i, static_cast<u64>(h[i]));
}

/// Ŵ's shared histogram hy (B bins, then the counts below and above its range) added to the
/// global histogram: the bins at hist + B, the two out-of-range counts in its extension words.
QS_DEV void flushWHatBins(const unsigned *hy, int B, u64 *hist)
{
    flushCounts(hy, B, hist + B);
    if (threadIdx.x == 0) {
        const int extOff = 3 * B + kAbsBins;
        if (hy[B])
            QS_ATOMIC_ADD(hist + extOff + 2, static_cast<u64>(hy[B]));
        if (hy[B + 1])
            QS_ATOMIC_ADD(hist + extOff + 3, static_cast<u64>(hy[B + 1]));
    }
}

// ---- Ŵ from counted levels ----------------------------------------------------------------------
// Where Ŵ is a function of a few levels — NVFP4: (block-scale byte, code), ≤ 2048 for the tensor;
// ProgressiveSpec per channel: (row, code), 16 per row — pass 1 counts each element at its level
// and these kernels take Ŵ's statistics from the counts: a pass-1 row of Ŵ's sums for finalize1,
// then Ŵ's histogram (the CPU's bin formula per level) and central moments. A level source Lv has
// `counts` (u64 per level), size() and value(i), Ŵ of level i as pass 1 computes it.

/// Ŵ's sums, extremes and count of the counted levels as one pass-1 row per block (row blockIdx.x
/// of pd, pi; every other field neutral). An empty level adds nothing (its Ŵ may not even be
/// finite); a counted level whose Ŵ is not finite sends the run to the generic kernels.
template <typename Lv>
__global__ void __launch_bounds__(kThreads) kLevelsRow(Lv lv, unsigned *flags, double *pd, i64 *pi)
{
    float mnY = finf(), mxY = -finf();
    double sumY = 0, sy = 0;
    i64 nFY = 0;
    unsigned nonFinite = 0;
    for (i64 i = static_cast<i64>(blockIdx.x) * blockDim.x + threadIdx.x; i < lv.size();
         i += static_cast<i64>(gridDim.x) * blockDim.x) {
        const u64 c = lv.counts[i];
        if (c == 0)
            continue;
        const float yv = lv.value(i);
        nonFinite |= qmath::isFinite(yv) ? 0u : 1u;
        const double yd = yv, cd = static_cast<double>(c);
        sumY = fma(cd, yd, sumY);
        sy = fma(cd, yd * yd, sy);
        mnY = fminf(mnY, yv);
        mxY = fmaxf(mxY, yv);
        nFY += static_cast<i64>(c);
    }
    if (nonFinite)
        QS_ATOMIC_OR(flags, kFastNonFinite);
    double d[kP1D];
    for (int f = 0; f < kP1D; ++f)
        d[f] = p1Op(f) == 1 ? dinf() : (p1Op(f) == 2 ? -dinf() : 0.0);
    d[dSumY] = sumY;
    d[dMinY] = mnY;
    d[dMaxY] = mxY;
    d[dSy] = sy;
    i64 iv[kP1I] = {};
    iv[iNFY] = nFY;
    blockRow<kP1D, kP1I>(d, iv, P1Ops{}, pd, pi);
}

/// Ŵ's histogram and central moments from the counted levels (kGroupsY's work on the levels):
/// each counted level's Ŵ binned by the CPU's formula (binW, the corrected search), its count added
/// once; one pd2 row per block.
template <typename Lv>
__global__ void __launch_bounds__(kThreads)
    kLevelsY(Lv lv, const Stats1 *st, const float *Tw, int B, u64 *hist, double *pd2)
{
    extern __shared__ unsigned hy[]; // Ŵ[B], below, above; then the thresholds
    const float *sTw = clearWHatBins(hy, B, Tw);
    __syncthreads();
    const Stats1 &S = *st;
    const double meanY = S.meanY;
    double s2 = 0, s3 = 0, s4 = 0;
    for (i64 i = static_cast<i64>(blockIdx.x) * blockDim.x + threadIdx.x; i < lv.size();
         i += static_cast<i64>(gridDim.x) * blockDim.x) {
        const u64 c = lv.counts[i];
        if (c == 0)
            continue;
        const float y = lv.value(i);
        const int r = binW(y, sTw, B, S.wScale, S.wOffset);
        QS_ATOMIC_ADD(hy + (r < 0 ? B : (r >= B ? B + 1 : r)), static_cast<unsigned>(c)); // n < 2^31
        const double cd = static_cast<double>(c), dv = static_cast<double>(y) - meanY, d2 = dv * dv;
        s2 = fma(cd, d2, s2);
        s3 = fma(cd, d2 * dv, s3);
        s4 = fma(cd, d2 * d2, s4);
    }
    __syncthreads();
    flushWHatBins(hy, B, hist);
    double d[kP2D] = {0, 0, 0, s2, s3, s4};
    blockRow<kP2D, 0>(d, nullptr, SumOps{}, pd2, nullptr);
}

template <typename Lv> void levelsRow(const Lv &lv, int blocks, unsigned *flags, double *pd, i64 *pi, void *stream)
{
    kLevelsRow<Lv><<<blocks, kThreads, 0, Sx(stream)>>>(lv, flags, pd, pi);
    QS_GPU_CHECK_LAUNCH("levelsRow");
}

template <typename Lv>
void levelsY(const Lv &lv, int blocks, const Stats1 *st, const float *Tw, int bins, u64 *hist, double *pd2,
             void *stream)
{
    const std::size_t smem =
        sizeof(unsigned) * (static_cast<std::size_t>(bins) + 2) + sizeof(float) * (static_cast<std::size_t>(bins) + 1);
    allowShared(kLevelsY<Lv>, smem);
    kLevelsY<Lv><<<blocks, kThreads, smem, Sx(stream)>>>(lv, st, Tw, bins, hist, pd2);
    QS_GPU_CHECK_LAUNCH("levelsY");
}

constexpr int kCoopThreads = 512;
constexpr int kCoopBlocks = kKeys / kCoopThreads; ///< one thread per value, all blocks resident

} // namespace
} // namespace quantscope::gpu::launch
