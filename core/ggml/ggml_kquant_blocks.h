// SPDX-License-Identifier: MIT
#pragma once
/// \file ggml_kquant_blocks.h
/// llama.cpp's K-quant quantizers (Q2_K … Q6_K), with and without an importance matrix: ggml's
/// own C code (ggml_kquants.inc, copied by scripts/gguf/port-kquants.py), compiled as C++ with the
/// block layouts and helpers it expects — by the host compiler for the CPU reference
/// (ggml_kquants.cpp) and by nvcc for the GPU kernels (gpu/kernels/ggml_quant.cu): the per-block
/// functions carry GGML_KQ_HD (QS_HD: `__host__ __device__` there, nothing here). quantizeBlock()
/// is what both call per (super-)block: ggml's quantize_row_q*_K_ref / _impl on one super-block
/// (their loop over blocks keeps no state from one block to the next, so a row is its blocks one
/// after another), or the legacy types' ggml_block_math.h. Op sequences: docs/numerics.md
/// "GGUF block types". Every function here has internal linkage: one copy per including source.
#include <cassert>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "ggml/ggml_block_math.h"

namespace quantscope::ggml::kquants {

namespace {

#define GGML_KQ_HD QS_HD
#include "ggml/ggml_port_macros.inc"
#define GGML_ASSERT(x) assert(x)

using ggml_half = std::uint16_t;
using std::int64_t;
using std::int8_t;
using std::size_t;
using std::uint8_t;

/// ggml-impl.h ggml_compute_fp32_to_fp16 (round to nearest even) and the exact widening.
QS_HD inline ggml_half GGML_FP32_TO_FP16(float f)
{
    return blockmath::fp32ToF16(f);
}
QS_HD inline float GGML_FP16_TO_FP32(ggml_half h)
{
    return blockmath::f16ToF32(h);
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

enum ggml_type {
    GGML_TYPE_Q2_K = 10,
    GGML_TYPE_Q3_K,
    GGML_TYPE_Q4_K,
    GGML_TYPE_Q5_K,
    GGML_TYPE_Q6_K,
    GGML_TYPE_IQ2_XXS = 16, // the i-quants' (ggml_kquants.cpp, host only)
    GGML_TYPE_IQ2_XS = 17,
    GGML_TYPE_IQ3_XXS = 18,
    GGML_TYPE_IQ1_S = 19,
    GGML_TYPE_IQ4_NL = 20,
    GGML_TYPE_IQ3_S = 21,
    GGML_TYPE_IQ2_S = 22,
    GGML_TYPE_IQ4_XS = 23,
    GGML_TYPE_IQ1_M = 29,
};

inline std::size_t ggml_row_size(ggml_type t, std::int64_t n)
{
    return static_cast<std::size_t>(n / QK_K) * static_cast<std::size_t>(blockmath::blockBytes(static_cast<int>(t)));
}

#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#endif
#if defined(__NVCC__)
#pragma nv_diag_suppress 177 // a row driver (quantize_q*_K) the including source does not call
#endif
#include "ggml/ggml_kquants.inc"
#if defined(__NVCC__)
#pragma nv_diag_default 177
#endif
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

#include "ggml/ggml_port_undef.inc"

/// One block of ggml type `t` (blockmath::kQ4_0 … kQ6_K): blockValues(t) floats x into
/// blockBytes(t) bytes at y. `qw`: the importance weights of those columns (K-quants; null:
/// ggml's quantize_row_q*_K_ref, else quantize_row_q*_K_impl, as ggml's quantize_q*_K chooses).
QS_HD inline void quantizeBlock(int t, const float *x, const float *qw, void *y)
{
    switch (t) {
    case blockmath::kQ2_K:
        if (qw)
            quantize_row_q2_K_impl(x, static_cast<block_q2_K *>(y), 256, qw);
        else
            quantize_row_q2_K_ref(x, static_cast<block_q2_K *>(y), 256);
        return;
    case blockmath::kQ3_K:
        if (qw)
            quantize_row_q3_K_impl(x, static_cast<block_q3_K *>(y), 256, qw);
        else
            quantize_row_q3_K_ref(x, static_cast<block_q3_K *>(y), 256);
        return;
    case blockmath::kQ4_K:
        if (qw)
            quantize_row_q4_K_impl(x, static_cast<block_q4_K *>(y), 256, qw);
        else
            quantize_row_q4_K_ref(x, static_cast<block_q4_K *>(y), 256);
        return;
    case blockmath::kQ5_K:
        if (qw)
            quantize_row_q5_K_impl(x, static_cast<block_q5_K *>(y), 256, qw);
        else
            quantize_row_q5_K_ref(x, static_cast<block_q5_K *>(y), 256);
        return;
    case blockmath::kQ6_K:
        if (qw)
            quantize_row_q6_K_impl(x, static_cast<block_q6_K *>(y), 256, qw);
        else
            quantize_row_q6_K_ref(x, static_cast<block_q6_K *>(y), 256);
        return;
    default:
        blockmath::quantizeLegacy(t, x, static_cast<unsigned char *>(y));
        return;
    }
}

} // namespace

} // namespace quantscope::ggml::kquants
