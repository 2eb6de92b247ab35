// SPDX-License-Identifier: MIT
#include "export/ct_writer.h"

#include <cstring>
#include <filesystem>
#include <variant>

#include "export/staged_output.h"
#include "io/checkpoint.h"
#include "io/quantized.h"
#include "io/safetensors.h"
#include "tensor/convert.h"
#include "quant/quantizer.h"
#include "util/error.h"

namespace quantscope {

namespace {

bool isEmbedding(const std::string &module)
{
    for (const char *e : {"embed_tokens", "wte", "word_embeddings"})
        if (module.size() >= std::strlen(e) &&
            module.compare(module.size() - std::strlen(e), std::string::npos, e) == 0)
            return true;
    return false;
}

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
std::vector<std::pair<std::string, Tensor>> floatModule(const QuantizedTensor &q, const std::string &module)
{
    const std::int64_t N = q.layout.rows, K = q.layout.cols;
    std::vector<std::pair<std::string, Tensor>> out;
    if (q.method == "nvfp4") {
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
    if (q.method != "fp8" || q.codeDtype != DType::F8_E4M3)
        throw UnsupportedError(module + ": compressed-tensors float-quantized holds FP8 E4M3 (this is " + q.method +
                               ")");
    out.emplace_back(module + ".weight", floatCodesTensor(q.codes, DType::F8_E4M3, N, K));
    const Shape ss = q.layout.granularity == Granularity::Tensor    ? Shape{1}
                     : q.layout.granularity == Granularity::Channel ? Shape{N, 1}
                                                                    : Shape{q.layout.gridRows, q.layout.gridCols};
    out.emplace_back(module + ".weight_scale", Tensor::fromFloats(ss, q.scales));
    return out;
}

} // namespace

CheckpointExportResult writeCompressedTensorsCheckpoint(const std::string &checkpoint, const Recipe &recipe,
                                                        const std::string &outDir, const CancelToken *cancel,
                                                        const std::function<void(double)> &progress,
                                                        const ExportOptions &options)
{
    // The config first: everything the target cannot express is refused before any work.
    const nlohmann::json qc = compressedTensorsConfig(recipe, options);
    for (const auto &[name, g] : qc["config_groups"].items())
        if (g["format"] != "pack-quantized" && g["format"] != "float-quantized" &&
            g["format"] != "nvfp4-pack-quantized")
            throw UnsupportedError("the checkpoint writer writes compressed-tensors pack-quantized (INT), "
                                   "float-quantized (FP8) and nvfp4-pack-quantized; " +
                                   name + " is " + g["format"].get<std::string>());
    const Checkpoint ck = Checkpoint::open(checkpoint);
    CheckpointExportResult result;
    std::vector<OutTensor> out;
    struct Written {
        std::string module;
        std::vector<std::int8_t> codes;
        int bits;
        std::int64_t rows, cols, groups;
        std::vector<std::uint8_t> floatCodes; ///< FP8 / FP4 results: the element bit patterns
        DType floatDtype = DType::I8;
    };
    std::vector<Written> written;
    const auto &entries = ck.entries();
    for (std::size_t i = 0; i < entries.size(); ++i) {
        if (cancel)
            cancel->check();
        const TensorEntry &e = entries[i];
        const std::string module = moduleOf(e.name);
        const bool weight2d = e.name.size() > 7 && e.name.ends_with(".weight") && e.shape.size() == 2 &&
                              (e.dtype == DType::F32 || e.dtype == DType::BF16 || e.dtype == DType::F16);
        const RecipeMatch m = weight2d ? matchModule(recipe, module) : RecipeMatch{};
        if (!m.matched()) {
            out.push_back({e.name, ck.tensor(e.name), e.name});
            ++result.copied;
            continue;
        }
        if (isEmbedding(module)) {
            result.notes.push_back(module + ": copied, not quantized — an embedding is not a Linear layer, "
                                            "which compressed-tensors' targets name");
            out.push_back({e.name, ck.tensor(e.name), e.name});
            ++result.copied;
            continue;
        }
        if (!std::holds_alternative<IntSpec>(m.specs.front())) {
            // FP8 (float-quantized) and NVFP4 (nvfp4-pack-quantized): quantized here, stored
            // by floatModule, checked on re-read like the INT ones.
            QuantizeOptions qo;
            qo.wantDequantized = false;
            qo.tensorName = e.name;
            const QuantizedTensor q = makeQuantizer(m.specs.front())->quantize(ck.tensor(e.name), qo, cancel);
            for (auto &[name, t] : floatModule(q, module))
                out.push_back({name, std::move(t), e.name});
            written.push_back(
                {module, {}, q.codeDtype == DType::F4 ? 4 : 8, e.shape[0], e.shape[1], 0, q.codes, q.codeDtype});
            result.quantized.push_back(module);
            continue;
        }
        const auto *spec = std::get_if<IntSpec>(&m.specs.front());
        if (!spec || !(spec->granularity == Granularity::Group ||
                       (spec->granularity == Granularity::Channel && spec->axis == 0)))
            throw UnsupportedError(module + ": the pack-quantized writer takes INT group or per-output-channel specs");
        QuantizeOptions qo;
        qo.wantDequantized = false;
        qo.tensorName = e.name;
        const QuantizedTensor q = makeQuantizer(m.specs.front())->quantize(ck.tensor(e.name), qo, cancel);
        const std::int64_t N = e.shape[0], K = e.shape[1];
        const std::int64_t groups = q.layout.gridCols;
        if (q.layout.gridRows != N)
            throw UnsupportedError(module + ": unexpected scale grid for the pack-quantized layout");
        const auto *codes = reinterpret_cast<const std::int8_t *>(q.codes.data());
        out.push_back({module + ".weight_packed", packedTensor(codes, N, K, spec->bits, false), e.name});
        out.push_back({module + ".weight_scale", Tensor::fromFloats({N, groups}, q.scales), e.name});
        const std::int64_t shapeVals[2] = {N, K};
        std::vector<std::byte> sb(16);
        std::memcpy(sb.data(), shapeVals, 16);
        out.push_back({module + ".weight_shape", Tensor::fromBytes(DType::I64, {2}, std::move(sb)), e.name});
        if (!spec->symmetric)
            out.push_back(
                {module + ".weight_zero_point", packedTensor(q.zeros.data(), N, groups, spec->bits, true), e.name});
        written.push_back(
            {module, std::vector<std::int8_t>(codes, codes + N * K), spec->bits, N, K, groups, {}, DType::I8});
        result.quantized.push_back(module);
        if (progress)
            progress(0.9 * static_cast<double>(i + 1) / static_cast<double>(entries.size()));
    }
    // Written into a staging folder beside DIR, sharded like the input, re-read there, then
    // renamed to DIR: a failure anywhere leaves no output.
    if (cancel)
        cancel->check();
    StagedOutput staged(outDir);
    const auto files = staged.writeTensors(ck, out);
    staged.writeConfig(ck, qc);
    result.file = (std::filesystem::path(outDir) / files.front()).string();
    const std::filesystem::path stage = staged.stage();

    // Re-read with our readers: the same codes, and the declared bits per weight.
    const Checkpoint back = Checkpoint::open(stage);
    const Detection d = detectQuantized(back);
    for (const Written &w : written) {
        const QuantizedModule *qm = d.find(w.module);
        if (!qm)
            throw FormatError("re-read: " + w.module + " is not detected as quantized in the written file");
        const Tensor codes = quantizedCodes(back, *qm);
        std::vector<float> got(static_cast<std::size_t>(codes.numel()));
        codes.decodeTo(got);
        if (!w.floatCodes.empty()) {
            // Float elements: the values of the codes read back equal those of the codes written.
            const Tensor mine = floatCodesTensor(w.floatCodes, w.floatDtype, w.rows, w.cols);
            std::vector<float> want(static_cast<std::size_t>(mine.numel()));
            mine.decodeTo(want);
            if (want.size() != got.size())
                throw FormatError("re-read: " + w.module + " holds " + std::to_string(got.size()) + " codes");
            for (std::size_t k = 0; k < want.size(); ++k)
                if (std::memcmp(&want[k], &got[k], 4) != 0)
                    throw FormatError("re-read: " + w.module + " code " + std::to_string(k) + " differs");
            const std::string *cp = qm->part("codes");
            const double bpw =
                8.0 * static_cast<double>(back.find(*cp)->nbytes()) / static_cast<double>(w.rows * w.cols);
            if (bpw != w.bits)
                throw FormatError("re-read: " + w.module + " stores " + std::to_string(bpw) +
                                  " bits per code, declared " + std::to_string(w.bits));
            continue;
        }
        for (std::int64_t k = 0; k < w.rows * w.cols; ++k)
            if (static_cast<int>(got[static_cast<std::size_t>(k)]) != w.codes[static_cast<std::size_t>(k)])
                throw FormatError("re-read: " + w.module + " code " + std::to_string(k) + " differs");
        const TensorEntry *pe = nullptr;
        for (const auto &e : back.entries())
            if (e.name == w.module + ".weight_packed")
                pe = &e;
        const double bpw = pe ? 8.0 * static_cast<double>(pe->nbytes()) / static_cast<double>(w.rows * w.cols) : 0;
        if (pe == nullptr || bpw < w.bits || bpw >= w.bits + 32.0 / static_cast<double>(w.cols))
            throw FormatError("re-read: " + w.module + " stores " + std::to_string(bpw) + " bits per code, declared " +
                              std::to_string(w.bits));
    }
    staged.commit();
    if (progress)
        progress(1.0);
    return result;
}

} // namespace quantscope
