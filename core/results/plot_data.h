// SPDX-License-Identifier: MIT
#pragma once
/// \file plot_data.h
/// What the plots draw, prepared off the UI thread: x/y series with one point per histogram bin
/// or per channel. A plot widget hands these to its graphs as they are.
#include "results/channel_profile.h"
#include "metrics/error_metrics.h"

#include <cstdint>
#include <vector>

namespace quantscope {

/// Points in ascending x.
struct Series {
    std::vector<double> x, y;
    std::size_t size() const noexcept { return x.size(); }
};

/// The distribution of one quantization: W and Ŵ over the same bins, their shared area and the
/// error histogram. With `symlog` the x of `w`, `wHat` and `overlap` are mapped values
/// (sign(x)·log10(1 + |x|/t)); symlogInverse() turns them back for axis labels.
struct DistributionData {
    Series w, wHat, overlap, err;
    double binWidth = 0, errBinWidth = 0; ///< in the (mapped) axis
    bool symlog = false;
    double t = 0;
    std::int64_t wHatBelow = 0, wHatAbove = 0; ///< Ŵ outside W's range (in no bin)
    double overlapFraction = 0;                ///< ErrorMetrics::overlap
};

/// Bin centres and counts.
Series histogramSeries(const Histogram &h);
/// min(W_i, Ŵ_i) per bin (the histograms must share their bins).
Series overlapSeries(const Histogram &w, const Histogram &wHat);
/// Everything the Distribution view draws for one result.
DistributionData prepareDistribution(const ErrorMetrics &m);
/// Channel index (x) against absmax (y); and the outlier channels alone.
Series channelSeries(const ChannelProfile &p);
Series outlierSeries(const ChannelProfile &p);

/// sign(x)·log10(1 + |x|/t) and its inverse.
double symlogForward(double x, double t);
double symlogInverse(double y, double t);

} // namespace quantscope
