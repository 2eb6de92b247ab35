// SPDX-License-Identifier: MIT
#include "numeric/hadamard.h"

#include <cmath>

#include "util/error.h"
#include "util/parallel.h"

namespace quantscope {

void checkRotation(std::int64_t d, std::int64_t K, const std::string &tensorName)
{
    if (d < 2 || (d & (d - 1)) != 0)
        throw UnsupportedError("Hadamard rotation size must be a power of two ≥ 2, got " + std::to_string(d),
                               Location{{}, tensorName, {}});
    if (K % d != 0)
        throw UnsupportedError("Hadamard rotation of size " + std::to_string(d) +
                                   " needs K divisible by it; K = " + std::to_string(K) + " is not",
                               Location{{}, tensorName, {}});
}

float hadamardNorm(std::int64_t d)
{
    return static_cast<float>(1.0 / std::sqrt(static_cast<double>(d)));
}

void hadamardRows(std::span<float> m, std::int64_t rows, std::int64_t K, std::int64_t d, int threads)
{
    const float r = hadamardNorm(d);
    parallelSlices(rows, resolveThreads(threads), nullptr, [&](int, std::int64_t r0, std::int64_t r1) {
        for (std::int64_t row = r0; row < r1; ++row)
            for (std::int64_t c = 0; c < K; c += d)
                hadamardBlock(m.data() + row * K + c, d, r);
    });
}

} // namespace quantscope
