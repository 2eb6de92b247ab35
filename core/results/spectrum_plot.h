// SPDX-License-Identifier: MIT
#pragma once
/// \file spectrum_plot.h
/// What the Spectrum view draws for one result, prepared from its residual spectrum (the σᵢ of
/// E = W − Ŵ, metrics/spectrum.h) and its storage: per rank r = 0 … k the error left after a
/// rank-r compensator, the energy it captures, and the bits per element and megabytes the
/// result takes with an FP16 compensator U[N, r]·V[r, K] added. A rank-r FP16 compensator adds
/// (N + K)·r·16 bits to the stored bits:
///   bits/element(r) = bitsPerElement + (N + K)·r·16 / numel
///   bytes(r)        = storedBytes + (N + K)·r·2,  MB = bytes / 10⁶
/// errAfterRank(r) = √(‖E‖²_F − Σ_{i≤r} σᵢ²) (r = 0: ‖E‖_F), relErr(r) = errAfterRank(r)/‖W‖_F.
#include "metrics/spectrum.h"

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace quantscope {

struct SpectrumPlotData {
    std::int64_t rows = 0, cols = 0; ///< N, K of the matrix view
    std::int64_t numel = 0;
    std::vector<double> index; ///< i = 1 … k (x of the σ plot)
    std::vector<double> sigma; ///< σᵢ, descending
    /// Per rank r = 0 … k (index r): r, the error after rank r (absolute and relative to ‖W‖_F),
    /// the energy captured Σ_{i≤r} σᵢ² / ‖E‖²_F, bits per element and MB with the compensator.
    std::vector<double> rank, errAfterRank, relErrAfterRank, energy, bitsPerElement, megabytes;
    double froNorm = 0;      ///< ‖E‖_F
    double relFrobenius = 0; ///< ‖E‖_F / ‖W‖_F of the result
    bool complete = false;   ///< all min(N, K) values
    std::int64_t minDim = 0;
    double bitsPerElementBase = 0;
    std::uint64_t storedBytesBase = 0;

    int maxRank() const noexcept { return static_cast<int>(sigma.size()); }
};

/// Bits a rank-r FP16 compensator U[N, r]·V[r, K] adds: (N + K)·r·16.
double compensatorBits(std::int64_t rows, std::int64_t cols, int rank);

/// Prepares the view's data. `rows`/`cols`: the matrix view of the tensor; `relFrobenius`:
/// ‖E‖_F / ‖W‖_F of the result (0 leaves relErrAfterRank at 0).
SpectrumPlotData prepareSpectrumPlot(const Spectrum &s, std::int64_t rows, std::int64_t cols, double bitsPerElement,
                                     std::uint64_t storedBytes, double relFrobenius);

/// The counts of metrics/spectrum.h for another τ, from the same σ (top-k rules included).
struct TauCounts {
    std::int64_t geTau = 0; ///< #{σᵢ ≥ τ·σ₁} (a lower bound when !geExact)
    bool geExact = true;
    std::int64_t ltTau = 0; ///< #{σᵢ < τ·σ₁}
    bool derived = false;   ///< ltTau derived from the top k
};
TauCounts tauCounts(const Spectrum &s, double tau);

/// The spec "Run MiLo at this rank" writes: `from` itself with `rank` when it is MiLo; else MiLo
/// at `rank` with an FP16 compensator, keeping the inner quantizer's bits and group when `from`
/// is an INT or HQQ spec that has them.
nlohmann::json miloSpecAtRank(const nlohmann::json &from, int rank);

} // namespace quantscope
