// SPDX-License-Identifier: MIT
// `quantscope-cli spectrum`: singular values of the residual E = W − Ŵ of one tensor under a
// quantizer (or of W itself without one), with the fields of docs/numerics.md "Metrics".
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>

#include <nlohmann/json.hpp>

#include "cli.h"
#include "io/checkpoint.h"
#include "json/report_json.h"
#include "metrics/spectrum.h"
#include "util/error.h"

namespace quantscope::cli {

int runSpectrum(Args args)
{
    const bool json = args.flag("--json");
    const auto tensorName = args.value("--tensor");
    SpectrumOptions so;
    if (auto v = args.value("--top"))
        so.top = static_cast<int>(toInt("--top", *v));
    if (auto v = args.value("--power-iters"))
        so.powerIters = static_cast<int>(toInt("--power-iters", *v));
    if (auto v = args.value("--oversample"))
        so.oversample = static_cast<int>(toInt("--oversample", *v));
    if (auto v = args.value("--tau"))
        so.tau = toReal("--tau", *v);
    if (so.top < 0 || so.powerIters < 0 || so.oversample < 0)
        throw UsageError("--top, --power-iters and --oversample must be ≥ 0");
    if (!(so.tau > 0.0 && so.tau <= 1.0))
        throw UsageError("--tau must be in (0, 1]");
    ReadOptions rd;
    rd.lenient = args.flag("--lenient");
    const bool quiet = args.flag("--quiet");
    QuantizeJobRequest request;
    request.metrics = false;
    request.profileChannels = false;
    request.device = takeDeviceOption(args);
    const bool quantized = args.has("--method") || args.has("--spec");
    std::optional<QuantSpec> typed;
    nlohmann::json spec;
    if (quantized) {
        typed = buildQuantizeSpec(args);
        spec = toJson(*typed);
    }
    // The sketch seed: --seed (for milo it is also the quantizer's SVD seed).
    if (auto v = args.value("--seed"))
        so.seed = static_cast<std::uint64_t>(toInt("--seed", *v));
    else if (spec.is_object() && spec.contains("seed"))
        so.seed = spec["seed"].get<std::uint64_t>();
    const auto pos = args.positionals();
    if (pos.size() != 1 || !tensorName)
        throw UsageError("usage: quantscope-cli spectrum PATH --tensor NAME [--method M [options]] [--top K] "
                         "[--power-iters P] [--tau T] [--json]");

    const Checkpoint ck = Checkpoint::open(pos[0], rd);
    const Tensor w = ck.tensor(*tensorName);
    const auto [rows, cols] = matrixView(w.shape());
    std::string device = "cpu", note;
    const auto t0 = std::chrono::steady_clock::now();
    request.spectrum = so;
    if (typed)
        request.specs = {JobSpec::typed(methodOf(*typed), *typed)};
    const QuantizeJobResult result = runCliJob(ck, *tensorName, std::move(request), quiet);
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

} // namespace quantscope::cli
