// SPDX-License-Identifier: MIT
#include "jobs/channel_profile.h"

#include "quant/quantizer.h"

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
    const auto [rows, cols] = matrixView(t.shape());
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

} // namespace quantscope
