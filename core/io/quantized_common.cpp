// SPDX-License-Identifier: MIT
// What the quantized analysers share: reading scales and integer parts, scale health, and the
// scale-grid resolution every toolkit's scales go through (quantized_common.h).
#include "io/quantized_common.h"

#include <cmath>
#include <cstring>

#include "tensor/convert.h"

namespace quantscope::quantized_detail {

std::string shapeList(const Shape &s)
{
    std::string out = "[";
    for (std::size_t i = 0; i < s.size(); ++i)
        out += (i ? ", " : "") + std::to_string(s[i]);
    return out + "]";
}

std::string describe(const TensorEntry &e)
{
    return e.name.substr(e.name.rfind('.') + 1) + " " + std::string(nameOf(e.dtype)) + " " + shapeList(e.shape);
}

/// Decodes a stored scale tensor to FP32 (U8 as E8M0 when asked).
std::vector<float> floatsOf(const Tensor &t, bool e8m0FromU8)
{
    std::vector<float> out(static_cast<std::size_t>(t.numel()));
    if (e8m0FromU8 && t.dtype() == DType::U8) {
        for (std::int64_t i = 0; i < t.numel(); ++i)
            out[static_cast<std::size_t>(i)] = e8m0ToFloat(static_cast<std::uint8_t>(t.at(i)));
        return out;
    }
    t.decodeTo(out);
    return out;
}

void countHealth(ScaleHealth &h, const std::vector<float> &v)
{
    for (float x : v) {
        ++h.total;
        if (std::isnan(x))
            ++h.nan;
        else if (std::isinf(x))
            ++h.inf;
        else if (x == 0.0f)
            ++h.zero;
    }
}

std::vector<std::int64_t> integersOf(const Tensor &t)
{
    std::vector<std::int64_t> v(static_cast<std::size_t>(t.numel()));
    for (std::int64_t i = 0; i < t.numel(); ++i) {
        if (t.dtype() == DType::I64) {
            std::int64_t x;
            std::memcpy(&x, t.data() + 8 * i, 8);
            v[static_cast<std::size_t>(i)] = x;
        } else {
            v[static_cast<std::size_t>(i)] = static_cast<std::int64_t>(t.at(i));
        }
    }
    return v;
}

bool isIntDtype(DType t)
{
    return t == DType::I8 || t == DType::I16 || t == DType::I32 || t == DType::I64 || t == DType::U8 ||
           t == DType::U16 || t == DType::U32 || t == DType::U64;
}

bool isFloatScaleDtype(DType t)
{
    return t == DType::F32 || t == DType::F16 || t == DType::BF16 || t == DType::F64 || t == DType::F8_E4M3 ||
           t == DType::F8_E8M0;
}

/// Resolves granularity and the scale grid of a weight [experts × N × K] from the per-expert
/// scale shape `s` and the config args (or the shapes alone). Throws naming the mismatch.
void resolveGrid(const Ctx &c, QuantizedModule &m, const Shape &s, const std::string &scaleName, const WeightArgs *a,
                 std::int64_t defaultGroup)
{
    const std::int64_t N = m.rows, K = m.cols;
    QuantScheme &q = m.scheme;
    const std::int64_t numel = numelOf(s);
    const std::string got = scaleName + " has shape " + shapeList(s);
    auto isChannel = [&] { return (s.size() == 2 && s[0] == N && s[1] == 1) || (s.size() == 1 && s[0] == N); };
    auto setGroup = [&](std::int64_t g) {
        q.granularity = Granularity::Group;
        q.groupSize = g;
        m.gridRows = N;
        m.gridCols = ceilDiv(K, g);
    };
    const std::string strategy = a ? a->strategy : std::string();
    if (strategy == "tensor") {
        if (numel != 1)
            c.fail(got + ", but per-tensor quantization (" + a->source +
                   ") needs one scale; broadcasting it would have applied " + std::to_string(numel) +
                   " different scales to one tensor");
        q.granularity = Granularity::Tensor;
        m.gridRows = m.gridCols = 1;
        return;
    }
    if (strategy == "channel") {
        if (!isChannel())
            c.fail(got + ", but per-channel quantization (" + a->source + ") of N = " + std::to_string(N) +
                   " rows needs [" + std::to_string(N) +
                   ", 1]; broadcasting it would not give one scale per output row");
        q.granularity = Granularity::Channel;
        m.gridRows = N;
        m.gridCols = 1;
        return;
    }
    if (strategy == "group" || strategy == "tensor_group") {
        const std::int64_t g = a->groupSize > 0 ? a->groupSize : defaultGroup;
        if (g <= 0)
            c.fail("group quantization in " + a->source + " without a positive group_size");
        const std::int64_t G = ceilDiv(K, g);
        if (!(s.size() == 2 && s[0] == N && s[1] == G)) {
            std::string msg = got + ", but group " + std::to_string(g) + " along K = " + std::to_string(K) + " (" +
                              a->source + ") needs [" + std::to_string(N) + ", " + std::to_string(G) + "]";
            if (s.size() == 2 && s[0] == N && s[1] > 0)
                msg += "; broadcasting it would have applied each scale to " + std::to_string(ceilDiv(K, s[1])) +
                       " columns instead of " + std::to_string(g);
            c.fail(msg);
        }
        setGroup(g);
        return;
    }
    if (strategy == "block") {
        const std::int64_t br = a->blockRows, bc = a->blockCols;
        if (br <= 0 || bc <= 0)
            c.fail("block quantization in " + a->source + " without a block_structure");
        const Shape want{ceilDiv(N, br), ceilDiv(K, bc)};
        if (s != want)
            c.fail(got + ", but blocks " + std::to_string(br) + "x" + std::to_string(bc) + " of a [" +
                   std::to_string(N) + ", " + std::to_string(K) + "] weight (" + a->source + ") need " +
                   shapeList(want));
        q.granularity = Granularity::Block;
        q.blockRows = br;
        q.blockCols = bc;
        m.gridRows = want[0];
        m.gridCols = want[1];
        return;
    }
    if (a && !strategy.empty())
        c.fail("strategy '" + strategy + "' in " + a->source + " is not supported for weights");

    // No config: from the shapes alone.
    if (numel == 1 && !(N == 1 && s.size() == 2)) {
        q.granularity = Granularity::Tensor;
        m.gridRows = m.gridCols = 1;
        return;
    }
    if (isChannel()) {
        q.granularity = Granularity::Channel;
        m.gridRows = N;
        m.gridCols = 1;
        return;
    }
    if (s.size() == 2 && s[0] == N && s[1] > 1) {
        const std::int64_t G = s[1];
        if (defaultGroup > 0 && ceilDiv(K, defaultGroup) == G)
            return setGroup(defaultGroup);
        if (K % G == 0 && K / G > 0)
            return setGroup(K / G);
        c.fail(got + ": K = " + std::to_string(K) + " is not a multiple of " + std::to_string(G) +
               " groups, so the group size cannot be inferred; config.json's quantization_config "
               "is needed");
    }
    if (s.size() == 2 && s[0] != N)
        c.fail(got + ", which is not [N, groups] for N = " + std::to_string(N) +
               "; a block grid needs its block size from config.json (never derived from shapes)");
    c.fail(got + ", which fits no per-tensor, per-channel or group layout of a [" + std::to_string(N) + ", " +
           std::to_string(K) + "] weight");
}

/// Reads the logical weight shape from c-t weight_shape.
Shape readWeightShape(const Ctx &c, const TensorEntry &e)
{
    if (!isIntDtype(e.dtype) || e.shape.size() != 1)
        c.fail("weight_shape is " + std::string(nameOf(e.dtype)) + " " + shapeList(e.shape) +
               "; an integer vector [rank] is expected");
    const auto v = integersOf(c.ck.tensor(e.name));
    Shape s;
    for (auto x : v) {
        if (x < 0)
            c.fail("weight_shape " + shapeList(Shape(v.begin(), v.end())) + " has a negative entry");
        s.push_back(x);
    }
    return s;
}

} // namespace quantscope::quantized_detail
