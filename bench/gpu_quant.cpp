// SPDX-License-Identifier: MIT
// GPU engine benchmark (issue 7): 14336×4096 BF16 Student-t weights resident on the device;
// INT4 asym g128, INT4 sym g128, INT4 g32 (asym and sym), FP8 E4M3 per tensor, MXFP4 g32, NVFP4
// g16, ProgressiveSpec FP8 + INT4 and constOpt pow2 g32 (issues 18, 44), each with all
// metrics (error sums, moments of W and Ŵ, the W/Ŵ/error histograms, the 4096-bin |error|
// histogram and its percentiles) and codes + scales written (Ŵ not written). Two modes: a fresh
// range pass (headline) and the range from the stats computed at open. Also quantize-only runs
// and a device-to-device copy of the tensor (the copy floor).
// Timing: device events; before each repeat the L2 is flushed (a 2×L2 ≥ 128 MiB buffer is
// rewritten) and the device spins ~1 ms so the whole run is queued before the start event;
// median of --repeats (≥ 50) after --warmup (10). JSON to --out DIR.
// Usage: qs_bench_gpu_quant [--out DIR] [--rows R] [--cols C] [--repeats N] [--warmup N]
//                           [--tensor-out FILE] [--no-verify]
#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/registry.h"
#include "engine/run.h"
#include "host/engine.h"
#include "kernels/kernels.h"
#include "numeric/moments.h"
#include "bench_common.h"
#include "bench_gpu_hooks.h"

using namespace quantscope;

int main(int argc, char **argv)
{
    bench::CommonOptions opt;
    std::string tensorOut;
    bool verify = true;
    std::string only;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        auto next = [&]() -> std::string { return i + 1 < argc ? argv[++i] : std::string(); };
        if (opt.take(argc, argv, i))
            continue;
        if (a == "--tensor-out")
            tensorOut = next();
        else if (a == "--no-verify")
            verify = false;
        else if (a == "--only")
            only = next();
    }
    const std::string &out = opt.out;
    const std::int64_t rows = opt.rows, cols = opt.cols;
    const int repeats = opt.repeats, warmup = opt.warmup;
    std::string reason;
    auto engine = gpu::Engine::create(0, reason);
    if (!engine) {
        std::fprintf(stderr, "no GPU: %s\n", reason.c_str());
        return 2;
    }
    const gpu::EngineInfo info = engine->info();
    std::printf("device: %s (%s, %d SMs, L2 %.0f MiB)\n", info.name.c_str(), info.api.c_str(), info.multiProcessors,
                static_cast<double>(info.l2Bytes) / (1 << 20));
    bench::GpuHooks hooks(engine->stream(), info.l2Bytes);

    const std::int64_t n = rows * cols;
    auto bytes = bench::studentTBf16(n, 42);
    if (!tensorOut.empty()) {
        std::ofstream f(tensorOut, std::ios::binary);
        f.write(reinterpret_cast<const char *>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    }
    const Tensor w = Tensor::fromBytes(DType::BF16, {rows, cols}, std::move(bytes));
    const auto dw = engine->upload(w, "bench");
    const TensorStats atOpen = computeStats(w);
    const double inputBytes = static_cast<double>(n) * 2.0;

    auto timeRuns = [&](const nlohmann::json &spec, const gpu::PipelineOptions &po, std::vector<double> &ms) {
        const QuantSpec typed = parseQuantSpec(spec); // parsed once, as a request does
        for (int r = 0; r < warmup + repeats; ++r) {
            hooks.flushL2();
            hooks.deviceSleep(1.0f);
            engine->recordStart();
            auto run = engine->enqueue(*dw, &typed, po);
            engine->recordStop();
            const float t = engine->elapsedMs();
            if (r >= warmup)
                ms.push_back(t);
        }
    };

    nlohmann::json results = nlohmann::json::array();
    struct Case {
        const char *name;
        nlohmann::json spec;
    };
    const std::vector<Case> cases = {
        {"int4_asym_g128", {{"method", "int"}, {"bits", 4}, {"group", 128}, {"symmetric", false}}},
        {"int4_sym_g128", {{"method", "int"}, {"bits", 4}, {"group", 128}, {"symmetric", true}}},
        {"int4_asym_g32", {{"method", "int"}, {"bits", 4}, {"group", 32}, {"symmetric", false}}},
        {"int4_sym_g32", {{"method", "int"}, {"bits", 4}, {"group", 32}, {"symmetric", true}}},
        {"fp8_e4m3_tensor", {{"method", "fp8"}, {"format", "e4m3"}, {"granularity", "tensor"}}},
        {"mxfp4_g32", {{"method", "mxfp4"}, {"group", 32}}},
        {"nvfp4_g16", {{"method", "nvfp4"}, {"group", 16}}},
        {"progressive_fp8_int4", {{"method", "progressive"}}},
        {"constopt_pow2_g32", {{"method", "constopt"}, {"group", 32}, {"c", 0.156}}},
    };
    std::printf("%-16s %-22s %9s %9s %9s   stages (ms)\n", "case", "mode", "median", "p10", "p90");
    for (const auto &c : cases) {
        if (!only.empty() && only != c.name)
            continue;
        // The generic-kernels mode only where a value-table path exists (INT, FP8, the FP4 schemes).
        const std::string method = c.spec["method"];
        const int modes = method == "progressive" ? 3 : 4;
        for (int mode = 0; mode < modes; ++mode) {
            gpu::PipelineOptions po;
            po.metrics = mode != 2;
            if (mode == 1)
                po.inputStats = atOpen;
            if (mode == 3)
                po.debugFlags = gpu::launch::kNoFastPath; // the generic kernels, for comparison
            const char *modeNames[] = {"metrics, fresh range", "metrics, stats at open", "quantize only",
                                       "metrics, generic kernels"};
            const char *modeName = modeNames[mode];
            std::vector<double> ms;
            timeRuns(c.spec, po, ms);
            const bench::Summary s = bench::summarize(ms);
            // One more run with stage events (separately: the events themselves cost a little).
            engine->profileStages(true);
            hooks.flushL2();
            hooks.deviceSleep(1.0f);
            engine->recordStart();
            {
                const QuantSpec typed = parseQuantSpec(c.spec);
                auto run = engine->enqueue(*dw, &typed, po);
            }
            const auto stages = engine->stageTimes();
            engine->profileStages(false);
            std::string st;
            nlohmann::json stj = nlohmann::json::array();
            for (const auto &[name, t] : stages) {
                char b[96];
                std::snprintf(b, sizeof b, " %s %.4f;", name.c_str(), t);
                st += b;
                stj.push_back({{"stage", name}, {"ms", t}});
            }
            std::printf("%-16s %-22s %9.4f %9.4f %9.4f  %s\n", c.name, modeName, s.median, s.p10, s.p90, st.c_str());
            nlohmann::json r{
                {"case", c.name},
                {"spec", c.spec},
                {"mode", std::array{"fresh_range", "stats_at_open", "quantize_only", "generic_kernels"}[mode]},
                {"metrics", po.metrics},
                {"median_ms", s.median},
                {"p10_ms", s.p10},
                {"p90_ms", s.p90},
                {"min_ms", s.min},
                {"repeats", repeats},
                {"warmup", warmup},
                {"input_gb_per_s", inputBytes / (s.median * 1e-3) / 1e9},
                {"stages", stj}};
            // Verification against the CPU reference on the same tensor (headline mode).
            if (verify && mode == 0) {
                QuantizedTensor q;
                ErrorMetrics m;
                gpu::PipelineOptions pv = po;
                const QuantSpec typedSpec = parseQuantSpec(c.spec);
                auto run = engine->enqueue(*dw, &typedSpec, pv);
                engine->collect(*run, &q, &m);
                RunOptions ro;
                ro.device = DeviceChoice::Cpu;
                ro.quantize.wantDequantized = false;
                const QuantizeRun cpu = runQuantize(w, parseQuantSpec(c.spec), ro);
                std::size_t codeDiff = 0, scaleDiff = 0, histDiff = 0;
                for (std::size_t i = 0; i < q.codes.size(); ++i)
                    codeDiff += q.codes[i] != cpu.quantized.codes[i];
                for (std::size_t i = 0; i < q.scales.size(); ++i)
                    scaleDiff += std::memcmp(&q.scales[i], &cpu.quantized.scales[i], 4) != 0;
                scaleDiff += q.zeros != cpu.quantized.zeros;
                scaleDiff +=
                    q.outerScales.size() != cpu.quantized.outerScales.size() ||
                    std::memcmp(q.outerScales.data(), cpu.quantized.outerScales.data(), 4 * q.outerScales.size()) != 0;
                const ErrorMetrics &cm = *cpu.metrics;
                for (std::size_t i = 0; i < cm.w.counts.size(); ++i)
                    histDiff += (m.w.counts[i] != cm.w.counts[i]) + (m.wHat.counts[i] != cm.wHat.counts[i]) +
                                (m.err.counts[i] != cm.err.counts[i]);
                histDiff += m.absErrBins != cm.absErrBins;
                const bool pct =
                    m.errP50 == cm.errP50 && m.errP90 == cm.errP90 && m.errP99 == cm.errP99 && m.errP999 == cm.errP999;
                const double relMse = std::abs(m.mse - cm.mse) / cm.mse;
                std::printf("   verify vs CPU: codes differ %zu, scales differ %zu, hist bins differ %zu, "
                            "percentiles %s, mse rel diff %.2e, rel_fro %.6f\n",
                            codeDiff, scaleDiff, histDiff, pct ? "equal" : "DIFFER", relMse, m.relFrobenius);
                r["verify"] = {
                    {"codes_differ", codeDiff}, {"scales_differ", scaleDiff}, {"hist_bins_differ", histDiff},
                    {"percentiles_equal", pct}, {"mse_rel_diff", relMse},     {"rel_frobenius", m.relFrobenius},
                    {"sqnr_db", m.sqnrDb},      {"err_p50", m.errP50},        {"err_p99", m.errP99}};
            }
            results.push_back(r);
        }
    }

    // Ablations of the generic kernels' pass 2 on the headline case: where its time goes.
    nlohmann::json ablations = nlohmann::json::array();
    if (only.empty() || only == "int4_asym_g128") {
        const nlohmann::json spec{{"method", "int"}, {"bits", 4}, {"group", 128}, {"symmetric", false}};
        const std::pair<const char *, int> variants[] = {{"warp-merged atomics (match_any)", 1},
                                                         {"no histogram atomics", 2},
                                                         {"no moments", 4},
                                                         {"no atomics, no moments", 6},
                                                         {"FP32->FP64 by bit operations", 8}};
        for (const auto &[label, flags] : variants) {
            gpu::PipelineOptions po;
            po.debugFlags = flags;
            std::vector<double> ms;
            timeRuns(spec, po, ms);
            const bench::Summary s = bench::summarize(ms);
            std::printf("ablation int4_asym_g128 %-38s %9.4f ms\n", label, s.median);
            ablations.push_back({{"variant", label}, {"flags", flags}, {"median_ms", s.median}});
        }
    }

    // Copy floor: one device-to-device copy of the BF16 tensor (bytes read + written).
    std::vector<double> copyMs;
    {
        gpu::PipelineOptions po;
        const Tensor dst = Tensor::zeros(DType::BF16, {rows, cols});
        auto ddst = engine->upload(dst, "copy target");
        for (int r = 0; r < warmup + repeats; ++r) {
            hooks.flushL2();
            hooks.deviceSleep(1.0f);
            engine->recordStart();
            engine->copyDevice(const_cast<void *>(ddst->data()), dw->data(), static_cast<std::size_t>(inputBytes));
            engine->recordStop();
            const float t = engine->elapsedMs();
            if (r >= warmup)
                copyMs.push_back(t);
        }
    }
    const bench::Summary cs = bench::summarize(copyMs);
    std::printf("copy floor (D2D copy of the BF16 tensor): %.4f ms = %.2f TB/s (read + write)\n", cs.median,
                2 * inputBytes / (cs.median * 1e-3) / 1e12);

    nlohmann::json doc{{"benchmark", "gpu_quant"},
                       {"date", bench::utcNow()},
                       {"device", info.name},
                       {"api", info.api},
                       {"sms", info.multiProcessors},
                       {"rows", rows},
                       {"cols", cols},
                       {"dtype", "BF16"},
                       {"distribution", "Student-t nu=5, scale 0.02, seed 42"},
                       {"work", "codes + scales (+ zero points) written, Ŵ not written; metrics: error sums, max, "
                                "moments of W and Ŵ, W/Ŵ/error histograms (256 bins), 4096-bin |error| histogram, "
                                "percentiles 50/90/99/99.9, overlap"},
                       {"timing", "CUDA events; L2 flushed (2×L2 ≥ 128 MiB written, as much again read: cold and "
                                  "clean) and ~1 ms device spin before "
                                  "each repeat; median after warm-up"},
                       {"copy_floor_ms", cs.median},
                       {"copy_floor_tb_per_s", 2 * inputBytes / (cs.median * 1e-3) / 1e12},
                       {"results", results},
                       {"ablations", ablations}};
    if (!out.empty()) {
        std::filesystem::create_directories(out);
        std::ofstream f(std::filesystem::path(out) / "gpu_quant.json");
        f << doc.dump(1) << '\n';
    }
    return 0;
}
