// SPDX-License-Identifier: MIT
// quantscope-cli gemm-bench (issue 21): usage errors, the CPU table's shape and numbers, and the
// shape taken from a tensor of the demo checkpoint; part II (issue 22): the roofline's ceilings
// and their cache, MoE experts and the quantized formats' CPU answer.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <set>

#include <unistd.h>

#include <nlohmann/json.hpp>

#include "cli_run.h"

using namespace cli_test;

namespace {

/// The roofline's cache goes to $XDG_CONFIG_HOME: a fresh folder for this test binary (inherited
/// by the CLI runs), never the user's own settings.
const std::filesystem::path kConfig = [] {
    // One folder per process (ctest runs each test in its own, maybe in parallel).
    const auto d = std::filesystem::temp_directory_path() / ("qs_cli_gemm_bench_config_" + std::to_string(::getpid()));
    std::filesystem::remove_all(d);
    std::filesystem::create_directories(d);
    ::setenv("XDG_CONFIG_HOME", d.c_str(), 1);
    return d;
}();
const struct RemoveConfig {
    ~RemoveConfig()
    {
        std::error_code ec;
        std::filesystem::remove_all(kConfig, ec);
    }
} kRemoveConfig;

} // namespace

TEST(CliGemmBench, RooflineIsCachedAndPointsCarryBoundsAndExperts)
{
    const auto cache = kConfig / "quantscope" / "gemm_peaks.json";
    std::filesystem::remove(cache);
    const Result a = run({"gemm-bench", "--shape", "32,64", "--m-sweep", "1,16", "--formats", "bf16", "--experts", "3",
                          "--device", "cpu", "--json"});
    ASSERT_EQ(a.rc, 0) << a.err;
    const auto j = nlohmann::json::parse(a.out);
    ASSERT_TRUE(j.contains("peaks")) << j;
    EXPECT_EQ(j["peaks"]["source"], "measured");
    ASSERT_TRUE(std::filesystem::exists(cache));
    const double peak = j["peaks"]["tflops"]["fp32"].get<double>();
    ASSERT_TRUE(j["peaks"].contains("levels")) << j["peaks"];
    EXPECT_EQ(j["peaks"]["levels"].back()["name"], "DRAM");
    EXPECT_EQ(j["peaks"]["levels"].back()["gbps"], j["peaks"]["copy_gbps"]);
    for (const auto &p : j["points"]) {
        // The memory ceiling is the level the point's working set (X + W + Y) fits in: the first
        // whose capacity holds its bytes (DRAM, capacity 0, holds any).
        double copy = 0, below = 0;
        std::string level;
        for (const auto &l : j["peaks"]["levels"]) {
            const double cap = l["bytes"].get<double>();
            if (cap == 0 || p["bytes"].get<double>() <= cap) {
                copy = l["gbps"].get<double>(), level = l["name"].get<std::string>();
                break;
            }
            below = cap;
        }
        EXPECT_EQ(p["cache_level"], level) << p;
        EXPECT_GT(p["bytes"].get<double>(), below) << p;
        if (level != "DRAM")
            EXPECT_NE(p["note"].get<std::string>().find("cache-resident (" + level + ")"), std::string::npos) << p;
        EXPECT_EQ(p["experts"], 3);
        EXPECT_EQ(p["launches"], 3);
        const double flops = 3 * 2.0 * p["m"].get<double>() * 32 * 64;
        EXPECT_DOUBLE_EQ(p["flops"].get<double>(), flops);
        const double intensity = flops / p["bytes"].get<double>();
        EXPECT_NEAR(p["intensity"].get<double>(), intensity, 1e-12 * intensity);
        // The bound: whichever ceiling is lower at the point's intensity.
        EXPECT_EQ(p["bound"], copy * intensity / 1e3 < peak ? "memory" : "compute") << p;
        const double achieved = flops / (p["time_us"].get<double>() * 1e-6) / 1e12;
        EXPECT_NEAR(p["fraction_of_ceiling"].get<double>(), achieved / std::min(copy * intensity / 1e3, peak),
                    1e-9 * achieved / std::min(copy * intensity / 1e3, peak));
    }
    const Result b = run({"gemm-bench", "--shape", "32,64", "--m-sweep", "1", "--device", "cpu", "--json"});
    ASSERT_EQ(b.rc, 0) << b.err;
    EXPECT_EQ(nlohmann::json::parse(b.out)["peaks"]["source"], "cached (" + cache.string() + ")");
    const Result none =
        run({"gemm-bench", "--shape", "32,64", "--m-sweep", "1", "--device", "cpu", "--no-roofline", "--json"});
    ASSERT_EQ(none.rc, 0) << none.err;
    EXPECT_FALSE(nlohmann::json::parse(none.out).contains("peaks"));
    // The quantized paths are GPU only: the CPU's point says so.
    const Result q = run({"gemm-bench", "--shape", "32,256", "--m-sweep", "1", "--formats", "w4a16,w8a8-fp8",
                          "--device", "cpu", "--json"});
    ASSERT_EQ(q.rc, 0) << q.err;
    EXPECT_NE(nlohmann::json::parse(q.out)["points"][0]["note"].get<std::string>().find("w4a16, w8a8-fp8: GPU only"),
              std::string::npos);
    // MoE with a quantized format is refused by name.
    const Result bad = run({"gemm-bench", "--shape", "32,256", "--experts", "4", "--formats", "w4a16", "--json"});
    EXPECT_EQ(bad.rc, 2) << bad.err;
    EXPECT_NE(bad.err.find("w4a16"), std::string::npos) << bad.err;
    // The FP4-weight formats (issue 43) are accepted by name, GPU only too, and need K a multiple
    // of their block.
    const Result fp4 = run({"gemm-bench", "--shape", "32,256", "--m-sweep", "1", "--formats", "mxfp4,nvfp4", "--device",
                            "cpu", "--no-roofline", "--json"});
    ASSERT_EQ(fp4.rc, 0) << fp4.err;
    EXPECT_NE(nlohmann::json::parse(fp4.out)["points"][0]["note"].get<std::string>().find("mxfp4, nvfp4: GPU only"),
              std::string::npos);
    const Result ragged =
        run({"gemm-bench", "--shape", "32,48", "--formats", "mxfp4", "--device", "cpu", "--no-roofline", "--json"});
    EXPECT_EQ(ragged.rc, 2) << ragged.err;
    EXPECT_NE(ragged.err.find("mxfp4 needs K a multiple of its block (32)"), std::string::npos) << ragged.err;
}

TEST(CliGemmBench, BadShapeIsAUsageError)
{
    for (const char *bad : {"4096", "4096,x", "0,16", "-4,8", "16,"}) {
        const Result r = run({"gemm-bench", "--shape", bad, "--device", "cpu", "--json"});
        EXPECT_EQ(r.rc, 2) << bad;
        EXPECT_NE(r.err.find("--shape"), std::string::npos) << bad << ": " << r.err;
        EXPECT_TRUE(r.out.empty()) << bad;
    }
}

TEST(CliGemmBench, UnknownFormatAndBadSweepAreUsageErrors)
{
    const Result f = run({"gemm-bench", "--shape", "16,32", "--formats", "bf16,fp4", "--json"});
    EXPECT_EQ(f.rc, 2);
    EXPECT_NE(f.err.find("'fp4'"), std::string::npos) << f.err;
    const Result m = run({"gemm-bench", "--shape", "16,32", "--m-sweep", "1,0", "--json"});
    EXPECT_EQ(m.rc, 2);
    EXPECT_NE(m.err.find("'0'"), std::string::npos) << m.err;
    const Result rep = run({"gemm-bench", "--shape", "16,32", "--repeats", "5"});
    EXPECT_EQ(rep.rc, 2);
    const Result both = run({"gemm-bench"});
    EXPECT_EQ(both.rc, 2);
    EXPECT_NE(both.err.find("usage"), std::string::npos);
}

TEST(CliGemmBench, CpuRunGivesOnePointPerFormatAndM)
{
    const Result r = run({"gemm-bench", "--shape", "24,40", "--m-sweep", "1,3,8", "--formats", "bf16,int8", "--device",
                          "cpu", "--json"});
    ASSERT_EQ(r.rc, 0) << r.err;
    const auto j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["device"], "cpu");
    ASSERT_TRUE(j["points"].is_array());
    // The CPU has one format (Eigen FP32 standing in for the requested ones): one point per M.
    std::set<std::pair<std::string, std::int64_t>> seen;
    for (const auto &p : j["points"]) {
        const auto m = p["m"].get<std::int64_t>();
        EXPECT_TRUE(seen.insert({p["format"].get<std::string>(), m}).second) << p;
        EXPECT_EQ(p["format"], "fp32 (cpu)");
        EXPECT_EQ(p["n"], 24);
        EXPECT_EQ(p["k"], 40);
        EXPECT_EQ(p["padded"], false);
        const double t = p["time_us"].get<double>();
        ASSERT_GT(t, 0.0);
        EXPECT_GT(p["cold_us"].get<double>(), 0.0);
        // TFLOP/s and GB/s follow from the shape and the time (FP32: 4 bytes an element).
        EXPECT_NEAR(p["tflops"].get<double>(), 2.0 * m * 24 * 40 / (t * 1e-6) / 1e12,
                    1e-9 * p["tflops"].get<double>() + 1e-12);
        EXPECT_NEAR(p["gbps"].get<double>(), 4.0 * (m * 40 + 24 * 40 + m * 24) / (t * 1e-6) / 1e9,
                    1e-9 * p["gbps"].get<double>() + 1e-12);
        EXPECT_GE(p["repeats"].get<int>(), 20);
    }
    EXPECT_EQ(seen, (std::set<std::pair<std::string, std::int64_t>>{
                        {"fp32 (cpu)", 1}, {"fp32 (cpu)", 3}, {"fp32 (cpu)", 8}}));
}

TEST(CliGemmBench, GpuRequestedWithoutOneSaysWhy)
{
    const Result r = run({"gemm-bench", "--shape", "8,16", "--m-sweep", "2", "--device", "gpu", "--json"});
    ASSERT_EQ(r.rc, 0) << r.err;
    const auto j = nlohmann::json::parse(r.out);
    if (j["device"] != "cpu")
        GTEST_SKIP() << "a GPU is present: " << j["device"];
    EXPECT_TRUE(j["device_note"].is_string());
    EXPECT_NE(r.err.find("note:"), std::string::npos);
}

TEST(CliGemmBench, TensorGivesNAndK)
{
    const auto d = demoDir();
    const Result r = run({"gemm-bench", "--tensor", "model.layers.0.mlp.down_proj.weight", d.string(), "--m-sweep", "2",
                          "--device", "cpu", "--json"});
    ASSERT_EQ(r.rc, 0) << r.err;
    const auto j = nlohmann::json::parse(r.out);
    ASSERT_EQ(j["points"].size(), 1u);
    EXPECT_EQ(j["points"][0]["n"], 1024);
    EXPECT_EQ(j["points"][0]["k"], 2816);
    EXPECT_EQ(j["points"][0]["m"], 2);
    // A missing tensor and a vector are clear errors, nothing on stdout.
    const Result missing = run({"gemm-bench", "--tensor", "nope", d.string(), "--device", "cpu"});
    EXPECT_EQ(missing.rc, 1);
    EXPECT_NE(missing.err.find("nope"), std::string::npos);
    EXPECT_TRUE(missing.out.empty());
    const Result vec =
        run({"gemm-bench", "--tensor", "model.layers.0.input_layernorm.weight", d.string(), "--device", "cpu"});
    EXPECT_EQ(vec.rc, 1);
    EXPECT_NE(vec.err.find("not a matrix"), std::string::npos) << vec.err;
}

TEST(CliGemmBench, HumanTableHasARowPerPoint)
{
    const Result r = run({"gemm-bench", "--shape", "16,16", "--m-sweep", "1,2", "--device", "cpu"});
    ASSERT_EQ(r.rc, 0) << r.err;
    EXPECT_NE(r.out.find("fp32 (cpu)"), std::string::npos);
    std::size_t rows = 0;
    for (std::size_t at = 0; (at = r.out.find("fp32 (cpu)", at)) != std::string::npos; ++at)
        ++rows;
    EXPECT_EQ(rows, 2u) << r.out;
}

// Issue 43: a format the shape cannot run (mxfp4 at K = 48: blocks of 32) is skipped with its
// reason in the JSON's "skipped" and under the table; the other formats are timed; with no
// runnable format left the request is a usage error naming the format.
TEST(CliGemmBench, FormatsTheShapeCannotRunAreListedAsSkipped)
{
    const Result r = run({"gemm-bench", "--shape", "32,48", "--m-sweep", "1,2", "--formats", "bf16,mxfp4,nvfp4",
                          "--device", "cpu", "--no-roofline", "--json"});
    ASSERT_EQ(r.rc, 0) << r.err;
    const auto j = nlohmann::json::parse(r.out);
    ASSERT_TRUE(j.contains("skipped")) << j;
    ASSERT_EQ(j["skipped"].size(), 1u) << j["skipped"];
    EXPECT_EQ(j["skipped"][0]["format"], "mxfp4");
    EXPECT_NE(j["skipped"][0]["reason"].get<std::string>().find("mxfp4 needs K a multiple of its block (32), K = 48"),
              std::string::npos)
        << j["skipped"];
    ASSERT_EQ(j["points"].size(), 2u);
    for (const auto &p : j["points"]) // the CPU names the quantized formats it stood in for: nvfp4, not mxfp4
        EXPECT_NE(p["note"].get<std::string>().find("; nvfp4: GPU only"), std::string::npos) << p;
    // A runnable request has no "skipped" key.
    const Result ok = run({"gemm-bench", "--shape", "32,64", "--m-sweep", "1", "--formats", "bf16,mxfp4", "--device",
                           "cpu", "--no-roofline", "--json"});
    ASSERT_EQ(ok.rc, 0) << ok.err;
    EXPECT_FALSE(nlohmann::json::parse(ok.out).contains("skipped"));
    // The table: a "not timed" line per skipped format, with its reason.
    const Result table = run({"gemm-bench", "--shape", "32,48", "--m-sweep", "1", "--formats", "w3a16-milo,bf16",
                              "--w3-rank", "8", "--device", "cpu", "--no-roofline"});
    ASSERT_EQ(table.rc, 0) << table.err;
    EXPECT_NE(table.out.find("w3a16-milo         not timed: GEMM bench: w3a16-milo needs K a multiple of 256 and a "
                             "rank in [0, 256], got K = 48, rank 8"),
              std::string::npos)
        << table.out;
    // None runnable: a usage error with every reason.
    const Result none = run({"gemm-bench", "--shape", "32,48", "--formats", "mxfp4,w3a16-milo", "--device", "cpu",
                             "--no-roofline", "--json"});
    EXPECT_EQ(none.rc, 2) << none.err;
    EXPECT_NE(none.err.find("mxfp4 needs K a multiple of its block (32)"), std::string::npos) << none.err;
    EXPECT_NE(none.err.find("w3a16-milo needs K a multiple of 256"), std::string::npos) << none.err;
    EXPECT_TRUE(none.out.empty());
}
