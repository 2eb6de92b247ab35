// SPDX-License-Identifier: MIT
// `info --stats --per-channel` and `quantize --per-channel` (issue 17 item 3): per-channel
// excess kurtosis, absmax and the per-row error, checked against the library's own numbers.
#include <cmath>
#include <filesystem>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace fs = std::filesystem;

#include "cli_run.h"
#include "io/checkpoint.h"
#include "numeric/moments.h"

using namespace cli_test;

namespace {

const char *kK = "model.layers.0.self_attn.k_proj.weight"; // [256, 1024]

nlohmann::json json(const std::vector<std::string> &args)
{
    const Result r = run(args);
    EXPECT_EQ(r.rc, 0) << r.err;
    return nlohmann::json::parse(r.out);
}

/// W of the demo tensor as FP32, row-major.
std::vector<float> weights(const fs::path &dir, std::int64_t &rows, std::int64_t &cols)
{
    const auto ck = quantscope::Checkpoint::open(dir.string(), {});
    const quantscope::Tensor t = ck.tensor(kK);
    rows = t.shape()[0];
    cols = t.shape()[1];
    std::vector<float> w(static_cast<std::size_t>(rows * cols));
    t.decodeRange(0, w);
    return w;
}

double statsKurtosis(std::vector<float> v)
{
    const auto n = static_cast<std::int64_t>(v.size());
    return *quantscope::computeStats(quantscope::Tensor::fromFloats({n}, v)).excessKurtosis;
}

} // namespace

TEST(CliPerChannel, InfoAddsKurtosisAndAbsmaxOfEveryChannelOnlyWhenAsked)
{
    const auto d = demoDir();
    auto plain = json({"info", d.string(), "--tensor", kK, "--stats", "--json"});
    EXPECT_FALSE(plain["tensors"][0].contains("per_channel"));
    EXPECT_EQ(run({"info", d.string(), "--tensor", kK, "--per-channel"}).rc, 2); // needs --stats

    auto j = json({"info", d.string(), "--tensor", kK, "--stats", "--per-channel", "--json"});
    const auto &t = j["tensors"][0];
    EXPECT_EQ(t["stats"], plain["tensors"][0]["stats"]); // the rest is unchanged
    const auto &in = t["per_channel"]["input_channels"];
    const auto &out = t["per_channel"]["output_channels"];
    std::int64_t rows = 0, cols = 0;
    const auto w = weights(d, rows, cols);
    ASSERT_EQ(in["count"].get<std::int64_t>(), cols);
    ASSERT_EQ(out["count"].get<std::int64_t>(), rows);
    ASSERT_EQ(in["excess_kurtosis"].size(), static_cast<std::size_t>(cols));
    // Row 5 and column 37 (the largest outlier channel) against the moments of that channel alone.
    std::vector<float> row(w.begin() + 5 * cols, w.begin() + 6 * cols), col;
    for (std::int64_t r = 0; r < rows; ++r)
        col.push_back(w[static_cast<std::size_t>(r * cols + 37)]);
    const double kr = statsKurtosis(row), kc = statsKurtosis(col);
    EXPECT_NEAR(out["excess_kurtosis"][5].get<double>(), kr, 1e-9 * std::fabs(kr));
    EXPECT_NEAR(in["excess_kurtosis"][37].get<double>(), kc, 1e-9 * std::fabs(kc));
    float colMax = 0;
    for (float v : col)
        colMax = std::max(colMax, std::fabs(v));
    EXPECT_EQ(in["absmax"][37].get<double>(), static_cast<double>(colMax));
    EXPECT_EQ(in["outliers"][0]["index"], 37);
    const double absmax =
        std::max(std::fabs(t["stats"]["min"].get<double>()), std::fabs(t["stats"]["max"].get<double>()));
    EXPECT_EQ(in["outliers"][0]["absmax"].get<double>(), absmax);
}

TEST(CliPerChannel, QuantizeAddsTheErrorOfEveryOutputRow)
{
    const auto d = demoDir();
    const std::vector<std::string> base = {"quantize", d.string(), "--tensor", kK,    "--method", "int",
                                           "--bits",   "4",        "--group",  "128", "--json",   "--quiet"};
    auto plain = json(base);
    EXPECT_FALSE(plain.contains("per_channel"));
    auto args = base;
    args.push_back("--per-channel");
    auto j = json(args);
    EXPECT_EQ(j["metrics"], plain["metrics"]);
    const auto &rel = j["per_channel"]["output_channels"]["rel_error"];
    std::int64_t rows = 0, cols = 0;
    const auto w = weights(d, rows, cols);
    ASSERT_EQ(rel.size(), static_cast<std::size_t>(rows));
    // Σ_r rel_r²·‖w_r‖² / Σ_r ‖w_r‖² is the tensor's squared relative Frobenius error.
    double num = 0, den = 0;
    for (std::int64_t r = 0; r < rows; ++r) {
        double n2 = 0;
        for (std::int64_t c = 0; c < cols; ++c)
            n2 += double(w[std::size_t(r * cols + c)]) * w[std::size_t(r * cols + c)];
        const double e = rel[std::size_t(r)].get<double>();
        EXPECT_GT(e, 0.0);
        num += e * e * n2;
        den += n2;
    }
    const double relF = j["metrics"]["rel_frobenius"].get<double>();
    EXPECT_NEAR(std::sqrt(num / den), relF, 1e-9 * relF);
    EXPECT_EQ(j["per_channel"]["input_channels"]["count"].get<std::int64_t>(), cols);
}
