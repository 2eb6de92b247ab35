// SPDX-License-Identifier: MIT
#include "quant/constopt.h"

#include <cmath>

#include "numeric/fp4math.h"
#include "numeric/moments.h"
#include "quant/groupwise.h"
#include "numeric/hadamard.h"
#include "quant/spec_json.h"
#include "util/error.h"

namespace quantscope {

namespace {

const std::vector<std::string> kEncoders{"pow2", "unrounded"};

struct ConstOptPolicy {
    float fc = 0.156f;
    ConstOptEncoder encoder = ConstOptEncoder::Pow2;
    void params(float mn, float mx, float &s, int &z) const
    {
        const float amax = qmath::absf(mn) > qmath::absf(mx) ? qmath::absf(mn) : qmath::absf(mx);
        s = constOptScale(amax, fc, encoder);
        z = 0;
    }
    void codeSpan(const float *x, std::int64_t n, float s, int, std::uint8_t *codes, float *deq) const
    {
        for (std::int64_t i = 0; i < n; ++i) {
            codes[i] = fp4::constOptCode(x[i], s);
            if (deq)
                deq[i] = fp4::fp4Dequant(codes[i], s);
        }
    }
    float dequant(std::uint8_t c, float s, int) const { return fp4::fp4Dequant(c, s); }
    float badScale() const { return fp4::constOptBadScale(encoder == ConstOptEncoder::Unrounded); }
    std::uint8_t badCode() const { return 0; }
    bool hasZeroPoint() const { return false; }
};

} // namespace

std::string toString(ConstOptEncoder e)
{
    return kEncoders[static_cast<int>(e)];
}

ConstOptEncoder parseConstOptEncoder(const std::string &s)
{
    return static_cast<ConstOptEncoder>(specjson::parseChoice(nlohmann::json(s), "encoder", kEncoders));
}

float constOptScale(float amax, float fc, ConstOptEncoder encoder)
{
    return fp4::constOptScale(amax, fc, encoder == ConstOptEncoder::Unrounded);
}

std::vector<SpecField> ConstOptSpec::fields()
{
    std::vector<SpecField> f{
        {"c", "number", {}, 0, 0, "scale constant: s = c·max|x| per group (paper deploys 0.156)"},
        specjson::groupField("elements per scale along K"),
        {"encoder", "enum", kEncoders, 0, 0,
         "pow2: s = 2^round(log2(c·m)) stored as UE8M0; unrounded: s = c·m in FP32"},
        {"rotate", "int", {}, 0, 1 << 16, "Walsh–Hadamard block size d along K (a power of two dividing K); 0 = none"},
        specjson::strictField(),
    };
    f[0].minReal = 1e-6;
    f[0].maxReal = 16.0;
    return f;
}

void ConstOptSpec::validate() const
{
    if (!(c >= 1e-6 && c <= 16.0))
        throw UnsupportedError("c must be in [1e-6, 16], got " + std::to_string(c));
    specjson::validateGroup(group);
    if (rotate != 0 && (rotate < 2 || rotate > (1 << 16) || (rotate & (rotate - 1)) != 0))
        throw UnsupportedError("rotate must be 0 or a power of two in 2..65536, got " + std::to_string(rotate));
}

nlohmann::json ConstOptSpec::toJson() const
{
    return {{"method", "constopt"},         {"c", c},           {"group", group},
            {"encoder", toString(encoder)}, {"rotate", rotate}, {"strict", strict}};
}

ConstOptSpec ConstOptSpec::fromJson(const nlohmann::json &j)
{
    specjson::refuseUnknownKeys(j, fields(), "constopt");
    ConstOptSpec s;
    if (j.contains("c"))
        s.c = specjson::parseNumber(j["c"], "c");
    specjson::parseGroupStrict(j, s.group, s.strict);
    if (j.contains("encoder"))
        s.encoder = static_cast<ConstOptEncoder>(specjson::parseChoice(j["encoder"], "encoder", kEncoders));
    if (j.contains("rotate"))
        s.rotate = specjson::parseInt(j["rotate"], "rotate");
    s.validate();
    return s;
}

ConstOptQuantizer::ConstOptQuantizer(ConstOptSpec spec) : m_spec(spec)
{
    m_spec.validate();
}

QuantizedTensor ConstOptQuantizer::quantize(const Tensor &w, const QuantizeOptions &options,
                                            const CancelToken *cancel) const
{
    requireDecodable(w, options.tensorName);
    const auto [R, C] = matrixView(w.shape());
    QuantizedTensor q = startQuantized(w, "constopt", m_spec.toJson(), options.tensorName);
    q.layout = makeLayout(w.shape(), Granularity::Group, m_spec.group, 0, 0, m_spec.strict, options.tensorName);
    q.codeDtype = DType::F4;
    q.codeBits = 4;
    q.scaleDtype = m_spec.encoder == ConstOptEncoder::Pow2 ? DType::F8_E8M0 : DType::F32;
    const ConstOptPolicy policy{static_cast<float>(m_spec.c), m_spec.encoder};
    if (m_spec.rotate == 0) {
        detail::quantizeGroupwise(w, policy, q, options, cancel);
        q.report["rotate"] = 0;
        return q;
    }
    checkRotation(m_spec.rotate, C, options.tensorName);
    std::vector<float> x(static_cast<std::size_t>(R * C));
    w.decodeTo(x);
    hadamardRows(x, R, C, m_spec.rotate, options.threads);
    const Tensor xr = Tensor::fromFloats({R, C}, x);
    detail::quantizeGroupwise(xr, policy, q, options, cancel);
    if (options.wantDequantized)
        hadamardRows(q.dequantized, R, C, m_spec.rotate, options.threads);
    StatsOptions so;
    so.threads = options.threads;
    const TensorStats st = computeStats(xr, so, cancel);
    q.report["rotate"] = m_spec.rotate;
    q.report["rotated_excess_kurtosis"] =
        st.excessKurtosis ? nlohmann::json(*st.excessKurtosis) : nlohmann::json(nullptr);
    q.report["rotated_absmax"] = st.absmax;
    return q;
}

void ConstOptQuantizer::dequantize(const QuantizedTensor &q, std::span<float> out) const
{
    detail::dequantizeGroupwise(q, ConstOptPolicy{static_cast<float>(m_spec.c), m_spec.encoder}, out);
    if (m_spec.rotate != 0)
        hadamardRows(out, q.layout.rows, q.layout.cols, m_spec.rotate);
}

} // namespace quantscope
