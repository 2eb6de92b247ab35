// SPDX-License-Identifier: MIT
#include "export/quark_writer.h"

#include <cstring>

#include "util/error.h"

namespace quantscope {

namespace {

std::string awqNotWritten(const std::string &where)
{
    return where + ": method 'awq' — its checkpoint needs 1/s* folded into the op before the module (an "
                   "RMSNorm weight, up_proj's or v_proj's rows), which this per-module writer does not do; export "
                   "the recipe for llm-compressor (AWQModifier) or quantize with gptq or int";
}

} // namespace

namespace {

constexpr int kAwqOrder[8] = {0, 2, 4, 6, 1, 3, 5, 7}; // reorder: nibble slot i holds element kAwqOrder[i]

/// Packs `count` signed 4-bit codes (get(i)) into ⌈count/8⌉ words; the padding codes are 0.
template <typename Get> void packRow(std::int64_t count, bool reorder, const Get &get, std::uint32_t *words)
{
    const std::int64_t nw = (count + 7) / 8;
    for (std::int64_t w = 0; w < nw; ++w) {
        std::uint32_t v = 0;
        for (int slot = 0; slot < 8; ++slot) {
            const std::int64_t e = 8 * w + (reorder ? kAwqOrder[slot] : slot);
            const int code = e < count ? get(e) : 0;
            v |= (static_cast<std::uint32_t>(code) & 0xFu) << (4 * slot);
        }
        words[w] = v;
    }
}

Tensor i32Tensor(Shape shape, const std::vector<std::uint32_t> &words)
{
    std::vector<std::byte> b(words.size() * 4);
    if (!b.empty())
        std::memcpy(b.data(), words.data(), b.size());
    return Tensor::fromBytes(DType::I32, std::move(shape), std::move(b));
}

/// Rows × count codes packed row by row → I32 [rows, ⌈count/8⌉] (or [⌈count/8⌉] when rows is 0).
template <typename Get> Tensor packRows(std::int64_t rows, std::int64_t count, bool reorder, const Get &get)
{
    const std::int64_t nw = (count + 7) / 8;
    std::vector<std::uint32_t> words(static_cast<std::size_t>(std::max<std::int64_t>(rows, 1) * nw));
    for (std::int64_t r = 0; r < std::max<std::int64_t>(rows, 1); ++r)
        packRow(
            count, reorder, [&](std::int64_t i) { return get(r, i); }, words.data() + r * nw);
    return i32Tensor(rows == 0 ? Shape{nw} : Shape{rows, nw}, words);
}

} // namespace

std::vector<std::pair<std::string, Tensor>> quarkModuleTensors(const QuantizedTensor &q, const std::string &module,
                                                               const std::string &packMethod)
{
    if (packMethod != "reorder" && packMethod != "order")
        throw UnsupportedError("Quark pack_method '" + packMethod + "': 'reorder' or 'order' is written");
    const bool reorder = packMethod == "reorder";
    if (q.method == "awq")
        throw UnsupportedError(awqNotWritten(module));
    const bool progressive = q.method == "progressive";
    const GroupLayout &L = q.layout;
    const bool channel = L.granularity == Granularity::Channel && L.axis == 0;
    const bool group = L.granularity == Granularity::Group && L.gridRows == L.rows;
    if ((q.method != "int" && q.method != "gptq" && !progressive) || q.codeDtype != DType::I8 || q.codeBits != 4 ||
        !(channel || (group && !progressive)) || q.shape.size() != 2)
        throw UnsupportedError(module +
                               ": Quark's real_quantized INT4 layout holds INT4 per output channel or per "
                               "group along K, and ProgressiveSpec FP8 → INT4 per channel (this is " +
                               q.method + ", " + std::to_string(q.codeBits) + " bits, " + toString(L.granularity) +
                               ")");
    if (progressive && (q.outerScales.size() != 1 || !q.outerZeros.empty()))
        throw UnsupportedError(module + ": ProgressiveSpec is written with one FP8 per-tensor stage-1 scale");
    if (q.codes.empty())
        throw UnsupportedError(module + ": the result holds no codes");
    const std::int64_t N = L.rows, K = L.cols, G = L.gridCols;
    const auto *codes = reinterpret_cast<const std::int8_t *>(q.codes.data());
    auto zero = [&](std::int64_t i) {
        return q.zeros.empty() ? 0 : static_cast<int>(q.zeros[static_cast<std::size_t>(i)]);
    };
    std::vector<std::pair<std::string, Tensor>> out;
    const std::string zp = progressive ? ".weight_zero_point_2" : ".weight_zero_point";
    if (channel) {
        out.emplace_back(module + ".weight", packRows(N, K, reorder, [&](std::int64_t n, std::int64_t k) {
                             return int{codes[n * K + k]};
                         }));
        if (progressive)
            out.emplace_back(module + ".weight_scale", Tensor::fromFloats(Shape{}, q.outerScales));
        out.emplace_back(module + (progressive ? ".weight_scale_2" : ".weight_scale"),
                         Tensor::fromFloats({N}, q.scales));
        out.emplace_back(module + zp, packRows(0, N, reorder, [&](std::int64_t, std::int64_t n) { return zero(n); }));
    } else {
        // Per group: transposed to [K, N] before packing; scales and zero points to [G, N].
        out.emplace_back(module + ".weight", packRows(K, N, reorder, [&](std::int64_t k, std::int64_t n) {
                             return int{codes[n * K + k]};
                         }));
        std::vector<float> st(static_cast<std::size_t>(G * N));
        for (std::int64_t n = 0; n < N; ++n)
            for (std::int64_t g = 0; g < G; ++g)
                st[static_cast<std::size_t>(g * N + n)] = q.scales[static_cast<std::size_t>(n * G + g)];
        out.emplace_back(module + ".weight_scale", Tensor::fromFloats({G, N}, st));
        out.emplace_back(module + zp,
                         packRows(G, N, reorder, [&](std::int64_t g, std::int64_t n) { return zero(n * G + g); }));
    }
    return out;
}

} // namespace quantscope
