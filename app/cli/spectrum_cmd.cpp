// SPDX-License-Identifier: MIT
// `quantscope-cli spectrum`: singular values of the residual E = W − Ŵ of one tensor under a
// quantizer (or of W itself without one), with the fields of docs/numerics.md "Metrics".
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>

#include <nlohmann/json.hpp>

#include <CLI/CLI.hpp>

#include "cli.h"
#include "io/checkpoint.h"
#include "io/weight_reader.h"
#include "json/report_json.h"
#include "metrics/spectrum.h"
#include "util/error.h"

namespace quantscope::cli {

namespace {

struct SpectrumArgs {
    std::string path;
    std::optional<std::string> tensorName, top, powerIters, oversample, tau;
    QuantizerOptions quantizer;
};

int runSpectrum(const SpectrumArgs &o, const CommonOptions &common)
{
    const bool json = common.json;
    const auto &tensorName = o.tensorName;
    SpectrumOptions so;
    if (o.top)
        so.top = static_cast<int>(toInt("--top", *o.top));
    if (o.powerIters)
        so.powerIters = static_cast<int>(toInt("--power-iters", *o.powerIters));
    if (o.oversample)
        so.oversample = static_cast<int>(toInt("--oversample", *o.oversample));
    if (o.tau)
        so.tau = toReal("--tau", *o.tau);
    if (so.top < 0 || so.powerIters < 0 || so.oversample < 0)
        throw UsageError("--top, --power-iters and --oversample must be ≥ 0");
    if (!(so.tau > 0.0 && so.tau <= 1.0))
        throw UsageError("--tau must be in (0, 1]");
    ReadOptions rd;
    rd.lenient = common.lenient;
    const bool quiet = common.quiet;
    QuantizeJobRequest request;
    request.metrics = false;
    request.profileChannels = false;
    request.device = common.deviceChoice();
    const bool quantized = o.quantizer.method || o.quantizer.specFile;
    // --seed is the schema's (MiLo's SVD seed, which is also the sketch's); with another method
    // or none it is the sketch's seed alone.
    QuantizerOptions quantizer = o.quantizer;
    std::optional<std::string> sketchSeed;
    const nlohmann::json base = quantized ? quantizer.baseSpec() : nlohmann::json(); // reads --spec once
    const std::string method = quantized && base["method"].is_string() ? base["method"].get<std::string>() : "";
    const SpecFlag *seedFlag = nullptr;
    for (const auto &f : specFlags())
        if (f.name == "--seed")
            seedFlag = &f;
    if (!seedFlag || !seedFlag->targetFor(method)) {
        for (auto it = quantizer.given.begin(); it != quantizer.given.end();)
            if (it->name == "--seed") {
                sketchSeed = it->value;
                it = quantizer.given.erase(it);
            } else {
                ++it;
            }
    }
    if (quantizer.imatrixFile)
        throw UsageError("--imatrix FILE (llama.cpp's importance matrix) is read by quantize and sweep, not spectrum");
    if (!quantized && !quantizer.given.empty())
        throw UsageError(quantizer.given.front().name + " is a quantizer option: give --method (or --spec) with it");
    std::optional<QuantSpec> typed;
    nlohmann::json spec;
    if (quantized) {
        typed = quantizer.build(base);
        spec = toJson(*typed);
    }
    if (sketchSeed)
        so.seed = static_cast<std::uint64_t>(toInt("--seed", *sketchSeed));
    else if (spec.is_object() && spec.contains("seed"))
        so.seed = spec["seed"].get<std::uint64_t>();
    const std::vector<std::string> pos{o.path};

    const WeightReader weights = openWeights(pos[0], rd, *tensorName);
    const Tensor w = weights.read(*tensorName);
    const auto [rows, cols] = matrixView(w.shape());
    std::string device = "cpu", note;
    const auto t0 = std::chrono::steady_clock::now();
    request.spectrum = so;
    if (typed)
        request.specs = {JobSpec::typed(methodOf(*typed), *typed)};
    const QuantizeJobResult result = runCliJob(weights, *tensorName, std::move(request), quiet);
    if (typed) {
        device = result.outcomes.front().device;
        note = result.outcomes.front().deviceNote;
    }
    if (!note.empty())
        std::fprintf(stderr, "note: %s\n", note.c_str());
    const Spectrum &s = typed ? *result.outcomes.front().spectrum : *result.tensors.front().spectrum;
    if (!s.deviceNote.empty())
        std::fprintf(stderr, "note: spectrum: %s\n", s.deviceNote.c_str());
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();

    nlohmann::ordered_json out;
    out["tensor"] = *tensorName;
    out["shape"] = w.shape();
    out["residual_of"] = quantized ? nlohmann::ordered_json(spec) : nlohmann::ordered_json(nullptr);
    out["device"] = device;
    out["sigma"] = s.sigma;
    out["complete"] = s.complete;
    out["algorithm"] = s.algorithm;
    out["spectrum_device"] = s.device;
    if (!s.deviceNote.empty())
        out["spectrum_device_note"] = s.deviceNote;
    out["tau"] = s.tau;
    out["n_sigma_ge_tau"] = s.nSigmaGeTau;
    out["n_sigma_ge_tau_exact"] = s.nSigmaGeTauExact;
    out["n_sigma_lt_tau"] = s.nSigmaLtTau;
    out["derived"] = s.derived;
    out["fro_norm"] = s.froNorm;
    out["energy_top"] = s.energyTop;
    out["err_after_rank"] = s.errAfterRank;
    if (!s.complete) {
        out["power_iters"] = so.powerIters;
        out["oversample"] = so.oversample;
        out["seed"] = so.seed;
    }
    out["time_ms"] = ms;
    if (json) {
        std::cout << out.dump(1) << '\n';
        return 0;
    }
    std::printf("%s  %s  residual of %s  (%.1f ms, %s)\n", tensorName->c_str(),
                (std::to_string(rows) + "x" + std::to_string(cols)).c_str(),
                quantized ? spec.dump().c_str() : "nothing (W itself)", ms, s.algorithm.c_str());
    std::printf("  ‖E‖_F %.6g   σ1 %.6g   %s%lld σ ≥ %.3g·σ1, %lld below%s\n", s.froNorm,
                s.sigma.empty() ? 0.0 : s.sigma.front(), s.nSigmaGeTauExact ? "" : "≥ ",
                static_cast<long long>(s.nSigmaGeTau), s.tau, static_cast<long long>(s.nSigmaLtTau),
                s.derived ? " (derived from the top k)" : "");
    for (std::size_t r : {1ul, 2ul, 4ul, 8ul, 16ul, 32ul, 64ul, 128ul}) {
        if (r > s.sigma.size())
            break;
        std::printf("  rank %4zu: σ %.6g   energy %.4f   error after compensation %.6g\n", r, s.sigma[r - 1],
                    s.energyTop[r - 1], s.errAfterRank[r - 1]);
    }
    return 0;
}

} // namespace

void addSpectrumCommand(Commands &c)
{
    auto o = std::make_shared<SpectrumArgs>();
    CLI::App *cmd = c.add("spectrum",
                          "singular values of the residual W − Ŵ of one tensor under a quantizer (of W itself "
                          "without --method)",
                          [o, &c] { return runSpectrum(*o, c.common()); });
    cmd->add_option("PATH", o->path, "the checkpoint")->required();
    cmd->add_option("--tensor", o->tensorName, "the weight")->type_name("NAME")->required();
    cmd->add_option("--top", o->top, "the top K singular values (0: all, exact)")->type_name("K");
    cmd->add_option("--power-iters", o->powerIters, "power iterations of the randomized sketch")->type_name("P");
    cmd->add_option("--oversample", o->oversample, "oversampling of the randomized sketch")->type_name("O");
    cmd->add_option("--tau", o->tau, "count σ ≥ τ·σ1, τ in (0, 1]")->type_name("T");
    c.addCommon(cmd, kJson | kQuiet | kDevice | kThreads | kLenient);
    addQuantizerOptions(cmd, o->quantizer);
    cmd->footer(
        "--seed seeds the randomized sketch (with --method milo also MiLo's SVD).\n"
        "Example:\n  quantscope-cli spectrum demo/ --tensor model.layers.0.self_attn.q_proj.weight --method int "
        "--bits 4 --group 128 --top 64 --json");
}

} // namespace quantscope::cli
