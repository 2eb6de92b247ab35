// SPDX-License-Identifier: MIT
#pragma once
/// \file dtype.h
/// Element types: the 22 safetensors dtype strings plus Quantscope's packed INT4/UINT4.
#include <cstdint>
#include <optional>
#include <string_view>

namespace quantscope {

/// Element type of a tensor. The first 22 are safetensors' `Dtype` enum in its order
/// (increasing alignment); I4/U4 are packed 4-bit integers (element 2k in the low nibble) used
/// by Quantscope's own layouts.
enum class DType : std::uint8_t {
    BOOL,
    F4, ///< FP4 E2M1, packed two per byte, element 2k in the low nibble
    F6_E2M3,
    F6_E3M2,
    U8,
    I8,
    F8_E5M2,
    F8_E4M3, ///< OCP e4m3fn: max 448, NaN 0x7F/0xFF, no Inf
    F8_E8M0, ///< unsigned power of two 2^(e-127), 0xFF = NaN
    F8_E4M3FNUZ,
    F8_E5M2FNUZ,
    I16,
    U16,
    F16,
    BF16,
    I32,
    U32,
    F32,
    C64,
    F64,
    I64,
    U64,
    I4, ///< signed 4-bit, two's complement, packed two per byte (Quantscope native)
    U4, ///< unsigned 4-bit, packed two per byte (Quantscope native)
};

inline constexpr int kDTypeCount = 24;
inline constexpr int kSafetensorsDTypeCount = 22;

/// Bits per element (4 for F4/I4/U4, 6 for F6_*).
int bitsOf(DType t) noexcept;
/// The safetensors string ("F32", "F8_E4M3", …); Quantscope's own I4/U4 are named "I4"/"U4".
std::string_view nameOf(DType t) noexcept;
/// Parses one of the 22 safetensors dtype strings (exact, case-sensitive). I4/U4 are not
/// safetensors dtypes and are not accepted here.
std::optional<DType> dtypeFromSafetensors(std::string_view s) noexcept;
/// True when Quantscope can decode elements of this type to float (arithmetic support).
bool isDecodable(DType t) noexcept;
/// True for floating-point element types (including FP8/FP4/E8M0).
bool isFloating(DType t) noexcept;

} // namespace quantscope
