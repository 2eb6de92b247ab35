// SPDX-License-Identifier: MIT
// The GEMM timing lab on the device (issue 21): Y[M,N] = X[M,K]·W[N,K]ᵀ through cuBLASLt for
// N = 4096, K = 14336 (--rows N --cols K) over the default M sweep 1 … 8192, every format (bf16,
// fp8, fp8-rowwise, int8), exactly as `quantscope-cli gemm-bench` times it (Engine::timeGemms:
// device events around each call, warm-up, median and spread of --repeats ≥ 20, rotating buffers
// while the working set fits in L2, each plan's algorithm the fastest of the heuristic's candidates
// and its output checked once on every element against FP64 on the device).
// bench/gemm_lab_torch.py times PyTorch's matmul, _scaled_mm and _int_mm the same way beside it;
// with --round K the JSON is gpu_gemmlab.round<K>.json (scripts/device-run.sh runs the pair
// QS_GEMMLAB_ROUNDS times, interleaved, and bench/gemm_lab_rounds.py tallies the bar per round).
// Usage: qs_bench_gpu_gemmlab [--out DIR] [--rows N] [--cols K] [--repeats R] [--warmup W]
//                             [--m-sweep LIST] [--formats LIST] [--round K]
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include <cublasLt.h>
#include <dlfcn.h>
#include <nlohmann/json.hpp>

#include "bench_common.h"
#include "host/engine.h"
#include "sim/gemm_bench.h"

using namespace quantscope;

namespace {
/// The cuBLASLt library this process loaded (its path), so that a run says which build it timed.
std::string cublasLtLibrary()
{
    Dl_info info{};
    if (dladdr(reinterpret_cast<void *>(&cublasLtGetVersion), &info) != 0 && info.dli_fname)
        return info.dli_fname;
    return "unknown";
}
} // namespace

int main(int argc, char **argv)
{
    bench::CommonOptions opt;
    opt.rows = 4096;
    opt.cols = 14336;
    opt.repeats = 50;
    opt.warmup = 10;
    GemmBenchRequest req;
    int round = 0;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        auto next = [&]() -> std::string { return i + 1 < argc ? argv[++i] : std::string(); };
        if (opt.take(argc, argv, i))
            continue;
        if (a == "--m-sweep")
            req.m = parseMSweep(next());
        else if (a == "--formats")
            req.formats = parseGemmFormats(next());
        else if (a == "--round")
            round = std::stoi(next());
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
    std::printf("cuBLASLt %zu from %s\n", cublasLtGetVersion(), cublasLtLibrary().c_str());
    std::printf("%-12s %6s %10s %10s %10s %10s %10s %9s %6s  %s\n", "format", "M", "median_us", "min_us", "p10_us",
                "p90_us", "max_us", "TFLOP/s", "algo", "note");
    for (const auto &p : pts)
        std::printf("%-12s %6lld %10.2f %10.2f %10.2f %10.2f %10.2f %9.1f %2d/%-3d  %s%s\n", p.format.c_str(),
                    static_cast<long long>(p.m), p.timeUs, p.timeMinUs, p.timeP10Us, p.timeP90Us, p.timeMaxUs, p.tflops,
                    p.algoIndex, p.algosTried,
                    p.padded ? ("padded to " + std::to_string(p.paddedM) + "; ").c_str() : "", p.note.c_str());
    bool checksOk = true;
    for (const auto &c : engine->gemmLabChecks()) {
        checksOk = checksOk && c.samples > 0 && c.worst <= 1.0;
        if (!(c.samples > 0 && c.worst <= 1.0))
            std::printf("CHECK FAILED: %s M=%lld, worst %.3g of the bound over %d outputs\n", c.format.c_str(),
                        static_cast<long long>(c.m), c.worst, c.samples);
    }
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
                       {"round", round},
                       {"timing", "CUDA events around each call on the engine stream; warm-up; median and spread "
                                  "(min, p10, p90, max) of the repeats; rotating operand copies while the working set "
                                  "is under 2x L2; each plan's cuBLASLt algorithm the fastest of the heuristic's "
                                  "candidates (up to 16, 3 interleaved rounds of 3 launches each; algo_index, "
                                  "algos_tried); 32 MiB cuBLASLt workspace"},
                       {"outputs_checked", checksOk},
                       {"cublaslt_version", cublasLtGetVersion()},
                       {"cublaslt_library", cublasLtLibrary()},
                       {"result", toJson(r)}};
    if (!opt.out.empty()) {
        std::filesystem::create_directories(opt.out);
        const std::string name =
            round > 0 ? "gpu_gemmlab.round" + std::to_string(round) + ".json" : std::string("gpu_gemmlab.json");
        std::ofstream f(std::filesystem::path(opt.out) / name);
        f << doc.dump(1) << '\n';
    }
    return checksOk ? 0 : 1;
}
