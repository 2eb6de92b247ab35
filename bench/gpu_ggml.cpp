// SPDX-License-Identifier: MIT
// llama.cpp's block quantizers on the device (docs/numerics.md "GGUF block types on the GPU"; issue
// 45): W a BF16 Student-t 14336×4096 tensor (bench::studentTBf16, seed 42) resident on the device;
// per type (default Q4_0, Q4_K, Q6_K, Q2_K) and, for the K-quants, without and with importance
// weights (log-normal per column, seed 47, like an imatrix's mean x²): Engine::gguf timed as device
// time of the quantize kernel (events on the engine's stream; blocks and scales only) and as the
// whole call on the host (with the scales' download), and the quantize + Ŵ + fused metrics call on
// the host. No GPU peer exists for these quantizers (llama.cpp quantizes on the CPU), so the
// reference is the CPU: --cpu (on by default; --no-cpu skips) times ggml::quantizeRows — ggml's
// own row drivers, one thread, as the CPU method runs them — on the same FP32 values and records
// whether the device's blocks equal its bytes.
// Usage: qs_bench_gpu_ggml [--out DIR] [--repeats N] [--rows N] [--cols K] [--types q4_0,q4_k,…] [--no-cpu]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <span>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench_common.h"
#include "ggml/ggml_quantize.h"
#include "host/engine.h"
#include "quant/gguf_quant.h"
#include "register.h"

using namespace quantscope;

namespace {

std::vector<std::string> parseNames(const std::string &s)
{
    std::vector<std::string> v;
    std::stringstream ss(s);
    for (std::string item; std::getline(ss, item, ',');)
        if (!item.empty())
            v.push_back(item);
    return v;
}

std::vector<float> importanceOf(std::int64_t k)
{
    std::mt19937_64 rng(47);
    std::lognormal_distribution<float> ln(-6.0f, 1.5f);
    std::vector<float> w(static_cast<std::size_t>(k));
    for (auto &v : w)
        v = ln(rng);
    return w;
}

double msSince(std::chrono::steady_clock::time_point t0)
{
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

} // namespace

int main(int argc, char **argv)
{
    registerGpuBackends();
    bench::CommonOptions opt;
    opt.out = ".";
    opt.repeats = 10;
    std::vector<std::string> types{"q4_0", "q4_k", "q6_k", "q2_k"};
    bool cpu = true;
    for (int i = 1; i < argc; ++i) {
        if (opt.take(argc, argv, i))
            continue;
        const std::string a = argv[i];
        if (a == "--types" && i + 1 < argc)
            types = parseNames(argv[++i]);
        else if (a == "--no-cpu")
            cpu = false;
        else if (a == "--cpu")
            cpu = true;
        else {
            std::fprintf(stderr, "unknown option %s\n", a.c_str());
            return 2;
        }
    }
    std::string reason;
    auto engine = gpu::Engine::create(0, reason);
    if (!engine) {
        std::fprintf(stderr, "no GPU: %s\n", reason.c_str());
        return 2;
    }
    const std::int64_t N = opt.rows, K = opt.cols;
    const Tensor w = Tensor::fromBytes(DType::BF16, {N, K}, bench::studentTBf16(N * K, 42));
    const Tensor wf = cpu ? w.toF32().contiguous() : Tensor();
    const std::vector<float> imp = importanceOf(K);
    auto dw = engine->upload(w, "w");
    std::printf("W %lld x %lld BF16 on the device\n", static_cast<long long>(N), static_cast<long long>(K));

    nlohmann::json results = nlohmann::json::array();
    for (const std::string &type : types) {
        for (const bool weighted : {false, true}) {
            GgufQuantSpec spec;
            try {
                spec = GgufQuantSpec::fromJson({{"method", "gguf"}, {"type", type}, {"imatrix", weighted}});
            } catch (const std::exception &) {
                if (weighted)
                    continue; // a legacy type: no importance-weighted search
                throw;
            }
            const std::span<const float> qw = weighted ? std::span<const float>(imp) : std::span<const float>();
            std::vector<double> device, wall, measured;
            gpu::GgufDeviceOptions plain;
            gpu::GgufDeviceOptions withMetrics;
            withMetrics.metrics = true;
            for (int rep = 0; rep < opt.repeats + 1; ++rep) { // the first run warms the pool
                auto t0 = std::chrono::steady_clock::now();
                const gpu::GgufDeviceResult r = engine->gguf(*dw, spec, qw, plain);
                const double ms = msSince(t0);
                t0 = std::chrono::steady_clock::now();
                (void)engine->gguf(*dw, spec, qw, withMetrics);
                const double mms = msSince(t0);
                if (rep > 0) {
                    device.push_back(r.deviceMs);
                    wall.push_back(ms);
                    measured.push_back(mms);
                }
            }
            const bench::Summary sd = bench::summarize(device), sw = bench::summarize(wall),
                                 sm = bench::summarize(measured);
            const std::string label = type + (weighted ? " imatrix" : "");
            std::printf("%-12s device %9.3f ms, whole call %9.3f ms, with Ŵ + metrics %9.3f ms", label.c_str(),
                        sd.median, sw.median, sm.median);
            nlohmann::json entry{{"type", type},
                                 {"imatrix", weighted},
                                 {"device_median_ms", sd.median},
                                 {"device_min_ms", sd.min},
                                 {"device_p90_ms", sd.p90},
                                 {"wall_median_ms", sw.median},
                                 {"measured_wall_median_ms", sm.median}};
            if (cpu) {
                gpu::GgufDeviceOptions blocksOpt;
                blocksOpt.wantBlocks = true;
                const gpu::GgufDeviceResult g = engine->gguf(*dw, spec, qw, blocksOpt);
                const auto c0 = std::chrono::steady_clock::now();
                const std::vector<std::byte> c = ggml::quantizeRows(
                    spec.type, reinterpret_cast<const float *>(wf.data()), N, K, weighted ? imp.data() : nullptr);
                const double cms = msSince(c0);
                const bool equal = c.size() == g.blocks.size() && std::memcmp(c.data(), g.blocks.data(), c.size()) == 0;
                std::printf(", CPU (1 thread) %9.1f ms, blocks %s", cms, equal ? "equal" : "DIFFERENT");
                entry["cpu"] = {{"ms", cms}, {"threads", 1}, {"blocks_equal", equal}};
            }
            std::printf("\n");
            results.push_back(entry);
        }
    }
    const gpu::EngineInfo info = engine->info();
    const nlohmann::json doc{
        {"benchmark", "gpu_ggml"},
        {"date", bench::utcNow()},
        {"device", info.name},
        {"n", N},
        {"k", K},
        {"w", "studentTBf16 seed 42, BF16, resident on the device"},
        {"importance", "log-normal(-6, 1.5) per column, seed 47"},
        {"device_ms", "the quantize kernel (blocks and scales, events)"},
        {"wall_ms", "Engine::gguf on the host: importance upload, kernel, scales download"},
        {"measured_wall_ms", "Engine::gguf with Ŵ on the device and the fused metrics"},
        {"cpu", "ggml::quantizeRows (ggml's row drivers), one thread, on the FP32 values of W; no GPU peer exists"},
        {"repeats", opt.repeats},
        {"results", results}};
    std::filesystem::create_directories(opt.out);
    std::ofstream(std::filesystem::path(opt.out) / "gpu_ggml.json") << doc.dump(1) << '\n';
    return 0;
}
