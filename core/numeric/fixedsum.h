// SPDX-License-Identifier: MIT
#pragma once
/// \file fixedsum.h
/// Exact, order-independent sums of non-negative FP64 values (the constOpt c sweep's MSEs,
/// docs/numerics.md "FP4 constOpt"): each value v is turned into the integer k = RNE(v·2^-u)
/// (an exact power-of-two scaling, then one rounding to an integer), the k are added in unsigned
/// 128-bit integers (exact: any order, any split over threads or GPU blocks gives the same bits),
/// and the total goes back to FP64 as (double)(Σk)·2^u with one rounding (round to nearest even).
/// The unit u is chosen once from a bound of the total (fixedUnit), so Σk < 2^125 never wraps.
/// Integer operations only (QS_HD): the CPU reference and the GPU kernels share these functions.
#include <cstdint>

#include "numeric/fp4math.h"
#include "numeric/qmath.h"

namespace quantscope::fixed {

/// An unsigned 128-bit integer (two 64-bit words; arithmetic modulo 2^128).
struct U128 {
    std::uint64_t lo = 0, hi = 0;
};

QS_HD inline U128 add(U128 a, U128 b)
{
    U128 r;
    r.lo = a.lo + b.lo;
    r.hi = a.hi + b.hi + (r.lo < a.lo ? 1u : 0u);
    return r;
}
/// −a modulo 2^128 (difference arrays add it at the end of a range).
QS_HD inline U128 neg(U128 a)
{
    U128 r;
    r.lo = ~a.lo + 1u;
    r.hi = ~a.hi + (a.lo == 0 ? 1u : 0u);
    return r;
}
QS_HD inline bool operator==(U128 a, U128 b)
{
    return a.lo == b.lo && a.hi == b.hi;
}

/// The unit exponent u of a sum of per-group squared errors whose every element error satisfies
/// (x − x̂)² ≤ x² (up to rounding): with `counted` elements of magnitude ≤ amax, the total is at most
/// counted·amax² < 2^(bitlen(counted) + 2·(floor(log2 amax) + 1)), so u = that exponent − 124 keeps
/// Σk below 2^124 (times 1 + 2^-20 for the rounding of x̂ and of the FP64 sums: < 2^125). amax = 0
/// or counted = 0: u = 0 (every value is 0).
QS_HD inline int fixedUnit(float amax, std::int64_t counted)
{
    if (!(amax > 0.0f) || counted <= 0 || !qmath::isFinite(amax))
        return 0;
    int bits = 0;
    for (std::uint64_t c = static_cast<std::uint64_t>(counted); c; c >>= 1)
        ++bits;
    return bits + 2 * (fp4::floorLog2(amax) + 1) - 124;
}

QS_HD inline std::uint64_t dbitsOf(double d)
{
    std::uint64_t u;
    __builtin_memcpy(&u, &d, 8);
    return u;
}
QS_HD inline double dOfBits(std::uint64_t u)
{
    double d;
    __builtin_memcpy(&d, &u, 8);
    return d;
}

/// k = RNE(v·2^-u) of a finite v ≥ 0 with v·2^-u < 2^127 (fixedUnit guarantees it for the
/// sweep's group SSEs); bit operations only. Returns false (k = 0) for v < 0, NaN, Inf or a value
/// beyond the bound: the sweep then reports NaN for that c (only an unrounded scale c·m that
/// overflows FP32 produces one).
QS_HD inline bool toFixed(double v, int u, U128 &k)
{
    k = U128{};
    const std::uint64_t b = dbitsOf(v);
    if (b == 0)
        return true;
    const int field = static_cast<int>((b >> 52) & 0x7FF);
    if ((b >> 63) || field == 0x7FF)
        return false;
    // v = mant · 2^e, mant < 2^53.
    const std::uint64_t mant = (b & 0x000FFFFFFFFFFFFFull) | (field ? (1ull << 52) : 0ull);
    const int e = (field ? field : 1) - 1075;
    const int shift = e - u; // k = mant · 2^shift, rounded to an integer
    if (shift >= 0) {
        if (shift > 127 - 53)
            return false;
        if (shift >= 64) {
            k.hi = mant << (shift - 64);
        } else {
            k.lo = mant << shift;
            k.hi = shift ? (mant >> (64 - shift)) : 0;
        }
        return true;
    }
    const int rs = -shift;
    if (rs > 54) // below half a unit: 0
        return true;
    const std::uint64_t q = mant >> rs;
    const std::uint64_t rem = mant & ((1ull << rs) - 1);
    const std::uint64_t half = 1ull << (rs - 1);
    k.lo = q + ((rem > half || (rem == half && (q & 1u))) ? 1u : 0u);
    return true;
}

/// k·2^u as FP64 with one rounding (nearest even); u as fixedUnit gives it, so the result is a
/// normal number or 0 (k < 2^125, u ≥ −(2·149 + 124) > −1022 + 128).
QS_HD inline double toDouble(U128 k, int u)
{
    if (k.lo == 0 && k.hi == 0)
        return 0.0;
    // Position p of the top bit.
    int p = 0;
    if (k.hi) {
        for (std::uint64_t h = k.hi; h >>= 1;)
            ++p;
        p += 64;
    } else {
        for (std::uint64_t l = k.lo; l >>= 1;)
            ++p;
    }
    std::uint64_t m; // the 53 top bits
    bool roundUp = false;
    if (p <= 52) {
        m = k.lo << (52 - p);
    } else {
        const int s = p - 52; // bits dropped, 1 … 75
        // m = k >> s; rest = k mod 2^s compared with 2^(s−1).
        if (s >= 64) {
            m = k.hi >> (s - 64);
        } else {
            m = (k.lo >> s) | (k.hi << (64 - s));
        }
        // The dropped bits: the top one (guard) and whether any below it is set (sticky).
        const int g = s - 1;
        const bool guard = g >= 64 ? ((k.hi >> (g - 64)) & 1u) : ((k.lo >> g) & 1u);
        bool sticky;
        if (g >= 64)
            sticky = k.lo != 0 || (g > 64 && (k.hi & ((1ull << (g - 64)) - 1)) != 0);
        else
            sticky = g > 0 && (k.lo & ((1ull << g) - 1)) != 0;
        roundUp = guard && (sticky || (m & 1u));
    }
    if (roundUp) {
        ++m;
        if (m == (1ull << 53)) {
            m >>= 1;
            ++p;
        }
    }
    // value = m · 2^(p − 52 + u), m in [2^52, 2^53).
    const int exp = p + u + 1023;
    return dOfBits((static_cast<std::uint64_t>(exp) << 52) | (m & 0x000FFFFFFFFFFFFFull));
}

/// The sweep's MSE: (Σk·2^u) / counted (FP64 division); 0 when nothing is counted, NaN when a
/// value did not convert (`bad`).
QS_HD inline double mean(U128 k, int u, std::int64_t counted, bool bad)
{
    if (bad)
        return dOfBits(0x7FF8000000000000ull);
    if (counted <= 0)
        return 0.0;
    return qmath::ddiv(toDouble(k, u), static_cast<double>(counted));
}

} // namespace quantscope::fixed
