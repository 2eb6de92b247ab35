// SPDX-License-Identifier: MIT
// The GEMM timing lab on the device (issue 21): Y[M,N] = X[M,K]·W[N,K]ᵀ through cuBLASLt for
// N = 4096, K = 14336 (--rows N --cols K) over the default M sweep 1 … 8192, every format (bf16,
// fp8, fp8-rowwise, int8), exactly as `quantscope-cli gemm-bench` times it (Engine::timeGemms:
// device events around each call, warm-up, median of --repeats ≥ 20, rotating buffers while the
// working set fits in L2, each plan's output checked once against an FP64 host reference).
// bench/gemm_lab_torch.py times PyTorch's matmul, _scaled_mm and _int_mm the same way beside it.
// Usage: qs_bench_gpu_gemmlab [--out DIR] [--rows N] [--cols K] [--repeats R] [--warmup W]
//                             [--m-sweep LIST] [--formats LIST]
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "bench_common.h"
#include "host/engine.h"
#include "sim/gemm_bench.h"

using namespace quantscope;

int main(int argc, char **argv)
{
    bench::CommonOptions opt;
    opt.rows = 4096;
    opt.cols = 14336;
    opt.repeats = 50;
    opt.warmup = 10;
    GemmBenchRequest req;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        auto next = [&]() -> std::string { return i + 1 < argc ? argv[++i] : std::string(); };
        if (opt.take(argc, argv, i))
            continue;
        if (a == "--m-sweep")
            req.m = parseMSweep(next());
        else if (a == "--formats")
            req.formats = parseGemmFormats(next());
    }
    req.n = opt.rows;
    req.k = opt.cols;
    req.repeats = std::max(20, opt.repeats);
    req.warmup = opt.warmup;
    std::string reason;
    auto engine = gpu::Engine::create(0, reason);
    if (!engine) {
        std::fprintf(stderr, "no GPU: %s\n", reason.c_str());
        return 2;
    }
    const gpu::EngineInfo info = engine->info();
    std::printf("device: %s (%s, %d SMs), N=%lld K=%lld\n", info.name.c_str(), info.api.c_str(), info.multiProcessors,
                static_cast<long long>(req.n), static_cast<long long>(req.k));
    const auto pts = engine->timeGemms(req, nullptr);
    std::printf("%-12s %6s %10s %10s %9s %9s  %s\n", "format", "M", "time_us", "cold_us", "TFLOP/s", "GB/s", "note");
    for (const auto &p : pts)
        std::printf("%-12s %6lld %10.2f %10.2f %9.1f %9.1f  %s%s\n", p.format.c_str(), static_cast<long long>(p.m),
                    p.timeUs, p.coldUs, p.tflops, p.gbps,
                    p.padded ? ("padded to " + std::to_string(p.paddedM) + "; ").c_str() : "", p.note.c_str());
    bool checksOk = true;
    for (const auto &c : engine->gemmLabChecks())
        checksOk = checksOk && c.samples > 0 && c.worst <= 1.0;
    GemmBenchResult r;
    r.device = "cuda:0";
    r.points = pts;
    nlohmann::json doc{{"benchmark", "gpu_gemmlab"},
                       {"date", bench::utcNow()},
                       {"device", info.name},
                       {"api", info.api},
                       {"sms", info.multiProcessors},
                       {"n", req.n},
                       {"k", req.k},
                       {"repeats", req.repeats},
                       {"warmup", req.warmup},
                       {"timing", "CUDA events around each call on the engine stream; warm-up; median of the repeats; "
                                  "rotating operand copies while the working set is under 2x L2"},
                       {"outputs_checked", checksOk},
                       {"result", toJson(r)}};
    if (!opt.out.empty()) {
        std::filesystem::create_directories(opt.out);
        std::ofstream f(std::filesystem::path(opt.out) / "gpu_gemmlab.json");
        f << doc.dump(1) << '\n';
    }
    return checksOk ? 0 : 1;
}
