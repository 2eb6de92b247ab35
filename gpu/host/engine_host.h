// SPDX-License-Identifier: MIT
#pragma once
/// \file engine_host.h
/// Host side of the GPU engine, compiled by the C++ compiler with the project's numerical flags
/// (-ffp-contract=off): spec → plan, and the reduced device results → ErrorMetrics with the
/// formulas of core/metrics. Internal to gpu/.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "metrics/error_metrics.h"
#include "quant/quant_spec.h"
#include "plan.h"
#include "quant/quantizer.h"

namespace quantscope::gpu {

struct HostPlan {
    QuantPlan plan;
    QuantizedTensor skeleton; ///< everything but codes, scales, zeros, counts and Ŵ
};

/// Validates the spec (UnsupportedError naming the tensor, as the CPU quantizers do) and plans it.
HostPlan buildPlan(const QuantSpec &spec, const Shape &shape, DType source, int warpSize,
                   const std::string &tensorName);

/// True when the device runs this ProgressiveSpec: stage 1 FP8 per tensor, stage 2 INT (Quark's
/// combination; every option of each stage).
bool progressiveOnDevice(const ProgressiveSpec &spec);

/// Scale, zero point and bad flag of the single group of a per-tensor spec from W's stats.
void tensorParamsFromStats(const QuantPlan &plan, const TensorStats &stats, float &scale, int &zero, bool &bad);

/// The value-table paths (fp8_quant.cu, int_quant.cu, fp4_quant.cu) cover the headline cases:
/// 16-bit inputs with the metrics on the device, FP8 per tensor, INT with row-local groups of ≤ 128,
/// ≤ 16 levels, FP32 arithmetic and scales, half-to-even rounding, the FP4 schemes MXFP4, NVFP4
/// and constOpt pow2 on row-local groups of ≤ 128, and ProgressiveSpec with stage 2 per channel
/// along rows (launch::progFastPlan). Everything else takes the generic kernels.
bool fastPathFor(const QuantPlan &P, bool quantize, bool deviceMetrics, int debugFlags, int in, std::int64_t n);

/// ProgressiveSpec: stage 1's FP8 scale from W's stats at open (as the generic path takes it).
float progStage1Scale(const QuantPlan &plan, const TensorStats &stats);

/// log2(cols / 8) for cols = 8·2^t: the chunk → row shift of a row-per-group pass.
int fastRowTeamLog2(std::int64_t cols);

/// True when the device computes these metrics exactly (else the CPU reference does).
bool deviceMetricsSupported(const ErrorMetricsOptions &o);

/// The histogram counts as downloaded: W[B], Ŵ[B], err[B], |err|[4096], then
/// W below/above, Ŵ below/above, err below/above.
struct HostHist {
    std::vector<std::uint64_t> raw;
};

ErrorMetrics assembleMetrics(std::int64_t numel, const Stats1 &s1, const Stats2 &s2, const HostHist &h,
                             const HistConfig &hc, const ErrorMetricsOptions &o,
                             const std::optional<TensorStats> &inputStats);

} // namespace quantscope::gpu
