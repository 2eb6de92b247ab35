// SPDX-License-Identifier: MIT
#pragma once
/// \file weight_preview.h
/// What a selected tensor looks like before any run (issue 42: a newcomer sees W's histogram
/// and statistics at once): W's histogram over the bins a run would use and its statistics.
/// Computed on a pool thread; the Distribution view only draws it.
#include "numeric/moments.h"
#include "results/plot_data.h"
#include "tensor/tensor.h"
#include "util/cancel.h"

#include <string>

namespace quantscope {

struct WeightPreview {
    std::string tensor;
    std::string dtype;
    Shape shape;
    TensorStats stats;
    Series histogram; ///< bin centres and counts, as a run's W series
    bool symlog = false;
    double t = 0; ///< symlog threshold
};

/// W's histogram (`bins` bins over its finite range, symlog-mapped when asked) and statistics.
/// Throws UnsupportedError for dtypes that do not decode, Cancelled when `cancel` fires.
WeightPreview previewWeight(const std::string &name, const Tensor &w, int bins = 256, bool symlog = false,
                            const CancelToken *cancel = nullptr);

} // namespace quantscope
