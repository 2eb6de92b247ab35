// SPDX-License-Identifier: MIT
#pragma once
/// \file spectrum.h
/// Singular values of a residual E = W − Ŵ (docs/numerics.md "Metrics": residual spectrum), with
/// the counts, energies and errors after rank r derived from them. The singular values come from
/// numeric/svd.h (all of them for min(N, K) ≤ kFullSpectrumMaxDim, else the top k); everything
/// in FP64.
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "numeric/svd.h"
#include "util/cancel.h"

namespace quantscope {

struct SpectrumOptions;

/// A device that computes the singular values (a GPU backend; engine/spectrum_device.h):
/// `singularValues` gets the FP32 matrix and the options (top = 0: all), returns them descending
/// and names its algorithm, or nullopt with `whyNot` (the CPU computes, saying why); it may throw
/// GpuError (the same).
struct SpectrumDevice {
    std::string id;   ///< DeviceInfo::id ("cuda:0")
    std::string note; ///< why the CPU computes although another device was asked for (no GPU)
    std::function<std::optional<std::vector<double>>(std::span<const float> e, std::int64_t rows, std::int64_t cols,
                                                     const SpectrumOptions &options, std::string &algorithm,
                                                     std::string &whyNot)>
        singularValues;
};

struct SpectrumOptions {
    int top = 0;            ///< 0: all singular values (min(N, K) ≤ 4096); k > 0: the top k
    int powerIters = 4;     ///< subspace iterations of the top-k sketch
    int oversample = 8;     ///< extra sketch columns of the top-k sketch
    double tau = 0.5;       ///< threshold τ of n_sigma_ge_tau / n_sigma_lt_tau (relative to σ₁)
    std::uint64_t seed = 0; ///< Philox seed of the sketch
    /// Where the singular values are computed (null: the CPU).
    std::shared_ptr<const SpectrumDevice> device;
};

struct Spectrum {
    std::vector<double> sigma;    ///< descending
    bool complete = false;        ///< all min(N, K) values (else the top k)
    std::int64_t minDim = 0;      ///< min(N, K)
    std::int64_t nSigmaGeTau = 0; ///< #{σᵢ ≥ τ·σ₁} (a lower bound "≥ k" when !nSigmaGeTauExact)
    bool nSigmaGeTauExact = true;
    std::int64_t nSigmaLtTau = 0; ///< #{σᵢ < τ·σ₁}; min(N, K) − nSigmaGeTau when derived
    bool derived = false;         ///< nSigmaLtTau derived from the top k
    double tau = 0.5;
    double froNorm = 0;               ///< ‖E‖_F (always exact)
    std::vector<double> energyTop;    ///< [r−1] = Σ_{i≤r} σᵢ² / ‖E‖²_F, r = 1 … sigma.size()
    std::vector<double> errAfterRank; ///< [r−1] = √(‖E‖²_F − Σ_{i≤r} σᵢ²)
    std::string algorithm;            ///< "householder-bidiagonal+tridiagonal-qr" or "randomized-subspace"
    std::string device = "cpu";       ///< where the singular values were computed (DeviceInfo::id)
    std::string deviceNote;           ///< why another device than asked was used ("" when as asked)
};

/// Spectrum of a row-major FP32 matrix with every field of docs/numerics.md.
Spectrum computeSpectrum(std::span<const float> e, std::int64_t rows, std::int64_t cols, const SpectrumOptions &options,
                         const CancelToken *cancel = nullptr);

/// Fills the derived fields (counts, energies, errors) from sigma, froNorm, tau and complete.
void fillSpectrumFields(Spectrum &s);

} // namespace quantscope
