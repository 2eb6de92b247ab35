// SPDX-License-Identifier: MIT
#pragma once
/// \file error_passes.h
/// The passes of computeErrorMetrics (error_metrics.h), one function each; internal to
/// core/metrics (error_metrics.cpp sequences them). Both data passes walk W and Ŵ in chunks of
/// kErrorChunk elements with the same split of chunks over threads (ChunkSplit), so the FP64
/// sums come out the same on every call, and the histogram counts (integers) are exact whatever
/// the split.
///
/// Order: powerSumShifts → accumulateErrorSums (pass 1) → fillTensorStats, fillErrorScalars →
/// setupHistograms → countHistograms (pass 2) → fillPercentiles, histogramOverlap.
#include <cstdint>
#include <limits>
#include <span>

#include "metrics/error_metrics.h"
#include "tensor/tensor.h"
#include "util/cancel.h"

namespace quantscope::detail {

/// Elements decoded at a time: the unit of the thread split and of the cancellation checks.
inline constexpr std::int64_t kErrorChunk = 1 << 14;
/// Independent FP64 accumulators per sum: element i of a chunk feeds lane i mod kSumLanes.
inline constexpr int kSumLanes = 4;

/// How n elements are cut into chunks, and the chunks into `parts` thread slices.
struct ChunkSplit {
    std::int64_t n = 0;
    std::int64_t chunks = 0;
    int parts = 1;
};

/// The split both passes use: ⌈n / kErrorChunk⌉ chunks over min(chunks, threads) slices (at
/// least one); `threads` as ErrorMetricsOptions::threads (0: hardware concurrency).
ChunkSplit splitIntoChunks(std::int64_t n, int threads);

/// The values subtracted before the power sums (a guard against cancellation in the central
/// moments): the means of the finite values among the first ≤ 4096 elements of W and of Ŵ.
struct PowerSumShifts {
    double x = 0, y = 0;
};
PowerSumShifts powerSumShifts(const Tensor &w, std::span<const float> wHat);

/// Σd, Σd², Σd³, Σd⁴ of d = v − shift, in kSumLanes lanes.
struct PowerSums {
    double s1[kSumLanes] = {}, s2[kSumLanes] = {}, s3[kSumLanes] = {}, s4[kSumLanes] = {};
    /// The lanes of one sum added in lane order.
    double total(const double (&a)[kSumLanes]) const
    {
        double t = 0;
        for (double v : a)
            t += v;
        return t;
    }
};

/// What pass 1 gathers over all elements. Power sums stay in lanes (merged lane by lane over
/// the thread slices); the error sums are merged as each slice's lane total.
struct ErrorSums {
    std::int64_t counted = 0; ///< pairs with W and Ŵ both finite
    std::int64_t xNan = 0, xInf = 0, yNan = 0, yInf = 0, yFinite = 0;
    PowerSums px, py;                       ///< of finite W around shift x, of finite Ŵ around shift y
    double se = 0, sx = 0, sy = 0, sxy = 0; ///< Σe², Σx², Σy², Σx·y over the counted pairs
    float xmin = std::numeric_limits<float>::infinity(), xmax = -std::numeric_limits<float>::infinity();
    float ymin = std::numeric_limits<float>::infinity(), ymax = -std::numeric_limits<float>::infinity();
    /// Extremes of e = W − Ŵ over the counted pairs (±inf, 0 when there are none).
    double emin = std::numeric_limits<double>::infinity(), emax = -std::numeric_limits<double>::infinity();
    double maxAbs = 0;
};

/// Pass 1 (FP64): error sums, power sums of W and Ŵ, extremes and non-finite counts. Chunks
/// whose values are all finite take a 4-lane vector path that adds in the same lanes and order
/// as the scalar path.
ErrorSums accumulateErrorSums(const Tensor &w, std::span<const float> wHat, const ChunkSplit &split,
                              const PowerSumShifts &shifts, const CancelToken *cancel);

/// statsIn (W) and statsOut (Ŵ) from pass 1's counts, extremes and power sums.
void fillTensorStats(ErrorMetrics &m, const ErrorSums &sums, const PowerSumShifts &shifts, bool miloStd);

/// counted, mse, rmse, SQNR, relative Frobenius error, max |error| and cosine from pass 1's sums.
void fillErrorScalars(ErrorMetrics &m, const ErrorSums &sums);

/// Ranges and zeroed bins of the W, Ŵ and error histograms and of the |error| percentile bins
/// (needs statsIn: the default W range and the symlog threshold come from it).
void setupHistograms(ErrorMetrics &m, const ErrorSums &sums, const ErrorMetricsOptions &options);

/// Pass 2: counts the W, Ŵ and error histograms and the kPercentileBins |error| bins over
/// [0, maxAbs] (set up by setupHistograms), for the pairs with W and Ŵ finite.
void countHistograms(ErrorMetrics &m, const Tensor &w, std::span<const float> wHat, const ChunkSplit &split,
                     double maxAbs, const CancelToken *cancel);

/// errP50 … errP999 from the |error| bins (percentileFromBins over `counted` pairs).
void fillPercentiles(ErrorMetrics &m, double maxAbs, std::int64_t counted);

/// Σ min(p_i, q_i) of two histograms with the same bins, normalised by `counted` (0 for none).
double histogramOverlap(const Histogram &a, const Histogram &b, std::int64_t counted);

} // namespace quantscope::detail
