// SPDX-License-Identifier: MIT
#pragma once
/// \file spec.h
/// Quantizer specs: plain structs with a JSON round trip (the same JSON the CLI's --spec, the
/// recipe and the session file use) and a field schema from which the CLI options and the GUI
/// forms are generated. Semantics: docs/numerics.md.
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tensor/dtype.h"

namespace quantscope {

enum class Granularity : std::uint8_t { Tensor, Channel, Group, Block };
enum class Rounding : std::uint8_t { HalfEven, HalfAway };
/// How a value meets its scale: x / s (compressed-tensors, llm-compressor) or x · (1/s) with the
/// zero point added before rounding (AMD Quark's real quantization, docs/toolkits.md §3.4).
enum class ScaleApply : std::uint8_t { Divide, Reciprocal };
enum class ScaleRule : std::uint8_t { Toolkit, Max };
enum class ScaleDType : std::uint8_t { F32, BF16, F16, E8M0 };
enum class E8m0Mode : std::uint8_t { Ceil, Round };
enum class Arith : std::uint8_t { Fp32, Source };
enum class EpsPreset : std::uint8_t { Toolkit, Plain };
enum class Fp8Format : std::uint8_t { E4M3, E5M2 };

/// One editable field of a spec, for generated forms and CLI options.
struct SpecField {
    std::string key;                  ///< JSON key ("bits", "granularity", …)
    std::string kind;                 ///< "int", "enum", "bool", "number" (real) or "spec" (a nested spec object)
    std::vector<std::string> choices; ///< for "enum"; for "spec": the methods a nested spec may name
    int minValue = 0, maxValue = 0;   ///< for "int"
    std::string help;                 ///< one line for tooltips and --help
    double minReal = 0, maxReal = 0;  ///< for "number"
    // How the field is spelled on the command line (core/quant/spec_flags.h generates the CLI's
    // options, their help lines and bash completion from these; the defaults need no edit).
    std::string flag{};                       ///< the option; empty: "--" + key with '_' → '-'
    std::vector<std::string> aliases{};       ///< further spellings of the option
    std::string negFlag{};                    ///< "bool": the option that sets false; empty: "--no-" + key
    std::string impliesKey{}, impliesValue{}; ///< giving this option also sets impliesKey when absent
    std::string flattenMethod{};              ///< "spec": the nested method whose options apply to this field
    /// "enum": a value KEY=V sets the spec's field KEY to V and this field to presetForKeyValue
    std::string presetForKeyValue{}; // (NSDMIs: the schemas' aggregate initialisers may stop early)
};

/// Uniform integer quantizer (docs/numerics.md "Uniform integer").
struct IntSpec {
    int bits = 4; ///< 2..8
    Granularity granularity = Granularity::Group;
    std::int64_t group = 128; ///< group size along K (group granularity)
    std::int64_t block = 128; ///< tile size (block granularity)
    int axis = 0;             ///< channel axis: 0 rows (outputs), 1 columns
    bool symmetric = true;
    ScaleRule scaleRule = ScaleRule::Toolkit;
    Rounding rounding = Rounding::HalfEven;
    ScaleApply scaleApply = ScaleApply::Divide;
    ScaleDType scaleDtype = ScaleDType::F32;
    E8m0Mode e8m0Mode = E8m0Mode::Ceil;
    Arith arith = Arith::Fp32;
    bool strict = false; ///< refuse ragged groups instead of allowing them
    EpsPreset eps = EpsPreset::Toolkit;

    int qmin() const { return -(1 << (bits - 1)); }
    int qmax() const { return (1 << (bits - 1)) - 1; }
    /// Throws UnsupportedError naming the field when a value is out of range.
    void validate() const;
    nlohmann::json toJson() const;
    /// Missing keys keep their defaults; unknown keys and bad values are refused by name.
    static IntSpec fromJson(const nlohmann::json &j);
    static std::vector<SpecField> fields();
};

/// FP8 quantizer (docs/numerics.md "FP8").
struct Fp8Spec {
    Fp8Format format = Fp8Format::E4M3;
    Granularity granularity = Granularity::Tensor; ///< Tensor, Channel or Block
    std::int64_t block = 128;
    Arith arith = Arith::Fp32;
    EpsPreset eps = EpsPreset::Toolkit;

    float maxValue() const { return format == Fp8Format::E4M3 ? 448.0f : 57344.0f; }
    void validate() const;
    nlohmann::json toJson() const;
    static Fp8Spec fromJson(const nlohmann::json &j);
    static std::vector<SpecField> fields();
};

// Enum <-> string (the JSON and CLI spellings).
std::string toString(Granularity v);
std::string toString(Rounding v);
std::string toString(ScaleApply v);
std::string toString(ScaleRule v);
std::string toString(ScaleDType v);
std::string toString(E8m0Mode v);
std::string toString(Arith v);
std::string toString(EpsPreset v);
std::string toString(Fp8Format v);

/// The stored dtype of a scale dtype.
DType storedDType(ScaleDType v);
/// The epsilon substituted for a zero/degenerate scale (docs/numerics.md "Zero or degenerate
/// groups"): toolkit → finfo(scale dtype).eps; plain → FLT_MIN.
float epsilonFor(EpsPreset preset, ScaleDType dtype);

} // namespace quantscope
