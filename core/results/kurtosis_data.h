// SPDX-License-Identifier: MIT
#pragma once
/// \file kurtosis_data.h
/// What the Kurtosis view draws (issue 17 item 3): per-channel excess kurtosis of W (input and
/// output channels, the most kurtotic labelled), before and after the Hadamard rotation along
/// K, and across tensors the kurtosis against each configuration's relative error. The numbers
/// are computeStats' and computeChannelKurtosis' (the CLI's `info --stats --per-channel`).
#include "results/channel_profile.h"
#include "results/results.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace quantscope {

/// One tensor's channels, as they are or rotated.
struct KurtosisChannels {
    ChannelKurtosis channels;
    double kurtosis = 0; ///< of the whole tensor (NaN: undefined)
    /// The channels of largest kurtosis per axis, largest first (at most `topK`).
    std::vector<std::int64_t> topColumns, topRows;
};

struct KurtosisTensor {
    std::string tensor;
    std::int64_t rows = 0, cols = 0;
    KurtosisChannels plain;
    std::optional<KurtosisChannels> rotated; ///< absent when not asked or refused
    std::string rotatedError;
    std::string error; ///< reading or decoding failed: nothing above is valid
};

/// One point of the scatter: a tensor × a configuration of the results.
struct KurtosisPoint {
    std::string tensor;
    std::string label;                        ///< configLabel(config, spec) when prepared
    std::string config;                       ///< the configuration's name and spec: the window
    nlohmann::json spec;                      ///< draws the label again in its current language
    int colorIndex = 0;                       ///< the configuration's ("A" 0, "B" 1, …)
    double kurtosis = 0, rotatedKurtosis = 0; ///< x before / after rotation (NaN: none)
    double relError = 0;                      ///< y: the outcome's relative Frobenius error
};

struct KurtosisData {
    std::int64_t rotate = 0;
    std::vector<KurtosisTensor> tensors;
    std::vector<KurtosisPoint> points;
};

/// The channels of largest value, NaN last, ties by index; at most k.
std::vector<std::int64_t> topChannels(const std::vector<double> &values, int k);

/// Per-channel and whole-tensor kurtosis of every tensor (read through `weight`), rotated in
/// blocks of `rotate` along K too when rotate > 0; and a point per successful outcome of
/// `results` whose tensor is among them. A tensor that cannot be read gets its `error`.
/// `progress` gets the fraction done. Throws Cancelled.
KurtosisData computeKurtosisData(const std::function<Tensor(const std::string &)> &weight,
                                 const std::vector<std::string> &tensors, const QuantizeJobResult *results,
                                 std::int64_t rotate, int topK = 8, const CancelToken *cancel = nullptr,
                                 const std::function<void(double)> &progress = {});

} // namespace quantscope
