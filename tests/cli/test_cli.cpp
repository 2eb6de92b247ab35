// SPDX-License-Identifier: MIT
// End-to-end tests: run quantscope-cli as a user would and check exit codes, JSON and messages.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <sys/wait.h>

#include <nlohmann/json.hpp>

namespace fs = std::filesystem;

namespace {

struct Result {
    int rc = -1;
    std::string out, err;
};

std::string slurp(const fs::path &p)
{
    std::ifstream in(p, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

std::string quote(const std::string &s)
{
    std::string q = "'";
    for (char c : s)
        q += (c == '\'') ? std::string("'\\''") : std::string(1, c);
    return q + "'";
}

Result run(const std::vector<std::string> &args)
{
    const fs::path errFile = fs::path(::testing::TempDir()) / "qs_cli_stderr.txt";
    std::string cmd = quote(QUANTSCOPE_CLI);
    for (const auto &a : args)
        cmd += " " + quote(a);
    cmd += " 2>" + quote(errFile.string());
    Result r;
    FILE *p = popen(cmd.c_str(), "r");
    if (!p)
        return r;
    char buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, p)) > 0)
        r.out.append(buf, n);
    const int status = pclose(p);
    r.rc = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    r.err = slurp(errFile);
    return r;
}

fs::path stories() { return fs::path(QUANTSCOPE_SHARED_DATA) / "stories260K"; }

fs::path demoDir()
{
    static const fs::path dir = [] {
        const fs::path d = fs::path(::testing::TempDir()) / "qs_cli_demo";
        fs::remove_all(d);
        const Result r = run({"demo", d.string()});
        EXPECT_EQ(r.rc, 0) << r.err;
        return d;
    }();
    return dir;
}

} // namespace

TEST(Cli, VersionNamesTheComputeDevice)
{
    const Result r = run({"--version"});
    EXPECT_EQ(r.rc, 0);
    EXPECT_NE(r.out.find(QUANTSCOPE_VERSION), std::string::npos);
    EXPECT_NE(r.out.find("Compute device:"), std::string::npos);
}

TEST(Cli, UsageErrorsExitWithTwo)
{
    EXPECT_EQ(run({}).rc, 2);
    EXPECT_EQ(run({"frobnicate"}).rc, 2);
    const Result r = run({"info", "x.safetensors", "--bogus"});
    EXPECT_EQ(r.rc, 2);
    EXPECT_NE(r.err.find("--bogus"), std::string::npos);
}

TEST(Cli, InfoStories260KMatchesGoldenStats)
{
    if (!fs::exists(stories() / "stats.json"))
        GTEST_SKIP() << "real test data not found at " << stories() << " (../shared absent): skipped";
    const Result r = run({"info", (stories() / "model.safetensors").string(), "--json", "--stats"});
    ASSERT_EQ(r.rc, 0) << r.err;
    const auto j = nlohmann::json::parse(r.out);
    const auto golden = nlohmann::json::parse(slurp(stories() / "stats.json"));
    ASSERT_EQ(j["tensors"].size(), 48u);
    std::map<std::string, nlohmann::json> byName;
    for (const auto &t : j["tensors"])
        byName[t["name"]] = t;
    auto rel = [](double a, double b) { return std::abs(a - b) / std::max(std::abs(b), 1e-30); };
    for (const auto &g : golden["tensors"]) {
        const std::string name = g["name"];
        SCOPED_TRACE(name);
        ASSERT_TRUE(byName.count(name));
        const auto &t = byName[name];
        EXPECT_EQ(t["dtype"], "F32");
        std::int64_t numel = 1;
        std::string shape;
        for (const auto &d : t["shape"]) {
            numel *= d.get<std::int64_t>();
            shape += (shape.empty() ? "" : "x") + std::to_string(d.get<std::int64_t>());
        }
        EXPECT_EQ(shape, g["shape"].get<std::string>());
        EXPECT_EQ(numel, g["numel"].get<std::int64_t>());
        EXPECT_EQ(t["bytes"].get<std::int64_t>(), numel * 4);
        const auto &s = t["stats"];
        EXPECT_LT(rel(s["std"], g["std"]), 5e-6);
        EXPECT_LT(rel(s["excess_kurtosis"], g["excess_kurtosis"]), 5e-6);
        EXPECT_LT(rel(s["mean"], g["mean"]), 5e-6);
        EXPECT_LT(rel(s["min"], g["min"]), 5e-6);
        EXPECT_LT(rel(s["max"], g["max"]), 5e-6);
        EXPECT_EQ(s["nan_count"], 0);
        EXPECT_EQ(s["inf_count"], 0);
    }
}

TEST(Cli, InfoSelectsTensorsAndRefusesUnknownNames)
{
    const auto d = demoDir();
    const Result one = run({"info", d.string(), "--tensor", "model.layers.1.mlp.gate.weight", "--json"});
    ASSERT_EQ(one.rc, 0) << one.err;
    const auto j = nlohmann::json::parse(one.out);
    ASSERT_EQ(j["tensors"].size(), 1u);
    EXPECT_EQ(j["tensors"][0]["shape"], nlohmann::json::array({8, 1024}));
    EXPECT_EQ(j["tensors"][0]["dtype"], "BF16");
    EXPECT_NE(j["tensors"][0]["file"].get<std::string>().find("model-00002-of-00002.safetensors"),
              std::string::npos);

    const Result bad = run({"info", d.string(), "--tensor", "model.layers.9.nope"});
    EXPECT_EQ(bad.rc, 1);
    EXPECT_NE(bad.err.find("model.layers.9.nope"), std::string::npos);
    EXPECT_TRUE(bad.out.empty());
}

TEST(Cli, InfoOnDemoListsEveryTensorWithStats)
{
    const auto d = demoDir();
    const Result r = run({"info", d.string(), "--json", "--stats"});
    ASSERT_EQ(r.rc, 0) << r.err;
    const auto j = nlohmann::json::parse(r.out);
    EXPECT_GT(j["tensors"].size(), 40u);
    for (const auto &t : j["tensors"]) {
        EXPECT_TRUE(t["stats"]["std"].is_number()) << t["name"];
        EXPECT_GT(t["offset"].get<std::uint64_t>(), 8u);
    }
}

TEST(Cli, RefusalsNameTheFileAndExitNonZero)
{
    const fs::path dir = fs::path(::testing::TempDir()) / "qs_cli_bad";
    fs::create_directories(dir);
    const fs::path bad = dir / "truncated.safetensors";
    {
        std::ofstream o(bad, std::ios::binary);
        const std::string header = R"({"w":{"dtype":"F32","shape":[4],"data_offsets":[0,16]}})";
        const std::uint64_t n = header.size();
        o.write(reinterpret_cast<const char *>(&n), 8);
        o << header << "abcd"; // 4 of 16 data bytes
    }
    const Result r = run({"info", bad.string()});
    EXPECT_EQ(r.rc, 1);
    EXPECT_NE(r.err.find("truncated.safetensors"), std::string::npos) << r.err;
    EXPECT_TRUE(r.out.empty());

    const Result missing = run({"info", (dir / "nope.safetensors").string()});
    EXPECT_EQ(missing.rc, 1);
    EXPECT_NE(missing.err.find("nope.safetensors"), std::string::npos);
}

// ---- quantize --------------------------------------------------------------------------------

TEST(CliQuantize, JsonHasEveryDocumentedField)
{
    const auto d = demoDir();
    const Result r = run({"quantize", d.string(), "--tensor", "model.layers.0.self_attn.q_proj.weight",
                          "--method", "int", "--bits", "4", "--group", "32", "--json", "--device", "cpu"});
    ASSERT_EQ(r.rc, 0) << r.err;
    const auto j = nlohmann::json::parse(r.out);
    for (const char *k : {"tensor", "method", "spec", "device", "ragged", "metrics", "stats_in", "stats_out",
                          "histogram", "time_ms"})
        EXPECT_TRUE(j.contains(k)) << k;
    for (const char *k : {"mse", "rmse", "sqnr_db", "rel_frobenius", "max_abs_err", "cosine", "err_p50", "err_p90",
                          "err_p99", "err_p999", "bits_per_element", "bytes"})
        EXPECT_TRUE(j["metrics"].contains(k)) << k;
    for (const char *k : {"lo", "hi", "w", "w_hat", "err", "overlap"})
        EXPECT_TRUE(j["histogram"].contains(k)) << k;
    // --group alone implies group granularity; bits per element = 4 + 32/32 (FP32 scale per 32).
    EXPECT_EQ(j["spec"]["granularity"], "group");
    EXPECT_EQ(j["spec"]["group"], 32);
    EXPECT_DOUBLE_EQ(j["metrics"]["bits_per_element"].get<double>(), 5.0);
    EXPECT_EQ(j["device"], "cpu");
    EXPECT_EQ(j["histogram"]["w"].size(), 256u);
    std::int64_t total = 0;
    for (const auto &c : j["histogram"]["w"])
        total += c.get<std::int64_t>();
    EXPECT_EQ(total, 1024 * 1024);
    const double rel = j["metrics"]["rel_frobenius"];
    EXPECT_GT(rel, 0.05);
    EXPECT_LT(rel, 0.2);
    EXPECT_LE(j["metrics"]["err_p50"].get<double>(), j["metrics"]["err_p99"].get<double>());
}

TEST(CliQuantize, SpecFileAndFlagsComposeAndBadSpecsAreRefused)
{
    const auto d = demoDir();
    const fs::path spec = fs::path(::testing::TempDir()) / "qs_spec.json";
    {
        std::ofstream o(spec);
        o << R"({"method": "int", "bits": 8, "granularity": "channel", "symmetric": false})";
    }
    const Result r = run({"quantize", d.string(), "--tensor", "model.layers.1.mlp.gate.weight", "--spec",
                          spec.string(), "--scale-dtype", "bf16", "--json"});
    ASSERT_EQ(r.rc, 0) << r.err;
    const auto j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["spec"]["bits"], 8);
    EXPECT_EQ(j["spec"]["granularity"], "channel");
    EXPECT_EQ(j["spec"]["symmetric"], false);
    EXPECT_EQ(j["spec"]["scale_dtype"], "bf16");
    // 8 rows: 8 BF16 scales + 8 INT8 zero points over 8·1024 INT8 codes.
    EXPECT_DOUBLE_EQ(j["metrics"]["bits_per_element"].get<double>(), 8.0 + (8 * 16 + 8 * 8) / 8192.0);

    {
        std::ofstream o(spec);
        o << R"({"method": "int", "bitz": 4})";
    }
    const Result bad = run({"quantize", d.string(), "--tensor", "model.layers.1.mlp.gate.weight", "--spec", spec.string()});
    EXPECT_EQ(bad.rc, 1);
    EXPECT_NE(bad.err.find("bitz"), std::string::npos) << bad.err;
    const Result strict = run({"quantize", d.string(), "--tensor", "model.layers.1.mlp.gate.weight", "--method", "int",
                               "--group", "300", "--strict"});
    EXPECT_EQ(strict.rc, 1);
    EXPECT_NE(strict.err.find("1024"), std::string::npos) << strict.err;
    EXPECT_EQ(run({"quantize", d.string(), "--tensor", "x", "--method", "int", "--symmetric", "--asymmetric"}).rc, 2);
    EXPECT_EQ(run({"quantize", d.string(), "--method", "int"}).rc, 2);
}

TEST(CliQuantize, SaveWritesTheNativeLayout)
{
    const auto d = demoDir();
    const fs::path out = fs::path(::testing::TempDir()) / "qs_native.safetensors";
    fs::remove(out);
    const Result r = run({"quantize", d.string(), "--tensor", "model.layers.1.mlp.experts.3.down_proj.weight",
                          "--method", "fp8", "--granularity", "block", "--save", out.string()});
    ASSERT_EQ(r.rc, 0) << r.err;
    const Result info = run({"info", out.string(), "--json"});
    ASSERT_EQ(info.rc, 0) << info.err;
    const auto j = nlohmann::json::parse(info.out);
    std::map<std::string, nlohmann::json> t;
    for (const auto &e : j["tensors"])
        t[e["name"]] = e;
    const std::string m = "model.layers.1.mlp.experts.3.down_proj";
    ASSERT_TRUE(t.count(m + ".qs_codes"));
    EXPECT_EQ(t[m + ".qs_codes"]["dtype"], "F8_E4M3");
    EXPECT_EQ(t[m + ".qs_codes"]["shape"], nlohmann::json::array({1024, 512}));
    ASSERT_TRUE(t.count(m + ".qs_scale"));
    EXPECT_EQ(t[m + ".qs_scale"]["shape"], nlohmann::json::array({8, 4}));
    // A failed save leaves nothing behind.
    const fs::path bad = fs::path(::testing::TempDir()) / "no_such_dir" / "x.safetensors";
    const Result f = run({"quantize", d.string(), "--tensor", "model.layers.1.mlp.gate.weight", "--method", "int",
                          "--save", bad.string()});
    EXPECT_EQ(f.rc, 1);
    EXPECT_FALSE(fs::exists(bad));
}
