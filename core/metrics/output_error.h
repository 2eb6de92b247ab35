// SPDX-License-Identifier: MIT
#pragma once
/// \file output_error.h
/// Output-aware error (docs/numerics.md "Output-aware error"): what a quantized weight does to
/// the layer's output on the model's own inputs. With G = XᵀX / n, the mean of x xᵀ over the n
/// captured token positions,
///     E‖(W − Ŵ)x‖² = tr(ΔW G ΔWᵀ) = Σ_r Δ_r G Δ_rᵀ,   ΔW = W − Ŵ,
/// and its relative form divides by E‖Wx‖² = tr(W G Wᵀ). With only diag(G) the sum is
/// Σ_{r,j} Δ_rj² G_jj (channels taken as uncorrelated). FP64 throughout: each row's term is
/// computed in FP64 from the FP32 inputs and the rows are summed in row order, so the result does
/// not depend on the thread count.
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "tensor/tensor.h"
#include "util/cancel.h"

namespace quantscope {

/// A module's Gram in FP64, converted once and reused for every run on that module.
struct GramMatrix {
    std::int64_t k = 0;
    bool diagonal = false;     ///< only diag(G) is known
    std::vector<double> value; ///< K×K row-major, or K when diagonal
    std::int64_t tokens = 0;   ///< n of the capture
};

struct OutputError {
    double error = 0;     ///< tr(ΔW G ΔWᵀ) = E‖(W − Ŵ)x‖² (summed over output channels)
    double reference = 0; ///< tr(W G Wᵀ) = E‖Wx‖²
    double relative = 0;  ///< error / reference (0 for 0/0, +inf for e/0)
    bool diagonal = false;
    std::int64_t tokens = 0;
    /// Why the run's device did not compute it and the CPU did ("" when it ran where the run did).
    std::string note;
};

/// The output error from tr(ΔW G ΔWᵀ) and tr(W G Wᵀ) however they were computed (a backend's
/// gramEnergy): the relative form and g's description filled in.
OutputError makeOutputError(double error, double reference, const GramMatrix &g);

/// Σ_r v_r G v_rᵀ over the rows of `rows` (n × K, row-major FP32), each term in FP64. With
/// `minus`, v = rows − minus (the same shape): ΔW without a copy.
double gramEnergy(std::span<const float> rows, std::span<const float> minus, std::int64_t n, const GramMatrix &g,
                  int threads = 0, const CancelToken *cancel = nullptr);

/// tr(W G Wᵀ): one per tensor, shared by every run on it.
double gramReference(const Tensor &w, const GramMatrix &g, int threads = 0, const CancelToken *cancel = nullptr);

/// The output-aware error of Ŵ (row-major FP32 of W's matrix shape) given tr(W G Wᵀ).
OutputError outputError(const Tensor &w, std::span<const float> wHat, const GramMatrix &g, double reference,
                        int threads = 0, const CancelToken *cancel = nullptr);

} // namespace quantscope
