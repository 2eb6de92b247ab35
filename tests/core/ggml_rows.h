// SPDX-License-Identifier: MIT
#pragma once
// Test helper shared by the core and GPU tests of ggml's block quantizers: seeded rows that reach
// the quantizers' corner cases, and importance weights like an imatrix's.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include <gtest/gtest.h>

namespace quantscope::test {

/// rows × cols (cols a multiple of 256) heavy-tailed values (Student t, ν = 3) with: an outlier
/// column (every row's column 7, ×40), an all-zero super-block (row 1, columns 0..255), a block of
/// magnitude near ggml's GROUP_MAX_EPS 1e-15 (row 2, columns 256..287: 1e-15 · t, some below the
/// threshold), a block of one non-zero value (row 3, columns 32..63), a constant block (row 3,
/// columns 64..95), an all-negative super-block (row 4, the last 256 columns), and one row of
/// FP16-subnormal magnitudes (row 5). Needs rows ≥ 6 and cols ≥ 512.
inline std::vector<float> ggmlRows(std::int64_t rows, std::int64_t cols, std::uint64_t seed)
{
    std::mt19937_64 rng(seed);
    std::student_t_distribution<float> t(3.0f);
    std::vector<float> v(static_cast<std::size_t>(rows * cols));
    auto at = [&](std::int64_t r, std::int64_t c) -> float & { return v[static_cast<std::size_t>(r * cols + c)]; };
    for (std::int64_t r = 0; r < rows; ++r)
        for (std::int64_t c = 0; c < cols; ++c)
            at(r, c) = 0.02f * t(rng) * (c == 7 ? 40.0f : 1.0f);
    for (std::int64_t c = 0; c < 256; ++c)
        at(1, c) = 0.0f;
    for (std::int64_t c = 256; c < 288; ++c)
        at(2, c) = 1e-15f * t(rng);
    for (std::int64_t c = 32; c < 64; ++c)
        at(3, c) = c == 40 ? 0.3f : 0.0f;
    for (std::int64_t c = 64; c < 96; ++c)
        at(3, c) = -0.125f;
    for (std::int64_t c = cols - 256; c < cols; ++c)
        at(4, c) = -std::fabs(at(4, c)) - 1e-3f;
    for (std::int64_t c = 0; c < cols; ++c)
        at(5, c) = 3e-6f * t(rng);
    return v;
}

/// Checks that ggmlRows(rows, cols, ·) holds the corner cases it promises (a changed generator
/// would otherwise silently stop reaching them).
inline void expectGgmlCornerCases(const std::vector<float> &v, std::int64_t rows, std::int64_t cols)
{
    ASSERT_GE(rows, 6);
    ASSERT_GE(cols, 512);
    ASSERT_EQ(v.size(), static_cast<std::size_t>(rows * cols));
    auto at = [&](std::int64_t r, std::int64_t c) { return v[static_cast<std::size_t>(r * cols + c)]; };
    for (std::int64_t c = 0; c < 256; ++c)
        EXPECT_EQ(at(1, c), 0.0f) << "the all-zero super-block, column " << c;
    float tiny = 0.0f;
    for (std::int64_t c = 256; c < 288; ++c)
        tiny = std::max(tiny, std::fabs(at(2, c)));
    EXPECT_GT(tiny, 0.0f);
    EXPECT_LT(tiny, 1e-13f) << "the block near GROUP_MAX_EPS";
    int nonZero = 0;
    for (std::int64_t c = 32; c < 64; ++c)
        nonZero += at(3, c) != 0.0f;
    EXPECT_EQ(nonZero, 1) << "the block of one value";
    for (std::int64_t c = 64; c < 96; ++c)
        EXPECT_EQ(at(3, c), at(3, 64)) << "the constant block, column " << c;
    for (std::int64_t c = cols - 256; c < cols; ++c)
        EXPECT_LT(at(4, c), 0.0f) << "the all-negative super-block, column " << c;
    std::int64_t subnormal = 0; // heavy tails: a few may reach the normal range
    for (std::int64_t c = 0; c < cols; ++c)
        subnormal += std::fabs(at(5, c)) < 6.103515625e-5f;
    EXPECT_GE(subnormal * 10, cols * 9) << "the FP16-subnormal row";
}

/// cols importance weights like an imatrix's mean x² per input channel: log-normal spread, a
/// few channels 100× the rest, and some exact zeros (channels no token used).
inline std::vector<float> ggmlImportance(std::int64_t cols, std::uint64_t seed)
{
    std::mt19937_64 rng(seed);
    std::lognormal_distribution<float> ln(-6.0f, 1.5f);
    std::vector<float> w(static_cast<std::size_t>(cols));
    for (std::int64_t c = 0; c < cols; ++c)
        w[static_cast<std::size_t>(c)] = c % 97 == 5 ? 0.0f : ln(rng) * (c % 61 == 3 ? 100.0f : 1.0f);
    return w;
}

} // namespace quantscope::test
