// SPDX-License-Identifier: MIT
// The fused W4A8 GEMMs (issue 43) on the device, N = 4096, K = 14336 by default (--rows N --cols K):
//   1. the GEMM lab as `quantscope-cli gemm-bench --formats bf16,w4a8-int8,w4a8-fp8` runs it
//      (runGemmBench; the engine's per-channel asymmetric INT4 codes of a seeded N(0, 0.02) tensor,
//      X as seeded INT8 / E4M3 codes with token scales): BF16 cuBLASLt, the unfused paths (unpack /
//      convert kernel + cuBLASLt + epilogue) and the fused points (the fused kernel for M ≤ 16,
//      above it the unfused route, labelled) over --m-sweep (1, 2, 4, 8, 16, 1024, 8192), each with
//      bytes per token, weight-read roofline fraction and speed-up over BF16;
//   2. the fused kernels from BF16 activations, as a model would run them: X's quantizer kernel
//      (per token) + the fused GEMM, timed together and the GEMM alone,
//      at M ∈ {1, 2, 4, 8, 16}, groups 32, 64, 128 and per channel, INT8 and E4M3; every output
//      checked on the device against FP64 (docs/numerics.md "Fused W4A8 GEMM"); groups 128 and per
//      channel through the launcher's choice, the streaming kernel on the tile-ordered copy;
//   3. --sweep: the row-order kernel's split-K × chunks ahead at M = 1 and 16 (per channel), then
//      the streaming kernel's warps × split-K × chunks a step at M = 1, 8 and 16 (g128).
// The bars (docs/perf.md): W4A8-INT8 M ≤ 16 ≤ 15 µs (section 2, quantizer included, per channel
// and g128); M ≥ 1024 ≥ 1.6× BF16's throughput (section 1, the routed points).
// Usage: qs_bench_gpu_w4a8_fused [--out DIR] [--rows N] [--cols K] [--repeats R] [--warmup W]
//            [--m-sweep LIST] [--sweep]
// bench/gemm_w4a8_torch.py times torch._int_mm + scaling and torch._scaled_mm (row-wise FP8) on
// the same shapes and, with --ours gpu_w4a8_fused.json, prints the docs/perf.md table.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <random>
#include <string>

#include <cuda_runtime.h>
#include <nlohmann/json.hpp>

#include "bench_common.h"
#include "gemm_bench_common.h"
#include "engine/gemm_bench_device.h"
#include "engine/registry.h"
#include "kernels/gemm/kernels_w4a16.h"
#include "kernels/gemm/kernels_w4a8.h"
#include "register.h"

using namespace quantscope;
namespace L = quantscope::gpu::launch;

namespace {

/// Seeded packed INT4 weights (asymmetric, zero points in [−8, 7]: both paths accept them),
/// per-group scales, BF16 X of up to 16 rows, on the device; the fused kernels from BF16 X.
struct Standalone {
    long long n, k;
    void *w = nullptr, *x = nullptr, *xq = nullptr, *xs = nullptr, *y = nullptr, *ws = nullptr, *cnt = nullptr,
         *res = nullptr, *s = nullptr, *z = nullptr, *tile = nullptr, *sums = nullptr;
    long long group = 0;
    Standalone(long long n_, long long k_) : n(n_), k(k_)
    {
        std::mt19937_64 rng(0x48);
        std::vector<std::uint8_t> wh(static_cast<std::size_t>(n * k / 2));
        for (auto &b : wh)
            b = static_cast<std::uint8_t>(rng());
        std::normal_distribution<float> normal(0.0f, 1.0f);
        std::vector<std::uint16_t> xh(static_cast<std::size_t>(16 * k));
        for (auto &v : xh) {
            const float f = normal(rng);
            std::uint32_t u;
            std::memcpy(&u, &f, 4);
            v = static_cast<std::uint16_t>((u + 0x7FFF + ((u >> 16) & 1)) >> 16);
        }
        QS_BENCH_CK(cudaMalloc(&w, wh.size()));
        QS_BENCH_CK(cudaMemcpy(w, wh.data(), wh.size(), cudaMemcpyHostToDevice));
        QS_BENCH_CK(cudaMalloc(&x, 2 * xh.size()));
        QS_BENCH_CK(cudaMemcpy(x, xh.data(), 2 * xh.size(), cudaMemcpyHostToDevice));
        QS_BENCH_CK(cudaMalloc(&xq, 16 * k));
        QS_BENCH_CK(cudaMalloc(&xs, 4 * 16));
        QS_BENCH_CK(cudaMalloc(&sums, L::w4a8XSumsBytes(k)));
        QS_BENCH_CK(cudaMalloc(&y, 2 * 16 * n));
        QS_BENCH_CK(cudaMalloc(&ws, 4 * 16 * n));
        QS_BENCH_CK(cudaMalloc(&cnt, 4 * (n / 64 + 2)));
        QS_BENCH_CK(cudaMalloc(&res, 16));
        QS_BENCH_CK(cudaMemset(ws, 0, 4 * 16 * n));
        QS_BENCH_CK(cudaMemset(cnt, 0, 4 * (n / 64 + 2)));
    }
    ~Standalone()
    {
        for (void *d : {w, x, xq, xs, y, ws, cnt, res, s, z, tile, sums})
            cudaFree(d);
    }
    void setGroup(long long g)
    {
        group = g;
        const long long groups = n * (k / g);
        std::mt19937_64 rng(0x49 + g);
        std::vector<float> sh(static_cast<std::size_t>(groups));
        std::vector<std::int8_t> zh(sh.size());
        for (std::size_t i = 0; i < sh.size(); ++i) {
            sh[i] = 1e-3f * (1.0f + static_cast<float>(rng() % 1000) / 1000.0f);
            zh[i] = static_cast<std::int8_t>(static_cast<int>(rng() % 16) - 8);
        }
        cudaFree(s);
        cudaFree(z);
        QS_BENCH_CK(cudaMalloc(&s, 4 * sh.size()));
        QS_BENCH_CK(cudaMalloc(&z, zh.size()));
        QS_BENCH_CK(cudaMemcpy(s, sh.data(), 4 * sh.size(), cudaMemcpyHostToDevice));
        QS_BENCH_CK(cudaMemcpy(z, zh.data(), zh.size(), cudaMemcpyHostToDevice));
        // Groups that are multiples of 128: the streaming kernel's tile-ordered copy (written once
        // per weight, not timed), so that the launcher's choice runs it.
        cudaFree(tile);
        tile = nullptr;
        L::W4a16Problem tp;
        tp.packed = static_cast<const std::uint8_t *>(w);
        tp.scales = static_cast<const float *>(s);
        tp.zeros = static_cast<const std::int8_t *>(z);
        tp.n = n, tp.k = k, tp.group = g;
        if (g % 128 == 0 && L::w4a16TileBytes(tp) > 0) {
            QS_BENCH_CK(cudaMalloc(&tile, L::w4a16TileBytes(tp)));
            L::w4a8TileReorder(tp, tile, nullptr);
            QS_BENCH_CK(cudaDeviceSynchronize());
        }
    }
    L::W4a8Problem problem(long long m, bool fp8) const
    {
        L::W4a8Problem p;
        p.packed = static_cast<const std::uint8_t *>(w);
        p.scales = static_cast<const float *>(s);
        p.zeros = static_cast<const std::int8_t *>(z);
        p.xq = xq;
        p.xScale = static_cast<const float *>(xs);
        p.y = y;
        p.m = m, p.n = n, p.k = k, p.group = group;
        p.fp8 = fp8;
        p.tilePacked = tile;
        p.xSums = fp8 || group != k || k % 128 != 0 ? nullptr : static_cast<const int *>(sums); // per channel INT8
        return p;
    }
    /// {quantize + GEMM µs, GEMM µs, worst of the bound, outputs checked, the launch}.
    nlohmann::json run(long long m, bool fp8, const L::W4a8Tiling &t, int repeats, int warmup)
    {
        const L::W4a8Problem p = problem(m, fp8);
        L::W4a8Launch used;
        // INT8 per channel: the quantizer writes X's chunk sums with the codes (the streaming
        // kernel's Σx), so "quantize + GEMM" includes them.
        auto quant = [&] {
            L::w4a8QuantizeX(x, m, k, fp8, xq, static_cast<float *>(xs), p.xSums ? static_cast<int *>(sums) : nullptr,
                             nullptr);
        };
        auto gemm = [&] { used = L::w4a8Fused(p, t, ws, cnt, nullptr); };
        const double both = bench::medianEventUs(
            [&] {
                quant();
                gemm();
            },
            repeats, warmup);
        const double gemmOnly = bench::medianEventUs(gemm, repeats, warmup);
        quant();
        gemm();
        L::w4a8CheckFp64(p, static_cast<double *>(res),
                         reinterpret_cast<unsigned long long *>(static_cast<char *>(res) + 8), nullptr);
        double worst = 0;
        unsigned long long count = 0;
        QS_BENCH_CK(cudaMemcpy(&worst, res, 8, cudaMemcpyDeviceToHost));
        QS_BENCH_CK(cudaMemcpy(&count, static_cast<char *>(res) + 8, 8, cudaMemcpyDeviceToHost));
        const bool ok = worst <= 1.0 && count == static_cast<unsigned long long>(m * n);
        return {{"m", m},
                {"act", fp8 ? "e4m3" : "int8"},
                {"group", group == k ? 0 : group},
                {"quantize_and_gemm_us", both},
                {"gemm_us", gemmOnly},
                {"split_k", used.splitK},
                {"chunks_ahead", used.chunksAhead},
                {"blocks", used.blocks},
                {"kernel", used.streamed ? "streaming" : "row-order"},
                {"warps", used.warps},
                {"check_worst", worst},
                {"checked_outputs", count},
                {"checked", ok}};
    }
};

} // namespace

int main(int argc, char **argv)
{
    const bench::FusedBenchArgs args = bench::parseFusedBenchArgs(argc, argv, {1, 2, 4, 8, 16, 1024, 8192});
    const bench::CommonOptions &opt = args.opt;
    const bool sweep = args.sweep;
    const Backend *gpu = bench::fusedBenchGpu(L::w4a8FusedBuilt(), "fused W4A8");
    if (!gpu)
        return 2;
    // 1. The lab: BF16, unfused and fused (routed above M = 16) W4A8-INT8 and W4A8-FP8.
    const GemmBenchRequest q =
        bench::fusedLabRequest(args, {GemmFormat::Bf16, GemmFormat::W4a8Int8, GemmFormat::W4a8Fp8});
    const GemmBenchResult lab = bench::runPrintedLab(q, 16);
    bool ok = bench::gemmPointsChecked(lab);
    // The large-M bar: the routed INT8 series' throughput ÷ BF16's at M ≥ 1024.
    nlohmann::json bars = nlohmann::json::array();
    for (const auto &p : lab.points)
        if (p.format == kW4a8Int8FusedFormat && p.m >= 1024) {
            std::printf("bar W4A8-INT8 M = %lld: %.2f× BF16's throughput (≥ 1.6×: %s)\n", static_cast<long long>(p.m),
                        p.speedupVsBf16, p.speedupVsBf16 >= 1.6 ? "met" : "MISSED");
            bars.push_back({{"bar", "int8 large M >= 1.6x bf16"},
                            {"m", p.m},
                            {"speedup_vs_bf16", p.speedupVsBf16},
                            {"met", p.speedupVsBf16 >= 1.6}});
        }
    // 2. The fused kernels from BF16 X (quantizer included), every group kind.
    Standalone st(opt.rows, opt.cols);
    nlohmann::json fused = nlohmann::json::array();
    std::printf("%-5s %-11s %4s %14s %9s %-9s %6s %7s  %s\n", "act", "group", "M", "quant+gemm_us", "gemm_us", "kernel",
                "split", "blocks", "check");
    for (const std::int64_t g : {std::int64_t(0), std::int64_t(128), std::int64_t(64), std::int64_t(32)}) {
        st.setGroup(g == 0 ? opt.cols : g);
        for (const bool fp8 : {false, true})
            for (const std::int64_t m : {1, 2, 4, 8, 16}) {
                nlohmann::json r = st.run(m, fp8, {}, q.repeats, q.warmup);
                ok = ok && r["checked"].get<bool>();
                std::printf("%-5s %-11s %4lld %14.2f %9.2f %-9s %6d %7d  %s (worst %.3g of the bound)\n",
                            fp8 ? "e4m3" : "int8", g == 0 ? "per-channel" : ("g" + std::to_string(g)).c_str(),
                            static_cast<long long>(m), r["quantize_and_gemm_us"].get<double>(),
                            r["gemm_us"].get<double>(), r["kernel"].get<std::string>().c_str(), r["split_k"].get<int>(),
                            r["blocks"].get<int>(), r["checked"].get<bool>() ? "checked" : "CHECK FAILED",
                            r["check_worst"].get<double>());
                if (!fp8 && (g == 0 || g == 128)) {
                    const double us = r["quantize_and_gemm_us"].get<double>();
                    bars.push_back({{"bar", "int8 M <= 16 <= 15 us (quantizer included)"},
                                    {"group", g},
                                    {"m", m},
                                    {"us", us},
                                    {"met", us <= 15.0}});
                }
                fused.push_back(std::move(r));
            }
    }
    // 3. The tiling sweeps: the row-order kernel per channel, the streaming kernel at g128.
    nlohmann::json sweepDoc = nlohmann::json::array();
    if (sweep) {
        st.setGroup(opt.cols);
        for (const bool fp8 : {false, true})
            for (const int ahead : {2, 4})
                for (const int sk : {0, 1, 2, 4, 8, 12, 16, 28})
                    for (const std::int64_t m : {1, 16}) {
                        L::W4a8Tiling t;
                        t.kernel = 1; // the row-order kernel's tiling
                        t.splitK = sk;
                        t.chunksAhead = ahead;
                        nlohmann::json r = st.run(m, fp8, t, q.repeats, q.warmup);
                        ok = ok && r["checked"].get<bool>();
                        std::printf("sweep %s ahead %d split-K %2d (ran %2d) M %2lld: gemm %8.2f µs, with quantizer "
                                    "%8.2f µs\n",
                                    fp8 ? "e4m3" : "int8", ahead, sk, r["split_k"].get<int>(),
                                    static_cast<long long>(m), r["gemm_us"].get<double>(),
                                    r["quantize_and_gemm_us"].get<double>());
                        sweepDoc.push_back(std::move(r));
                    }
        st.setGroup(128);
        for (const bool fp8 : {false, true})
            for (const int warps : {4, 8, 16})
                for (const int ahead : {1, 2})
                    for (const int sk : {0, 8, 11, 14})
                        for (const std::int64_t m : {1, 8, 16}) {
                            L::W4a8Tiling t;
                            t.kernel = 2, t.warps = warps, t.chunksAhead = ahead, t.splitK = sk;
                            nlohmann::json r = st.run(m, fp8, t, q.repeats, q.warmup);
                            ok = ok && r["checked"].get<bool>();
                            std::printf("sweep stream %s warps %2d ahead %d split-K %2d (ran %2d) M %2lld: gemm %8.2f "
                                        "µs, with quantizer %8.2f µs\n",
                                        fp8 ? "e4m3" : "int8", warps, ahead, sk, r["split_k"].get<int>(),
                                        static_cast<long long>(m), r["gemm_us"].get<double>(),
                                        r["quantize_and_gemm_us"].get<double>());
                            sweepDoc.push_back(std::move(r));
                        }
    }
    bench::writeFusedDoc(opt.out, "gpu_w4a8_fused", *gpu, q,
                         "CUDA events around each step (the lab: runGemmBench, rotating weight copies); warm-up; "
                         "median of the repeats",
                         ok, {{"lab", toJson(lab)}, {"fused", fused}, {"bars", bars}, {"sweep", sweepDoc}});
    return ok ? 0 : 1;
}
