// SPDX-License-Identifier: MIT
#pragma once
/// \file w4a8_math.h
/// The fused W4A8 GEMM's scalar pieces (gemm_w4a8.cu; issue 43), written once as QS_HD functions
/// so that the host tests (tests/gpu/test_device_math_w4a8.cpp, label core) run the very code the
/// kernel runs: the packed nibbles → the mma's INT8 / E4M3 A operand by bit tricks, X's per-token
/// quantizer, and the error bound of docs/numerics.md "Fused W4A8 GEMM". No CUDA header: the
/// kernel source defines QS_HD as `__host__ __device__` before including.
#include <cmath>
#include <cstdint>

#ifndef QS_HD
#define QS_HD
#endif

#include "../device_math.h"

namespace quantscope::gpumath {

/// prmt.b32 (default mode; selector nibbles 0…7 only): byte i of the result is byte sel[4i+2:4i]
/// of the eight bytes b:a.
QS_HD inline std::uint32_t bytePerm(std::uint32_t a, std::uint32_t b, std::uint32_t sel)
{
#if defined(__CUDA_ARCH__)
    return __byte_perm(a, b, sel);
#else
    const std::uint64_t v = (static_cast<std::uint64_t>(b) << 32) | a;
    std::uint32_t r = 0;
    for (int i = 0; i < 4; ++i)
        r |= static_cast<std::uint32_t>((v >> (8 * ((sel >> (4 * i)) & 7u))) & 0xFFu) << (8 * i);
    return r;
#endif
}

/// One 32-bit word of packed codes (nibble j = the code of k₀ + j, two's complement in [−8, 7])
/// → the INT8 A operand of one m16n8k32 step: lo = bytes (u₀, u₁, u₂, u₃), hi = (u₄ … u₇), with
/// u = nibble XOR 8 = q + 8 ∈ [0, 15] (a non-negative INT8). Two and-xor (lop3), one shift, two
/// prmt per eight codes; the offset 8 returns in the zero-point term (z + 8)·Σx.
QS_HD inline void w4a8Int8Operand(std::uint32_t word, std::uint32_t &lo, std::uint32_t &hi)
{
    const std::uint32_t even = andXor(word, 0x0F0F0F0Fu, 0x08080808u);     // u₀, u₂, u₄, u₆
    const std::uint32_t odd = andXor(word >> 4, 0x0F0F0F0Fu, 0x08080808u); // u₁, u₃, u₅, u₇
    lo = bytePerm(even, odd, 0x5140u);
    hi = bytePerm(even, odd, 0x7362u);
}

/// The W4A8 streaming kernel's nibble order of a word (w4a8TileReorder's copy; issue 43): byte b
/// holds the code of k₀ + b in its low nibble and that of k₀ + 4 + b in its high one, so that the
/// operand's bytes (k₀ … k₀ + 3) and (k₀ + 4 … k₀ + 7) are one and-xor (and a shift) apart with no
/// byte permute (docs/perf.md, "Fused W4A8 GEMM": 19.5 → 17.4 µs at INT8 M = 16 on the H200).
/// From the k order (nibble j = the code of k₀ + j).
QS_HD inline std::uint32_t w4a8SplitNibbles(std::uint32_t word)
{
    std::uint32_t r = 0;
    for (int b = 0; b < 4; ++b)
        r |= (((word >> (4 * b)) & 0xFu) | (((word >> (16 + 4 * b)) & 0xFu) << 4)) << (8 * b);
    return r;
}

/// w4a8Int8Operand of the word whose split order (w4a8SplitNibbles) is `split`: the same lo, hi.
/// Two and-xor (one lop3 each) and one shift per eight codes, against seven instructions in k order
/// (the streaming kernel at INT8 M = 16 on the H200: 17.3 µs with the and-xor as plain C, which
/// ptxas makes two instructions each, 16.6 µs with lop3; docs/perf.md).
QS_HD inline void w4a8Int8OperandSplit(std::uint32_t split, std::uint32_t &lo, std::uint32_t &hi)
{
    lo = andXor(split, 0x0F0F0F0Fu, 0x08080808u);
    hi = andXor(split >> 4, 0x0F0F0F0Fu, 0x08080808u);
}

/// The plain INT8 codes q of a word in k order (the unfused lab path's unpack): lo = (q₀ … q₃), hi =
/// (q₄ … q₇) — the operand above with its offset removed bytewise: (u + 0x78) XOR 0x80 = u − 8 as a
/// two's-complement byte, no carry between bytes (u + 0x78 ≤ 0x87).
QS_HD inline void w4a8Int8Codes(std::uint32_t word, std::uint32_t &lo, std::uint32_t &hi)
{
    w4a8Int8Operand(word, lo, hi);
    lo = (lo + 0x78787878u) ^ 0x80808080u;
    hi = (hi + 0x78787878u) ^ 0x80808080u;
}

/// The zero points the folded INT8 weight keeps exact: q − z ∈ [−127, 127] for every q ∈ [−8, 7].
inline constexpr int kW4a8FoldZeroMin = -119, kW4a8FoldZeroMax = 120;

/// Bytewise a − b modulo 256 in each of the four bytes, no borrow between bytes (SWAR).
QS_HD inline std::uint32_t bytewiseSub(std::uint32_t a, std::uint32_t b)
{
    return ((a | 0x80808080u) - (b & 0x7F7F7F7Fu)) ^ ((a ^ ~b) & 0x80808080u);
}

/// The per-channel zero point folded into the INT8 codes (the lab's large-M W4A8-int8 route):
/// lo = (q₀ − z … q₃ − z), hi = (q₄ − z … q₇ − z) as two's-complement bytes, from the operand's
/// u = q + 8 less c = z + 8 bytewise; exact for z ∈ [kW4a8FoldZeroMin, kW4a8FoldZeroMax].
QS_HD inline void w4a8FoldedCodes(std::uint32_t word, int z, std::uint32_t &lo, std::uint32_t &hi)
{
    const std::uint32_t c = (static_cast<std::uint32_t>(z + 8) & 0xFFu) * 0x01010101u;
    w4a8Int8Operand(word, lo, hi);
    lo = bytewiseSub(lo, c);
    hi = bytewiseSub(hi, c);
}

/// The zero points the E4M3 operand keeps exact: q − z ∈ [−16, 16] for every q ∈ [−8, 7].
inline constexpr int kW4a8Fp8ZeroMin = -9, kW4a8Fp8ZeroMax = 8;

/// The FP16 pair (1032 + z, 1032 + z) as bits (z ∈ [−9, 8]: 1023 … 1040, exact in FP16).
QS_HD inline std::uint32_t w4a8Fp16ZeroPair(int z)
{
    const int v = 1032 + z;
    const std::uint32_t h = v >= 1024 ? 0x6400u | static_cast<std::uint32_t>(v - 1024) : 0x63FEu; // 1023
    return h | (h << 16);
}

/// FP16 pair j (0…3) of a word: (1024 + u_j, 1024 + u_{j+4}) — 0x6400 | u is 1024 + u exactly.
QS_HD inline std::uint32_t w4a8Fp16Pair(std::uint32_t word, int j)
{
    return ((word >> (4 * j)) & 0x000F000Fu) ^ 0x64086408u;
}

/// Two E4M3 bytes (low half → low byte) of the FP16 pair p − zz: (1024 + u) − (1032 + z) = q − z
/// exactly (an integer in [−16, 16]), then converted (exact: integers up to 16 are E4M3 values).
QS_HD inline std::uint32_t w4a8E4m3x2(std::uint32_t p, std::uint32_t zz)
{
#if defined(__CUDA_ARCH__)
#if __CUDA_ARCH__ >= 890
    std::uint32_t d;
    unsigned short e;
    asm("sub.rn.f16x2 %0, %1, %2;\n" : "=r"(d) : "r"(p), "r"(zz));
    asm("cvt.rn.satfinite.e4m3x2.f16x2 %0, %1;\n" : "=h"(e) : "r"(d));
    return e;
#else
    __trap(); // E4M3 conversions need sm_89 or newer (the build targets sm_90)
    return 0;
#endif
#else
    const float lo = f16ToF32(p & 0xFFFFu) - f16ToF32(zz & 0xFFFFu);
    const float hi = f16ToF32(p >> 16) - f16ToF32(zz >> 16);
    return encodeE4m3(lo) | (static_cast<std::uint32_t>(encodeE4m3(hi)) << 8);
#endif
}

/// One word of packed codes → the E4M3 A operand of one m16n8k32 step: lo = bytes (q₀ − z … q₃ −
/// z), hi = (q₄ − z … q₇ − z); zz = w4a8Fp16ZeroPair(z). Four and-xor, three shifts, four
/// sub.f16x2, four cvt and four prmt per eight codes.
QS_HD inline void w4a8Fp8Operand(std::uint32_t word, std::uint32_t zz, std::uint32_t &lo, std::uint32_t &hi)
{
    const std::uint32_t e0 = w4a8E4m3x2(w4a8Fp16Pair(word, 0), zz); // (q₀, q₄)
    const std::uint32_t e1 = w4a8E4m3x2(w4a8Fp16Pair(word, 1), zz); // (q₁, q₅)
    const std::uint32_t e2 = w4a8E4m3x2(w4a8Fp16Pair(word, 2), zz); // (q₂, q₆)
    const std::uint32_t e3 = w4a8E4m3x2(w4a8Fp16Pair(word, 3), zz); // (q₃, q₇)
    const std::uint32_t m01 = bytePerm(e0, e1, 0x5140u);            // q₀, q₁, q₄, q₅
    const std::uint32_t m23 = bytePerm(e2, e3, 0x5140u);            // q₂, q₃, q₆, q₇
    lo = bytePerm(m01, m23, 0x5410u);
    hi = bytePerm(m01, m23, 0x7632u);
}

/// w4a8Fp8Operand of the word whose split order is `split`: the same lo, hi. The FP16 pairs of the
/// split word are (q₀, q₂), (q₄, q₆), (q₁, q₃), (q₅, q₇), so two prmt put them in k order where
/// the k order's pairs (q_j, q_{j+4}) take four.
QS_HD inline void w4a8Fp8OperandSplit(std::uint32_t split, std::uint32_t zz, std::uint32_t &lo, std::uint32_t &hi)
{
    const std::uint32_t e0 = w4a8E4m3x2(w4a8Fp16Pair(split, 0), zz); // (q₀, q₂)
    const std::uint32_t e1 = w4a8E4m3x2(w4a8Fp16Pair(split, 1), zz); // (q₄, q₆)
    const std::uint32_t e2 = w4a8E4m3x2(w4a8Fp16Pair(split, 2), zz); // (q₁, q₃)
    const std::uint32_t e3 = w4a8E4m3x2(w4a8Fp16Pair(split, 3), zz); // (q₅, q₇)
    lo = bytePerm(e0, e2, 0x5140u);
    hi = bytePerm(e1, e3, 0x5140u);
}

/// The zero point of a row read back from the tile-ordered copy's metadata, BF16 136 + z (the
/// upper half of the 32-bit pair when hi; w4a16TileReorder / w4a8TileReorder).
QS_HD inline int w4a8CopyZero(std::uint32_t pairBits, int hi)
{
    return static_cast<int>(fromBits((hi ? pairBits >> 16 : pairBits & 0xFFFFu) << 16)) - 136;
}

// ---- X's per-token quantizer ------------------------------------------------------------------

/// The token's scale from its largest |x|: amax / 127 (INT8) or amax / 448 (E4M3); 1 for a zero row.
QS_HD inline float w4a8TokenScale(float amax, bool fp8)
{
    return amax > 0.0f ? amax / (fp8 ? 448.0f : 127.0f) : 1.0f;
}

/// INT8 code: x / s (IEEE division) rounded to nearest even, clamped to ±127.
QS_HD inline std::int8_t w4a8Int8Code(float x, float s)
{
    const float t = x / s;
#if defined(__CUDA_ARCH__)
    float r = rintf(t);
#else
    float r = std::nearbyint(t);
#endif
    r = r > 127.0f ? 127.0f : r < -127.0f ? -127.0f : r;
    return static_cast<std::int8_t>(static_cast<int>(r));
}

/// E4M3 code: x / s (IEEE division) rounded to nearest even, saturated at ±448.
QS_HD inline std::uint8_t w4a8E4m3Code(float x, float s)
{
    return encodeE4m3(x / s);
}

// ---- the bound (docs/numerics.md "Fused W4A8 GEMM") -----------------------------------------

/// c of |y − ref| ≤ 2⁻⁸·|ref| + (1 + 2⁻⁸)·c·mag, mag = Σ_k |s_tok·x_k·s·(q_k − z)|: INT8 (exact
/// INT32 sums per piece of ≥ 32 k) (K/32 + 3)·2⁻²⁴; E4M3 the same plus 2⁻¹⁰ for the tensor
/// core's FP8 sums of at most four k32 steps (the PTX ISA leaves their internal precision open).
QS_HD inline double w4a8BoundCoefficient(bool fp8, long long k)
{
    const double fp32 = (static_cast<double>(k / 32) + 3.0) * 5.9604644775390625e-8;
    return fp8 ? fp32 + 9.765625e-4 : fp32;
}

} // namespace quantscope::gpumath
