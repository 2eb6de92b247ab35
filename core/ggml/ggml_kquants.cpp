// SPDX-License-Identifier: MIT
// llama.cpp's K-quant quantizers (Q2_K … Q6_K) and i-quant quantizers (IQ1_S … IQ4_XS), with and
// without an importance matrix: ggml's own C code (ggml_kquants.inc by scripts/gguf/port-kquants.py,
// ggml_iquants.inc by scripts/gguf/port-iquants.py, one translation unit because the i-quants call
// the K-quant helpers nearest_int and make_qp_quants), compiled here as C++ with the block layouts
// and helpers it expects. Op sequences: docs/numerics.md "GGUF block types".
#include "ggml/ggml_quantize.h"

#include <algorithm>
#include <cassert>
#include <cfloat>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <stdexcept>
#include <stdlib.h> // qsort, malloc: ggml's C calls, unqualified

namespace quantscope::ggml::kquants {

namespace {

#define GGML_RESTRICT
#define QK_K 256
#define K_SCALE_SIZE 12
#define GROUP_MAX_EPS 1e-15f
#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))
#define GROUP_MAX_EPS_IQ3_XXS 1e-8f
#define GROUP_MAX_EPS_IQ2_S 1e-8f
#define GROUP_MAX_EPS_IQ1_M 1e-7f
#define GROUP_MAX_EPS_IQ1_S 1e-12f
#define QK4_NL 32
#define NGRID_IQ1S 2048
#define IQ1S_DELTA 0.125f
#define IQ1M_DELTA 0.125f
#define IQ3S_N_SCALE QK_K / 64
// ggml aborts; here an assertion that fails (a lattice point without neighbours, weights missing
// where ggml requires them) is a logic_error, whatever NDEBUG says.
#define GGML_ASSERT(x)                                                                                                 \
    do {                                                                                                               \
        if (!(x))                                                                                                      \
            throw std::logic_error("ggml quantizer: assertion failed: " #x);                                           \
    } while (0)
#define GGML_ABORT(msg) throw std::logic_error("ggml quantizer: " msg)
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
using ggml_fp16_t = ggml_half;
struct block_iq2_xxs {
    ggml_half d;
    std::uint16_t qs[QK_K / 8];
};
struct block_iq2_xs {
    ggml_half d;
    std::uint16_t qs[QK_K / 8];
    std::uint8_t scales[QK_K / 32];
};
struct block_iq2_s {
    ggml_half d;
    std::uint8_t qs[QK_K / 4];
    std::uint8_t qh[QK_K / 32];
    std::uint8_t scales[QK_K / 32];
};
struct block_iq3_xxs {
    ggml_half d;
    std::uint8_t qs[3 * QK_K / 8];
};
struct block_iq3_s {
    ggml_half d;
    std::uint8_t qs[QK_K / 4];
    std::uint8_t qh[QK_K / 32];
    std::uint8_t signs[QK_K / 8];
    std::uint8_t scales[IQ3S_N_SCALE];
};
struct block_iq1_s {
    ggml_half d;
    std::uint8_t qs[QK_K / 8];
    std::uint16_t qh[QK_K / 32];
};
struct block_iq1_m {
    std::uint8_t qs[QK_K / 8];
    std::uint8_t qh[QK_K / 16];
    std::uint8_t scales[QK_K / 32];
};
union iq1m_scale_t {
    ggml_half f16;
    std::uint16_t u16;
};
struct block_iq4_nl {
    ggml_half d;
    std::uint8_t qs[QK4_NL / 2];
};
struct block_iq4_xs {
    ggml_half d;
    std::uint16_t scales_h;
    std::uint8_t scales_l[QK_K / 64];
    std::uint8_t qs[QK_K / 2];
};
static_assert(sizeof(block_iq2_xxs) == 66 && sizeof(block_iq2_xs) == 74 && sizeof(block_iq2_s) == 82 &&
              sizeof(block_iq3_xxs) == 98 && sizeof(block_iq3_s) == 110 && sizeof(block_iq1_s) == 50 &&
              sizeof(block_iq1_m) == 56 && sizeof(block_iq4_nl) == 18 && sizeof(block_iq4_xs) == 136);

// ggml-common.h kvalues_iq4nl: the IQ4_NL / IQ4_XS code book (the decoder's is the same, ggml_types.cpp).
const std::int8_t kvalues_iq4nl[16] = {-127, -104, -83, -65, -49, -35, -22, -10, 1, 13, 25, 38, 53, 69, 89, 113};

enum ggml_type {
    GGML_TYPE_Q2_K = 10,
    GGML_TYPE_Q3_K,
    GGML_TYPE_Q4_K,
    GGML_TYPE_Q5_K,
    GGML_TYPE_Q6_K,
    GGML_TYPE_IQ2_XXS = 16,
    GGML_TYPE_IQ2_XS = 17,
    GGML_TYPE_IQ3_XXS = 18,
    GGML_TYPE_IQ1_S = 19,
    GGML_TYPE_IQ4_NL = 20,
    GGML_TYPE_IQ3_S = 21,
    GGML_TYPE_IQ2_S = 22,
    GGML_TYPE_IQ4_XS = 23,
    GGML_TYPE_IQ1_M = 29,
};

// The lattices ggml_iquants.inc's init functions read (ggml spells them out as tables; here they
// come from ggml_grids.inc, which scripts/gguf/port-iquants.py checks equal).
const std::uint16_t *ggml_kgrid_2bit_256()
{
    return latticeWords(Type::IQ2_XXS).data();
}
const std::uint16_t *ggml_kgrid_2bit_512()
{
    return latticeWords(Type::IQ2_XS).data();
}
const std::uint16_t *ggml_kgrid_1bit_2048()
{
    return latticeWords(Type::IQ1_S).data();
}
const std::uint16_t *ggml_kgrid_2bit_1024()
{
    return latticeWords(Type::IQ2_S).data();
}
const std::uint16_t *ggml_kgrid_256()
{
    return latticeWords(Type::IQ3_XXS).data();
}
const std::uint16_t *ggml_kgrid_512()
{
    return latticeWords(Type::IQ3_S).data();
}

std::size_t ggml_row_size(ggml_type t, std::int64_t n)
{
    return static_cast<std::size_t>(n / QK_K) *
           static_cast<std::size_t>(typeInfo(static_cast<std::uint32_t>(t))->typeSize);
}

#include "ggml/ggml_kquants.inc"
#include "ggml/ggml_iquants.inc"

#undef GGML_RESTRICT
#undef QK_K
#undef K_SCALE_SIZE
#undef GROUP_MAX_EPS
#undef MIN
#undef MAX
#undef GGML_ASSERT
#undef GGML_UNUSED
#undef UNUSED
#undef GGML_ABORT
#undef IQ3S_N_SCALE
#undef IQ1M_DELTA
#undef IQ1S_DELTA
#undef NGRID_IQ1S
#undef QK4_NL
#undef GROUP_MAX_EPS_IQ1_S
#undef GROUP_MAX_EPS_IQ1_M
#undef GROUP_MAX_EPS_IQ2_S
#undef GROUP_MAX_EPS_IQ3_XXS

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

namespace quantscope::ggml::iquants {

namespace {

/// ggml_quantize_init: the lattice, its map and the neighbour lists, built once per grid
/// (IQ1_S and IQ1_M share one), safe to call from many threads.
void initOnce(Type t)
{
    static std::once_flag iq2[4], iq3[2];
    switch (t) {
    case Type::IQ2_XXS:
    case Type::IQ2_XS:
    case Type::IQ2_S:
    case Type::IQ1_S:
    case Type::IQ1_M: {
        const auto gt = static_cast<kquants::ggml_type>(t);
        std::call_once(iq2[kquants::iq2_data_index(gt)], [gt] { kquants::iq2xs_init_impl(gt); });
        return;
    }
    case Type::IQ3_XXS:
    case Type::IQ3_S: {
        const int size = t == Type::IQ3_XXS ? 256 : 512;
        std::call_once(iq3[kquants::iq3_data_index(size)], [size] { kquants::iq3xs_init_impl(size); });
        return;
    }
    default:
        return;
    }
}

} // namespace

void quantize(Type t, const float *src, void *dst, std::int64_t nrow, std::int64_t n_per_row, const float *weights)
{
    using namespace kquants;
    initOnce(t);
    switch (t) {
    case Type::IQ2_XXS:
        quantize_iq2_xxs(src, dst, nrow, n_per_row, weights);
        return;
    case Type::IQ2_XS:
        quantize_iq2_xs(src, dst, nrow, n_per_row, weights);
        return;
    case Type::IQ2_S:
        quantize_iq2_s(src, dst, nrow, n_per_row, weights);
        return;
    case Type::IQ3_XXS:
        quantize_iq3_xxs(src, dst, nrow, n_per_row, weights);
        return;
    case Type::IQ3_S:
        quantize_iq3_s(src, dst, nrow, n_per_row, weights);
        return;
    case Type::IQ1_S:
        quantize_iq1_s(src, dst, nrow, n_per_row, weights);
        return;
    case Type::IQ1_M:
        quantize_iq1_m(src, dst, nrow, n_per_row, weights);
        return;
    case Type::IQ4_NL:
        quantize_iq4_nl(src, dst, nrow, n_per_row, weights);
        return;
    case Type::IQ4_XS:
        quantize_iq4_xs(src, dst, nrow, n_per_row, weights);
        return;
    default:
        break;
    }
}

} // namespace quantscope::ggml::iquants
