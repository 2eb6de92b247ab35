// SPDX-License-Identifier: MIT
#pragma once
/// \file results.h
/// The results of the workbench's quantization job (selected tensors × configurations) as plain
/// values: metrics, the series the views draw, channel profiles. The job itself runs the engine
/// (engine/job.h); the session file stores these (results/session.h).
#include "results/channel_profile.h"
#include "results/plot_data.h"
#include "metrics/error_metrics.h"
#include "metrics/spectrum.h"
#include "metrics/output_error.h"
#include "quant/quantizer.h"

#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace quantscope {

/// One column of the quantizer panel: a name ("A") and a spec JSON ("method" + fields).
struct JobConfig {
    std::string name;
    nlohmann::json spec;
};

/// One tensor × one configuration. Large buffers (codes, Ŵ) are not kept.
struct QuantizeOutcome {
    std::string tensor;
    std::string config;
    nlohmann::json spec; ///< the full spec, defaults filled in (as the CLI prints it)
    std::string method;
    std::string device; ///< DeviceInfo::id
    std::string deviceNote;
    double timeMs = 0;
    std::string error;    ///< non-empty: this step failed, nothing below is valid
    ErrorMetrics metrics; ///< absErrBins dropped
    double bitsPerElement = 0;
    std::uint64_t storedBytes = 0;
    bool ragged = false;
    std::int64_t nonFiniteGroups = 0;
    std::int64_t firstNonFinite = -1;
    DistributionData plot;            ///< prepareDistribution(metrics)
    std::optional<Spectrum> spectrum; ///< σ of W − Ŵ when the request asked for spectra
    /// E‖(W − Ŵ)x‖² on the paired capture's inputs (absent without a capture for this module).
    std::optional<OutputError> outputError;
    /// Iterative methods: HQQ per iteration, MiLo per pass (ε); chosenPass the one returned.
    /// Not stored in sessions.
    std::vector<IterationRecord> history;
    int chosenPass = -1;
    /// Codes, scales and Ŵ when the request asked to keep them (not stored in sessions).
    std::shared_ptr<const QuantizedTensor> quantized;

    bool ok() const noexcept { return error.empty(); }
};

/// What belongs to a tensor rather than to a configuration.
struct TensorProfile {
    std::string tensor;
    Shape shape;
    std::string dtype;
    ChannelProfiles channels;
    std::string error;                               ///< reading the tensor failed
    std::string activation;                          ///< paired activation ("" none)
    std::optional<ChannelProfile> activationColumns; ///< its input-channel profile when paired
    std::string activationNote;                      ///< why it was not paired (shape mismatch, …)
    std::string captureNote;          ///< why a capture gave this tensor no output-aware error ("" paired or none)
    std::optional<Spectrum> spectrum; ///< σ of W itself when asked for without a configuration
    /// Per-row and per-column excess kurtosis from the device that ran the tensor
    /// (QuantizeJobRequest::deviceChannelKurtosis), absent when it could not.
    std::optional<ChannelKurtosis> channelKurtosis;
};

struct QuantizeJobResult {
    std::vector<TensorProfile> tensors;
    std::vector<QuantizeOutcome> outcomes; ///< tensor-major, configs in request order
    std::vector<std::string> warnings;
    /// The batch was cancelled: only the runs that had finished are here.
    bool partial = false;

    const TensorProfile *profile(const std::string &tensor) const;
    const QuantizeOutcome *outcome(const std::string &tensor, const std::string &config) const;
};

} // namespace quantscope
