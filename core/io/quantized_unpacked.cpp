// SPDX-License-Identifier: MIT
// One stored code per element with a weight_scale: compressed-tensors int- / naive- /
// float-quantized (I8 or F8_E4M3), and the same layout under a Quark config (docs/formats.md,
// docs/toolkits.md §2.5).
#include "io/quantized_common.h"

namespace quantscope::quantized_detail {

QuantizedModule analyzeNaive(const Ctx &c, const WeightArgs *a, const ConfigView &cv)
{
    QuantizedModule m;
    QuantScheme &q = m.scheme;
    const TensorEntry &Wt = *c.get("weight");
    const TensorEntry *S = c.get("weight_scale");
    const TensorEntry *Z = c.get("weight_zero_point");
    m.parts["codes"] = Wt.name;
    if (!S)
        c.fail("quantized " + std::string(nameOf(Wt.dtype)) + " weight (" + (a ? a->source : std::string("config")) +
               ") without weight_scale: the scales are missing");
    m.parts["scale"] = S->name;
    const bool fp = Wt.dtype == DType::F8_E4M3;
    if (a && a->isFloat != fp)
        c.fail("weight is " + std::string(nameOf(Wt.dtype)) + ", but " + a->source + " says type " +
               (a->isFloat ? "float" : "int"));
    if (cv.method == "quark")
        m.format = QuantFormat::QuarkRealQuantized;
    else if (a && a->format == "naive-quantized")
        m.format = QuantFormat::CtNaiveQuantized;
    else if (a && a->format == "int-quantized")
        m.format = QuantFormat::CtIntQuantized;
    else if (a && a->format == "float-quantized")
        m.format = QuantFormat::CtFloatQuantized;
    else
        m.format = fp ? QuantFormat::CtFloatQuantized : QuantFormat::CtIntQuantized;
    if (a && cv.method != "quark" && (a->format == "pack-quantized" || a->format.find("fp4") != std::string::npos))
        m.warnings.push_back("the weight is stored unpacked (" + std::string(nameOf(Wt.dtype)) + "), but " + a->source +
                             " says format '" + a->format +
                             "': read as stored (compressed-tensors decides per module)");
    if (Wt.shape.size() != 2 && Wt.shape.size() != 3)
        c.fail("weight is " + shapeList(Wt.shape) + "; [N, K] or [E, N, K] expected");
    const bool three = Wt.shape.size() == 3;
    m.experts = three ? Wt.shape[0] : 1;
    m.rows = Wt.shape[three ? 1 : 0];
    m.cols = Wt.shape.back();
    m.shape = Wt.shape;
    q.isFloat = fp;
    q.bits = fp ? 8 : (a ? a->numBits : 8);
    q.element = fp ? "fp8_e4m3" : "int" + std::to_string(q.bits);
    if (!isFloatScaleDtype(S->dtype))
        c.fail("weight_scale has dtype " + std::string(nameOf(S->dtype)) + "; a float dtype is expected");
    q.scaleDtype = S->dtype;
    Shape s = S->shape;
    if (three) {
        if (s.empty() || s[0] != m.experts)
            c.fail("weight_scale " + shapeList(s) + " does not start with the experts of the weight");
        s.erase(s.begin());
    }
    resolveGrid(c, m, s, "weight_scale", a, 0);
    const bool wantZp = a ? !a->symmetric.value_or(true) : Z != nullptr;
    if (wantZp) {
        if (!Z)
            c.fail("asymmetric quantization (" + (a ? a->source : std::string("?")) +
                   ") but weight_zero_point is missing");
        if (numelOf(Z->shape) != m.experts * m.gridRows * m.gridCols)
            c.fail("weight_zero_point " + shapeList(Z->shape) + " does not match the scale grid " +
                   shapeList(S->shape));
        m.parts["zero_point"] = Z->name;
        q.symmetric = false;
    } else if (Z) {
        m.warnings.push_back("weight_zero_point present although the config says symmetric; ignored");
    }
    return m;
}

} // namespace quantscope::quantized_detail
