// SPDX-License-Identifier: MIT
// FP8 block checkpoints (DeepSeek-V3, Qwen3-FP8): an F8_E4M3 weight with a weight_scale_inv
// grid whose block size only config.json gives (docs/formats.md "Quantized tensor layouts read").
#include "io/quantized_common.h"

namespace quantscope::quantized_detail {

QuantizedModule analyzeFp8Block(const Ctx &c, const ConfigView &cv)
{
    QuantizedModule m;
    m.format = QuantFormat::Fp8Block;
    QuantScheme &q = m.scheme;
    const TensorEntry &Wt = *c.get("weight");
    const TensorEntry &S = *c.get("weight_scale_inv");
    m.parts["codes"] = Wt.name;
    m.parts["scale"] = S.name;
    if (Wt.dtype != DType::F8_E4M3)
        c.fail("weight_scale_inv beside a " + std::string(nameOf(Wt.dtype)) +
               " weight; FP8 block checkpoints store F8_E4M3");
    if (Wt.shape.size() != 2)
        c.fail("weight is " + shapeList(Wt.shape) + "; FP8 block weights are [N, K]");
    if (!cv.weightBlock)
        c.fail("FP8 block scales (" + describe(S) +
               ") but config.json gives no quantization_config.weight_block_size; the block size "
               "is never derived from shapes");
    m.rows = Wt.shape[0];
    m.cols = Wt.shape[1];
    m.shape = Wt.shape;
    q.isFloat = true;
    q.bits = 8;
    q.element = "fp8_e4m3";
    q.inverseScale = true;
    q.fromConfig = true;
    if (!isFloatScaleDtype(S.dtype))
        c.fail("weight_scale_inv has dtype " + std::string(nameOf(S.dtype)) + "; F32 expected");
    q.scaleDtype = S.dtype;
    WeightArgs a;
    a.strategy = "block";
    a.blockRows = cv.weightBlock->first;
    a.blockCols = cv.weightBlock->second;
    a.source = "config.json weight_block_size";
    resolveGrid(c, m, S.shape, "weight_scale_inv", &a, 0);
    return m;
}

} // namespace quantscope::quantized_detail
