// SPDX-License-Identifier: MIT
#pragma once
/// \file philox.h
/// The counter-based generator every backend shares for randomized sketches (docs/numerics.md
/// "Numerical contract": seeded Philox). Header-only and free of library calls except log/sin/
/// cos, so a GPU kernel can include it (define QS_HD as `__host__ __device__` first) and
/// reproduce the same stream.
///
/// Philox4x32-10 (Salmon et al., SC'11; the generator of cuRAND and of torch's CUDA RNG):
///   key = (seed & 0xFFFFFFFF, seed >> 32), counter = (c0, c1, c2, c3), 10 rounds of
///   (hi0, lo0) = mulhilo(0xD2511F53, c0); (hi1, lo1) = mulhilo(0xCD9E8D57, c2);
///   c = (hi1 ^ c1 ^ k0, lo1, hi0 ^ c3 ^ k1, lo0); k += (0x9E3779B9, 0xBB67AE85).
///
/// Normal numbers (Quantscope's convention, documented, not torch's): element i of stream s
/// comes from the block (c0, c1, c2, c3) = (i/4 low 32 bits, i/4 high 32 bits, s, 0); its four
/// 32-bit words x0..x3 become uniforms u = (x + 0.5)·2^-32 ∈ (0, 1), and Box–Muller in FP64
/// turns (u0, u1) into elements 4b, 4b+1 and (u2, u3) into 4b+2, 4b+3:
///   r = sqrt(−2 ln u_even), z_even = r·cos(2π u_odd), z_odd = r·sin(2π u_odd).
/// The integer stream is bit-exact everywhere; the normals agree to the last bit of FP64
/// wherever log/sin/cos are correctly rounded (and to ~1 ulp otherwise, invisible after the
/// FP32 rounding a sketch uses).
#include <cmath>
#include <cstdint>

#ifndef QS_HD
#define QS_HD
#endif

namespace quantscope::philox {

struct Block {
    std::uint32_t v[4];
};

QS_HD inline void mulhilo(std::uint32_t a, std::uint32_t b, std::uint32_t &hi, std::uint32_t &lo)
{
    const std::uint64_t p = static_cast<std::uint64_t>(a) * static_cast<std::uint64_t>(b);
    hi = static_cast<std::uint32_t>(p >> 32);
    lo = static_cast<std::uint32_t>(p);
}

/// Philox4x32-10 of one counter under a 64-bit key.
QS_HD inline Block philox4x32_10(Block ctr, std::uint64_t seed)
{
    std::uint32_t k0 = static_cast<std::uint32_t>(seed), k1 = static_cast<std::uint32_t>(seed >> 32);
    for (int round = 0; round < 10; ++round) {
        std::uint32_t hi0, lo0, hi1, lo1;
        mulhilo(0xD2511F53u, ctr.v[0], hi0, lo0);
        mulhilo(0xCD9E8D57u, ctr.v[2], hi1, lo1);
        ctr = Block{{hi1 ^ ctr.v[1] ^ k0, lo1, hi0 ^ ctr.v[3] ^ k1, lo0}};
        k0 += 0x9E3779B9u;
        k1 += 0xBB67AE85u;
    }
    return ctr;
}

/// The four 32-bit words of block `b` of stream `stream`.
QS_HD inline Block randomBlock(std::uint64_t seed, std::uint32_t stream, std::uint64_t b)
{
    return philox4x32_10(Block{{static_cast<std::uint32_t>(b), static_cast<std::uint32_t>(b >> 32), stream, 0u}}, seed);
}

/// Uniform in (0, 1) from a 32-bit word: (x + 0.5)·2^-32 (never 0 or 1, exact in FP64).
QS_HD inline double uniformOpen(std::uint32_t x)
{
    return (static_cast<double>(x) + 0.5) * 0x1p-32;
}

/// The four standard normal numbers of block `b` of a stream (elements 4b .. 4b+3).
QS_HD inline void normalBlock(std::uint64_t seed, std::uint32_t stream, std::uint64_t b, double out[4])
{
    const Block r = randomBlock(seed, stream, b);
    const double twoPi = 6.283185307179586476925286766559;
    for (int h = 0; h < 2; ++h) {
        const double u0 = uniformOpen(r.v[2 * h]), u1 = uniformOpen(r.v[2 * h + 1]);
        const double rad = std::sqrt(-2.0 * std::log(u0));
        out[2 * h] = rad * std::cos(twoPi * u1);
        out[2 * h + 1] = rad * std::sin(twoPi * u1);
    }
}

/// Element i of the normal stream (seed, stream).
QS_HD inline double normalAt(std::uint64_t seed, std::uint32_t stream, std::uint64_t i)
{
    double z[4];
    normalBlock(seed, stream, i / 4, z);
    return z[i % 4];
}

/// Fills out[0..n) with elements [0, n) of the normal stream (seed, stream), row-major when
/// the caller views it as a matrix.
template <typename T> void fillNormal(std::uint64_t seed, std::uint32_t stream, T *out, std::uint64_t n)
{
    double z[4];
    for (std::uint64_t b = 0; b * 4 < n; ++b) {
        normalBlock(seed, stream, b, z);
        for (int k = 0; k < 4 && b * 4 + k < n; ++k)
            out[b * 4 + k] = static_cast<T>(z[k]);
    }
}

} // namespace quantscope::philox
