// SPDX-License-Identifier: MIT
#include "results/config_label.h"

#include <cstdio>
#include <mutex>

#include "quant/quant_spec.h"
#include "results/results.h"

namespace quantscope {

namespace {

std::mutex g_wordsMutex;
LabelWords g_words;

std::string num(double v)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", v);
    return buf;
}

std::string granularityText(const LabelWords &w, Granularity g, std::int64_t group, std::int64_t block, int axis)
{
    switch (g) {
    case Granularity::Tensor:
        return w.perTensor;
    case Granularity::Channel:
        return axis == 0 ? w.perChannel : w.perColumn;
    case Granularity::Group:
        return "g" + std::to_string(group);
    case Granularity::Block:
        return w.block + " " + std::to_string(block);
    }
    return {};
}

std::string intText(const LabelWords &w, const IntSpec &s)
{
    std::string t = "INT" + std::to_string(s.bits) + " " + granularityText(w, s.granularity, s.group, s.block, s.axis) +
                    " " + (s.symmetric ? w.sym : w.asym);
    if (s.scaleApply == ScaleApply::Reciprocal)
        t += " (Quark)";
    return t;
}

std::string fp8Text(const LabelWords &w, const Fp8Spec &s)
{
    return std::string(s.format == Fp8Format::E4M3 ? "FP8 E4M3 " : "FP8 E5M2 ") +
           granularityText(w, s.granularity, 0, s.block, 0);
}

std::string stageText(const LabelWords &w, const ProgressiveStage &stage)
{
    if (const auto *i = std::get_if<IntSpec>(&stage))
        return intText(w, *i);
    return fp8Text(w, std::get<Fp8Spec>(stage));
}

struct Describe {
    LabelWords w;
    std::string operator()(const IntSpec &s) const { return intText(w, s); }
    std::string operator()(const GptqSpec &s) const { return "GPTQ " + intText(w, s.quant); }
    std::string operator()(const AwqSpec &s) const { return "AWQ " + intText(w, s.quant); }
    std::string operator()(const Fp8Spec &s) const { return fp8Text(w, s); }
    std::string operator()(const HqqSpec &s) const
    {
        return "HQQ " + std::to_string(s.bits) + w.bit + " g" + std::to_string(s.group);
    }
    std::string operator()(const MiloSpec &s) const
    {
        return "MiLo r" + std::to_string(s.rank) + " " + std::to_string(s.hqq.bits) + w.bit + " g" +
               std::to_string(s.hqq.group);
    }
    std::string operator()(const MxFp4Spec &) const { return "MXFP4"; }
    std::string operator()(const NvFp4Spec &) const { return "NVFP4"; }
    std::string operator()(const ProgressiveSpec &s) const
    {
        return stageText(w, s.stage1) + " → " + stageText(w, s.stage2);
    }
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
        return std::visit(Describe{labelWords()}, parseQuantSpec(spec));
    } catch (const std::exception &) {
        return spec.is_object() && spec.contains("method") && spec["method"].is_string()
                   ? spec["method"].get<std::string>()
                   : std::string("?");
    }
}

void setLabelWords(const LabelWords &words)
{
    std::lock_guard lock(g_wordsMutex);
    g_words = words;
}

LabelWords labelWords()
{
    std::lock_guard lock(g_wordsMutex);
    return g_words;
}

std::string configLabel(const std::string &name, const nlohmann::json &spec)
{
    return name + " · " + describeSpec(spec);
}

namespace {
nlohmann::json filledIn(const nlohmann::json &spec)
{
    try {
        return toJson(parseQuantSpec(spec));
    } catch (const std::exception &) {
        return spec; // compared as entered
    }
}
} // namespace

std::set<std::string> staleConfigurations(const QuantizeJobResult &results, const std::vector<JobConfig> &current)
{
    std::set<std::string> stale;
    for (const auto &c : current) {
        const nlohmann::json now = filledIn(c.spec);
        for (const auto &o : results.outcomes)
            if (o.config == c.name && !stale.count(c.name) && filledIn(o.spec) != now)
                stale.insert(c.name);
    }
    return stale;
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
