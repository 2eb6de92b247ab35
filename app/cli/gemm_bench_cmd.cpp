// SPDX-License-Identifier: MIT
// `quantscope-cli gemm-bench`: the GEMM timing lab (core/sim/gemm_bench.h) for one weight shape —
// what BF16, FP8 (tensor-wise and row-wise scales) and INT8 GEMMs cost per batch size M on the
// chosen device (the CPU times Eigen FP32 GEMMs instead and says so); part II (issue 22): the
// quantized-weight paths on the engine quantizer's codes, MoE launches (--experts) and the
// roofline (sim/gemm_roofline.h).
#include <algorithm>
#include <cstdio>
#include <iostream>

#include <CLI/CLI.hpp>

#include "cli.h"
#include "engine/gemm_bench_device.h"
#include "io/checkpoint.h"
#include "io/weight_reader.h"
#include "progress.h"
#include "sim/gemm_roofline.h"
#include "quant/quantizer.h"
#include "util/error.h"

namespace quantscope::cli {

namespace {

std::pair<std::int64_t, std::int64_t> parseShape(const std::string &s)
{
    const auto comma = s.find(',');
    if (comma == std::string::npos)
        throw UsageError("--shape is N,K (e.g. 4096,14336), got '" + s + "'");
    const std::int64_t n = toInt("--shape", s.substr(0, comma)), k = toInt("--shape", s.substr(comma + 1));
    if (n < 1 || k < 1)
        throw UsageError("--shape N,K must be positive, got '" + s + "'");
    return {n, k};
}

struct GemmBenchArgs {
    std::optional<std::string> shape, formats, mSweep, repeats, warmup, experts, w4Group, w3Rank, peaksCache, path;
    std::vector<std::string> tensor;
    bool noRoofline = false, remeasurePeaks = false;
};

int runGemmBench(const GemmBenchArgs &o, const CommonOptions &common)
{
    const bool json = common.json;
    const bool quiet = common.quiet;
    ReadOptions rd;
    rd.lenient = common.lenient;
    GemmBenchRequest req;
    const DeviceChoice device = common.deviceChoice();
    const auto &shape = o.shape;
    const auto &tensor = o.tensor;
    try {
        if (o.formats)
            req.formats = parseGemmFormats(*o.formats);
        if (o.mSweep)
            req.m = parseMSweep(*o.mSweep);
    } catch (const UnsupportedError &e) {
        throw UsageError(e.what());
    }
    if (o.repeats)
        req.repeats = static_cast<int>(toInt("--repeats", *o.repeats));
    if (o.warmup)
        req.warmup = static_cast<int>(toInt("--warmup", *o.warmup));
    if (o.experts)
        req.experts = static_cast<int>(toInt("--experts", *o.experts));
    if (o.w4Group)
        req.w4Group = *o.w4Group == "channel" ? 0 : toInt("--w4-group", *o.w4Group);
    if (o.w3Rank)
        req.w3Rank = static_cast<int>(toInt("--w3-rank", *o.w3Rank));
    if (o.peaksCache)
        req.peaksCache = *o.peaksCache;
    req.roofline = !o.noRoofline;
    req.remeasurePeaks = o.remeasurePeaks;
    if (req.repeats < 20)
        throw UsageError("--repeats must be ≥ 20 (the median of at least 20 runs)");
    std::vector<std::string> pos;
    if (o.path)
        pos.push_back(*o.path);
    const char *usage =
        "usage: quantscope-cli gemm-bench (--shape N,K | --tensor NAME PATH) [--m-sweep LIST] "
        "[--formats bf16,fp8,fp8-rowwise,int8,w4a16,w4a8-int8,w4a8-fp8,w8a8-fp8,mxfp4,nvfp4,w3a16-milo] "
        "[--experts E] "
        "[--w4-group G|channel] [--w3-rank R] [--no-roofline] [--remeasure-peaks] [--peaks-cache PATH] "
        "[--device auto|cpu|gpu] [--repeats R] [--json]";
    std::string what;
    if (shape && tensor.empty() && pos.empty()) {
        std::tie(req.n, req.k) = parseShape(*shape);
        what = std::to_string(req.n) + "×" + std::to_string(req.k);
    } else if (!shape && tensor.size() == 1 && pos.size() == 1) {
        // N, K from the tensor's entry ([out, in] as matrixView); its values are not read.
        // A quantized module gives its logical shape (and its decoded values); packed parts are
        // refused (io/weight_reader.h).
        const WeightReader weights = openWeights(pos[0], rd, tensor[0]);
        const Shape wshape = weights.shape(tensor[0]);
        if (wshape.size() < 2)
            throw UnsupportedError("tensor '" + tensor[0] + "' is not a matrix (shape of rank " +
                                   std::to_string(wshape.size()) + ")");
        std::tie(req.n, req.k) = matrixView(wshape);
        what = tensor[0] + " (" + std::to_string(req.n) + "×" + std::to_string(req.k) + ")";
        // The quantized paths time this tensor's own codes: its values are read only for them.
        bool quantized = false;
        for (auto f : req.formats)
            quantized = quantized || isQuantizedWeightFormat(f);
        if (quantized) {
            Tensor t = weights.read(tensor[0]);
            requireDecodable(t, tensor[0]); // viewed as [N, K] (matrixView) by the quantizer
            req.weight = std::make_shared<const Tensor>(std::move(t));
        }
    } else {
        throw UsageError(usage);
    }
    try {
        // A format the shape cannot run is skipped (runGemmBench lists it); none runnable is an error.
        std::vector<GemmSkippedFormat> skipped;
        runnableGemmRequest(req, skipped);
    } catch (const UnsupportedError &e) {
        throw UsageError(e.what());
    }

    ProgressLine line(quiet);
    const CancelToken cancel;
    if (const StepCallback step = line.callback()) {
        const std::string label = "timing GEMMs of " + what;
        step(0.0, 1.0, 1.0, label);
        cancel.setStepProgress([step, label](double f) { step(f, 1.0, 1.0, label); });
    }
    const GemmBenchResult r = runGemmBench(req, device, &cancel);
    line.finish();
    if (!r.deviceNote.empty())
        std::fprintf(stderr, "note: %s\n", r.deviceNote.c_str());
    if (const auto bad =
            std::find_if(r.points.begin(), r.points.end(),
                         [](const GemmPoint &p) { return p.note.find("CHECK FAILED") != std::string::npos; });
        bad != r.points.end())
        std::fprintf(stderr, "warning: %s at M=%lld failed its output check\n", bad->series().c_str(),
                     static_cast<long long>(bad->m));
    if (json) {
        std::cout << toJson(r).dump(1) << '\n';
        return 0;
    }
    std::printf("GEMM Y[M,N] = X[M,K]·W[N,K]ᵀ for %s on %s (median of the timed runs)\n", what.c_str(),
                r.device.c_str());
    if (r.peaks) {
        std::printf("roofline (%s): copy %.1f GB/s", r.peaks->source.c_str(), r.peaks->copyGbps);
        for (const auto &[dtype, t] : r.peaks->tflops)
            std::printf(", %s %.2f TFLOP/s", dtype.c_str(), t);
        for (const auto &l : r.peaks->levels) // the CPU's per-level memory ceilings
            std::printf("%s%s %.1f GB/s", &l == &r.peaks->levels.front() ? "; memory levels: " : ", ", l.name.c_str(),
                        l.gbps);
        std::printf("\n");
    }
    std::printf("  %-18s %6s %12s %12s %10s %10s %8s %14s %12s %8s %8s  %s\n", "format", "M", "time µs", "cold µs",
                "TFLOP/s", "GB/s", "FLOP/B", "bound", "B/token", "W roof", "vs bf16", "note");
    for (const auto &p : r.points) {
        std::string note = p.note;
        if (p.padded)
            note = "padded to M=" + std::to_string(p.paddedM) + (note.empty() ? "" : "; " + note);
        char bound[48] = "-";
        if (!p.bound.empty() && !p.cacheLevel.empty() && p.cacheLevel != "DRAM") // "memory (L2) 80%"
            std::snprintf(bound, sizeof bound, "%s (%s) %3.0f%%", p.bound.c_str(), p.cacheLevel.c_str(),
                          100 * p.fractionOfCeiling);
        else if (!p.bound.empty())
            std::snprintf(bound, sizeof bound, "%s %3.0f%%", p.bound.c_str(), 100 * p.fractionOfCeiling);
        if (p.experts > 1)
            note = std::to_string(p.experts) + " experts, " + std::to_string(p.launches) + " launches/step" +
                   (note.empty() ? "" : "; " + note);
        char roof[16] = "-", speedup[16] = "-";
        if (p.weightRooflineFraction > 0)
            std::snprintf(roof, sizeof roof, "%.0f%%", 100 * p.weightRooflineFraction);
        if (p.speedupVsBf16 > 0)
            std::snprintf(speedup, sizeof speedup, "%.2f×", p.speedupVsBf16);
        std::printf("  %-18s %6lld %12.2f %12.2f %10.3f %10.1f %8.1f %19s %12.0f %8s %8s  %s\n", p.series().c_str(),
                    static_cast<long long>(p.m), p.timeUs, p.coldUs, p.tflops, p.gbps, p.intensity, bound,
                    p.bytesPerToken, roof, speedup, note.c_str());
    }
    for (const auto &s : r.skipped)
        std::printf("  %-18s not timed: %s\n", s.format.c_str(), s.reason.c_str());
    return 0;
}

} // namespace

void addGemmBenchCommand(Commands &c)
{
    auto o = std::make_shared<GemmBenchArgs>();
    CLI::App *cmd = c.add("gemm-bench",
                          "time BF16/FP8/INT8 and quantized-weight GEMMs of one weight shape over M (the GPU's "
                          "cuBLASLt; the CPU times Eigen FP32 GEMMs instead), MoE launches, the roofline",
                          [o, &c] { return runGemmBench(*o, c.common()); });
    cmd->add_option("PATH", o->path, "the checkpoint of --tensor");
    cmd->add_option("--shape", o->shape, "the weight shape [N, K] (instead of --tensor)")->type_name("N,K");
    cmd->add_option("--tensor", o->tensor, "the weight whose shape (and, for quantized paths, codes) to time")
        ->type_name("NAME")
        ->allow_extra_args(false)
        ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
    cmd->add_option("--m-sweep", o->mSweep, "batch sizes M (default 1…8192 in powers of two)")->type_name("LIST");
    cmd->add_option("--formats", o->formats,
                    "GEMM formats: bf16,fp8,fp8-rowwise,int8,w4a16,w4a8-int8,w4a8-fp8,w8a8-fp8,mxfp4,nvfp4,w3a16-milo")
        ->type_name("LIST");
    cmd->add_option("--experts", o->experts, "MoE: E experts in one loop vs one strided-batched GEMM")->type_name("E");
    cmd->add_option("--w4-group", o->w4Group, "group size of the INT4 weight paths")->type_name("G|channel");
    cmd->add_option("--w3-rank", o->w3Rank, "w3a16-milo: the compensator's rank (0 … 256, default 32)")->type_name("R");
    cmd->add_option("--repeats", o->repeats, "timed runs per point (median; at least 20)")->type_name("R");
    cmd->add_option("--warmup", o->warmup, "untimed runs before each point")->type_name("W");
    cmd->add_flag("--no-roofline", o->noRoofline, "do not place the points on the roofline");
    cmd->add_flag("--remeasure-peaks", o->remeasurePeaks, "measure the roofline's ceilings again");
    cmd->add_option("--peaks-cache", o->peaksCache, "the ceilings' cache file")->type_name("PATH");
    c.addCommon(cmd, kJson | kQuiet | kDevice | kLenient);
    cmd->footer("Examples:\n  quantscope-cli gemm-bench --shape 1024,2816 --m-sweep 1,16,256 --json\n"
                "  quantscope-cli gemm-bench --tensor model.layers.0.mlp.down_proj.weight demo/ --formats bf16,w4a16"
                "  # GPU only");
}

} // namespace quantscope::cli
