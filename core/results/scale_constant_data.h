// SPDX-License-Identifier: MIT
#pragma once
/// \file scale_constant_data.h
/// What the Scale-constant view draws (issue 17 item 2): constOpt's MSE(c) for both encoders
/// (pow2, unrounded) with c*, its flat interval and the default c, the INT4 / MXFP4 / Lloyd–Max
/// reference MSEs — without and with the Hadamard rotation. Every number is sweepC's
/// (quant/constopt_sweep.h); this only runs the four sweeps and keeps what is drawn.
#include "quant/constopt_sweep.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace quantscope {

/// One encoder's curve.
struct ScaleConstantCurve {
    ConstOptEncoder encoder = ConstOptEncoder::Pow2;
    std::vector<double> c, mse; ///< the grid
    double cStar = 0, cStarMse = 0;
    double intervalLo = 0, intervalHi = 0; ///< c*'s flat interval
    double mseAtDefault = 0;
};

/// Both encoders at one rotation, and the references on the same groups.
struct ScaleConstantSet {
    std::int64_t rotate = 0; ///< 0: no rotation
    ScaleConstantCurve pow2, unrounded;
    double int4Mse = 0, mxfp4Mse = 0, lloydMaxMse = 0;
    std::optional<double> rotatedKurtosis;
};

struct ScaleConstantData {
    std::string tensor;
    std::int64_t group = 32;
    double defaultC = 0.156;
    double lo = 0.05, hi = 0.40, step = 0.0005;
    ScaleConstantSet plain;
    std::optional<ScaleConstantSet> rotated; ///< absent when the rotation was not asked or refused
    std::string rotatedError;                ///< why it was refused (d not dividing K, …)
};

struct ScaleConstantOptions {
    std::int64_t group = 32;
    std::int64_t rotate = 64; ///< d of the rotated sweeps; 0: none
    double lo = 0.05, hi = 0.40, step = 0.0005;
    double defaultC = 0.156;
    int threads = 0;
    /// Where the MSE grids are evaluated (CSweepOptions::device; engine/sweep_device.h); null: the CPU.
    std::shared_ptr<const CSweepDevice> device;
};

/// The curve of one sweep result.
ScaleConstantCurve curveOf(const CSweepResult &r, ConstOptEncoder encoder);

/// Runs sweepC for both encoders, without and (rotate > 0) with the rotation. `progress` gets
/// the overall fraction in [0, 1] (from worker threads: it must be thread-safe). Throws
/// Cancelled, UnsupportedError (the unrotated sweep refused).
ScaleConstantData computeScaleConstantData(const Tensor &w, const std::string &tensorName,
                                           const ScaleConstantOptions &options, const CancelToken *cancel = nullptr,
                                           const std::function<void(double)> &progress = {});

/// A clicked c on the grid: rounded to the nearest lo + i·step and clamped to [lo, hi].
double snapToGrid(double c, double lo, double hi, double step);

} // namespace quantscope
