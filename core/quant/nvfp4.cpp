// SPDX-License-Identifier: MIT
#include "quant/nvfp4.h"

#include "numeric/fp4math.h"
#include "quant/groupwise.h"
#include "quant/spec_json.h"
#include "tensor/convert.h"
#include "util/error.h"

namespace quantscope {

namespace {

constexpr float kE4m3Eps = 0.125f;

struct NvPolicy {
    float global = 1.0f;
    void params(float mn, float mx, float &s, int &z) const
    {
        const float amax = qmath::absf(mn) > qmath::absf(mx) ? qmath::absf(mn) : qmath::absf(mx);
        const float t = fp4::nvBlockTarget(amax, global);
        const float b = e4m3ToFloat(floatToE4m3(t)); // the quantization cast clamps to ±448 first
        s = b == 0.0f ? kE4m3Eps : b;
        z = 0;
    }
    void codeSpan(const float *x, std::int64_t n, float b, int, std::uint8_t *codes, float *deq) const
    {
        const float eff = fp4::nvEffective(b, global);
        for (std::int64_t i = 0; i < n; ++i) {
            codes[i] = fp4::nvCode(x[i], eff);
            if (deq)
                deq[i] = fp4::fp4Dequant(codes[i], eff);
        }
    }
    float dequant(std::uint8_t c, float b, int) const { return fp4::fp4Dequant(c, fp4::nvEffective(b, global)); }
    float badScale() const { return kE4m3Eps; }
    std::uint8_t badCode() const { return 0; }
    bool hasZeroPoint() const { return false; }
};

} // namespace

std::vector<SpecField> NvFp4Spec::fields()
{
    return {
        specjson::groupField("elements per E4M3 block scale along K (16 in NVFP4)"),
        specjson::strictField(),
    };
}

void NvFp4Spec::validate() const
{
    specjson::validateGroup(group);
}

nlohmann::json NvFp4Spec::toJson() const
{
    return {{"method", "nvfp4"}, {"group", group}, {"strict", strict}};
}

NvFp4Spec NvFp4Spec::fromJson(const nlohmann::json &j)
{
    specjson::refuseUnknownKeys(j, fields(), "nvfp4");
    NvFp4Spec s;
    specjson::parseGroupStrict(j, s.group, s.strict);
    s.validate();
    return s;
}

float NvFp4Quantizer::globalScale(float amax)
{
    return fp4::nvGlobalScale(amax);
}

NvFp4Quantizer::NvFp4Quantizer(NvFp4Spec spec) : m_spec(spec)
{
    m_spec.validate();
}

QuantizedTensor NvFp4Quantizer::quantize(const Tensor &w, const QuantizeOptions &options,
                                         const CancelToken *cancel) const
{
    requireDecodable(w, options.tensorName);
    QuantizedTensor q = startQuantized(w, "nvfp4", m_spec.toJson(), options.tensorName);
    q.layout = makeLayout(w.shape(), Granularity::Group, m_spec.group, 0, 0, m_spec.strict, options.tensorName);
    q.codeDtype = DType::F4;
    q.codeBits = 4;
    q.scaleDtype = DType::F8_E4M3;
    const float global =
        globalScale(options.tensorAmax ? *options.tensorAmax : detail::finiteAbsMax(w, options.threads, cancel));
    q.outerLayout = makeLayout(w.shape(), Granularity::Tensor, 0, 0, 0, false, options.tensorName);
    q.outerScales = {global};
    q.outerScaleDtype = DType::F32;
    detail::quantizeGroupwise(w, NvPolicy{global}, q, options, cancel);
    return q;
}

void NvFp4Quantizer::dequantize(const QuantizedTensor &q, std::span<float> out) const
{
    if (q.outerScales.size() != 1)
        throw UnsupportedError("an NVFP4 result needs its global scale");
    detail::dequantizeGroupwise(q, NvPolicy{q.outerScales[0]}, out);
}

} // namespace quantscope
