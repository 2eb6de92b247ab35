// SPDX-License-Identifier: MIT
#include "quant/mxfp4.h"

#include "numeric/fp4math.h"
#include "quant/groupwise.h"
#include "quant/spec_json.h"
#include "util/error.h"

namespace quantscope {

namespace {

const std::vector<std::string> kModes{"even", "floor", "ceil"};

struct MxPolicy {
    int mode = fp4::MxEven;
    void params(float mn, float mx, float &s, int &z) const
    {
        s = fp4::mxGroupScale(mn, mx, mode); // the GPU kernels call the same function
        z = 0;
    }
    void codeSpan(const float *x, std::int64_t n, float s, int, std::uint8_t *codes, float *deq) const
    {
        for (std::int64_t i = 0; i < n; ++i) {
            codes[i] = fp4::mxCode(x[i], s);
            if (deq)
                deq[i] = fp4::mxDequant(codes[i], s);
        }
    }
    float dequant(std::uint8_t c, float s, int) const { return fp4::mxDequant(c, s); }
    float badScale() const { return fp4::mxBadScale(); }
    std::uint8_t badCode() const { return 0; }
    bool hasZeroPoint() const { return false; }
};

} // namespace

std::string toString(MxMode m)
{
    return kModes[static_cast<int>(m)];
}

std::vector<SpecField> MxFp4Spec::fields()
{
    std::vector<SpecField> f{
        {"mode", "enum", kModes, 0, 0,
         "shared exponent: even (Quark/compressed-tensors, amax mantissa rounded first), floor "
         "(OCP), ceil"},
        specjson::groupField("elements per E8M0 scale along K (32 in the MX spec)"),
        specjson::strictField(),
    };
    specjson::fieldNamed(f, "mode").flag = "--mx-mode";
    return f;
}

void MxFp4Spec::validate() const
{
    specjson::validateGroup(group);
}

nlohmann::json MxFp4Spec::toJson() const
{
    return {{"method", "mxfp4"}, {"mode", toString(mode)}, {"group", group}, {"strict", strict}};
}

MxFp4Spec MxFp4Spec::fromJson(const nlohmann::json &j)
{
    specjson::refuseUnknownKeys(j, fields(), "mxfp4");
    MxFp4Spec s;
    if (j.contains("mode"))
        s.mode = static_cast<MxMode>(specjson::parseChoice(j["mode"], "mode", kModes));
    specjson::parseGroupStrict(j, s.group, s.strict);
    s.validate();
    return s;
}

MxFp4Quantizer::MxFp4Quantizer(MxFp4Spec spec) : m_spec(spec)
{
    m_spec.validate();
}

QuantizedTensor MxFp4Quantizer::quantize(const Tensor &w, const QuantizeOptions &options,
                                         const CancelToken *cancel) const
{
    requireDecodable(w, options.tensorName);
    QuantizedTensor q = startQuantized(w, "mxfp4", m_spec.toJson(), options.tensorName);
    q.layout = makeLayout(w.shape(), Granularity::Group, m_spec.group, 0, 0, m_spec.strict, options.tensorName);
    q.codeDtype = DType::F4;
    q.codeBits = 4;
    q.scaleDtype = DType::F8_E8M0;
    detail::quantizeGroupwise(w, MxPolicy{static_cast<int>(m_spec.mode)}, q, options, cancel);
    return q;
}

void MxFp4Quantizer::dequantize(const QuantizedTensor &q, std::span<float> out) const
{
    detail::dequantizeGroupwise(q, MxPolicy{static_cast<int>(m_spec.mode)}, out);
}

} // namespace quantscope
