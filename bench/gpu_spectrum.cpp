// SPDX-License-Identifier: MIT
// Residual spectra on the device (issue 20): the residual E = W − Ŵ of 3-bit HQQ (milo-code, g64,
// axis 0, on the device) of a 4096×14336 BF16 Student-t tensor (bench::studentTBf16, seed 42);
// singular values on the device: all of them by the FP64 Gram matrix + DSYEVD, by DGESVD and by
// the FP32 Gram matrix + SSYEVD; the top 512 (2, 4 and 8 power iterations) and the top 32 by the
// randomized sketch (oversampling 8), each along the route Auto picks (gpu::TopKRoute: the FP64
// Gram matrix of the smaller side, or FP32 products by E) and along the other one ("_direct",
// "_gram"; "_gram_gemm": G by DGEMM instead of DSYRK), so one run measures both; every QR in FP64.
// Reports the device time after the upload (median of --repeats) and the wall time with it, the
// top-32's max relative error against the FP64 all-σ values (the first case), the stage profile of
// one more run, and the issue-44 bar of the top 512 at 8 iterations (≤ 40 ms, top-32 ≤ 0.2 %); the
// σ go to the JSON so bench/spectrum_torch.py (torch.svd_lowrank, svdvals, eigvalsh of the Gram
// matrix on the same E, written with --tensor-out) can state its accuracy against them.
// Usage: qs_bench_gpu_spectrum [--out DIR] [--repeats N] [--tensor-out FILE]
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench_common.h"
#include "engine/registry.h"
#include "engine/run.h"
#include "host/engine.h"
#include "register.h"

using namespace quantscope;

int main(int argc, char **argv)
{
    registerGpuBackends();
    bench::CommonOptions opt;
    opt.rows = 4096;
    opt.cols = 14336;
    opt.repeats = 3;
    std::string tensorOut;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (opt.take(argc, argv, i))
            continue;
        if (a == "--tensor-out" && i + 1 < argc)
            tensorOut = argv[++i];
    }
    std::string reason;
    auto engine = gpu::Engine::create(0, reason);
    if (!engine) {
        std::fprintf(stderr, "no GPU: %s\n", reason.c_str());
        return 2;
    }
    const std::int64_t R = opt.rows, C = opt.cols;
    const Tensor w = Tensor::fromBytes(DType::BF16, {R, C}, bench::studentTBf16(R * C, 42));
    RunOptions ro;
    ro.device = DeviceChoice::Gpu;
    ro.metrics = false;
    ro.quantize.wantDequantized = true;
    const QuantizeRun run = runQuantize(
        w,
        parseQuantSpec(
            {{"method", "hqq"}, {"preset", "milo-code"}, {"bits", 3}, {"group", 64}, {"axis", 0}, {"compute", "fp16"}}),
        ro);
    std::vector<float> e(static_cast<std::size_t>(R * C));
    w.decodeTo(e);
    for (std::size_t i = 0; i < e.size(); ++i)
        e[i] -= run.quantized.dequantized[i];
    if (!tensorOut.empty())
        std::ofstream(tensorOut, std::ios::binary)
            .write(reinterpret_cast<const char *>(e.data()), static_cast<std::streamsize>(e.size() * 4));
    std::printf("residual of 3-bit HQQ (on %s), %lld x %lld\n", run.device.c_str(), static_cast<long long>(R),
                static_cast<long long>(C));
    struct Case {
        const char *name;
        int top;
        gpu::SvdMethod method;
        int powerIters;
        gpu::TopKRoute route = gpu::TopKRoute::Auto;
    };
    nlohmann::json results = nlohmann::json::array();
    std::vector<double> all;
    using M = gpu::SvdMethod;
    using T = gpu::TopKRoute;
    const char *barLine = "";
    for (const Case c : {Case{"all_gram_eigen", 0, M::GramF64, 4}, Case{"all_gesvd", 0, M::Gesvd, 4},
                         Case{"all_gram_eigen_fp32", 0, M::GramF32, 4}, Case{"top512", 512, M::GramF64, 4},
                         Case{"top512_direct", 512, M::GramF64, 4, T::Direct}, Case{"top512_p8", 512, M::GramF64, 8},
                         Case{"top512_p8_direct", 512, M::GramF64, 8, T::Direct},
                         Case{"top512_p8_gram_gemm", 512, M::GramF64, 8, T::GramGemm},
                         Case{"top512_p2", 512, M::GramF64, 2}, Case{"top512_p2_direct", 512, M::GramF64, 2, T::Direct},
                         Case{"top32", 32, M::GramF64, 4}, Case{"top32_gram", 32, M::GramF64, 4, T::Gram}}) {
        SpectrumOptions o;
        o.top = c.top;
        o.powerIters = c.powerIters;
        const int l = static_cast<int>(std::min<std::int64_t>(c.top + o.oversample, std::min(R, C)));
        const gpu::TopKEstimate est = gpu::estimateTopK(R, C, l, c.powerIters);
        std::vector<double> dev, wall;
        std::vector<double> sigma;
        std::string algorithm;
        for (int rep = 0; rep < opt.repeats + 1; ++rep) {
            float ms = 0;
            const auto t0 = std::chrono::steady_clock::now();
            sigma = engine->singularValues(e, R, C, o, c.method, algorithm, &ms, c.route);
            const double wms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
            if (rep > 0) { // the first: warm-up (library handles, workspaces)
                dev.push_back(ms);
                wall.push_back(wms);
            }
        }
        const bench::Summary sd = bench::summarize(dev), sw = bench::summarize(wall);
        // One more run with stage marks (the sketch's products and QRs, summed).
        nlohmann::json prof = nlohmann::json::object();
        if (c.top > 0) {
            engine->profileStages(true);
            float ms = 0;
            (void)engine->singularValues(e, R, C, o, c.method, algorithm, &ms, c.route);
            for (const auto &[stage, t] : engine->stageTimes())
                prof[stage] = prof.value(stage, 0.0) + t;
            engine->profileStages(false);
            std::printf("    stages: %s\n", prof.dump().c_str());
        }
        if (c.top == 0 && c.method == M::GramF64)
            all = sigma;
        double top32 = 0; // the top 32's largest relative error against all σ (Gram, FP64)
        for (std::size_t i = 0; i < std::min<std::size_t>(32, std::min(sigma.size(), all.size())); ++i)
            top32 = std::max(top32, std::abs(sigma[i] - all[i]) / all[i]);
        double allAbs = 0; // max |Δσᵢ| / σ₁ over every σ (the "all σ" cases)
        if (c.top == 0 && !all.empty() && sigma.size() == all.size())
            for (std::size_t i = 0; i < all.size(); ++i)
                allAbs = std::max(allAbs, std::abs(sigma[i] - all[i]) / all.front());
        std::printf("%-16s device %9.2f ms   with upload %9.2f ms   σ1 %.6g  top-32 max rel err %.2e  (%s)\n", c.name,
                    sd.median, sw.median, sigma.empty() ? 0.0 : sigma.front(), top32, algorithm.c_str());
        // The route that ran, as the algorithm names it (Auto may keep the direct route for memory).
        const bool ranGram = algorithm.find("Gram matrix") != std::string::npos;
        const char *routeName = c.top == 0                                        ? "all"
                                : algorithm.find("by DGEMM") != std::string::npos ? "gram (G by DGEMM)"
                                : ranGram                                         ? "gram"
                                                                                  : "direct";
        if (c.top > 0)
            std::printf("    route %s%s; products estimated: direct %.1f ms (%.0f GFLOP), gram %.1f ms (%.0f GFLOP)\n",
                        routeName, c.route == T::Auto ? " (auto)" : "", est.directMs, est.directGflop, est.gramMs,
                        est.gramGflop);
        if (std::string(c.name) == "top512_p8") { // issue 44's bar, along the default route
            const bool met = sd.median <= 40.0 && top32 <= 2e-3;
            barLine = met ? "met" : "not met";
            std::printf("    bar (issue 44): top 512, 8 iterations <= 40 ms with the top-32 within 0.2 %%: %s "
                        "(%.2f ms, %.2e)\n",
                        barLine, sd.median, top32);
        }
        results.push_back({{"case", c.name},
                           {"route", routeName},
                           {"route_auto", c.route == T::Auto},
                           {"estimate_products_ms", {{"direct", est.directMs}, {"gram", est.gramMs}}},
                           {"algorithm", algorithm},
                           {"device_median_ms", sd.median},
                           {"wall_median_ms", sw.median},
                           {"repeats", opt.repeats},
                           {"top32_max_rel_err_vs_all", top32},
                           {"all_max_abs_err_over_sigma1", allAbs},
                           {"power_iters", c.powerIters},
                           {"stage_ms", prof},
                           {"sigma", sigma}});
    }
    const gpu::EngineInfo info = engine->info();
    const nlohmann::json doc{{"benchmark", "gpu_spectrum"},
                             {"device", info.name},
                             {"rows", R},
                             {"cols", C},
                             {"residual_of", "hqq milo-code 3-bit g64 axis 0 fp16"},
                             {"bar_top512_p8_40ms", barLine},
                             {"results", results}};
    const std::string out = opt.out.empty() ? "." : opt.out;
    std::filesystem::create_directories(out);
    std::ofstream(std::filesystem::path(out) / "gpu_spectrum.json") << doc.dump(1) << '\n';
    return 0;
}
