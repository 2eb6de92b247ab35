// SPDX-License-Identifier: MIT
#pragma once
/// \file ggml_quantize.h
/// llama.cpp's block quantizers: the round-to-nearest Q4_0, Q4_1, Q5_0, Q5_1, Q8_0, whose codes
/// equal `gguf.quants.quantize` byte for byte (which equals ggml's quantize_row_*_ref), and the
/// K-quants Q2_K … Q6_K with their search for scales and mins, without an importance matrix
/// (ggml's quantize_row_q*_K_ref) or with one (quantize_row_q*_K_impl), ggml's own code
/// (ggml_kquants.cpp), the i-quants IQ1_S … IQ4_XS (ggml's quantize_iq*, with their lattice
/// searches; ggml_iquants.inc), and the ternary TQ1_0, TQ2_0 and ggml's MXFP4 as
/// gguf.quants.quantize (ggml_tq_mxfp4.cpp). The operation order: docs/numerics.md "GGUF block types".
#include <cstddef>
#include <cstdint>
#include <vector>

#include "ggml/ggml_types.h"

namespace quantscope::ggml {

/// Whether `t` is one of the K-quants Q2_K … Q6_K (the types that take importance weights).
bool isKQuant(Type t) noexcept;
/// Whether `t` is one of the i-quants IQ1_S, IQ1_M, IQ2_XXS, IQ2_XS, IQ2_S, IQ3_XXS, IQ3_S,
/// IQ4_NL, IQ4_XS.
bool isIQuant(Type t) noexcept;
/// Whether `t` takes importance weights (the K-quants and the i-quants).
bool takesImportance(Type t) noexcept;
/// Whether llama.cpp quantizes `t` only with an importance matrix: llama-quantize's
/// tensor_requires_imatrix (IQ1_S, IQ1_M, IQ2_XXS, IQ2_XS, IQ2_S, IQ3_XXS; Q2_K only inside a
/// Q2_K_S file, which the mix handles).
bool requiresImportance(Type t) noexcept;
/// Whether quantizeRows() implements `t`.
bool quantizes(Type t) noexcept;
/// Quantizes `rows` rows of `cols` floats (cols a multiple of the block size) into blocks of `t`,
/// row after row. `importance` (cols weights, e.g. an imatrix's mean squared activations, or null)
/// is used by the K-quants and i-quants only. Throws UnsupportedError for a type quantizes()
/// refuses, for importance weights with a legacy type, for a type that requiresImportance()
/// without them, and for a ragged `cols`.
std::vector<std::byte> quantizeRows(Type t, const float *x, std::int64_t rows, std::int64_t cols,
                                    const float *importance = nullptr);

namespace kquants {
/// ggml's quantize_q*_K (Q2_K … Q6_K) into `dst` (rows · cols / 256 blocks).
void quantize(Type t, const float *src, void *dst, std::int64_t nrow, std::int64_t n_per_row, const float *weights);
} // namespace kquants

namespace iquants {
/// ggml's quantize_iq* into `dst` (its lattice tables built once, thread-safe).
void quantize(Type t, const float *src, void *dst, std::int64_t nrow, std::int64_t n_per_row, const float *weights);
} // namespace iquants

namespace smallquants {
/// TQ1_0, TQ2_0, MXFP4 (ggml's quantize_row_tq1_0_ref / tq2_0_ref / mxfp4_ref).
bool quantizes(Type t) noexcept;
/// `nblocks` consecutive blocks of `t` from `x` into `dst`.
void quantize(Type t, const float *x, void *dst, std::int64_t nblocks);
} // namespace smallquants

} // namespace quantscope::ggml
