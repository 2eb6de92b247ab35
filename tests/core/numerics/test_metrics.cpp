// SPDX-License-Identifier: MIT
// Error metrics, percentiles and histograms against plain reimplementations of docs/numerics.md.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "metrics/error_metrics.h"
#include "quant/uniform.h"
#include "tensor/convert.h"

#include <cstring>

using namespace quantscope;

namespace {

std::vector<float> noisy(std::size_t n, std::uint64_t seed, std::vector<float> &approx)
{
    std::mt19937_64 rng(seed);
    std::normal_distribution<float> nd(0.0f, 1.0f);
    std::vector<float> x(n);
    approx.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
        x[i] = nd(rng);
        approx[i] = std::round(x[i] * 4.0f) / 4.0f; // a crude quantizer
    }
    return x;
}

} // namespace

TEST(Metrics, MatchPlainFormulas)
{
    std::vector<float> y;
    const auto x = noisy(100'003, 9, y);
    const auto m = computeErrorMetrics(Tensor::fromFloats({100'003}, x), y);
    long double se = 0, sx = 0, sy = 0, sxy = 0, mx = 0;
    for (std::size_t i = 0; i < x.size(); ++i) {
        const long double e = static_cast<long double>(x[i]) - y[i];
        se += e * e;
        sx += static_cast<long double>(x[i]) * x[i];
        sy += static_cast<long double>(y[i]) * y[i];
        sxy += static_cast<long double>(x[i]) * y[i];
        mx = std::max(mx, std::fabs(e));
    }
    const double n = static_cast<double>(x.size());
    EXPECT_NEAR(m.mse / static_cast<double>(se / n), 1.0, 1e-12);
    EXPECT_NEAR(m.rmse, std::sqrt(static_cast<double>(se / n)), 1e-12);
    EXPECT_NEAR(m.sqnrDb, 10 * std::log10(static_cast<double>(sx / se)), 1e-9);
    EXPECT_NEAR(m.relFrobenius, std::sqrt(static_cast<double>(se / sx)), 1e-12);
    EXPECT_NEAR(*m.cosine, static_cast<double>(sxy / std::sqrt(sx * sy)), 1e-12);
    EXPECT_EQ(m.maxAbsErr, static_cast<double>(mx));
    EXPECT_EQ(m.counted, 100'003);
}

TEST(Metrics, PercentilesFollowThe4096BinRule)
{
    std::vector<float> y;
    const auto x = noisy(50'000, 4, y);
    const auto m = computeErrorMetrics(Tensor::fromFloats({50'000}, x), y);
    // Reference: bin |e| into 4096 bins over [0, max], take the upper edge of the bin where the
    // cumulative count first reaches p·n.
    std::vector<long> bins(4096, 0);
    double mx = 0;
    for (std::size_t i = 0; i < x.size(); ++i)
        mx = std::max(mx, std::abs(static_cast<double>(x[i]) - y[i]));
    for (std::size_t i = 0; i < x.size(); ++i) {
        const double a = std::abs(static_cast<double>(x[i]) - y[i]);
        ++bins[std::min<long>(4095, static_cast<long>(std::floor(a * 4096 / mx)))];
    }
    auto pct = [&](double p) {
        long cum = 0;
        for (int b = 0; b < 4096; ++b) {
            cum += bins[b];
            if (cum >= p * 50'000)
                return mx * (b + 1) / 4096;
        }
        return mx;
    };
    EXPECT_EQ(m.errP50, pct(0.5));
    EXPECT_EQ(m.errP90, pct(0.9));
    EXPECT_EQ(m.errP99, pct(0.99));
    EXPECT_EQ(m.errP999, pct(0.999));
    EXPECT_LE(m.errP50, m.errP90);
    EXPECT_LE(m.errP999, m.maxAbsErr);
    // Uniform error on [0, 0.125]: the median is near 0.0625.
    EXPECT_NEAR(m.errP50, 0.0625, 0.002);
}

TEST(Metrics, HistogramsUseTheExactBinRuleAndSharedRange)
{
    std::vector<float> x{-1.0f, -0.5f, 0.0f, 0.25f, 1.0f};
    std::vector<float> y{-1.25f, -0.5f, 0.0f, 0.5f, 1.0f}; // −1.25 is below W's range
    ErrorMetricsOptions o;
    o.bins = 4;
    const auto m = computeErrorMetrics(Tensor::fromFloats({5}, x), y, o);
    EXPECT_EQ(m.w.lo, -1.0);
    EXPECT_EQ(m.w.hi, 1.0);
    // floor((x − lo)·4/2): −1 → 0, −0.5 → 1, 0 → 2, 0.25 → 2, 1 (= hi) → last bin 3.
    EXPECT_EQ(m.w.counts, (std::vector<std::int64_t>{1, 1, 2, 1}));
    EXPECT_EQ(m.wHat.counts, (std::vector<std::int64_t>{0, 1, 1, 2}));
    EXPECT_EQ(m.wHat.below, 1);
    // Overlap = Σ min(p, q) over the normalised counts: (0 + 1 + 1 + 1)/5.
    EXPECT_DOUBLE_EQ(m.overlap, 3.0 / 5.0);
    // Error histogram over [min e, max e] = [−0.25, 0.25].
    EXPECT_EQ(m.err.lo, -0.25);
    EXPECT_EQ(m.err.hi, 0.25);
    std::int64_t total = 0;
    for (auto c : m.err.counts)
        total += c;
    EXPECT_EQ(total, 5);
}

TEST(Metrics, ExactAndDegenerateCases)
{
    std::vector<float> x{1, 2, 3};
    const auto same = computeErrorMetrics(Tensor::fromFloats({3}, x), x);
    EXPECT_TRUE(std::isinf(same.sqnrDb));
    EXPECT_EQ(same.relFrobenius, 0.0);
    EXPECT_DOUBLE_EQ(*same.cosine, 1.0);
    EXPECT_DOUBLE_EQ(same.overlap, 1.0);
    EXPECT_EQ(same.errP99, 0.0);
    std::vector<float> z(3, 0.0f);
    const auto zero = computeErrorMetrics(Tensor::fromFloats({3}, z), z);
    EXPECT_FALSE(zero.cosine.has_value());
    EXPECT_EQ(zero.relFrobenius, 0.0);
    // NaN in W: excluded and counted in the input stats.
    std::vector<float> n{1, std::numeric_limits<float>::quiet_NaN(), 3};
    const auto nan = computeErrorMetrics(Tensor::fromFloats({3}, n), std::vector<float>{1, 0, 2});
    EXPECT_EQ(nan.counted, 2);
    EXPECT_EQ(nan.statsIn.nanCount, 1);
    EXPECT_DOUBLE_EQ(nan.mse, 0.5);
    EXPECT_THROW(computeErrorMetrics(Tensor::fromFloats({3}, x), std::vector<float>{1, 2}), Error);
}

TEST(Metrics, ThreadCountDoesNotChangeAnyBit)
{
    // The sums are kept per chunk and merged in chunk order: every metric is the same bits for
    // any thread count (a 2-thread scan line equals a 16-core machine's run of the same tensor).
    std::vector<float> y;
    const auto x = noisy(300'000, 77, y);
    ErrorMetricsOptions a;
    a.threads = 1;
    const auto m1 = computeErrorMetrics(Tensor::fromFloats({300'000}, x), y, a);
    for (int threads : {2, 3, 4, 7, 16}) {
        ErrorMetricsOptions b;
        b.threads = threads;
        const auto m = computeErrorMetrics(Tensor::fromFloats({300'000}, x), y, b);
        SCOPED_TRACE(threads);
        EXPECT_EQ(m1.w.counts, m.w.counts);
        EXPECT_EQ(m1.absErrBins, m.absErrBins);
        EXPECT_EQ(m1.errP99, m.errP99);
        EXPECT_EQ(m1.mse, m.mse);
        EXPECT_EQ(m1.sqnrDb, m.sqnrDb);
        EXPECT_EQ(m1.relFrobenius, m.relFrobenius);
        EXPECT_EQ(m1.cosine, m.cosine);
        EXPECT_EQ(m1.statsIn.mean, m.statsIn.mean);
        EXPECT_EQ(m1.statsIn.excessKurtosis, m.statsIn.excessKurtosis);
        EXPECT_EQ(m1.statsOut.std, m.statsOut.std);
    }
}

TEST(Metrics, SymlogMapsValuesAndRange)
{
    std::vector<float> x{-10.0f, 0.0f, 10.0f};
    ErrorMetricsOptions o;
    o.symlog = true;
    o.bins = 2;
    const auto m = computeErrorMetrics(Tensor::fromFloats({3}, x), x, o);
    EXPECT_TRUE(m.w.symlog);
    EXPECT_DOUBLE_EQ(m.w.t, 1e-2);
    EXPECT_DOUBLE_EQ(m.w.hi, std::log10(1.0 + 10.0 / 1e-2));
    EXPECT_EQ(m.w.counts, (std::vector<std::int64_t>{1, 2}));
}

TEST(Metrics, Bf16HistogramsMatchNaiveBinningIncludingEdges)
{
    // BF16 W (counted per code) and values placed exactly on bin edges: counts must equal a
    // naive per-element binning with the formula floor(((x − lo)·B)/(hi − lo)) in FP64.
    const int n = 70'001;
    std::mt19937_64 rng(5);
    std::normal_distribution<float> nd(0.0f, 1.0f);
    std::vector<std::byte> raw(static_cast<std::size_t>(n) * 2);
    std::vector<float> x(n), y(n);
    for (int i = 0; i < n; ++i) {
        float v = nd(rng);
        if (i % 97 == 0)
            v = -4.0f + 8.0f * static_cast<float>(i % 256) / 256.0f; // on the edges of [−4, 4]
        const std::uint16_t h = floatToBf16(v);
        std::memcpy(raw.data() + 2 * i, &h, 2);
        x[i] = bf16ToFloat(h);
        y[i] = std::round(x[i] * 8.0f) / 8.0f;
    }
    ErrorMetricsOptions o;
    o.lo = -4.0;
    o.hi = 4.0;
    for (int threads : {1, 2}) {
        o.threads = threads;
        const auto m = computeErrorMetrics(Tensor::fromBytes(DType::BF16, {n}, raw), y, o);
        std::vector<std::int64_t> w(256, 0), wh(256, 0), e(256, 0);
        std::int64_t wOut = 0, whOut = 0;
        auto bin = [](double v, double lo, double hi, int B) -> int {
            if (v < lo || v > hi)
                return -1;
            if (v == hi)
                return B - 1;
            return std::min(B - 1, static_cast<int>(std::floor((v - lo) * B / (hi - lo))));
        };
        for (int i = 0; i < n; ++i) {
            const int a = bin(x[i], -4, 4, 256), b = bin(y[i], -4, 4, 256);
            a < 0 ? ++wOut : ++w[a];
            b < 0 ? ++whOut : ++wh[b];
            ++e[bin(static_cast<double>(x[i]) - y[i], m.err.lo, m.err.hi, 256)];
        }
        EXPECT_EQ(m.w.counts, w);
        EXPECT_EQ(m.wHat.counts, wh);
        EXPECT_EQ(m.err.counts, e);
        EXPECT_EQ(m.w.below + m.w.above, wOut);
        EXPECT_EQ(m.wHat.below + m.wHat.above, whOut);
    }
}
