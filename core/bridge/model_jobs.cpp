// SPDX-License-Identifier: MIT
#include "bridge/model_jobs.h"

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <map>
#include <system_error>

#include "bridge/replacements.h"
#include "io/capture.h"
#include "io/checkpoint.h"
#include "recipe/recipe.h"
#include "util/error.h"

namespace quantscope {

namespace fs = std::filesystem;

namespace {

/// A private temporary folder, removed with everything in it when it goes out of scope.
class TempDir {
public:
    TempDir()
    {
        std::string tmpl = (fs::temp_directory_path() / "quantscope-eval-XXXXXX").string();
        if (::mkdtemp(tmpl.data()) == nullptr)
            throw IoError("cannot create a temporary folder", Location{tmpl, {}, {}});
        m_path = tmpl;
    }
    ~TempDir()
    {
        std::error_code ec;
        fs::remove_all(m_path, ec);
    }
    TempDir(const TempDir &) = delete;
    TempDir &operator=(const TempDir &) = delete;
    const fs::path &path() const { return m_path; }

private:
    fs::path m_path;
};

std::vector<std::string> inputArgs(const ModelInput &in)
{
    if (in.text.empty() == in.tokens.empty())
        throw UnsupportedError("give the calibration data as --text FILE or --tokens FILE.npy (one of them)");
    std::vector<std::string> a{in.model};
    if (!in.ggufFile.empty())
        a.insert(a.end(), {"--gguf-file", in.ggufFile});
    if (!in.text.empty())
        a.insert(a.end(), {"--text", in.text});
    else
        a.insert(a.end(), {"--tokens", in.tokens});
    a.insert(a.end(), {"--samples", std::to_string(in.samples), "--seq", std::to_string(in.seq), "--device",
                       in.device == DeviceChoice::Gpu   ? "cuda"
                       : in.device == DeviceChoice::Cpu ? "cpu"
                                                        : "auto",
                       "--dtype", in.dtype});
    return a;
}

BridgeProgress bridgeProgress(const ModelProgress &progress, double from, double to)
{
    if (!progress)
        return {};
    return [progress, from, to](double done, double total, const std::string &what) {
        progress(from + (to - from) * (total > 0 ? done / total : 0.0), what);
    };
}

nlohmann::ordered_json toOrdered(const nlohmann::json &j)
{
    return nlohmann::ordered_json::parse(j.dump());
}

} // namespace

std::string transformersWeightsFile(const std::string &model)
{
    std::error_code ec;
    const fs::path p(model);
    if (!fs::is_directory(p, ec) || fs::exists(p / "model.safetensors.index.json", ec))
        return model;
    if (fs::exists(p / "model.safetensors", ec))
        return (p / "model.safetensors").string();
    return model;
}

bool modelNeedsWeightExport(const std::string &model)
{
    std::error_code ec;
    const fs::path p(model);
    if (fs::is_regular_file(p, ec))
        return p.extension() == ".gguf";
    if (!fs::is_directory(p, ec))
        return false;
    bool gguf = false, st = false;
    for (const auto &e : fs::directory_iterator(p, ec)) {
        gguf = gguf || e.path().extension() == ".gguf";
        st = st || e.path().extension() == ".safetensors" || e.path().filename() == "model.safetensors.index.json";
    }
    return gguf && !st;
}

nlohmann::json runCapture(const BridgeConfig &bridge, const CaptureRequest &r, const CancelToken *cancel,
                          const ModelProgress &progress)
{
    if (r.out.empty())
        throw UnsupportedError("capture needs --out CAP.safetensors");
    std::vector<std::string> args{"capture"};
    const auto in = inputArgs(r.input);
    args.insert(args.end(), in.begin(), in.end());
    args.insert(args.end(), {"--gram-max", std::to_string(r.gramMax), "--rows", std::to_string(r.rows), "--kv-tokens",
                             std::to_string(r.kvTokens), "--q-rows", std::to_string(r.qRows), "--seed",
                             std::to_string(r.seed), "--out", r.out});
    nlohmann::json result = runBridge(bridge, args, cancel, bridgeProgress(progress, 0.0, 1.0));
    try {
        (void)Capture::open(r.out);
    } catch (const Error &e) {
        std::error_code ec;
        fs::remove(r.out, ec);
        throw FormatError("the bridge wrote a capture this build cannot read (removed): " + e.message(),
                          Location{r.out, {}, {}});
    }
    return result;
}

nlohmann::ordered_json runEval(const BridgeConfig &bridge, const EvalRequest &r, const CancelToken *cancel,
                               const ModelProgress &progress)
{
    if (r.recipe.empty() == r.checkpoint.empty())
        throw UnsupportedError("eval needs --recipe R.json or --checkpoint EXPORTED (one of them)");
    (void)inputArgs(r.input); // refuse a bad input before any work
    TempDir tmp;
    const auto say = [&](double f, const std::string &what) {
        if (progress)
            progress(f, what);
    };

    std::optional<Capture> capture;
    if (!r.capture.empty())
        capture = Capture::open(r.capture);
    ReplacementControl control;
    control.device = r.quantizeDevice;
    control.threads = r.threads;
    control.cancel = cancel;
    control.capture = capture ? &*capture : nullptr;
    control.progress = [&](double f, const std::string &what) { say(0.10 + 0.15 * f, what); };

    const fs::path replace = tmp.path() / "replace.safetensors";
    // The original weights: read directly, or for a GGUF model as transformers loads them
    // (dequantized), exported once by the bridge.
    std::string weightsPath = transformersWeightsFile(r.input.model);
    if (modelNeedsWeightExport(r.input.model) && (!r.recipe.empty() || capture)) {
        weightsPath = (tmp.path() / "weights.safetensors").string();
        std::vector<std::string> args{"weights", r.input.model};
        if (!r.input.ggufFile.empty())
            args.insert(args.end(), {"--gguf-file", r.input.ggufFile});
        args.insert(args.end(), {"--dtype", "f32", "--out", weightsPath});
        say(0.0, "reading the model's weights through transformers");
        (void)runBridge(bridge, args, cancel, bridgeProgress(progress, 0.0, 0.10));
    }
    ReplacementSet set;
    if (!r.recipe.empty()) {
        set = writeRecipeReplacements(Checkpoint::open(weightsPath), Recipe::load(r.recipe), replace, control);
    } else {
        std::optional<Checkpoint> original; // the decoded Ŵ against the original W
        if (capture) {
            original = Checkpoint::open(weightsPath);
            control.original = &*original;
        }
        set = writeCheckpointReplacements(Checkpoint::open(r.checkpoint), replace, control);
    }

    std::vector<std::string> args{"eval"};
    const auto in = inputArgs(r.input);
    args.insert(args.end(), in.begin(), in.end());
    args.insert(args.end(), {"--replace", replace.string()});
    if (r.perLayer) {
        args.push_back("--per-layer");
        if (r.perLayerSamples > 0)
            args.insert(args.end(), {"--per-layer-samples", std::to_string(r.perLayerSamples)});
    }
    nlohmann::ordered_json report = toOrdered(runBridge(bridge, args, cancel, bridgeProgress(progress, 0.25, 1.0)));
    report.erase("event");
    report["recipe"] = r.recipe.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(r.recipe);
    report["checkpoint"] =
        r.checkpoint.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(r.checkpoint);
    report["capture"] = r.capture.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(r.capture);
    report["quantize_device"] = set.device;
    report["notes"] = set.notes;

    // Each module: what we did to it, what it costs on the captured inputs, what it measured.
    std::map<std::string, nlohmann::ordered_json> perLayer;
    if (report.contains("per_layer") && report["per_layer"].is_array())
        for (const auto &l : report["per_layer"])
            if (l.contains("module") && l["module"].is_string())
                perLayer[l["module"].get<std::string>()] = l;
    nlohmann::ordered_json modules = nlohmann::ordered_json::array();
    for (const ReplacedModule &m : set.modules) {
        nlohmann::ordered_json j;
        j["module"] = m.module;
        j["scheme"] = m.scheme;
        j["spec"] = m.spec.is_null() ? nlohmann::ordered_json(nullptr) : toOrdered(m.spec);
        j["rel_frobenius"] = std::isfinite(m.relFrobenius) ? nlohmann::ordered_json(m.relFrobenius) : nullptr;
        j["mse"] = std::isfinite(m.mse) ? nlohmann::ordered_json(m.mse) : nullptr;
        j["bytes"] = m.bytes;
        j["numel"] = m.numel;
        j["output_error"] = m.outputError ? nlohmann::ordered_json(m.outputError->error) : nullptr;
        j["output_error_rel"] = m.outputError ? nlohmann::ordered_json(m.outputError->relative) : nullptr;
        const auto it = perLayer.find(m.module);
        j["kl"] = it != perLayer.end() ? it->second.value("kl", nlohmann::ordered_json(nullptr)) : nullptr;
        j["top1"] = it != perLayer.end() ? it->second.value("top1", nlohmann::ordered_json(nullptr)) : nullptr;
        modules.push_back(std::move(j));
    }
    report["modules"] = std::move(modules);
    return report;
}

} // namespace quantscope
