// SPDX-License-Identifier: MIT
#pragma once
/// \file quantizejob.h
/// The workbench's quantization job: selected tensors × configurations through the engine's
/// runQuantize, plus the channel profiles and plot series the views draw. Plain C++ that runs
/// on a pool thread; the window only swaps in the finished QuantizeJobResult.
#include "backend.h"
#include "jobs/results.h"

#include <functional>
#include <string>
#include <vector>

namespace quantscope {

struct QuantizeJobRequest {
    std::vector<std::string> tensors;
    std::vector<JobConfig> configs;
    DeviceChoice device = DeviceChoice::Auto;
    int bins = 256;
    bool symlog = false;
    int threads = 0;        ///< engine threads per step (0: hardware concurrency)
    int topChannels = 8;    ///< outlier channels listed per axis
    std::string activation; ///< paired activation ("" none)
};

/// Where the job gets its tensors. Called on the worker thread; throws like Checkpoint::tensor.
struct TensorSource {
    std::function<Tensor(const std::string &name)> weight;
    std::function<Tensor(const std::string &name)> activation; ///< empty: none
};

/// Progress in steps: the job now works on [begin, end) of the whole (fractions of `totalCost`,
/// in element-weighted units) and says what. Between two calls the UI interpolates by time.
using StepCallback =
    std::function<void(double begin, double end, double totalCost, const std::string &what)>;

/// Runs the request. A step that fails (a spec that does not fit the tensor, a tensor that
/// cannot be read) records its error and the job goes on; Cancelled propagates.
QuantizeJobResult runQuantizeJob(const QuantizeJobRequest &request, const TensorSource &source,
                                 const CancelToken &cancel, const StepCallback &step = {});

/// Estimated relative cost of each step for progress: reading/profiling and quantizing scale
/// with the element count.
inline constexpr double kProfileCost = 0.25;
inline constexpr double kQuantizeCost = 1.0;

} // namespace quantscope
