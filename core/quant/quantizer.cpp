// SPDX-License-Identifier: MIT
#include "quant/quantizer.h"

#include "quant/constopt.h"
#include "quant/fp8.h"
#include "quant/hqq.h"
#include "quant/milo.h"
#include "quant/gguf_quant.h"
#include "quant/mxfp4.h"
#include "quant/nvfp4.h"
#include "quant/progressive.h"
#include "quant/quant_spec.h"
#include "quant/uniform.h"
#include "util/error.h"

namespace quantscope {

std::pair<std::int64_t, std::int64_t> matrixView(const Shape &shape)
{
    const Shape m = matrixShape(shape);
    return {m[0], m[1]};
}

void requireDecodable(const Tensor &w, const std::string &tensorName)
{
    if (!isDecodable(w.dtype()))
        throw UnsupportedError("cannot quantize " + std::string(nameOf(w.dtype())) + " data",
                               Location{{}, tensorName, {}});
}

QuantizedTensor startQuantized(const Tensor &w, std::string method, nlohmann::json spec, const std::string &tensorName)
{
    QuantizedTensor q;
    q.method = std::move(method);
    q.spec = std::move(spec);
    q.tensorName = tensorName;
    q.shape = w.shape();
    q.sourceDtype = w.dtype();
    return q;
}

Shape GroupLayout::scaleShape() const
{
    if (granularity == Granularity::Tensor)
        return {1};
    return {gridRows, gridCols};
}

GroupLayout makeLayout(const Shape &shape, Granularity g, std::int64_t group, std::int64_t block, int axis, bool strict,
                       const std::string &tensorName)
{
    GroupLayout L;
    L.granularity = g;
    std::tie(L.rows, L.cols) = matrixView(shape);
    switch (g) {
    case Granularity::Tensor:
        break;
    case Granularity::Channel:
        L.axis = axis;
        L.gridRows = axis == 0 ? L.rows : 1;
        L.gridCols = axis == 0 ? 1 : L.cols;
        break;
    case Granularity::Group:
        if (group < 1)
            throw UnsupportedError("group size must be ≥ 1", Location{{}, tensorName, {}});
        L.group = group;
        L.gridRows = L.rows;
        L.gridCols = std::max<std::int64_t>((L.cols + group - 1) / group, L.cols ? 1 : 0);
        L.ragged = L.cols % group != 0;
        if (L.ragged && strict)
            throw UnsupportedError("K = " + std::to_string(L.cols) + " is not divisible by the group size " +
                                       std::to_string(group) + " (strict: ragged groups refused)",
                                   Location{{}, tensorName, {}});
        break;
    case Granularity::Block:
        if (block < 1)
            throw UnsupportedError("block size must be ≥ 1", Location{{}, tensorName, {}});
        L.block = block;
        L.gridRows = (L.rows + block - 1) / block;
        L.gridCols = (L.cols + block - 1) / block;
        L.ragged = L.rows % block != 0 || L.cols % block != 0;
        if (L.ragged && strict)
            throw UnsupportedError("shape " + std::to_string(L.rows) + "x" + std::to_string(L.cols) +
                                       " is not divisible by the block size " + std::to_string(block) +
                                       " (strict: ragged blocks refused)",
                                   Location{{}, tensorName, {}});
        break;
    }
    return L;
}

double CompensatorFactor::storedBits() const
{
    return static_cast<double>(rows * cols) * codeBits + static_cast<double>(scales.size()) * bitsOf(scaleDtype);
}

namespace {

/// Bits of the float zero points and compensator factors (HQQ, MiLo) and of the outer level of
/// two-level results (ProgressiveSpec's s1 and z1, NVFP4's global scale); 0 otherwise.
double extraBits(const QuantizedTensor &q)
{
    double bits = static_cast<double>(q.zeroPoints.size()) * bitsOf(q.zeroPointDtype);
    bits += static_cast<double>(q.outerScales.size()) * bitsOf(q.outerScaleDtype);
    bits += static_cast<double>(q.outerZeros.size()) * 8.0;
    if (q.compU)
        bits += q.compU->storedBits();
    if (q.compV)
        bits += q.compV->storedBits();
    return bits;
}

} // namespace

std::uint64_t QuantizedTensor::storedBytes() const
{
    if (blockBytes > 0)
        return blockBytes;
    const std::uint64_t codeBitsTotal = static_cast<std::uint64_t>(numel()) * static_cast<std::uint64_t>(codeBits);
    const std::uint64_t scaleBits = scales.size() * static_cast<std::uint64_t>(bitsOf(scaleDtype));
    const std::uint64_t zeroBits = zeros.size() * 8ull;
    const auto extra = static_cast<std::uint64_t>(extraBits(*this));
    return (codeBitsTotal + scaleBits + zeroBits + extra + 7) / 8;
}

double QuantizedTensor::bitsPerElement() const
{
    if (numel() == 0)
        return 0.0;
    if (blockBytes > 0)
        return 8.0 * static_cast<double>(blockBytes) / static_cast<double>(numel());
    const double codeBitsTotal = static_cast<double>(numel()) * codeBits;
    const double scaleBits = static_cast<double>(scales.size()) * bitsOf(scaleDtype);
    const double zeroBits = static_cast<double>(zeros.size()) * 8.0;
    return (codeBitsTotal + scaleBits + zeroBits + extraBits(*this)) / static_cast<double>(numel());
}

std::vector<MethodInfo> quantizerMethods()
{
    return {
        {"int", "uniform integer INT2–8, per tensor / channel / group / block", IntSpec::fields(), IntSpec{}.toJson()},
        {"fp8", "FP8 E4M3 / E5M2, per tensor / channel / 128×128 block", Fp8Spec::fields(), Fp8Spec{}.toJson()},
        {"hqq", "HQQ half-quadratic INT2–8 (presets hqq-lib, milo-code), iterative zero-point fit", HqqSpec::fields(),
         HqqSpec{}.toJson()},
        {"milo", "MiLo: HQQ + low-rank compensator U·V fit by alternating passes", MiloSpec::fields(),
         MiloSpec{}.toJson()},
        {"mxfp4", "MXFP4: FP4 E2M1, E8M0 scale per 32 (even / floor / ceil)", MxFp4Spec::fields(),
         MxFp4Spec{}.toJson()},
        {"nvfp4", "NVFP4: FP4 E2M1, E4M3 scale per 16, FP32 global", NvFp4Spec::fields(), NvFp4Spec{}.toJson()},
        {"progressive", "two stages (Quark ProgressiveSpec): FP8 per tensor → INT4 per channel",
         ProgressiveSpec::fields(), ProgressiveSpec{}.toJson()},
        {"constopt", "FP4 constOpt: s = c·max per group, optional Hadamard rotation", ConstOptSpec::fields(),
         ConstOptSpec{}.toJson()},
        {"gptq", "GPTQ (llm-compressor): INT codes chosen against the captured inputs' Hessian; needs a capture",
         GptqSpec::fields(), GptqSpec{}.toJson()},
        {"awq",
         "AWQ (llm-compressor): per-input-channel scales searched on the captured sample, then INT; needs a "
         "capture",
         AwqSpec::fields(), AwqSpec{}.toJson()},
        {"gguf",
         "llama.cpp's block types Q4_0…Q8_0, the K-quants Q2_K…Q6_K and the i-quants IQ1_S…IQ4_XS (ggml's quantizers)",
         GgufQuantSpec::fields(), GgufQuantSpec{}.toJson()},
    };
}

std::unique_ptr<Quantizer> makeQuantizer(const nlohmann::json &spec)
{
    return makeQuantizer(parseQuantSpec(spec));
}

} // namespace quantscope
