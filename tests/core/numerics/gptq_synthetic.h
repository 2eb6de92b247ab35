// SPDX-License-Identifier: MIT
#pragma once
/// \file gptq_synthetic.h
/// The K = 1024 layer of tests/data/gptq/synthetic-1024.gptq.safetensors, generated as
/// scripts/gptq/make-gptq-golden-large.py generates it (splitmix64; operations that round alike in
/// NumPy and C++), and the golden's configurations and packed codes. Shared by the CPU test
/// (tests/core/numerics/test_gptq.cpp) and the GPU test (tests/gpu/test_gpu_gptq.cpp).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "io/safetensors.h"
#include "quant/quantizer.h"
#include "tensor/tensor.h"

namespace quantscope::test {

inline const std::filesystem::path kGptqLargeGolden =
    std::filesystem::path(QUANTSCOPE_SOURCE_DIR) / "tests/data/gptq/synthetic-1024.gptq.safetensors";

struct GptqSyntheticLayer {
    static constexpr std::int64_t n = 128, k = 1024, r = 256;
    std::vector<float> w;    ///< [n × k]
    Calibration calibration; ///< the full Gram of X, exact
};

inline std::uint64_t splitmix64(std::uint64_t x)
{
    x += 0x9E3779B97F4A7C15ull;
    std::uint64_t z = x;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

inline double splitmixUniform(std::uint64_t seed, std::uint64_t i)
{
    return static_cast<double>(splitmix64(seed + i) >> 11) * 0x1p-53;
}

inline GptqSyntheticLayer gptqSyntheticLayer()
{
    using L = GptqSyntheticLayer;
    GptqSyntheticLayer out;
    out.w.resize(static_cast<std::size_t>(L::n * L::k));
    for (std::int64_t i = 0; i < L::n * L::k; ++i) {
        const double d = splitmixUniform(1, static_cast<std::uint64_t>(i)) - 0.5;
        float v = static_cast<float>(((d * d) * d) * 0.8);
        if ((i % L::k) % 61 == 5)
            v *= 8.0f;
        out.w[static_cast<std::size_t>(i)] = v;
    }
    std::vector<std::int64_t> x(static_cast<std::size_t>(L::r * L::k));
    for (std::int64_t i = 0; i < L::r * L::k; ++i) {
        auto v = static_cast<std::int64_t>(std::floor(splitmixUniform(2, static_cast<std::uint64_t>(i)) * 17.0) - 8.0);
        if ((i % L::k) % 97 == 11)
            v *= 16;
        x[static_cast<std::size_t>(i)] = v;
    }
    // diag(H) without ties, as the script makes it: in column order, x[0, j] += 1 until Σ_t x_tj²
    // differs from every earlier column's.
    std::vector<std::int64_t> seen;
    for (std::int64_t j = 0; j < L::k; ++j) {
        auto sumSq = [&] {
            std::int64_t d = 0;
            for (std::int64_t t = 0; t < L::r; ++t)
                d += x[t * L::k + j] * x[t * L::k + j];
            return d;
        };
        std::int64_t d = sumSq();
        while (std::find(seen.begin(), seen.end(), d) != seen.end()) {
            ++x[j];
            d = sumSq();
        }
        seen.push_back(d);
    }
    Calibration &c = out.calibration;
    c.module = "synthetic-1024";
    c.source = kGptqLargeGolden.filename().string();
    c.k = L::k;
    c.tokens = L::r;
    c.gram.assign(static_cast<std::size_t>(L::k * L::k), 0.0);
    for (std::int64_t i = 0; i < L::k; ++i)
        for (std::int64_t j = 0; j < L::k; ++j) {
            std::int64_t s = 0;
            for (std::int64_t t = 0; t < L::r; ++t)
                s += x[t * L::k + i] * x[t * L::k + j];
            c.gram[i * L::k + j] = static_cast<double>(s) / static_cast<double>(L::r);
        }
    for (std::int64_t i = 0; i < L::k; ++i)
        c.gramDiag.push_back(c.gram[i * L::k + i]);
    return out;
}

/// A golden configuration as a Quantscope spec, its llm-compressor loss and codes (unpacked, int).
struct GptqGoldenConfig {
    std::string name;
    nlohmann::json spec;
    double loss = 0;
    std::vector<int> codes;
};

/// The Quantscope spec of a golden configuration (its llm-compressor QuantizationArgs, block size and
/// dampening, as the golden scripts record them).
inline nlohmann::json gptqSpecOfGolden(const nlohmann::json &cfg)
{
    const auto &a = cfg["args"];
    nlohmann::json spec{{"method", "gptq"},
                        {"bits", a["num_bits"]},
                        {"symmetric", a["symmetric"]},
                        {"block_size", cfg["block_size"]},
                        {"dampening", cfg["dampening"]},
                        {"actorder", a.value("actorder", "none")}};
    if (a["strategy"] == "group") {
        spec["granularity"] = "group";
        spec["group"] = a["group_size"];
    } else {
        spec["granularity"] = "channel";
    }
    return spec;
}

/// Rows (of n × k codes) in which any code differs from the golden's.
inline std::size_t gptqRowsDiffering(const std::vector<std::uint8_t> &codes, const std::vector<int> &golden,
                                     std::int64_t n, std::int64_t k)
{
    std::size_t rows = 0;
    for (std::int64_t r = 0; r < n; ++r) {
        bool any = false;
        for (std::int64_t j = 0; j < k; ++j) {
            const auto i = static_cast<std::size_t>(r * k + j);
            any |= static_cast<std::int8_t>(codes[i]) != golden[i];
        }
        rows += any;
    }
    return rows;
}

inline std::vector<GptqGoldenConfig> gptqLargeGolden()
{
    const auto file = SafetensorsFile::open(kGptqLargeGolden);
    // The golden was written for this generator's shape: a script and header that drift apart fail here.
    using L = GptqSyntheticLayer;
    EXPECT_EQ(file.metadata().at("rows"), std::to_string(L::n)) << kGptqLargeGolden;
    EXPECT_EQ(file.metadata().at("cols"), std::to_string(L::k)) << kGptqLargeGolden;
    EXPECT_EQ(file.metadata().at("samples"), std::to_string(L::r)) << kGptqLargeGolden;
    const auto configs = nlohmann::json::parse(file.metadata().at("configs"));
    std::vector<GptqGoldenConfig> out;
    for (const auto &[name, cfg] : configs.items()) {
        GptqGoldenConfig g;
        g.name = name;
        g.spec = gptqSpecOfGolden(cfg);
        g.loss = cfg["loss"];
        const Tensor packed = file.tensor(name + ".codes");
        std::vector<float> bytes(static_cast<std::size_t>(packed.numel()));
        packed.decodeRange(0, bytes);
        for (float b : bytes) {
            const int v = static_cast<int>(b);
            g.codes.push_back((v & 15) - 8);
            g.codes.push_back((v >> 4) - 8);
        }
        out.push_back(std::move(g));
    }
    return out;
}

} // namespace quantscope::test
