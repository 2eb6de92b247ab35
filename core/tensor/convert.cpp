// SPDX-License-Identifier: MIT
// Bit-exact scalar conversions (docs/numerics.md "Casts", "FP8", "FP4 E2M1"; docs/toolkits.md §6).
//
// Everything here is integer bit manipulation on the FP32 pattern: no FP arithmetic takes part
// in a rounding decision, so the results do not depend on the FP rounding mode, FTZ/DAZ or FMA
// contraction, and the same sequences port unchanged to device code.
//
// ---- Decoders (exact) -------------------------------------------------------------------------
//   BF16: the 16 bits become the high half of the FP32 pattern (NaN payloads kept).
//   F16: normal and Inf/NaN by moving exponent and mantissa fields (exponent rebias +112,
//        mantissa << 13); subnormals mag · 2^-24 normalised by the leading bit of mag.
//   8-bit and smaller minifloats (E4M3, E5M2, their FNUZ variants, E8M0, E2M1, E2M3, E3M2):
//        one load from a table of FP32 patterns built at compile time (constant initialisation,
//        so the tables are valid before any dynamic initialiser runs). Each table entry is the
//        field formula: normal (-1)^s · 1.m · 2^(e−bias); subnormal (e = 0) (-1)^s · 0.m ·
//        2^(1−bias), normalised by shifting m left. Special codes: E4M3 S.1111.111 NaN; E5M2
//        S.11111.00 Inf, S.11111.{01,10,11} NaN; FNUZ 0x80 NaN (no −0, no Inf); E8M0 0xFF NaN, 0x00
//        = 2^-127 (an FP32 subnormal). FP4/FP6 have no Inf/NaN. Decoded NaNs are the quiet NaN with
//        the code's sign.
//
// ---- IEEE casts to BF16 / F16 (round to nearest even, overflow → ±Inf) -------------------------
//   BF16: bits + 0x7FFF + (bit 16 of bits), keep the high half (RNE of the low 16 bits; a carry
//         out of the mantissa increments the exponent, and the largest finite values carry into
//         0x7F80 = Inf). NaN (selected afterwards) → 0x7FC0 | sign.
//   F16:  a = |x| bits; clamp a to 65536 (0x47800000), whose RNE is the Inf code 0x7C00 — every
//         input ≥ 65520 (the midpoint above 65504) and ±Inf therefore land on Inf; then the
//         generic RNE below with M = 10, bias 15. NaN (selected afterwards) → 0x7E00 | sign.
//
// ---- Quantization casts to E4M3 / E5M2 / E2M1 (clamp, then round to nearest even) -------------
//   a = |x| bits; a = min(a, bits of max finite) (448, 57344, 6; for non-NaN magnitudes the
//   integer order of FP32 patterns is the numeric order, and +Inf clamps too); generic RNE; OR the
//   sign in (bit 7, or bit 3 for E2M1: −0 and values that round to zero keep their sign).
//   NaN (selected afterwards) → E4M3 0x7F | sign, E5M2 0x7E | sign, E2M1 0.
//
// ---- Generic RNE of an FP32 magnitude to M mantissa bits, bias B -------------------------------
//   eEff = max(FP32 exponent field, 1); sig = 24-bit significand (implicit bit only when the field
//   is non-zero); d = eEff − (128 − B) is the target exponent field minus one. The result is
//   (max(d, 0) << M) + RNE(sig >> shift) with shift = (23 − M) + max(−d, 0), capped at 31 (sig <
//   2^24, so any shift ≥ 25 rounds to 0 anyway). Normal results: sig >> shift carries the implicit
//   bit into the exponent field (+1), a mantissa carry increments it again; subnormal results:
//   the extra right shift aligns sig to the subnormal quantum 2^(1−B−M), and rounding up to
//   1 << M is exactly the smallest normal code. RNE(v >> s) = (v + 2^(s−1) − 1 + bit s of v) >> s.
//
// ---- E8M0 scale encoding ----------------------------------------------------------------------
//   NaN → 0xFF; ≤ 0 (incl. −0, −Inf) → 0; +Inf → 254. Otherwise x = 1.f · 2^e exactly (FP32
//   subnormals normalised by their leading bit); Floor: e; Ceil: e + (f ≠ 0); Round: e + (1.f ≥
//   √2), i.e. the nearest integer to log2(x) (log2 of an FP32 value never lies on a half-integer;
//   the test 1.f ≥ √2 is done exactly as (2^23 + f)^2 ≥ 2^47). Byte = clamp(that + 127, 0, 254).
//   Note: Round is round(log2 x) (docs/numerics.md constOpt `E = round(log2(c·m))`), not torch's
//   float→float8_e8m0fnu cast, which rounds the mantissa linearly (1.5 is its threshold).
#include "tensor/convert.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>

namespace quantscope {

namespace {

constexpr std::uint32_t kF32QuietNaN = 0x7FC00000u;
constexpr std::uint32_t kF32Inf = 0x7F800000u;
constexpr std::uint32_t kF32AbsMask = 0x7FFFFFFFu;

// ---- decoder tables ----

enum class Special : std::uint8_t {
    None,   ///< every code finite (FP4, FP6)
    E4m3fn, ///< S.1111.111 is NaN
    Ieee,   ///< all-ones exponent: Inf (mantissa 0) or NaN
    Fnuz,   ///< 0x80 (the would-be −0) is the single NaN
};

/// FP32 pattern of the minifloat `code` with `eBits` exponent bits, `mBits` mantissa bits and
/// `bias` (sign bit above the exponent).
constexpr std::uint32_t minifloatToF32Bits(std::uint32_t code, int eBits, int mBits, int bias, Special special)
{
    const std::uint32_t sign = ((code >> (eBits + mBits)) & 1u) << 31;
    const std::uint32_t eMax = (1u << eBits) - 1;
    const std::uint32_t mMask = (1u << mBits) - 1;
    std::uint32_t e = (code >> mBits) & eMax;
    std::uint32_t m = code & mMask;

    if (special == Special::E4m3fn && e == eMax && m == mMask)
        return sign | kF32QuietNaN;
    if (special == Special::Ieee && e == eMax)
        return m == 0 ? (sign | kF32Inf) : (sign | kF32QuietNaN);
    if (special == Special::Fnuz && sign != 0 && e == 0 && m == 0)
        return kF32QuietNaN;

    if (e == 0) {
        if (m == 0)
            return sign; // ±0
        // Subnormal 0.m · 2^(1−bias): shift m left until its leading bit reaches the implicit
        // position; every subnormal of these formats is a normal FP32 number.
        int exp = 1 - bias;
        while ((m & (1u << mBits)) == 0) {
            m <<= 1;
            --exp;
        }
        return sign | (static_cast<std::uint32_t>(exp + 127) << 23) | ((m & mMask) << (23 - mBits));
    }
    const int exp = static_cast<int>(e) - bias;
    return sign | (static_cast<std::uint32_t>(exp + 127) << 23) | (m << (23 - mBits));
}

template <std::size_t N>
constexpr std::array<std::uint32_t, N> makeTable(int eBits, int mBits, int bias, Special special)
{
    std::array<std::uint32_t, N> t{};
    for (std::size_t c = 0; c < N; ++c)
        t[c] = minifloatToF32Bits(static_cast<std::uint32_t>(c), eBits, mBits, bias, special);
    return t;
}

constexpr std::array<std::uint32_t, 256> makeE8m0Table()
{
    std::array<std::uint32_t, 256> t{};
    t[0] = 0x00400000u; // 2^-127: FP32 subnormal
    for (std::uint32_t c = 1; c < 255; ++c)
        t[c] = c << 23;
    t[255] = kF32QuietNaN;
    return t;
}

constexpr auto kE4m3Table = makeTable<256>(4, 3, 7, Special::E4m3fn);
constexpr auto kE5m2Table = makeTable<256>(5, 2, 15, Special::Ieee);
constexpr auto kE4m3fnuzTable = makeTable<256>(4, 3, 8, Special::Fnuz);
constexpr auto kE5m2fnuzTable = makeTable<256>(5, 2, 16, Special::Fnuz);
constexpr auto kE8m0Table = makeE8m0Table();
constexpr auto kE2m1Table = makeTable<16>(2, 1, 1, Special::None);
constexpr auto kE2m3Table = makeTable<64>(2, 3, 1, Special::None);
constexpr auto kE3m2Table = makeTable<64>(3, 2, 3, Special::None);

static_assert(kE4m3Table[0x7E] == 0x43E00000u, "E4M3 0x7E = 448");
static_assert(kE4m3Table[0x01] == 0x3B000000u, "E4M3 0x01 = 2^-9");
static_assert(kE5m2Table[0x7B] == 0x47600000u, "E5M2 0x7B = 57344");
static_assert(kE4m3fnuzTable[0x7F] == 0x43700000u, "E4M3FNUZ 0x7F = 240");
static_assert(kE2m1Table[0x7] == 0x40C00000u, "E2M1 0x7 = 6");
static_assert(kE2m3Table[0x1F] == 0x40F00000u, "E2M3 max = 7.5");
static_assert(kE3m2Table[0x1F] == 0x41E00000u, "E3M2 max = 28");

// ---- encoders ----

/// Round to nearest even of a non-NaN FP32 magnitude `a` (sign bit clear) to a minifloat with
/// M mantissa bits and exponent bias B (see the file comment). `a` must not exceed what the
/// caller's clamp allows; the result has no sign bit.
template <int M, int B> inline std::uint32_t roundMagnitude(std::uint32_t a) noexcept
{
    const auto field = static_cast<std::int32_t>(a >> 23);
    const std::int32_t eEff = std::max(field, 1);
    const std::uint32_t sig = (a & 0x007FFFFFu) | (static_cast<std::uint32_t>(field != 0) << 23);
    const std::int32_t d = eEff - (128 - B);
    const std::int32_t shift = std::min((23 - M) + std::max(-d, 0), 31);
    const std::uint32_t half = (1u << (shift - 1)) - 1u;
    const std::uint32_t rounded = (sig + half + ((sig >> shift) & 1u)) >> shift;
    return (static_cast<std::uint32_t>(std::max(d, 0)) << M) + rounded;
}

constexpr std::uint32_t kF16InfThresholdBits = 0x47800000u; // 65536.0f
constexpr std::uint32_t kE4m3MaxBits = 0x43E00000u;         // 448.0f
constexpr std::uint32_t kE5m2MaxBits = 0x47600000u;         // 57344.0f
constexpr std::uint32_t kE2m1MaxBits = 0x40C00000u;         // 6.0f

} // namespace

// ---- decode ----

float bf16ToFloat(std::uint16_t bits) noexcept
{
    return std::bit_cast<float>(static_cast<std::uint32_t>(bits) << 16);
}

float f16ToFloat(std::uint16_t bits) noexcept
{
    const std::uint32_t sign = static_cast<std::uint32_t>(bits & 0x8000u) << 16;
    const std::uint32_t mag = bits & 0x7FFFu;
    const std::uint32_t shifted = mag << 13;
    if (mag >= 0x7C00u) // Inf / NaN: all-ones exponent, payload kept
        return std::bit_cast<float>(sign | kF32Inf | (shifted & 0x007FFFFFu));
    if (mag >= 0x0400u) // normal: rebias 15 → 127
        return std::bit_cast<float>(sign | (shifted + (112u << 23)));
    if (mag == 0)
        return std::bit_cast<float>(sign);
    // subnormal mag · 2^-24 = 1.g · 2^(lead − 24) with lead the leading bit of mag (0..9)
    const int lead = 31 - std::countl_zero(mag);
    const std::uint32_t field = static_cast<std::uint32_t>(lead + 103);
    return std::bit_cast<float>(sign | (field << 23) | ((mag << (23 - lead)) & 0x007FFFFFu));
}

float e4m3ToFloat(std::uint8_t bits) noexcept
{
    return std::bit_cast<float>(kE4m3Table[bits]);
}
float e5m2ToFloat(std::uint8_t bits) noexcept
{
    return std::bit_cast<float>(kE5m2Table[bits]);
}
float e4m3fnuzToFloat(std::uint8_t bits) noexcept
{
    return std::bit_cast<float>(kE4m3fnuzTable[bits]);
}
float e5m2fnuzToFloat(std::uint8_t bits) noexcept
{
    return std::bit_cast<float>(kE5m2fnuzTable[bits]);
}
float e8m0ToFloat(std::uint8_t bits) noexcept
{
    return std::bit_cast<float>(kE8m0Table[bits]);
}
float e2m1ToFloat(std::uint8_t nibble) noexcept
{
    return std::bit_cast<float>(kE2m1Table[nibble & 0x0Fu]);
}
float e2m3ToFloat(std::uint8_t bits6) noexcept
{
    return std::bit_cast<float>(kE2m3Table[bits6 & 0x3Fu]);
}
float e3m2ToFloat(std::uint8_t bits6) noexcept
{
    return std::bit_cast<float>(kE3m2Table[bits6 & 0x3Fu]);
}

// ---- encode: IEEE casts ----

std::uint16_t floatToBf16(float x) noexcept
{
    const auto u = std::bit_cast<std::uint32_t>(x);
    const std::uint32_t sign = (u >> 16) & 0x8000u;
    const bool nan = (u & kF32AbsMask) > kF32Inf;
    const std::uint32_t rounded = (u + 0x7FFFu + ((u >> 16) & 1u)) >> 16;
    return static_cast<std::uint16_t>(nan ? (sign | 0x7FC0u) : rounded);
}

std::uint16_t floatToF16(float x) noexcept
{
    const auto u = std::bit_cast<std::uint32_t>(x);
    const std::uint32_t sign = (u >> 16) & 0x8000u;
    const std::uint32_t a = u & kF32AbsMask;
    const std::uint32_t code = roundMagnitude<10, 15>(std::min(a, kF16InfThresholdBits));
    return static_cast<std::uint16_t>(sign | (a > kF32Inf ? 0x7E00u : code));
}

// ---- encode: quantization casts ----

std::uint8_t floatToE4m3(float x) noexcept
{
    const auto u = std::bit_cast<std::uint32_t>(x);
    const std::uint32_t sign = (u >> 24) & 0x80u;
    const std::uint32_t a = u & kF32AbsMask;
    const std::uint32_t code = roundMagnitude<3, 7>(std::min(a, kE4m3MaxBits));
    return static_cast<std::uint8_t>(sign | (a > kF32Inf ? 0x7Fu : code));
}

std::uint8_t floatToE5m2(float x) noexcept
{
    const auto u = std::bit_cast<std::uint32_t>(x);
    const std::uint32_t sign = (u >> 24) & 0x80u;
    const std::uint32_t a = u & kF32AbsMask;
    const std::uint32_t code = roundMagnitude<2, 15>(std::min(a, kE5m2MaxBits));
    return static_cast<std::uint8_t>(sign | (a > kF32Inf ? 0x7Eu : code));
}

std::uint8_t floatToE2m1(float x) noexcept
{
    const auto u = std::bit_cast<std::uint32_t>(x);
    const std::uint32_t sign = (u >> 28) & 0x8u;
    const std::uint32_t a = u & kF32AbsMask;
    const std::uint32_t code = roundMagnitude<1, 1>(std::min(a, kE2m1MaxBits));
    return static_cast<std::uint8_t>(a > kF32Inf ? 0u : (sign | code));
}

// ---- E8M0 ----

std::uint8_t floatToE8m0(float x, E8m0Rounding mode) noexcept
{
    const auto u = std::bit_cast<std::uint32_t>(x);
    if ((u & kF32AbsMask) > kF32Inf)
        return 0xFF;
    if ((u >> 31) != 0 || u == 0)
        return 0;
    if (u == kF32Inf)
        return 254;

    const auto field = static_cast<std::int32_t>(u >> 23);
    std::uint32_t frac = u & 0x007FFFFFu;
    std::int32_t e = field - 127;
    if (field == 0) {                                 // subnormal frac · 2^-149: normalise by the leading bit
        const int lead = 31 - std::countl_zero(frac); // 0..22
        e = lead - 149;
        frac = (frac << (23 - lead)) & 0x007FFFFFu;
    }
    switch (mode) {
    case E8m0Rounding::Floor:
        break;
    case E8m0Rounding::Ceil:
        e += frac != 0 ? 1 : 0;
        break;
    case E8m0Rounding::Round: {
        const std::uint64_t s = (1u << 23) | frac;      // 1.f · 2^23
        e += s * s >= (std::uint64_t{1} << 47) ? 1 : 0; // 1.f ≥ √2
        break;
    }
    }
    return static_cast<std::uint8_t>(std::clamp(e + 127, 0, 254));
}

} // namespace quantscope
