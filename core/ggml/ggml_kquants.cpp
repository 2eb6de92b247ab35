// SPDX-License-Identifier: MIT
// llama.cpp's K-quant quantizers (Q2_K … Q6_K) and i-quant quantizers (IQ1_S … IQ4_XS), with and
// without an importance matrix: ggml's own C code (ggml_kquants.inc by scripts/gguf/port-kquants.py,
// compiled with the block layouts and helpers of ggml_kquant_blocks.h, which the GPU kernels compile
// too; ggml_iquants.inc by scripts/gguf/port-iquants.py, in this translation unit because the
// i-quants call the K-quant helpers nearest_int and make_qp_quants) and their row drivers.
// Op sequences: docs/numerics.md "GGUF block types".
#include "ggml/ggml_quantize.h"

#include <algorithm>
#include <cfloat>
#include <mutex>
#include <stdexcept>
#include <stdlib.h> // qsort, malloc: ggml's C calls, unqualified

#include "ggml/ggml_kquant_blocks.h"
#include "ggml/ggml_types.h"

namespace quantscope::ggml::kquants {

namespace {

#include "ggml/ggml_port_macros.inc"
#define GROUP_MAX_EPS_IQ3_XXS 1e-8f
#define GROUP_MAX_EPS_IQ2_S 1e-8f
#define GROUP_MAX_EPS_IQ1_M 1e-7f
#define GROUP_MAX_EPS_IQ1_S 1e-12f
#define QK4_NL 32
#define NGRID_IQ1S 2048
#define IQ1S_DELTA 0.125f
#define IQ1M_DELTA 0.125f
#define IQ3S_N_SCALE QK_K / 64
// ggml aborts; here an assertion that fails in the i-quants (a lattice point without neighbours,
// weights missing where ggml requires them) is a logic_error, whatever NDEBUG says.
#define GGML_ASSERT(x)                                                                                                 \
    do {                                                                                                               \
        if (!(x))                                                                                                      \
            throw std::logic_error("ggml quantizer: assertion failed: " #x);                                           \
    } while (0)
#define GGML_ABORT(msg) throw std::logic_error("ggml quantizer: " msg)

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

#include "ggml/ggml_iquants.inc"

#include "ggml/ggml_port_undef.inc"
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
