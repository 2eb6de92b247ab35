// SPDX-License-Identifier: MIT
#include "quant/quant_spec.h"

#include "quant/fp8.h"
#include "quant/quantizer.h"
#include "quant/uniform.h"
#include "util/error.h"

namespace quantscope {

namespace {

constexpr const char *kKnown = "int, fp8, hqq, milo, mxfp4, nvfp4, progressive, constopt, gptq, awq, gguf";

template <typename S> QuantSpec parsed(const nlohmann::json &j)
{
    S s = S::fromJson(j);
    s.validate();
    return s;
}

/// The method name of each alternative and its quantizer class.
struct MethodOf {
    std::string operator()(const IntSpec &) const { return "int"; }
    std::string operator()(const Fp8Spec &) const { return "fp8"; }
    std::string operator()(const HqqSpec &) const { return "hqq"; }
    std::string operator()(const MiloSpec &) const { return "milo"; }
    std::string operator()(const MxFp4Spec &) const { return "mxfp4"; }
    std::string operator()(const NvFp4Spec &) const { return "nvfp4"; }
    std::string operator()(const ProgressiveSpec &) const { return "progressive"; }
    std::string operator()(const ConstOptSpec &) const { return "constopt"; }
    std::string operator()(const GptqSpec &) const { return "gptq"; }
    std::string operator()(const AwqSpec &) const { return "awq"; }
    std::string operator()(const GgufQuantSpec &) const { return "gguf"; }
};

struct MakeQuantizer {
    std::unique_ptr<Quantizer> operator()(const IntSpec &s) const { return std::make_unique<IntQuantizer>(s); }
    std::unique_ptr<Quantizer> operator()(const Fp8Spec &s) const { return std::make_unique<Fp8Quantizer>(s); }
    std::unique_ptr<Quantizer> operator()(const HqqSpec &s) const { return std::make_unique<HqqQuantizer>(s); }
    std::unique_ptr<Quantizer> operator()(const MiloSpec &s) const { return std::make_unique<MiloQuantizer>(s); }
    std::unique_ptr<Quantizer> operator()(const MxFp4Spec &s) const { return std::make_unique<MxFp4Quantizer>(s); }
    std::unique_ptr<Quantizer> operator()(const NvFp4Spec &s) const { return std::make_unique<NvFp4Quantizer>(s); }
    std::unique_ptr<Quantizer> operator()(const ProgressiveSpec &s) const
    {
        return std::make_unique<ProgressiveQuantizer>(s);
    }
    std::unique_ptr<Quantizer> operator()(const ConstOptSpec &s) const
    {
        return std::make_unique<ConstOptQuantizer>(s);
    }
    std::unique_ptr<Quantizer> operator()(const GptqSpec &s) const { return std::make_unique<GptqQuantizer>(s); }
    std::unique_ptr<Quantizer> operator()(const AwqSpec &s) const { return std::make_unique<AwqQuantizer>(s); }
    std::unique_ptr<Quantizer> operator()(const GgufQuantSpec &s) const { return std::make_unique<GgufQuantizer>(s); }
};

} // namespace

QuantSpec parseQuantSpec(const nlohmann::json &j)
{
    if (!j.is_object() || !j.contains("method") || !j["method"].is_string())
        throw UnsupportedError(std::string("a spec needs a \"method\" string (") + kKnown + ")");
    const std::string m = j["method"];
    if (m == "int")
        return parsed<IntSpec>(j);
    if (m == "fp8")
        return parsed<Fp8Spec>(j);
    if (m == "hqq")
        return parsed<HqqSpec>(j);
    if (m == "milo")
        return parsed<MiloSpec>(j);
    if (m == "mxfp4")
        return parsed<MxFp4Spec>(j);
    if (m == "nvfp4")
        return parsed<NvFp4Spec>(j);
    if (m == "progressive")
        return parsed<ProgressiveSpec>(j);
    if (m == "constopt")
        return parsed<ConstOptSpec>(j);
    if (m == "gptq")
        return parsed<GptqSpec>(j);
    if (m == "awq")
        return parsed<AwqSpec>(j);
    if (m == "gguf")
        return parsed<GgufQuantSpec>(j);
    throw UnsupportedError("unknown quantization method '" + m + "' (known: " + kKnown + ")");
}

nlohmann::json toJson(const QuantSpec &spec)
{
    return std::visit([](const auto &s) { return s.toJson(); }, spec);
}

std::string methodOf(const QuantSpec &spec)
{
    return std::visit(MethodOf{}, spec);
}

std::unique_ptr<Quantizer> makeQuantizer(const QuantSpec &spec)
{
    return std::visit(MakeQuantizer{}, spec);
}

QuantSpec stageSpec(const ProgressiveStage &stage)
{
    return std::visit([](const auto &s) { return QuantSpec{s}; }, stage);
}

QuantSpec gptqTargetSpec(const GptqSpec &spec)
{
    switch (spec.target) {
    case GptqTarget::Fp8: {
        Fp8Spec f; // E4M3, FP32, the toolkit eps: compressed-tensors' FP8 observer and cast
        f.granularity = spec.quant.granularity;
        return f;
    }
    case GptqTarget::NvFp4: {
        NvFp4Spec f;
        f.group = spec.quant.group;
        f.strict = spec.quant.strict;
        return f;
    }
    case GptqTarget::MxFp4: {
        MxFp4Spec f; // mode even: compressed-tensors' round_to_power_2
        f.group = spec.quant.group;
        f.strict = spec.quant.strict;
        return f;
    }
    default:
        return spec.quant;
    }
}

} // namespace quantscope
