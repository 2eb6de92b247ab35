// SPDX-License-Identifier: MIT
// The GEMM timing lab on the GPU (issue 21): every format at M ∈ {1, 3, 16, 128} on a small N×K,
// each output checked against the FP64 host reference within the format's bound
// (docs/numerics.md "GEMM timing lab"), the plan cache (a repeated shape runs no heuristic), the
// device choice's fallbacks, cancellation, and large problems timing enumerated algorithms beside
// the heuristic's. Skipped, with the reason, without a device.
#include "gpu_compare.h"

#include "engine/gemm_bench_device.h"
#include "host/gemmlab_lt.h"
#include "sim/gemm_bench.h"

namespace {

GemmBenchRequest smallRequest(std::int64_t n, std::int64_t k)
{
    GemmBenchRequest r;
    r.n = n, r.k = k;
    r.m = {1, 3, 16, 128};
    r.repeats = 20;
    r.warmup = 2;
    r.roofline = false; // the roofline and its cache: test_gpu_gemmlab_quant_moe.cpp
    return r;
}

std::unique_ptr<gpu::Engine> engineOrNull(std::string &reason)
{
    return gpu::Engine::create(0, reason);
}

} // namespace

TEST(GpuGemmLab, EveryFormatAndMPassesTheOutputCheck)
{
    REQUIRE_GPU();
    std::string reason;
    auto engine = engineOrNull(reason);
    ASSERT_TRUE(engine) << reason;
    const GemmBenchRequest req = smallRequest(192, 256);
    const auto pts = engine->timeGemms(req, nullptr);
    ASSERT_EQ(pts.size(), req.formats.size() * req.m.size());
    std::size_t i = 0;
    for (const GemmFormat f : req.formats)
        for (const std::int64_t m : req.m) {
            const GemmPoint &p = pts[i++];
            const std::string what = p.format + " M=" + std::to_string(m);
            EXPECT_EQ(p.format, toString(f)) << what;
            EXPECT_EQ(p.m, m) << what;
            EXPECT_EQ(p.n, 192);
            EXPECT_EQ(p.k, 256);
            EXPECT_EQ(p.device, "cuda:0");
            EXPECT_GT(p.timeUs, 0.0) << what;
            EXPECT_GT(p.coldUs, 0.0) << what;
            EXPECT_EQ(p.repeats, 20);
            EXPECT_EQ(p.padded, p.paddedM != m) << what;
            EXPECT_GE(p.paddedM, m) << what;
            EXPECT_LE(p.paddedM, (m + 15) / 16 * 16) << what;
            EXPECT_NEAR(p.tflops, 2.0 * m * 192 * 256 / (p.timeUs * 1e-6) / 1e12, 1e-9 * p.tflops) << what;
            EXPECT_EQ(p.note.find("FAILED"), std::string::npos) << what << ": " << p.note;
            // Issue 43: the spread of the timed runs around the median, and the algorithm: the
            // fastest of the heuristic's candidates, every one of them timed.
            EXPECT_GT(p.timeMinUs, 0.0) << what;
            EXPECT_LE(p.timeMinUs, p.timeP10Us) << what;
            EXPECT_LE(p.timeP10Us, p.timeUs) << what;
            EXPECT_LE(p.timeUs, p.timeP90Us) << what;
            EXPECT_LE(p.timeP90Us, p.timeMaxUs) << what;
            EXPECT_GE(p.algosTried, 1) << what;
            EXPECT_GE(p.algoIndex, 0) << what;
            // At most 16 of the heuristic's, and for BF16 cuBLAS's cublasGemmEx after them.
            const bool gemmEx =
                p.note.find("cuBLAS cublasGemmEx (torch.matmul's call), the fastest") != std::string::npos;
            EXPECT_LT(p.algoIndex, gemmEx ? 17 : 16) << what;
            if (f == GemmFormat::Bf16)
                EXPECT_NE(p.note.find("cublasGemmEx"), std::string::npos)
                    << what << ": timed beside cuBLASLt's; " << p.note;
            else
                EXPECT_FALSE(gemmEx) << what << ": " << p.note;
            EXPECT_NE(p.note.find("every element"), std::string::npos) << what << ": " << p.note;
        }
    const auto checks = engine->gemmLabChecks();
    ASSERT_EQ(checks.size(), pts.size());
    for (const auto &c : checks) {
        // Every element of the M rows the plan ran (padded M included).
        EXPECT_GE(c.samples, 192 * c.m) << c.format << " M=" << c.m;
        EXPECT_LE(c.samples, 192 * ((c.m + 15) / 16 * 16)) << c.format << " M=" << c.m;
        EXPECT_LE(c.worst, 1.0) << c.format << " M=" << c.m << ": worst |y − ref| / bound";
    }
}

TEST(GpuGemmLab, PlansAreCachedPerShape)
{
    REQUIRE_GPU();
    std::string reason;
    auto engine = engineOrNull(reason);
    ASSERT_TRUE(engine) << reason;
    GemmBenchRequest req = smallRequest(128, 512);
    req.m = {8, 64};
    engine->timeGemms(req, nullptr);
    const auto before = gpu::Engine::gemmLabHeuristicCalls();
    const auto again = engine->timeGemms(req, nullptr);
    EXPECT_EQ(gpu::Engine::gemmLabHeuristicCalls(), before) << "a cached shape ran the heuristic again";
    ASSERT_EQ(again.size(), req.formats.size() * 2);
    // A new shape builds (at least) one new plan per format.
    req.m = {32};
    engine->timeGemms(req, nullptr);
    EXPECT_GE(gpu::Engine::gemmLabHeuristicCalls(), before + req.formats.size());
}

TEST(GpuGemmLab, DeviceChoiceAndFallbacks)
{
    REQUIRE_GPU();
    GemmBenchRequest req = smallRequest(64, 128);
    req.m = {2, 32};
    req.formats = {GemmFormat::Bf16, GemmFormat::Fp8};
    const GemmBenchResult g = runGemmBench(req, DeviceChoice::Gpu);
    EXPECT_EQ(g.device, gpu->info().id);
    EXPECT_TRUE(g.deviceNote.empty()) << g.deviceNote;
    EXPECT_EQ(g.points.size(), 4u);
    const GemmBenchResult c = runGemmBench(req, DeviceChoice::Cpu);
    EXPECT_EQ(c.device, "cpu");
    EXPECT_EQ(c.points.size(), 2u);
    // FP8 needs K a multiple of 16 on the GPU: beside BF16 it is skipped there with the reason and
    // BF16 is timed on the device; asked alone, the GPU declines and the CPU times the table.
    req.k = 100;
    const GemmBenchResult f = runGemmBench(req, DeviceChoice::Auto);
    EXPECT_EQ(f.device, gpu->info().id) << f.deviceNote;
    ASSERT_EQ(f.skipped.size(), 1u);
    EXPECT_EQ(f.skipped[0].format, "fp8");
    EXPECT_NE(f.skipped[0].reason.find("multiple of 16"), std::string::npos) << f.skipped[0].reason;
    req.formats = {GemmFormat::Fp8};
    const GemmBenchResult fc = runGemmBench(req, DeviceChoice::Auto);
    EXPECT_EQ(fc.device, "cpu");
    EXPECT_NE(fc.deviceNote.find("multiple of 16"), std::string::npos) << fc.deviceNote;
}

TEST(GpuGemmLab, CancelStopsTheTable)
{
    REQUIRE_GPU();
    std::string reason;
    auto engine = engineOrNull(reason);
    ASSERT_TRUE(engine) << reason;
    const CancelToken cancel;
    cancel.cancel();
    EXPECT_THROW(engine->timeGemms(smallRequest(64, 64), &cancel), Cancelled);
}

TEST(GpuGemmLab, LargeProblemsAlsoTimeEnumeratedAlgorithms)
{
    // M·N·K ≥ 2^36: beside the heuristic's candidates the plan enumerates other configurations
    // (cluster shapes, large tiles) that cuBLASLt accepts, times them all and keeps the fastest;
    // whichever wins, every output is still checked against FP64.
    REQUIRE_GPU();
    std::string reason;
    auto engine = engineOrNull(reason);
    ASSERT_TRUE(engine) << reason;
    GemmBenchRequest req = smallRequest(4096, 4096);
    req.formats = {GemmFormat::Bf16, GemmFormat::Fp8};
    req.m = {4096}; // the lab's minimum of 20 repeats (smallRequest)
    const auto pts = engine->timeGemms(req, nullptr);
    ASSERT_EQ(pts.size(), 2u);
    for (const GemmPoint &p : pts) {
        const std::string what = p.format;
        EXPECT_NE(p.note.find("enumerated"), std::string::npos) << what << ": " << p.note;
        EXPECT_NE(p.note.find("output checked"), std::string::npos) << what << ": " << p.note;
        std::size_t total = 0, heuristic = 0, enumerated = 0;
        // Either a cuBLASLt algorithm won, or (BF16) cuBLAS's cublasGemmEx, the candidate after them.
        const auto at = p.note.find("cuBLASLt algorithm");
        const auto atEx = p.note.find("the fastest of");
        const bool gemmEx = at == std::string::npos;
        int index = -1, tried = -1;
        if (!gemmEx) {
            ASSERT_EQ(std::sscanf(p.note.c_str() + at, "cuBLASLt algorithm %d of %zu (the heuristic's %zu, then %zu",
                                  &index, &total, &heuristic, &enumerated),
                      4)
                << what << ": " << p.note;
            EXPECT_EQ(index, p.algoIndex) << what;
        } else {
            ASSERT_EQ(p.format, "bf16") << what << ": only BF16 has the cublasGemmEx candidate; " << p.note;
            ASSERT_NE(atEx, std::string::npos) << what << ": " << p.note;
            ASSERT_EQ(std::sscanf(p.note.c_str() + atEx,
                                  "the fastest of %d timed beside cuBLASLt's %zu (the heuristic's %zu, then %zu",
                                  &tried, &total, &heuristic, &enumerated),
                      4)
                << what << ": " << p.note;
            EXPECT_EQ(tried, p.algosTried) << what;
            EXPECT_EQ(p.algoIndex, static_cast<int>(total)) << what << ": the slot after cuBLASLt's candidates";
        }
        const int extra = p.format == "bf16" ? 1 : 0; // cublasGemmEx
        EXPECT_GT(enumerated, 0u) << what;
        EXPECT_EQ(total, heuristic + enumerated) << what;
        EXPECT_GT(p.algosTried, static_cast<int>(heuristic)) << what << ": enumerated candidates were timed too";
        EXPECT_LE(p.algosTried, static_cast<int>(total) + extra) << what;
    }
    for (const auto &c : engine->gemmLabChecks())
        EXPECT_LE(c.worst, 1.0) << c.format << " M=" << c.m;
}

TEST(GpuGemmLab, TuningDropsCandidatesFarBehindAfterTheFirstRound)
{
    // fastestOf (gemmlab_lt.h): candidate 1 does four times candidate 0's work, so after the first
    // round (one untimed + kFastestRuns timed launches each) it is over kFastestDropAbove × the best
    // and is not launched again; candidate 0 runs every round. Both count as timed; 0 wins.
    REQUIRE_GPU();
    void *buf = nullptr;
    const std::size_t bytes = 64u << 20;
    ASSERT_EQ(cudaMalloc(&buf, bytes), cudaSuccess);
    cudaStream_t s = nullptr;
    ASSERT_EQ(cudaStreamCreate(&s), cudaSuccess);
    int launches[2] = {0, 0};
    const auto f = gpu::lab2::fastestOf(
        2,
        [&](std::size_t c, int) {
            ++launches[c];
            for (int r = 0; r < (c == 0 ? 1 : 4); ++r)
                if (cudaMemsetAsync(buf, r, bytes, s) != cudaSuccess)
                    return false;
            return true;
        },
        s);
    EXPECT_EQ(f.index, 0);
    EXPECT_EQ(f.tried, 2);
    EXPECT_EQ(launches[0], gpu::lab2::kFastestRounds * (1 + gpu::lab2::kFastestRuns));
    EXPECT_EQ(launches[1], 1 + gpu::lab2::kFastestRuns) << "dropped after the first round";
    EXPECT_GT(f.medianUs[1], gpu::lab2::kFastestDropAbove * f.medianUs[0]);
    cudaStreamDestroy(s);
    cudaFree(buf);
}
