// SPDX-License-Identifier: MIT
// `quantscope-cli gemm-bench`: the GEMM timing lab (core/sim/gemm_bench.h) for one weight shape —
// what BF16, FP8 (tensor-wise and row-wise scales) and INT8 GEMMs cost per batch size M on the
// chosen device (the CPU times Eigen FP32 GEMMs instead and says so); part II (issue 22): the
// quantized-weight paths on the engine quantizer's codes, MoE launches (--experts) and the
// roofline (sim/gemm_roofline.h).
#include <algorithm>
#include <cstdio>
#include <iostream>

#include "cli.h"
#include "engine/gemm_bench_device.h"
#include "io/checkpoint.h"
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

} // namespace

int runGemmBench(Args args)
{
    const bool json = args.flag("--json");
    const bool quiet = args.flag("--quiet");
    ReadOptions rd;
    rd.lenient = args.flag("--lenient");
    GemmBenchRequest req;
    const DeviceChoice device = takeDeviceOption(args);
    const auto shape = args.value("--shape");
    const auto tensor = args.values("--tensor");
    try {
        if (auto f = args.value("--formats"))
            req.formats = parseGemmFormats(*f);
        if (auto m = args.value("--m-sweep"))
            req.m = parseMSweep(*m);
    } catch (const UnsupportedError &e) {
        throw UsageError(e.what());
    }
    if (auto r = args.value("--repeats"))
        req.repeats = static_cast<int>(toInt("--repeats", *r));
    if (auto w = args.value("--warmup"))
        req.warmup = static_cast<int>(toInt("--warmup", *w));
    if (auto e = args.value("--experts"))
        req.experts = static_cast<int>(toInt("--experts", *e));
    if (auto g = args.value("--w4-group"))
        req.w4Group = *g == "channel" ? 0 : toInt("--w4-group", *g);
    if (auto c = args.value("--peaks-cache"))
        req.peaksCache = *c;
    req.roofline = !args.flag("--no-roofline");
    req.remeasurePeaks = args.flag("--remeasure-peaks");
    if (req.repeats < 20)
        throw UsageError("--repeats must be ≥ 20 (the median of at least 20 runs)");
    auto pos = args.positionals();
    const char *usage = "usage: quantscope-cli gemm-bench (--shape N,K | --tensor NAME PATH) [--m-sweep LIST] "
                        "[--formats bf16,fp8,fp8-rowwise,int8,w4a16,w4a8-int8,w4a8-fp8,w8a8-fp8] [--experts E] "
                        "[--w4-group G|channel] [--no-roofline] [--remeasure-peaks] [--peaks-cache PATH] "
                        "[--device auto|cpu|gpu] [--repeats R] [--json]";
    std::string what;
    if (shape && tensor.empty() && pos.empty()) {
        std::tie(req.n, req.k) = parseShape(*shape);
        what = std::to_string(req.n) + "×" + std::to_string(req.k);
    } else if (!shape && tensor.size() == 1 && pos.size() == 1) {
        // N, K from the tensor's entry ([out, in] as matrixView); its values are not read.
        const Checkpoint ck = Checkpoint::open(pos[0], rd);
        const TensorEntry *e = ck.find(tensor[0]);
        if (!e)
            throw Error("no tensor '" + tensor[0] + "' in " + pos[0]);
        if (e->shape.size() < 2)
            throw UnsupportedError("tensor '" + tensor[0] + "' is not a matrix (shape of rank " +
                                   std::to_string(e->shape.size()) + ")");
        std::tie(req.n, req.k) = matrixView(e->shape);
        what = tensor[0] + " (" + std::to_string(req.n) + "×" + std::to_string(req.k) + ")";
        // The quantized paths time this tensor's own codes: its values are read only for them.
        bool quantized = false;
        for (auto f : req.formats)
            quantized = quantized || isQuantizedWeightFormat(f);
        if (quantized) {
            Tensor t = ck.tensor(tensor[0]);
            requireDecodable(t, tensor[0]); // viewed as [N, K] (matrixView) by the quantizer
            req.weight = std::make_shared<const Tensor>(std::move(t));
        }
    } else {
        throw UsageError(usage);
    }
    try {
        req.validate();
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
    if (const auto bad = std::find_if(r.points.begin(), r.points.end(),
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
        std::printf("\n");
    }
    std::printf("  %-18s %6s %12s %12s %10s %10s %8s %14s  %s\n", "format", "M", "time µs", "cold µs", "TFLOP/s",
                "GB/s", "FLOP/B", "bound", "note");
    for (const auto &p : r.points) {
        std::string note = p.note;
        if (p.padded)
            note = "padded to M=" + std::to_string(p.paddedM) + (note.empty() ? "" : "; " + note);
        char bound[40] = "-";
        if (!p.bound.empty())
            std::snprintf(bound, sizeof bound, "%s %3.0f%%", p.bound.c_str(), 100 * p.fractionOfCeiling);
        if (p.experts > 1)
            note = std::to_string(p.experts) + " experts, " + std::to_string(p.launches) + " launches/step" +
                   (note.empty() ? "" : "; " + note);
        std::printf("  %-18s %6lld %12.2f %12.2f %10.3f %10.1f %8.1f %14s  %s\n", p.series().c_str(),
                    static_cast<long long>(p.m), p.timeUs, p.coldUs, p.tflops, p.gbps, p.intensity, bound, note.c_str());
    }
    return 0;
}

} // namespace quantscope::cli
