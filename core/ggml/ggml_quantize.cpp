// SPDX-License-Identifier: MIT
// ggml's reference quantizers of the legacy block types, as gguf-py's numpy code writes them
// (gguf/quants.py Q4_0 … Q8_0 quantize_blocks): FP32 arithmetic in the same order, F16 scales by
// round-to-nearest-even (ggml_block_math.h quantizeLegacy, which the GPU kernels compile too).
// The K-quants and i-quants dispatch to ggml_kquants.cpp.
#include "ggml/ggml_quantize.h"

#include "ggml/ggml_block_math.h"
#include "util/error.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>

namespace quantscope::ggml {

namespace {

/// One block (the arithmetic: ggml_block_math.h, shared with the GPU kernels).
void quantizeBlock(Type t, const float *x, unsigned char *y)
{
    if (!blockmath::isLegacy(static_cast<int>(t)))
        throw UnsupportedError("quantizing to the ggml type " + std::string(typeName(t)) + " is not implemented");
    blockmath::quantizeLegacy(static_cast<int>(t), x, y);
}

} // namespace

bool isKQuant(Type t) noexcept
{
    return t == Type::Q2_K || t == Type::Q3_K || t == Type::Q4_K || t == Type::Q5_K || t == Type::Q6_K;
}

bool isIQuant(Type t) noexcept
{
    switch (t) {
    case Type::IQ1_S:
    case Type::IQ1_M:
    case Type::IQ2_XXS:
    case Type::IQ2_XS:
    case Type::IQ2_S:
    case Type::IQ3_XXS:
    case Type::IQ3_S:
    case Type::IQ4_NL:
    case Type::IQ4_XS:
        return true;
    default:
        return false;
    }
}

bool takesImportance(Type t) noexcept
{
    return isKQuant(t) || isIQuant(t);
}

bool requiresImportance(Type t) noexcept
{
    return t == Type::IQ1_S || t == Type::IQ1_M || t == Type::IQ2_XXS || t == Type::IQ2_XS || t == Type::IQ2_S ||
           t == Type::IQ3_XXS;
}

bool quantizes(Type t) noexcept
{
    return t == Type::Q4_0 || t == Type::Q4_1 || t == Type::Q5_0 || t == Type::Q5_1 || t == Type::Q8_0 || isKQuant(t) ||
           isIQuant(t) || smallquants::quantizes(t);
}

std::vector<std::byte> quantizeRows(Type t, const float *x, std::int64_t rows, std::int64_t cols,
                                    const float *importance)
{
    if (!quantizes(t))
        throw UnsupportedError("quantizing to the ggml type " + std::string(typeName(t)) +
                               " is not implemented (q4_0, q4_1, q5_0, q5_1, q8_0, q2_k … q6_k, iq1_s, iq1_m, "
                               "iq2_xxs, iq2_xs, iq2_s, iq3_xxs, iq3_s, iq4_nl, iq4_xs, tq1_0, tq2_0, mxfp4 are)");
    const TypeInfo *info = typeInfo(static_cast<std::uint32_t>(t));
    const std::int64_t bs = info->blockSize, ts = info->typeSize;
    if (cols % bs != 0)
        throw UnsupportedError("rows of " + std::to_string(cols) + " values are not a whole number of " +
                               std::string(info->name) + " blocks of " + std::to_string(bs) +
                               " (ggml quantizes along rows; pick a type with smaller blocks)");
    if (importance && !takesImportance(t))
        throw UnsupportedError("importance weights are used by the K-quants (q2_k … q6_k) and i-quants only, not by " +
                               std::string(info->name));
    if (!importance && requiresImportance(t))
        throw UnsupportedError(std::string(info->name) +
                               " needs an importance matrix: llama.cpp's llama-quantize refuses it without one "
                               "(\"this quantization requires an imatrix\"); give importance weights (an imatrix)");
    std::vector<std::byte> out(static_cast<std::size_t>(rows * (cols / bs) * ts));
    if (isKQuant(t)) {
        kquants::quantize(t, x, out.data(), rows, cols, importance);
        return out;
    }
    if (isIQuant(t)) {
        iquants::quantize(t, x, out.data(), rows, cols, importance);
        return out;
    }
    const std::int64_t nblocks = rows * (cols / bs);
    if (smallquants::quantizes(t)) {
        smallquants::quantize(t, x, out.data(), nblocks);
        return out;
    }
    for (std::int64_t b = 0; b < nblocks; ++b)
        quantizeBlock(t, x + b * bs, reinterpret_cast<unsigned char *>(out.data()) + b * ts);
    return out;
}

} // namespace quantscope::ggml
