// SPDX-License-Identifier: MIT
// Engine II speed bars (issue 6, docs/perf.md): HQQ 4-bit g64 on a 4096×4096 tensor (≤ 2 s),
// all singular values of a 2048×2048 residual (≤ 10 s), MiLo code preset on 4096×4096 rank 16.
// Usage: qs_bench_cpu_hqq_svd_milo [--out DIR] [--threads T] [--n N] [--svd-n M] [--skip-milo | --only-milo]
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "metrics/spectrum.h"
#include "quant/hqq.h"
#include "quant/milo.h"

using namespace quantscope;

namespace {

double seconds(std::chrono::steady_clock::time_point t0)
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

} // namespace

int main(int argc, char **argv)
{
    std::string out;
    int threads = 2;
    std::int64_t n = 4096, svdN = 2048;
    bool milo = true, onlyMilo = false;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--skip-milo")
            milo = false;
        else if (a == "--only-milo")
            onlyMilo = true;
        else if (i + 1 < argc && a == "--out")
            out = argv[++i];
        else if (i + 1 < argc && a == "--threads")
            threads = std::stoi(argv[++i]);
        else if (i + 1 < argc && a == "--n")
            n = std::stoll(argv[++i]);
        else if (i + 1 < argc && a == "--svd-n")
            svdN = std::stoll(argv[++i]);
    }
    std::mt19937_64 rng(42);
    std::student_t_distribution<float> t(5.0f);
    std::vector<float> w(static_cast<std::size_t>(n * n));
    for (auto &x : w)
        x = 0.02f * t(rng);

    nlohmann::json results = nlohmann::json::array();
    for (HqqCompute c : {HqqCompute::Fp32, HqqCompute::Fp16}) {
        if (onlyMilo)
            break;
        HqqSpec s; // hqq-lib, 4-bit, g 64, axis 1
        s.compute = c;
        const auto t0 = std::chrono::steady_clock::now();
        const HqqResult r = hqqQuantizeFlat(w, s, true, threads, "bench", nullptr);
        const double sec = seconds(t0);
        std::printf("hqq-lib 4-bit g64 %lldx%lld compute %s: %.3f s, %zu iterations (%.1f ms/iteration)\n",
                    static_cast<long long>(n), static_cast<long long>(n), toString(c).c_str(), sec, r.history.size(),
                    r.history.empty() ? 0.0 : r.history.front().timeMs);
        results.push_back({{"name", "hqq_lib_b4_g64_" + toString(c)},
                           {"seconds", sec},
                           {"iterations", r.history.size()},
                           {"rows", n},
                           {"cols", n},
                           {"threads", threads}});
    }
    if (!onlyMilo) {
        std::vector<float> e(static_cast<std::size_t>(svdN * svdN));
        for (auto &x : e)
            x = 0.001f * t(rng);
        SpectrumOptions o;
        const auto t0 = std::chrono::steady_clock::now();
        const Spectrum s = computeSpectrum(e, svdN, svdN, o);
        const double sec = seconds(t0);
        std::printf("all singular values %lldx%lld: %.3f s (%s)\n", static_cast<long long>(svdN),
                    static_cast<long long>(svdN), sec, s.algorithm.c_str());
        results.push_back({{"name", "spectrum_full"}, {"seconds", sec}, {"rows", svdN}, {"cols", svdN}});
        o.top = 64;
        const auto t1 = std::chrono::steady_clock::now();
        computeSpectrum(e, svdN, svdN, o);
        const double sec1 = seconds(t1);
        std::printf("top-64 singular values %lldx%lld (4 power iterations): %.3f s\n", static_cast<long long>(svdN),
                    static_cast<long long>(svdN), sec1);
        results.push_back({{"name", "spectrum_top64"}, {"seconds", sec1}, {"rows", svdN}, {"cols", svdN}});
    }
    if (milo) {
        MiloSpec s; // code preset: 11 passes, milo-code 3-bit g64 axis 0, rank 16, FP16 compensators
        const Tensor tw = Tensor::fromFloats({n, n}, w);
        QuantizeOptions qo;
        qo.threads = threads;
        const auto t0 = std::chrono::steady_clock::now();
        const QuantizedTensor q = MiloQuantizer(s).quantize(tw, qo);
        const double sec = seconds(t0);
        std::printf("milo code preset %lldx%lld rank 16: %.3f s (%zu passes)\n", static_cast<long long>(n),
                    static_cast<long long>(n), sec, q.history.size());
        std::string passes;
        for (const auto &h : q.history)
            passes += " " + std::to_string(static_cast<int>(h.timeMs));
        std::printf("  ms per pass:%s\n", passes.c_str());
        results.push_back({{"name", "milo_code_r16"}, {"seconds", sec}, {"rows", n}, {"cols", n}});
    }
    if (!out.empty()) {
        std::filesystem::create_directories(out);
        std::ofstream(std::filesystem::path(out) / "cpu_hqq_svd_milo.json") << results.dump(1) << '\n';
    }
    return 0;
}
