// SPDX-License-Identifier: MIT
// GPTQ and AWQ on the CPU (issue 46, docs/perf.md): GPTQ 4-bit g128 of an N×K weight with its K×K
// Hessian (the bar: 4096² in ≤ 10 s on 2 cores), and AWQ's 20-point search on a 64-row sample.
// The Hessian is 2·XᵀX/R of R random rows with a few heavy channels (rank R, dampened to full).
// Usage: qs_bench_cpu_gptq_awq [--out DIR] [--threads T] [--n N] [--k K] [--rows R]
#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "quant/data_aware.h"

using namespace quantscope;

namespace {

double seconds(std::chrono::steady_clock::time_point t0)
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

/// CPU seconds of the process, all threads (the wall clock says little on a shared machine).
double cpuSeconds()
{
    timespec ts{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

} // namespace

int main(int argc, char **argv)
{
    std::string out;
    int threads = 2;
    std::int64_t n = 4096, k = 4096, rows = 512;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (i + 1 < argc && a == "--out")
            out = argv[++i];
        else if (i + 1 < argc && a == "--threads")
            threads = std::stoi(argv[++i]);
        else if (i + 1 < argc && a == "--n")
            n = std::stoll(argv[++i]);
        else if (i + 1 < argc && a == "--k")
            k = std::stoll(argv[++i]);
        else if (i + 1 < argc && a == "--rows")
            rows = std::stoll(argv[++i]);
    }
    std::mt19937_64 rng(46);
    std::student_t_distribution<float> t(5.0f);
    std::normal_distribution<float> nd(0.0f, 1.0f);
    std::vector<float> w(static_cast<std::size_t>(n * k));
    for (auto &x : w)
        x = 0.02f * t(rng);
    auto cal = std::make_shared<Calibration>();
    cal->module = "bench";
    cal->source = "random";
    cal->k = k;
    cal->sampleRows = rows;
    cal->sample.resize(static_cast<std::size_t>(rows * k));
    for (std::int64_t r = 0; r < rows; ++r)
        for (std::int64_t j = 0; j < k; ++j)
            cal->sample[r * k + j] = nd(rng) * (j % 97 == 0 ? 20.0f : 1.0f);
    std::string source;
    const auto h0 = std::chrono::steady_clock::now();
    cal->gram = gptqHessian(*cal, source); // 2·XᵀX/R; gram holds H, the solver's scale is irrelevant
    const double hSec = seconds(h0);
    const Tensor tw = Tensor::fromFloats({n, k}, w);
    QuantizeOptions qo;
    qo.threads = threads;
    qo.wantDequantized = false;
    qo.calibration = cal;

    nlohmann::json results = nlohmann::json::array();
    GptqSpec g; // 4-bit g128 symmetric, block 128, dampening 0.01
    const auto t0 = std::chrono::steady_clock::now();
    const double c0 = cpuSeconds();
    const QuantizedTensor q = GptqQuantizer(g).quantize(tw, qo);
    const double sec = seconds(t0), cpu = cpuSeconds() - c0;
    std::printf("gptq 4-bit g128 %lldx%lld, H %lldx%lld: %.3f s, %.3f CPU s (%d threads; H built in %.3f s, not "
                "counted)\n",
                static_cast<long long>(n), static_cast<long long>(k), static_cast<long long>(k),
                static_cast<long long>(k), sec, cpu, threads, hSec);
    results.push_back({{"name", "gptq_b4_g128"},
                       {"seconds", sec},
                       {"cpu_seconds", cpu},
                       {"rows", n},
                       {"cols", k},
                       {"threads", threads},
                       {"rtn_fallback", q.report.value("rtn_fallback", false)}});

    AwqSpec a; // 4-bit g128, 20 points, duo scaling
    a.quant.group = 128;
    auto sampleCal = std::make_shared<Calibration>(*cal);
    sampleCal->sampleRows = 64;
    sampleCal->sample.resize(static_cast<std::size_t>(64 * k));
    sampleCal->gram.clear();
    qo.calibration = sampleCal;
    const auto t1 = std::chrono::steady_clock::now();
    const double c1 = cpuSeconds();
    AwqQuantizer(a).quantize(tw, qo);
    const double sec1 = seconds(t1), cpu1 = cpuSeconds() - c1;
    std::printf("awq 4-bit g128 %lldx%lld, 20 grid points on 64 sample rows: %.3f s, %.3f CPU s\n",
                static_cast<long long>(n), static_cast<long long>(k), sec1, cpu1);
    results.push_back({{"name", "awq_b4_g128_n20"},
                       {"seconds", sec1},
                       {"cpu_seconds", cpu1},
                       {"rows", n},
                       {"cols", k},
                       {"threads", threads}});
    if (!out.empty()) {
        std::filesystem::create_directories(out);
        std::ofstream(std::filesystem::path(out) / "cpu_gptq_awq.json") << results.dump(1) << '\n';
    }
    return 0;
}
