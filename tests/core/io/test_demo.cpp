// SPDX-License-Identifier: MIT
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>

#include "demo/demo.h"
#include "io/checkpoint.h"
#include "numeric/moments.h"

using namespace quantscope;

namespace {

const std::vector<std::pair<std::string, Tensor>> &weights()
{
    static const auto w = demo::makeDemoWeights();
    return w;
}

const Tensor &weight(const std::string &name)
{
    for (const auto &[n, t] : weights())
        if (n == name)
            return t;
    throw std::runtime_error("demo has no " + name);
}

std::vector<double> columnRms(const Tensor &t)
{
    const auto n = t.dim(0), k = t.dim(1);
    std::vector<double> rms(static_cast<std::size_t>(k), 0.0);
    for (std::int64_t i = 0; i < n; ++i)
        for (std::int64_t j = 0; j < k; ++j) {
            const double x = t.at(i * k + j);
            rms[static_cast<std::size_t>(j)] += x * x;
        }
    return rms;
}

} // namespace

TEST(Demo, NamesAndShapesLikeAnHfMoeCheckpoint)
{
    std::map<std::string, Shape> shapes;
    for (const auto &[n, t] : weights()) {
        EXPECT_EQ(t.dtype(), DType::BF16);
        shapes[n] = t.shape();
    }
    EXPECT_EQ(shapes.at("model.layers.0.self_attn.q_proj.weight"), (Shape{1024, 1024}));
    EXPECT_EQ(shapes.at("model.layers.0.mlp.gate_proj.weight"), (Shape{2816, 1024}));
    EXPECT_EQ(shapes.at("model.layers.0.mlp.down_proj.weight"), (Shape{1024, 2816}));
    EXPECT_EQ(shapes.at("model.layers.1.mlp.gate.weight"), (Shape{8, 1024}));
    for (int e = 0; e < 8; ++e) {
        const std::string E = "model.layers.1.mlp.experts." + std::to_string(e) + ".";
        EXPECT_EQ(shapes.at(E + "gate_proj.weight"), (Shape{512, 1024}));
        EXPECT_EQ(shapes.at(E + "up_proj.weight"), (Shape{512, 1024}));
        EXPECT_EQ(shapes.at(E + "down_proj.weight"), (Shape{1024, 512}));
    }
    for (const char *p : {"gate_proj", "up_proj", "down_proj"})
        EXPECT_TRUE(shapes.count(std::string("model.layers.1.mlp.shared_experts.") + p + ".weight"));
    for (const char *p : {"q_proj", "k_proj", "v_proj", "o_proj"})
        EXPECT_TRUE(shapes.count(std::string("model.layers.1.self_attn.") + p + ".weight"));
    EXPECT_TRUE(shapes.count("model.embed_tokens.weight"));
    EXPECT_TRUE(shapes.count("model.norm.weight"));
    EXPECT_TRUE(shapes.count("lm_head.weight"));
    EXPECT_FALSE(shapes.count("model.layers.0.mlp.experts.0.gate_proj.weight"));
}

TEST(Demo, StatisticsAsDescribed)
{
    for (const char *n : {"model.layers.0.self_attn.q_proj.weight", "model.layers.0.self_attn.k_proj.weight",
                          "model.layers.1.self_attn.q_proj.weight"}) {
        SCOPED_TRACE(n);
        const auto s = computeStats(weight(n));
        EXPECT_NEAR(*s.excessKurtosis, 5.0, 1.0);
        // The 4 outlier input channels are the 4 columns with the largest energy.
        auto rms = columnRms(weight(n));
        std::vector<int> idx(rms.size());
        for (std::size_t i = 0; i < idx.size(); ++i)
            idx[i] = static_cast<int>(i);
        std::partial_sort(idx.begin(), idx.begin() + 4, idx.end(), [&](int a, int b) { return rms[a] > rms[b]; });
        std::vector<int> top(idx.begin(), idx.begin() + 4);
        std::sort(top.begin(), top.end());
        EXPECT_EQ(top, demo::demoQkOutlierChannels());
    }
    for (int e : {0, 7}) {
        const auto s = computeStats(weight("model.layers.1.mlp.experts." + std::to_string(e) + ".down_proj.weight"));
        EXPECT_NEAR(*s.excessKurtosis, 0.5, 0.15);
        EXPECT_NEAR(s.std, 0.02, 0.002);
    }
}

TEST(Demo, ActivationOutlierChannelsAt50xMedian)
{
    const Tensor a = demo::makeDemoActivation();
    ASSERT_EQ(a.shape(), (Shape{256, 1024}));
    std::vector<double> absmax(1024, 0.0);
    for (int m = 0; m < 256; ++m)
        for (int k = 0; k < 1024; ++k)
            absmax[k] = std::max(absmax[k], std::abs(a.at(m * 1024 + k)));
    auto sorted = absmax;
    std::nth_element(sorted.begin(), sorted.begin() + 512, sorted.end());
    const double median = sorted[512];
    for (int c : demo::demoActivationOutlierChannels())
        EXPECT_NEAR(absmax[c] / median, 50.0, 0.5) << "channel " << c;
    int big = 0;
    for (double v : absmax)
        big += v > 10 * median;
    EXPECT_EQ(big, 3);
}

TEST(Demo, DeterministicPerSeed)
{
    const auto a = demo::makeDemoWeights(1);
    const auto b = demo::makeDemoWeights(1);
    const auto c = demo::makeDemoWeights(2);
    ASSERT_EQ(a.size(), b.size());
    for (std::size_t i = 0; i < a.size(); ++i) {
        ASSERT_EQ(a[i].second.nbytes(), b[i].second.nbytes());
        EXPECT_EQ(std::memcmp(a[i].second.data(), b[i].second.data(), a[i].second.nbytes()), 0);
    }
    EXPECT_NE(std::memcmp(a[5].second.data(), c[5].second.data(), a[5].second.nbytes()), 0);
}

TEST(Demo, WrittenCheckpointOpensSharded)
{
    const auto dir = std::filesystem::path(::testing::TempDir()) / "qs_demo_ckpt";
    std::filesystem::remove_all(dir);
    demo::writeDemoCheckpoint(dir);
    for (const char *f : {"model-00001-of-00002.safetensors", "model-00002-of-00002.safetensors",
                          "model.safetensors.index.json", "config.json", "activations.npy"})
        EXPECT_TRUE(std::filesystem::exists(dir / f)) << f;
    const Checkpoint ck = Checkpoint::open(dir);
    EXPECT_TRUE(ck.sharded());
    EXPECT_EQ(ck.entries().size(), weights().size());
    EXPECT_EQ(ck.files().size(), 2u);
    EXPECT_EQ(ck.config()["hidden_size"], 1024);
    // Same bytes on disk as in memory.
    const Tensor q = ck.tensor("model.layers.1.self_attn.q_proj.weight");
    const Tensor &m = weight("model.layers.1.self_attn.q_proj.weight");
    ASSERT_EQ(q.nbytes(), m.nbytes());
    EXPECT_EQ(std::memcmp(q.data(), m.data(), q.nbytes()), 0);
    // activations.npy: NumPy v1.0 header, little-endian float32, 256x1024, data 64-aligned.
    std::ifstream in(dir / "activations.npy", std::ios::binary);
    std::string head(10, '\0');
    in.read(head.data(), 10);
    EXPECT_EQ(head.substr(0, 6), "\x93NUMPY");
    const int hlen = static_cast<unsigned char>(head[8]) | (static_cast<unsigned char>(head[9]) << 8);
    EXPECT_EQ((10 + hlen) % 64, 0);
    std::string dict(static_cast<std::size_t>(hlen), '\0');
    in.read(dict.data(), hlen);
    EXPECT_NE(dict.find("'descr': '<f4'"), std::string::npos);
    EXPECT_NE(dict.find("'shape': (256, 1024)"), std::string::npos);
    EXPECT_EQ(std::filesystem::file_size(dir / "activations.npy"),
              static_cast<std::uintmax_t>(10 + hlen + 256 * 1024 * 4));
    std::filesystem::remove_all(dir);
}
