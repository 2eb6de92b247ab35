// SPDX-License-Identifier: MIT
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <random>

#include <nlohmann/json.hpp>

#include "io/safetensors.h"
#include "numeric/moments.h"
#include "tensor/convert.h"

using namespace quantscope;

namespace {

/// Independent reference: plain three-pass FP64 over a vector, long double accumulation.
struct Ref {
    double mean, std, skew, kurt;
};
Ref reference(const std::vector<float> &v)
{
    long double s = 0;
    for (float x : v)
        s += x;
    const long double mean = s / v.size();
    long double m2 = 0, m3 = 0, m4 = 0;
    for (float x : v) {
        const long double d = x - mean;
        m2 += d * d;
        m3 += d * d * d;
        m4 += d * d * d * d;
    }
    m2 /= v.size();
    m3 /= v.size();
    m4 /= v.size();
    return {static_cast<double>(mean), static_cast<double>(std::sqrt(m2)), static_cast<double>(m3 / std::pow(m2, 1.5L)),
            static_cast<double>(m4 / (m2 * m2) - 3)};
}

} // namespace

TEST(Moments, MatchIndependentReferenceOnHeavyTailedData)
{
    std::mt19937_64 rng(7);
    std::student_t_distribution<float> t(5.0f);
    std::vector<float> v(300'001);
    for (auto &x : v)
        x = 0.02f * t(rng) + 0.001f;
    const Ref r = reference(v);
    for (int threads : {1, 2, 5}) {
        StatsOptions o;
        o.threads = threads;
        const TensorStats s = computeStats(Tensor::fromFloats({300'001}, v), o);
        EXPECT_NEAR(s.mean, r.mean, 1e-12);
        EXPECT_NEAR(s.std / r.std, 1.0, 1e-12);
        ASSERT_TRUE(s.skewness && s.excessKurtosis);
        EXPECT_NEAR(*s.skewness, r.skew, 1e-9);
        EXPECT_NEAR(*s.excessKurtosis / r.kurt, 1.0, 1e-10);
        EXPECT_EQ(s.finiteCount, 300'001);
    }
}

TEST(Moments, KnownDistributionValues)
{
    // Uniform on a fine symmetric grid: excess kurtosis -> -1.2, skewness 0.
    std::vector<float> v;
    for (int i = -50000; i <= 50000; ++i)
        v.push_back(static_cast<float>(i) / 50000.0f);
    const TensorStats s = computeStats(Tensor::fromFloats({static_cast<std::int64_t>(v.size())}, v));
    EXPECT_NEAR(*s.excessKurtosis, -1.2, 1e-4);
    EXPECT_NEAR(*s.skewness, 0.0, 1e-9);
    EXPECT_DOUBLE_EQ(s.min, -1.0);
    EXPECT_DOUBLE_EQ(s.max, 1.0);
    EXPECT_DOUBLE_EQ(s.absmax, 1.0);
    // Two-point ±1: kurtosis −2 exactly, std 1; N−1 std option (MiLo) gives sqrt(n/(n−1)).
    std::vector<float> pm{1, -1, 1, -1};
    StatsOptions milo;
    milo.miloStd = true;
    const TensorStats p = computeStats(Tensor::fromFloats({4}, pm));
    EXPECT_DOUBLE_EQ(*p.excessKurtosis, -2.0);
    EXPECT_DOUBLE_EQ(p.std, 1.0);
    EXPECT_DOUBLE_EQ(computeStats(Tensor::fromFloats({4}, pm), milo).std, std::sqrt(4.0 / 3.0));
}

TEST(Moments, NanInfCountedAndExcluded)
{
    const float nan = std::numeric_limits<float>::quiet_NaN();
    const float inf = std::numeric_limits<float>::infinity();
    std::vector<float> v{1, 2, nan, 3, -inf, inf, 4};
    const TensorStats s = computeStats(Tensor::fromFloats({7}, v));
    EXPECT_EQ(s.nanCount, 1);
    EXPECT_EQ(s.infCount, 2);
    EXPECT_EQ(s.finiteCount, 4);
    EXPECT_DOUBLE_EQ(s.mean, 2.5);
    EXPECT_DOUBLE_EQ(s.max, 4.0);
    // All NaN / constant / empty: nothing crashes, undefined moments stay unset.
    const TensorStats n = computeStats(Tensor::fromFloats({2}, std::vector<float>{nan, nan}));
    EXPECT_EQ(n.nanCount, 2);
    EXPECT_FALSE(n.excessKurtosis.has_value());
    const TensorStats c = computeStats(Tensor::fromFloats({3}, std::vector<float>{2, 2, 2}));
    EXPECT_DOUBLE_EQ(c.std, 0.0);
    EXPECT_FALSE(c.excessKurtosis.has_value());
    EXPECT_EQ(computeStats(Tensor::zeros(DType::F32, {0, 4})).numel, 0);
}

TEST(Moments, Bf16InputIsDecodedExactly)
{
    std::vector<std::byte> b(6);
    const std::uint16_t codes[3] = {floatToBf16(1.0f), floatToBf16(-3.0f), floatToBf16(0.5f)};
    std::memcpy(b.data(), codes, 6);
    const TensorStats s = computeStats(Tensor::fromBytes(DType::BF16, {3}, b));
    EXPECT_DOUBLE_EQ(s.mean, -0.5);
    EXPECT_DOUBLE_EQ(s.min, -3.0);
}

TEST(Moments, CancelStopsTheWork)
{
    CancelToken tok;
    tok.cancel();
    std::vector<float> v(1 << 20, 1.0f);
    EXPECT_THROW(computeStats(Tensor::fromFloats({1 << 20}, v), {}, &tok), Cancelled);
}

TEST(Moments, Stories260KMatchesGoldenStats)
{
    const std::filesystem::path dir = std::filesystem::path(QUANTSCOPE_SHARED_DATA) / "stories260K";
    if (!std::filesystem::exists(dir / "model.safetensors") || !std::filesystem::exists(dir / "stats.json"))
        GTEST_SKIP() << "real test data not found at " << dir << " (../shared absent): skipped";
    std::ifstream in(dir / "stats.json");
    const auto golden = nlohmann::json::parse(in);
    const auto f = SafetensorsFile::open(dir / "model.safetensors");
    ASSERT_EQ(golden["tensors"].size(), 48u);
    for (const auto &g : golden["tensors"]) {
        const std::string name = g["name"];
        SCOPED_TRACE(name);
        const TensorStats s = computeStats(f.tensor(name));
        EXPECT_EQ(s.numel, g["numel"].get<std::int64_t>());
        // stats.json is printed to 6 significant digits.
        auto rel = [](double a, double b) { return std::abs(a - b) / std::max(std::abs(b), 1e-30); };
        EXPECT_LT(rel(s.std, g["std"]), 5e-6);
        EXPECT_LT(rel(*s.excessKurtosis, g["excess_kurtosis"]), 5e-6);
        EXPECT_LT(rel(s.mean, g["mean"]), 5e-6);
        EXPECT_LT(rel(s.min, g["min"]), 5e-6);
        EXPECT_LT(rel(s.max, g["max"]), 5e-6);
    }
}
