// SPDX-License-Identifier: MIT
// The GEMM timing lab II's core (issue 22): the quantized formats' names and bytes, the
// roofline's placement against hand-computed ceilings, the peaks cache round trip, the JSON's
// new keys, and the CPU's MoE and roofline fallback.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "engine/gemm_bench_device.h"
#include "sim/gemm_roofline.h"
#include "util/error.h"

using namespace quantscope;

namespace {

std::filesystem::path tempDir(const char *name)
{
    auto d =
        std::filesystem::temp_directory_path() /
        (std::string("qs_roofline_") + name + "_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()));
    std::filesystem::remove_all(d);
    std::filesystem::create_directories(d);
    return d;
}

GemmPeaks peaks()
{
    GemmPeaks p;
    p.deviceKey = "test GPU | driver 1 | CUDA 2";
    p.copyGbps = 3000;
    p.tflops = {{"bf16", 700}, {"fp8", 1400}, {"int8", 1300}};
    p.source = "measured";
    return p;
}

} // namespace

TEST(GemmRoofline, QuantizedFormatNamesAndDtypes)
{
    EXPECT_EQ(
        parseGemmFormats("w4a16,w4a8-int8,w4a8-fp8,w8a8-fp8"),
        (std::vector<GemmFormat>{GemmFormat::W4a16, GemmFormat::W4a8Int8, GemmFormat::W4a8Fp8, GemmFormat::W8a8Fp8}));
    EXPECT_EQ(allGemmFormats().size(), 9u);
    EXPECT_EQ(GemmBenchRequest{}.formats, plainGemmFormats());
    EXPECT_EQ(gemmPeakDtype("w4a16"), "bf16");
    // MiLo's W3A16 + compensator (issue 43): a quantized-weight format on the BF16 ceiling, 3 bits a
    // weight + FP32 scale and zero point per 64, K a multiple of 256, rank in [0, 256].
    EXPECT_EQ(parseGemmFormat("w3a16-milo"), GemmFormat::W3a16Milo);
    EXPECT_TRUE(isQuantizedWeightFormat(GemmFormat::W3a16Milo));
    EXPECT_EQ(gemmPeakDtype("w3a16-milo"), "bf16");
    EXPECT_DOUBLE_EQ(gemmWeightBytes("w3a16-milo", 4096, 14336), 4096.0 * 14336 * 3 / 8 + 8.0 * 4096 * 14336 / 64);
    GemmBenchRequest w3;
    w3.formats = {GemmFormat::W3a16Milo};
    w3.n = 64, w3.k = 512;
    EXPECT_NO_THROW(w3.validate());
    w3.k = 384;
    EXPECT_THROW(w3.validate(), UnsupportedError);
    w3.k = 512, w3.w3Rank = 257;
    EXPECT_THROW(w3.validate(), UnsupportedError);
    EXPECT_EQ(gemmPeakDtype("w4a8-int8"), "int8");
    EXPECT_EQ(gemmPeakDtype("w8a8-fp8"), "fp8");
    EXPECT_EQ(gemmPeakDtype(kCpuGemmFormat), "fp32");
}

TEST(GemmRoofline, BytesCountWeightsAsStored)
{
    // N = 4, K = 256, M = 2, g = 128: W 4·256/2 = 512 B, 8 groups × (4 B scale + 1 B zero) = 40,
    // X BF16 2·256·2 = 1024, Y 2·2·4 = 16.
    EXPECT_DOUBLE_EQ(gemmBytes("w4a16", 2, 4, 256, 128), 512 + 40 + 1024 + 16);
    // Per channel: 4 groups.
    EXPECT_DOUBLE_EQ(gemmBytes("w4a16", 2, 4, 256, 0), 512 + 20 + 1024 + 16);
    // W4A8: X one byte each + 4 B per token scale.
    EXPECT_DOUBLE_EQ(gemmBytes("w4a8-int8", 2, 4, 256), 512 + 20 + 512 + 8 + 16);
    EXPECT_DOUBLE_EQ(gemmBytes("w8a8-fp8", 2, 4, 256), 1024 + 16 + 512 + 8 + 16);
    GemmPoint p;
    p.format = "bf16", p.m = 16, p.n = 2048, p.k = 7168, p.experts = 16, p.timeUs = 200;
    setGemmRates(p);
    EXPECT_DOUBLE_EQ(p.flops, 16 * 2.0 * 16 * 2048 * 7168);
    EXPECT_DOUBLE_EQ(p.bytes, 16 * (2.0 * (16 * 7168 + 2048 * 7168) + 2.0 * 16 * 2048));
    EXPECT_NEAR(p.gbps, p.bytes / 200e-6 / 1e9, 1e-9 * p.gbps);
}

TEST(GemmRoofline, PlacementAgainstHandComputedCeilings)
{
    const GemmPeaks pk = peaks();
    // Ridge of bf16: 700e12 / 3000e9 ≈ 233 FLOP/B.
    GemmPoint low;
    low.format = "bf16", low.m = 1, low.n = 4096, low.k = 4096, low.timeUs = 20;
    setGemmRates(low);
    placeOnRoofline(low, pk);
    const double iLow = low.flops / low.bytes;
    EXPECT_DOUBLE_EQ(low.intensity, iLow);
    EXPECT_EQ(low.bound, "memory");
    EXPECT_NEAR(low.fractionOfCeiling, (low.flops / 20e-6) / (3000e9 * iLow), 1e-12);
    GemmPoint high = low;
    high.m = 8192, high.timeUs = 1000;
    setGemmRates(high);
    placeOnRoofline(high, pk);
    EXPECT_EQ(high.bound, "compute");
    EXPECT_NEAR(high.fractionOfCeiling, (high.flops / 1e-3) / 700e12, 1e-12);
    EXPECT_NEAR(rooflineCeilingTflops(pk, "fp8", 1.0), 3.0, 1e-12);
    EXPECT_EQ(rooflineCeilingTflops(pk, "fp32", 1.0), 0.0);
    GemmPoint cpu = low;
    cpu.format = kCpuGemmFormat;
    cpu.bound.clear();
    placeOnRoofline(cpu, pk);
    EXPECT_TRUE(cpu.bound.empty()) << "no fp32 ceiling: the point stays off the roofline";
}

TEST(GemmRoofline, PointsTimedWithoutTrafficGetItFromTheirShape)
{
    // Part I's plain GEMMs come back with a time but no bytes or FLOPs (seen on the H100: every
    // BF16 and FP8 point of a roofline request stayed unplaced).
    GemmBenchResult r;
    r.peaks = peaks();
    GemmPoint p;
    p.format = "fp8", p.m = 1, p.n = 1024, p.k = 1024, p.timeUs = 4;
    r.points = {p};
    placeOnRoofline(r);
    const GemmPoint &q = r.points.front();
    const double flops = 2.0 * 1 * 1024 * 1024, bytes = 1.0 * (1024 + 1024 * 1024) + 2.0 * 1024;
    EXPECT_DOUBLE_EQ(q.flops, flops);
    EXPECT_DOUBLE_EQ(q.bytes, bytes);
    EXPECT_EQ(q.bound, "memory");
    EXPECT_NEAR(q.fractionOfCeiling, (flops / 4e-6) / (3000e9 * flops / bytes), 1e-9);
}

TEST(GemmRoofline, NoPointAboveItsCeilingAndThePointSaysWhy)
{
    // A small FP8 GEMM in cache beats the large copy's GB/s (memory-bound) and a BF16 GEMM the
    // measured BF16 peak (compute-bound): both ceilings are raised to them (issue 42).
    GemmBenchResult r;
    r.peaks = peaks();
    GemmPoint fast;
    fast.format = "fp8", fast.m = 1, fast.n = 1024, fast.k = 1024, fast.timeUs = 0.1; // ~10.5 TB/s
    GemmPoint big;
    big.format = "bf16", big.m = 8192, big.n = 8192, big.k = 8192, big.timeUs = 1000; // 1100 TFLOP/s
    GemmPoint ok;
    ok.format = "bf16", ok.m = 4096, ok.n = 4096, ok.k = 4096, ok.timeUs = 10000;
    r.points = {fast, big, ok};
    placeOnRoofline(r);
    for (const auto &p : r.points) {
        ASSERT_FALSE(p.bound.empty());
        EXPECT_LE(p.fractionOfCeiling, 1.0 + 1e-12) << p.series() << " M=" << p.m;
    }
    EXPECT_NEAR(r.points[0].fractionOfCeiling, 1.0, 1e-9);
    EXPECT_NEAR(r.points[1].fractionOfCeiling, 1.0, 1e-9);
    EXPECT_NE(r.points[0].note.find("above the measured ceiling"), std::string::npos);
    EXPECT_NE(r.points[1].note.find("above the measured ceiling"), std::string::npos);
    EXPECT_EQ(r.points[2].note.find("above the measured ceiling"), std::string::npos);
    EXPECT_NE(r.peaks->note.find("raised to the points"), std::string::npos);
    EXPECT_GT(r.peaks->copyGbps, peaks().copyGbps);
    EXPECT_GT(r.peaks->tflops.at("bf16"), peaks().tflops.at("bf16"));
    for (const auto &p : rooflineView(r).points)
        EXPECT_LE(p.fraction, 1.0 + 1e-12);
}

TEST(GemmRoofline, TheViewCarriesEachPointsRunToRunSpread)
{
    GemmBenchResult r;
    r.peaks = peaks();
    GemmPoint p;
    p.format = "bf16", p.m = 4096, p.n = 4096, p.k = 4096, p.timeUs = 10000, p.timeMinUs = 9000, p.timeMaxUs = 12500;
    GemmPoint none = p; // a GPU point: the median only
    none.m = 2048, none.timeMinUs = 0, none.timeMaxUs = 0;
    r.points = {p, none};
    placeOnRoofline(r);
    const auto v = rooflineView(r);
    ASSERT_EQ(v.points.size(), 2u);
    EXPECT_NEAR(v.points[0].tflopsHigh, v.points[0].tflops * 10000 / 9000, 1e-9);
    EXPECT_NEAR(v.points[0].tflopsLow, v.points[0].tflops * 10000 / 12500, 1e-9);
    EXPECT_EQ(v.points[1].tflopsHigh, 0.0);
    const auto back = gemmBenchFromJson(nlohmann::json::parse(toJson(r).dump()));
    EXPECT_EQ(back.points[0].timeMinUs, 9000);
    EXPECT_EQ(back.points[0].timeMaxUs, 12500);
    EXPECT_EQ(back.points[1].timeMinUs, 0);
}

TEST(GemmRoofline, CacheRoundTripPerDeviceAndDamagedFile)
{
    const auto dir = tempDir("cache");
    const std::string path = (dir / "sub" / "gemm_peaks.json").string();
    EXPECT_FALSE(loadCachedPeaks(path, "x"));
    GemmPeaks a = peaks(), b = peaks();
    b.deviceKey = "other GPU";
    b.copyGbps = 1234;
    storePeaks(path, a);
    storePeaks(path, b);
    const auto ra = loadCachedPeaks(path, a.deviceKey), rb = loadCachedPeaks(path, b.deviceKey);
    ASSERT_TRUE(ra && rb);
    EXPECT_EQ(ra->copyGbps, a.copyGbps);
    EXPECT_EQ(ra->tflops, a.tflops);
    EXPECT_EQ(rb->copyGbps, 1234);
    EXPECT_EQ(ra->source, "cached (" + path + ")");
    EXPECT_FALSE(loadCachedPeaks(path, "never seen"));
    EXPECT_FALSE(std::filesystem::exists(dir / "sub" / ".gemm_peaks.json.tmp"));
    std::ofstream(path) << "{ not json";
    EXPECT_FALSE(loadCachedPeaks(path, a.deviceKey)) << "a damaged cache is remeasured";
    storePeaks(path, a); // and replaced
    EXPECT_TRUE(loadCachedPeaks(path, a.deviceKey));
    std::filesystem::remove_all(dir);
}

TEST(GemmRoofline, JsonRoundTripOfTheNewKeys)
{
    GemmBenchResult r;
    r.device = "cuda:0";
    r.peaks = peaks();
    GemmPoint p;
    p.format = "bf16", p.m = 16, p.n = 64, p.k = 128, p.timeUs = 5, p.experts = 4, p.launches = 4;
    setGemmRates(p);
    r.points.push_back(p);
    p.launches = 1;
    r.points.push_back(p);
    placeOnRoofline(r);
    const auto j = toJson(r);
    ASSERT_TRUE(j.contains("peaks"));
    EXPECT_EQ(j["points"][0]["launches"], 4);
    EXPECT_EQ(j["points"][0]["bound"], "memory");
    const auto back = gemmBenchFromJson(nlohmann::json::parse(j.dump()));
    ASSERT_TRUE(back.peaks);
    EXPECT_EQ(back.peaks->tflops, r.peaks->tflops);
    ASSERT_EQ(back.points.size(), 2u);
    EXPECT_EQ(back.points[0].series(), "bf16 loop");
    EXPECT_EQ(back.points[1].series(), "bf16 batched");
    EXPECT_EQ(back.points[1].bound, r.points[1].bound);
    EXPECT_DOUBLE_EQ(back.points[1].fractionOfCeiling, r.points[1].fractionOfCeiling);
    auto bad = nlohmann::json::parse(j.dump());
    bad["points"][0]["bound"] = "latency";
    EXPECT_THROW(gemmBenchFromJson(bad), FormatError);
    EXPECT_EQ(gemmCurves(back).size(), 2u);
}

TEST(GemmRoofline, FusedW4a16PointsCarryBytesPerTokenWeightRooflineAndSpeedup)
{
    // The fused point counts bytes as w4a16 and runs against the BF16 ceiling.
    EXPECT_EQ(gemmPeakDtype(kW4a16FusedFormat), "bf16");
    EXPECT_DOUBLE_EQ(gemmBytes(kW4a16FusedFormat, 2, 4, 256, 128), gemmBytes("w4a16", 2, 4, 256, 128));
    EXPECT_DOUBLE_EQ(gemmWeightBytes("w4a16", 4, 256, 128), 512 + 40);
    GemmBenchResult r;
    r.device = "cuda:0";
    r.peaks = peaks(); // copy 3000 GB/s
    GemmPoint bf;
    bf.format = "bf16", bf.m = 4, bf.n = 4096, bf.k = 14336, bf.timeUs = 60;
    setGemmRates(bf);
    GemmPoint fused = bf;
    fused.format = kW4a16FusedFormat, fused.timeUs = 15;
    setGemmRates(fused, 128);
    GemmPoint other = fused; // another M: no BF16 point to compare with
    other.m = 8;
    setGemmRates(other, 128);
    r.points = {bf, fused, other};
    placeOnRoofline(r);
    setSpeedupsVsBf16(r);
    // Bytes per token: all bytes / M.
    EXPECT_DOUBLE_EQ(r.points[1].bytesPerToken, r.points[1].bytes / 4);
    // The weights: N·K/2 + 5·N·K/128 bytes read at 3000 GB/s, over 15 µs.
    const double w = 4096.0 * 14336 / 2 + 5.0 * 4096 * 14336 / 128;
    EXPECT_NEAR(r.points[1].weightRooflineFraction, w / 3000e9 / 15e-6, 1e-12);
    EXPECT_NEAR(r.points[0].weightRooflineFraction, 2.0 * 4096 * 14336 / 3000e9 / 60e-6, 1e-12);
    EXPECT_DOUBLE_EQ(r.points[1].speedupVsBf16, 4.0);
    EXPECT_EQ(r.points[2].speedupVsBf16, 0.0);
    EXPECT_EQ(r.points[0].speedupVsBf16, 0.0);
    const auto back = gemmBenchFromJson(nlohmann::json::parse(toJson(r).dump()));
    EXPECT_DOUBLE_EQ(back.points[1].speedupVsBf16, 4.0);
    EXPECT_DOUBLE_EQ(back.points[1].weightRooflineFraction, r.points[1].weightRooflineFraction);
    EXPECT_DOUBLE_EQ(back.points[1].bytesPerToken, r.points[1].bytesPerToken);
    EXPECT_FALSE(toJson(r)["points"][2].contains("speedup_vs_bf16"));
}

TEST(GemmRoofline, RequestRefusesMoEWithQuantizedFormatsAndBadGroups)
{
    GemmBenchRequest r;
    r.n = 64, r.k = 256;
    r.experts = 4;
    r.formats = {GemmFormat::Bf16, GemmFormat::Fp8};
    EXPECT_NO_THROW(r.validate());
    r.formats = {GemmFormat::W4a16};
    EXPECT_THROW(r.validate(), UnsupportedError);
    r.experts = 1;
    r.w4Group = 96; // does not divide 256
    EXPECT_THROW(r.validate(), UnsupportedError);
    r.w4Group = 0;
    EXPECT_NO_THROW(r.validate());
}

TEST(GemmRoofline, CpuFallbackTimesExpertsAndPlacesPoints)
{
    const auto dir = tempDir("cpu");
    GemmBenchRequest r;
    r.n = 32, r.k = 64, r.m = {1, 8};
    r.experts = 3;
    r.formats = {GemmFormat::Bf16};
    r.peaksCache = (dir / "p.json").string();
    const auto res = runGemmBench(r, DeviceChoice::Cpu);
    ASSERT_TRUE(res.peaks);
    EXPECT_GT(res.peaks->copyGbps, 0);
    EXPECT_GT(res.peaks->tflops.at("fp32"), 0);
    EXPECT_EQ(res.peaks->source, "measured");
    ASSERT_EQ(res.points.size(), 2u);
    for (const auto &p : res.points) {
        EXPECT_EQ(p.experts, 3);
        EXPECT_EQ(p.launches, 3);
        EXPECT_DOUBLE_EQ(p.flops, 3 * gemmFlops(p.m, 32, 64));
        EXPECT_TRUE(p.bound == "memory" || p.bound == "compute");
        const double mem = res.peaks->copyGbps * 1e9 * p.intensity / 1e12;
        EXPECT_EQ(p.bound, mem < res.peaks->tflops.at("fp32") ? "memory" : "compute");
    }
    // The second run takes the cache.
    const auto again = runGemmBench(r, DeviceChoice::Cpu);
    ASSERT_TRUE(again.peaks);
    EXPECT_EQ(again.peaks->source, "cached (" + r.peaksCache + ")");
    r.formats = {GemmFormat::W4a16};
    r.experts = 1;
    r.w4Group = 32;
    const auto q = runGemmBench(r, DeviceChoice::Cpu);
    EXPECT_NE(q.points.at(0).note.find("w4a16: GPU only"), std::string::npos) << q.points.at(0).note;
    std::filesystem::remove_all(dir);
}

TEST(GemmRoofline, ViewDataCeilingsBendAtTheRidgeAndMoeBarsPairModes)
{
    GemmBenchResult r;
    r.peaks = peaks();
    for (std::int64_t m : {1, 8192}) {
        GemmPoint p;
        p.format = "bf16", p.m = m, p.n = 4096, p.k = 4096, p.timeUs = m == 1 ? 20 : 1000;
        setGemmRates(p);
        r.points.push_back(p);
    }
    placeOnRoofline(r);
    const RooflineView v = rooflineView(r);
    ASSERT_EQ(v.points.size(), 2u);
    ASSERT_EQ(v.ceilings.size(), 3u); // bf16, fp8, int8
    for (const auto &c : v.ceilings) {
        const double peak = r.peaks->tflops.at(c.dtype), ridge = peak / 3.0; // 3000 GB/s = 3 TFLOP/s per FLOP/B
        ASSERT_EQ(c.intensity.size(), 3u) << c.dtype;                        // the ridge lies inside the range
        EXPECT_NEAR(c.intensity[1], ridge, 1e-9 * ridge);
        EXPECT_NEAR(c.tflops[0], 3.0 * c.intensity[0], 1e-9);
        EXPECT_EQ(c.tflops[2], peak);
    }
    GemmBenchResult moe;
    for (int launches : {4, 1}) {
        GemmPoint p;
        p.format = "bf16", p.m = 16, p.n = 64, p.k = 64, p.experts = 4, p.launches = launches;
        p.timeUs = launches == 4 ? 40 : 12;
        moe.points.push_back(p);
    }
    const MoeBars b = moeBars(moe);
    ASSERT_EQ(b.groups, std::vector<std::string>{"bf16 M=16"});
    EXPECT_EQ(b.loopUs[0], 40);
    EXPECT_EQ(b.batchedUs[0], 12);
    EXPECT_TRUE(moeBars(r).groups.empty());
}
