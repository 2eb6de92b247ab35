// SPDX-License-Identifier: MIT
#pragma once
/// \file channel_profile.h
/// Per-channel absolute maxima of a tensor seen as the 2-D matrix the quantizers use
/// ([rows, cols], quant/quantizer.h matrixView), and the channels that stand out from the rest.
/// Outlier input channels (columns) are what per-channel and per-group scales fight with.
#include "tensor/tensor.h"
#include "util/cancel.h"

#include <cstdint>
#include <span>
#include <vector>

namespace quantscope {

/// One channel far above the typical one.
struct OutlierChannel {
    std::int64_t index = 0;
    float absmax = 0;
    double ratio = 0; ///< absmax / median channel absmax (0 when the median is 0)
};

struct ChannelProfile {
    int axis = 1;                    ///< 1: input channels (columns), 0: output channels (rows)
    std::vector<float> absmax;       ///< max |x| over the finite elements of each channel (0 if none)
    double median = 0;               ///< median of `absmax`
    std::vector<OutlierChannel> top; ///< the largest `absmax` first
};

struct ChannelProfiles {
    ChannelProfile columns; ///< axis 1
    ChannelProfile rows;    ///< axis 0
};

/// Both profiles in one pass over the elements. `topK` channels are listed per axis.
/// Throws Cancelled when `cancel` fires, UnsupportedError for dtypes without decoding.
ChannelProfiles computeChannelProfiles(const Tensor &t, int topK = 8, const CancelToken *cancel = nullptr);

/// Per-channel excess kurtosis of both axes: the population moments of docs/numerics.md
/// "Conventions" (FP64, two passes over the finite elements, m4/m2² − 3) — the number
/// computeStats (numeric/moments.h) gives for one channel. NaN where undefined (no finite
/// element or zero variance). Throws Cancelled, UnsupportedError as computeChannelProfiles.
struct ChannelKurtosis {
    std::vector<double> columns; ///< input channels (axis 1)
    std::vector<double> rows;    ///< output channels (axis 0)
};
ChannelKurtosis computeChannelKurtosis(const Tensor &t, const CancelToken *cancel = nullptr);

/// The sums behind ChannelKurtosis, per row and per column: the count of finite values and
/// Σ(x − μ)², Σ(x − μ)⁴ about that channel's mean μ (FP64), as a device computes them
/// (Backend::channelMoments); channelKurtosisFromSums turns them into the excess kurtosis with
/// computeChannelKurtosis's formula.
struct ChannelMomentSums {
    std::vector<double> rowCount, rowS2, rowS4;
    std::vector<double> colCount, colS2, colS4;
};
ChannelKurtosis channelKurtosisFromSums(const ChannelMomentSums &s);

/// Relative error ‖w_r − ŵ_r‖₂ / ‖w_r‖₂ of every output row r (matrix view of `w`; `wHat` its
/// dequantized values, row-major, same count). FP64 sums over the elements where both are
/// finite; NaN for a row of zero norm. Throws UnsupportedError when the sizes differ.
std::vector<double> rowRelativeErrors(const Tensor &w, std::span<const float> wHat,
                                      const CancelToken *cancel = nullptr);

/// Fills `median` and `top` of a profile whose `absmax` is set (used after reading a session).
void rankChannels(ChannelProfile &profile, int topK);

} // namespace quantscope
