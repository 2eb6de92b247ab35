// SPDX-License-Identifier: MIT
// Exhaustive check of the FP32 encoders (docs/numerics.md "Casts"): all 2^32 input bit patterns
// into BF16, F16, E4M3, E5M2 and E2M1, one test per format so ctest can run them side by side.
//
// The expected codes come from an independent reference in double arithmetic that never calls
// the code under test:
//   round:  e = max(floor(log2 |x|), emin); r = nearbyint(|x| · 2^(p − e)) under FE_TONEAREST;
//           y = r · 2^(e − p)   (p mantissa bits; saturating formats clamp |x| to max first,
//           IEEE formats turn y > max into Inf)
//   encode: the code of y by formula — Inf → the format's Inf code; 0 → 0; y < 2^emin →
//           mantissa y / 2^(emin − p); otherwise exponent field ilogb(y) + bias and mantissa
//           y / 2^(ilogb(y) − p) − 2^p; then the sign bit.
//   NaN:    BF16 0x7FC0, F16 0x7E00, E4M3 0x7F, E5M2 0x7E (sign kept); E2M1 0.
// To keep 5 × 2^32 evaluations cheap, inputs are walked one FP32 binade (sign, exponent field) at
// a time: inside a binade e is constant, so |x| · 2^(p − e) is the 24-bit significand times one
// exact power of two, and the code of every possible r (0 … 2^(p+1)) is tabulated once per binade
// with the formula above. Binades with exponent field 0 (FP32 subnormals) and 255 (Inf/NaN) use
// the per-element reference directly, and a sample of all other inputs checks the binade path
// against the per-element reference.
#include "tensor/convert.h"

#include <algorithm>
#include <atomic>
#include <bit>
#include <cfenv>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <gtest/gtest.h>
#include <limits>
#include <mutex>
#include <thread>
#include <vector>

namespace qs = quantscope;

namespace {

struct Format {
    const char *name;
    int p;                 ///< mantissa bits
    int emin;              ///< exponent of the smallest normal
    int bias;              ///< exponent field = exponent + bias
    double maxFinite;      ///< largest finite value
    bool saturate;         ///< true: clamp to ±max before rounding; false: IEEE overflow to ±Inf
    int signBit;           ///< position of the sign bit in the code
    std::uint32_t infCode; ///< magnitude code of Inf (IEEE formats)
    std::uint32_t nanCode; ///< code for NaN input (sign added when nanKeepsSign)
    bool nanKeepsSign;
    std::uint32_t (*encode)(float); ///< code under test
};

const Format kBf16{
    "BF16", 7, -126, 127, std::ldexp(255.0, 120), false, 15, 0x7F80, 0x7FC0, true, [](float x) -> std::uint32_t {
        return qs::floatToBf16(x);
    }};
const Format kF16{"F16", 10, -14, 15, 65504.0, false, 15, 0x7C00, 0x7E00, true, [](float x) -> std::uint32_t {
                      return qs::floatToF16(x);
                  }};
const Format kE4m3{
    "E4M3", 3, -6, 7, 448.0, true, 7, 0, 0x7F, true, [](float x) -> std::uint32_t {
                       return qs::floatToE4m3(x); }};
const Format kE5m2{
    "E5M2", 2, -14, 15, 57344.0, true, 7, 0, 0x7E, true, [](float x) -> std::uint32_t {
        return qs::floatToE5m2(x); }};
const Format kE2m1{
    "E2M1", 1, 0, 1, 6.0, true, 3, 0, 0x0, false, [](float x) -> std::uint32_t {
                       return qs::floatToE2m1(x); }};

// ---- the reference, per element ----

/// Code (without sign) of a value y that the format represents exactly, or of +Inf.
std::uint32_t encodeMagnitude(double y, const Format &f)
{
    if (std::isinf(y))
        return f.infCode;
    if (y == 0.0)
        return 0;
    const int e = std::ilogb(y);
    if (e < f.emin)
        return static_cast<std::uint32_t>(std::ldexp(y, f.p - f.emin));
    const double mantissa = std::ldexp(y, f.p - e) - std::ldexp(1.0, f.p);
    return (static_cast<std::uint32_t>(e + f.bias) << f.p) | static_cast<std::uint32_t>(mantissa);
}

/// |x| (finite, ≥ 0, already clamped for saturating formats) rounded to the format, RNE.
double roundToFormat(double a, const Format &f)
{
    const int e = a == 0.0 ? f.emin : std::max(std::ilogb(a), f.emin);
    const double y = std::ldexp(std::nearbyint(std::ldexp(a, f.p - e)), e - f.p);
    return (!f.saturate && y > f.maxFinite) ? HUGE_VAL : y;
}

std::uint32_t referenceEncode(std::uint32_t u, const Format &f)
{
    const float x = std::bit_cast<float>(u);
    const bool negative = std::signbit(x);
    const std::uint32_t sign = negative ? (1u << f.signBit) : 0u;
    if (std::isnan(x))
        return f.nanKeepsSign ? (sign | f.nanCode) : f.nanCode;
    double a = std::fabs(static_cast<double>(x));
    if (f.saturate)
        a = std::min(a, f.maxFinite);
    const double y = std::isinf(a) ? HUGE_VAL : roundToFormat(a, f);
    return sign | encodeMagnitude(y, f);
}

// ---- the exhaustive walk ----

struct Mismatch {
    std::uint64_t count = 0;
    std::uint32_t input = 0;
    std::uint32_t expected = 0;
    std::uint32_t got = 0;

    void add(std::uint32_t u, std::uint32_t exp, std::uint32_t g)
    {
        if (count == 0 || u < input) {
            input = u;
            expected = exp;
            got = g;
        }
        ++count;
    }
    void merge(const Mismatch &o)
    {
        if (o.count == 0)
            return;
        if (count == 0 || o.input < input) {
            input = o.input;
            expected = o.expected;
            got = o.got;
        }
        count += o.count;
    }
};

/// All 2^23 inputs of one binade (sign, FP32 exponent field `ef`).
void checkBinade(std::uint32_t sign, std::uint32_t ef, const Format &f, Mismatch &mm,
                 std::vector<std::uint32_t> &codeOfR)
{
    const std::uint32_t base = (sign << 31) | (ef << 23);
    if (ef == 0 || ef == 255) { // FP32 subnormals, Inf/NaN: per-element reference
        for (std::uint32_t frac = 0; frac < (1u << 23); ++frac) {
            const std::uint32_t u = base | frac;
            const std::uint32_t expected = referenceEncode(u, f);
            const std::uint32_t got = f.encode(std::bit_cast<float>(u));
            if (got != expected)
                mm.add(u, expected, got);
        }
        return;
    }
    // |x| = (2^23 + frac) · 2^(ef − 150), the binade's smallest value is 2^(ef − 127).
    const double lowest = std::ldexp(1.0, static_cast<int>(ef) - 127);
    const double clampedLowest = f.saturate ? std::min(lowest, f.maxFinite) : lowest;
    const int e = std::max(std::ilogb(clampedLowest), f.emin);
    // q = |x| · 2^(p − e) = significand · scale (exact); saturating formats clamp q at max's q.
    const double scale = std::ldexp(1.0, static_cast<int>(ef) - 150 + f.p - e);
    const double qClamp = f.saturate ? std::ldexp(f.maxFinite, f.p - e) : HUGE_VAL;
    const std::uint32_t rCount = (1u << (f.p + 1)) + 1; // r ∈ [0, 2^(p+1)]
    codeOfR.resize(rCount);
    const std::uint32_t signCode = sign ? (1u << f.signBit) : 0u;
    for (std::uint32_t r = 0; r < rCount; ++r) {
        double y = std::ldexp(static_cast<double>(r), e - f.p);
        if (!f.saturate && y > f.maxFinite)
            y = HUGE_VAL;
        codeOfR[r] = signCode | encodeMagnitude(y, f);
    }
    for (std::uint32_t frac = 0; frac < (1u << 23); ++frac) {
        const std::uint32_t u = base | frac;
        const double q = std::min(static_cast<double>((1u << 23) | frac) * scale, qClamp);
        const auto r = static_cast<std::uint32_t>(std::nearbyint(q));
        const std::uint32_t expected = codeOfR[r];
        const std::uint32_t got = f.encode(std::bit_cast<float>(u));
        if (got != expected)
            mm.add(u, expected, got);
    }
    // The binade shortcut must agree with the per-element reference (a spread of samples).
    for (std::uint32_t frac = ef * 7919u % 4099u; frac < (1u << 23); frac += 4099u) {
        const std::uint32_t u = base | frac;
        const double q = std::min(static_cast<double>((1u << 23) | frac) * scale, qClamp);
        const std::uint32_t fast = codeOfR[static_cast<std::uint32_t>(std::nearbyint(q))];
        const std::uint32_t slow = referenceEncode(u, f);
        if (fast != slow) {
            ADD_FAILURE() << f.name << ": the binade shortcut disagrees with the reference at 0x" << std::hex << u;
            return;
        }
    }
}

void runExhaustive(const Format &f)
{
    const auto start = std::chrono::steady_clock::now();
    const unsigned nThreads = std::max(1u, std::thread::hardware_concurrency());
    std::atomic<std::uint32_t> next{0};
    std::mutex mutex;
    Mismatch total;
    bool roundingModeSet = true;

    auto worker = [&] {
        // nearbyint rounds in the current mode; the reference's ties-to-even need FE_TONEAREST.
        const bool ok = std::fesetround(FE_TONEAREST) == 0;
        Mismatch local;
        std::vector<std::uint32_t> codeOfR;
        for (std::uint32_t b; (b = next.fetch_add(1)) < 512;)
            checkBinade(b >> 8, b & 0xFFu, f, local, codeOfR);
        std::lock_guard lock(mutex);
        total.merge(local);
        roundingModeSet = roundingModeSet && ok;
    };
    std::vector<std::thread> threads;
    for (unsigned i = 0; i < nThreads; ++i)
        threads.emplace_back(worker);
    for (auto &t : threads)
        t.join();

    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf("[ %s ] 2^32 inputs on %u threads in %.1f s, %llu mismatches\n", f.name, nThreads, seconds,
                static_cast<unsigned long long>(total.count));
    ASSERT_TRUE(roundingModeSet) << "could not select FE_TONEAREST";
    EXPECT_EQ(total.count, 0u) << f.name << ": first mismatch at input 0x" << std::hex << total.input << " ("
                               << std::bit_cast<float>(total.input) << "): expected 0x" << total.expected << ", got 0x"
                               << total.got;
}

// Pins of the reference itself, so a wrong reference cannot silently agree with a wrong encoder.
TEST(ConvertExhaustive, ReferenceSanity)
{
    auto ref = [](float x, const Format &f) { return referenceEncode(std::bit_cast<std::uint32_t>(x), f); };
    EXPECT_EQ(ref(65520.0f, kF16), 0x7C00u);
    EXPECT_EQ(ref(65519.0f, kF16), 0x7BFFu);
    EXPECT_EQ(ref(0x1p-25f, kF16), 0x0000u);
    EXPECT_EQ(ref(-1.0f, kBf16), 0xBF80u);
    EXPECT_EQ(ref(std::numeric_limits<float>::max(), kBf16), 0x7F80u);
    EXPECT_EQ(ref(464.0f, kE4m3), 0x7Eu);
    EXPECT_EQ(ref(-std::numeric_limits<float>::infinity(), kE4m3), 0xFEu);
    EXPECT_EQ(ref(0x1p-9f, kE4m3), 0x01u);
    EXPECT_EQ(ref(15 * 0x1p-10f, kE4m3), 0x08u);
    EXPECT_EQ(ref(-0.0f, kE5m2), 0x80u);
    EXPECT_EQ(ref(7 * 0x1p-17f, kE5m2), 0x04u);
    EXPECT_EQ(ref(2.5f, kE2m1), 0x4u);
    EXPECT_EQ(ref(-5.0f, kE2m1), 0xEu);
    EXPECT_EQ(ref(0.75f, kE2m1), 0x2u);
    EXPECT_EQ(ref(std::numeric_limits<float>::quiet_NaN(), kE2m1), 0x0u);
}

TEST(ConvertExhaustive, Bf16)
{
    runExhaustive(kBf16);
}
TEST(ConvertExhaustive, F16)
{
    runExhaustive(kF16);
}
TEST(ConvertExhaustive, E4m3)
{
    runExhaustive(kE4m3);
}
TEST(ConvertExhaustive, E5m2)
{
    runExhaustive(kE5m2);
}
TEST(ConvertExhaustive, E2m1)
{
    runExhaustive(kE2m1);
}

} // namespace
