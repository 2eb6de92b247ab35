// SPDX-License-Identifier: MIT
// GPU c-sweep benchmark (issue 18, the sweep-c bars): constOpt's MSE(c) on a 14336×4096 BF16
// Student-t tensor resident on the device, group 32, no rotation: pow2 with 64 values of c and
// with the default 701-value grid, unrounded with 64 values. Two timings per case:
//   grid          the evaluator's mse(grid) alone (the FP32 matrix, group absmax and unit ready):
//                 upload of the c values, the tile kernels, the integer reductions, the download
//   end_to_end    from the resident BF16 tensor: decode to FP32 (Engine::hadamardRows with d = 0),
//                 the group pass (absmax, non-finite groups, unit), then the grid
// Timing: device events around host calls that synchronise (so host gaps count), L2 flushed and
// ~1 ms device spin before each repeat; median of --repeats after --warmup. With verification
// (default) each case's MSEs are compared bit for bit with the CPU evaluator. JSON to --out DIR.
// Usage: qs_bench_gpu_sweep [--out DIR] [--rows R] [--cols C] [--repeats N] [--warmup N] [--no-verify]
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench_common.h"
#include "bench_gpu_hooks.h"
#include "host/engine.h"
#include "quant/constopt_sweep.h"

using namespace quantscope;

int main(int argc, char **argv)
{
    bench::CommonOptions opt;
    bool verify = true;
    for (int i = 1; i < argc; ++i) {
        if (opt.take(argc, argv, i))
            continue;
        if (std::string(argv[i]) == "--no-verify")
            verify = false;
    }
    const std::int64_t rows = opt.rows, cols = opt.cols, group = 32;
    const int repeats = opt.repeats, warmup = opt.warmup;
    std::string reason;
    auto engine = gpu::Engine::create(0, reason);
    if (!engine) {
        std::fprintf(stderr, "no GPU: %s\n", reason.c_str());
        return 2;
    }
    const gpu::EngineInfo info = engine->info();
    std::printf("device: %s (%s, %d SMs)\n", info.name.c_str(), info.api.c_str(), info.multiProcessors);
    bench::GpuHooks hooks(engine->stream(), info.l2Bytes);
    const std::int64_t n = rows * cols;
    const Tensor w = Tensor::fromBytes(DType::BF16, {rows, cols}, bench::studentTBf16(n, 42));
    const auto dw = engine->upload(w, "bench");
    std::shared_ptr<const gpu::GpuTensor> x = engine->hadamardRows(*dw, 0);
    std::vector<float> host; // the decoded tensor for the CPU evaluator (verification)
    if (verify)
        host = engine->downloadFloats(*x);

    auto grid = [](int count, double lo, double step) {
        std::vector<double> cs;
        for (int i = 0; i < count; ++i)
            cs.push_back(lo + static_cast<double>(i) * step);
        return cs;
    };
    struct Case {
        const char *name;
        bool pow2;
        std::vector<double> cs;
    };
    // 64 values: the default range [0.05, 0.40] at 64 points; 701: the default grid.
    const std::vector<Case> cases = {{"pow2_64", true, grid(64, 0.05, 0.35 / 63)},
                                     {"pow2_701", true, grid(701, 0.05, 0.0005)},
                                     {"unrounded_64", false, grid(64, 0.05, 0.35 / 63)}};
    nlohmann::json results = nlohmann::json::array();
    std::printf("%-14s %-11s %9s %9s %9s\n", "case", "mode", "median", "p10", "p90");
    for (const auto &c : cases) {
        auto ev = engine->sweepEvaluator(x, group, c.pow2);
        nlohmann::json r{{"case", c.name},
                         {"encoder", c.pow2 ? "pow2" : "unrounded"},
                         {"values", c.cs.size()},
                         {"group", group},
                         {"rotate", 0}};
        for (int mode = 0; mode < 2; ++mode) {
            std::vector<double> ms;
            for (int rep = 0; rep < warmup + repeats; ++rep) {
                hooks.flushL2();
                hooks.deviceSleep(1.0f);
                engine->recordStart();
                if (mode == 0) {
                    (void)ev->mse(c.cs, nullptr);
                } else {
                    auto xx = engine->hadamardRows(*dw, 0);
                    (void)engine->sweepEvaluator(xx, group, c.pow2)->mse(c.cs, nullptr);
                }
                engine->recordStop();
                const float t = engine->elapsedMs();
                if (rep >= warmup)
                    ms.push_back(t);
            }
            const bench::Summary s = bench::summarize(ms);
            const char *mode_ = mode == 0 ? "grid" : "end_to_end";
            std::printf("%-14s %-11s %9.4f %9.4f %9.4f\n", c.name, mode_, s.median, s.p10, s.p90);
            r[mode_] = {{"median_ms", s.median}, {"p10_ms", s.p10},    {"p90_ms", s.p90},
                        {"min_ms", s.min},       {"repeats", repeats}, {"warmup", warmup}};
        }
        const auto dev = ev->mse(c.cs, nullptr);
        r["mse_min"] = *std::min_element(dev.begin(), dev.end());
        if (verify) {
            const auto cpu = makeCpuSweepEvaluator(host, rows, cols, group,
                                                   c.pow2 ? ConstOptEncoder::Pow2 : ConstOptEncoder::Unrounded,
                                                   static_cast<float>(c.cs.front()), static_cast<float>(c.cs.back()), 0)
                                 ->mse(c.cs, nullptr);
            std::size_t diff = 0;
            for (std::size_t i = 0; i < cpu.size(); ++i)
                diff += std::memcmp(&cpu[i], &dev[i], 8) != 0;
            std::printf("   verify vs CPU: %zu of %zu MSEs differ\n", diff, cpu.size());
            r["verify"] = {{"mse_differ", diff}};
        }
        results.push_back(r);
    }
    nlohmann::json doc{{"benchmark", "gpu_sweep"},
                       {"date", bench::utcNow()},
                       {"device", info.name},
                       {"api", info.api},
                       {"sms", info.multiProcessors},
                       {"rows", rows},
                       {"cols", cols},
                       {"dtype", "BF16"},
                       {"distribution", "Student-t nu=5, scale 0.02, seed 42"},
                       {"work", "constOpt MSE(c), group 32, no rotation, exact 128-bit fixed-point sums"},
                       {"timing", "device events around synchronising host calls; L2 flushed and ~1 ms device spin "
                                  "before each repeat; median after warm-up"},
                       {"results", results}};
    if (!opt.out.empty()) {
        std::filesystem::create_directories(opt.out);
        std::ofstream f(std::filesystem::path(opt.out) / "gpu_sweep.json");
        f << doc.dump(1) << '\n';
    }
    return 0;
}
