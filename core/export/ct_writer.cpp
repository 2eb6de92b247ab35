// SPDX-License-Identifier: MIT
#include "export/ct_writer.h"

#include <cstring>
#include <filesystem>
#include <variant>

#include "io/checkpoint.h"
#include "io/quantized.h"
#include "io/safetensors.h"
#include "quant/quantizer.h"
#include "util/error.h"

namespace quantscope {

namespace {

bool isEmbedding(const std::string &module)
{
    for (const char *e : {"embed_tokens", "wte", "word_embeddings"})
        if (module.size() >= std::strlen(e) && module.compare(module.size() - std::strlen(e), std::string::npos, e) == 0)
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

std::int64_t denseWords(std::int64_t count, int b) { return (count * b + 31) / 32; }

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

} // namespace

CheckpointExportResult writeCompressedTensorsCheckpoint(const std::string &checkpoint, const Recipe &recipe,
                                                        const std::string &outDir, const CancelToken *cancel,
                                                        const std::function<void(double)> &progress)
{
    // The config first: everything the target cannot express is refused before any work.
    const nlohmann::json qc = compressedTensorsConfig(recipe);
    for (const auto &[name, g] : qc["config_groups"].items())
        if (g["format"] != "pack-quantized")
            throw UnsupportedError("the checkpoint writer writes compressed-tensors pack-quantized (INT weights) "
                                   "only so far; " + name + " is " + g["format"].get<std::string>());
    const Checkpoint ck = Checkpoint::open(checkpoint);
    CheckpointExportResult result;
    std::vector<std::pair<std::string, Tensor>> out;
    struct Written {
        std::string module;
        std::vector<std::int8_t> codes;
        int bits;
        std::int64_t rows, cols, groups;
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
            out.emplace_back(e.name, ck.tensor(e.name));
            ++result.copied;
            continue;
        }
        if (isEmbedding(module)) {
            result.notes.push_back(module + ": copied, not quantized — an embedding is not a Linear layer, "
                                            "which compressed-tensors' targets name");
            out.emplace_back(e.name, ck.tensor(e.name));
            ++result.copied;
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
        out.emplace_back(module + ".weight_packed", packedTensor(codes, N, K, spec->bits, false));
        out.emplace_back(module + ".weight_scale", Tensor::fromFloats({N, groups}, q.scales));
        const std::int64_t shapeVals[2] = {N, K};
        std::vector<std::byte> sb(16);
        std::memcpy(sb.data(), shapeVals, 16);
        out.emplace_back(module + ".weight_shape", Tensor::fromBytes(DType::I64, {2}, std::move(sb)));
        if (!spec->symmetric)
            out.emplace_back(module + ".weight_zero_point", packedTensor(q.zeros.data(), N, groups, spec->bits, true));
        written.push_back({module, std::vector<std::int8_t>(codes, codes + N * K), spec->bits, N, K, groups});
        result.quantized.push_back(module);
        if (progress)
            progress(0.9 * static_cast<double>(i + 1) / static_cast<double>(entries.size()));
    }
    // Written into a staging folder beside DIR, re-read there, then renamed to DIR: a failure
    // anywhere leaves no output.
    namespace fs = std::filesystem;
    std::error_code ec;
    if (fs::exists(outDir) && !(fs::is_directory(outDir) && fs::is_empty(outDir)))
        throw IoError("the output folder exists and is not empty", Location{outDir, {}, {}});
    const fs::path stage = fs::path(outDir).string() + ".partial";
    fs::remove_all(stage, ec);
    fs::create_directories(stage, ec);
    if (ec)
        throw IoError("cannot create the output folder", Location{stage.string(), {}, {}});
    struct Cleanup {
        fs::path p;
        bool keep = false;
        ~Cleanup()
        {
            std::error_code e;
            if (!keep)
                fs::remove_all(p, e);
        }
    } cleanup{stage};
    writeSafetensors(stage / "model.safetensors", out, {{"format", "pt"}});
    nlohmann::json config = ck.config().is_object() ? ck.config() : nlohmann::json::object();
    config["quantization_config"] = qc;
    writeTextAtomically((stage / "config.json").string(), config.dump(2) + "\n");
    const fs::path file = fs::path(outDir) / "model.safetensors";
    result.file = file.string();

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
    fs::remove(outDir, ec); // empty or absent
    fs::rename(stage, outDir, ec);
    if (ec)
        throw IoError("cannot rename the written checkpoint into place", Location{outDir, {}, {}});
    cleanup.keep = true;
    if (progress)
        progress(1.0);
    return result;
}

} // namespace quantscope
