// SPDX-License-Identifier: MIT
// `quantscope-cli gemm-bench`: the GEMM timing lab (core/sim/gemm_bench.h) for one weight shape —
// what BF16, FP8 (tensor-wise and row-wise scales) and INT8 GEMMs cost per batch size M on the
// chosen device (the CPU times Eigen FP32 GEMMs instead and says so).
#include <cstdio>
#include <iostream>

#include "cli.h"
#include "engine/gemm_bench_device.h"
#include "io/checkpoint.h"
#include "progress.h"
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
    if (req.repeats < 20)
        throw UsageError("--repeats must be ≥ 20 (the median of at least 20 runs)");
    auto pos = args.positionals();
    const char *usage = "usage: quantscope-cli gemm-bench (--shape N,K | --tensor NAME PATH) [--m-sweep LIST] "
                        "[--formats bf16,fp8,fp8-rowwise,int8] [--device auto|cpu|gpu] [--repeats R] [--json]";
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
    if (json) {
        std::cout << toJson(r).dump(1) << '\n';
        return 0;
    }
    std::printf("GEMM Y[M,N] = X[M,K]·W[N,K]ᵀ for %s on %s (median of the timed runs)\n", what.c_str(),
                r.device.c_str());
    std::printf("  %-12s %6s %12s %12s %10s %10s  %s\n", "format", "M", "time µs", "cold µs", "TFLOP/s", "GB/s",
                "note");
    for (const auto &p : r.points) {
        std::string note = p.note;
        if (p.padded)
            note = "padded to M=" + std::to_string(p.paddedM) + (note.empty() ? "" : "; " + note);
        std::printf("  %-12s %6lld %12.2f %12.2f %10.3f %10.1f  %s\n", p.format.c_str(), static_cast<long long>(p.m),
                    p.timeUs, p.coldUs, p.tflops, p.gbps, note.c_str());
    }
    return 0;
}

} // namespace quantscope::cli
