// SPDX-License-Identifier: MIT
// `quantscope-cli quantize`: one tensor, one spec, metrics and histograms as JSON.
#include <cstdio>
#include <fstream>
#include <iostream>

#include <nlohmann/json.hpp>

#include "cli.h"
#include "progress.h"
#include "io/checkpoint.h"
#include "io/native.h"
#include "json/report_json.h"
#include "util/error.h"

namespace quantscope::cli {

namespace {

nlohmann::json loadSpecFile(const std::string &path)
{
    std::ifstream in(path);
    if (!in)
        throw IoError("cannot open the spec file", Location{path, {}, {}});
    try {
        return nlohmann::json::parse(in);
    } catch (const nlohmann::json::exception &e) {
        throw FormatError(std::string("spec is not valid JSON: ") + e.what(), Location{path, {}, {}});
    }
}

} // namespace

/// Builds the spec: --spec file (or the method's defaults), then the flags on top; parsed and
/// validated once here.
QuantSpec buildQuantizeSpec(Args &args)
{
    nlohmann::json spec = nlohmann::json::object();
    if (auto file = args.value("--spec"))
        spec = loadSpecFile(*file);
    if (auto m = args.value("--method"))
        spec["method"] = *m;
    if (!spec.contains("method"))
        throw UsageError("--method int|fp8|hqq|milo|mxfp4|nvfp4|progressive|constopt (or a --spec with \"method\") is required");
    const std::string method = spec["method"].is_string() ? spec["method"].get<std::string>() : "";

    auto setString = [&](const char *opt, const char *key) {
        if (auto v = args.value(opt))
            spec[key] = *v;
    };
    auto setInt = [&](const char *opt, const char *key) {
        if (auto v = args.value(opt))
            spec[key] = toInt(opt, *v);
    };
    setString("--granularity", "granularity");
    setInt("--block", "block");
    setString("--arith", "arith");
    setString("--eps", "eps");
    if (method == "int") {
        setInt("--bits", "bits");
        const bool hasGranularity = spec.contains("granularity");
        if (auto g = args.value("--group")) {
            spec["group"] = toInt("--group", *g);
            if (!hasGranularity)
                spec["granularity"] = "group"; // --group G alone implies group granularity
        }
        setInt("--axis", "axis");
        const bool sym = args.flag("--symmetric"), asym = args.flag("--asymmetric");
        if (sym && asym)
            throw UsageError("--symmetric and --asymmetric exclude each other");
        if (sym || asym)
            spec["symmetric"] = sym;
        setString("--scale-rule", "scale_rule");
        setString("--rounding", "rounding");
        setString("--scale-apply", "scale_apply");
        setString("--scale-dtype", "scale_dtype");
        setString("--e8m0-mode", "e8m0_mode");
        if (args.flag("--strict"))
            spec["strict"] = true;
    } else if (method == "fp8") {
        setString("--fp8", "format");
    } else if (method == "hqq") {
        // --preset and --hqq-preset both name the HQQ preset; the preset's bits/axis apply
        // unless given (HqqSpec::fromJson fills them from the preset).
        setString("--hqq-preset", "preset");
        setString("--preset", "preset");
        setInt("--bits", "bits");
        setInt("--group", "group");
        setInt("--axis", "axis");
        setString("--compute", "compute");
        setString("--zero-rounding", "zero_rounding");
        setInt("--iters", "iters");
    } else if (method == "milo") {
        if (auto p = args.value("--preset")) {
            if (p->rfind("passes=", 0) == 0) { // passes=N: the code loop with N passes
                spec["preset"] = "code";
                spec["passes"] = toInt("--preset passes=N", p->substr(7));
            } else {
                spec["preset"] = *p;
            }
        }
        setString("--hqq-preset", "hqq_preset");
        setInt("--passes", "passes");
        setInt("--rank", "rank");
        setString("--compensator", "compensator");
        setInt("--compensator-group", "compensator_group");
        setInt("--seed", "seed");
        setInt("--svd-power-iters", "power_iters");
        setInt("--bits", "bits");
        setInt("--group", "group");
        setInt("--axis", "axis");
        setString("--compute", "compute");
        setString("--zero-rounding", "zero_rounding");
        setInt("--iters", "iters");
    } else {
        applyMethodFlags(args, spec, method);
    }
    // Validate now (unknown fields, bad values): the typed spec is what the engine runs.
    return parseQuantSpec(spec);
}

QuantizeJobResult runCliJob(const Checkpoint &ck, const std::string &tensor, QuantizeJobRequest request,
                            bool quiet)
{
    request.tensors = {tensor};
    TensorSource source;
    source.weight = [&ck](const std::string &name) { return ck.tensor(name); };
    ProgressLine line(quiet);
    const CancelToken cancel;
    QuantizeJobResult result = runQuantizeJob(request, source, cancel, line.callback());
    line.finish();
    for (const auto &p : result.tensors)
        if (!p.error.empty())
            throw std::runtime_error(p.error);
    for (const auto &o : result.outcomes)
        if (!o.ok())
            throw std::runtime_error(o.error);
    return result;
}

int runQuantize(Args args)
{
    const bool json = args.flag("--json");
    const auto tensorName = args.value("--tensor");
    const auto save = args.value("--save");
    const bool quiet = args.flag("--quiet");
    const bool perChannel = args.flag("--per-channel");
    QuantizeJobRequest request;
    request.device = takeDeviceOption(args);
    if (auto b = args.value("--bins"))
        request.bins = static_cast<int>(toInt("--bins", *b));
    request.symlog = args.flag("--symlog");
    request.profileChannels = false;
    request.keepQuantized = true;
    request.keepAbsErrBins = true;
    ReadOptions rd;
    rd.lenient = args.flag("--lenient");
    const auto gemmRequest = takeGemmFlags(args);
    const QuantSpec spec = buildQuantizeSpec(args);
    const auto pos = args.positionals();
    if (pos.size() != 1 || !tensorName)
        throw UsageError("usage: quantscope-cli quantize PATH --tensor NAME --method METHOD [options]");
    const std::string methodName = methodOf(spec);

    const Checkpoint ck = Checkpoint::open(pos[0], rd);
    request.specs = {JobSpec::typed(methodOf(spec), spec)};
    const QuantizeJobResult result = runCliJob(ck, *tensorName, std::move(request), quiet);
    const QuantizeOutcome &run = result.outcomes.front();
    if (!run.deviceNote.empty())
        std::fprintf(stderr, "note: %s\n", run.deviceNote.c_str());
    if (save)
        writeNative(*save, *run.quantized);

    const ErrorMetrics &m = run.metrics;
    const QuantizedTensor &q = *run.quantized;
    nlohmann::ordered_json out;
    out["tensor"] = *tensorName;
    out["method"] = q.method;
    out["spec"] = q.spec;
    out["device"] = run.device;
    if (!run.deviceNote.empty())
        out["device_note"] = run.deviceNote;
    out["ragged"] = q.layout.ragged;
    out["nonfinite_groups"] = q.nonFiniteGroups;
    if (q.firstNonFinite >= 0)
        out["first_nonfinite_index"] = q.firstNonFinite;
    out["metrics"] = metricsJson(m, MetricsDetail::Report, StoredSize{q.bitsPerElement(), q.storedBytes()});
    out["stats_in"] = statsJson(m.statsIn);
    out["stats_out"] = statsJson(m.statsOut);
    out["histogram"] = histogramsJson(m);
    if (q.method == "hqq" || q.method == "milo") {
        nlohmann::ordered_json hist = nlohmann::ordered_json::array();
        for (const auto &h : q.history)
            hist.push_back({{"pass", h.pass}, {"eps", h.eps}, {"time_ms", h.timeMs}});
        out["history"] = hist;
        out["chosen_pass"] = q.chosenPass;
    }
    if (q.method == "milo") {
        out["rank"] = q.rank;
        out["requested_rank"] = q.requestedRank;
        out["rank_clamped"] = q.rank != q.requestedRank;
    }
    if (!q.report.empty())
        out["report"] = q.report;
    if (perChannel)
        out["per_channel"] = perChannelJson(ck.tensor(*tensorName), &q.dequantized);
    if (gemmRequest) {
        GemmRequest gr = *gemmRequest;
        gr.device = request.device;
        out["gemm"] = runGemm(gr, pos[0], rd, ck.tensor(*tensorName), q);
    }
    out["time_ms"] = run.timeMs;
    if (save)
        out["saved"] = *save;

    if (json) {
        std::cout << out.dump(1) << '\n';
        return 0;
    }
    std::printf("%s  %s  on %s  (%.1f ms)\n", tensorName->c_str(), q.spec.dump().c_str(),
                run.device.c_str(), run.timeMs);
    std::printf("  rel. Frobenius %.6g   SQNR %.3f dB   MSE %.6g   max |err| %.6g   cosine %.8f\n",
                m.relFrobenius, m.sqnrDb, m.mse, m.maxAbsErr, m.cosine.value_or(0.0));
    std::printf("  |err| p50 %.4g  p90 %.4g  p99 %.4g  p99.9 %.4g   %.4f bits/element, %llu bytes\n",
                m.errP50, m.errP90, m.errP99, m.errP999, q.bitsPerElement(),
                static_cast<unsigned long long>(q.storedBytes()));
    std::printf("  histogram overlap %.4f%s\n", m.overlap, q.layout.ragged ? "   (ragged groups)" : "");
    if (!q.history.empty())
        std::printf("  %s: %zu %s, eps first %.6g last %.6g, chosen %d%s\n", q.method.c_str(), q.history.size(),
                    q.method == "milo" ? "passes" : "iterations", q.history.front().eps, q.history.back().eps,
                    q.chosenPass,
                    q.method == "milo" && q.rank != q.requestedRank
                        ? (", rank clamped " + std::to_string(q.requestedRank) + " -> " + std::to_string(q.rank)).c_str()
                        : "");
    if (out.contains("gemm")) {
        const auto &g = out["gemm"];
        std::printf("  GEMM %s: output rel. error %.6g (weight only %.6g); worst token %lld: %.6g\n",
                    g["scheme"].get<std::string>().c_str(), g["rel_err_output"].get<double>(),
                    g["rel_err_weight_only"].get<double>(), g["worst_token"].get<long long>(),
                    g["worst_token_rel_err"].get<double>());
    }
    return 0;
}

} // namespace quantscope::cli
