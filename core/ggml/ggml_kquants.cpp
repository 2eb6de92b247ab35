// SPDX-License-Identifier: MIT
// llama.cpp's K-quant quantizers (Q2_K … Q6_K), with and without an importance matrix: ggml's own
// C code (ggml_kquants.inc, copied by scripts/gguf/port-kquants.py), compiled here as C++ with the
// block layouts and helpers it expects. Op sequences: docs/numerics.md "GGUF block types".
#include "ggml/ggml_quantize.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace quantscope::ggml::kquants {

namespace {

#define GGML_RESTRICT
#define QK_K 256
#define K_SCALE_SIZE 12
#define GROUP_MAX_EPS 1e-15f
#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))
#define GGML_ASSERT(x) assert(x)
#define GGML_UNUSED(x) (void)(x)
#define UNUSED GGML_UNUSED

using ggml_half = std::uint16_t;

inline float fp32_from_bits(std::uint32_t w)
{
    float f;
    std::memcpy(&f, &w, 4);
    return f;
}
inline std::uint32_t fp32_to_bits(float f)
{
    std::uint32_t w;
    std::memcpy(&w, &f, 4);
    return w;
}

/// ggml-impl.h ggml_compute_fp32_to_fp16 (round to nearest even).
inline ggml_half GGML_FP32_TO_FP16(float f)
{
    const float scale_to_inf = 0x1.0p+112f;
    const float scale_to_zero = 0x1.0p-110f;
    float base = (std::fabs(f) * scale_to_inf) * scale_to_zero;
    const std::uint32_t w = fp32_to_bits(f);
    const std::uint32_t shl1_w = w + w;
    const std::uint32_t sign = w & UINT32_C(0x80000000);
    std::uint32_t bias = shl1_w & UINT32_C(0xFF000000);
    if (bias < UINT32_C(0x71000000))
        bias = UINT32_C(0x71000000);
    base = fp32_from_bits((bias >> 1) + UINT32_C(0x07800000)) + base;
    const std::uint32_t bits = fp32_to_bits(base);
    const std::uint32_t exp_bits = (bits >> 13) & UINT32_C(0x00007C00);
    const std::uint32_t mantissa_bits = bits & UINT32_C(0x00000FFF);
    const std::uint32_t nonsign = exp_bits + mantissa_bits;
    return static_cast<ggml_half>((sign >> 16) | (shl1_w > UINT32_C(0xFF000000) ? UINT16_C(0x7E00) : nonsign));
}

inline float GGML_FP16_TO_FP32(ggml_half h)
{
    return halfToFloat(h);
}

// ggml-common.h's block layouts.
struct block_q2_K {
    std::uint8_t scales[QK_K / 16];
    std::uint8_t qs[QK_K / 4];
    ggml_half d, dmin;
};
struct block_q3_K {
    std::uint8_t hmask[QK_K / 8];
    std::uint8_t qs[QK_K / 4];
    std::uint8_t scales[12];
    ggml_half d;
};
struct block_q4_K {
    ggml_half d, dmin;
    std::uint8_t scales[K_SCALE_SIZE];
    std::uint8_t qs[QK_K / 2];
};
struct block_q5_K {
    ggml_half d, dmin;
    std::uint8_t scales[K_SCALE_SIZE];
    std::uint8_t qh[QK_K / 8];
    std::uint8_t qs[QK_K / 2];
};
struct block_q6_K {
    std::uint8_t ql[QK_K / 2];
    std::uint8_t qh[QK_K / 4];
    std::int8_t scales[QK_K / 16];
    ggml_half d;
};
static_assert(sizeof(block_q2_K) == 84 && sizeof(block_q3_K) == 110 && sizeof(block_q4_K) == 144 &&
              sizeof(block_q5_K) == 176 && sizeof(block_q6_K) == 210);

enum ggml_type { GGML_TYPE_Q2_K = 10, GGML_TYPE_Q3_K, GGML_TYPE_Q4_K, GGML_TYPE_Q5_K, GGML_TYPE_Q6_K };

std::size_t ggml_row_size(ggml_type t, std::int64_t n)
{
    return static_cast<std::size_t>(n / QK_K) *
           static_cast<std::size_t>(typeInfo(static_cast<std::uint32_t>(t))->typeSize);
}

#include "ggml/ggml_kquants.inc"

#undef GGML_RESTRICT
#undef QK_K
#undef K_SCALE_SIZE
#undef GROUP_MAX_EPS
#undef MIN
#undef MAX
#undef GGML_ASSERT
#undef GGML_UNUSED
#undef UNUSED

} // namespace

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
