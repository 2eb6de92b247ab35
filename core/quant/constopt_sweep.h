// SPDX-License-Identifier: MIT
#pragma once
/// \file constopt_sweep.h
/// The constOpt c sweep and the Lloyd–Max reference codebook (docs/numerics.md "FP4 constOpt",
/// "Lloyd–Max reference").
///
/// Sweep: the tensor is decoded to FP32 and rotated as constOpt does (rotate = d); MSE(c) =
/// Σ(x − x̂_c)²/n over the finite groups, with x̂_c exactly constOpt's (constopt.h) at fc = (float)c,
/// in the rotated domain (the rotation is orthonormal). Grid c_i = lo + i·step (FP64), i = 0 …
/// round((hi − lo)/step) (default 701 values over [0.05, 0.40]); each MSE is a sum over the groups
/// summed exactly (below), so equal code choices give equal values (the `pow2` curve is piecewise
/// constant) and every backend gives the same bits.
/// Exact sums: each finite group's SSE (FP64, csweep_math.h's op order) becomes the integer
/// k_g = RNE(SSE_g·2^-u) (numeric/fixedsum.h: an exact power-of-two scaling, one rounding), the
/// k_g are added in unsigned 128-bit integers (exact, so the group order, the thread split and the
/// GPU's block split cannot change a bit), and MSE = RN((double)(Σk)·2^u) / counted. The unit u is
/// chosen once per sweep from the finite groups: every element error satisfies (x − x̂)² ≤ x² up to
/// rounding (0 is a grid point, codes round to nearest, clamping at 6 only lowers |x̂|), so
/// Σ ≤ counted·amax² < 2^(bitlen(counted) + 2·(floor(log2 amax) + 1)) =: 2^(u + 124), amax = the
/// largest |x| of the finite groups of the (rotated) tensor; amax = 0 → u = 0, every MSE 0. The
/// rounding to integers costs at most groups·2^(u−1), below 2^-60 of the total in practice.
/// Devices: `device` picks the backend that evaluates the grid (the GPU's sweepGrid, backend.h;
/// the CPU's otherwise, and when the GPU refuses or fails — `deviceNote` says why); the host always
/// decodes and rotates W for the Lloyd–Max / INT4 / MXFP4 references.
/// Refinement: `refinePoints` samples evenly over [c_{i*−1}, c_{i*+1}] around the first grid
/// argmin i*; c* = the middle of the run of samples at the refined minimum that contains its
/// first occurrence. `c_star_interval` = [min, max] of the grid points whose MSE ≤ (1 + 1e-3)·min.
///
/// Lloyd–Max: the 16-level scalar codebook of the group-normalised values u = x/m (m = the
/// group's absmax, groups of `group` along K of the rotated tensor), fit by Lloyd's iterations
/// started from the E2M1 grid /6 (the two zero codes split to ±0.25/6, the E2M1 rounding
/// thresholds, so that the 16 levels are distinct). Each u is weighted by m², so the codebook
/// minimises the MSE of x itself — the number compared with the FP4/INT4 MSEs. Iterations run
/// on a 65536-bin weighted histogram of u (bin centroids), until no level moves by more than
/// 1e-12 (at most 1000); the reported MSE is then computed exactly on every element.
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "quant/constopt.h"
#include "tensor/tensor.h"
#include "util/cancel.h"

namespace quantscope {

struct LloydMaxResult {
    std::vector<double> levels; ///< 16 levels in [−1, 1], ascending
    double mse = 0;             ///< MSE of x (original units) with x̂ = m·level(x/m)
    int iterations = 0;
};

struct CSweepDevice;

struct CSweepOptions {
    std::int64_t group = 32;
    std::int64_t rotate = 0;
    ConstOptEncoder encoder = ConstOptEncoder::Pow2;
    double lo = 0.05, hi = 0.40, step = 0.0005;
    double defaultC = 0.156;
    int refinePoints = 101;
    bool strict = false;
    int threads = 0;
    std::string tensorName;
    /// Where the MSE grid is evaluated (engine/sweep_device.h makes one from a DeviceChoice);
    /// null: the CPU.
    std::shared_ptr<const CSweepDevice> device;
};

struct CSweepResult {
    std::vector<double> c, mse;     ///< the grid
    double cStar = 0, cStarMse = 0; ///< after refinement
    double gridArgmin = 0;          ///< the first grid minimiser
    double intervalLo = 0, intervalHi = 0;
    double mseAtDefault = 0;
    LloydMaxResult lloydMax;
    double int4Mse = 0;                    ///< INT4 symmetric (toolkit rule, FP32 scale), same groups
    double mxfp4Mse = 0;                   ///< MXFP4 `even`, same groups
    std::optional<double> rotatedKurtosis; ///< excess kurtosis of the rotated tensor (rotate > 0)
    std::int64_t numel = 0, groups = 0, nonFiniteGroups = 0;
    std::string device = "cpu"; ///< DeviceInfo::id of the backend that evaluated the MSE grid
    std::string deviceNote;     ///< why another device than asked was used ("" when as asked)
};

/// MSE(c) of one tensor's (rotated) finite groups under one encoder, by the exact rule above: the
/// CPU's (makeCpuSweepEvaluator) or a GPU backend's (Backend::sweepGrid). Throws Cancelled, and a
/// GPU one GpuError.
class CSweepGridEvaluator {
public:
    virtual ~CSweepGridEvaluator() = default;
    /// MSE at each c (FP64 values, evaluated at (float)c), in any order.
    virtual std::vector<double> mse(const std::vector<double> &cs, const CancelToken *cancel) const = 0;
    /// MSE at one fc.
    virtual double mse(float fc) const = 0;
    /// The pow2 MSE curves over an ascending grid of `blocks` equal consecutive slices of the rows,
    /// each with the bits an evaluator of that slice alone gives (its own fixed-point unit), from
    /// this evaluator's one table of group SSEs. With `whole`, the same walk over the groups also
    /// gives the curve of all rows there (the bits of mse(cs)). The CPU's only: others return an
    /// empty list (and leave `whole` as it was).
    virtual std::vector<std::vector<double>> blockCurves(const std::vector<double> &cs, std::int64_t blocks,
                                                         const CancelToken *cancel,
                                                         std::vector<double> *whole = nullptr) const
    {
        (void)cs;
        (void)blocks;
        (void)cancel;
        (void)whole;
        return {};
    }
};

/// A device that can evaluate the grid: `make` returns its evaluator, or null with `whyNot` set to
/// leave the grid to the CPU (it may throw GpuError: the CPU then evaluates, saying why). `note`:
/// why the CPU evaluates although another device was asked for, when that is known up front (no GPU).
struct CSweepDevice {
    std::string id; ///< DeviceInfo::id of the device ("cuda:0")
    std::string note;
    std::function<std::unique_ptr<CSweepGridEvaluator>(const Tensor &w, const CSweepOptions &options,
                                                       std::string &whyNot)>
        make;
};

/// The CPU evaluator on a row-major [rows, K] FP32 matrix (already rotated), groups of `group`
/// along K; [fcLo, fcHi] the range most evaluations fall in (the pow2 SSE tables cover it). Keeps a
/// view of x: x must outlive it.
std::unique_ptr<CSweepGridEvaluator> makeCpuSweepEvaluator(std::span<const float> x, std::int64_t rows, std::int64_t K,
                                                           std::int64_t group, ConstOptEncoder encoder, float fcLo,
                                                           float fcHi, int threads);

/// Throws UnsupportedError (bad grid, rotation not dividing K, strict ragged groups), Cancelled.
CSweepResult sweepC(const Tensor &w, const CSweepOptions &options, const CancelToken *cancel = nullptr);

/// Lloyd–Max on a row-major [rows, K] FP32 matrix with groups of `group` along K; groups holding
/// NaN/Inf are skipped.
LloydMaxResult lloydMaxCodebook(std::span<const float> x, std::int64_t rows, std::int64_t K, std::int64_t group);

} // namespace quantscope
