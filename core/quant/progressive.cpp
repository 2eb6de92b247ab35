// SPDX-License-Identifier: MIT
#include "quant/progressive.h"

#include <cstring>
#include <type_traits>

#include "numeric/qmath.h"
#include "quant/fp8.h"
#include "quant/spec_json.h"
#include "quant/uniform.h"
#include "tensor/convert.h"
#include "util/error.h"

namespace quantscope {

namespace {

std::unique_ptr<Quantizer> makeStage(const ProgressiveStage &stage)
{
    return std::visit(
        [](const auto &s) -> std::unique_ptr<Quantizer> {
            using S = std::decay_t<decltype(s)>;
            if constexpr (std::is_same_v<S, IntSpec>)
                return std::make_unique<IntQuantizer>(s);
            else
                return std::make_unique<Fp8Quantizer>(s);
        },
        stage);
}

/// The one parse of a stage's JSON: its spec struct, validated as its quantizer validates it.
ProgressiveStage parseStage(const nlohmann::json &j)
{
    const std::string m = j.value("method", std::string());
    ProgressiveStage stage;
    if (m == "int")
        stage = IntSpec::fromJson(j);
    else if (m == "fp8")
        stage = Fp8Spec::fromJson(j);
    else
        throw UnsupportedError("a progressive stage must be an \"int\" or \"fp8\" spec, got \"" + m + "\"");
    makeStage(stage); // the quantizer's constructor validates
    return stage;
}

ProgressiveStage normaliseStage(const nlohmann::json &given, const ProgressiveStage &dflt, const std::string &key)
{
    if (!given.is_object())
        throw UnsupportedError("spec field '" + key + "' must be a spec object");
    const nlohmann::json dj = stageToJson(dflt);
    const std::string dm = dj["method"];
    const std::string m =
        given.contains("method") && given["method"].is_string() ? given["method"].get<std::string>() : dm;
    nlohmann::json base = m == dm ? dj : nlohmann::json{{"method", m}};
    for (const auto &[k, v] : given.items())
        base[k] = v;
    try {
        return parseStage(base);
    } catch (const UnsupportedError &e) {
        throw UnsupportedError(key + ": " + e.message());
    }
}

bool isFp8Stage(const ProgressiveStage &s)
{
    return std::holds_alternative<Fp8Spec>(s);
}

/// Stage 1's arithmetic precision as chosen in its spec.
Arith stageArith(const ProgressiveStage &s)
{
    return std::visit([](const auto &spec) { return spec.arith; }, s);
}

/// Domain value of a stage-1 code: the FP8 value, or the INT code.
float stageValue(std::uint8_t code, DType codeDtype)
{
    switch (codeDtype) {
    case DType::F8_E4M3:
        return e4m3ToFloat(code);
    case DType::F8_E5M2:
        return e5m2ToFloat(code);
    default:
        return static_cast<float>(static_cast<std::int8_t>(code));
    }
}

/// Ŵ from x̂1 and the outer level, in place.
void applyOuter(const QuantizedTensor &q, bool fp8Stage1, int arith1, std::span<float> v)
{
    const GroupLayout &L = q.outerLayout;
    for (std::int64_t r = 0; r < L.rows; ++r)
        for (std::int64_t c = 0; c < L.cols; ++c) {
            const std::int64_t i = r * L.cols + c;
            const std::int64_t g = L.groupOf(r, c);
            const float s1 = q.outerScales[static_cast<std::size_t>(g)];
            if (fp8Stage1) {
                v[i] = qmath::roundArith(v[i] * s1, arith1);
            } else {
                const float z1 = q.outerZeros.empty() ? 0.0f : static_cast<float>(q.outerZeros[g]);
                v[i] = qmath::roundArith(s1 * qmath::roundArith(v[i] - z1, arith1), arith1);
            }
        }
}

} // namespace

nlohmann::json stageToJson(const ProgressiveStage &stage)
{
    return std::visit([](const auto &s) { return s.toJson(); }, stage);
}

ProgressiveStage ProgressiveSpec::defaultStage1()
{
    return Fp8Spec{};
}

ProgressiveStage ProgressiveSpec::defaultStage2()
{
    IntSpec s;
    s.bits = 4;
    s.granularity = Granularity::Channel;
    s.axis = 0;
    s.symmetric = true;
    s.scaleApply = ScaleApply::Reciprocal; // Quark multiplies by 1/s2 (docs/numerics.md "ProgressiveSpec")
    return s;
}

ProgressiveSpec::ProgressiveSpec() : stage1(defaultStage1()), stage2(defaultStage2())
{
}

std::vector<SpecField> ProgressiveSpec::fields()
{
    std::vector<SpecField> f{
        {"stage1",
         "spec",
         {"fp8", "int"},
         0,
         0,
         "first stage, applied to W (default FP8 E4M3 per tensor: weight_scale)"},
        {"stage2",
         "spec",
         {"int", "fp8"},
         0,
         0,
         "second stage, applied to the stage-1 domain values (default INT4 symmetric per channel: "
         "weight_scale_2)"},
    };
    specjson::fieldNamed(f, "stage2").flattenMethod = "int"; // --bits, --group, … apply to stage 2
    return f;
}

void ProgressiveSpec::validate() const
{
    makeStage(stage1);
    makeStage(stage2);
}

nlohmann::json ProgressiveSpec::toJson() const
{
    return {{"method", "progressive"}, {"stage1", stageToJson(stage1)}, {"stage2", stageToJson(stage2)}};
}

ProgressiveSpec ProgressiveSpec::fromJson(const nlohmann::json &j)
{
    specjson::refuseUnknownKeys(j, fields(), "progressive");
    ProgressiveSpec s;
    if (j.contains("stage1"))
        s.stage1 = normaliseStage(j["stage1"], defaultStage1(), "stage1");
    if (j.contains("stage2"))
        s.stage2 = normaliseStage(j["stage2"], defaultStage2(), "stage2");
    return s;
}

ProgressiveQuantizer::ProgressiveQuantizer(ProgressiveSpec spec)
    : m_spec(std::move(spec)), m_stage1(makeStage(m_spec.stage1)), m_stage2(makeStage(m_spec.stage2))
{
}

ProgressiveQuantizer::~ProgressiveQuantizer() = default;

QuantizedTensor ProgressiveQuantizer::quantize(const Tensor &w, const QuantizeOptions &options,
                                               const CancelToken *cancel) const
{
    QuantizeOptions o1 = options;
    o1.wantDequantized = false;
    const QuantizedTensor q1 = m_stage1->quantize(w, o1, cancel);

    // The stage-1 domain values, in the source dtype when that is BF16/F16 (every FP8 value and
    // INT8 code is exact there), so that stage 2's `arith source` computes as the toolkit does.
    const std::size_t n = q1.codes.size();
    const DType vt = (w.dtype() == DType::BF16 || w.dtype() == DType::F16) ? w.dtype() : DType::F32;
    std::vector<std::byte> bytes(n * static_cast<std::size_t>(bitsOf(vt) / 8));
    for (std::size_t i = 0; i < n; ++i) {
        const float v = stageValue(q1.codes[i], q1.codeDtype);
        if (vt == DType::F32) {
            std::memcpy(bytes.data() + 4 * i, &v, 4);
        } else {
            const std::uint16_t h = vt == DType::BF16 ? floatToBf16(v) : floatToF16(v);
            std::memcpy(bytes.data() + 2 * i, &h, 2);
        }
    }
    const Tensor v = Tensor::fromBytes(vt, w.shape(), std::move(bytes));
    QuantizedTensor q = m_stage2->quantize(v, options, cancel);

    q.method = "progressive";
    q.spec = m_spec.toJson();
    q.sourceDtype = w.dtype();
    q.outerLayout = q1.layout;
    q.outerScales = q1.scales;
    q.outerScaleDtype = q1.scaleDtype;
    q.outerZeros = q1.zeros;
    q.nonFiniteGroups = q1.nonFiniteGroups;
    q.firstNonFinite = q1.firstNonFinite;
    q.layout.ragged = q.layout.ragged || q1.layout.ragged;
    if (options.wantDequantized)
        applyOuter(q, isFp8Stage(m_spec.stage1), arithCode(stageArith(m_spec.stage1), w.dtype()), q.dequantized);
    return q;
}

void ProgressiveQuantizer::dequantize(const QuantizedTensor &q, std::span<float> out) const
{
    m_stage2->dequantize(q, out);
    applyOuter(q, isFp8Stage(m_spec.stage1), arithCode(stageArith(m_spec.stage1), q.sourceDtype), out);
}

} // namespace quantscope
