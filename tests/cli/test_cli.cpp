// SPDX-License-Identifier: MIT
// End-to-end tests: run quantscope-cli as a user would and check exit codes, JSON and messages.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <sys/wait.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

namespace fs = std::filesystem;

#include "cli_run.h"

using namespace cli_test;

// ---- readers: npy/npz and quantized modules (issue 3) -------------------------------------------

#include <algorithm>
#include <cstring>
#include "io/checkpoint.h"
#include "io/npy.h"
#include "io/safetensors.h"

namespace {

/// A compressed-tensors W4A16-like file: module "m.proj" INT4 sym group 8, K = 16, N = 2, codes
/// q[n][k] = (k % 16) − 8, scales 0.5 · (1 + n + 2g); plus a dense bias; and its config.json.
fs::path writeCtFixture(const fs::path &dir)
{
    using namespace quantscope;
    fs::remove_all(dir);
    fs::create_directories(dir);
    std::vector<std::uint32_t> words;
    for (int n = 0; n < 2; ++n) // value + 8 sequentially, element 0 in the lowest nibble
        words.insert(words.end(), {0x76543210u, 0xFEDCBA98u});
    std::vector<float> scales = {0.5f, 1.5f, 1.0f, 2.0f};
    std::vector<std::int64_t> shape = {2, 16};
    auto bytesOf = [](const void *p, std::size_t n) {
        std::vector<std::byte> b(n);
        std::memcpy(b.data(), p, n);
        return b;
    };
    const fs::path file = dir / "model.safetensors";
    writeSafetensors(file, {{"m.proj.weight_packed", Tensor::fromBytes(DType::I32, {2, 2}, bytesOf(words.data(), 16))},
                            {"m.proj.weight_scale", Tensor::fromBytes(DType::F32, {2, 2}, bytesOf(scales.data(), 16))},
                            {"m.proj.weight_shape", Tensor::fromBytes(DType::I64, {2}, bytesOf(shape.data(), 16))},
                            {"m.proj.bias", Tensor::fromFloats({2}, std::vector<float>{1.0f, 2.0f})}});
    std::ofstream(dir / "config.json")
        << R"({"quantization_config": {"quant_method": "compressed-tensors", "format": "pack-quantized",
        "config_groups": {"group_0": {"targets": ["Linear"], "weights": {"num_bits": 4, "type": "int",
        "symmetric": true, "group_size": 8, "strategy": "group"}}}}})";
    return file;
}

float expectedCt(int n, int k)
{
    return static_cast<float>(k - 8) * (0.5f * static_cast<float>(1 + n + 2 * (k / 8)));
}

} // namespace

TEST(CliReaders, InfoShowsAQuantizedModuleOnceWithItsSchemeAndDecodedStats)
{
    const fs::path file = writeCtFixture(fs::path(::testing::TempDir()) / "qs_cli_ct");
    const Result r = run({"info", file.string(), "--json", "--stats"});
    ASSERT_EQ(r.rc, 0) << r.err;
    const auto j = nlohmann::json::parse(r.out);
    ASSERT_EQ(j["tensors"].size(), 2u); // the module and the bias
    const auto &m = j["tensors"][0];
    EXPECT_EQ(m["name"], "m.proj.weight");
    EXPECT_EQ(m["format"], "compressed-tensors/pack-quantized");
    EXPECT_EQ(m["shape"], nlohmann::json::array({2, 16}));
    EXPECT_EQ(m["scheme"]["bits"], 4);
    EXPECT_EQ(m["scheme"]["granularity"], "group");
    EXPECT_EQ(m["scheme"]["group_size"], 8);
    EXPECT_EQ(m["scheme"]["symmetric"], true);
    EXPECT_EQ(m["scheme"]["pack_order"], "ct-dense");
    EXPECT_EQ(m["scheme_text"], "INT4 sym, group 8 along K, c-t packing, F32 scales");
    EXPECT_EQ(m["scale_health"], nlohmann::json({{"nan", 0}, {"inf", 0}, {"zero", 0}}));
    EXPECT_EQ(m["parts"].size(), 3u);
    double sum = 0, mn = 1e9;
    for (int n = 0; n < 2; ++n)
        for (int k = 0; k < 16; ++k) {
            sum += expectedCt(n, k);
            mn = std::min<double>(mn, expectedCt(n, k));
        }
    EXPECT_NEAR(m["stats"]["mean"].get<double>(), sum / 32, 1e-9);
    EXPECT_NEAR(m["stats"]["min"].get<double>(), mn, 1e-9);
    EXPECT_EQ(j["tensors"][1]["format"], "dense");
    // --tensor accepts the module, the logical weight or a part.
    for (const char *name : {"m.proj", "m.proj.weight", "m.proj.weight_scale"}) {
        const Result one = run({"info", file.string(), "--json", "--tensor", name});
        ASSERT_EQ(one.rc, 0) << one.err;
        EXPECT_EQ(nlohmann::json::parse(one.out)["tensors"][0]["name"], "m.proj.weight");
    }
}

TEST(CliReaders, DecodeWritesFp32SafetensorsAndNpy)
{
    const fs::path dir = fs::path(::testing::TempDir()) / "qs_cli_ct_decode";
    const fs::path file = writeCtFixture(dir);
    const Result st = run({"decode", file.string(), "--tensor", "m.proj", "--out", (dir / "out.safetensors").string()});
    ASSERT_EQ(st.rc, 0) << st.err;
    const auto f = quantscope::SafetensorsFile::open(dir / "out.safetensors");
    const quantscope::Tensor t = f.tensor("m.proj.weight");
    ASSERT_EQ(t.dtype(), quantscope::DType::F32);
    ASSERT_EQ(t.shape(), (quantscope::Shape{2, 16}));
    for (int i = 0; i < 32; ++i)
        EXPECT_EQ(t.at(i), expectedCt(i / 16, i % 16));
    EXPECT_EQ(f.metadata().at("format"), "compressed-tensors/pack-quantized");

    const Result np =
        run({"decode", file.string(), "--tensor", "m.proj.weight", "--out", (dir / "out.npy").string(), "--json"});
    ASSERT_EQ(np.rc, 0) << np.err;
    EXPECT_EQ(nlohmann::json::parse(np.out)["tensor"], "m.proj.weight");
    const quantscope::Tensor n = quantscope::readNpy(dir / "out.npy");
    for (int i = 0; i < 32; ++i)
        EXPECT_EQ(n.at(i), expectedCt(i / 16, i % 16));

    const Result bad = run({"decode", file.string(), "--tensor", "nope", "--out", (dir / "x.npy").string()});
    EXPECT_EQ(bad.rc, 1);
    EXPECT_NE(bad.err.find("nope"), std::string::npos);
    EXPECT_EQ(run({"decode", file.string(), "--tensor", "m.proj", "--out", (dir / "x.bin").string()}).rc, 2);
    EXPECT_EQ(run({"decode", file.string()}).rc, 2);
}

TEST(CliReaders, ABadModuleIsNamedAndTheOthersStillDecode)
{
    // Two modules under one config (INT4 sym, group 8): m.proj fits it, m.bad's scale grid has
    // three groups per row where K = 16 gives two.
    using namespace quantscope;
    const fs::path dir = fs::path(::testing::TempDir()) / "qs_cli_ct_bad";
    const fs::path file = writeCtFixture(dir);
    {
        const Checkpoint good = Checkpoint::open(file);
        std::vector<std::pair<std::string, Tensor>> tensors;
        for (const auto &e : good.entries())
            tensors.emplace_back(e.name, good.tensor(e.name));
        std::vector<std::uint32_t> words(4, 0x88888888u);
        std::vector<float> scales(6, 1.0f);
        std::vector<std::int64_t> shape = {2, 16};
        auto bytesOf = [](const void *p, std::size_t n) {
            std::vector<std::byte> b(n);
            std::memcpy(b.data(), p, n);
            return b;
        };
        tensors.emplace_back("m.bad.weight_packed", Tensor::fromBytes(DType::I32, {2, 2}, bytesOf(words.data(), 16)));
        tensors.emplace_back("m.bad.weight_scale", Tensor::fromBytes(DType::F32, {2, 3}, bytesOf(scales.data(), 24)));
        tensors.emplace_back("m.bad.weight_shape", Tensor::fromBytes(DType::I64, {2}, bytesOf(shape.data(), 16)));
        const fs::path both = dir / "both.safetensors";
        writeSafetensors(both, tensors);
        fs::rename(both, dir / "model.safetensors.tmp");
    }
    fs::rename(dir / "model.safetensors.tmp", file);

    const Result info = run({"info", file.string(), "--json"});
    ASSERT_EQ(info.rc, 0) << info.err;
    EXPECT_NE(info.err.find("m.bad"), std::string::npos) << info.err;
    const auto j = nlohmann::json::parse(info.out);
    ASSERT_EQ(j["undecodable"].size(), 1u);
    EXPECT_EQ(j["undecodable"][0]["module"], "m.bad");
    EXPECT_NE(j["undecodable"][0]["reason"].get<std::string>().find("m.bad"), std::string::npos);
    bool goodListed = false;
    for (const auto &t : j["tensors"])
        goodListed = goodListed || (t["name"] == "m.proj.weight" && t["format"] == "compressed-tensors/pack-quantized");
    EXPECT_TRUE(goodListed) << info.out;

    // The good module decodes to its values; the bad one is refused with its reason.
    const fs::path out = dir / "proj.npy";
    const Result good = run({"decode", file.string(), "--tensor", "m.proj", "--out", out.string()});
    ASSERT_EQ(good.rc, 0) << good.err;
    const Checkpoint decoded = Checkpoint::open(out);
    const Tensor w = decoded.tensor(decoded.entries().front().name);
    std::vector<float> v(static_cast<std::size_t>(w.numel()));
    w.decodeTo(v);
    for (int n = 0; n < 2; ++n)
        for (int k = 0; k < 16; ++k)
            EXPECT_EQ(v[static_cast<std::size_t>(n * 16 + k)], expectedCt(n, k)) << n << "," << k;
    const Result bad = run({"decode", file.string(), "--tensor", "m.bad", "--out", (dir / "bad.npy").string()});
    EXPECT_EQ(bad.rc, 1);
    EXPECT_NE(bad.err.find("m.bad"), std::string::npos) << bad.err;
    EXPECT_FALSE(fs::exists(dir / "bad.npy"));
}

TEST(CliReaders, InfoOpensTheDemoActivationsNpy)
{
    const auto d = demoDir();
    const Result r = run({"info", (d / "activations.npy").string(), "--json", "--stats"});
    ASSERT_EQ(r.rc, 0) << r.err;
    const auto j = nlohmann::json::parse(r.out);
    ASSERT_EQ(j["tensors"].size(), 1u);
    const auto &t = j["tensors"][0];
    EXPECT_EQ(t["name"], "activations");
    EXPECT_EQ(t["shape"], nlohmann::json::array({256, 1024}));
    EXPECT_EQ(t["format"], "dense");
    EXPECT_EQ(t["offset"].get<std::uint64_t>() + 256u * 1024u * 4u, fs::file_size(d / "activations.npy"));
    EXPECT_TRUE(t["stats"]["std"].is_number());
}

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
    EXPECT_NE(j["tensors"][0]["file"].get<std::string>().find("model-00002-of-00002.safetensors"), std::string::npos);

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

TEST(Cli, AHeaderOverTheLimitNamesTheFlagThatRaisesIt)
{
    const fs::path dir = fs::path(::testing::TempDir()) / "qs_cli_header";
    fs::create_directories(dir);
    const fs::path p = dir / "small.safetensors";
    {
        std::ofstream o(p, std::ios::binary);
        const std::string header = R"({"w":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}})";
        const std::uint64_t n = header.size();
        o.write(reinterpret_cast<const char *>(&n), 8);
        o << header << "abcd";
    }
    const Result r = run({"info", p.string(), "--max-header-bytes", "16"});
    EXPECT_EQ(r.rc, 1);
    EXPECT_NE(r.err.find("--max-header-bytes"), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("maxHeaderBytes"), std::string::npos) << r.err;      // no C++ name
    EXPECT_EQ(run({"info", p.string(), "--max-header-bytes", "1000"}).rc, 0); // the flag works
}

// ---- quantize --------------------------------------------------------------------------------

TEST(CliQuantize, JsonHasEveryDocumentedField)
{
    const auto d = demoDir();
    const Result r = run({"quantize", d.string(), "--tensor", "model.layers.0.self_attn.q_proj.weight", "--method",
                          "int", "--bits", "4", "--group", "32", "--json", "--device", "cpu"});
    ASSERT_EQ(r.rc, 0) << r.err;
    const auto j = nlohmann::json::parse(r.out);
    for (const char *k :
         {"tensor", "method", "spec", "device", "ragged", "metrics", "stats_in", "stats_out", "histogram", "time_ms"})
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
    const Result r = run({"quantize", d.string(), "--tensor", "model.layers.1.mlp.gate.weight", "--spec", spec.string(),
                          "--scale-dtype", "bf16", "--json"});
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
    const Result bad =
        run({"quantize", d.string(), "--tensor", "model.layers.1.mlp.gate.weight", "--spec", spec.string()});
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
    // One quantized module, its stored parts listed under it.
    const std::string m = "model.layers.1.mlp.experts.3.down_proj";
    ASSERT_EQ(j["tensors"].size(), 1u);
    const auto &mod = j["tensors"][0];
    EXPECT_EQ(mod["name"], m + ".weight");
    EXPECT_EQ(mod["format"], "quantscope-native");
    std::map<std::string, nlohmann::json> t;
    for (const auto &e : mod["parts"])
        t[e["name"]] = e;
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

// ---- Engine II: hqq, milo, spectrum ------------------------------------------------------------

TEST(CliHqq, JsonHasHistoryAndMatchesTheLibraryOnRealWeights)
{
    const fs::path m = stories() / "model.safetensors";
    if (!fs::exists(m))
        GTEST_SKIP() << "real test data not found at " << m << " (../shared absent): skipped";
    const Result r = run({"quantize", m.string(), "--tensor", "model.layers.0.mlp.gate_proj.weight", "--method", "hqq",
                          "--compute", "fp16", "--json"});
    ASSERT_EQ(r.rc, 0) << r.err;
    const auto j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["spec"]["preset"], "hqq-lib");
    EXPECT_EQ(j["spec"]["bits"], 4);
    EXPECT_EQ(j["spec"]["axis"], 1);
    ASSERT_TRUE(j.contains("history"));
    ASSERT_FALSE(j["history"].empty());
    for (const char *k : {"pass", "eps", "time_ms"})
        EXPECT_TRUE(j["history"][0].contains(k)) << k;
    EXPECT_EQ(j["chosen_pass"], j["history"].size());
    EXPECT_NEAR(j["metrics"]["rel_frobenius"].get<double>(), 0.0985, 0.01 * 0.0985);
    EXPECT_DOUBLE_EQ(j["metrics"]["bits_per_element"].get<double>(), 4.5); // FP16 scale + zero per 64
    // --preset milo-code switches the preset defaults (3-bit, axis 0).
    const Result mc = run({"quantize", m.string(), "--tensor", "model.layers.0.mlp.gate_proj.weight", "--method", "hqq",
                           "--preset", "milo-code", "--compute", "fp16", "--json"});
    ASSERT_EQ(mc.rc, 0) << mc.err;
    const auto jm = nlohmann::json::parse(mc.out);
    EXPECT_EQ(jm["spec"]["bits"], 3);
    EXPECT_EQ(jm["spec"]["axis"], 0);
    EXPECT_NEAR(jm["metrics"]["rel_frobenius"].get<double>(), 0.2077, 0.01 * 0.2077);
}

TEST(CliHqq, RefusalsGiveTheReason)
{
    const auto d = demoDir();
    const Result g =
        run({"quantize", d.string(), "--tensor", "model.layers.1.mlp.gate.weight", "--method", "hqq", "--group", "60"});
    EXPECT_EQ(g.rc, 1);
    EXPECT_NE(g.err.find("multiple of 8"), std::string::npos) << g.err;
    const Result gr = run({"quantize", d.string(), "--tensor", "model.layers.1.mlp.gate.weight", "--method", "hqq",
                           "--granularity", "group"});
    EXPECT_EQ(gr.rc, 1);
    EXPECT_NE(gr.err.find("granularity"), std::string::npos) << gr.err;
}

TEST(CliMilo, PassesRankClampAndChosenPass)
{
    const auto d = demoDir();
    const std::string t = "model.layers.1.mlp.gate.weight"; // 8 x 1024: rank clamps to 8
    const Result r = run({"quantize", d.string(), "--tensor", t, "--method", "milo", "--rank", "32", "--seed", "3",
                          "--compensator", "int8", "--json"});
    ASSERT_EQ(r.rc, 0) << r.err;
    const auto j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["history"].size(), 11u);                    // code preset
    const auto bestOf = [](const nlohmann::json &history) { // the pass of the smallest ε, the first of equals
        double best = 1e300;
        int bestPass = 0;
        for (const auto &h : history)
            if (h["eps"].get<double>() < best) {
                best = h["eps"];
                bestPass = h["pass"];
            }
        return bestPass;
    };
    EXPECT_EQ(j["chosen_pass"], bestOf(j["history"])); // both presets return the best pass
    EXPECT_EQ(j["rank"], 8);
    EXPECT_EQ(j["requested_rank"], 32);
    EXPECT_EQ(j["rank_clamped"], true);
    EXPECT_EQ(j["spec"]["seed"], 3);
    EXPECT_EQ(j["spec"]["compensator"], "int8");
    EXPECT_EQ(j["spec"]["hqq_preset"], "milo-code");
    const Result p = run(
        {"quantize", d.string(), "--tensor", t, "--method", "milo", "--preset", "passes=4", "--rank", "2", "--json"});
    ASSERT_EQ(p.rc, 0) << p.err;
    const auto jp = nlohmann::json::parse(p.out);
    EXPECT_EQ(jp["history"].size(), 4u);
    EXPECT_EQ(jp["spec"]["passes"], 4);
    const Result paper = run({"quantize", d.string(), "--tensor", t, "--method", "milo", "--preset", "paper", "--rank",
                              "2", "--hqq-preset", "hqq-lib", "--json"});
    ASSERT_EQ(paper.rc, 0) << paper.err;
    const auto jq = nlohmann::json::parse(paper.out);
    EXPECT_EQ(jq["spec"]["bits"], 4);
    EXPECT_EQ(jq["chosen_pass"], bestOf(jq["history"]));
    EXPECT_EQ(run({"quantize", d.string(), "--tensor", t, "--method", "milo", "--compensator", "int4"}).rc, 1);
}

TEST(CliSpectrum, FieldsOfTheResidualAndOfW)
{
    const auto d = demoDir();
    const std::string t = "model.layers.0.self_attn.q_proj.weight";
    const Result r =
        run({"spectrum", d.string(), "--tensor", t, "--method", "int", "--bits", "4", "--group", "32", "--json"});
    ASSERT_EQ(r.rc, 0) << r.err;
    const auto j = nlohmann::json::parse(r.out);
    for (const char *k : {"sigma", "complete", "n_sigma_ge_tau", "n_sigma_lt_tau", "derived", "fro_norm", "energy_top",
                          "err_after_rank"})
        EXPECT_TRUE(j.contains(k)) << k;
    const auto n = j["sigma"].size();
    EXPECT_EQ(j["complete"], true);
    EXPECT_EQ(j["derived"], false);
    EXPECT_EQ(j["n_sigma_ge_tau"].get<std::size_t>() + j["n_sigma_lt_tau"].get<std::size_t>(), n);
    double fro2 = 0;
    for (const auto &s : j["sigma"])
        fro2 += s.get<double>() * s.get<double>();
    EXPECT_NEAR(std::sqrt(fro2), j["fro_norm"].get<double>(), 1e-9 * j["fro_norm"].get<double>());
    EXPECT_NEAR(j["energy_top"].back().get<double>(), 1.0, 1e-9);
    // Top k with its own sketch options: derived counts, the same σ1 within 1e-3.
    const Result k = run({"spectrum", d.string(), "--tensor", t, "--method", "int", "--bits", "4", "--group", "32",
                          "--top", "8", "--power-iters", "6", "--tau", "0.3", "--json"});
    ASSERT_EQ(k.rc, 0) << k.err;
    const auto jk = nlohmann::json::parse(k.out);
    EXPECT_EQ(jk["complete"], false);
    EXPECT_EQ(jk["derived"], true);
    EXPECT_EQ(jk["sigma"].size(), 8u);
    EXPECT_EQ(jk["tau"], 0.3);
    EXPECT_NEAR(jk["sigma"][0].get<double>(), j["sigma"][0].get<double>(), 1e-3 * j["sigma"][0].get<double>());
    EXPECT_EQ(jk["n_sigma_ge_tau"].get<std::size_t>() + jk["n_sigma_lt_tau"].get<std::size_t>(), n);
    // Without a quantizer: the spectrum of W itself; human output names it.
    const Result w = run({"spectrum", d.string(), "--tensor", t});
    ASSERT_EQ(w.rc, 0) << w.err;
    EXPECT_NE(w.out.find("W itself"), std::string::npos) << w.out;
    EXPECT_EQ(run({"spectrum", d.string(), "--tensor", t, "--tau", "2"}).rc, 2);
    EXPECT_EQ(run({"spectrum", d.string()}).rc, 2);
}

// ---- Engine Ib: FP4, two-stage, constOpt, GEMM simulation, sweep-c ------------------------------

namespace {

/// A safetensors file holding one FP32 activation tensor "acts" [M, K] with outlier channels.
fs::path activationFile(std::int64_t M, std::int64_t K)
{
    const fs::path p = fs::path(::testing::TempDir()) / ("qs_acts_" + std::to_string(M) + "x" + std::to_string(K) +
                                                         "_" + std::to_string(getpid()) + ".safetensors");
    const std::string header = R"({"acts":{"dtype":"F32","shape":[)" + std::to_string(M) + "," + std::to_string(K) +
                               R"(],"data_offsets":[0,)" + std::to_string(M * K * 4) + "]}}";
    std::ofstream o(p, std::ios::binary);
    const std::uint64_t n = header.size();
    o.write(reinterpret_cast<const char *>(&n), 8);
    o << header;
    std::uint32_t state = 12345;
    for (std::int64_t i = 0; i < M * K; ++i) {
        state = state * 1664525u + 1013904223u;
        float v = (static_cast<float>(state >> 8) / 16777216.0f - 0.5f) * ((i % K) % 97 == 3 ? 40.0f : 2.0f);
        o.write(reinterpret_cast<const char *>(&v), 4);
    }
    return p;
}

nlohmann::json runJson(const std::vector<std::string> &args)
{
    const Result r = run(args);
    EXPECT_EQ(r.rc, 0) << r.err;
    return r.rc == 0 ? nlohmann::json::parse(r.out) : nlohmann::json();
}

const char *kQ = "model.layers.0.self_attn.q_proj.weight";

} // namespace

TEST(CliEngine1b, Fp4MethodsReportTheirSpecAndBits)
{
    const auto d = demoDir();
    auto j = runJson({"quantize", d.string(), "--tensor", kQ, "--method", "mxfp4", "--mx-mode", "floor", "--json"});
    EXPECT_EQ(j["spec"]["mode"], "floor");
    EXPECT_EQ(j["spec"]["group"], 32);
    EXPECT_DOUBLE_EQ(j["metrics"]["bits_per_element"].get<double>(), 4.25);
    j = runJson({"quantize", d.string(), "--tensor", kQ, "--method", "nvfp4", "--json"});
    EXPECT_EQ(j["spec"]["group"], 16);
    EXPECT_DOUBLE_EQ(j["metrics"]["bits_per_element"].get<double>(), 4.5 + 32.0 / (1024 * 1024));
    EXPECT_LT(j["metrics"]["rel_frobenius"].get<double>(), 0.15);
    const Result bad = run({"quantize", d.string(), "--tensor", kQ, "--method", "mxfp4", "--mx-mode", "nearest"});
    EXPECT_EQ(bad.rc, 1);
    EXPECT_NE(bad.err.find("nearest"), std::string::npos) << bad.err;
}

TEST(CliEngine1b, ProgressiveStagesFromFlags)
{
    const auto d = demoDir();
    auto j = runJson({"quantize", d.string(), "--tensor", kQ, "--method", "progressive", "--json"});
    EXPECT_EQ(j["spec"]["stage1"]["method"], "fp8");
    EXPECT_EQ(j["spec"]["stage2"]["granularity"], "channel");
    EXPECT_EQ(j["spec"]["stage2"]["symmetric"], true);
    // 1024 rows: INT4 codes + 1024 FP32 s2 + one FP32 s1.
    EXPECT_DOUBLE_EQ(j["metrics"]["bits_per_element"].get<double>(), 4.0 + (1024 * 32.0 + 32.0) / (1024 * 1024));
    j = runJson({"quantize", d.string(), "--tensor", kQ, "--method", "progressive", "--asymmetric", "--json"});
    EXPECT_EQ(j["spec"]["stage2"]["symmetric"], false);
    j = runJson({"quantize", d.string(), "--tensor", kQ, "--method", "progressive", "--stage2",
                 "granularity=group,group=128", "--stage1", R"({"granularity": "channel"})", "--json"});
    EXPECT_EQ(j["spec"]["stage2"]["granularity"], "group");
    EXPECT_EQ(j["spec"]["stage2"]["group"], 128);
    EXPECT_EQ(j["spec"]["stage1"]["granularity"], "channel");
    const Result bad = run({"quantize", d.string(), "--tensor", kQ, "--method", "progressive", "--stage2", "bitz=4"});
    EXPECT_EQ(bad.rc, 1);
    EXPECT_NE(bad.err.find("bitz"), std::string::npos) << bad.err;
}

TEST(CliEngine1b, ConstOptRotationAndRefusal)
{
    const auto d = demoDir();
    const auto j = runJson({"quantize", d.string(), "--tensor", kQ, "--method", "constopt", "--rotate", "64",
                            "--encoder", "unrounded", "--c", "0.1625", "--json"});
    EXPECT_EQ(j["spec"]["rotate"], 64);
    EXPECT_EQ(j["spec"]["encoder"], "unrounded");
    EXPECT_DOUBLE_EQ(j["spec"]["c"].get<double>(), 0.1625);
    ASSERT_TRUE(j.contains("report"));
    EXPECT_TRUE(j["report"]["rotated_excess_kurtosis"].is_number());
    // The demo's q_proj has excess kurtosis ≈ 5; the rotation brings it near 0.
    EXPECT_LT(j["report"]["rotated_excess_kurtosis"].get<double>(), j["stats_in"]["excess_kurtosis"].get<double>());
    const Result bad = run({"quantize", d.string(), "--tensor", "model.layers.0.mlp.down_proj.weight", "--method",
                            "constopt", "--rotate", "1024"});
    EXPECT_EQ(bad.rc, 1);
    EXPECT_NE(bad.err.find("2816"), std::string::npos) << bad.err;
}

TEST(CliEngine1b, ActivationAddsThePairedGemm)
{
    const auto d = demoDir();
    const fs::path acts = activationFile(32, 1024);
    auto j = runJson({"quantize", d.string(), "--tensor", kQ, "--method", "progressive", "--activation",
                      acts.string() + ":acts", "--act-quant", "int8-token", "--json"});
    ASSERT_TRUE(j.contains("gemm"));
    for (const char *k : {"scheme", "rel_err_output", "rel_err_weight_only", "worst_token_rel_err", "worst_token"})
        EXPECT_TRUE(j["gemm"].contains(k)) << k;
    EXPECT_EQ(j["gemm"]["scheme"], "W4A8-int8");
    EXPECT_EQ(j["gemm"]["tokens"], 32);
    EXPECT_GE(j["gemm"]["worst_token_rel_err"].get<double>(), j["gemm"]["rel_err_output"].get<double>() * 0.5);
    j = runJson({"quantize", d.string(), "--tensor", kQ, "--method", "nvfp4", "--activation", acts.string() + ":acts",
                 "--act-quant", "static:0.05", "--json"});
    EXPECT_EQ(j["gemm"]["scheme"], "W4A8-fp8");
    EXPECT_EQ(j["gemm"]["act_scale_source"], "user");
    // NAME alone is a tensor of PATH; no --act-quant is the weight-only W4A16 product.
    j = runJson({"quantize", d.string(), "--tensor", kQ, "--method", "int", "--group", "128", "--activation",
                 "model.layers.1.mlp.gate.weight", "--json"});
    EXPECT_EQ(j["gemm"]["scheme"], "W4A16");
    EXPECT_EQ(j["gemm"]["tokens"], 8);
    // K mismatch and an impossible scheme are refused with exit 1.
    const Result k = run({"quantize", d.string(), "--tensor", "model.layers.0.mlp.down_proj.weight", "--method", "int",
                          "--activation", acts.string() + ":acts"});
    EXPECT_EQ(k.rc, 1);
    EXPECT_NE(k.err.find("2816"), std::string::npos) << k.err;
    const Result s = run({"quantize", d.string(), "--tensor", kQ, "--method", "mxfp4", "--activation",
                          acts.string() + ":acts", "--act-quant", "int8-token"});
    EXPECT_EQ(s.rc, 1);
    EXPECT_EQ(run({"quantize", d.string(), "--tensor", kQ, "--method", "int", "--act-quant", "int8-token"}).rc, 2);
    fs::remove(acts);
    // The demo's activations.npy (one entry named after the file's stem), outlier channels included.
    j = runJson({"quantize", d.string(), "--tensor", kQ, "--method", "progressive", "--activation",
                 (d / "activations.npy").string() + ":activations", "--act-quant", "fp8-tensor", "--json"});
    EXPECT_EQ(j["gemm"]["scheme"], "W4A8-fp8");
    EXPECT_EQ(j["gemm"]["tokens"], 256);
    EXPECT_GT(j["gemm"]["act_rel_err"].get<double>(), 0.0);
}

TEST(CliEngine1b, SweepCReportsTheCurveAndReferences)
{
    const auto d = demoDir();
    auto j = runJson({"sweep-c", d.string(), "--tensor", kQ, "--json"});
    for (const char *k :
         {"c", "mse", "c_star", "c_star_interval", "mse_at_default", "lloyd_max_mse", "int4_mse", "mxfp4_mse"})
        EXPECT_TRUE(j.contains(k)) << k;
    EXPECT_EQ(j["c"].size(), 701u);
    EXPECT_EQ(j["mse"].size(), 701u);
    EXPECT_LE(j["c_star_interval"][0].get<double>(), j["c_star_interval"][1].get<double>());
    EXPECT_LT(j["lloyd_max_mse"].get<double>(), j["int4_mse"].get<double>());
    // The default c's MSE is the constopt quantizer's.
    const auto q = runJson({"quantize", d.string(), "--tensor", kQ, "--method", "constopt", "--json"});
    EXPECT_NEAR(j["mse_at_default"].get<double>(), q["metrics"]["mse"].get<double>(),
                1e-9 * q["metrics"]["mse"].get<double>());
    j = runJson({"sweep-c", d.string(), "--tensor", kQ, "--grid", "0.1:0.3:0.01", "--encoder", "unrounded", "--rotate",
                 "64", "--group", "64", "--json"});
    EXPECT_EQ(j["c"].size(), 21u);
    EXPECT_EQ(j["group"], 64);
    EXPECT_TRUE(j["rotated_excess_kurtosis"].is_number());
    EXPECT_EQ(run({"sweep-c", d.string(), "--tensor", kQ, "--grid", "0.1:0.3"}).rc, 2);
    EXPECT_EQ(run({"sweep-c", d.string(), "--tensor", kQ, "--rotate", "48"}).rc, 1);
}

TEST(CliEngine1b, SaveWritesFp4AndTwoLevelScales)
{
    const auto d = demoDir();
    const fs::path out =
        fs::path(::testing::TempDir()) / ("qs_native_fp4_" + std::to_string(getpid()) + ".safetensors");
    for (const char *method : {"nvfp4", "progressive"}) {
        fs::remove(out);
        const Result r = run({"quantize", d.string(), "--tensor", kQ, "--method", method, "--save", out.string()});
        ASSERT_EQ(r.rc, 0) << r.err;
        const auto j = runJson({"info", out.string(), "--json"});
        std::map<std::string, nlohmann::json> t; // the module's stored parts
        ASSERT_EQ(j["tensors"].size(), 1u) << method;
        for (const auto &e : j["tensors"][0]["parts"])
            t[e["name"]] = e;
        const std::string m = "model.layers.0.self_attn.q_proj";
        EXPECT_EQ(t[m + ".qs_codes"]["dtype"], "U8") << method;
        EXPECT_EQ(t[m + ".qs_codes"]["shape"], nlohmann::json::array({1024, 512})) << method;
        ASSERT_TRUE(t.count(m + ".qs_global")) << method;
        EXPECT_EQ(t[m + ".qs_global"]["shape"], nlohmann::json::array({1})) << method;
        EXPECT_EQ(t[m + ".qs_scale"]["dtype"], std::string(method) == "nvfp4" ? "F8_E4M3" : "F32") << method;
    }
    fs::remove(out);
}
