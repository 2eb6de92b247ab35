// SPDX-License-Identifier: MIT
// `quantize --save` of every method, HQQ and MiLo included, opened by `info` as one quantized
// module with its scheme and decoded by `decode`: the metrics recomputed here from the decoded Ŵ
// and the source W equal those `quantize` reported for the same run.
#include "cli_run.h"

#include <cmath>

#include <nlohmann/json.hpp>

#include "io/checkpoint.h"

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
