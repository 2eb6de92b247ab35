// SPDX-License-Identifier: MIT
// The c sweep's exact sums (numeric/fixedsum.h, docs/numerics.md "FP4 constOpt"): the integer
// conversions against long double, order independence of the evaluator, and the MSE against a
// naive FP64 sum.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>
#include <random>

#include "numeric/fixedsum.h"
#include "quant/constopt.h"
#include "quant/constopt_sweep.h"
#include "numeric/csweep_math.h"

using namespace quantscope;

namespace {

long double ldOf(fixed::U128 k)
{
    return std::ldexp(static_cast<long double>(k.hi), 64) + static_cast<long double>(k.lo);
}

std::vector<float> studentT(std::int64_t R, std::int64_t K, std::uint64_t seed)
{
    std::mt19937_64 rng(seed);
    std::student_t_distribution<float> t(3.0f);
    std::vector<float> v(static_cast<std::size_t>(R * K));
    for (auto &x : v)
        x = 0.02f * t(rng);
    return v;
}

bool sameBits(double a, double b)
{
    return std::memcmp(&a, &b, 8) == 0;
}

} // namespace

TEST(FixedSum, ToFixedRoundsToNearestEvenExactly)
{
    std::mt19937_64 rng(7);
    std::uniform_real_distribution<double> mant(1.0, 2.0);
    std::uniform_int_distribution<int> ex(-80, 60);
    for (int i = 0; i < 200000; ++i) {
        const double v = std::ldexp(mant(rng), ex(rng));
        const int u = -60 + static_cast<int>(rng() % 40);
        fixed::U128 k;
        ASSERT_TRUE(fixed::toFixed(v, u, k));
        // The reference: v·2^-u exactly in long double (64-bit mantissa holds it), then RNE.
        const long double s = std::ldexp(static_cast<long double>(v), -u);
        const long double r = std::nearbyintl(s); // FE_TONEAREST
        ASSERT_EQ(ldOf(k), r) << v << " u " << u;
    }
    // Ties go to even; tiny values to 0; non-finite and negative values are refused.
    fixed::U128 k;
    ASSERT_TRUE(fixed::toFixed(2.5, 0, k));
    EXPECT_EQ(k.lo, 2u);
    ASSERT_TRUE(fixed::toFixed(3.5, 0, k));
    EXPECT_EQ(k.lo, 4u);
    ASSERT_TRUE(fixed::toFixed(1e-300, 0, k));
    EXPECT_EQ(k.lo, 0u);
    ASSERT_TRUE(fixed::toFixed(std::ldexp(1.0, 100), 0, k));
    EXPECT_EQ(k.hi, 1ull << 36);
    EXPECT_EQ(k.lo, 0u);
    EXPECT_FALSE(fixed::toFixed(std::numeric_limits<double>::quiet_NaN(), 0, k));
    EXPECT_FALSE(fixed::toFixed(std::numeric_limits<double>::infinity(), 0, k));
    EXPECT_FALSE(fixed::toFixed(-1.0, 0, k));
}

TEST(FixedSum, ToDoubleIsTheCorrectlyRoundedValue)
{
    std::mt19937_64 rng(11);
    for (int i = 0; i < 200000; ++i) {
        fixed::U128 k;
        const int bits = 1 + static_cast<int>(rng() % 125);
        k.lo = rng();
        k.hi = bits > 64 ? (rng() >> (128 - bits)) : 0;
        if (bits <= 64)
            k.lo >>= 64 - bits;
        if (i % 7 == 0) // ties and near-ties: a 53-bit head, then 1000…0 or 0111…1
            k.lo = (k.lo & ~((1ull << 20) - 1)) | (i % 2 ? (1ull << 19) : ((1ull << 19) - 1));
        const int u = -300 + static_cast<int>(rng() % 400);
        const double got = fixed::toDouble(k, u);
        // Reference: the exact value by two exact long double parts, rounded once to double through
        // a 128-bit exact split (hi and lo rounded separately would double-round): compare with the
        // neighbours instead — got must be within half an ulp, ties to even.
        const long double exact = std::ldexp(ldOf(k), u); // 64-bit mantissa: may round, bound below
        const double up = std::nextafter(got, INFINITY), dn = std::nextafter(got, 0.0);
        ASSERT_LE(std::fabs(static_cast<long double>(got) - exact),
                  0.5000001L * std::min(std::fabs(static_cast<long double>(up) - got),
                                        std::fabs(static_cast<long double>(got) - dn)) +
                      std::fabs(exact) * 1e-19L)
            << "bits " << bits;
        if (k.hi == 0 && k.lo < (1ull << 53)) {
            ASSERT_EQ(got, std::ldexp(static_cast<double>(k.lo), u));
        }
    }
    // An exact tie: 2^53 + 1 rounds to 2^53 (even), 2^53 + 3 to 2^53 + 4.
    EXPECT_EQ(fixed::toDouble({(1ull << 53) + 1, 0}, 0), 9007199254740992.0);
    EXPECT_EQ(fixed::toDouble({(1ull << 53) + 3, 0}, 0), 9007199254740996.0);
    // A carry into the next power of two.
    EXPECT_EQ(fixed::toDouble({~0ull, 0}, 0), 18446744073709551616.0);
    EXPECT_EQ(fixed::toDouble({0, 1}, -64), 1.0);
}

TEST(FixedSum, UnitBoundsTheSum)
{
    EXPECT_EQ(fixed::fixedUnit(0.0f, 100), 0);
    EXPECT_EQ(fixed::fixedUnit(1.0f, 0), 0);
    // amax = 1 → floor(log2) = 0; counted = 1024 → 11 bits: u = 11 + 2 − 124.
    EXPECT_EQ(fixed::fixedUnit(1.0f, 1024), 11 + 2 - 124);
    for (float a : {1e-40f, 3e-20f, 0.5f, 7.0f, 3e38f})
        for (std::int64_t n : {std::int64_t{1}, std::int64_t{33}, std::int64_t{1} << 40}) {
            const int u = fixed::fixedUnit(a, n);
            // counted·amax² < 2^(u + 124)
            EXPECT_LT(std::log2(static_cast<long double>(n)) + 2 * std::log2(static_cast<long double>(a)), u + 124.0L);
        }
}

TEST(FixedSum, ScaleAndSseAreConstOpts)
{
    std::mt19937_64 rng(3);
    std::uniform_real_distribution<float> m(0.0f, 3.0f), c(0.01f, 0.5f);
    for (int i = 0; i < 100000; ++i) {
        const float a = m(rng) * std::ldexp(1.0f, static_cast<int>(rng() % 60) - 30), fc = c(rng);
        EXPECT_EQ(csweep::scaleOf(a, fc, true), constOptScale(a, fc, ConstOptEncoder::Pow2));
        EXPECT_EQ(csweep::scaleOf(a, fc, false), constOptScale(a, fc, ConstOptEncoder::Unrounded));
    }
}

/// The evaluator's MSE does not depend on the group order (rows shuffled: the same groups in
/// another order give the same bits) and matches a long double sum of the group SSEs.
TEST(FixedSum, SweepMseIsOrderIndependentAndAccurate)
{
    const std::int64_t R = 64, K = 200, g = 32; // ragged last group of 8
    const auto x = studentT(R, K, 5);
    std::vector<std::int64_t> perm(static_cast<std::size_t>(R));
    std::iota(perm.begin(), perm.end(), 0);
    std::shuffle(perm.begin(), perm.end(), std::mt19937_64(9));
    std::vector<float> y(x.size());
    for (std::int64_t r = 0; r < R; ++r)
        std::copy_n(x.begin() + perm[static_cast<std::size_t>(r)] * K, K, y.begin() + r * K);
    for (const auto enc : {ConstOptEncoder::Pow2, ConstOptEncoder::Unrounded}) {
        const auto a = makeCpuSweepEvaluator(x, R, K, g, enc, 0.05f, 0.4f, 1);
        const auto b = makeCpuSweepEvaluator(y, R, K, g, enc, 0.05f, 0.4f, 3);
        std::vector<double> cs;
        for (int i = 0; i < 50; ++i)
            cs.push_back(0.05 + 0.007 * i);
        const auto ma = a->mse(cs, nullptr), mb = b->mse(cs, nullptr);
        for (std::size_t i = 0; i < cs.size(); ++i) {
            ASSERT_TRUE(sameBits(ma[i], mb[i])) << i;
            const float fc = static_cast<float>(cs[i]);
            EXPECT_TRUE(sameBits(a->mse(fc), ma[i]));
            // Naive: the group SSEs (the same FP64 values) summed in long double.
            long double sum = 0;
            for (std::int64_t r = 0; r < R; ++r)
                for (std::int64_t c0 = 0; c0 < K; c0 += g) {
                    const float *p = x.data() + r * K + c0;
                    const std::int64_t len = std::min(g, K - c0);
                    float mx = 0;
                    for (std::int64_t j = 0; j < len; ++j)
                        mx = std::max(mx, std::fabs(p[j]));
                    sum += csweep::groupSse(csweep::PtrLoad{p}, len,
                                            csweep::scaleOf(mx, fc, enc == ConstOptEncoder::Pow2));
                }
            const double naive = static_cast<double>(sum / static_cast<long double>(R * K));
            EXPECT_NEAR(ma[i], naive, 1e-12 * naive) << toString(enc) << " c " << cs[i];
        }
    }
}

/// An all-zero tensor: every MSE is 0 (u = 0, nothing to add); a NaN group is left out.
TEST(FixedSum, ZeroTensorAndNonFiniteGroup)
{
    const Tensor z = Tensor::fromFloats({4, 64}, std::vector<float>(256, 0.0f));
    CSweepOptions o;
    const auto r = sweepC(z, o);
    for (double m : r.mse)
        EXPECT_EQ(m, 0.0);
    EXPECT_EQ(r.mseAtDefault, 0.0);
    EXPECT_EQ(r.device, "cpu");
    EXPECT_TRUE(r.deviceNote.empty());
    auto x = studentT(4, 64, 2);
    x[70] = std::numeric_limits<float>::quiet_NaN();
    const auto rn = sweepC(Tensor::fromFloats({4, 64}, x), o);
    EXPECT_EQ(rn.nonFiniteGroups, 1);
    EXPECT_EQ(rn.groups, 8);
    for (double m : rn.mse)
        EXPECT_TRUE(std::isfinite(m) && m > 0);
}

/// The GPU kernels' algorithm (gpu/kernels/csweep.cu) emulated on the host with the same shared
/// functions: pow2 — per group the runs of one scale byte over the ascending tile (pow2Runs), each
/// run's k added at its start and subtracted at its end in a per-block 128-bit difference array,
/// blocks added, prefix sum; unrounded — every group at every c. Groups split over "blocks" at
/// random. Must give the CPU evaluator's bits, for fine and coarse grids (bytes skipped between
/// neighbours) and a grid that crosses many bytes.
TEST(FixedSum, DifferenceArrayAlgorithmGivesTheEvaluatorsBits)
{
    const std::int64_t R = 40, K = 200, g = 32;
    auto x = studentT(R, K, 13);
    for (std::int64_t c = 0; c < K; ++c) // a zero row and an outlier column
        x[static_cast<std::size_t>(3 * K + c)] = 0.0f;
    for (std::int64_t r = 0; r < R; ++r)
        x[static_cast<std::size_t>(r * K + 7)] *= 40.0f;
    const std::int64_t perRow = (K + g - 1) / g, G = R * perRow;
    std::vector<float> m(static_cast<std::size_t>(G));
    std::int64_t counted = 0;
    float amax = 0;
    for (std::int64_t i = 0; i < G; ++i) {
        const std::int64_t r = i / perRow, c0 = (i % perRow) * g, len = std::min(g, K - c0);
        float mx = 0;
        for (std::int64_t j = 0; j < len; ++j)
            mx = std::max(mx, std::fabs(x[static_cast<std::size_t>(r * K + c0 + j)]));
        m[static_cast<std::size_t>(i)] = mx;
        counted += len;
        amax = std::max(amax, mx);
    }
    const int unit = fixed::fixedUnit(amax, counted);
    std::mt19937_64 rng(4);
    for (const auto &grid : {std::vector<double>{0.05, 0.0505, 0.051, 0.2, 0.2, 0.21, 0.4}, [] {
                                 std::vector<double> v;
                                 for (int i = 0; i < 300; ++i)
                                     v.push_back(0.001 * std::pow(1.03, i)); // crosses ~13 bytes
                                 return v;
                             }()}) {
        std::vector<float> fc;
        for (double c : grid)
            fc.push_back(static_cast<float>(c));
        const int n = static_cast<int>(fc.size());
        for (const bool pow2 : {true, false}) {
            const int blocks = 5;
            std::vector<std::vector<fixed::U128>> part(blocks, std::vector<fixed::U128>(static_cast<std::size_t>(n)));
            for (std::int64_t i = 0; i < G; ++i) {
                auto &d = part[rng() % blocks];
                const std::int64_t r = i / perRow, c0 = (i % perRow) * g, len = std::min(g, K - c0);
                const csweep::PtrLoad p{x.data() + r * K + c0};
                const float mg = m[static_cast<std::size_t>(i)];
                if (pow2) {
                    csweep::pow2Runs(fc.data(), n, mg, [&](int b, int start, int end) {
                        fixed::U128 k;
                        ASSERT_TRUE(fixed::toFixed(
                            csweep::groupSse(p, len, fp4::e8m0Scale(static_cast<std::uint8_t>(b))), unit, k));
                        d[static_cast<std::size_t>(start)] = fixed::add(d[static_cast<std::size_t>(start)], k);
                        if (end < n)
                            d[static_cast<std::size_t>(end)] =
                                fixed::add(d[static_cast<std::size_t>(end)], fixed::neg(k));
                    });
                } else {
                    for (int j = 0; j < n; ++j) {
                        fixed::U128 k;
                        ASSERT_TRUE(fixed::toFixed(
                            csweep::groupSse(p, len, csweep::scaleOf(mg, fc[static_cast<std::size_t>(j)], false)), unit,
                            k));
                        d[static_cast<std::size_t>(j)] = fixed::add(d[static_cast<std::size_t>(j)], k);
                    }
                }
            }
            fixed::U128 run;
            const auto cpu = makeCpuSweepEvaluator(
                                 x, R, K, g, pow2 ? ConstOptEncoder::Pow2 : ConstOptEncoder::Unrounded, 0.05f, 0.4f, 2)
                                 ->mse(grid, nullptr);
            for (int j = 0; j < n; ++j) {
                fixed::U128 v;
                for (int b = 0; b < blocks; ++b)
                    v = fixed::add(v, part[static_cast<std::size_t>(b)][static_cast<std::size_t>(j)]);
                run = pow2 ? fixed::add(run, v) : v;
                const double got = fixed::mean(run, unit, counted, false);
                EXPECT_TRUE(sameBits(got, cpu[static_cast<std::size_t>(j)]))
                    << (pow2 ? "pow2" : "unrounded") << " c " << grid[static_cast<std::size_t>(j)] << ": " << got
                    << " vs " << cpu[static_cast<std::size_t>(j)];
            }
        }
    }
}

TEST(FixedSum, UnsortedPow2GridHasEachValuesBits)
{
    // The CPU evaluator sorts a pow2 grid given in any order (its difference arrays need ascending
    // c) and puts the values back: each equals the value evaluated alone, duplicates included.
    const std::int64_t R = 24, K = 96;
    const auto x = studentT(R, K, 29);
    const auto ev = makeCpuSweepEvaluator(x, R, K, 32, ConstOptEncoder::Pow2, 0.05f, 0.4f, 2);
    const std::vector<double> grid{0.3, 0.156, 0.05, 0.195, 0.4, 0.156, 0.1, 0.2505, 0.07};
    const auto got = ev->mse(grid, nullptr);
    ASSERT_EQ(got.size(), grid.size());
    for (std::size_t i = 0; i < grid.size(); ++i)
        EXPECT_EQ(std::bit_cast<std::uint64_t>(got[i]),
                  std::bit_cast<std::uint64_t>(ev->mse(static_cast<float>(grid[i]))))
            << "c " << grid[i];
    EXPECT_NE(got[0], got[2]); // the grid spans scales: the values differ
}

TEST(FixedSum, BlockCurvesEqualAnEvaluatorPerBlock)
{
    // The KV lab's per-layer curves come from the all-layer evaluator's table: each block's curve
    // must have the bits of an evaluator built on that block alone (its own fixed-point unit). The
    // blocks differ in scale (so their units differ), and one holds a NaN group (skipped there).
    const std::int64_t blocks = 4, R = 12, K = 64;
    std::vector<float> x;
    for (std::int64_t b = 0; b < blocks; ++b) {
        auto xb = studentT(R, K, 40 + static_cast<std::uint64_t>(b));
        for (float &v : xb)
            v *= std::ldexp(1.0f, static_cast<int>(3 * b) - 4);
        x.insert(x.end(), xb.begin(), xb.end());
    }
    x[static_cast<std::size_t>(2 * R * K + 5)] = std::numeric_limits<float>::quiet_NaN();
    std::vector<double> grid;
    for (int i = 0; i <= 70; ++i)
        grid.push_back(0.05 + 0.005 * i);
    const auto all = makeCpuSweepEvaluator(x, blocks * R, K, 32, ConstOptEncoder::Pow2, 0.05f, 0.4f, 2);
    const auto curves = all->blockCurves(grid, blocks, nullptr);
    ASSERT_EQ(curves.size(), static_cast<std::size_t>(blocks));
    for (std::int64_t b = 0; b < blocks; ++b) {
        const std::span<const float> xb(x.data() + b * R * K, static_cast<std::size_t>(R * K));
        const auto one = makeCpuSweepEvaluator(xb, R, K, 32, ConstOptEncoder::Pow2, 0.05f, 0.4f, 1);
        const auto want = one->mse(grid, nullptr);
        ASSERT_EQ(curves[static_cast<std::size_t>(b)].size(), grid.size());
        for (std::size_t i = 0; i < grid.size(); ++i)
            EXPECT_EQ(std::bit_cast<std::uint64_t>(curves[static_cast<std::size_t>(b)][i]),
                      std::bit_cast<std::uint64_t>(want[i]))
                << "block " << b << ", c " << grid[i];
    }
    EXPECT_NE(curves[0][10], curves[3][10]); // the blocks' scales differ
    // The whole curve from the same walk: the bits of the evaluator's own curve over all rows.
    std::vector<double> whole;
    const auto again = all->blockCurves(grid, blocks, nullptr, &whole);
    const auto wantWhole = all->mse(grid, nullptr);
    ASSERT_EQ(again.size(), static_cast<std::size_t>(blocks));
    ASSERT_EQ(whole.size(), grid.size());
    for (std::size_t i = 0; i < grid.size(); ++i) {
        EXPECT_EQ(std::bit_cast<std::uint64_t>(whole[i]), std::bit_cast<std::uint64_t>(wantWhole[i]))
            << "c " << grid[i];
        EXPECT_EQ(std::bit_cast<std::uint64_t>(again[0][i]), std::bit_cast<std::uint64_t>(curves[0][i]));
    }
    // Not a whole number of blocks, or a descending grid: no curves (the caller evaluates per block).
    EXPECT_TRUE(all->blockCurves(grid, 5, nullptr).empty());
    EXPECT_TRUE(all->blockCurves({0.2, 0.1}, blocks, nullptr).empty());
}
