// SPDX-License-Identifier: MIT
#pragma once
/// \file lanes.h
/// CPU-only helpers for lane-parallel copies of the QS_HD op sequences (kv/kv_rows_cpu.h, the c
/// sweep's group SSE): GCC/Clang vector extensions of 16 FP32 / 8 FP64 lanes, each operation the
/// scalar operation lane by lane (IEEE, no contraction: the build passes -ffp-contract=off),
/// compiled to AVX-512, AVX2 pairs or SSE quads as the target allows. Not for device code.
#include <cstdint>
#include <cstring>

#include "numeric/csweep_math.h"
#include "numeric/fp4math.h"

// Vector values passed between these internal functions: without -march=native GCC notes that
// their calling convention differs from an AVX-512 build's (-Wpsabi); nothing here crosses a
// library boundary.
#pragma GCC diagnostic ignored "-Wpsabi"

namespace quantscope::lanes {

typedef float v16f __attribute__((vector_size(64)));
typedef std::uint32_t v16u __attribute__((vector_size(64)));
typedef std::int32_t v16i __attribute__((vector_size(64)));
typedef float v8f __attribute__((vector_size(32)));
typedef double v8d __attribute__((vector_size(64)));
typedef double v4d __attribute__((vector_size(32)));
typedef std::int64_t v8l __attribute__((vector_size(64)));

inline v16f load16(const float *p)
{
    v16f v;
    std::memcpy(&v, p, sizeof v);
    return v;
}
inline void store16(float *p, v16f v)
{
    std::memcpy(p, &v, sizeof v);
}
inline v8d load8(const double *p)
{
    v8d v;
    std::memcpy(&v, p, sizeof v);
    return v;
}
inline void store8(double *p, v8d v)
{
    std::memcpy(p, &v, sizeof v);
}
inline v16u bits(v16f v)
{
    return __builtin_bit_cast(v16u, v);
}
inline v16f fromBits(v16u u)
{
    return __builtin_bit_cast(v16f, u);
}
inline v16f splat(float f)
{
    return v16f{} + f;
}
inline v16f absv(v16f v)
{
    return fromBits(bits(v) & 0x7FFFFFFFu);
}
/// The lanes' halves as FP64 (exact).
inline v8d lowD(v16f v)
{
    v8f h;
    std::memcpy(&h, &v, sizeof h);
    return __builtin_convertvector(h, v8d);
}
inline v8d highD(v16f v)
{
    v8f h;
    std::memcpy(&h, reinterpret_cast<const char *>(&v) + sizeof h, sizeof h);
    return __builtin_convertvector(h, v8d);
}

/// fp4::e2m1RoundValue lane by lane: e2m1Value(e2m1Code(v)) for finite v (signed zeros kept).
inline v16f e2m1Round(v16f v)
{
    const v16f a = absv(v), z{}, h = splat(0.5f), one = splat(1.0f), two = splat(2.0f);
    const v16f q = (a > 0.25f ? h : z) + (a >= 0.75f ? h : z) + (a > 1.25f ? h : z) + (a >= 1.75f ? h : z) +
                   (a > 2.5f ? one : z) + (a >= 3.5f ? one : z) + (a > 5.0f ? two : z);
    return fromBits(bits(q) | (bits(v) & 0x80000000u));
}

/// csweep::groupSse(PtrLoad{x}, 32, s) for s > 0 and finite x: err2 of the 32 values in lanes,
/// then the four partial sums (element i into sum i mod 4, in order) and their pairwise total.
inline double groupSse32(const float *x, float s)
{
    double t[32];
    for (int k = 0; k < 2; ++k) {
        const v16f v = load16(x + 16 * k);
        const v16f xh = e2m1Round(v / s) * s;
        const v8d d0 = lowD(v) - lowD(xh), d1 = highD(v) - highD(xh);
        const v8d e0 = d0 * d0, e1 = d1 * d1;
        std::memcpy(t + 16 * k, &e0, sizeof e0);
        std::memcpy(t + 16 * k + 8, &e1, sizeof e1);
    }
    v4d e{};
    for (int i = 0; i < 32; i += 4) {
        v4d ti;
        std::memcpy(&ti, t + i, sizeof ti);
        e = e + ti;
    }
    return (e[0] + e[1]) + (e[2] + e[3]);
}

} // namespace quantscope::lanes
