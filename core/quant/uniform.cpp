// SPDX-License-Identifier: MIT
#include "quant/uniform.h"

#include "quant/groupwise.h"
#include "util/error.h"

namespace quantscope {

int arithCode(Arith arith, DType source)
{
    if (arith == Arith::Fp32)
        return 0;
    if (source == DType::BF16)
        return 1;
    if (source == DType::F16)
        return 2;
    return 0; // F32 sources compute in FP32; narrower non-IEEE sources have no arithmetic
}

IntParams intParams(const IntSpec &spec, DType source)
{
    IntParams p;
    p.qmin = spec.qmin();
    p.qmax = spec.qmax();
    p.symmetric = spec.symmetric;
    p.divisor =
        spec.scaleRule == ScaleRule::Toolkit ? static_cast<float>(p.qmax - p.qmin) / 2.0f : static_cast<float>(p.qmax);
    p.range = static_cast<float>(p.qmax - p.qmin);
    p.arith = arithCode(spec.arith, source);
    p.scaleDtype = static_cast<int>(spec.scaleDtype);
    p.e8m0Round = spec.e8m0Mode == E8m0Mode::Round;
    p.halfAway = spec.rounding == Rounding::HalfAway;
    p.reciprocal = spec.scaleApply == ScaleApply::Reciprocal;
    p.eps = epsilonFor(spec.eps, spec.scaleDtype);
    return p;
}

namespace {

struct IntPolicy {
    IntParams p;
    void params(float mn, float mx, float &s, int &z) const { intGroupParams(p, mn, mx, s, z); }
    std::uint8_t code(float x, float s, int z) const
    {
        return static_cast<std::uint8_t>(static_cast<std::int8_t>(intCode(p, x, s, z)));
    }
    float dequant(std::uint8_t c, float s, int z) const { return intDequant(p, static_cast<std::int8_t>(c), s, z); }
    void codeSpan(const float *x, std::int64_t n, float s, int z, std::uint8_t *codes, float *deq) const
    {
        if (p.arith == 0 && !p.halfAway && !p.reciprocal) {
            // Fast path, same codes as intCode: x/s rounded half-even by the 2^23 trick. For
            // |x/s| ≥ 2^23 the trick differs from roundInt, but both then clamp to qmin/qmax.
            const float lo = static_cast<float>(p.qmin), hi = static_cast<float>(p.qmax);
            const float zf = static_cast<float>(z);
            for (std::int64_t i = 0; i < n; ++i) {
                const float v = x[i] / s;
                const float av = v < 0.0f ? -v : v;
                const float ra = (av + 8388608.0f) - 8388608.0f;
                float q = (v < 0.0f ? -ra : ra) + zf;
                q = q < lo ? lo : (q > hi ? hi : q);
                codes[i] = static_cast<std::uint8_t>(static_cast<std::int8_t>(static_cast<int>(q)));
                if (deq)
                    deq[i] = s * (q - zf);
            }
            return;
        }
        for (std::int64_t i = 0; i < n; ++i) {
            const int q = intCode(p, x[i], s, z);
            codes[i] = static_cast<std::uint8_t>(static_cast<std::int8_t>(q));
            if (deq)
                deq[i] = intDequant(p, q, s, z);
        }
    }
    float badScale() const { return p.eps; }
    std::uint8_t badCode() const { return 0; }
    bool hasZeroPoint() const { return !p.symmetric; }
};

} // namespace

IntQuantizer::IntQuantizer(IntSpec spec) : m_spec(spec)
{
    m_spec.validate();
}

QuantizedTensor IntQuantizer::quantize(const Tensor &w, const QuantizeOptions &options, const CancelToken *cancel) const
{
    requireDecodable(w, options.tensorName);
    QuantizedTensor q = startQuantized(w, "int", m_spec.toJson(), options.tensorName);
    q.layout = makeLayout(w.shape(), m_spec.granularity, m_spec.group, m_spec.block, m_spec.axis, m_spec.strict,
                          options.tensorName);
    q.codeDtype = DType::I8;
    q.codeBits = m_spec.bits;
    q.scaleDtype = storedDType(m_spec.scaleDtype);
    detail::quantizeGroupwise(w, IntPolicy{intParams(m_spec, w.dtype())}, q, options, cancel);
    return q;
}

void IntQuantizer::dequantize(const QuantizedTensor &q, std::span<float> out) const
{
    detail::dequantizeGroupwise(q, IntPolicy{intParams(m_spec, q.sourceDtype)}, out);
}

} // namespace quantscope
