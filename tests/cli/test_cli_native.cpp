// SPDX-License-Identifier: MIT
// `quantize --save` of every method, HQQ and MiLo included, opened by `info` as one quantized
// module with its scheme and decoded by `decode`: the metrics recomputed here from the decoded Ŵ
// and the source W equal those `quantize` reported for the same run. A whole checkpoint exported
// in the native layout (`export --format quantscope`) decodes to the errors `quantize` reports.
#include "cli_run.h"

#include <cmath>
#include <random>

#include <nlohmann/json.hpp>

#include "io/checkpoint.h"
#include "io/safetensors.h"

using namespace cli_test;
using namespace quantscope;

TEST(CliNative, EveryMethodSavedOpensInInfoAndDecodesToWhatQuantizeReported)
{
    const auto d = demoDir();
    const std::string tensor = "model.layers.1.mlp.experts.3.down_proj.weight"; // [1024, 512]
    const std::string module = "model.layers.1.mlp.experts.3.down_proj";
    const fs::path dir = fs::path(::testing::TempDir()) / ("qs_cli_native_" + std::to_string(getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
    const std::vector<std::vector<std::string>> runs = {
        {"--method", "int", "--bits", "4", "--granularity", "group", "--group", "64", "--asymmetric"},
        {"--method", "fp8", "--granularity", "channel"},
        {"--method", "hqq", "--bits", "4", "--group", "64"},
        {"--method", "milo", "--rank", "8", "--passes", "2", "--compensator", "int3"},
        {"--method", "mxfp4"},
        {"--method", "nvfp4"},
        {"--method", "progressive"},
        {"--method", "constopt"},
    };
    const Checkpoint src = Checkpoint::open(d);
    std::vector<float> w(static_cast<std::size_t>(src.tensor(tensor).numel()));
    src.tensor(tensor).decodeTo(w);
    for (const auto &flags : runs) {
        const std::string method = flags[1];
        SCOPED_TRACE(method);
        const fs::path saved = dir / (method + ".safetensors");
        std::vector<std::string> args = {"quantize", d.string(), "--tensor",    tensor,
                                         "--json",   "--save",   saved.string()};
        args.insert(args.end(), flags.begin(), flags.end());
        const Result q = run(args);
        ASSERT_EQ(q.rc, 0) << q.err;
        const auto qj = nlohmann::json::parse(q.out);

        const Result info = run({"info", saved.string(), "--json"});
        ASSERT_EQ(info.rc, 0) << info.err;
        const auto ij = nlohmann::json::parse(info.out);
        ASSERT_EQ(ij["tensors"].size(), 1u) << info.out; // one module, no raw qs_* parts
        const auto &t = ij["tensors"][0];
        EXPECT_EQ(t["name"], module + ".weight");
        EXPECT_EQ(t["format"], "quantscope-native");
        EXPECT_EQ(t["scheme"]["method"], qj["method"]);
        EXPECT_EQ(t["shape"], nlohmann::json::array({1024, 512}));

        const fs::path npy = dir / (method + ".npy");
        const Result dec = run({"decode", saved.string(), "--tensor", module, "--out", npy.string()});
        ASSERT_EQ(dec.rc, 0) << dec.err;
        const Checkpoint back = Checkpoint::open(npy);
        ASSERT_EQ(back.entries().size(), 1u);
        const Tensor wh = back.tensor(back.entries()[0].name);
        ASSERT_EQ(wh.numel(), static_cast<std::int64_t>(w.size()));
        std::vector<float> v(w.size());
        wh.decodeTo(v);
        double maxErr = 0, se = 0;
        for (std::size_t i = 0; i < w.size(); ++i) {
            const double e = static_cast<double>(w[i]) - static_cast<double>(v[i]);
            maxErr = std::max(maxErr, std::abs(e));
            se += e * e;
        }
        const auto &m = qj["metrics"];
        // max |err| is one element's difference: exact when Ŵ is the same.
        EXPECT_EQ(static_cast<float>(maxErr), static_cast<float>(m["max_abs_err"].get<double>()));
        EXPECT_NEAR(se / static_cast<double>(w.size()), m["mse"].get<double>(), 1e-9 * m["mse"].get<double>() + 1e-30);
    }
    fs::remove_all(dir);
}

namespace {

/// A small llama-shaped checkpoint (two layers, tied head stored) as `dir/model.safetensors`.
void writeSmallLlama(const fs::path &dir)
{
    constexpr std::int64_t k = 128;
    fs::create_directories(dir);
    std::mt19937 rng(5);
    std::student_t_distribution<float> t(4.0f);
    std::vector<std::pair<std::string, Tensor>> tensors;
    auto add = [&](const std::string &name, Shape s) {
        std::vector<float> v(static_cast<std::size_t>(numelOf(s)));
        for (auto &x : v)
            x = 0.02f * t(rng);
        tensors.emplace_back(name, Tensor::fromFloats(s, v));
    };
    add("model.embed_tokens.weight", {64, k});
    for (int l = 0; l < 2; ++l) {
        const std::string p = "model.layers." + std::to_string(l) + ".";
        for (const char *m : {"q_proj", "k_proj", "v_proj", "o_proj"})
            add(p + "self_attn." + m + ".weight", {k, k});
        add(p + "mlp.gate_proj.weight", {2 * k, k});
        add(p + "mlp.up_proj.weight", {2 * k, k});
        add(p + "mlp.down_proj.weight", {k, 2 * k});
        add(p + "input_layernorm.weight", {k});
    }
    add("model.norm.weight", {k});
    add("lm_head.weight", {64, k});
    writeSafetensors(dir / "model.safetensors", tensors);
    std::ofstream(dir / "config.json") << R"({"architectures": ["LlamaForCausalLM"], "tie_word_embeddings": true})";
}

} // namespace

TEST(CliNative, WholeCheckpointExportDecodesToTheErrorsQuantizeReported)
{
    const fs::path dir = fs::path(::testing::TempDir()) / ("qs_cli_native_ck_" + std::to_string(getpid()));
    fs::remove_all(dir);
    writeSmallLlama(dir / "in");
    const std::string hqq = R"({"method": "hqq", "bits": 4, "group": 64})";
    const std::string milo = R"({"method": "milo", "bits": 3, "group": 64, "rank": 8, "passes": 2})";
    const std::string prog = R"({"method": "progressive"})";
    std::ofstream(dir / "r.json") << R"({"quantscope_recipe": 1, "rules": [
        {"patterns": ["*down_proj"], "specs": [)" +
                                         prog + R"(]},
        {"patterns": ["*layers.0.*"], "specs": [)" +
                                         hqq + R"(]},
        {"patterns": ["*"], "specs": [)" +
                                         milo + "]}]}";
    const fs::path out = dir / "out";
    const Result ex = run({"export", "--recipe", (dir / "r.json").string(), "--format", "quantscope", "--checkpoint",
                           (dir / "in").string(), "--out-dir", out.string()});
    ASSERT_EQ(ex.rc, 0) << ex.err;
    EXPECT_NE(ex.out.find("14 modules quantized"), std::string::npos) << ex.out;

    const Result info = run({"info", out.string(), "--json"});
    ASSERT_EQ(info.rc, 0) << info.err;
    const auto ij = nlohmann::json::parse(info.out);
    int native = 0;
    for (const auto &t : ij["tensors"])
        if (t.value("format", "") == "quantscope-native")
            ++native;
    EXPECT_EQ(native, 14) << info.out;

    const Checkpoint src = Checkpoint::open(dir / "in");
    const std::vector<std::pair<std::string, std::string>> checks = {{"model.layers.0.self_attn.q_proj", hqq},
                                                                     {"model.layers.1.self_attn.q_proj", milo},
                                                                     {"model.layers.1.mlp.down_proj", prog}};
    for (const auto &[module, spec] : checks) {
        SCOPED_TRACE(module);
        const fs::path specFile = dir / "spec.json";
        std::ofstream(specFile) << spec;
        const Result q = run(
            {"quantize", (dir / "in").string(), "--tensor", module + ".weight", "--json", "--spec", specFile.string()});
        ASSERT_EQ(q.rc, 0) << q.err;
        const auto qj = nlohmann::json::parse(q.out);
        const auto &m = qj["metrics"];
        const fs::path npy = dir / "w.npy";
        fs::remove(npy);
        const Result dec = run({"decode", out.string(), "--tensor", module, "--out", npy.string()});
        ASSERT_EQ(dec.rc, 0) << dec.err;
        const Checkpoint back = Checkpoint::open(npy);
        std::vector<float> w(static_cast<std::size_t>(src.tensor(module + ".weight").numel())), v(w.size());
        src.tensor(module + ".weight").decodeTo(w);
        back.tensor(back.entries()[0].name).decodeTo(v);
        double maxErr = 0, se = 0;
        for (std::size_t i = 0; i < w.size(); ++i) {
            const double e = static_cast<double>(w[i]) - static_cast<double>(v[i]);
            maxErr = std::max(maxErr, std::abs(e));
            se += e * e;
        }
        EXPECT_EQ(static_cast<float>(maxErr), static_cast<float>(m["max_abs_err"].get<double>()));
        EXPECT_NEAR(se / static_cast<double>(w.size()), m["mse"].get<double>(), 1e-9 * m["mse"].get<double>() + 1e-30);
    }
    const Result doctor = run({"doctor", out.string()});
    EXPECT_EQ(doctor.rc, 0) << doctor.out;
    fs::remove_all(dir);
}
