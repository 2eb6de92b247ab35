// SPDX-License-Identifier: MIT
#pragma once
/// \file job.h
/// The one quantization job every front end runs: selected tensors × configurations through
/// runQuantize, with progress in steps and cooperative cancel, plus what the views and reports
/// need (channel profiles, plot series, residual spectra, and the quantized tensor when asked).
/// The window runs it on a pool thread and draws the result; the CLI runs it on its main thread
/// and prints the result as JSON or text. Plain C++, no Qt.
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/run.h"
#include "results/results.h"
#include "metrics/spectrum.h"
#include "io/capture.h"

namespace quantscope {

/// One configuration of a job, its spec parsed and validated once where the request entered.
struct JobSpec {
    std::string name;
    nlohmann::json entered;        ///< the spec as entered (kept for the record when it did not parse)
    std::optional<QuantSpec> spec; ///< empty when `error` says why it did not parse
    std::string error;

    /// Parses `entered`; a spec that does not parse is kept with its error (the job records it
    /// for every tensor and goes on).
    static JobSpec parse(std::string name, nlohmann::json entered);
    static JobSpec typed(std::string name, QuantSpec spec);
};

struct QuantizeJobRequest {
    std::vector<std::string> tensors;
    std::vector<JobConfig> configs; ///< as the panel or a session holds them: parsed when the job starts
    std::vector<JobSpec> specs;     ///< already typed configurations (the CLI); run after `configs`
    DeviceChoice device = DeviceChoice::Auto;
    int bins = 256;
    bool symlog = false;
    int threads = 0;             ///< engine threads per step (0: hardware concurrency)
    int topChannels = 8;         ///< outlier channels listed per axis
    std::string activation;      ///< paired activation ("" none)
    bool profileChannels = true; ///< per-channel profiles of each tensor (the window's views)
    /// Per-channel excess kurtosis of each tensor on the device that ran its configurations,
    /// where that device computes it (TensorProfile::channelKurtosis; the scan's GPU path).
    bool deviceChannelKurtosis = false;
    bool metrics = true;         ///< error metrics of each run
    bool keepQuantized = false;  ///< keep codes, scales and Ŵ in each outcome (CLI --save, GEMM simulation)
    bool keepAbsErrBins = false; ///< keep the 4096 |error| counts that no view draws
    /// Singular values of W − Ŵ for each run, and of W itself when there is no configuration.
    std::optional<SpectrumOptions> spectrum;
    /// A calibration capture: each run of a tensor "X.weight" whose module X the capture holds
    /// gets its output-aware error (metrics/output_error.h); a module the capture lacks or whose
    /// shape disagrees gets a note in its profile.
    std::shared_ptr<const Capture> capture;
    /// llama.cpp's importance matrix (quantize / sweep --imatrix, the window's File menu): the
    /// gguf method's `imatrix` takes a tensor's weights from here instead of from `capture`.
    /// Called with the tensor's name and its K; returns K weights, or throws naming the file and
    /// the tensor (that tensor's gguf imatrix runs then fail with that message).
    std::function<std::vector<float>(const std::string &tensor, std::int64_t k)> importance;
};

/// Where the job gets its tensors. Called on the worker thread; throws like Checkpoint::tensor.
struct TensorSource {
    std::function<Tensor(const std::string &name)> weight;
    std::function<Tensor(const std::string &name)> activation; ///< empty: none
};

/// Progress in steps: the job now works on [begin, end) of the whole (fractions of `totalCost`,
/// in element-weighted units) and says what. Long steps (MiLo passes, HQQ iterations, spectrum
/// iterations) move `begin` forward inside the step as they go. ProgressEstimator turns these
/// calls into a fraction and a time left.
using StepCallback = std::function<void(double begin, double end, double totalCost, const std::string &what)>;

/// Called on the worker after each run (tensor × configuration) finished, with the tensor's
/// profile as far as it is known and the run's outcome, so that a caller that cancels can keep
/// what had finished.
using OutcomeCallback = std::function<void(const TensorProfile &profile, const QuantizeOutcome &outcome)>;

/// Runs the request. A step that fails (a spec that does not parse or does not fit the tensor, a
/// tensor that cannot be read) records its error and the job goes on; Cancelled propagates.
QuantizeJobResult runQuantizeJob(const QuantizeJobRequest &request, const TensorSource &source,
                                 const CancelToken &cancel, const StepCallback &step = {},
                                 const OutcomeCallback &finished = {});

/// Estimated relative cost of each step for progress: reading/profiling and quantizing scale
/// with the element count; a spectrum costs about as much as a quantization.
inline constexpr double kProfileCost = 0.25;
inline constexpr double kQuantizeCost = 1.0;
inline constexpr double kSpectrumCost = 1.0;

} // namespace quantscope
