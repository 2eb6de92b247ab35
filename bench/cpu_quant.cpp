// SPDX-License-Identifier: MIT
// CPU engine benchmark: INT4 g128 quantize + dequantize + all metrics (errors, moments of W and
// Ŵ, three histograms, the 4096-bin percentile histogram) on a 4096×4096 BF16 tensor.
// Usage: qs_bench_cpu_quant [--out DIR] [--threads T] [--repeats N] [--rows R] [--cols C]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/registry.h"
#include "engine/run.h"
#include "tensor/convert.h"

using namespace quantscope;

int main(int argc, char **argv)
{
    std::string out;
    int threads = 2, repeats = 7;
    std::int64_t rows = 4096, cols = 4096;
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string a = argv[i];
        if (a == "--out")
            out = argv[i + 1];
        else if (a == "--threads")
            threads = std::stoi(argv[i + 1]);
        else if (a == "--repeats")
            repeats = std::stoi(argv[i + 1]);
        else if (a == "--rows")
            rows = std::stoll(argv[i + 1]);
        else if (a == "--cols")
            cols = std::stoll(argv[i + 1]);
    }
    // Synthetic Student-t (ν = 5) weights in BF16, seeded — the same generator as the NumPy side
    // is not needed: both sides read this exact tensor from bench_input.bin.
    std::mt19937_64 rng(42);
    std::student_t_distribution<float> t(5.0f);
    std::vector<std::byte> bytes(static_cast<std::size_t>(rows * cols * 2));
    for (std::int64_t i = 0; i < rows * cols; ++i) {
        const std::uint16_t h = floatToBf16(0.02f * t(rng));
        std::memcpy(bytes.data() + 2 * i, &h, 2);
    }
    if (!out.empty()) {
        std::filesystem::create_directories(out);
        std::ofstream f(std::filesystem::path(out) / "bench_input_bf16.bin", std::ios::binary);
        f.write(reinterpret_cast<const char *>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    }
    const Tensor w = Tensor::fromBytes(DType::BF16, {rows, cols}, std::move(bytes));

    nlohmann::json results = nlohmann::json::array();
    for (const char *name : {"int4_sym_g128", "int4_asym_g128", "fp8_e4m3_tensor"}) {
        nlohmann::json spec = std::string(name).rfind("fp8", 0) == 0
                                  ? nlohmann::json{{"method", "fp8"}}
                                  : nlohmann::json{{"method", "int"},
                                                   {"bits", 4},
                                                   {"group", 128},
                                                   {"symmetric", std::string(name).find("asym") == std::string::npos}};
        RunOptions ro;
        ro.device = DeviceChoice::Cpu;
        ro.quantize.threads = threads;
        ro.metricsOptions.threads = threads;
        std::vector<double> ms;
        double rel = 0;
        for (int r = 0; r < repeats + 3; ++r) {
            const auto t0 = std::chrono::steady_clock::now();
            const QuantizeRun run = runQuantize(w, parseQuantSpec(spec), ro);
            const double dt = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
            if (r >= 3)
                ms.push_back(dt); // three warm-up runs: page cache, allocator, huge pages
            rel = run.metrics->relFrobenius;
        }
        std::sort(ms.begin(), ms.end());
        const double med = ms[ms.size() / 2];
        const double gbps = static_cast<double>(w.nbytes()) / (med * 1e-3) / 1e9;
        std::printf("%-18s %8.1f ms  %6.3f GB/s of BF16 input  rel_fro %.6f\n", name, med, gbps, rel);
        results.push_back({{"case", name},
                           {"spec", spec},
                           {"median_ms", med},
                           {"min_ms", ms.front()},
                           {"input_gb_per_s", gbps},
                           {"rel_frobenius", rel},
                           {"repeats", repeats}});
    }
    nlohmann::json doc{
        {"benchmark", "cpu_quant"},
        {"rows", rows},
        {"cols", cols},
        {"dtype", "BF16"},
        {"threads", threads},
        {"hardware_threads", std::thread::hardware_concurrency()},
        {"work",
         "quantize + dequantize + errors + moments(W, Ŵ) + 3 histograms (256 bins) + 4096-bin |err| percentiles"},
        {"results", results}};
    if (!out.empty()) {
        std::ofstream f(std::filesystem::path(out) / "cpu_quant.json");
        f << doc.dump(1) << '\n';
    }
    return 0;
}
