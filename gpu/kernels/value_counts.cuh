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

/// Shared counters added to global 64-bit counters (only the non-zero ones).
QS_DEV void flushCounts(const unsigned *h, int count, u64 *out)
{
    for (int i = threadIdx.x; i < count; i += blockDim.x)
        if (h[i])
            QS_ATOMIC_ADD(out + i, static_cast<u64>(h[i]));
}

constexpr int kCoopThreads = 512;
constexpr int kCoopBlocks = kKeys / kCoopThreads; ///< one thread per value, all blocks resident

} // namespace
} // namespace quantscope::gpu::launch
