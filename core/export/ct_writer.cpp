// SPDX-License-Identifier: MIT
#include "export/ct_writer.h"

#include <cstring>
#include <filesystem>
#include <variant>

#include "tensor/convert.h"
#include "quant/quantizer.h"
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

/// Packs `count` codes (signed, b bits) as compressed-tensors does: code + 2^(b−1), element i
/// at bit i·b across little-endian int32 words.
void packDense(const std::int8_t *codes, std::int64_t count, std::int64_t stride, int b, std::uint32_t *words)
{
    const std::int32_t offset = 1 << (b - 1);
    for (std::int64_t i = 0; i < count; ++i) {
        const std::uint64_t v = static_cast<std::uint32_t>(codes[i * stride] + offset) & ((1u << b) - 1u);
        const std::int64_t bit = i * b;
        const std::int64_t w = bit / 32, s = bit % 32;
        words[w] |= static_cast<std::uint32_t>(v << s);
        if (s + b > 32)
            words[w + 1] |= static_cast<std::uint32_t>(v >> (32 - s));
    }
}

std::int64_t denseWords(std::int64_t count, int b)
{
    return (count * b + 31) / 32;
}

Tensor packedTensor(const std::int8_t *codes, std::int64_t rows, std::int64_t cols, int b, bool alongRows)
{
    // alongRows = false: pack each row's `cols` codes → [rows, words]; true: pack each column's
    // `rows` codes → [words, cols] (zero points, "packed along dim 0").
    const std::int64_t outer = alongRows ? cols : rows, inner = alongRows ? rows : cols;
    const std::int64_t words = denseWords(inner, b);
    std::vector<std::uint32_t> buf(static_cast<std::size_t>(outer * words), 0u);
    std::vector<std::uint32_t> tmp(static_cast<std::size_t>(words));
    for (std::int64_t o = 0; o < outer; ++o) {
        std::fill(tmp.begin(), tmp.end(), 0u);
        packDense(alongRows ? codes + o : codes + o * cols, inner, alongRows ? cols : 1, b, tmp.data());
        for (std::int64_t w = 0; w < words; ++w)
            buf[static_cast<std::size_t>(alongRows ? w * cols + o : o * words + w)] = tmp[static_cast<std::size_t>(w)];
    }
    std::vector<std::byte> bytes(buf.size() * 4);
    std::memcpy(bytes.data(), buf.data(), bytes.size());
    return Tensor::fromBytes(DType::I32, alongRows ? Shape{words, cols} : Shape{rows, words}, std::move(bytes));
}

/// The element codes of a float result as stored: F8_E4M3 [N, K] bytes, or FP4 pairs (element
/// 2k in the low nibble) as a U8 [N, K/2] (the F4 dtype's own packing).
Tensor floatCodesTensor(const std::vector<std::uint8_t> &codes, DType dtype, std::int64_t N, std::int64_t K)
{
    if (dtype == DType::F4) {
        std::vector<std::byte> b(static_cast<std::size_t>(N * ((K + 1) / 2)));
        for (std::int64_t r = 0; r < N; ++r)
            for (std::int64_t c = 0; c < K; ++c)
                b[static_cast<std::size_t>(r * ((K + 1) / 2) + c / 2)] |= std::byte{
                    static_cast<std::uint8_t>((codes[static_cast<std::size_t>(r * K + c)] & 0x0F) << (c % 2 ? 4 : 0))};
        return Tensor::fromBytes(DType::F4, {N, K}, std::move(b));
    }
    std::vector<std::byte> b(codes.size());
    std::memcpy(b.data(), codes.data(), b.size());
    return Tensor::fromBytes(dtype, {N, K}, std::move(b));
}

/// compressed-tensors' tensors of an FP8 (float-quantized: `weight` F8_E4M3, `weight_scale` F32
/// [1] / [N, 1] / block grid) or NVFP4 (nvfp4-pack-quantized: `weight_packed` U8 [N, K/2],
/// `weight_scale` F8_E4M3 [N, K/16], `weight_global_scale` F32 [1]) result.
/// The method whose layout a result is stored in: a gptq result's target (its codes are an ordinary
/// checkpoint of that format), else the method.
std::string storedMethod(const QuantizedTensor &q)
{
    return q.method == "gptq" ? q.spec.value("target", std::string("int")) : q.method;
}

std::vector<std::pair<std::string, Tensor>> floatModule(const QuantizedTensor &q, const std::string &module)
{
    const std::int64_t N = q.layout.rows, K = q.layout.cols;
    std::vector<std::pair<std::string, Tensor>> out;
    const std::string method = storedMethod(q);
    if (method == "nvfp4") {
        const Tensor packed = floatCodesTensor(q.codes, DType::F4, N, K);
        std::vector<std::byte> pb(packed.nbytes());
        std::memcpy(pb.data(), packed.data(), pb.size());
        out.emplace_back(module + ".weight_packed", Tensor::fromBytes(DType::U8, {N, (K + 1) / 2}, std::move(pb)));
        std::vector<std::byte> sb(q.scales.size());
        for (std::size_t i = 0; i < q.scales.size(); ++i)
            sb[i] = std::byte{floatToE4m3(q.scales[i])}; // E4M3 values already: exact
        out.emplace_back(module + ".weight_scale",
                         Tensor::fromBytes(DType::F8_E4M3, {q.layout.gridRows, q.layout.gridCols}, std::move(sb)));
        out.emplace_back(module + ".weight_global_scale", Tensor::fromFloats({1}, q.outerScales));
        return out;
    }
    if (method != "fp8" || q.codeDtype != DType::F8_E4M3)
        throw UnsupportedError(module + ": compressed-tensors float-quantized holds FP8 E4M3 (this is " + q.method +
                               (method != q.method ? " " + method : std::string()) + ")");
    out.emplace_back(module + ".weight", floatCodesTensor(q.codes, DType::F8_E4M3, N, K));
    const Shape ss = q.layout.granularity == Granularity::Tensor    ? Shape{1}
                     : q.layout.granularity == Granularity::Channel ? Shape{N, 1}
                                                                    : Shape{q.layout.gridRows, q.layout.gridCols};
    out.emplace_back(module + ".weight_scale", Tensor::fromFloats(ss, q.scales));
    return out;
}

} // namespace

std::vector<std::pair<std::string, Tensor>> ctModuleTensors(const QuantizedTensor &q, const std::string &module,
                                                            bool intQuantized)
{
    if (q.method == "awq")
        throw UnsupportedError(awqNotWritten(module));
    if (storedMethod(q) != "int") // GPTQ's codes are an ordinary checkpoint of its target
        return floatModule(q, module);
    const GroupLayout &L = q.layout;
    if (!(L.granularity == Granularity::Group || (L.granularity == Granularity::Channel && L.axis == 0)) ||
        q.shape.size() != 2 || L.gridRows != L.rows)
        throw UnsupportedError(module + ": the pack-quantized writer takes INT group or per-output-channel results");
    if (q.codes.empty())
        throw UnsupportedError(module + ": the result holds no codes");
    const std::int64_t N = L.rows, K = L.cols, groups = L.gridCols;
    const auto *codes = reinterpret_cast<const std::int8_t *>(q.codes.data());
    std::vector<std::pair<std::string, Tensor>> out;
    if (intQuantized) { // one I8 code per element; zero points (asymmetric) in the scale's shape
        const auto bytesOf = [](const void *p, std::size_t n) {
            std::vector<std::byte> b(n);
            std::memcpy(b.data(), p, n);
            return b;
        };
        out.emplace_back(module + ".weight", Tensor::fromBytes(DType::I8, {N, K}, bytesOf(codes, q.codes.size())));
        out.emplace_back(module + ".weight_scale", Tensor::fromFloats({N, groups}, q.scales));
        if (!q.zeros.empty())
            out.emplace_back(module + ".weight_zero_point",
                             Tensor::fromBytes(DType::I8, {N, groups}, bytesOf(q.zeros.data(), q.zeros.size())));
        return out;
    }
    out.emplace_back(module + ".weight_packed", packedTensor(codes, N, K, q.codeBits, false));
    out.emplace_back(module + ".weight_scale", Tensor::fromFloats({N, groups}, q.scales));
    const std::int64_t shapeVals[2] = {N, K};
    std::vector<std::byte> sb(16);
    std::memcpy(sb.data(), shapeVals, 16);
    out.emplace_back(module + ".weight_shape", Tensor::fromBytes(DType::I64, {2}, std::move(sb)));
    if (!q.zeros.empty())
        out.emplace_back(module + ".weight_zero_point", packedTensor(q.zeros.data(), N, groups, q.codeBits, true));
    return out;
}

} // namespace quantscope
