// SPDX-License-Identifier: MIT
// `quantscope-cli quantize`: one tensor, one spec, metrics and histograms as JSON.
#include <cstdio>
#include <fstream>
#include <iostream>

#include <nlohmann/json.hpp>

#include <CLI/CLI.hpp>

#include "cli.h"
#include "progress.h"
#include "export/gguf_export.h"
#include "io/capture.h"
#include "io/checkpoint.h"
#include "io/native.h"
#include "io/weight_reader.h"
#include "json/report_json.h"
#include "util/error.h"

namespace quantscope::cli {

WeightReader openWeights(const std::string &path, const ReadOptions &rd, const std::string &tensor)
{
    WeightReader weights(std::make_shared<const Checkpoint>(Checkpoint::open(path, rd)));
    if (const std::string note = weights.note(tensor); !note.empty())
        std::fprintf(stderr, "note: %s\n", note.c_str());
    return weights;
}

QuantizeJobResult runCliJob(const WeightReader &weights, const std::string &tensor, QuantizeJobRequest request,
                            bool quiet)
{
    request.tensors = {tensor};
    TensorSource source;
    source.weight = [&weights](const std::string &name) { return weights.read(name); };
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

namespace {

struct QuantizeArgs {
    std::string path;
    std::optional<std::string> tensorName, save, bins, activation, actQuant, capture;
    bool perChannel = false, symlog = false;
    QuantizerOptions quantizer;
};

int runQuantize(const QuantizeArgs &o, const CommonOptions &common)
{
    const bool json = common.json;
    const auto &tensorName = o.tensorName;
    const auto &save = o.save;
    const bool quiet = common.quiet;
    const bool perChannel = o.perChannel;
    QuantizeJobRequest request;
    request.device = common.deviceChoice();
    if (o.bins)
        request.bins = static_cast<int>(toInt("--bins", *o.bins));
    request.symlog = o.symlog;
    request.profileChannels = false;
    request.keepQuantized = true;
    request.keepAbsErrBins = true;
    ReadOptions rd;
    rd.lenient = common.lenient;
    std::optional<GemmRequest> gemmRequest;
    if (o.activation) {
        gemmRequest = GemmRequest{*o.activation, std::nullopt, DeviceChoice::Auto};
        if (o.actQuant && *o.actQuant != "none")
            gemmRequest->actQuant = *o.actQuant;
    } else if (o.actQuant) {
        throw UsageError("--act-quant needs --activation [FILE:]NAME");
    }
    const QuantSpec spec = o.quantizer.build();
    const std::vector<std::string> pos{o.path};
    const std::string methodName = methodOf(spec);

    const WeightReader weights = openWeights(pos[0], rd, *tensorName);
    if (o.capture) {
        request.capture = openPairedCapture(*o.capture, weights.checkpoint(), quiet);
        checkCaptureShape(*request.capture, moduleOfWeight(*tensorName),
                          matrixShape(weights.read(*tensorName).shape()));
    }
    if (o.quantizer.imatrixFile) {
        // llama.cpp's importance matrix: the tensor's entry is found (and its length checked)
        // here, before any work; the job takes the weights from it in place of a capture's.
        if (!std::holds_alternative<GgufQuantSpec>(spec))
            throw UsageError("--imatrix FILE gives llama.cpp's importance weights to --method gguf (K-quants); "
                             "method " +
                             methodName + " does not take them");
        const auto im = std::make_shared<const Imatrix>(loadImatrix(*o.quantizer.imatrixFile));
        const Checkpoint &ck = weights.checkpoint();
        (void)importanceOf(*im, ck, *tensorName, matrixView(weights.read(*tensorName).shape()).second);
        request.importance = [im, &ck](const std::string &t, std::int64_t k) { return importanceOf(*im, ck, t, k); };
    }
    request.specs = {JobSpec::typed(methodOf(spec), spec)};
    const QuantizeJobResult result = runCliJob(weights, *tensorName, std::move(request), quiet);
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
    if (run.outputError) {
        out["metrics"]["output_error"] = outputErrorJson(*run.outputError);
        out["capture"] = *o.capture;
    }
    if (o.quantizer.imatrixFile)
        out["imatrix"] = *o.quantizer.imatrixFile;
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
        out["per_channel"] = perChannelJson(weights.read(*tensorName), &q.dequantized);
    if (gemmRequest) {
        GemmRequest gr = *gemmRequest;
        gr.device = request.device;
        out["gemm"] = runGemm(gr, pos[0], rd, weights.read(*tensorName), q);
    }
    out["time_ms"] = run.timeMs;
    if (save)
        out["saved"] = *save;

    if (json) {
        std::cout << out.dump(1) << '\n';
        return 0;
    }
    std::printf("%s  %s  on %s  (%.1f ms)\n", tensorName->c_str(), q.spec.dump().c_str(), run.device.c_str(),
                run.timeMs);
    std::printf("  rel. Frobenius %.6g   SQNR %.3f dB   MSE %.6g   max |err| %.6g   cosine %.8f\n", m.relFrobenius,
                m.sqnrDb, m.mse, m.maxAbsErr, m.cosine.value_or(0.0));
    std::printf("  |err| p50 %.4g  p90 %.4g  p99 %.4g  p99.9 %.4g   %.4f bits/element, %llu bytes\n", m.errP50,
                m.errP90, m.errP99, m.errP999, q.bitsPerElement(), static_cast<unsigned long long>(q.storedBytes()));
    std::printf("  histogram overlap %.4f%s\n", m.overlap, q.layout.ragged ? "   (ragged groups)" : "");
    if (const auto &e = run.outputError)
        std::printf("  output-aware error E||dW x||^2 %.6g   relative %.6g   (%s Gram, %lld tokens)\n", e->error,
                    e->relative, e->diagonal ? "diagonal" : "full", static_cast<long long>(e->tokens));
    // MiLo returns its best pass (the smallest ε): its ε beside the first and last.
    char chosenEps[64] = "";
    if (q.method == "milo" && q.chosenPass >= 1 && q.chosenPass <= static_cast<int>(q.history.size()))
        std::snprintf(chosenEps, sizeof chosenEps, " (eps %.6g, the best)",
                      q.history[static_cast<std::size_t>(q.chosenPass) - 1].eps);
    if (!q.history.empty())
        std::printf(
            "  %s: %zu %s, eps first %.6g last %.6g, chosen %d%s%s\n", q.method.c_str(), q.history.size(),
            q.method == "milo" ? "passes" : "iterations", q.history.front().eps, q.history.back().eps, q.chosenPass,
            chosenEps,
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

} // namespace

void addQuantizeCommand(Commands &c)
{
    auto o = std::make_shared<QuantizeArgs>();
    CLI::App *cmd = c.add("quantize",
                          "quantize one tensor: error metrics, percentiles, histograms; the paired GEMM simulation "
                          "with --activation",
                          [o, &c] { return runQuantize(*o, c.common()); });
    cmd->add_option("PATH", o->path, "the checkpoint")->required();
    cmd->add_option("--tensor", o->tensorName, "the weight to quantize")->type_name("NAME")->required();
    cmd->add_option("--save", o->save, "write the codes and scales in the native layout")->type_name("OUT.safetensors");
    cmd->add_flag("--per-channel", o->perChannel, "per-channel absmax, kurtosis and the per-row error");
    cmd->add_option("--bins", o->bins, "histogram bins")->type_name("N");
    cmd->add_flag("--symlog", o->symlog, "symmetric-log histogram bins");
    cmd->add_option("--activation", o->activation,
                    "the paired GEMM simulation with this activation (FILE: another checkpoint or .npy)")
        ->type_name("[FILE:]NAME");
    cmd->add_option("--capture", o->capture,
                    "a calibration capture of the model (quantscope-cli capture): adds the output-aware error "
                    "E||(W - W^)x||^2 on its inputs")
        ->type_name("CAP.safetensors");
    cmd->add_option("--act-quant", o->actQuant, "the activation quantizer of the GEMM simulation")->type_name("KIND");
    c.addCommon(cmd, kJson | kQuiet | kDevice | kThreads | kLenient);
    addQuantizerOptions(cmd, o->quantizer);
    cmd->footer(
        "Examples:\n  quantscope-cli quantize demo/ --tensor model.layers.0.self_attn.q_proj.weight --method int "
        "--bits 4 --group 32 --json\n"
        "  quantscope-cli quantize demo/ --tensor model.layers.0.self_attn.k_proj.weight --method milo --rank 32 "
        "--preset passes=4\n"
        "  quantscope-cli quantize demo/ --tensor model.layers.1.mlp.experts.0.up_proj.weight --method progressive "
        "--stage1 format=e4m3 --bits 4");
}

} // namespace quantscope::cli
