// SPDX-License-Identifier: MIT
// HQQ on the device (issue 19): a 4096×14336 BF16 Student-t tensor (bench::studentTBf16, seed 42,
// the generator of qs_bench_gpu_quant) resident on the device; HQQ 4-bit g64 axis 1 (the headline,
// hqq-lib preset: the released library's HQQLinear default) with compute fp16 (the library on
// CUDA) and fp32, 3-bit and axis 0 beside it. Two modes per case: quantize only (codes, stored
// scales and zero points: the work of the library's Quantizer.quantize with bitpack=False) and
// with the fused metrics of Ŵ. bench/hqq_lib_bench.py times the released library on the same
// tensor (--tensor-out) and settings.
// Timing as qs_bench_gpu_quant: device events; before each repeat the L2 is flushed and the device
// spins ~1 ms so the whole run is queued before the start event; median of --repeats after
// --warmup. One more run per case reports the iterations the stop rule ran, the relative
// Frobenius error, and (unless --no-verify) the comparison with the CPU reference.
// Usage: qs_bench_gpu_hqq [--out DIR] [--rows R] [--cols C] [--repeats N] [--warmup N]
//                         [--tensor-out FILE] [--no-verify] [--only CASE]
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench_common.h"
#include "bench_gpu_hooks.h"
#include "engine/registry.h"
#include "engine/run.h"
#include "host/engine.h"
#include "quant/hqq.h"

using namespace quantscope;

int main(int argc, char **argv)
{
    bench::CommonOptions opt;
    opt.rows = 4096;
    opt.cols = 14336;
    opt.repeats = 30;
    std::string tensorOut, only;
    bool verify = true;
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
    const std::int64_t rows = opt.rows, cols = opt.cols, n = rows * cols;
    std::string reason;
    auto engine = gpu::Engine::create(0, reason);
    if (!engine) {
        std::fprintf(stderr, "no GPU: %s\n", reason.c_str());
        return 2;
    }
    const gpu::EngineInfo info = engine->info();
    std::printf("device: %s (%s, %d SMs)\n", info.name.c_str(), info.api.c_str(), info.multiProcessors);
    bench::GpuHooks hooks(engine->stream(), info.l2Bytes);
    auto bytes = bench::studentTBf16(n, 42);
    if (!tensorOut.empty()) {
        std::ofstream f(tensorOut, std::ios::binary);
        f.write(reinterpret_cast<const char *>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    }
    const Tensor w = Tensor::fromBytes(DType::BF16, {rows, cols}, std::move(bytes));
    const auto dw = engine->upload(w, "bench");

    struct Case {
        const char *name;
        nlohmann::json spec;
        bool headline;
    };
    auto hqq = [](int bits, int axis, const char *compute, const char *preset = "hqq-lib") {
        return nlohmann::json{{"method", "hqq"}, {"preset", preset}, {"bits", bits},
                              {"group", 64},     {"axis", axis},     {"compute", compute}};
    };
    const std::vector<Case> cases = {
        {"hqq4_g64_a1_fp16", hqq(4, 1, "fp16"), true},
        {"hqq4_g64_a1_fp32", hqq(4, 1, "fp32"), true},
        {"hqq3_g64_a1_fp16", hqq(3, 1, "fp16"), false},
        {"hqq3_g64_a1_fp32", hqq(3, 1, "fp32"), false},
        {"hqq4_g64_a0_fp16", hqq(4, 0, "fp16"), false},
        {"hqq4_g64_a0_fp32", hqq(4, 0, "fp32"), false},
        {"milo3_g64_a0_fp16", hqq(3, 0, "fp16", "milo-code"), false},
    };
    nlohmann::json results = nlohmann::json::array();
    std::printf("%-18s %-14s %9s %9s %9s %6s %10s\n", "case", "mode", "median", "p10", "p90", "iters", "rel_fro");
    for (const Case &c : cases) {
        if (!only.empty() && only != c.name)
            continue;
        const HqqSpec spec = HqqSpec::fromJson(c.spec);
        for (int mode = 0; mode < 2; ++mode) {
            gpu::PipelineOptions po;
            po.metrics = mode == 1;
            po.wantDequantized = false;
            std::vector<double> ms;
            for (int r = 0; r < opt.warmup + opt.repeats; ++r) {
                hooks.flushL2();
                hooks.deviceSleep(1.0f);
                engine->recordStart();
                auto run = engine->enqueueHqq(*dw, spec, po);
                engine->recordStop();
                const float t = engine->elapsedMs();
                if (r >= opt.warmup)
                    ms.push_back(t);
            }
            const bench::Summary s = bench::summarize(ms);
            // One more run with the stage events (the mode's own work; with metrics the metric run's
            // stages follow), then one that reports what was computed (iterations, error).
            engine->profileStages(true);
            hooks.flushL2();
            hooks.deviceSleep(1.0f);
            engine->recordStart();
            {
                auto run = engine->enqueueHqq(*dw, spec, po);
                engine->collectHqq(*run, nullptr, nullptr);
            }
            nlohmann::json stj = nlohmann::json::array();
            std::string st;
            for (const auto &[name, t] : engine->stageTimes()) {
                char b[96];
                std::snprintf(b, sizeof b, " %s %.4f;", name.c_str(), t);
                st += b;
                stj.push_back({{"stage", name}, {"ms", t}});
            }
            engine->profileStages(false);
            gpu::PipelineOptions pm = po;
            pm.metrics = true;
            QuantizedTensor q;
            ErrorMetrics m;
            {
                auto run = engine->enqueueHqq(*dw, spec, pm);
                engine->collectHqq(*run, &q, &m);
            }
            const char *modeName = mode == 0 ? "quantize_only" : "with_metrics";
            std::printf("%-18s %-14s %9.4f %9.4f %9.4f %6d %10.6f %s\n", c.name, modeName, s.median, s.p10, s.p90,
                        q.chosenPass, m.relFrobenius, st.c_str());
            nlohmann::json r{{"case", c.name},
                             {"spec", c.spec},
                             {"mode", modeName},
                             {"median_ms", s.median},
                             {"p10_ms", s.p10},
                             {"p90_ms", s.p90},
                             {"min_ms", s.min},
                             {"repeats", opt.repeats},
                             {"warmup", opt.warmup},
                             {"iterations", q.chosenPass},
                             {"rel_frobenius", m.relFrobenius},
                             {"sqnr_db", m.sqnrDb},
                             {"stages", stj}};
            if (verify && mode == 0 && c.headline) {
                RunOptions ro;
                ro.device = DeviceChoice::Cpu;
                ro.quantize.wantDequantized = false;
                const QuantizeRun cpu = runQuantize(w, parseQuantSpec(c.spec), ro);
                std::size_t codeDiff = 0, scaleDiff = 0, zeroDiff = 0;
                for (std::size_t i = 0; i < q.codes.size(); ++i)
                    codeDiff += q.codes[i] != cpu.quantized.codes[i];
                for (std::size_t j = 0; j < q.scales.size(); ++j) {
                    scaleDiff += std::memcmp(&q.scales[j], &cpu.quantized.scales[j], 4) != 0;
                    zeroDiff += std::memcmp(&q.zeroPoints[j], &cpu.quantized.zeroPoints[j], 4) != 0;
                }
                const bool sameIters = q.chosenPass == cpu.quantized.chosenPass;
                const double relDiff = std::abs(m.relFrobenius - cpu.metrics->relFrobenius) / cpu.metrics->relFrobenius;
                std::printf("   verify vs CPU: codes differ %zu, scales differ %zu, zeros differ %zu, iterations %s "
                            "(cpu %d), rel_fro rel diff %.2e\n",
                            codeDiff, scaleDiff, zeroDiff, sameIters ? "equal" : "DIFFER", cpu.quantized.chosenPass,
                            relDiff);
                r["verify"] = {{"codes_differ", codeDiff},
                               {"scales_differ", scaleDiff},
                               {"zeros_differ", zeroDiff},
                               {"iterations_equal", sameIters},
                               {"rel_frobenius_rel_diff", relDiff}};
            }
            results.push_back(r);
        }
    }
    nlohmann::json doc{{"benchmark", "gpu_hqq"},
                       {"date", bench::utcNow()},
                       {"device", info.name},
                       {"api", info.api},
                       {"sms", info.multiProcessors},
                       {"rows", rows},
                       {"cols", cols},
                       {"dtype", "BF16"},
                       {"distribution", "Student-t nu=5, scale 0.02, seed 42 (bench::studentTBf16)"},
                       {"work", "quantize_only: the whole HQQ optimisation, codes (uint8), stored scales and zero "
                                "points written (Ŵ not written); with_metrics: also Ŵ and the engine's fused metrics"},
                       {"timing", "CUDA events; L2 flushed and ~1 ms device spin before each repeat; median after "
                                  "warm-up"},
                       {"results", results}};
    if (!opt.out.empty()) {
        std::filesystem::create_directories(opt.out);
        std::ofstream f(std::filesystem::path(opt.out) / "gpu_hqq.json");
        f << doc.dump(1) << '\n';
    }
    return 0;
}
