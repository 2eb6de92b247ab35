// SPDX-License-Identifier: MIT
#pragma once
/// \file w3lr_pack.h
/// The fused W3A16 GEMM's packed layout of 3-bit codes (kernels_w3lr.h; issue 43), written once
/// as QS_HD functions that the kernel (gemm_w3lr.cu) and the host tests share, plus the host's
/// packer and unpacker and the FP64 reference and error bound of docs/numerics.md "Fused W3A16 +
/// MiLo compensator" (host only). No CUDA header: kernel sources define QS_HD first.
///
/// Layout. Row n of W [N, K] (codes u ∈ [0, 7], K a multiple of 256) is K/256 blocks of 24
/// 32-bit words (96 bytes = 256 codes × 3 bits), rows back to back (3K/32 words a row). The kernel
/// runs a block as 16 mma k16 steps; in step st lane tig of a quad owns 4 codes of its rows,
/// j = 0 … 3 at k = 32·(st >> 1) + 8·tig + 4·(st & 1) + j of the block, so that its B fragment of
/// X for two steps is 8 consecutive BF16 (one 128-bit load) and a step's 16 k lie in 32
/// consecutive k (one group for every group ≥ 32 dividing the blocks). Lane tig's 64 codes of a
/// block are words 4·tig … 4·tig + 3 (the low two bits: "low words", one 128-bit load) and words
/// 16 + 2·tig, 17 + 2·tig (the high bit: "high words", one 64-bit load). Code j of step st, with
/// h = j >> 1 (which A register pair) and half = j & 1 (which BF16 of the pair):
///     low bits:  word 4·tig + (st >> 2), bits [2s + 16·half, +2), s = 2·(st & 3) + h
///     high bit:  word 16 + 2·tig + (st >> 3), bit  p + 16·half,    p = 2·(st & 7) + h
/// so that one BF16 pair (u_{2h}, u_{2h+1}) of a step decodes with two shifts and two and-or
/// (lop3) operations, straight into the bits 0x4300 | u = 128 + u of BF16 (pairBits).
#include <cstdint>

#ifndef QS_HD
#define QS_HD
#endif

#if !defined(__CUDA_ARCH__)
#include <algorithm>
#include <cmath>
#include <cstring>
#include <thread>
#include <vector>
#endif

namespace quantscope::gpu::w3lr {

inline constexpr int kBlockK = 256;    ///< codes of a block
inline constexpr int kBlockWords = 24; ///< 32-bit words of a block

/// Words of a packed row of K codes.
QS_HD inline long long rowWords(long long k)
{
    return k / kBlockK * kBlockWords;
}

/// Where code kk (0 … 255) of a block lives.
struct CodeSlot {
    int lowWord, lowBit, highWord, highBit;
};
QS_HD inline CodeSlot slotOf(int kk)
{
    const int pr = kk >> 5, tig = (kk >> 3) & 3, e = (kk >> 2) & 1, j = kk & 3;
    const int st = 2 * pr + e, h = j >> 1, half = j & 1;
    CodeSlot c;
    c.lowWord = 4 * tig + (st >> 2);
    c.lowBit = 2 * (2 * (st & 3) + h) + 16 * half;
    c.highWord = 16 + 2 * tig + (st >> 3);
    c.highBit = 2 * (st & 7) + h + 16 * half;
    return c;
}

/// Code kk of a packed block.
QS_HD inline unsigned codeAt(const std::uint32_t *block, int kk)
{
    const CodeSlot c = slotOf(kk);
    return ((block[c.lowWord] >> c.lowBit) & 3u) | (((block[c.highWord] >> c.highBit) & 1u) << 2);
}

/// Sets code kk (0 … 7) of a block whose bits of that code are zero.
QS_HD inline void placeCode(std::uint32_t *block, int kk, unsigned code)
{
    const CodeSlot c = slotOf(kk);
    block[c.lowWord] |= (code & 3u) << c.lowBit;
    block[c.highWord] |= ((code >> 2) & 1u) << c.highBit;
}

/// The A fragment's BF16 pair of step st (0 … 15), register half h (0, 1) from a lane's low
/// words (lo[st >> 2]) and high word (hi = its high word st >> 3): the bits (128 + u_{2h}) |
/// (128 + u_{2h+1}) << 16 of codes j = 2h, 2h + 1. The high bit reaches bit 2 (and 18) by one
/// 64-bit (funnel) shift of hi·4 by p.
QS_HD inline std::uint32_t pairBits(std::uint32_t lo, std::uint32_t hi, int st, int h)
{
    const int s = 2 * (st & 3) + h, p = 2 * (st & 7) + h;
    const std::uint32_t low = (lo >> (2 * s)) & 0x00030003u;
    const std::uint32_t high = static_cast<std::uint32_t>((static_cast<std::uint64_t>(hi) << 2) >> p) & 0x00040004u;
    return low | high | 0x43004300u;
}

#if !defined(__CUDA_ARCH__)

/// Packs codes [N, K] (one a byte, each ≤ 7) into rows of rowWords(K) words; false when K is not
/// a multiple of 256 or a code exceeds 7.
inline bool packCodes(const std::uint8_t *codes, long long n, long long k, std::vector<std::uint32_t> &out)
{
    if (k <= 0 || k % kBlockK != 0)
        return false;
    out.assign(static_cast<std::size_t>(n * rowWords(k)), 0u);
    for (long long r = 0; r < n; ++r)
        for (long long i = 0; i < k; ++i) {
            const std::uint8_t c = codes[r * k + i];
            if (c > 7)
                return false;
            placeCode(out.data() + r * rowWords(k) + (i / kBlockK) * kBlockWords, static_cast<int>(i % kBlockK), c);
        }
    return true;
}

/// The inverse of packCodes.
inline std::vector<std::uint8_t> unpackCodes(const std::uint32_t *packed, long long n, long long k)
{
    std::vector<std::uint8_t> out(static_cast<std::size_t>(n * k));
    for (long long r = 0; r < n; ++r)
        for (long long i = 0; i < k; ++i)
            out[static_cast<std::size_t>(r * k + i)] = static_cast<std::uint8_t>(
                codeAt(packed + r * rowWords(k) + (i / kBlockK) * kBlockWords, static_cast<int>(i % kBlockK)));
    return out;
}

/// The host operands of one W3A16 + rank-r GEMM for the FP64 reference: codes [N, K], the
/// group scales / zero points [N, K/group] (FP32 holding the quantizer's values), Ŵ [N, K] (the
/// CPU's dequantized HQQ values, hqqDequantizeFlat), Û [N, r], V̂ [r, K] (the factors' stored
/// values), X [M, K] BF16 bits.
struct HostOperands {
    long long m = 0, n = 0, k = 0, group = 0;
    int rank = 0;
    const std::uint8_t *codes = nullptr;
    const float *scales = nullptr, *zeros = nullptr, *wHat = nullptr, *u = nullptr, *v = nullptr;
    const std::uint16_t *x = nullptr;
};

/// Per output (m·N + n): ref = Σ_k x·ŵ + Σ_j Û[n, j]·(Σ_k x·V̂[j, k]) in FP64; magA = Σ_k
/// |x|·|s|·(u + |z|); absX = Σ_k |x|·(1 + |s|); magC = Σ_j |Û[n, j]|·Σ_k |x·V̂[j, k]|.
struct Reference {
    std::vector<double> ref, magA, absX, magC;
};

inline double bf16Value(std::uint16_t b)
{
    const std::uint32_t u = static_cast<std::uint32_t>(b) << 16;
    float f;
    std::memcpy(&f, &u, 4);
    return f;
}

/// The FP64 reference (threads over rows of W).
inline Reference reference(const HostOperands &o)
{
    Reference R;
    const std::size_t outs = static_cast<std::size_t>(o.m * o.n);
    R.ref.assign(outs, 0.0), R.magA.assign(outs, 0.0), R.absX.assign(outs, 0.0), R.magC.assign(outs, 0.0);
    std::vector<double> x(static_cast<std::size_t>(o.m * o.k));
    for (std::size_t i = 0; i < x.size(); ++i)
        x[i] = bf16Value(o.x[i]);
    std::vector<double> t(static_cast<std::size_t>(o.m) * o.rank), tAbs(t.size());
    for (long long m = 0; m < o.m; ++m)
        for (int j = 0; j < o.rank; ++j) {
            double s = 0, a = 0;
            for (long long i = 0; i < o.k; ++i) {
                const double p = x[static_cast<std::size_t>(m * o.k + i)] * o.v[static_cast<std::size_t>(j * o.k + i)];
                s += p, a += std::fabs(p);
            }
            t[static_cast<std::size_t>(m * o.rank + j)] = s, tAbs[static_cast<std::size_t>(m * o.rank + j)] = a;
        }
    const long long groups = o.k / o.group;
    auto rows = [&](long long n0, long long n1) {
        for (long long n = n0; n < n1; ++n)
            for (long long m = 0; m < o.m; ++m) {
                double ref = 0, magA = 0, absX = 0, magC = 0;
                const double *xr = x.data() + m * o.k;
                for (long long i = 0; i < o.k; ++i) {
                    const long long g = n * groups + i / o.group;
                    const double s = std::fabs(o.scales[g]), ax = std::fabs(xr[i]);
                    ref += xr[i] * o.wHat[n * o.k + i];
                    magA += ax * s * (o.codes[n * o.k + i] + std::fabs(o.zeros[g]));
                    absX += ax * (1.0 + s);
                }
                for (int j = 0; j < o.rank; ++j) {
                    const double uu = o.u[n * o.rank + j];
                    ref += uu * t[static_cast<std::size_t>(m * o.rank + j)];
                    magC += std::fabs(uu) * tAbs[static_cast<std::size_t>(m * o.rank + j)];
                }
                const std::size_t at = static_cast<std::size_t>(m * o.n + n);
                R.ref[at] = ref, R.magA[at] = magA, R.absX[at] = absX, R.magC[at] = magC;
            }
    };
    const long long threads = std::max(1u, std::min(32u, std::thread::hardware_concurrency()));
    std::vector<std::thread> pool;
    const long long per = (o.n + threads - 1) / threads;
    for (long long t0 = 0; t0 < o.n; t0 += per)
        pool.emplace_back(rows, t0, std::min(o.n, t0 + per));
    for (auto &th : pool)
        th.join();
    return R;
}

/// The bound on |y − ref| of one output (docs/numerics.md "Fused W3A16 + MiLo compensator").
/// fused: 2^-8·|ref| + (1 + 2^-8)·[(γ_A + 2^-10 + 2^-21)·magA + 2^-24·absX + γ_C·magC] with
/// γ_A = (g_u + 2K/g_u + 16)·2^-23 (g_u = min(group, 256), the kernel's unit of exact sums) and
/// γ_C = (K + r + 16)·2^-23. unfused (Ŵ + Û·V̂ rounded to BF16, cuBLASLt):
/// 2^-8·|ref| + (1 + 2^-8)·[(K·2^-23 + 2^-8 + 2^-10)·(magA + magC) + (r + 4)·2^-23·magC +
/// 2^-24·absX].
inline double bound(const Reference &R, std::size_t at, long long k, long long group, int rank, bool unfused)
{
    const double ulp = std::ldexp(1.0, -23);
    const double head = std::ldexp(std::fabs(R.ref[at]), -8), tail = 1 + std::ldexp(1.0, -8);
    if (unfused)
        return head +
               tail * ((static_cast<double>(k) * ulp + std::ldexp(1.0, -8) + std::ldexp(1.0, -10)) *
                           (R.magA[at] + R.magC[at]) +
                       (rank + 4) * ulp * R.magC[at] + std::ldexp(R.absX[at], -24)) +
               1e-30;
    const double gu = static_cast<double>(std::min<long long>(group, kBlockK));
    const double gammaA = (gu + 2.0 * static_cast<double>(k) / gu + 16) * ulp;
    const double gammaC = (static_cast<double>(k) + rank + 16) * ulp;
    return head +
           tail * ((gammaA + std::ldexp(1.0, -10) + std::ldexp(1.0, -21)) * R.magA[at] + std::ldexp(R.absX[at], -24) +
                   gammaC * R.magC[at]) +
           1e-30;
}

/// The worst |y − ref| / bound over every output of y (BF16 bits [M, N]); *worstAt its index.
inline double worstOfBound(const HostOperands &o, const Reference &R, const std::uint16_t *y, bool unfused,
                           long long *worstAt = nullptr)
{
    double worst = 0;
    for (std::size_t at = 0; at < R.ref.size(); ++at) {
        const double got = bf16Value(y[at]);
        const double r =
            std::isfinite(got) ? std::fabs(got - R.ref[at]) / bound(R, at, o.k, o.group, o.rank, unfused) : 1e30;
        if (r > worst) {
            worst = r;
            if (worstAt)
                *worstAt = static_cast<long long>(at);
        }
    }
    return worst;
}

#endif // !__CUDA_ARCH__

} // namespace quantscope::gpu::w3lr
