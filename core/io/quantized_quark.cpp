// SPDX-License-Identifier: MIT
// Quark real_quantized INT4: eight nibbles per I32 in "reorder" (AWQ) or "order" packing,
// per-group weights transposed to [K, N/8], optional FP8 per-tensor first stage
// (docs/formats.md, docs/toolkits.md §3.5–3.7).
#include "io/quantized_common.h"

#include <set>

namespace quantscope::quantized_detail {

namespace {

/// The true K of a row packed into `words` int32 words of 8 nibbles. Quark pads K up to a
/// multiple of 8 and nothing stored says by how much, so the model's dimensions in config.json
/// decide: K is the one dimension (a key naming a size or dim, or heads × head_dim) in
/// (8·words − 8, 8·words]. A dimension equal to 8·words means no padding; none or several
/// candidates keep 8·words and say so.
std::int64_t packedWidth(const Ctx &c, std::int64_t words, std::vector<std::string> &warnings)
{
    const std::int64_t padded = words * 8;
    std::set<std::int64_t> dims;
    std::map<std::int64_t, std::string> keyOf;
    auto scan = [&](const nlohmann::json &j) {
        if (!j.is_object())
            return;
        for (auto it = j.begin(); it != j.end(); ++it) {
            const std::string &k = it.key();
            if (it->is_number_integer() && it->get<std::int64_t>() > 0 &&
                (k.find("size") != std::string::npos || k.find("dim") != std::string::npos)) {
                dims.insert(it->get<std::int64_t>());
                keyOf.emplace(it->get<std::int64_t>(), k);
            }
        }
        const auto heads = j.find("num_attention_heads"), hd = j.find("head_dim");
        if (heads != j.end() && hd != j.end() && heads->is_number_integer() && hd->is_number_integer()) {
            const std::int64_t v = heads->get<std::int64_t>() * hd->get<std::int64_t>();
            dims.insert(v);
            keyOf.emplace(v, "num_attention_heads × head_dim");
        }
    };
    const nlohmann::json &cfg = c.ck.config();
    scan(cfg);
    if (cfg.is_object() && cfg.contains("text_config"))
        scan(cfg["text_config"]);
    if (dims.empty() || dims.count(padded))
        return padded;
    std::vector<std::int64_t> fits;
    for (std::int64_t d : dims)
        if (d > padded - 8 && d < padded)
            fits.push_back(d);
    if (fits.size() == 1) {
        warnings.push_back("K = " + std::to_string(fits[0]) + " (config.json '" + keyOf[fits[0]] + "') is padded to " +
                           std::to_string(padded) +
                           " in the packed words (Quark pads to a multiple of 8); the padding is dropped");
        return fits[0];
    }
    warnings.push_back("the packed rows hold " + std::to_string(padded) + " codes and config.json names " +
                       (fits.empty() ? std::string("no dimension") : std::string("several dimensions")) + " between " +
                       std::to_string(padded - 7) + " and " + std::to_string(padded - 1) +
                       ": read as K = " + std::to_string(padded) + "; any padding Quark added is included");
    return padded;
}

} // namespace

QuantizedModule analyzeQuark(const Ctx &c, const WeightArgs *a, const ConfigView &cv)
{
    QuantizedModule m;
    m.format = QuantFormat::QuarkRealQuantized;
    QuantScheme &q = m.scheme;
    const TensorEntry &Wt = *c.get("weight");
    const TensorEntry *S1 = c.get("weight_scale");
    const TensorEntry *S2 = c.get("weight_scale_2");
    const TensorEntry *Z1 = c.get("weight_zero_point");
    const TensorEntry *Z2 = c.get("weight_zero_point_2");
    m.parts["codes"] = Wt.name;
    const bool two = a ? a->twoStage : S2 != nullptr;
    const TensorEntry *S = two ? S2 : S1;
    const TensorEntry *Z = two ? Z2 : Z1;
    if (two && !S1)
        c.fail("two-stage Quark weight without weight_scale (the stage-1 FP8 scale s1)");
    if (!S)
        c.fail(std::string("packed INT4 weight without ") + (two ? "weight_scale_2" : "weight_scale") +
               ": the scales are missing");
    m.parts["scale"] = S->name;
    if (two) {
        m.parts["scale_1"] = S1->name;
        if (numelOf(S1->shape) != 1 || S1->shape.size() > 1)
            c.fail("weight_scale (stage-1 s1) is " + describe(*S1) +
                   "; the FP8 per-tensor stage has one scale ([1] or a scalar)");
        if (a && !a->stage1Qscheme.empty() && a->stage1Qscheme != "per_tensor")
            c.fail("stage 1 qscheme '" + a->stage1Qscheme + "' in " + a->source +
                   " is not supported (per_tensor FP8 is read)");
        q.twoStage = true;
    }
    if (Wt.shape.size() != 2)
        c.fail("weight I32 is " + shapeList(Wt.shape) + "; packed INT4 [rows, words] expected");
    std::string dtype = a ? a->quarkDtype : std::string("int4");
    if (dtype.empty())
        dtype = "int4";
    if (dtype != "int4" && dtype != "uint4")
        c.fail("weight I32 with Quark dtype '" + dtype + "' (" + (a ? a->source : "") +
               "); int4 and uint4 packed in int32 are read");
    q.bits = 4;
    q.element = dtype;
    // Pack order.
    if (cv.method == "quark") {
        if (cv.packMethod == "reorder")
            q.packOrder = PackOrder::QuarkReorder;
        else if (cv.packMethod == "order")
            q.packOrder = PackOrder::QuarkOrder;
        else
            c.fail("unknown pack layout: export.pack_method '" + cv.packMethod +
                   "' (Quark writes 'reorder' or 'order')");
        q.packOrderAssumed = !cv.packMethodGiven;
    } else {
        q.packOrder = PackOrder::QuarkReorder;
        q.packOrderAssumed = true;
    }
    if (!isFloatScaleDtype(S->dtype))
        c.fail(S->name.substr(S->name.rfind('.') + 1) + " has dtype " + std::string(nameOf(S->dtype)) +
               "; a float dtype is expected");
    q.scaleDtype = S->dtype;
    const std::string sname = S->name.substr(S->name.rfind('.') + 1);
    // Granularity: the config's qscheme, else the scale's rank.
    std::string strat = a ? a->strategy : std::string();
    if (strat.empty())
        strat = numelOf(S->shape) == 1 && S->shape.size() <= 1 ? "tensor"
                : S->shape.size() == 2 && S->shape[1] > 1      ? "group"
                                                               : "channel";
    const std::int64_t words = Wt.shape[1];
    if (strat == "group") {
        // Transposed before packing: weight [K, N/8], scale [G, N], zero point [G, N/8].
        q.transposed = true;
        if (S->shape.size() != 2)
            c.fail(sname + " " + shapeList(S->shape) + ": a Quark per-group scale is stored transposed, [groups, N]");
        // Quark pads N up to a multiple of 8 before packing the transposed rows; the scale grid
        // keeps the true N, so the padding is known exactly and dropped.
        const std::int64_t N = S->shape[1];
        if (words != ceilDiv(N, 8))
            c.fail("weight " + shapeList(Wt.shape) + " holds " + std::to_string(words * 8) +
                   " outputs per row after the per-group transpose, " + sname + " " + shapeList(S->shape) + " has " +
                   std::to_string(N));
        if (N % 8 != 0)
            m.warnings.push_back("N = " + std::to_string(N) + " is padded to " + std::to_string(words * 8) +
                                 " in the packed words (Quark pads to a multiple of 8); the padding is dropped");
        m.rows = N;
        m.cols = Wt.shape[0];
        const std::int64_t G = S->shape[0];
        std::int64_t g = a && a->groupSize > 0 ? a->groupSize : 0;
        if (g == 0) {
            if (G <= 0 || m.cols % G != 0)
                c.fail(sname + " " + shapeList(S->shape) + ": K = " + std::to_string(m.cols) +
                       " is not a multiple of the groups; the group size needs the config");
            g = m.cols / G;
        }
        if (ceilDiv(m.cols, g) != G)
            c.fail(sname + " " + shapeList(S->shape) + ", but group " + std::to_string(g) +
                   " along K = " + std::to_string(m.cols) + " (" + (a ? a->source : "") + ") needs [" +
                   std::to_string(ceilDiv(m.cols, g)) + ", " + std::to_string(N) + "] (transposed)");
        q.granularity = Granularity::Group;
        q.groupSize = g;
        m.gridRows = N;
        m.gridCols = G;
    } else if (strat == "channel") {
        m.rows = Wt.shape[0];
        m.cols = packedWidth(c, words, m.warnings);
        const bool ok = (S->shape.size() == 1 && S->shape[0] == m.rows) ||
                        (S->shape.size() == 2 && S->shape[0] == m.rows && S->shape[1] == 1);
        if (!ok)
            c.fail(sname + " has shape " + shapeList(S->shape) +
                   ", but per-channel quantization of a "
                   "weight with N = " +
                   std::to_string(m.rows) + " rows needs [" + std::to_string(m.rows) +
                   "]; broadcasting it would not give one scale per row");
        q.granularity = Granularity::Channel;
        m.gridRows = m.rows;
        m.gridCols = 1;
    } else if (strat == "tensor") {
        m.rows = Wt.shape[0];
        m.cols = packedWidth(c, words, m.warnings);
        if (numelOf(S->shape) != 1)
            c.fail(sname + " has shape " + shapeList(S->shape) + ", but per-tensor quantization needs one scale");
        q.granularity = Granularity::Tensor;
    } else {
        c.fail("Quark qscheme '" + strat + "' is not supported for packed INT4 weights");
    }
    m.shape = {m.rows, m.cols};
    // Zero points: packed nibbles in the pack order (or raw I32 per element).
    const bool sym = a && a->symmetric ? *a->symmetric : (Z == nullptr);
    if (Z) {
        if (!isIntDtype(Z->dtype))
            c.fail(Z->name.substr(Z->name.rfind('.') + 1) + " has dtype " + std::string(nameOf(Z->dtype)) +
                   "; integer zero points are expected");
        const std::int64_t zn = numelOf(Z->shape);
        const std::int64_t grid = m.gridRows * m.gridCols;
        const std::int64_t packed = q.granularity == Granularity::Group     ? m.gridCols * ceilDiv(m.rows, 8)
                                    : q.granularity == Granularity::Channel ? ceilDiv(m.rows, 8)
                                                                            : 1;
        if (zn != grid && zn != packed)
            c.fail(Z->name.substr(Z->name.rfind('.') + 1) + " " + shapeList(Z->shape) +
                   " fits neither the packed zero points (" + std::to_string(packed) + " words) nor one per scale (" +
                   std::to_string(grid) + ")");
        m.parts["zero_point"] = Z->name;
    } else if (!sym) {
        c.fail("asymmetric quantization (" + (a ? a->source : std::string("?")) + ") but the zero point is missing");
    }
    q.symmetric = sym;
    return m;
}

} // namespace quantscope::quantized_detail
