// SPDX-License-Identifier: MIT
// The output-aware error tr(ΔW G ΔWᵀ) on the device (docs/numerics.md "Output-aware error"):
// W a 14336×4096 BF16 Student-t tensor (bench::studentTBf16, seed 42), Ŵ its INT4 g128 (the GPU
// pipeline, Ŵ kept on the device), G a full 4096² Gram of realistic shape (a rank-32 correlated
// part plus a noise floor, heavy-tailed channel scales, outlier channels; PSD, FP32).
// Timed start to finish (W, Ŵ on the device → the FP64 scalar on the host): with G resident
// (uploaded once per tensor, as the job does) and with G's upload; per precision (BF16 hi + lo =
// the product's, BF16 alone, TF32, FP32 SIMT) and DᵀD block size; the diagonal Gram. Accuracy:
// relative difference to the CPU's FP64 row blocks (core gramEnergy) on the same W, Ŵ, G.
// --tensor-out DIR writes w_bf16.bin, what_f32.bin, gram_f32.bin for bench/outerr_torch.py.
// Usage: qs_bench_gpu_outerr [--out DIR] [--repeats N] [--rows R --cols K] [--tensor-out DIR] [--no-cpu]
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench_common.h"
#include "engine/registry.h"
#include "engine/run.h"
#include "host/engine.h"
#include "metrics/output_error.h"
#include "register.h"

using namespace quantscope;

namespace {

/// G = S·(U Uᵀ/r + 0.05·I)·S: correlated channels (rank r), a noise floor, heavy-tailed scales s_j
/// and a few outlier channels (×20): what a capture of a transformer's inputs looks like.
std::vector<float> realisticGram(std::int64_t k, std::uint64_t seed)
{
    const std::int64_t r = 32;
    std::mt19937_64 rng(seed);
    std::normal_distribution<double> nd(0.0, 1.0);
    std::student_t_distribution<double> t(3.0);
    std::vector<double> u(static_cast<std::size_t>(k * r)), s(static_cast<std::size_t>(k));
    for (auto &x : u)
        x = nd(rng);
    for (std::int64_t j = 0; j < k; ++j)
        s[static_cast<std::size_t>(j)] = (0.5 + std::abs(t(rng)) * 0.5) * (j % 997 == 13 ? 20.0 : 1.0);
    std::vector<float> g(static_cast<std::size_t>(k * k));
    for (std::int64_t i = 0; i < k; ++i)
        for (std::int64_t j = 0; j <= i; ++j) {
            double c = 0;
            for (std::int64_t q = 0; q < r; ++q)
                c += u[static_cast<std::size_t>(i * r + q)] * u[static_cast<std::size_t>(j * r + q)];
            c = c / static_cast<double>(r) + (i == j ? 0.05 : 0.0);
            const auto v = static_cast<float>(c * s[static_cast<std::size_t>(i)] * s[static_cast<std::size_t>(j)]);
            g[static_cast<std::size_t>(i * k + j)] = v;
            g[static_cast<std::size_t>(j * k + i)] = v;
        }
    return g;
}

template <typename T> void writeRaw(const std::filesystem::path &p, const T *d, std::size_t n)
{
    std::ofstream(p, std::ios::binary)
        .write(reinterpret_cast<const char *>(d), static_cast<std::streamsize>(n * sizeof(T)));
}

} // namespace

int main(int argc, char **argv)
{
    registerGpuBackends();
    bench::CommonOptions opt;
    opt.repeats = 20;
    std::string tensorOut;
    bool cpu = true;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (opt.take(argc, argv, i))
            continue;
        if (a == "--tensor-out" && i + 1 < argc)
            tensorOut = argv[++i];
        else if (a == "--no-cpu")
            cpu = false;
    }
    std::string reason;
    auto engine = gpu::Engine::create(0, reason);
    if (!engine) {
        std::fprintf(stderr, "no GPU: %s\n", reason.c_str());
        return 2;
    }
    const std::int64_t N = opt.rows, K = opt.cols;
    const Tensor w = Tensor::fromBytes(DType::BF16, {N, K}, bench::studentTBf16(N * K, 42));
    const QuantSpec spec = parseQuantSpec({{"method", "int"}, {"bits", 4}, {"group", 128}});
    auto dw = engine->upload(w, "w");
    gpu::PipelineOptions po;
    po.metrics = false;
    po.wantDequantized = true;
    po.keepDequantizedOnDevice = true;
    po.downloadCodes = false;
    auto run = engine->enqueue(*dw, &spec, po);
    QuantizedTensor q;
    engine->collect(*run, &q, nullptr);
    const auto dHat = engine->dequantizedOnDevice(*run);
    const std::vector<float> wHat = engine->downloadFloats(*dHat);
    const auto t0 = std::chrono::steady_clock::now();
    const std::vector<float> g32 = realisticGram(K, 7);
    GramMatrix g;
    g.k = K;
    g.value.assign(g32.begin(), g32.end());
    g.tokens = 4096;
    GramMatrix gd;
    gd.k = K;
    gd.diagonal = true;
    gd.tokens = g.tokens;
    for (std::int64_t j = 0; j < K; ++j)
        gd.value.push_back(g.value[static_cast<std::size_t>(j * K + j)]);
    std::printf("W %lld x %lld BF16, Ŵ INT4 g128 on the device, G %lld² (built in %.1f s)\n", static_cast<long long>(N),
                static_cast<long long>(K), static_cast<long long>(K),
                std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    if (!tensorOut.empty()) {
        std::filesystem::create_directories(tensorOut);
        writeRaw(std::filesystem::path(tensorOut) / "w_bf16.bin", w.data(), static_cast<std::size_t>(w.numel() * 2));
        writeRaw(std::filesystem::path(tensorOut) / "what_f32.bin", wHat.data(), wHat.size());
        writeRaw(std::filesystem::path(tensorOut) / "gram_f32.bin", g32.data(), g32.size());
    }
    // The CPU's FP64 reference (row blocks, every thread).
    double cpuErr = NAN, cpuRef = NAN, cpuDiag = NAN, cpuMs = NAN;
    if (cpu) {
        std::vector<float> wf(static_cast<std::size_t>(N * K));
        w.decodeTo(wf);
        const auto c0 = std::chrono::steady_clock::now();
        cpuErr = gramEnergy(wf, wHat, N, g);
        cpuMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - c0).count();
        cpuRef = gramEnergy(wf, {}, N, g);
        cpuDiag = gramEnergy(wf, wHat, N, gd);
        std::printf("CPU FP64: error %.12g  reference %.12g  diagonal %.12g  (%.0f ms for the error)\n", cpuErr, cpuRef,
                    cpuDiag, cpuMs);
    }
    auto rel = [](double a, double b) { return std::isnan(b) ? NAN : std::abs(a - b) / std::abs(b); };
    nlohmann::json results = nlohmann::json::array();
    auto dg = engine->uploadGram(g);
    auto dgd = engine->uploadGram(gd);
    struct Case {
        const char *name;
        gpu::GramPrecision precision;
        std::int64_t block, chunk;
        bool diagonal;
    };
    using P = gpu::GramPrecision;
    constexpr std::int64_t one = 1 << 30; // one chain / the full product
    for (const Case c :
         {Case{"bf16x3", P::Bf16Split, 0, 0, false}, Case{"bf16x3_chunk1024", P::Bf16Split, 0, 1024, false},
          Case{"bf16x3_chunk4096", P::Bf16Split, 0, 4096, false}, Case{"bf16x3_onechain", P::Bf16Split, 0, one, false},
          Case{"bf16x3_block512", P::Bf16Split, 512, 0, false}, Case{"bf16x3_block2048", P::Bf16Split, 2048, 0, false},
          Case{"bf16x3_full", P::Bf16Split, one, 0, false}, Case{"bf16", P::Bf16, 0, 0, false},
          Case{"bf16_onechain", P::Bf16, 0, one, false}, Case{"tf32", P::Tf32, 0, 0, false},
          Case{"tf32_onechain", P::Tf32, 0, one, false}, Case{"fp32", P::Fp32, 0, one, false},
          Case{"diagonal", P::Bf16Split, 0, 0, true}}) {
        gpu::GramEnergyOptions o;
        o.precision = c.precision;
        o.block = c.block;
        o.chunkRows = c.chunk;
        const gpu::GramOnDevice &G = c.diagonal ? *dgd : *dg;
        std::vector<double> dev, wall;
        double e = 0;
        for (int rep = 0; rep < opt.repeats + 2; ++rep) {
            float ms = 0;
            const auto a = std::chrono::steady_clock::now();
            e = engine->gramEnergy(*dw, dHat.get(), G, o, &ms);
            const double wms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - a).count();
            if (rep >= 2) {
                dev.push_back(ms);
                wall.push_back(wms);
            }
        }
        const double ref = engine->gramEnergy(*dw, nullptr, G, o);
        nlohmann::json stages = nlohmann::json::object(); // one more run with stage marks
        engine->profileStages(true);
        (void)engine->gramEnergy(*dw, dHat.get(), G, o);
        for (const auto &[stage, t] : engine->stageTimes())
            stages[stage] = t;
        engine->profileStages(false);
        const bench::Summary sd = bench::summarize(dev), sw = bench::summarize(wall);
        const double r = rel(e, c.diagonal ? cpuDiag : cpuErr), rr = c.diagonal ? NAN : rel(ref, cpuRef);
        std::printf("%-18s device %8.3f ms  wall %8.3f ms  error %.12g  rel.diff vs CPU FP64 %.2e (tr(WGWᵀ) %.2e)\n",
                    c.name, sd.median, sw.median, e, r, rr);
        results.push_back({{"case", c.name},
                           {"device_median_ms", sd.median},
                           {"device_min_ms", sd.min},
                           {"wall_median_ms", sw.median},
                           {"error", e},
                           {"reference", ref},
                           {"rel_diff_vs_cpu_fp64", r},
                           {"reference_rel_diff_vs_cpu_fp64", rr},
                           {"stage_ms", stages}});
        std::printf("    stages: %s\n", stages.dump().c_str());
    }
    // Start to finish with G's upload (what the first run on a tensor pays), the product's precision.
    std::vector<double> withUpload, uploadOnly;
    for (int rep = 0; rep < std::max(3, opt.repeats / 4); ++rep) {
        const auto a = std::chrono::steady_clock::now();
        auto fresh = engine->uploadGram(g);
        const auto b = std::chrono::steady_clock::now();
        (void)engine->gramEnergy(*dw, dHat.get(), *fresh);
        const auto c = std::chrono::steady_clock::now();
        uploadOnly.push_back(std::chrono::duration<double, std::milli>(b - a).count());
        withUpload.push_back(std::chrono::duration<double, std::milli>(c - a).count());
    }
    const bench::Summary su = bench::summarize(withUpload), so = bench::summarize(uploadOnly);
    std::printf("bf16x3 with G's upload: %.3f ms (the upload alone %.3f ms)\n", su.median, so.median);
    const gpu::EngineInfo info = engine->info();
    const nlohmann::json doc{{"benchmark", "gpu_outerr"},
                             {"device", info.name},
                             {"rows", N},
                             {"cols", K},
                             {"w", "studentTBf16 seed 42, BF16"},
                             {"w_hat", "int bits 4 group 128 (GPU pipeline, kept on the device)"},
                             {"gram", "S (U Uᵀ/32 + 0.05 I) S, K², FP32"},
                             {"cpu_fp64_error", cpuErr},
                             {"cpu_fp64_reference", cpuRef},
                             {"cpu_fp64_diagonal", cpuDiag},
                             {"cpu_fp64_ms", cpuMs},
                             {"with_gram_upload_wall_median_ms", su.median},
                             {"gram_upload_wall_median_ms", so.median},
                             {"repeats", opt.repeats},
                             {"results", results}};
    const std::string out = opt.out.empty() ? "." : opt.out;
    std::filesystem::create_directories(out);
    std::ofstream(std::filesystem::path(out) / "gpu_outerr.json") << doc.dump(1) << '\n';
    return 0;
}
