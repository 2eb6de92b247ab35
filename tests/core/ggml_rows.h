// SPDX-License-Identifier: MIT
#pragma once
// Test helper shared by the core and GPU tests of ggml's block quantizers: seeded rows that reach
// the quantizers' corner cases, and importance weights like an imatrix's.
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

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
