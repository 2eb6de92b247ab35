// SPDX-License-Identifier: MIT
#pragma once
/// \file convert.h
/// Bit-exact scalar conversions between FP32 and the narrow formats (docs/numerics.md "Casts").
///
/// Two families:
///  * IEEE casts to BF16 / F16: round to nearest even, overflow → ±Inf, NaN → canonical quiet
///    NaN (0x7FC0 / 0x7E00) with the sign kept — what torch does.
///  * Quantization casts to E4M3 (e4m3fn), E5M2 and E2M1: clamp to the finite range first
///    (±448, ±57344, ±6), then round to nearest even. A finite input never gives NaN; a NaN input
///    gives E4M3 0x7F / E5M2 0x7E (sign kept) and E2M1 0 (E2M1 has no NaN; callers report it).
/// Decoders are exact (every code of every format is representable in FP32).
#include <cstdint>

namespace quantscope {

// ---- decode (exact) ----
float bf16ToFloat(std::uint16_t bits) noexcept;
float f16ToFloat(std::uint16_t bits) noexcept;
float e4m3ToFloat(std::uint8_t bits) noexcept;     ///< e4m3fn; 0x7F/0xFF → NaN
float e5m2ToFloat(std::uint8_t bits) noexcept;     ///< IEEE-like; 0x7C = Inf, 0x7D–0x7F NaN
float e4m3fnuzToFloat(std::uint8_t bits) noexcept; ///< bias 8, 0x80 = NaN, no −0, no Inf
float e5m2fnuzToFloat(std::uint8_t bits) noexcept; ///< bias 16, 0x80 = NaN, no −0, no Inf
float e8m0ToFloat(std::uint8_t bits) noexcept;     ///< 2^(bits−127); 0xFF → NaN
float e2m1ToFloat(std::uint8_t nibble) noexcept;   ///< low 4 bits used; bit 3 = sign
float e2m3ToFloat(std::uint8_t bits6) noexcept;    ///< FP6 E2M3 (OCP MX), low 6 bits
float e3m2ToFloat(std::uint8_t bits6) noexcept;    ///< FP6 E3M2 (OCP MX), low 6 bits

// ---- encode: IEEE casts ----
std::uint16_t floatToBf16(float x) noexcept;
std::uint16_t floatToF16(float x) noexcept;

// ---- encode: quantization casts (clamp, then RNE) ----
std::uint8_t floatToE4m3(float x) noexcept;
std::uint8_t floatToE5m2(float x) noexcept;
std::uint8_t floatToE2m1(float x) noexcept; ///< returns a nibble 0..15; NaN → 0

// ---- E8M0 scale encoding ----
enum class E8m0Rounding : std::uint8_t { Floor, Ceil, Round };
/// Power-of-two exponent byte for a positive finite scale: floor/ceil/round of log2(x) + 127,
/// clamped to [0, 254]. Zero, negative or non-finite input → 0xFF (NaN) is NOT produced:
/// non-positive gives 0 (2^-127), +Inf gives 254, NaN gives 0xFF.
std::uint8_t floatToE8m0(float x, E8m0Rounding mode) noexcept;

} // namespace quantscope
