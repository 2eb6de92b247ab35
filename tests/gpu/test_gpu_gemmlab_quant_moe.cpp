// SPDX-License-Identifier: MIT
// The GEMM timing lab II on the GPU (issue 22): every quantized-weight path at M ∈ {1, 16, 128}
// on a small N×K, its output checked against the FP64 product of the engine quantizer's Ŵ and
// the activations as quantized (the bounds: docs/numerics.md "GEMM timing lab II"); the MoE
// strided-batched output against the per-expert loop's; the roofline's cache round trip on the
// device. Skipped, with the reason, without a device.
#include "gpu_compare.h"

#include <filesystem>
#include <set>

#include "engine/gemm_bench_device.h"
#include "sim/gemm_roofline.h"

namespace {

GemmBenchRequest request(std::int64_t n, std::int64_t k)
{
    GemmBenchRequest r;
    r.n = n, r.k = k;
    r.m = {1, 16, 128};
    r.repeats = 20;
    r.warmup = 2;
    r.roofline = false;
    return r;
}

} // namespace

TEST(GpuGemmLab2, EveryQuantizedPathPassesItsOutputCheck)
{
    REQUIRE_GPU();
    for (const std::int64_t group : {std::int64_t(128), std::int64_t(0)}) {
        GemmBenchRequest req = request(192, 512);
        req.formats = {GemmFormat::W4a16, GemmFormat::W4a8Int8, GemmFormat::W4a8Fp8, GemmFormat::W8a8Fp8};
        req.w4Group = group;
        const GemmBenchResult r = runGemmBench(req, DeviceChoice::Gpu);
        ASSERT_EQ(r.device, gpu->info().id) << r.deviceNote;
        // w4a16, w4a8-int8 and w4a8-fp8 give two points per M: the unfused path, then the fused one
        // (w4a16-fused; w4a8-int8-fused / w4a8-fp8-fused: the fused kernel up to M = 16, above it the
        // unfused route, labelled; w4a8-int8 folds z into its INT8 weight there when the zero points
        // allow, as the engine's quantizer's per-channel zero points here do).
        ASSERT_EQ(r.points.size(), (req.formats.size() + 3) * req.m.size());
        std::size_t i = 0;
        int folded = 0;
        for (const GemmFormat f : req.formats)
            for (const std::int64_t m : req.m) {
                if (f == GemmFormat::W4a8Int8 || f == GemmFormat::W4a8Fp8) {
                    const GemmPoint &fused = r.points[i + 1];
                    const std::string what = fused.format + " M=" + std::to_string(m);
                    EXPECT_EQ(fused.format, f == GemmFormat::W4a8Fp8 ? kW4a8Fp8FusedFormat : kW4a8Int8FusedFormat)
                        << what;
                    EXPECT_EQ(fused.m, m) << what;
                    EXPECT_GT(fused.timeUs, 0.0) << what;
                    EXPECT_DOUBLE_EQ(fused.bytes, gemmBytes(toString(f), m, 192, 512, 0)) << what;
                    if (m <= 16) {
                        EXPECT_NE(fused.note.find("fused: "), std::string::npos) << what << ": " << fused.note;
                        EXPECT_NE(fused.note.find("output checked"), std::string::npos) << what << ": " << fused.note;
                        EXPECT_NE(fused.note.find("every element"), std::string::npos) << what << ": " << fused.note;
                    } else if (fused.note.find("zero point folded in") != std::string::npos) {
                        // w4a8-int8's large-M route (z folded into the INT8 weight): its own time and
                        // its own check of every output.
                        ++folded;
                        EXPECT_EQ(f, GemmFormat::W4a8Int8) << what;
                        EXPECT_NE(fused.note.find("routed: "), std::string::npos) << what << ": " << fused.note;
                        EXPECT_NE(fused.note.find("output checked"), std::string::npos) << what << ": " << fused.note;
                    } else {
                        EXPECT_NE(fused.note.find("routed: "), std::string::npos) << what << ": " << fused.note;
                        EXPECT_DOUBLE_EQ(fused.timeUs, r.points[i].timeUs) << what;
                    }
                }
                if (f == GemmFormat::W4a16) {
                    const GemmPoint &fused = r.points[i + 1];
                    const std::string what = "fused M=" + std::to_string(m) + " group " + std::to_string(group);
                    EXPECT_EQ(fused.format, kW4a16FusedFormat) << what;
                    EXPECT_EQ(fused.m, m) << what;
                    EXPECT_GT(fused.timeUs, 0.0) << what;
                    EXPECT_DOUBLE_EQ(fused.bytes, gemmBytes("w4a16", m, 192, 512, group)) << what;
                    EXPECT_DOUBLE_EQ(fused.bytesPerToken, fused.bytes / static_cast<double>(m)) << what;
                    // Above 16 rows the CUTLASS route where it runs (a Hopper GPU, a build with it), else
                    // the hand-written kernel.
                    const bool cutlass = fused.note.find("fused: CUTLASS") != std::string::npos;
                    EXPECT_TRUE(cutlass || fused.note.find("fused: one kernel") != std::string::npos)
                        << what << ": " << fused.note;
                    if (cutlass) {
                        EXPECT_GT(m, 16) << what;
                        EXPECT_EQ(fused.note.find("routed: "), std::string::npos) << what << ": " << fused.note;
                    }
                    EXPECT_NE(fused.note.find("output checked"), std::string::npos) << what << ": " << fused.note;
                    EXPECT_NE(fused.note.find("every element"), std::string::npos) << what << ": " << fused.note;
                }
                const GemmPoint &p = r.points[i];
                i += f == GemmFormat::W8a8Fp8 ? 1 : 2;
                const std::string what = p.format + " M=" + std::to_string(m) + " group " + std::to_string(group);
                EXPECT_EQ(p.format, toString(f)) << what;
                EXPECT_EQ(p.m, m) << what;
                EXPECT_GT(p.timeUs, 0.0) << what;
                EXPECT_DOUBLE_EQ(p.flops, gemmFlops(m, 192, 512)) << what;
                EXPECT_DOUBLE_EQ(p.bytes, gemmBytes(p.format, m, 192, 512, f == GemmFormat::W4a16 ? group : 0)) << what;
                EXPECT_NE(p.note.find("output checked"), std::string::npos) << what << ": " << p.note;
                EXPECT_EQ(p.note.find("FAILED"), std::string::npos) << what << ": " << p.note;
                // Issue 43: the spread of the runs and the algorithm chosen among the timed ones.
                EXPECT_LE(p.timeMinUs, p.timeP10Us) << what;
                EXPECT_LE(p.timeP10Us, p.timeUs) << what;
                EXPECT_LE(p.timeUs, p.timeP90Us) << what;
                EXPECT_LE(p.timeP90Us, p.timeMaxUs) << what;
                EXPECT_GE(p.algosTried, 1) << what;
                EXPECT_GE(p.algoIndex, 0) << what;
            }
        std::string reason;
        auto engine = gpu::Engine::create(0, reason);
        ASSERT_TRUE(engine) << reason;
        EXPECT_EQ(folded, 1) << "w4a8-int8 at M = 128 takes the folded route (group " << group << ")";
        // The lab's checks are process-wide (the last table): one per point, each within bound.
        const auto checks = engine->gemmLabChecks();
        ASSERT_EQ(checks.size(), r.points.size());
        for (const auto &c : checks) {
            EXPECT_GT(c.samples, 0) << c.format << " M=" << c.m;
            if (c.format == kW4a16FusedFormat) {
                EXPECT_EQ(c.samples, 192 * c.m) << "the fused point checks every element";
            } else { // every element of the M rows the GEMM ran (⌈M⌉₁₆ where cuBLASLt refused M)
                EXPECT_GE(c.samples, 192 * c.m) << c.format << " M=" << c.m;
                EXPECT_LE(c.samples, 192 * ((c.m + 15) / 16 * 16)) << c.format << " M=" << c.m;
            }
            if ((c.format == kW4a8Int8FusedFormat || c.format == kW4a8Fp8FusedFormat) && c.m <= 16) {
                EXPECT_EQ(c.samples, 192 * c.m) << c.format << ": the fused point checks every element";
            }
            EXPECT_LE(c.worst, 1.0) << c.format << " M=" << c.m << ": worst |y − ref| / bound";
        }
    }
}

TEST(GpuGemmLab2, MixedPlainAndQuantizedFormatsKeepBothTables)
{
    REQUIRE_GPU();
    GemmBenchRequest req = request(128, 256);
    req.m = {8};
    req.formats = {GemmFormat::Bf16, GemmFormat::W4a16};
    const GemmBenchResult r = runGemmBench(req, DeviceChoice::Gpu);
    ASSERT_EQ(r.points.size(), 3u) << r.deviceNote;
    EXPECT_EQ(r.points[0].format, "bf16");
    EXPECT_EQ(r.points[1].format, "w4a16");
    EXPECT_EQ(r.points[2].format, kW4a16FusedFormat);
    // Both W4A16 points carry their speed-up over the BF16 point of the same M.
    for (std::size_t i = 1; i < 3; ++i)
        EXPECT_DOUBLE_EQ(r.points[i].speedupVsBf16, r.points[0].timeUs / r.points[i].timeUs) << r.points[i].format;
}

TEST(GpuGemmLab2, ComputeBoundFusedW4a16IsTimedAlternatingWithBf16)
{
    // Above the lab's fused M (kFusedMaxM = 256) the fused W4A16 point is timed launch by launch
    // alternating with the BF16 GEMM of its shape, and its speed-up over BF16 comes from those
    // pairs; at small M (memory-bound) it is timed alone and compared with the BF16 point. Where the
    // lab routes the point to dequantize + cuBLASLt (no CUTLASS route), there is no pair.
    REQUIRE_GPU();
    GemmBenchRequest req = request(256, 512);
    req.m = {8, 512};
    req.formats = {GemmFormat::Bf16, GemmFormat::W4a16};
    const GemmBenchResult r = runGemmBench(req, DeviceChoice::Gpu);
    ASSERT_EQ(r.points.size(), 6u) << r.deviceNote;
    const GemmPoint *bf[2] = {&r.points[0], &r.points[1]};
    for (std::size_t j = 0; j < 2; ++j) {
        const GemmPoint &fused = r.points[3 + 2 * j];
        const std::string what = "M=" + std::to_string(fused.m) + ": " + fused.note;
        ASSERT_EQ(fused.format, kW4a16FusedFormat) << what;
        ASSERT_EQ(bf[j]->m, fused.m);
        const bool routed = fused.note.find("routed: ") != std::string::npos;
        if (fused.m > 256 && !routed) {
            EXPECT_GT(fused.bf16PairedUs, 0.0) << what;
            EXPECT_NE(fused.note.find("timed alternating launch by launch"), std::string::npos) << what;
            EXPECT_DOUBLE_EQ(fused.speedupVsBf16, fused.bf16PairedUs / fused.timeUs) << what;
            EXPECT_EQ(fused.repeats, req.repeats) << what;
        } else {
            EXPECT_EQ(fused.bf16PairedUs, 0.0) << what;
            EXPECT_EQ(fused.note.find("timed alternating"), std::string::npos) << what;
            EXPECT_DOUBLE_EQ(fused.speedupVsBf16, bf[j]->timeUs / fused.timeUs) << what;
        }
        EXPECT_LE(fused.timeMinUs, fused.timeUs) << what;
        EXPECT_LE(fused.timeUs, fused.timeMaxUs) << what;
        EXPECT_NE(fused.note.find("output checked"), std::string::npos) << what;
    }
}

TEST(GpuGemmLab2, MoEStridedBatchedMatchesTheLoop)
{
    REQUIRE_GPU();
    GemmBenchRequest req = request(256, 512);
    req.m = {1, 16};
    req.experts = 4;
    req.formats = {GemmFormat::Bf16, GemmFormat::Fp8};
    const GemmBenchResult r = runGemmBench(req, DeviceChoice::Gpu);
    ASSERT_EQ(r.device, gpu->info().id) << r.deviceNote;
    int batchedBf16 = 0;
    for (const auto &p : r.points) {
        const std::string what = p.series() + " M=" + std::to_string(p.m);
        EXPECT_EQ(p.experts, 4) << what;
        EXPECT_TRUE(p.launches == 4 || p.launches == 1) << what;
        EXPECT_DOUBLE_EQ(p.flops, 4 * gemmFlops(p.m, 256, 512)) << what;
        EXPECT_EQ(p.note.find("FAILED"), std::string::npos) << what << ": " << p.note;
        if (p.launches == 1 && p.format == "bf16")
            ++batchedBf16;
        if (p.launches == 1) {
            EXPECT_TRUE(p.note.find("bit-identical") != std::string::npos || p.note.find("differ") != std::string::npos)
                << what << ": " << p.note;
        }
    }
    EXPECT_EQ(batchedBf16, 2) << "the BF16 strided-batched GEMM runs at every M";
    std::string reason;
    auto engine = gpu::Engine::create(0, reason);
    ASSERT_TRUE(engine) << reason;
    for (const auto &c : engine->gemmLabChecks()) {
        // The loop and the batched call against FP64 within the format's bound on every element of
        // every expert (and the note says whether the batched output is bit-identical to the loop's).
        EXPECT_LE(c.worst, 1.0) << c.format << " M=" << c.m;
        EXPECT_GE(c.samples, 4 * 256 * c.m) << c.format << " M=" << c.m;
        EXPECT_LE(c.samples, 4 * 256 * ((c.m + 15) / 16 * 16)) << c.format << " M=" << c.m;
    }
}

TEST(GpuGemmLab2, RooflineIsMeasuredOnceThenCachedPerDevice)
{
    REQUIRE_GPU();
    const auto dir = std::filesystem::temp_directory_path() / "qs_gpu_roofline_cache";
    std::filesystem::remove_all(dir);
    GemmBenchRequest req = request(1024, 1024);
    req.m = {1, 4096};
    req.formats = {GemmFormat::Bf16, GemmFormat::Fp8};
    req.roofline = true;
    req.peaksCache = (dir / "gemm_peaks.json").string();
    const GemmBenchResult a = runGemmBench(req, DeviceChoice::Gpu);
    ASSERT_TRUE(a.peaks) << a.deviceNote;
    EXPECT_EQ(a.peaks->source, "measured");
    EXPECT_NE(a.peaks->deviceKey.find(gpu->info().name), std::string::npos) << a.peaks->deviceKey;
    EXPECT_GT(a.peaks->copyGbps, 100.0);
    for (const char *d : {"bf16", "fp8", "int8"})
        EXPECT_GT(a.peaks->tflops.count(d) ? a.peaks->tflops.at(d) : 0.0, 10.0) << d;
    for (const auto &p : a.points) {
        EXPECT_TRUE(p.bound == "memory" || p.bound == "compute") << p.format << " M=" << p.m;
        EXPECT_GT(p.fractionOfCeiling, 0.0);
    }
    // M = 1 streams the weights: memory bound.
    EXPECT_EQ(a.points.front().bound, "memory");
    const GemmBenchResult b = runGemmBench(req, DeviceChoice::Gpu);
    ASSERT_TRUE(b.peaks);
    EXPECT_EQ(b.peaks->source, "cached (" + req.peaksCache + ")");
    EXPECT_EQ(b.peaks->copyGbps, a.peaks->copyGbps);
    EXPECT_EQ(b.peaks->tflops, a.peaks->tflops);
    std::filesystem::remove_all(dir);
}

// Issue 43: on the device too, a format the shape cannot run is skipped with its reason and the
// others are timed and checked (K = 1408: a multiple of 128 — W4A16 g128, MXFP4, NVFP4 and their
// fused kernels run — but not of 256, which w3a16-milo needs). Before, the whole request failed.
TEST(GpuGemmLab2, AFormatTheShapeCannotRunIsSkippedAndTheOthersTimed)
{
    REQUIRE_GPU();
    GemmBenchRequest req = request(128, 1408);
    req.m = {1, 16};
    req.formats = {GemmFormat::W4a16, GemmFormat::W3a16Milo, GemmFormat::Mxfp4, GemmFormat::Nvfp4};
    const GemmBenchResult r = runGemmBench(req, DeviceChoice::Gpu);
    ASSERT_EQ(r.device, gpu->info().id) << r.deviceNote;
    ASSERT_EQ(r.skipped.size(), 1u);
    EXPECT_EQ(r.skipped[0].format, "w3a16-milo");
    EXPECT_EQ(r.skipped[0].reason, gemmFormatRefusal(req, GemmFormat::W3a16Milo));
    EXPECT_FALSE(r.skipped[0].reason.empty());
    std::set<std::string> formats;
    for (const auto &p : r.points) {
        formats.insert(p.format);
        EXPECT_EQ(p.k, 1408) << p.format;
        EXPECT_GT(p.timeUs, 0.0) << p.format << " M=" << p.m;
        EXPECT_EQ(p.note.find("CHECK FAILED"), std::string::npos) << p.format << " M=" << p.m << ": " << p.note;
    }
    for (const char *f : {"w4a16", "mxfp4", "nvfp4"})
        EXPECT_EQ(formats.count(f), 1u) << f;
    EXPECT_EQ(formats.count("w3a16-milo"), 0u);
}

// The GPU's own limit: at K = 40 cuBLASLt's FP8 and INT8 GEMMs cannot run; they are skipped on the
// device with that reason while BF16 is timed there (before, the whole request fell back to the
// CPU). With no format left for the GPU, the CPU times them all and says why, as before.
TEST(GpuGemmLab2, TheGpusKMultipleOf16LimitSkipsFormatsOnTheDeviceOnly)
{
    REQUIRE_GPU();
    GemmBenchRequest req = request(64, 40);
    req.m = {1, 16};
    req.formats = {GemmFormat::Bf16, GemmFormat::Fp8, GemmFormat::Int8};
    const GemmBenchResult r = runGemmBench(req, DeviceChoice::Gpu);
    ASSERT_EQ(r.device, gpu->info().id) << r.deviceNote;
    ASSERT_EQ(r.skipped.size(), 2u);
    EXPECT_EQ(r.skipped[0].format, "fp8");
    EXPECT_EQ(r.skipped[0].reason, gpuGemmFormatRefusal(req, GemmFormat::Fp8));
    EXPECT_EQ(r.skipped[1].format, "int8");
    ASSERT_EQ(r.points.size(), 2u);
    for (const auto &p : r.points) {
        EXPECT_EQ(p.format, "bf16");
        EXPECT_EQ(p.note.find("CHECK FAILED"), std::string::npos) << p.note;
    }
    req.formats = {GemmFormat::Fp8};
    const GemmBenchResult cpu = runGemmBench(req, DeviceChoice::Gpu);
    EXPECT_EQ(cpu.device, "cpu");
    EXPECT_NE(cpu.deviceNote.find("multiple of 16"), std::string::npos) << cpu.deviceNote;
    EXPECT_TRUE(cpu.skipped.empty());
}
