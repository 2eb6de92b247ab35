// SPDX-License-Identifier: MIT
// compressed-tensors pack-quantized: INT1..8 codes stored as value + 2^(b-1) in I32 words,
// dense (element i at bit i*b) or, before c-t #715, 32/b per word; optional packed zero
// points, weight_shape and act-order g_idx (docs/formats.md, docs/toolkits.md §2.4).
#include "io/quantized_common.h"

#include <algorithm>
#include <limits>
#include <set>

namespace quantscope::quantized_detail {

namespace {

/// I32 words a row of k INT-b codes takes; -1 (no word count matches) when k is negative or so
/// large that k·b would overflow (the fuzz finding of docs/reliability.md).
std::int64_t denseWords(std::int64_t k, int b)
{
    if (k < 0 || b < 1 || k > (std::numeric_limits<std::int64_t>::max() - 31) / b)
        return -1;
    return ceilDiv(k * b, 32);
}
std::int64_t legacyWords(std::int64_t k, int b)
{
    const int per = b < 1 ? 0 : 32 / b;
    if (k < 0 || per < 1 || k > std::numeric_limits<std::int64_t>::max() - per)
        return -1;
    return ceilDiv(k, per);
}

/// Which c-t packing a row of `k` codes in `w` words uses; nullopt = neither.
std::optional<PackOrder> ctLayout(const Ctx &c, std::int64_t k, int b, std::int64_t w, const std::string &what,
                                  std::optional<PackOrder> prefer)
{
    const bool d = w == denseWords(k, b), l = w == legacyWords(k, b);
    if (d && l) {
        if (b == 1 || b == 2 || b == 4 || b == 8 || k <= 32 / b)
            return PackOrder::CtDense; // both layouts put every element at the same bits
        if (prefer)
            return prefer;
        c.fail(what + ": " + std::to_string(k) + " INT" + std::to_string(b) + " codes in " + std::to_string(w) +
               " words fit both the dense layout and the older 32/b-per-word layout, which "
               "differ here; the layout is ambiguous and refused");
    }
    if (d)
        return PackOrder::CtDense;
    if (l)
        return PackOrder::CtLegacy;
    return std::nullopt;
}

} // namespace

QuantizedModule analyzeCtPacked(const Ctx &c, const WeightArgs *a)
{
    QuantizedModule m;
    m.format = QuantFormat::CtPackQuantized;
    QuantScheme &q = m.scheme;
    const TensorEntry &P = *c.get("weight_packed");
    const TensorEntry *S = c.get("weight_scale");
    const TensorEntry *WS = c.get("weight_shape");
    const TensorEntry *Z = c.get("weight_zero_point");
    const TensorEntry *GI = c.get("weight_g_idx");
    m.parts["codes"] = P.name;
    if (P.shape.size() != 2 && P.shape.size() != 3)
        c.fail("weight_packed is " + shapeList(P.shape) + "; [N, words] or [E, N, words] expected");
    if (!S)
        c.fail("weight_packed without weight_scale: the scales are missing");
    if (!WS)
        c.fail("weight_packed without weight_shape: K cannot be known exactly from the word count");
    m.parts["scale"] = S->name;
    m.parts["shape"] = WS->name;
    if (a && a->isFloat)
        c.fail("weight_packed I32 holds INT codes, but " + a->source + " says type float");
    // compressed-tensors decides each module's compression from its scheme and tensors; the
    // config's format is only a hint. The tensors are unambiguous here: read them as they are.
    if (a && !a->format.empty() && a->format != "pack-quantized")
        m.warnings.push_back("the tensors are pack-quantized, but " + a->source + " says format '" + a->format +
                             "': read as pack-quantized (compressed-tensors decides per module)");
    const Shape ws = readWeightShape(c, *WS);
    if (ws.size() != P.shape.size())
        c.fail("weight_shape " + shapeList(ws) + " has rank " + std::to_string(ws.size()) + ", weight_packed " +
               shapeList(P.shape) + " rank " + std::to_string(P.shape.size()));
    const bool three = P.shape.size() == 3;
    m.experts = three ? P.shape[0] : 1;
    m.rows = P.shape[three ? 1 : 0];
    const std::int64_t W = P.shape.back();
    m.cols = ws.back();
    if (m.cols < 0 || m.cols / 32 > W) // a word holds at most 32 codes (of 1 bit)
        c.fail("weight_shape " + shapeList(ws) + " lies: K = " + std::to_string(m.cols) + " codes cannot fit in the " +
               std::to_string(W) + " I32 words of each row of weight_packed " + shapeList(P.shape));
    if (three && ws[0] != m.experts)
        c.fail("weight_shape " + shapeList(ws) + " lies: weight_packed holds " + std::to_string(m.experts) +
               " experts");
    if (ws[three ? 1 : 0] != m.rows)
        c.fail("weight_shape " + shapeList(ws) + " lies: weight_packed " + shapeList(P.shape) + " holds " +
               std::to_string(m.rows) + " rows");
    m.shape = ws;

    // Bit width: the config's, else the only one the word count allows.
    int b = 0;
    if (a) {
        b = a->numBits;
        if (b < 1 || b > 8)
            c.fail(a->source + " says num_bits " + std::to_string(b) + "; pack-quantized holds 1..8");
    } else {
        std::set<int> fits;
        for (int bb = 1; bb <= 8; ++bb)
            if (W == denseWords(m.cols, bb) || W == legacyWords(m.cols, bb))
                fits.insert(bb);
        if (fits.size() != 1) {
            std::string list;
            for (int bb : fits)
                list += (list.empty() ? "" : ", ") + std::to_string(bb);
            c.fail("weight_shape " + shapeList(ws) + " and " + std::to_string(W) + " words per row fit " +
                   (fits.empty() ? std::string("no bit width 1..8") : "bit widths {" + list + "}") +
                   "; config.json's quantization_config is needed to know num_bits");
        }
        b = *fits.begin();
    }
    q.bits = b;
    q.element = "int" + std::to_string(b);
    const auto layout = ctLayout(c, m.cols, b, W, "weight_packed", std::nullopt);
    if (!layout)
        c.fail("weight_shape " + shapeList(ws) + " lies or the pack layout is unknown: K = " + std::to_string(m.cols) +
               " INT" + std::to_string(b) + " codes need " + std::to_string(denseWords(m.cols, b)) +
               " words (dense) or " + std::to_string(legacyWords(m.cols, b)) + " (32/b per word), weight_packed has " +
               std::to_string(W));
    q.packOrder = *layout;

    // Scale grid.
    if (!isFloatScaleDtype(S->dtype))
        c.fail("weight_scale has dtype " + std::string(nameOf(S->dtype)) + "; a float dtype is expected");
    q.scaleDtype = S->dtype;
    Shape s = S->shape;
    if (three) {
        if (s.empty() || s[0] != m.experts)
            c.fail("weight_scale " + shapeList(s) + " does not start with the " + std::to_string(m.experts) +
                   " experts of weight_packed");
        s.erase(s.begin());
    }
    resolveGrid(c, m, s, "weight_scale", a, 0);

    // Zero points (asymmetric): packed along dim 0, same family of layout.
    const bool wantZp = a ? !a->symmetric.value_or(true) : Z != nullptr;
    if (a && !wantZp && Z)
        m.warnings.push_back("weight_zero_point present although " + a->source +
                             " says symmetric; it is ignored (as compressed-tensors does)");
    if (wantZp) {
        if (!Z)
            c.fail("asymmetric quantization (" + (a ? a->source : std::string("?")) +
                   ") but weight_zero_point is missing");
        if (!isIntDtype(Z->dtype))
            c.fail("weight_zero_point has dtype " + std::string(nameOf(Z->dtype)) +
                   "; integer zero points are expected");
        Shape zs = Z->shape;
        if (three) {
            if (zs.empty() || zs[0] != m.experts)
                c.fail("weight_zero_point " + shapeList(zs) + " does not start with the experts");
            zs.erase(zs.begin());
        }
        if (zs.size() != 2 || zs[1] != m.gridCols)
            c.fail("weight_zero_point " + shapeList(Z->shape) + " does not match the scale grid [" +
                   std::to_string(m.gridRows) + ", " + std::to_string(m.gridCols) + "] packed along dim 0");
        const auto zl = ctLayout(c, m.gridRows, b, zs[0], "weight_zero_point", q.packOrder);
        if (zs[0] == m.gridRows && (Z->dtype != DType::I32 || !zl)) {
            m.zeroPointPacked = false; // older writers: one raw zero point per scale
        } else if (Z->dtype != DType::I32 || !zl || *zl != q.packOrder) {
            c.fail("weight_zero_point " + shapeList(Z->shape) + ": " + std::to_string(m.gridRows) + " packed INT" +
                   std::to_string(b) + " zero points need " +
                   std::to_string(q.packOrder == PackOrder::CtLegacy ? legacyWords(m.gridRows, b)
                                                                     : denseWords(m.gridRows, b)) +
                   " I32 rows in the weight's layout (or " + std::to_string(m.gridRows) + " raw ones)");
        }
        m.parts["zero_point"] = Z->name;
        q.symmetric = false;
    }
    if (GI) {
        if (!isIntDtype(GI->dtype) || GI->shape != Shape{m.cols})
            c.fail("weight_g_idx is " + describe(*GI) + "; I32 [K = " + std::to_string(m.cols) + "] expected");
        m.parts["g_idx"] = GI->name;
        const auto g = integersOf(c.ck.tensor(GI->name));
        const bool columnOrder = std::find(g.begin(), g.end(), -1) != g.end();
        if (!columnOrder) {
            if (q.granularity != Granularity::Group)
                c.fail("weight_g_idx given for a " + toString(q.granularity) +
                       " scheme; activation order needs groups");
            for (std::size_t i = 0; i < g.size(); ++i)
                if (g[i] < 0 || g[i] >= m.gridCols)
                    c.fail("weight_g_idx[" + std::to_string(i) + "] = " + std::to_string(g[i]) + " is outside the " +
                           std::to_string(m.gridCols) + " groups");
            q.actOrder = true;
        }
    }
    return m;
}

} // namespace quantscope::quantized_detail
