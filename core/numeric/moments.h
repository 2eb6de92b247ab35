// SPDX-License-Identifier: MIT
#pragma once
/// \file moments.h
/// Tensor statistics (docs/numerics.md "Conventions"): population moments in FP64 over the finite
/// elements — mean, std = √m2, skewness m3/m2^1.5, excess kurtosis m4/m2² − 3 — plus min/max and
/// NaN/Inf counts. Two passes (mean, then central sums), chunked and multithreaded.
/// In numeric/ because quantizers (constOpt's rotated kurtosis) and metrics both use it.
#include <cstdint>
#include <optional>

#include "tensor/tensor.h"
#include "util/cancel.h"

namespace quantscope {

struct StatsOptions {
    /// MiLo's torch.std variant: std with the N−1 divisor (skewness/kurtosis stay population).
    bool miloStd = false;
    /// Worker threads (0: hardware concurrency).
    int threads = 0;
};

struct TensorStats {
    std::int64_t numel = 0;
    std::int64_t finiteCount = 0;
    std::int64_t nanCount = 0;
    std::int64_t infCount = 0;
    double min = 0, max = 0, absmax = 0;
    double mean = 0, std = 0;
    /// Unset when undefined (fewer than one finite element, or zero variance).
    std::optional<double> skewness, excessKurtosis;
};

/// Statistics of all elements of `t` (any decodable dtype). Throws UnsupportedError for dtypes
/// without a real decoding, Cancelled when `cancel` fires.
TensorStats computeStats(const Tensor &t, const StatsOptions &options = {}, const CancelToken *cancel = nullptr);

} // namespace quantscope
