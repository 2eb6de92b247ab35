// SPDX-License-Identifier: MIT
// `quantscope-cli sweep` end to end on the demo: every point's error and bytes equal
// `quantize --json` for its spec (rotated points: quantize of the rotated tensor, written here
// as an .npy), the kurtosis before/after the rotation equals the moments of W and of WHT(W), and
// the Pareto flags hold.
#include "cli_run.h"

#include <cmath>
#include <nlohmann/json.hpp>

#include "io/checkpoint.h"
#include "io/npy_writer.h"
#include "numeric/moments.h"
#include "numeric/hadamard.h"

using namespace cli_test;
using json = nlohmann::json;

TEST(CliSweep, EveryPointEqualsQuantize)
{
    const std::string tensor = "model.layers.0.self_attn.k_proj.weight";
    const std::string tag = std::to_string(getpid());
    const Result r = run({"sweep", demoDir().string(), "--tensor", tensor, "--formats", "int4,hqq3,fp8,nvfp4,constopt",
                          "--groups", "32,128", "--hadamard", "64", "--device", "cpu", "--json", "--quiet"});
    ASSERT_EQ(r.rc, 0) << r.err;
    const json s = json::parse(r.out);
    // The rotated tensor, as the sweep rotates it: W decoded to FP32, blocks of 64 along K.
    const auto ck = quantscope::Checkpoint::open(demoDir().string());
    const quantscope::Tensor w = ck.tensor(tensor);
    const auto N = w.shape()[0], K = w.shape()[1];
    std::vector<float> v(static_cast<std::size_t>(N * K));
    w.decodeTo(v);
    quantscope::hadamardRows(v, N, K, 64);
    const quantscope::Tensor rotated = quantscope::Tensor::fromFloats(w.shape(), v);
    const fs::path npy = fs::path(::testing::TempDir()) / ("qs_sweep_rot_" + tag + ".npy");
    quantscope::writeNpy(npy, rotated);
    EXPECT_NEAR(s["kurtosis"].get<double>(), *quantscope::computeStats(w).excessKurtosis, 1e-12);
    EXPECT_NEAR(s["kurtosis_rotated"].get<double>(), *quantscope::computeStats(rotated).excessKurtosis, 1e-12);
    // 2 groups × (int4 + hqq3 × 2 axes + nvfp4 + constopt) + fp8, each plain and rotated.
    ASSERT_EQ(s["points"].size(), 2u * (2 * 5 + 1));
    const fs::path specFile = fs::path(::testing::TempDir()) / ("qs_sweep_spec_" + tag + ".json");
    int rotatedCompared = 0;
    for (const auto &p : s["points"]) {
        ASSERT_TRUE(p["error"].is_null()) << p.dump();
        std::ofstream(specFile) << p["spec"].dump();
        const bool onNpy = p["hadamard"].get<bool>() && p["format"] != "constopt";
        const Result q = run({"quantize", onNpy ? npy.string() : demoDir().string(), "--tensor",
                              onNpy ? npy.stem().string() : tensor, "--spec", specFile.string(), "--json", "--quiet",
                              "--device", "cpu"});
        ASSERT_EQ(q.rc, 0) << q.err;
        const json qj = json::parse(q.out);
        EXPECT_EQ(p["spec"], qj["spec"]);
        EXPECT_EQ(p["mse"], qj["metrics"]["mse"]) << p["family"] << " g" << p["group"];
        EXPECT_EQ(p["bytes"], qj["metrics"]["bytes"]);
        EXPECT_EQ(p["bits_per_weight"], qj["metrics"]["bits_per_element"]);
        rotatedCompared += onNpy;
    }
    EXPECT_EQ(rotatedCompared, 2 * 4 + 1);
    // Pareto: a flagged point is dominated by none; an unflagged one by some.
    for (const auto &p : s["points"]) {
        bool dominated = false;
        for (const auto &q : s["points"])
            dominated |= q["bits_per_weight"] <= p["bits_per_weight"] && q["mse"] <= p["mse"] &&
                         (q["bits_per_weight"] < p["bits_per_weight"] || q["mse"] < p["mse"]);
        EXPECT_EQ(p["pareto"].get<bool>(), !dominated) << p.dump();
    }
    // Errors: an unknown format, a rotation that does not divide K (points left out, a note).
    EXPECT_EQ(run({"sweep", demoDir().string(), "--tensor", tensor, "--formats", "int9"}).rc, 1);
    const Result odd = run({"sweep", demoDir().string(), "--tensor", tensor, "--formats", "int4", "--groups", "32",
                            "--hadamard", "3", "--device", "cpu", "--json", "--quiet"});
    ASSERT_EQ(odd.rc, 0) << odd.err;
    const json oj = json::parse(odd.out);
    EXPECT_EQ(oj["points"].size(), 1u);
    EXPECT_EQ(oj["notes"].size(), 1u);
    fs::remove(npy);
    fs::remove(specFile);
}
