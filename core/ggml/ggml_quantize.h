// SPDX-License-Identifier: MIT
#pragma once
/// \file ggml_quantize.h
/// llama.cpp's round-to-nearest block quantizers Q4_0, Q4_1, Q5_0, Q5_1, Q8_0: the codes equal
/// `gguf.quants.quantize` byte for byte (which equals ggml's quantize_row_*_ref). The operation
/// order: docs/numerics.md "GGUF block types".
#include <cstddef>
#include <cstdint>
#include <vector>

#include "ggml/ggml_types.h"

namespace quantscope::ggml {

/// Whether quantizeRows() implements `t`.
bool quantizes(Type t) noexcept;
/// Quantizes `n` floats (a multiple of the block size) into blocks of `t`. Throws
/// UnsupportedError for a type quantizes() refuses, FormatError for a ragged `n`.
std::vector<std::byte> quantizeRows(Type t, const float *x, std::size_t n);

} // namespace quantscope::ggml
