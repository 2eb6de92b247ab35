// SPDX-License-Identifier: MIT
// The checkpoint writers (one per target) and the one driver that walks the modules
// (checkpoint_writer.h).
#include "export/checkpoint_writer.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <map>
#include <variant>

#include "export/ct_writer.h"
#include "export/fp8block_writer.h"
#include "export/quark_writer.h"
#include "export/staged_output.h"
#include "export/toolkit_rules.h"
#include "io/capture.h"
#include "io/checkpoint.h"
#include "io/native.h"
#include "io/quantized.h"
#include "quant/groupwise.h"
#include "recipe/recipe_check.h"
#include "util/error.h"
#include "util/hash.h"

namespace quantscope {

using nlohmann::json;
using ojson = nlohmann::ordered_json;

void CheckpointWriter::checkModule(const ModulePlan &) const
{
}

namespace {

std::string shapeText(const Shape &s)
{
    std::string t = "[";
    for (std::size_t i = 0; i < s.size(); ++i)
        t += (i ? ", " : "") + std::to_string(s[i]);
    return t + "]";
}

[[noreturn]] void refuseModule(const ModulePlan &p, const std::string &why)
{
    throw UnsupportedError(p.module + " " + shapeText(p.shape) + " (" + p.ruleText + "): " + why);
}

namespace {

/// The spec a result is stored as: GPTQ's codes are an ordinary checkpoint of its target format;
/// AWQ is refused (its checkpoint needs 1/s* folded into the op before the module).
QuantSpec storedSpec(const QuantSpec &spec, const std::string &where)
{
    if (const auto *g = std::get_if<GptqSpec>(&spec))
        return gptqTargetSpec(*g);
    if (std::holds_alternative<AwqSpec>(spec))
        throw UnsupportedError(where + ": method 'awq' — its checkpoint needs 1/s* folded into the op before the "
                                       "module (an RMSNorm weight, up_proj's or v_proj's rows), which this "
                                       "per-module writer does not do; export the recipe for llm-compressor "
                                       "(AWQModifier) or quantize with gptq or int");
    return spec;
}

} // namespace

// ---- Quark real_quantized -------------------------------------------------------------------

class QuarkWriter final : public CheckpointWriter {
public:
    explicit QuarkWriter(ExportOptions o) : m_options(std::move(o)) {}
    ExportFormat format() const override { return ExportFormat::Quark; }
    Shape inputScaleShape() const override { return {}; }
    void checkSpec(const QuantSpec &specIn, const std::string &where) const override
    {
        const QuantSpec spec = storedSpec(specIn, where);
        exportdetail::quarkWeightJson(spec, where); // what the config cannot say
        if (const auto *s = std::get_if<IntSpec>(&spec)) {
            if (s->bits == 4 &&
                (s->granularity == Granularity::Group || (s->granularity == Granularity::Channel && s->axis == 0)))
                return;
        } else if (const auto *p = std::get_if<ProgressiveSpec>(&spec)) {
            const auto *s1 = std::get_if<Fp8Spec>(&p->stage1);
            const auto *s2 = std::get_if<IntSpec>(&p->stage2);
            if (s1 && s1->granularity == Granularity::Tensor && s2 && s2->bits == 4 &&
                s2->granularity == Granularity::Channel && s2->axis == 0)
                return;
        }
        throw UnsupportedError(where + ": method '" + methodOf(spec) +
                               "' — Quark's real_quantized checkpoint layout written here holds INT4 per output "
                               "channel or per group along K, and ProgressiveSpec FP8 per tensor → INT4 per channel");
    }
    void checkModule(const ModulePlan &p) const override
    {
        const QuantSpec stored = storedSpec(p.spec, p.module);
        if (const auto *s = std::get_if<IntSpec>(&stored);
            s && s->granularity == Granularity::Group && p.shape.size() == 2 && p.shape[1] % s->group != 0)
            refuseModule(p, "K = " + std::to_string(p.shape[1]) + " is not a multiple of group " +
                                std::to_string(s->group) +
                                " — Quark's PerGroup observer raises \"not divisible by group_size\"; choose a "
                                "group that divides K or exclude the module");
    }
    ojson config(const Recipe &recipe, const ExportOptions &options,
                 const std::vector<std::string> &modules) const override
    {
        return quarkQuantizationConfig(recipe, options, &modules);
    }
    std::vector<json> toolkitSchemes(const ojson &config, const std::vector<std::string> &modules) const override
    {
        std::vector<json> out;
        for (const auto &m : modules) {
            const auto layer = quarkResolve(config, m, !isEmbeddingModule(m));
            const bool dense = !layer || !layer->contains("weight") || (*layer)["weight"].is_null();
            out.push_back(dense ? json(nullptr) : json((*layer)["weight"]));
        }
        return out;
    }
    json recipeScheme(const QuantSpec &spec, const ExportOptions &) const override
    {
        return exportdetail::quarkWeightJson(spec, "spec");
    }
    QuantSpec runSpec(const QuantSpec &spec) const override
    {
        // Quark multiplies by 1/s (its reciprocal rule): its own run of the same config gives
        // these codes byte for byte.
        if (const auto *s = std::get_if<IntSpec>(&spec)) {
            IntSpec r = *s;
            r.scaleApply = ScaleApply::Reciprocal;
            return r;
        }
        return spec;
    }
    std::vector<std::pair<std::string, Tensor>> moduleTensors(const QuantizedTensor &q,
                                                              const std::string &module) const override
    {
        return quarkModuleTensors(q, module, m_options.packMethod);
    }

private:
    ExportOptions m_options;
};

// ---- compressed-tensors ---------------------------------------------------------------------

class CtWriter final : public CheckpointWriter {
public:
    explicit CtWriter(ExportOptions o) : m_options(std::move(o)) {}
    ExportFormat format() const override { return ExportFormat::CompressedTensors; }
    void checkSpec(const QuantSpec &specIn, const std::string &where) const override
    {
        const QuantSpec spec = storedSpec(specIn, where);
        const json s = exportdetail::ctSchemeJson(spec, m_options, where);
        const std::string f = s["format"];
        if (const auto *i = std::get_if<IntSpec>(&spec)) {
            if (i->granularity == Granularity::Group || (i->granularity == Granularity::Channel && i->axis == 0))
                return;
            throw UnsupportedError(where + ": INT " + toString(i->granularity) + " scales — the " + f +
                                   " writer stores INT per group or per output channel");
        }
        if (f == "float-quantized" || f == "nvfp4-pack-quantized")
            return;
        throw UnsupportedError(where + ": compressed-tensors format " + f +
                               " — the checkpoint writer stores pack-quantized (INT), float-quantized (FP8) and "
                               "nvfp4-pack-quantized");
    }
    void checkModule(const ModulePlan &p) const override
    {
        const std::int64_t N = p.shape[0], K = p.shape[1];
        const QuantSpec stored = storedSpec(p.spec, p.module);
        if (const auto *s = std::get_if<IntSpec>(&stored); s && s->granularity == Granularity::Group && K % s->group)
            refuseModule(p, "K = " + std::to_string(K) + " is not a multiple of group " + std::to_string(s->group) +
                                " — compressed-tensors 0.20 raises \"tensor column shape must be divisble by the "
                                "given group_size\" (quantization/lifecycle/forward_helpers.py) when it quantizes or "
                                "decompresses such groups; choose a group that divides K or exclude the module");
        if (const auto *s = std::get_if<Fp8Spec>(&p.spec);
            s && s->granularity == Granularity::Block && (N % s->block || K % s->block))
            refuseModule(p, "FP8 blocks of " + std::to_string(s->block) +
                                " do not tile it — vLLM's block kernels need K a multiple of the block and "
                                "ragged blocks load with wrong weights; exclude the module or use per-channel FP8");
        if (std::holds_alternative<NvFp4Spec>(p.spec) && K % 16)
            refuseModule(p, "K is not a multiple of NVFP4's 16-element groups");
    }
    ojson config(const Recipe &recipe, const ExportOptions &options,
                 const std::vector<std::string> &modules) const override
    {
        return ojson(compressedTensorsConfig(recipe, options, &modules));
    }
    std::vector<json> toolkitSchemes(const ojson &config, const std::vector<std::string> &modules) const override
    {
        const json q(config);
        const CtResolver resolver(q);
        std::vector<json> out;
        for (const auto &m : modules) {
            const auto group = resolver.resolve(m, !isEmbeddingModule(m));
            if (!group) {
                out.emplace_back(nullptr);
                continue;
            }
            const json &g = q["config_groups"][*group];
            out.push_back(json{
                {"format", g["format"]}, {"input_activations", g["input_activations"]}, {"weights", g["weights"]}});
        }
        return out;
    }
    json recipeScheme(const QuantSpec &spec, const ExportOptions &options) const override
    {
        return exportdetail::ctSchemeJson(spec, options, "spec");
    }
    std::vector<std::pair<std::string, Tensor>> moduleTensors(const QuantizedTensor &q,
                                                              const std::string &module) const override
    {
        return ctModuleTensors(q, module, m_options.ctIntFormat == "int-quantized");
    }
    int storedCodeBits(const QuantizedTensor &q) const override
    {
        return q.method == "int" && m_options.ctIntFormat == "int-quantized" ? 8 : q.codeBits; // one I8 a code
    }

private:
    ExportOptions m_options;
};

// ---- FP8 block (Hugging Face fine-grained FP8) ----------------------------------------------

class Fp8BlockWriter final : public CheckpointWriter {
public:
    ExportFormat format() const override { return ExportFormat::Fp8Block; }
    bool storesInputScales() const override { return false; }
    void checkSpec(const QuantSpec &spec, const std::string &where) const override
    {
        const auto *f = std::get_if<Fp8Spec>(&spec);
        if (!f || f->format != Fp8Format::E4M3 || f->granularity != Granularity::Block)
            throw UnsupportedError(where +
                                   ": the FP8 block layout holds FP8 E4M3 per square block (method fp8, "
                                   "granularity block); this is " +
                                   methodOf(spec));
    }
    void checkModule(const ModulePlan &p) const override
    {
        const auto &f = std::get<Fp8Spec>(p.spec);
        if (p.shape[0] % f.block || p.shape[1] % f.block)
            refuseModule(p, "FP8 blocks of " + std::to_string(f.block) +
                                " do not tile it — transformers' FineGrainedFP8 refuses it (\"not divisible by "
                                "scale grid\"); exclude the module or choose a block that divides both dimensions");
    }
    ojson config(const Recipe &recipe, const ExportOptions &options, const std::vector<std::string> &) const override
    {
        return ojson(fp8BlockConfig(recipe, options));
    }
    std::vector<json> toolkitSchemes(const ojson &config, const std::vector<std::string> &modules) const override
    {
        // transformers replaces nn.Linear layers only, and skips a module when any
        // modules_to_not_convert entry is a substring of its name; every other Linear gets the
        // one block scheme.
        const json block{{"block", json(config["weight_block_size"])}};
        const ojson skip = config.value("modules_to_not_convert", ojson::array());
        std::vector<json> out;
        for (const auto &m : modules) {
            bool dense = isEmbeddingModule(m);
            for (const auto &e : skip)
                dense = dense || m.find(e.get<std::string>()) != std::string::npos;
            out.push_back(dense ? json(nullptr) : block);
        }
        return out;
    }
    json recipeScheme(const QuantSpec &spec, const ExportOptions &) const override
    {
        const auto &f = std::get<Fp8Spec>(spec);
        return json{{"block", json::array({f.block, f.block})}};
    }
    std::vector<std::pair<std::string, Tensor>> moduleTensors(const QuantizedTensor &q,
                                                              const std::string &module) const override
    {
        if (q.method != "fp8" || q.codeDtype != DType::F8_E4M3 || q.layout.granularity != Granularity::Block)
            throw UnsupportedError(module + ": the FP8 block layout holds FP8 E4M3 block results");
        std::vector<std::byte> cb(q.codes.size());
        std::memcpy(cb.data(), q.codes.data(), cb.size());
        std::vector<std::pair<std::string, Tensor>> out;
        out.emplace_back(module + ".weight",
                         Tensor::fromBytes(DType::F8_E4M3, {q.layout.rows, q.layout.cols}, std::move(cb)));
        out.emplace_back(module + ".weight_scale_inv",
                         Tensor::fromFloats({q.layout.gridRows, q.layout.gridCols}, q.scales));
        return out;
    }
};

// ---- Quantscope's native layout ------------------------------------------------------------

/// Every method the engine runs, its exact result stored per module (io/native.h): the spec of
/// each module is in the file's metadata, so nothing is resolved from config.json.
class NativeWriter final : public CheckpointWriter {
public:
    ExportFormat format() const override { return ExportFormat::Quantscope; }
    bool storesInputScales() const override { return false; }
    void checkSpec(const QuantSpec &spec, const std::string &where) const override
    {
        try {
            (void)makeQuantizer(spec); // whatever the engine runs, the native layout stores
        } catch (const Error &e) {
            throw UnsupportedError(where + ": " + e.what());
        }
    }
    /// A marker only: transformers refuses an unknown quant_method by name instead of loading
    /// the checkpoint as dense with its weights missing; our readers take the modules and their
    /// specs from each file's metadata.
    ojson config(const Recipe &, const ExportOptions &, const std::vector<std::string> &) const override
    {
        return ojson{{"quant_method", "quantscope"}, {"format", "quantscope-native"}, {"version", kNativeVersion}};
    }
    std::vector<json> toolkitSchemes(const ojson &, const std::vector<std::string> &) const override
    {
        return {}; // schemesFromConfig() is false: checked on the re-read instead
    }
    json recipeScheme(const QuantSpec &spec, const ExportOptions &) const override { return toJson(spec); }
    std::vector<std::pair<std::string, Tensor>> moduleTensors(const QuantizedTensor &q,
                                                              const std::string &module) const override
    {
        return nativeModule(q, module).tensors;
    }
    ModuleOutput moduleOutput(const QuantizedTensor &q, const std::string &module) const override
    {
        NativeModule m = nativeModule(q, module);
        return {std::move(m.tensors), std::move(m.metadata)};
    }
    std::map<std::string, std::string> fileMetadata(const ojson &modules) const override
    {
        return {{"quantscope", nativeMetadata(modules)}};
    }
    bool schemesFromConfig() const override { return false; }
    bool servingLoaderRules() const override { return false; }
    int storedCodeBits(const QuantizedTensor &q) const override
    {
        return q.codeBits <= 4 ? 4 : 8; // nibble pairs, else one byte a code
    }
};

/// Ŵ's digest with every NaN counted as one value (payloads may differ between paths).
std::uint64_t digestOf(std::span<const float> v)
{
    std::uint64_t h = kFnv1aBasis;
    constexpr std::uint32_t kNan = 0x7FC00000u;
    for (float f : v) {
        std::uint32_t bits;
        std::memcpy(&bits, &f, 4);
        if (std::isnan(f))
            bits = kNan;
        h = fnv1a64(&bits, 4, h);
    }
    return h;
}

std::string schemeText(const json &s)
{
    return s.is_null() ? std::string("dense (not quantized)") : s.dump();
}

} // namespace

std::vector<std::pair<std::string, Shape>> weightModules(const Checkpoint &ck)
{
    std::vector<std::pair<std::string, Shape>> out;
    for (const TensorEntry &e : ck.entries())
        if (e.name.size() > 7 && e.name.ends_with(".weight") && e.shape.size() == 2 &&
            (e.dtype == DType::F32 || e.dtype == DType::BF16 || e.dtype == DType::F16))
            out.emplace_back(moduleOf(e.name), e.shape);
    return out;
}

bool writesCheckpoints(ExportFormat f) noexcept
{
    return f == ExportFormat::Quark || f == ExportFormat::CompressedTensors || f == ExportFormat::Fp8Block ||
           f == ExportFormat::Quantscope;
}

std::unique_ptr<CheckpointWriter> makeCheckpointWriter(ExportFormat format, const ExportOptions &options)
{
    switch (format) {
    case ExportFormat::Quark:
        return std::make_unique<QuarkWriter>(options);
    case ExportFormat::CompressedTensors:
        return std::make_unique<CtWriter>(options);
    case ExportFormat::Fp8Block:
        return std::make_unique<Fp8BlockWriter>();
    case ExportFormat::Quantscope:
        return std::make_unique<NativeWriter>();
    default:
        break;
    }
    throw UnsupportedError(
        "'" + std::string(toString(format)) +
        "' is a config format; checkpoints are written as quark, compressed-tensors, fp8-block or quantscope");
}

bool targetCanWrite(ExportFormat format, const QuantSpec &spec, std::string *why)
{
    try {
        makeCheckpointWriter(format)->checkSpec(spec, methodOf(spec));
        return true;
    } catch (const UnsupportedError &e) {
        if (why)
            *why = e.what();
        return false;
    }
}

CheckpointExportResult exportCheckpoint(const std::string &checkpoint, const Recipe &recipeIn, ExportFormat format,
                                        const std::string &outDir, const ExportOptions &options,
                                        const CheckpointExportControl &control)
{
    const auto writer = makeCheckpointWriter(format, options);
    const std::string target(toString(format));
    auto progress = [&](double f, const std::string &what) {
        if (control.progress)
            control.progress(std::clamp(f, 0.0, 1.0), what);
    };
    auto checkCancel = [&] {
        if (control.cancel)
            control.cancel->check();
    };
    const bool staticInputs = options.activations == ActivationScheme::Fp8Static;
    if (staticInputs && !writer->storesInputScales())
        throw UnsupportedError("activations fp8-static: the " + target + " layout stores no input scales");
    if (staticInputs && !control.capture)
        throw UnsupportedError("activations fp8-static: static input scales come from calibration data, and this "
                               "export has none — a checkpoint that declares them without `input_scale` tensors "
                               "loads with NaN outputs (transformers) or is refused (Quark). Give a capture of the "
                               "model's activations (--capture CAP.safetensors, from quantscope-cli capture), use "
                               "--activations fp8-dynamic, or export the recipe as an llm-compressor recipe or a "
                               "Quark script, which calibrate");
    const Checkpoint ck = Checkpoint::open(checkpoint);
    CheckpointExportResult result;

    // 1. The modules (2-D float weights), the defaults, the recipe's resolution.
    const std::vector<std::pair<std::string, Shape>> shapes = weightModules(ck);
    std::vector<std::string> modules;
    for (const auto &s : shapes)
        modules.push_back(s.first);
    const Recipe recipe = options.defaultExcludes ? withDefaultExcludes(recipeIn, &shapes) : recipeIn;
    std::map<std::string, ModulePlan> plans;
    std::map<std::string, json> recipeSchemes; // module → the scheme the recipe means (null: dense)
    for (const auto &[module, shape] : shapes) {
        const RecipeMatch m = matchModule(recipe, module);
        if (options.defaultExcludes && m.excluded) {
            const RecipeMatch own = matchModule(recipeIn, module);
            if (own.matched())
                result.notes.push_back(module + ": kept dense by default — " + defaultExcludeReason(module, shape) +
                                       " (--no-default-excludes quantizes it)");
        }
        if (!m.matched()) {
            recipeSchemes[module] = nullptr;
            continue;
        }
        if (isEmbeddingModule(module)) {
            if (options.defaultExcludes) { // matched by the catch-all only (withDefaultExcludes)
                result.notes.push_back(module + ": kept dense by default — " + defaultExcludeReason(module, shape) +
                                       " (--no-default-excludes and a rule naming it quantize it)");
                recipeSchemes[module] = nullptr;
                continue;
            }
        }
        if (m.specs.size() != 1)
            throw UnsupportedError(module + ": " + m.why + " gives " + std::to_string(m.specs.size()) +
                                   " specs (candidates a scan compares); an export needs the one chosen");
        ModulePlan p{module, module + ".weight", shape, m.specs.front(), m.why};
        writer->checkSpec(p.spec, module + " (" + m.why + ")");
        if (isEmbeddingModule(module))
            refuseModule(p, "an embedding — " + target + " quantizes Linear layers; exclude it");
        writer->checkModule(p);
        recipeSchemes[module] = writer->recipeScheme(p.spec, options);
        plans.emplace(module, std::move(p));
    }
    if (plans.empty())
        throw UnsupportedError("the recipe quantizes no module of " + checkpoint +
                               (options.defaultExcludes ? " (after the default exclusions)" : "") +
                               ": nothing would be exported");

    // Static input scales: every quantized module's inputs must be in the capture.
    std::map<std::string, float> inputAbsmax;
    if (staticInputs) {
        for (const auto &[module, p] : plans) {
            if (!control.capture->module(module))
                throw UnsupportedError(module + ": the capture " + control.capture->path().string() +
                                       " holds no inputs of this module, so it has no static input scale");
            checkCaptureShape(*control.capture, module, p.shape);
            const double a = control.capture->inputStats(module).tensorAbsmax();
            if (!(a > 0) || !std::isfinite(a))
                throw UnsupportedError(module + ": its captured inputs are " + (a > 0 ? "not finite" : "all zero") +
                                       " — no static input scale can be derived");
            inputAbsmax[module] = static_cast<float>(a);
        }
    }

    // 2. Fused members share one scheme (vLLM fuses q/k/v, gate/up and a layer's experts).
    std::map<std::string, std::vector<std::string>> fused;
    for (const auto &m : modules)
        if (const std::string g = fusionGroupOf(m); !g.empty())
            fused[g].push_back(m);
    if (!writer->servingLoaderRules())
        fused.clear(); // a serving engine's rule; the native layout is read by our own reader
    for (const auto &[g, members] : fused)
        for (const auto &m : members)
            if (recipeSchemes[m] != recipeSchemes[members.front()])
                throw UnsupportedError("fused group " + g + ": " + members.front() + " is " +
                                       schemeText(recipeSchemes[members.front()]) + " but " + m + " is " +
                                       schemeText(recipeSchemes[m]) +
                                       " — serving engines (vLLM, SGLang) fuse these into one layer with one "
                                       "scheme and refuse the checkpoint; give the group one spec");

    // 3. The config, and every module as the toolkit's own rule resolves it.
    const ojson qc = writer->config(recipe, options, modules);
    // (A target that stores each module's scheme with it is checked on the re-read instead.)
    const std::vector<json> resolved =
        writer->schemesFromConfig() ? writer->toolkitSchemes(qc, modules) : std::vector<json>();
    for (std::size_t i = 0; i < resolved.size(); ++i) {
        const std::string &m = modules[i];
        const json &got = resolved[i];
        const json &want = recipeSchemes[m];
        if (got != want) {
            const auto it = plans.find(m);
            throw UnsupportedError(m + ": the recipe gives " + schemeText(want) +
                                   (it != plans.end() ? " (" + it->second.ruleText + ")" : std::string()) + " but " +
                                   target + " would read the written config as " + schemeText(got) +
                                   " — the config cannot express this precedence; refusing rather than writing a "
                                   "checkpoint the toolkit reads differently");
        }
    }

    // 4. Quantize every module through the engine (the GPU when present).
    std::map<std::string, float> groupAmax; // NVFP4: one global scale per fused group
    for (const auto &[module, p] : plans)
        if (std::holds_alternative<NvFp4Spec>(p.spec))
            if (const std::string g = sharedScaleGroupOf(module); !g.empty()) {
                checkCancel();
                const float a = detail::finiteAbsMax(ck.tensor(p.tensor), control.threads, control.cancel);
                groupAmax[g] = std::max(groupAmax.count(g) ? groupAmax[g] : 0.0f, a);
            }
    std::uint64_t totalBytes = 0, doneBytes = 0;
    for (const TensorEntry &e : ck.entries())
        totalBytes += e.nbytes();
    std::vector<OutTensor> out;
    struct Written {
        std::string module;
        std::uint64_t digest;
        std::int64_t numel;
        int bits;  // per code as stored (CheckpointWriter::storedCodeBits)
        json spec; // the spec the quantizer ran (schemesFromConfig() false: compared with the stored one)
    };
    std::vector<Written> written;
    std::map<std::string, std::string> moduleOfOut; // output tensor → its module (metadata entries)
    std::map<std::string, ojson> moduleMeta;        // module → its file metadata entry
    bool headQuantized = false;
    for (const TensorEntry &e : ck.entries()) {
        checkCancel();
        const std::string module = moduleOf(e.name);
        const auto it = e.name.ends_with(".weight") ? plans.find(module) : plans.end();
        if (it == plans.end() || it->second.tensor != e.name) {
            out.push_back({e.name, ck.tensor(e.name), e.name});
            ++result.copied;
        } else {
            const ModulePlan &p = it->second;
            progress(0.85 * static_cast<double>(doneBytes) /
                         static_cast<double>(std::max<std::uint64_t>(totalBytes, 1)),
                     "quantizing " + module);
            RunOptions ro;
            ro.device = control.device;
            ro.metrics = false;
            ro.quantize.threads = control.threads;
            ro.quantize.wantCodes = true;
            ro.quantize.wantDequantized = true;
            ro.quantize.tensorName = e.name;
            if (std::holds_alternative<GptqSpec>(p.spec) || std::holds_alternative<AwqSpec>(p.spec)) {
                if (!control.capture) // before anything is written: the data-aware methods need inputs
                    throw UnsupportedError(needsCaptureMessage(methodOf(p.spec), e.name));
                ro.quantize.calibration = std::make_shared<const Calibration>(calibrationOf(*control.capture, module));
            }
            if (std::holds_alternative<NvFp4Spec>(p.spec))
                if (const auto g = groupAmax.find(sharedScaleGroupOf(module)); g != groupAmax.end())
                    ro.quantize.tensorAmax = g->second;
            QuantizeRun run = runQuantize(ck.tensor(e.name), writer->runSpec(p.spec), ro, control.cancel);
            if (result.device.empty())
                result.device = run.device;
            const QuantizedTensor &q = run.quantized;
            CheckpointWriter::ModuleOutput mo = writer->moduleOutput(q, module);
            for (auto &[name, t] : mo.tensors) {
                if (!mo.metadata.is_null())
                    moduleOfOut[name] = module;
                out.push_back({name, std::move(t), e.name});
            }
            if (staticInputs) { // min-max observer, per tensor: max |x| / FP8 E4M3's largest value
                const float scale = inputAbsmax.at(module) / 448.0f;
                const Shape shape = writer->inputScaleShape();
                out.push_back({module + ".input_scale", Tensor::fromFloats(shape, std::vector<float>{scale}), e.name});
            }
            if (!mo.metadata.is_null())
                moduleMeta[module] = std::move(mo.metadata);
            written.push_back({module, digestOf(q.dequantized), q.numel(), writer->storedCodeBits(q),
                               toJson(writer->runSpec(p.spec))});
            result.quantized.push_back(module);
            if (module == "lm_head" || module.ends_with(".lm_head"))
                headQuantized = true;
        }
        doneBytes += e.nbytes();
    }

    // 5. Staged, re-read, renamed.
    checkCancel();
    progress(0.85, "writing " + outDir);
    StagedOutput staged(outDir);
    // Each file's metadata lists the modules stored in it (per shard).
    const auto fileMeta = [&](const std::vector<const OutTensor *> &held) {
        ojson entries = ojson::object();
        for (const OutTensor *t : held)
            if (const auto it = moduleOfOut.find(t->name); it != moduleOfOut.end() && !entries.contains(it->second))
                entries[it->second] = moduleMeta.at(it->second);
        std::map<std::string, std::string> meta = writer->fileMetadata(entries);
        if (staticInputs)
            meta["quantscope.input_scales"] = "per-tensor min-max (max |x| / 448) over the capture " +
                                              control.capture->path().string() + " (" +
                                              std::to_string(control.capture->tokens()) + " tokens, input sha256 " +
                                              control.capture->meta("input_sha256") + ")";
        return meta;
    };
    const auto files = staged.writeTensors(
        ck, out, [&](double f) { progress(0.85 + 0.1 * f, "writing " + outDir); }, fileMeta);
    const bool tied = ck.config().is_object() && ck.config().value("tie_word_embeddings", false);
    staged.writeConfig(ck, qc, headQuantized && tied);
    if (headQuantized && tied)
        result.notes.push_back("lm_head is quantized: config.json's tie_word_embeddings set to false (transformers "
                               "would otherwise tie it back to the dense embeddings)");
    result.file = (std::filesystem::path(outDir) / files.front()).string();
    const Checkpoint back = Checkpoint::open(staged.stage());
    const Detection d = detectQuantized(back);
    for (const Written &w : written) {
        checkCancel();
        const QuantizedModule *qm = d.find(w.module);
        if (!qm)
            throw FormatError("re-read: " + w.module + " is not detected as quantized in the written file");
        const Tensor wHat = decodeQuantized(back, *qm);
        std::vector<float> got(static_cast<std::size_t>(wHat.numel()));
        wHat.decodeTo(got);
        if (static_cast<std::int64_t>(got.size()) != w.numel || digestOf(got) != w.digest)
            throw FormatError("re-read: " + w.module + " decodes to other values than the quantizer's Ŵ");
        if (const std::string *cp = qm->part("codes")) {
            const double bpw = 8.0 * static_cast<double>(back.find(*cp)->nbytes()) / static_cast<double>(w.numel);
            if (bpw < w.bits || bpw > w.bits * 1.5)
                throw FormatError("re-read: " + w.module + " stores " + std::to_string(bpw) +
                                  " bits per code, declared " + std::to_string(w.bits));
        }
    }
    if (!writer->schemesFromConfig()) {
        // The scheme of each module is the one stored with it: the recipe's for every written
        // module, and no other module reads back as quantized.
        std::map<std::string, const Written *> byModule;
        for (const Written &w : written)
            byModule[w.module] = &w;
        for (const QuantizedModule &qm : d.modules) {
            const auto it = byModule.find(qm.module);
            if (it == byModule.end())
                throw FormatError("re-read: " + qm.module + " reads back as quantized, but the recipe keeps it dense");
            const json stored = toJson(parseQuantSpec(readNative(back, qm.module).spec));
            if (stored != it->second->spec)
                throw FormatError("re-read: " + qm.module + " stores the spec " + stored.dump() +
                                  ", the recipe gives " + it->second->spec.dump());
        }
    }
    staged.commit();
    progress(1.0, "wrote " + outDir);
    return result;
}

} // namespace quantscope
