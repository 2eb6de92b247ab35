// SPDX-License-Identifier: MIT
// llama.cpp's K-quant quantizers (Q2_K … Q6_K), with and without an importance matrix: ggml's own
// C code (ggml_kquants.inc, copied by scripts/gguf/port-kquants.py) and its row drivers, compiled
// here as C++ with the block layouts and helpers of ggml_kquant_blocks.h (which the GPU kernels
// compile too). Op sequences: docs/numerics.md "GGUF block types".
#include "ggml/ggml_quantize.h"

#include "ggml/ggml_kquant_blocks.h"

namespace quantscope::ggml::kquants {

/// Quantizes `nrow` rows of `n_per_row` floats into `dst`; `weights` (n_per_row importance
/// weights, or null) selects ggml's quantize_row_*_impl over quantize_row_*_ref, as ggml's
/// quantize_q*_K does.
void quantize(Type t, const float *src, void *dst, std::int64_t nrow, std::int64_t n_per_row, const float *weights)
{
    switch (t) {
    case Type::Q2_K:
        quantize_q2_K(src, dst, nrow, n_per_row, weights);
        return;
    case Type::Q3_K:
        quantize_q3_K(src, dst, nrow, n_per_row, weights);
        return;
    case Type::Q4_K:
        quantize_q4_K(src, dst, nrow, n_per_row, weights);
        return;
    case Type::Q5_K:
        quantize_q5_K(src, dst, nrow, n_per_row, weights);
        return;
    case Type::Q6_K:
        quantize_q6_K(src, dst, nrow, n_per_row, weights);
        return;
    default:
        break;
    }
}

} // namespace quantscope::ggml::kquants
