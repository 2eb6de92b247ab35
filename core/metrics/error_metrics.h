// SPDX-License-Identifier: MIT
#pragma once
/// \file error_metrics.h
/// Error metrics, percentiles and histograms of W vs Ŵ (docs/numerics.md "Metrics"), FP64
/// accumulation. Elements whose W is NaN/Inf are excluded and counted.
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "numeric/moments.h"
#include "tensor/tensor.h"
#include "util/cancel.h"

namespace quantscope {

/// Bins over [lo, hi]: bin = floor((x − lo)·B/(hi − lo)) in FP64, x = hi in the last bin.
/// Values outside [lo, hi] are counted in `below` / `above`, not in a bin. With `symlog` the
/// values and the range are first mapped by sign(x)·log10(1 + |x|/t).
struct Histogram {
    double lo = 0, hi = 0;
    std::vector<std::int64_t> counts;
    std::int64_t below = 0, above = 0;
    bool symlog = false;
    double t = 0; ///< symlog threshold (1e-3·amax of W)

    /// The bin of x (already mapped when symlog), or −1 below / B above.
    int binOf(double x) const;
    /// Left edge of bin i in the (mapped) axis.
    double edge(int i) const { return lo + (hi - lo) * i / static_cast<double>(counts.size()); }
};

struct ErrorMetricsOptions {
    int bins = 256;
    bool symlog = false;
    std::optional<double> lo, hi; ///< histogram range of W and Ŵ (default: min/max of W)
    bool miloStd = false;
    int threads = 0;
};

struct ErrorMetrics {
    std::int64_t numel = 0;
    std::int64_t counted = 0; ///< elements with finite W
    double mse = 0, rmse = 0;
    double sqnrDb = 0;       ///< +inf when the error is 0
    double relFrobenius = 0; ///< ‖W − Ŵ‖ / ‖W‖ (0 for a zero W and zero error)
    double maxAbsErr = 0;
    std::optional<double> cosine; ///< unset for a zero tensor
    double errP50 = 0, errP90 = 0, errP99 = 0, errP999 = 0;
    std::vector<std::int64_t> absErrBins; ///< the 4096-bin |error| histogram over [0, maxAbsErr]
    Histogram w, wHat, err;
    double overlap = 0; ///< Σ min(p_i, q_i) of the W and Ŵ histograms (normalised by count)
    TensorStats statsIn, statsOut;
};

inline constexpr int kPercentileBins = 4096;

/// The percentile rule: upper edge of the first bin where the cumulative count reaches p·n.
double percentileFromBins(const std::vector<std::int64_t> &bins, double maxAbs, double p, std::int64_t n);

/// Metrics of Ŵ (`wHat`, row-major FP32, numel elements) against W.
ErrorMetrics computeErrorMetrics(const Tensor &w, std::span<const float> wHat, const ErrorMetricsOptions &options = {},
                                 const CancelToken *cancel = nullptr);

} // namespace quantscope
