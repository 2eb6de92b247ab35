// SPDX-License-Identifier: MIT
#include "results/channel_profile.h"

#include "quant/quantizer.h"
#include "util/error.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <span>

namespace quantscope {

namespace {
/// Elements decoded per step: big enough to amortise the call, small enough to cancel quickly.
constexpr std::int64_t kStepElements = 1 << 20;
} // namespace

void rankChannels(ChannelProfile &profile, int topK)
{
    const auto &a = profile.absmax;
    profile.top.clear();
    profile.median = 0;
    if (a.empty())
        return;
    std::vector<float> sorted(a);
    const auto mid = sorted.begin() + static_cast<std::ptrdiff_t>(sorted.size() / 2);
    std::nth_element(sorted.begin(), mid, sorted.end());
    double median = *mid;
    if (sorted.size() % 2 == 0) {
        const float lower = *std::max_element(sorted.begin(), mid);
        median = 0.5 * (static_cast<double>(lower) + median);
    }
    profile.median = median;

    std::vector<std::int64_t> order(a.size());
    std::iota(order.begin(), order.end(), std::int64_t{0});
    const auto k = std::min<std::size_t>(static_cast<std::size_t>(std::max(topK, 0)), order.size());
    // Ties keep the lower channel first, so the list is the same on every run.
    std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(k), order.end(),
                      [&](std::int64_t x, std::int64_t y) {
                          const float ax = a[static_cast<std::size_t>(x)];
                          const float ay = a[static_cast<std::size_t>(y)];
                          return ax != ay ? ax > ay : x < y;
                      });
    for (std::size_t i = 0; i < k; ++i) {
        const auto c = order[i];
        const float v = a[static_cast<std::size_t>(c)];
        profile.top.push_back({c, v, median > 0 ? static_cast<double>(v) / median : 0.0});
    }
}

ChannelProfiles computeChannelProfiles(const Tensor &t, int topK, const CancelToken *cancel)
{
    // Not a structured binding: clang 14 (the fuzz build) cannot capture one in a lambda.
    const std::int64_t rows = matrixView(t.shape()).first, cols = matrixView(t.shape()).second;
    ChannelProfiles p;
    p.columns.axis = 1;
    p.rows.axis = 0;
    p.columns.absmax.assign(static_cast<std::size_t>(cols), 0.0f);
    p.rows.absmax.assign(static_cast<std::size_t>(rows), 0.0f);
    if (rows > 0 && cols > 0) {
        const std::int64_t rowsPerStep = std::max<std::int64_t>(1, kStepElements / cols);
        std::vector<float> buf(static_cast<std::size_t>(std::min(rows, rowsPerStep) * cols));
        float *colMax = p.columns.absmax.data();
        for (std::int64_t r0 = 0; r0 < rows; r0 += rowsPerStep) {
            if (cancel)
                cancel->check();
            const std::int64_t n = std::min(rowsPerStep, rows - r0);
            std::span<float> chunk(buf.data(), static_cast<std::size_t>(n * cols));
            t.decodeRange(r0 * cols, chunk);
            for (std::int64_t r = 0; r < n; ++r) {
                const float *x = chunk.data() + r * cols;
                float rowMax = 0;
                for (std::int64_t c = 0; c < cols; ++c) {
                    // NaN fails every comparison and ±inf is refused explicitly: finite only.
                    const float v = std::fabs(x[c]);
                    if (v <= std::numeric_limits<float>::max()) {
                        rowMax = v > rowMax ? v : rowMax;
                        colMax[c] = v > colMax[c] ? v : colMax[c];
                    }
                }
                p.rows.absmax[static_cast<std::size_t>(r0 + r)] = rowMax;
            }
        }
    }
    rankChannels(p.columns, topK);
    rankChannels(p.rows, topK);
    return p;
}

namespace {

/// Decodes `t` in row chunks and calls fn(firstRow, rowCount, chunk).
template <typename Fn>
void forRowChunks(const Tensor &t, std::int64_t rows, std::int64_t cols, const CancelToken *cancel, Fn &&fn)
{
    if (rows <= 0 || cols <= 0)
        return;
    const std::int64_t rowsPerStep = std::max<std::int64_t>(1, kStepElements / cols);
    std::vector<float> buf(static_cast<std::size_t>(std::min(rows, rowsPerStep) * cols));
    for (std::int64_t r0 = 0; r0 < rows; r0 += rowsPerStep) {
        if (cancel)
            cancel->check();
        const std::int64_t n = std::min(rowsPerStep, rows - r0);
        std::span<float> chunk(buf.data(), static_cast<std::size_t>(n * cols));
        t.decodeRange(r0 * cols, chunk);
        fn(r0, n, chunk);
    }
}

bool finite(float v)
{
    return std::fabs(v) <= std::numeric_limits<float>::max();
}

/// Moments' excess kurtosis from central sums (the convention of numeric/moments.cpp).
double kurtosisOf(double count, double s2, double s4)
{
    if (count < 1)
        return std::numeric_limits<double>::quiet_NaN();
    const double m2 = s2 / count, m4 = s4 / count;
    if (!(m2 > 0))
        return std::numeric_limits<double>::quiet_NaN();
    return m4 / (m2 * m2) - 3.0;
}

} // namespace

ChannelKurtosis computeChannelKurtosis(const Tensor &t, const CancelToken *cancel)
{
    // Not a structured binding: clang 14 (the fuzz build) cannot capture one in a lambda.
    const std::int64_t rows = matrixView(t.shape()).first, cols = matrixView(t.shape()).second;
    const auto R = static_cast<std::size_t>(std::max<std::int64_t>(rows, 0));
    const auto C = static_cast<std::size_t>(std::max<std::int64_t>(cols, 0));
    // Pass 1: counts and sums (means); pass 2: central sums of squares and fourth powers.
    std::vector<double> rCount(R), rSum(R), cCount(C), cSum(C);
    forRowChunks(t, rows, cols, cancel, [&](std::int64_t r0, std::int64_t n, std::span<float> x) {
        for (std::int64_t r = 0; r < n; ++r) {
            const float *row = x.data() + r * cols;
            double cnt = 0, sum = 0;
            for (std::size_t c = 0; c < C; ++c)
                if (finite(row[c])) {
                    cnt += 1;
                    sum += row[c];
                    cCount[c] += 1;
                    cSum[c] += row[c];
                }
            rCount[static_cast<std::size_t>(r0 + r)] = cnt;
            rSum[static_cast<std::size_t>(r0 + r)] = sum;
        }
    });
    std::vector<double> rMean(R), cMean(C);
    for (std::size_t i = 0; i < R; ++i)
        rMean[i] = rCount[i] > 0 ? rSum[i] / rCount[i] : 0.0;
    for (std::size_t i = 0; i < C; ++i)
        cMean[i] = cCount[i] > 0 ? cSum[i] / cCount[i] : 0.0;
    std::vector<double> r2(R), r4(R), c2(C), c4(C);
    forRowChunks(t, rows, cols, cancel, [&](std::int64_t r0, std::int64_t n, std::span<float> x) {
        for (std::int64_t r = 0; r < n; ++r) {
            const float *row = x.data() + r * cols;
            const auto ri = static_cast<std::size_t>(r0 + r);
            const double mu = rMean[ri];
            double s2 = 0, s4 = 0;
            for (std::size_t c = 0; c < C; ++c)
                if (finite(row[c])) {
                    const double v = row[c];
                    const double d = v - mu, d2 = d * d;
                    s2 += d2;
                    s4 += d2 * d2;
                    const double e = v - cMean[c], e2 = e * e;
                    c2[c] += e2;
                    c4[c] += e2 * e2;
                }
            r2[ri] = s2;
            r4[ri] = s4;
        }
    });
    ChannelKurtosis k;
    k.rows.resize(R);
    k.columns.resize(C);
    for (std::size_t i = 0; i < R; ++i)
        k.rows[i] = kurtosisOf(rCount[i], r2[i], r4[i]);
    for (std::size_t i = 0; i < C; ++i)
        k.columns[i] = kurtosisOf(cCount[i], c2[i], c4[i]);
    return k;
}

ChannelKurtosis channelKurtosisFromSums(const ChannelMomentSums &s)
{
    if (s.rowS2.size() != s.rowCount.size() || s.rowS4.size() != s.rowCount.size() ||
        s.colS2.size() != s.colCount.size() || s.colS4.size() != s.colCount.size())
        throw UnsupportedError("channel moment sums of unequal lengths");
    ChannelKurtosis k;
    k.rows.resize(s.rowCount.size());
    k.columns.resize(s.colCount.size());
    for (std::size_t i = 0; i < k.rows.size(); ++i)
        k.rows[i] = kurtosisOf(s.rowCount[i], s.rowS2[i], s.rowS4[i]);
    for (std::size_t i = 0; i < k.columns.size(); ++i)
        k.columns[i] = kurtosisOf(s.colCount[i], s.colS2[i], s.colS4[i]);
    return k;
}

std::vector<double> rowRelativeErrors(const Tensor &w, std::span<const float> wHat, const CancelToken *cancel)
{
    // Not a structured binding: clang 14 (the fuzz build) cannot capture one in a lambda.
    const std::int64_t rows = matrixView(w.shape()).first, cols = matrixView(w.shape()).second;
    if (static_cast<std::int64_t>(wHat.size()) != rows * cols)
        throw UnsupportedError("rowRelativeErrors: W and its dequantized values differ in size");
    std::vector<double> out(static_cast<std::size_t>(std::max<std::int64_t>(rows, 0)));
    forRowChunks(w, rows, cols, cancel, [&](std::int64_t r0, std::int64_t n, std::span<float> x) {
        for (std::int64_t r = 0; r < n; ++r) {
            const float *a = x.data() + r * cols;
            const float *b = wHat.data() + (r0 + r) * cols;
            double num = 0, den = 0;
            for (std::int64_t c = 0; c < cols; ++c)
                if (finite(a[c]) && finite(b[c])) {
                    const double d = static_cast<double>(a[c]) - b[c];
                    num += d * d;
                    den += static_cast<double>(a[c]) * a[c];
                }
            out[static_cast<std::size_t>(r0 + r)] =
                den > 0 ? std::sqrt(num / den) : std::numeric_limits<double>::quiet_NaN();
        }
    });
    return out;
}

} // namespace quantscope
