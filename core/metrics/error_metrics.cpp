// SPDX-License-Identifier: MIT
#include "metrics/error_metrics.h"

#include <string>

#include "metrics/error_passes.h"
#include "numeric/qmath.h"
#include "util/error.h"

namespace quantscope {

int Histogram::binOf(double x) const
{
    return qmath::histBin(x, lo, hi, static_cast<int>(counts.size()));
}

double percentileFromBins(const std::vector<std::int64_t> &bins, double maxAbs, double p, std::int64_t n)
{
    if (n == 0 || maxAbs == 0)
        return 0.0;
    const double target = p * static_cast<double>(n);
    std::int64_t cum = 0;
    const auto B = static_cast<int>(bins.size());
    for (int b = 0; b < B; ++b) {
        cum += bins[static_cast<std::size_t>(b)];
        if (static_cast<double>(cum) >= target)
            return maxAbs * (b + 1) / B;
    }
    return maxAbs;
}

ErrorMetrics computeErrorMetrics(const Tensor &w, std::span<const float> wHat, const ErrorMetricsOptions &options,
                                 const CancelToken *cancel)
{
    using namespace detail;
    ErrorMetrics m;
    m.numel = w.numel();
    if (static_cast<std::int64_t>(wHat.size()) != m.numel)
        throw UnsupportedError("Ŵ has " + std::to_string(wHat.size()) + " elements, W has " + std::to_string(m.numel));
    const ChunkSplit split = splitIntoChunks(m.numel, options.threads);
    const PowerSumShifts shifts = powerSumShifts(w, wHat);

    const ErrorSums sums = accumulateErrorSums(w, wHat, split, shifts, cancel);
    fillTensorStats(m, sums, shifts, options.miloStd);
    fillErrorScalars(m, sums);

    setupHistograms(m, sums, options);
    countHistograms(m, w, wHat, split, sums.maxAbs, cancel);
    fillPercentiles(m, sums.maxAbs, sums.counted);
    m.overlap = histogramOverlap(m.w, m.wHat, sums.counted);
    return m;
}

} // namespace quantscope
