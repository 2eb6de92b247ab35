// SPDX-License-Identifier: MIT
#include "quant/fp8.h"

#include "quant/groupwise.h"
#include "quant/uniform.h"
#include "tensor/convert.h"
#include "util/error.h"

namespace quantscope {

namespace {

struct Fp8Policy {
    bool e4m3 = true;
    float maxValue = 448.0f;
    int arith = 0;
    float eps = 1.1920929e-7f;
    void params(float mn, float mx, float &s, int &z) const
    {
        const float amax = qmath::absf(mn) > qmath::absf(mx) ? qmath::absf(mn) : qmath::absf(mx);
        s = qmath::roundArith(amax / maxValue, arith);
        if (!(s > 0.0f) || !qmath::isFinite(s))
            s = eps;
        z = 0;
    }
    std::uint8_t code(float x, float s, int) const
    {
        const float v = qmath::roundArith(x / s, arith);
        return e4m3 ? floatToE4m3(v) : floatToE5m2(v);
    }
    float dequant(std::uint8_t c, float s, int) const
    {
        const float f = e4m3 ? e4m3ToFloat(c) : e5m2ToFloat(c);
        return qmath::roundArith(f * s, arith);
    }
    void codeSpan(const float *x, std::int64_t n, float s, int z, std::uint8_t *codes, float *deq) const
    {
        for (std::int64_t i = 0; i < n; ++i) {
            codes[i] = code(x[i], s, z);
            if (deq)
                deq[i] = dequant(codes[i], s, z);
        }
    }
    float badScale() const { return eps; }
    std::uint8_t badCode() const { return 0; }
    bool hasZeroPoint() const { return false; }
};

Fp8Policy makePolicy(const Fp8Spec &spec, DType source)
{
    Fp8Policy p;
    p.e4m3 = spec.format == Fp8Format::E4M3;
    p.maxValue = spec.maxValue();
    p.arith = arithCode(spec.arith, source);
    p.eps = epsilonFor(spec.eps, ScaleDType::F32);
    return p;
}

} // namespace

Fp8Quantizer::Fp8Quantizer(Fp8Spec spec) : m_spec(spec)
{
    m_spec.validate();
}

QuantizedTensor Fp8Quantizer::quantize(const Tensor &w, const QuantizeOptions &options, const CancelToken *cancel) const
{
    requireDecodable(w, options.tensorName);
    QuantizedTensor q = startQuantized(w, "fp8", m_spec.toJson(), options.tensorName);
    q.layout = makeLayout(w.shape(), m_spec.granularity, 0, m_spec.block, 0, false, options.tensorName);
    q.codeDtype = m_spec.format == Fp8Format::E4M3 ? DType::F8_E4M3 : DType::F8_E5M2;
    q.codeBits = 8;
    q.scaleDtype = DType::F32;
    detail::quantizeGroupwise(w, makePolicy(m_spec, w.dtype()), q, options, cancel);
    return q;
}

void Fp8Quantizer::dequantize(const QuantizedTensor &q, std::span<float> out) const
{
    detail::dequantizeGroupwise(q, makePolicy(m_spec, q.sourceDtype), out);
}

} // namespace quantscope
