// SPDX-License-Identifier: MIT
#include "export/fp8block_writer.h"

#include <cstring>
#include <variant>

#include "export/staged_output.h"
#include "io/checkpoint.h"
#include "io/native.h"
#include "io/quantized.h"
#include "quant/quant_spec.h"
#include "quant/quantizer.h"
#include "util/error.h"

namespace quantscope {

nlohmann::json fp8BlockConfig(const Recipe &recipe, const ExportOptions &options)
{
    const std::string where = "fp8-block";
    if (recipe.rules.size() != 1 || !exportdetail::isCatchAll(recipe.rules[0]) || recipe.rules[0].specs.size() != 1 ||
        !recipe.rules[0].overrides.empty())
        throw UnsupportedError(where + ": the layout has one scheme per checkpoint — give one catch-all rule ('*') "
                                       "with one FP8 block spec and no overrides");
    const QuantSpec spec = parseQuantSpec(recipe.rules[0].specs[0]);
    const auto *f = std::get_if<Fp8Spec>(&spec);
    if (!f || f->format != Fp8Format::E4M3 || f->granularity != Granularity::Block)
        throw UnsupportedError(exportdetail::ruleLabel(recipe, 0) + ": the FP8 block layout holds FP8 E4M3 per " +
                               "square block (method fp8, granularity block)");
    if (options.activations == ActivationScheme::Fp8Static)
        throw UnsupportedError(where + ": activations fp8-static — the layout keeps no input scales (dynamic only)");
    nlohmann::json skip = nlohmann::json::array();
    for (const RecipeExclude &e : recipe.exclude) {
        if (e.dialect != PatternDialect::Exact)
            throw UnsupportedError(where + ": exclude '" + e.pattern + "' is a " + std::string(toString(e.dialect)) +
                                   " pattern; modules_to_not_convert takes exact module names");
        skip.push_back(e.pattern);
    }
    nlohmann::json q;
    q["activation_scheme"] = "dynamic";
    q["fmt"] = "e4m3";
    q["modules_to_not_convert"] = skip;
    q["quant_method"] = "fp8";
    q["weight_block_size"] = {f->block, f->block};
    return q;
}

CheckpointExportResult writeFp8BlockCheckpoint(const std::string &checkpoint, const Recipe &recipe,
                                               const std::string &outDir, const ExportOptions &options,
                                               const CancelToken *cancel, const std::function<void(double)> &progress)
{
    const nlohmann::json qc = fp8BlockConfig(recipe, options);
    const Checkpoint ck = Checkpoint::open(checkpoint);
    CheckpointExportResult result;
    std::vector<OutTensor> out;
    struct Written {
        std::string module;
        std::vector<std::uint8_t> codes;
        std::int64_t rows, cols;
    };
    std::vector<Written> written;
    const auto &entries = ck.entries();
    for (std::size_t i = 0; i < entries.size(); ++i) {
        if (cancel)
            cancel->check();
        const TensorEntry &e = entries[i];
        const std::string module = moduleOf(e.name);
        const bool weight2d = e.name.ends_with(".weight") && e.name.size() > 7 && e.shape.size() == 2 &&
                              (e.dtype == DType::F32 || e.dtype == DType::BF16 || e.dtype == DType::F16);
        const RecipeMatch m = weight2d ? matchModule(recipe, module) : RecipeMatch{};
        const bool embedding = module.ends_with("embed_tokens") || module.ends_with("wte");
        if (!m.matched() || embedding) {
            if (m.matched())
                result.notes.push_back(module + ": copied, not quantized — an embedding is not a Linear layer");
            out.push_back({e.name, ck.tensor(e.name), e.name});
            ++result.copied;
            continue;
        }
        QuantizeOptions qo;
        qo.wantDequantized = false;
        qo.tensorName = e.name;
        const QuantizedTensor q = makeQuantizer(m.specs.front())->quantize(ck.tensor(e.name), qo, cancel);
        const std::int64_t N = e.shape[0], K = e.shape[1];
        std::vector<std::byte> cb(q.codes.size());
        std::memcpy(cb.data(), q.codes.data(), cb.size());
        out.push_back({e.name, Tensor::fromBytes(DType::F8_E4M3, {N, K}, std::move(cb)), e.name});
        out.push_back({module + ".weight_scale_inv",
                       Tensor::fromFloats({q.layout.gridRows, q.layout.gridCols}, q.scales), e.name});
        written.push_back({module, q.codes, N, K});
        result.quantized.push_back(module);
        if (progress)
            progress(0.8 * static_cast<double>(i + 1) / static_cast<double>(entries.size()));
    }
    if (cancel)
        cancel->check();
    StagedOutput stage(outDir);
    const auto files = stage.writeTensors(ck, out);
    stage.writeConfig(ck, qc);
    result.file = (std::filesystem::path(outDir) / files.front()).string();
    const Checkpoint back = Checkpoint::open(stage.stage());
    const Detection d = detectQuantized(back);
    for (const Written &w : written) {
        const QuantizedModule *qm = d.find(w.module);
        if (!qm || qm->format != QuantFormat::Fp8Block)
            throw FormatError("re-read: " + w.module + " is not detected as FP8 block in the written file");
        const Tensor codes = quantizedCodes(back, *qm);
        if (codes.nbytes() != w.codes.size() || std::memcmp(codes.data(), w.codes.data(), w.codes.size()) != 0)
            throw FormatError("re-read: " + w.module + " codes differ");
        const double bpw =
            8.0 * static_cast<double>(back.find(*qm->part("codes"))->nbytes()) / static_cast<double>(w.rows * w.cols);
        if (bpw != 8.0)
            throw FormatError("re-read: " + w.module + " stores " + std::to_string(bpw) + " bits per code, declared 8");
    }
    stage.commit();
    if (progress)
        progress(1.0);
    return result;
}

} // namespace quantscope
