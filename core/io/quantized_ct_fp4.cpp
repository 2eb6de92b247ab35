// SPDX-License-Identifier: MIT
// compressed-tensors nvfp4- / mxfp4-pack-quantized: FP4 E2M1 pairs in U8 with F8 group scales
// and a global scale (NVFP4) or E8M0 exponents (MXFP4) (docs/formats.md, docs/toolkits.md §2.6, §6).
#include "io/quantized_common.h"

namespace quantscope::quantized_detail {

QuantizedModule analyzeFp4(const Ctx &c, const WeightArgs *a, const ConfigView &)
{
    QuantizedModule m;
    QuantScheme &q = m.scheme;
    const TensorEntry &P = *c.get("weight_packed");
    const TensorEntry *S = c.get("weight_scale");
    const TensorEntry *GS = c.get("weight_global_scale");
    m.parts["codes"] = P.name;
    if (!S)
        c.fail("weight_packed U8 (FP4 pairs) without weight_scale: the scales are missing");
    m.parts["scale"] = S->name;
    bool nv;
    if (a && !a->format.empty() && a->format.find("fp4") != std::string::npos)
        nv = a->format == "nvfp4-pack-quantized";
    else if (a && a->isFloat && a->numBits == 4)
        nv = a->groupSize != 32;
    else
        nv = GS != nullptr || S->dtype == DType::F8_E4M3;
    if (a && (!a->isFloat || a->numBits != 4))
        c.fail("weight_packed U8 holds FP4 pairs, but " + a->source + " says " + (a->isFloat ? "float" : "int") + " " +
               std::to_string(a->numBits) + " bits");
    m.format = nv ? QuantFormat::CtNvfp4PackQuantized : QuantFormat::CtMxfp4PackQuantized;
    if (P.shape.size() != 2)
        c.fail("weight_packed is " + shapeList(P.shape) + "; FP4 pairs are [N, K/2]");
    m.rows = P.shape[0];
    m.cols = 2 * P.shape[1];
    m.shape = {m.rows, m.cols};
    q.isFloat = true;
    q.bits = 4;
    q.element = "fp4_e2m1";
    q.packOrder = PackOrder::Fp4LowNibbleFirst;
    if (nv) {
        if (S->dtype != DType::F8_E4M3 && !isFloatScaleDtype(S->dtype))
            c.fail("weight_scale has dtype " + std::string(nameOf(S->dtype)) + "; NVFP4 uses F8_E4M3");
        if (!GS)
            c.fail("NVFP4 weight without weight_global_scale: the global scale is missing");
    } else {
        if (S->dtype != DType::U8 && S->dtype != DType::F8_E8M0 && !isFloatScaleDtype(S->dtype))
            c.fail("weight_scale has dtype " + std::string(nameOf(S->dtype)) + "; MXFP4 uses U8 (E8M0 exponents)");
        q.scaleIsE8m0 = S->dtype == DType::U8 || S->dtype == DType::F8_E8M0;
    }
    q.scaleDtype = S->dtype;
    if (GS) {
        if (numelOf(GS->shape) != 1 || !isFloatScaleDtype(GS->dtype))
            c.fail("weight_global_scale is " + describe(*GS) + "; one float is expected");
        m.parts["global_scale"] = GS->name;
        q.globalScale = true;
    }
    WeightArgs def;
    def.strategy = "group";
    def.groupSize = nv ? 16 : 32;
    def.source = nv ? "NVFP4 (group 16)" : "MXFP4 (group 32)";
    resolveGrid(c, m, S->shape, "weight_scale", a ? a : &def, def.groupSize);
    return m;
}

} // namespace quantscope::quantized_detail
