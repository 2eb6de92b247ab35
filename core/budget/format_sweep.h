// SPDX-License-Identifier: MIT
#pragma once
/// \file format_sweep.h
/// The format sweep of one tensor (`quantscope-cli sweep`, the window's Pareto plot): formats ×
/// group sizes × axes (× an orthonormal Walsh–Hadamard rotation on/off) through the engine's job
/// (the numbers of `quantize` for the same spec and device) → error against bits per weight,
/// with the tensor's excess kurtosis before and after the rotation, and which points are on the
/// Pareto front (no other point has both fewer or equal bits and less or equal error, one of them
/// strictly).
///
/// Rotation: constOpt rotates itself (its spec's `rotate`, error in the original domain); for
/// the other formats the engine quantizes WHT_d(W) (core/numeric/hadamard.h, blocks of d along K),
/// and the error is that of the rotated tensor — equal to the original domain's up to rounding
/// since the rotation is orthonormal and its own inverse. Rotated points need d | K (d a power
/// of two); otherwise they are left out and a note says why.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/job.h"
#include "tensor/tensor.h"
#include "util/cancel.h"

namespace quantscope {

struct FormatSweepOptions {
    /// int2…int8 (uniform INT, group granularity), hqq2…hqq8 (HQQ, group × axis), fp8 (E4M3 per
    /// channel), mxfp4, nvfp4, constopt (group sizes each).
    std::vector<std::string> formats = {"int3", "int4", "int8", "hqq4", "fp8", "mxfp4", "nvfp4", "constopt"};
    std::vector<std::int64_t> groups = {32, 64, 128};
    std::vector<int> axes = {1, 0};   ///< HQQ's grouping axes
    bool hadamard = true;             ///< also every point after the rotation
    std::int64_t hadamardBlock = 128; ///< d
    DeviceChoice device = DeviceChoice::Auto;
    int threads = 0;
    /// llama.cpp's importance matrix (`sweep --imatrix`; QuantizeJobRequest::importance): the
    /// unrotated K-quant points run with `imatrix` and these weights (the rotated ones without:
    /// the weights belong to the unrotated input channels).
    std::function<std::vector<float>(const std::string &tensor, std::int64_t k)> importance;
};

/// One point of the grid.
struct FormatSweepPoint {
    std::string family;  ///< "INT4", "HQQ 4-bit", "MXFP4", "constOpt", + " + H" when rotated
    std::string format;  ///< the format token ("int4")
    nlohmann::json spec; ///< full spec (defaults filled in) as `quantize --json` prints it
    bool hadamard = false;
    std::int64_t group = 0; ///< 0: the format has no group size
    int axis = -1;          ///< HQQ's axis, -1 otherwise
    double bitsPerWeight = 0;
    std::uint64_t bytes = 0;
    double mse = 0, relFrobenius = 0, sqnrDb = 0;
    bool pareto = false;
    std::string device;
    std::string error; ///< non-empty: the point failed (nothing else valid)
};

struct FormatSweep {
    std::string tensor;
    Shape shape;
    double kurtosis = 0;        ///< excess kurtosis of W (population)
    double kurtosisRotated = 0; ///< of WHT_d(W) (NaN when the rotation does not fit)
    std::int64_t hadamardBlock = 0;
    std::vector<FormatSweepPoint> points;
    std::vector<std::string> notes;
    /// {"tensor","shape","kurtosis","kurtosis_rotated","hadamard_block","notes","points":[{"family",
    ///  "format","spec","hadamard","group","axis","bits_per_weight","bytes","mse","rel_frobenius",
    ///  "sqnr_db","pareto","device","error"}]}
    nlohmann::ordered_json toJson() const;
    static FormatSweep fromJson(const nlohmann::json &j);
};

/// The grid's specs (before any is run): spec JSON, family, format, group, axis, hadamard.
/// Throws UnsupportedError naming an unknown format token.
std::vector<FormatSweepPoint> formatSweepGrid(const FormatSweepOptions &options);

/// Runs the grid on `w` (named `name`) through runQuantizeJob; a point that fails keeps its
/// error and the sweep goes on. Cancelled propagates.
FormatSweep runFormatSweep(const Tensor &w, const std::string &name, const FormatSweepOptions &options,
                           const CancelToken &cancel, const StepCallback &step = {});

/// Sets `pareto` on the points without error: minimal in (bits per weight, mse).
void markPareto(std::vector<FormatSweepPoint> &points);

} // namespace quantscope
