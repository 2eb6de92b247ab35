// SPDX-License-Identifier: MIT
#include "quant/spec.h"

#include <cfloat>
#include <iterator>
#include <vector>

#include "quant/spec_json.h"
#include "util/error.h"

namespace quantscope {

namespace {

template <typename E> struct EnumNames;
template <> struct EnumNames<Granularity> {
    static constexpr const char *names[] = {"tensor", "channel", "group", "block"};
};
template <> struct EnumNames<Rounding> {
    static constexpr const char *names[] = {"half_even", "half_away"};
};
template <> struct EnumNames<ScaleApply> {
    static constexpr const char *names[] = {"divide", "reciprocal"};
};
template <> struct EnumNames<ScaleRule> {
    static constexpr const char *names[] = {"toolkit", "max"};
};
template <> struct EnumNames<ScaleDType> {
    static constexpr const char *names[] = {"fp32", "bf16", "fp16", "e8m0"};
};
template <> struct EnumNames<E8m0Mode> {
    static constexpr const char *names[] = {"ceil", "round"};
};
template <> struct EnumNames<Arith> {
    static constexpr const char *names[] = {"fp32", "source"};
};
template <> struct EnumNames<EpsPreset> {
    static constexpr const char *names[] = {"toolkit", "plain"};
};
template <> struct EnumNames<Fp8Format> {
    static constexpr const char *names[] = {"e4m3", "e5m2"};
};

template <typename E> std::vector<std::string> choices()
{
    std::vector<std::string> v;
    for (const char *n : EnumNames<E>::names)
        v.emplace_back(n);
    return v;
}

template <typename E> std::string enumName(E v)
{
    return EnumNames<E>::names[static_cast<int>(v)];
}

template <typename E> E parseEnum(const nlohmann::json &j, const std::string &key)
{
    static const std::vector<std::string> choices(std::begin(EnumNames<E>::names), std::end(EnumNames<E>::names));
    return static_cast<E>(specjson::parseChoice(j, key, choices));
}

using specjson::parseBool;
using specjson::parseInt;
using specjson::parseInt32;
using specjson::refuseUnknownKeys;

} // namespace

std::string toString(Granularity v)
{
    return enumName(v);
}
std::string toString(Rounding v)
{
    return enumName(v);
}
std::string toString(ScaleRule v)
{
    return enumName(v);
}
std::string toString(ScaleApply v)
{
    return enumName(v);
}
std::string toString(ScaleDType v)
{
    return enumName(v);
}
std::string toString(E8m0Mode v)
{
    return enumName(v);
}
std::string toString(Arith v)
{
    return enumName(v);
}
std::string toString(EpsPreset v)
{
    return enumName(v);
}
std::string toString(Fp8Format v)
{
    return enumName(v);
}

DType storedDType(ScaleDType v)
{
    switch (v) {
    case ScaleDType::F32:
        return DType::F32;
    case ScaleDType::BF16:
        return DType::BF16;
    case ScaleDType::F16:
        return DType::F16;
    case ScaleDType::E8M0:
        return DType::F8_E8M0;
    }
    return DType::F32;
}

float epsilonFor(EpsPreset preset, ScaleDType dtype)
{
    if (preset == EpsPreset::Plain)
        return FLT_MIN;
    switch (dtype) {
    case ScaleDType::F32:
        return FLT_EPSILON; // 2^-23
    case ScaleDType::BF16:
        return 0.0078125f; // 2^-7
    case ScaleDType::F16:
        return 0.0009765625f; // 2^-10
    case ScaleDType::E8M0:
        return 1.0f; // torch.finfo(float8_e8m0fnu).eps = 2^0
    }
    return FLT_EPSILON;
}

// ---- IntSpec -----------------------------------------------------------------------------------

std::vector<SpecField> IntSpec::fields()
{
    std::vector<SpecField> f{
        {"bits", "int", {}, 2, 8, "code width in bits (2..8)"},
        {"granularity", "enum", choices<Granularity>(), 0, 0,
         "one scale per tensor, channel (row), group of K elements or b×b block"},
        {"group", "int", {}, 1, 1 << 20, "group size along K (input dimension)"},
        {"block", "int", {}, 1, 1 << 20, "block (tile) size for block granularity"},
        {"axis", "int", {}, 0, 1, "channel axis: 0 = output rows, 1 = input columns"},
        {"symmetric", "bool", {}, 0, 0, "symmetric (zero point 0) or asymmetric (signed zero point)"},
        {"scale_rule", "enum", choices<ScaleRule>(), 0, 0,
         "toolkit: amax/((qmax−qmin)/2) (INT4 /7.5); max: amax/qmax (INT4 /7)"},
        {"rounding", "enum", choices<Rounding>(), 0, 0, "round half to even (torch) or half away from zero"},
        {"scale_apply", "enum", choices<ScaleApply>(), 0, 0,
         "divide: round(x/s) + z (compressed-tensors); reciprocal: round(x·(1/s) + z) (AMD Quark)"},
        {"scale_dtype", "enum", choices<ScaleDType>(), 0, 0, "dtype the scale is rounded to and stored in"},
        {"e8m0_mode", "enum", choices<E8m0Mode>(), 0, 0, "E8M0 scales: ceil keeps |x|/s within range; round may clip"},
        {"arith", "enum", choices<Arith>(), 0, 0,
         "fp32: compute in FP32; source: in the tensor's own dtype (toolkit parity on BF16)"},
        {"strict", "bool", {}, 0, 0, "refuse K not divisible by the group size instead of a ragged last group"},
        {"eps", "enum", choices<EpsPreset>(), 0, 0,
         "scale of a zero group: toolkit = finfo(scale dtype).eps, plain = FLT_MIN"},
    };
    specjson::fieldNamed(f, "group").impliesKey = "granularity"; // --group G alone: group granularity
    specjson::fieldNamed(f, "group").impliesValue = "group";
    specjson::fieldNamed(f, "symmetric").negFlag = "--asymmetric";
    return f;
}

void IntSpec::validate() const
{
    if (bits < 2 || bits > 8)
        throw UnsupportedError("bits must be 2..8, got " + std::to_string(bits));
    if (granularity == Granularity::Group && group < 1)
        throw UnsupportedError("group size must be ≥ 1, got " + std::to_string(group));
    if (granularity == Granularity::Block && block < 1)
        throw UnsupportedError("block size must be ≥ 1, got " + std::to_string(block));
    if (axis != 0 && axis != 1)
        throw UnsupportedError("channel axis must be 0 or 1, got " + std::to_string(axis));
    if (scaleRule == ScaleRule::Max && !symmetric)
        throw UnsupportedError("scale_rule 'max' applies to symmetric quantization only");
}

nlohmann::json IntSpec::toJson() const
{
    return {{"method", "int"},
            {"bits", bits},
            {"granularity", enumName(granularity)},
            {"group", group},
            {"block", block},
            {"axis", axis},
            {"symmetric", symmetric},
            {"scale_rule", enumName(scaleRule)},
            {"rounding", enumName(rounding)},
            {"scale_apply", enumName(scaleApply)},
            {"scale_dtype", enumName(scaleDtype)},
            {"e8m0_mode", enumName(e8m0Mode)},
            {"arith", enumName(arith)},
            {"strict", strict},
            {"eps", enumName(eps)}};
}

IntSpec IntSpec::fromJson(const nlohmann::json &j)
{
    refuseUnknownKeys(j, fields(), "int");
    IntSpec s;
    if (j.contains("bits"))
        s.bits = parseInt32(j["bits"], "bits");
    if (j.contains("granularity"))
        s.granularity = parseEnum<Granularity>(j["granularity"], "granularity");
    if (j.contains("group"))
        s.group = parseInt(j["group"], "group");
    if (j.contains("block"))
        s.block = parseInt(j["block"], "block");
    if (j.contains("axis"))
        s.axis = parseInt32(j["axis"], "axis");
    if (j.contains("symmetric"))
        s.symmetric = parseBool(j["symmetric"], "symmetric");
    if (j.contains("scale_rule"))
        s.scaleRule = parseEnum<ScaleRule>(j["scale_rule"], "scale_rule");
    if (j.contains("rounding"))
        s.rounding = parseEnum<Rounding>(j["rounding"], "rounding");
    if (j.contains("scale_apply"))
        s.scaleApply = parseEnum<ScaleApply>(j["scale_apply"], "scale_apply");
    if (j.contains("scale_dtype"))
        s.scaleDtype = parseEnum<ScaleDType>(j["scale_dtype"], "scale_dtype");
    if (j.contains("e8m0_mode"))
        s.e8m0Mode = parseEnum<E8m0Mode>(j["e8m0_mode"], "e8m0_mode");
    if (j.contains("arith"))
        s.arith = parseEnum<Arith>(j["arith"], "arith");
    if (j.contains("strict"))
        s.strict = parseBool(j["strict"], "strict");
    if (j.contains("eps"))
        s.eps = parseEnum<EpsPreset>(j["eps"], "eps");
    s.validate();
    return s;
}

// ---- Fp8Spec -----------------------------------------------------------------------------------

std::vector<SpecField> Fp8Spec::fields()
{
    std::vector<SpecField> f{
        {"format", "enum", choices<Fp8Format>(), 0, 0, "E4M3 (e4m3fn, max 448) or E5M2 (max 57344)"},
        {"granularity",
         "enum",
         {"tensor", "channel", "block"},
         0,
         0,
         "one scale per tensor, per output row, or per b×b block (DeepSeek weight_scale_inv)"},
        {"block", "int", {}, 1, 1 << 20, "block (tile) size for block granularity"},
        {"arith", "enum", choices<Arith>(), 0, 0, "fp32: compute in FP32; source: in the tensor's own dtype"},
        {"eps", "enum", choices<EpsPreset>(), 0, 0,
         "scale of a zero tensor/row/block: toolkit = FP32 eps, plain = FLT_MIN"},
    };
    specjson::fieldNamed(f, "format").flag = "--fp8";
    return f;
}

void Fp8Spec::validate() const
{
    if (granularity == Granularity::Group)
        throw UnsupportedError("FP8 granularity must be tensor, channel or block");
    if (granularity == Granularity::Block && block < 1)
        throw UnsupportedError("block size must be ≥ 1, got " + std::to_string(block));
}

nlohmann::json Fp8Spec::toJson() const
{
    return {{"method", "fp8"}, {"format", enumName(format)}, {"granularity", enumName(granularity)},
            {"block", block},  {"arith", enumName(arith)},   {"eps", enumName(eps)}};
}

Fp8Spec Fp8Spec::fromJson(const nlohmann::json &j)
{
    refuseUnknownKeys(j, fields(), "fp8");
    Fp8Spec s;
    if (j.contains("format"))
        s.format = parseEnum<Fp8Format>(j["format"], "format");
    if (j.contains("granularity"))
        s.granularity = parseEnum<Granularity>(j["granularity"], "granularity");
    if (j.contains("block"))
        s.block = parseInt(j["block"], "block");
    if (j.contains("arith"))
        s.arith = parseEnum<Arith>(j["arith"], "arith");
    if (j.contains("eps"))
        s.eps = parseEnum<EpsPreset>(j["eps"], "eps");
    s.validate();
    return s;
}

} // namespace quantscope
