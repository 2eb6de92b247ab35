// SPDX-License-Identifier: MIT
#pragma once
/// \file hadamard.h
/// Orthonormal Walsh–Hadamard rotation along K in blocks of d (docs/toolkits.md §7;
/// docs/numerics.md "FP4 constOpt"). d must be a power of two dividing K. Op sequence per
/// block b of d consecutive elements of a row, FP32, no fused operations:
///   h = 1; while h < d: for i in 0, 2h, …: for j in i … i+h−1: (b[j], b[j+h]) ← (b[j] + b[j+h],
///   b[j] − b[j+h]); h ← 2h b ← b · r,  r = (float)(1.0 / sqrt((double)d))  (exact for d = 4^k)
/// i.e. (H_d / √d)·b with the Sylvester H_d; the rotation is its own inverse (up to rounding).
#include <cstdint>
#include <string>
#if __cplusplus >= 202002L
#include <span>
#endif

#include "numeric/qmath.h"

namespace quantscope {

/// Throws UnsupportedError unless d is a power of two ≥ 2 dividing K (the message names the
/// tensor, K and d).
void checkRotation(std::int64_t d, std::int64_t K, const std::string &tensorName);

/// (float)(1.0 / sqrt((double)d)): the normalisation every backend uses.
float hadamardNorm(std::int64_t d);

/// Rotates one block of d elements in place (the op sequence above).
QS_HD inline void hadamardBlock(float *b, std::int64_t d, float r)
{
    for (std::int64_t h = 1; h < d; h *= 2)
        for (std::int64_t i = 0; i < d; i += 2 * h)
            for (std::int64_t j = i; j < i + h; ++j) {
                const float a = b[j], c = b[j + h];
                b[j] = a + c;
                b[j + h] = a - c;
            }
    for (std::int64_t j = 0; j < d; ++j)
        b[j] = b[j] * r;
}

#if __cplusplus >= 202002L // the kernels (C++17) include this header for hadamardBlock
/// Rotates every row of a row-major [rows, K] matrix in place, blocks of d along K.
void hadamardRows(std::span<float> m, std::int64_t rows, std::int64_t K, std::int64_t d, int threads = 0);
#endif

} // namespace quantscope
