// SPDX-License-Identifier: MIT
#include "results/config_label.h"

#include <cstdio>

#include "quant/quant_spec.h"

namespace quantscope {

namespace {

std::string num(double v)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", v);
    return buf;
}

std::string granularityText(Granularity g, std::int64_t group, std::int64_t block, int axis)
{
    switch (g) {
    case Granularity::Tensor:
        return "per tensor";
    case Granularity::Channel:
        return axis == 0 ? "per channel" : "per column";
    case Granularity::Group:
        return "g" + std::to_string(group);
    case Granularity::Block:
        return "block " + std::to_string(block);
    }
    return {};
}

std::string intText(const IntSpec &s)
{
    std::string t = "INT" + std::to_string(s.bits) + " " + granularityText(s.granularity, s.group, s.block, s.axis) +
                    (s.symmetric ? " sym" : " asym");
    if (s.scaleApply == ScaleApply::Reciprocal)
        t += " (Quark)";
    return t;
}

std::string fp8Text(const Fp8Spec &s)
{
    return std::string(s.format == Fp8Format::E4M3 ? "FP8 E4M3 " : "FP8 E5M2 ") +
           granularityText(s.granularity, 0, s.block, 0);
}

std::string stageText(const ProgressiveStage &stage)
{
    if (const auto *i = std::get_if<IntSpec>(&stage))
        return intText(*i);
    return fp8Text(std::get<Fp8Spec>(stage));
}

struct Describe {
    std::string operator()(const IntSpec &s) const { return intText(s); }
    std::string operator()(const GptqSpec &s) const { return "GPTQ " + intText(s.quant); }
    std::string operator()(const AwqSpec &s) const { return "AWQ " + intText(s.quant); }
    std::string operator()(const Fp8Spec &s) const { return fp8Text(s); }
    std::string operator()(const HqqSpec &s) const
    {
        return "HQQ " + std::to_string(s.bits) + "-bit g" + std::to_string(s.group);
    }
    std::string operator()(const MiloSpec &s) const
    {
        return "MiLo r" + std::to_string(s.rank) + " " + std::to_string(s.hqq.bits) + "-bit g" +
               std::to_string(s.hqq.group);
    }
    std::string operator()(const MxFp4Spec &) const { return "MXFP4"; }
    std::string operator()(const NvFp4Spec &) const { return "NVFP4"; }
    std::string operator()(const ProgressiveSpec &s) const { return stageText(s.stage1) + " → " + stageText(s.stage2); }
    std::string operator()(const ConstOptSpec &s) const
    {
        std::string t = "constOpt c " + num(s.c) + " g" + std::to_string(s.group);
        if (s.rotate > 0)
            t += " H" + std::to_string(s.rotate);
        return t;
    }
    std::string operator()(const GgufQuantSpec &s) const { return "GGUF " + std::string(ggml::typeName(s.type)); }
};

} // namespace

std::string describeSpec(const nlohmann::json &spec)
{
    try {
        return std::visit(Describe{}, parseQuantSpec(spec));
    } catch (const std::exception &) {
        return spec.is_object() && spec.contains("method") && spec["method"].is_string()
                   ? spec["method"].get<std::string>()
                   : std::string("?");
    }
}

std::string configLabel(const std::string &name, const nlohmann::json &spec)
{
    return name + " · " + describeSpec(spec);
}

std::string specFieldSwitch(const std::string &key)
{
    if (key == "group" || key == "block" || key == "axis" || key == "strict")
        return "granularity";
    if (key == "e8m0_mode")
        return "scale_dtype";
    return {};
}

bool specFieldApplies(const nlohmann::json &spec, const std::string &key)
{
    const auto on = specFieldSwitch(key);
    if (on.empty() || !spec.is_object() || !spec.contains(on) || !spec[on].is_string())
        return true;
    const auto value = spec[on].get<std::string>();
    if (key == "group" || key == "strict")
        return value == "group";
    if (key == "block")
        return value == "block";
    if (key == "axis")
        return value == "channel";
    return value == "e8m0"; // e8m0_mode
}

} // namespace quantscope
