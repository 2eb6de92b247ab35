// SPDX-License-Identifier: MIT
// Peak memory of one quantization (docs/perf.md "Peak memory of HQQ and MiLo"): a generated BF16
// tensor (default 14336 × 4096, a Llama-3-8B MLP projection) quantized once by the CPU quantizer
// of the spec given, Ŵ kept (as the job keeps it). Prints the process's peak RSS (getrusage
// ru_maxrss) before and after, and the growth, as one JSON line. Memory does not depend on the
// iteration count, so the spec may ask for few iterations to keep the run short. Also prints the
// quantization's wall time and its iterations' (HQQ) or passes' (MiLo) time.
// Usage: qs_bench_peak_memory SPEC_JSON [ROWS COLS]
#include "quant/quantizer.h"
#include "tensor/tensor.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <nlohmann/json.hpp>
#include <random>
#include <sys/resource.h>
#include <vector>

using namespace quantscope;

namespace {
long peakKiB()
{
    rusage u{};
    ::getrusage(RUSAGE_SELF, &u);
    return u.ru_maxrss;
}
} // namespace

int main(int argc, char **argv)
{
    if (argc != 2 && argc != 4) {
        std::fprintf(stderr, "usage: qs_bench_peak_memory SPEC_JSON [ROWS COLS]\n");
        return 2;
    }
    try {
        const std::int64_t rows = argc == 4 ? std::atoll(argv[2]) : 14336,
                           cols = argc == 4 ? std::atoll(argv[3]) : 4096;
        const auto spec = nlohmann::json::parse(argv[1]);
        // BF16 from N(0, 0.02) with a few outlier columns, generated straight into the tensor.
        std::vector<std::byte> bytes(static_cast<std::size_t>(rows * cols) * 2);
        std::mt19937 rng(1);
        std::normal_distribution<float> nd(0.0f, 0.02f);
        for (std::int64_t i = 0; i < rows * cols; ++i) {
            float v = nd(rng) * ((i % cols) % 509 == 0 ? 20.0f : 1.0f);
            std::uint32_t u;
            std::memcpy(&u, &v, 4);
            const std::uint16_t h = static_cast<std::uint16_t>((u + 0x7FFFu + ((u >> 16) & 1u)) >> 16);
            std::memcpy(bytes.data() + 2 * i, &h, 2);
        }
        const Tensor w = Tensor::fromBytes(DType::BF16, {rows, cols}, std::move(bytes));
        const auto q = makeQuantizer(spec);
        const long before = peakKiB();
        QuantizeOptions o;
        o.wantDequantized = true;
        o.tensorName = "bench";
        const auto t0 = std::chrono::steady_clock::now();
        const auto r = q->quantize(w, o, nullptr);
        const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        const long after = peakKiB();
        double iterMs = 0.0;
        for (const auto &h : r.history)
            iterMs += h.timeMs;
        nlohmann::ordered_json j{{"spec", spec},
                                 {"shape", {rows, cols}},
                                 {"input_bf16_mib", static_cast<double>(rows * cols * 2) / (1 << 20)},
                                 {"fp32_copy_mib", static_cast<double>(rows * cols * 4) / (1 << 20)},
                                 {"peak_rss_before_mib", before / 1024.0},
                                 {"peak_rss_after_mib", after / 1024.0},
                                 {"growth_mib", (after - before) / 1024.0},
                                 {"codes", r.codes.size()},
                                 {"quantize_s", seconds},
                                 {"iterations", r.history.size()},
                                 {"iterations_ms", iterMs}};
        std::printf("%s\n", j.dump().c_str());
    } catch (const std::exception &e) {
        std::fprintf(stderr, "qs_bench_peak_memory: %s\n", e.what());
        return 1;
    }
    return 0;
}
