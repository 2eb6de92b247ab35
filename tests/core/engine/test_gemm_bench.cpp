// SPDX-License-Identifier: MIT
// The GEMM timing lab's core (issue 21): parsing, the request's checks, the CPU table, the
// cancel path and the JSON round trip.
#include <gtest/gtest.h>

#include "engine/gemm_bench_device.h"
#include "sim/gemm_bench.h"
#include "util/error.h"

using namespace quantscope;

TEST(GemmBench, FormatNamesRoundTripAndBadOnesAreRefused)
{
    for (auto f : allGemmFormats())
        EXPECT_EQ(parseGemmFormat(toString(f)), f);
    EXPECT_EQ(parseGemmFormats("int8,bf16"), (std::vector<GemmFormat>{GemmFormat::Int8, GemmFormat::Bf16}));
    EXPECT_THROW(parseGemmFormat("fp4"), UnsupportedError);
    EXPECT_THROW(parseGemmFormats("bf16,,fp8"), UnsupportedError);
    EXPECT_THROW(parseGemmFormats("fp8,fp8"), UnsupportedError);
}

TEST(GemmBench, MSweepDefaultAndParse)
{
    const auto d = defaultMSweep();
    ASSERT_EQ(d.size(), 14u);
    EXPECT_EQ(d.front(), 1);
    EXPECT_EQ(d.back(), 8192);
    for (std::size_t i = 1; i < d.size(); ++i)
        EXPECT_EQ(d[i], 2 * d[i - 1]);
    EXPECT_EQ(parseMSweep("1,3,100"), (std::vector<std::int64_t>{1, 3, 100}));
    for (const char *bad : {"", "1,", "0", "-2", "2x", "1,,2"})
        EXPECT_THROW(parseMSweep(bad), UnsupportedError) << bad;
}

TEST(GemmBench, RequestValidation)
{
    GemmBenchRequest r;
    EXPECT_THROW(r.validate(), UnsupportedError); // N, K unset
    r.n = 8, r.k = 8;
    EXPECT_NO_THROW(r.validate());
    r.repeats = 19;
    EXPECT_THROW(r.validate(), UnsupportedError);
    r.repeats = 20;
    r.formats.clear();
    EXPECT_THROW(r.validate(), UnsupportedError);
}

TEST(GemmBench, CpuTableHasOnePointPerMWithConsistentRates)
{
    GemmBenchRequest r;
    r.n = 32, r.k = 48;
    r.m = {1, 5, 64};
    r.roofline = false; // no ceilings measured nor cached here: test_gemm_roofline.cpp
    const auto res = runGemmBench(r, DeviceChoice::Cpu);
    EXPECT_EQ(res.device, "cpu");
    EXPECT_TRUE(res.deviceNote.empty());
    ASSERT_EQ(res.points.size(), 3u);
    for (std::size_t i = 0; i < 3; ++i) {
        const auto &p = res.points[i];
        EXPECT_EQ(p.format, kCpuGemmFormat);
        EXPECT_EQ(p.m, r.m[i]);
        EXPECT_GT(p.timeUs, 0);
        EXPECT_EQ(p.repeats, 20);
        const double flops = 2.0 * p.m * 32 * 48, bytes = 4.0 * (p.m * 48 + 32 * 48 + p.m * 32);
        EXPECT_DOUBLE_EQ(p.tflops, flops / (p.timeUs * 1e-6) / 1e12);
        EXPECT_DOUBLE_EQ(p.gbps, bytes / (p.timeUs * 1e-6) / 1e9);
    }
}

TEST(GemmBench, CpuCapCutsRepeatsAndSaysSo)
{
    GemmBenchRequest r;
    r.n = 256, r.k = 256, r.m = {256};
    r.cpuPointCapSeconds = 1e-9; // every run exceeds it: one timed run
    const auto pts = timeGemmsCpu(r);
    ASSERT_EQ(pts.size(), 1u);
    EXPECT_EQ(pts[0].repeats, 1);
    EXPECT_NE(pts[0].note.find("capped"), std::string::npos) << pts[0].note;
}

TEST(GemmBench, CancelStopsTheCpuTable)
{
    GemmBenchRequest r;
    r.n = 16, r.k = 16, r.m = {1, 2, 4};
    CancelToken c;
    int calls = 0;
    c.setStepProgress([&](double) {
        if (++calls == 2)
            c.cancel();
    });
    EXPECT_THROW(timeGemmsCpu(r, &c), Cancelled);
}

TEST(GemmBench, JsonRoundTrip)
{
    GemmBenchResult r;
    r.device = "cuda:0";
    r.deviceNote = "";
    GemmPoint p;
    p.format = "int8", p.m = 1, p.n = 4096, p.k = 14336, p.timeUs = 12.5, p.coldUs = 300, p.tflops = 0.01,
    p.gbps = 4000, p.padded = true, p.paddedM = 4, p.repeats = 20, p.note = "INT32 out", p.device = "cuda:0";
    p.epilogueUs = 2.5;
    r.points = {p, p};
    r.points[1].epilogueUs = 0;
    r.points[1].padded = false;
    r.points[1].paddedM = 1;
    r.points[1].note.clear();
    const auto back = gemmBenchFromJson(nlohmann::json::parse(toJson(r).dump()));
    EXPECT_EQ(back.device, "cuda:0");
    ASSERT_EQ(back.points.size(), 2u);
    EXPECT_EQ(back.points[0].paddedM, 4);
    EXPECT_TRUE(back.points[0].padded);
    EXPECT_EQ(back.points[0].note, "INT32 out");
    EXPECT_EQ(back.points[1].paddedM, 1);
    EXPECT_DOUBLE_EQ(back.points[0].epilogueUs, 2.5);
    EXPECT_FALSE(toJson(r)["points"][1].contains("epilogue_us"));
    EXPECT_FALSE(toJson(r)["points"][1].contains("padded_m"));
    EXPECT_DOUBLE_EQ(back.points[0].timeUs, 12.5);
    EXPECT_THROW(gemmBenchFromJson(nlohmann::json::parse(R"({"device":"cpu","points":[{"m":1}]})")), FormatError);
    // The skipped formats' list lying: an entry without its reason, a number for a format, not a list.
    EXPECT_THROW(
        gemmBenchFromJson(nlohmann::json::parse(R"({"device":"cpu","skipped":[{"format":"mxfp4"}],"points":[]})")),
        FormatError);
    EXPECT_THROW(gemmBenchFromJson(
                     nlohmann::json::parse(R"({"device":"cpu","skipped":[{"format":1,"reason":"r"}],"points":[]})")),
                 FormatError);
    EXPECT_THROW(gemmBenchFromJson(nlohmann::json::parse(R"({"device":"cpu","skipped":"mxfp4","points":[]})")),
                 FormatError);
}

TEST(GemmBench, CurvesGroupByFormatAndSortByM)
{
    GemmBenchResult r;
    auto pt = [](const char *f, std::int64_t m, double t) {
        GemmPoint p;
        p.format = f, p.m = m, p.timeUs = t, p.tflops = 1.0 / t, p.paddedM = m;
        return p;
    };
    r.points = {pt("fp8", 4, 2), pt("bf16", 1, 5), pt("fp8", 1, 1), pt("bf16", 2, 6)};
    r.points[2].padded = true;
    r.points[2].paddedM = 16;
    const auto c = gemmCurves(r);
    ASSERT_EQ(c.size(), 2u);
    EXPECT_EQ(c[0].format, "fp8");
    EXPECT_EQ(c[0].m, (std::vector<double>{1, 4}));
    EXPECT_EQ(c[0].timeUs, (std::vector<double>{1, 2}));
    EXPECT_EQ(c[0].paddedM, (std::vector<std::int64_t>{16, 4}));
    EXPECT_EQ(c[1].format, "bf16");
    EXPECT_EQ(c[1].m, (std::vector<double>{1, 2}));
    std::size_t total = 0;
    for (const auto &x : c)
        total += x.m.size();
    EXPECT_EQ(total, r.points.size());
}

namespace {

/// The message validate() throws for a request of `f` alone ("" when it passes).
std::string aloneRefusal(GemmBenchRequest r, GemmFormat f)
{
    r.formats = {f};
    try {
        r.validate();
    } catch (const UnsupportedError &e) {
        return e.what();
    }
    return {};
}

} // namespace

// Issue 43: a format the shape cannot run is skipped with its reason and the rest are timed; only
// a request none of whose formats can run is refused (then with every reason).
TEST(GemmBench, FormatsTheShapeCannotRunAreSkippedAndTheRestTimed)
{
    GemmBenchRequest r;
    r.n = 32, r.k = 48, r.m = {1, 4};
    r.roofline = false;
    r.w4Group = 16; // divides 48: w4a16 runs; mxfp4 (blocks of 32) and w3a16-milo (K % 256) cannot
    r.formats = {GemmFormat::Mxfp4, GemmFormat::W4a16, GemmFormat::Nvfp4, GemmFormat::W3a16Milo};
    EXPECT_THROW(r.validate(), UnsupportedError); // validate() stays strict: what a backend gets passes
    EXPECT_NE(gemmFormatRefusal(r, GemmFormat::Mxfp4).find("mxfp4 needs K a multiple of its block (32), K = 48"),
              std::string::npos);
    EXPECT_EQ(gemmFormatRefusal(r, GemmFormat::W4a16), "");
    EXPECT_EQ(gemmFormatRefusal(r, GemmFormat::Nvfp4), "");

    std::vector<GemmSkippedFormat> skipped{{"stale", "entry"}};
    const GemmBenchRequest runnable = runnableGemmRequest(r, skipped);
    EXPECT_EQ(runnable.formats, (std::vector<GemmFormat>{GemmFormat::W4a16, GemmFormat::Nvfp4}));
    EXPECT_NO_THROW(runnable.validate());
    ASSERT_EQ(skipped.size(), 2u);
    EXPECT_EQ(skipped[0].format, "mxfp4");
    EXPECT_EQ(skipped[0].reason, aloneRefusal(r, GemmFormat::Mxfp4));
    EXPECT_EQ(skipped[1].format, "w3a16-milo");
    EXPECT_EQ(skipped[1].reason, aloneRefusal(r, GemmFormat::W3a16Milo));
    EXPECT_NE(skipped[1].reason.find("K = 48, rank 32"), std::string::npos) << skipped[1].reason;

    // The CPU path (no GPU needed): the runnable formats are timed, the skipped ones listed.
    const auto res = runGemmBench(r, DeviceChoice::Cpu);
    EXPECT_EQ(res.device, "cpu");
    ASSERT_EQ(res.points.size(), 2u);
    EXPECT_NE(res.points[0].note.find("w4a16, nvfp4: GPU only"), std::string::npos) << res.points[0].note;
    ASSERT_EQ(res.skipped.size(), 2u);
    EXPECT_EQ(res.skipped[0].format, skipped[0].format);
    EXPECT_EQ(res.skipped[0].reason, skipped[0].reason);
    EXPECT_EQ(res.skipped[1].reason, skipped[1].reason);
    // … and they survive the JSON round trip; a result without any has no "skipped" key.
    const auto j = toJson(res);
    ASSERT_TRUE(j.contains("skipped"));
    EXPECT_EQ(j["skipped"][0]["format"], "mxfp4");
    const auto back = gemmBenchFromJson(nlohmann::json::parse(j.dump()));
    ASSERT_EQ(back.skipped.size(), 2u);
    EXPECT_EQ(back.skipped[1].format, "w3a16-milo");
    EXPECT_EQ(back.skipped[1].reason, skipped[1].reason);
    EXPECT_FALSE(toJson(GemmBenchResult{}).contains("skipped"));

    // A rank out of range and MoE mode skip by format too.
    GemmBenchRequest rank = r;
    rank.k = 512, rank.w3Rank = 257;
    rank.formats = {GemmFormat::Bf16, GemmFormat::W3a16Milo};
    EXPECT_EQ(runnableGemmRequest(rank, skipped).formats, std::vector<GemmFormat>{GemmFormat::Bf16});
    ASSERT_EQ(skipped.size(), 1u);
    EXPECT_NE(skipped[0].reason.find("rank 257"), std::string::npos) << skipped[0].reason;
    rank.w3Rank = 256;
    EXPECT_EQ(runnableGemmRequest(rank, skipped).formats.size(), 2u);
    EXPECT_TRUE(skipped.empty());
    GemmBenchRequest moe = rank;
    moe.experts = 4;
    moe.formats = {GemmFormat::Bf16, GemmFormat::W4a16, GemmFormat::Fp8};
    EXPECT_EQ(runnableGemmRequest(moe, skipped).formats, (std::vector<GemmFormat>{GemmFormat::Bf16, GemmFormat::Fp8}));
    ASSERT_EQ(skipped.size(), 1u);
    EXPECT_EQ(skipped[0].format, "w4a16");
}

TEST(GemmBench, NoRunnableFormatOrABadRequestIsRefusedAsAWhole)
{
    GemmBenchRequest r;
    r.n = 32, r.k = 48, r.m = {1};
    r.roofline = false;
    // One format (the CLI's --formats mxfp4): its own message, as before.
    r.formats = {GemmFormat::Mxfp4};
    std::vector<GemmSkippedFormat> skipped;
    try {
        runnableGemmRequest(r, skipped);
        ADD_FAILURE() << "mxfp4 at K = 48 ran";
    } catch (const UnsupportedError &e) {
        EXPECT_EQ(std::string(e.what()), aloneRefusal(r, GemmFormat::Mxfp4));
    }
    EXPECT_THROW(runGemmBench(r, DeviceChoice::Cpu), UnsupportedError);
    // Several, none runnable: every reason, joined by "; ".
    r.formats = {GemmFormat::Mxfp4, GemmFormat::W3a16Milo};
    try {
        runGemmBench(r, DeviceChoice::Cpu);
        ADD_FAILURE() << "no runnable format ran";
    } catch (const UnsupportedError &e) {
        EXPECT_EQ(std::string(e.what()),
                  aloneRefusal(r, GemmFormat::Mxfp4) + "; " + aloneRefusal(r, GemmFormat::W3a16Milo));
    }
    // A request wrong as a whole is refused even when some formats would run.
    r.formats = {GemmFormat::Bf16, GemmFormat::Mxfp4};
    r.repeats = 19;
    try {
        runnableGemmRequest(r, skipped);
        ADD_FAILURE() << "19 repeats accepted";
    } catch (const UnsupportedError &e) {
        EXPECT_EQ(std::string(e.what()), "GEMM bench: at least 20 repeats, got 19");
    }
    r.repeats = 20;
    r.w4Group = -1;
    EXPECT_THROW(runnableGemmRequest(r, skipped), UnsupportedError);
}

// The GPU's own limit (cuBLASLt's 8-bit GEMMs and the paths built on them: K a multiple of 16),
// which runGemmBench applies on the GPU only: every format but bf16, whatever else it needs.
TEST(GemmBench, TheGpuRefusesEveryFormatButBf16AtKNotAMultipleOf16)
{
    GemmBenchRequest r;
    r.n = 32, r.m = {1};
    for (const std::int64_t k : {8, 40, 48, 64, 72}) {
        r.k = k;
        for (auto f : allGemmFormats()) {
            const std::string why = gpuGemmFormatRefusal(r, f);
            const bool refused = f != GemmFormat::Bf16 && k % 16 != 0;
            EXPECT_EQ(!why.empty(), refused) << toString(f) << " K=" << k << ": " << why;
            if (refused)
                EXPECT_EQ(why, "GEMM bench on the GPU: " + toString(f) +
                                   " needs K a multiple of 16, K = " + std::to_string(k));
        }
    }
    // The CPU has no such limit: K = 40 runs fp8 and int8 there (Eigen standing in), nothing skipped.
    r.k = 40, r.roofline = false;
    r.formats = {GemmFormat::Bf16, GemmFormat::Fp8, GemmFormat::Int8};
    const auto res = runGemmBench(r, DeviceChoice::Cpu);
    EXPECT_TRUE(res.skipped.empty());
    EXPECT_EQ(res.points.size(), 1u);
}
