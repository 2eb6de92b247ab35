// SPDX-License-Identifier: MIT
#pragma once
/// \file ggml_types.h
/// llama.cpp's tensor types (ggml's `ggml_type`): ids, block sizes, names, the scheme in words,
/// and the decode of every block type to FP32, bit-exact with the `gguf` Python package's
/// `gguf.quants.dequantize` (which follows ggml's C `dequantize_row_*`). The operation order of
/// each decode is written down in docs/numerics.md "GGUF block types".
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace quantscope::ggml {

/// ggml_type ids as stored in a GGUF tensor info (ggml.h; gguf-py GGMLQuantizationType).
enum class Type : std::uint32_t {
    F32 = 0,
    F16 = 1,
    Q4_0 = 2,
    Q4_1 = 3,
    Q5_0 = 6,
    Q5_1 = 7,
    Q8_0 = 8,
    Q8_1 = 9,
    Q2_K = 10,
    Q3_K = 11,
    Q4_K = 12,
    Q5_K = 13,
    Q6_K = 14,
    Q8_K = 15,
    IQ2_XXS = 16,
    IQ2_XS = 17,
    IQ3_XXS = 18,
    IQ1_S = 19,
    IQ4_NL = 20,
    IQ3_S = 21,
    IQ2_S = 22,
    IQ4_XS = 23,
    I8 = 24,
    I16 = 25,
    I32 = 26,
    I64 = 27,
    F64 = 28,
    IQ1_M = 29,
    BF16 = 30,
    TQ1_0 = 34,
    TQ2_0 = 35,
    MXFP4 = 39,
    NVFP4 = 40,
    Q1_0 = 41,
};

/// One type's layout: `blockSize` elements stored in `typeSize` bytes.
struct TypeInfo {
    Type type;
    std::string_view name; ///< "Q4_K", as ggml and gguf-py spell it
    int blockSize = 1;
    int typeSize = 4;
    bool decodes = false; ///< decodeBlocks() reads it (every type gguf.quants.dequantize reads, plus Q8_K)
};

/// The type of a stored id, or nullptr for an id ggml does not define (3, 4, 5, 31–33, 36–38, > 41).
const TypeInfo *typeInfo(std::uint32_t id) noexcept;
/// All known types, by id.
const std::vector<TypeInfo> &allTypes();
/// "q4_k" / "Q4_K" → the type (case-insensitive), nullopt when unknown.
std::optional<Type> typeFromName(std::string_view name) noexcept;
std::string_view typeName(Type t) noexcept;

/// The scheme in words for the views: "Q4_K: super-blocks of 256, 8 sub-blocks of 32, 6-bit
/// scales and mins (F16 d, dmin), 4-bit codes".
std::string schemeText(Type t);

/// Decodes `nblocks` consecutive blocks of `t` from `src` (nblocks · typeSize bytes) into `out`
/// (nblocks · blockSize floats). Throws UnsupportedError for a type that does not decode.
void decodeBlocks(Type t, const std::byte *src, std::size_t nblocks, float *out);

/// An i-quant lattice (IQ2_XXS, IQ2_XS, IQ2_S, IQ1_S, IQ3_XXS, IQ3_S; IQ1_M shares IQ1_S's) in the
/// form ggml's quantizer initialisation spells it (ggml-quants.c kgrid_*): one uint16 per point,
/// its value indexes 2 bits each (3 bits for the IQ3 grids), lowest first. Built once from
/// ggml_grids.inc, the decoder's copy. Empty for other types.
const std::vector<std::uint16_t> &latticeWords(Type t);

/// IEEE half → float with NaN payloads kept (numpy's and ggml's conversion).
float halfToFloat(std::uint16_t h) noexcept;

} // namespace quantscope::ggml
