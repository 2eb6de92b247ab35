// SPDX-License-Identifier: MIT
#pragma once
/// \file kv_codebook.h
/// 16-level Lloyd–Max codebooks for the KV lab's codebook scheme (docs/numerics.md "KV-cache lab",
/// "Lloyd–Max codebook for a rotated unit vector").
///
/// Theoretical: a coordinate t of a unit vector uniform on the sphere in R^d has the density
/// f(t) ∝ (1 − t²)^((d−3)/2) on [−1, 1] ((1 + t)/2 ~ Beta((d−1)/2, (d−1)/2)). Lloyd's iteration
/// on that law: boundaries b_i = (ℓ_i + ℓ_{i+1})/2, ℓ_i = ∫ t f / ∫ f over [b_{i−1}, b_i]; ∫ t f
/// in closed form (−(1 − t²)^((d−1)/2) / (d − 1)), ∫ f and ∫ t² f by 20-point Gauss–Legendre on
/// 16 equal panels per cell (FP64). Start: ℓ_i = Gaussian Lloyd–Max levels · 1/√d; stop when no
/// level moves by more than `tol` (1e-13), reporting the iterations; the
/// distortion D = E[(t − ℓ(t))²] is evaluated by the same quadrature. The levels are symmetric.
///
/// Empirical: Lloyd's iteration on a 65536-bin histogram of the samples (exact per-bin sums),
/// started from given levels (the theoretical ones), until no level moves by more than `tol` or
/// 1000 iterations; an empty cell keeps its level.
#include <cstdint>
#include <span>
#include <vector>

namespace quantscope {

struct KvCodebookFit {
    std::vector<double> levels; ///< 16, ascending
    double mse = 0;             ///< distortion per coordinate (theory: exact; empirical: on the samples)
    int iterations = 0;
    double maxMove = 0; ///< the last iteration's largest level move
};

namespace kvlloyd {
struct Fit;
}
/// A Lloyd fit of kv_lloyd.h (the CPU's or the device's) as a KvCodebookFit.
KvCodebookFit toCodebookFit(const kvlloyd::Fit &f);

/// The theoretical codebook at dimension d ≥ 3 (computed once per process and arguments: about
/// 600 iterations of 8 quadratures, tens of milliseconds; later calls return the same fit).
KvCodebookFit lloydMaxSphere(std::int64_t d, double tol = 1e-13, int maxIterations = 100000);

/// Sums of samples in [−1, 1] (unit-vector coordinates) over 2^16 equal bins: count, Σy, Σy² per
/// bin (FP64). Values outside [−1, 1] land in the end bins.
struct KvUnitHistogram {
    static constexpr int kBins = 1 << 16;
    std::vector<double> n = std::vector<double>(kBins), s1 = std::vector<double>(kBins),
                        s2 = std::vector<double>(kBins);
    void add(float y);
    void merge(const KvUnitHistogram &o);
    double count() const;
};

/// Lloyd on a histogram, started from `init` (16 ascending levels): a bin belongs to the cell its
/// centre falls in (centre ≥ boundary goes up); a level is the mean of its cell's samples (exact
/// bin sums); an empty cell keeps its level; stops when no level moves by more than `tol` or after
/// `maxIterations`. The MSE is that of the samples with each bin assigned as above.
KvCodebookFit lloydMaxHistogram(const KvUnitHistogram &h, const std::vector<double> &init, double tol = 1e-9,
                                int maxIterations = 1000);
/// The same on samples (histogrammed first).
KvCodebookFit lloydMaxSamples(std::span<const float> samples, const std::vector<double> &init, double tol = 1e-9,
                              int maxIterations = 1000);

/// The 16-level Lloyd–Max levels of N(0, 1) (Max 1960), ascending: the start of the theoretical fit
/// once scaled by 1/√d, and the large-d limit the UltraQuant paper quotes (0.342 ≈ 2.733/√64).
const std::vector<double> &gaussianLloydMax16();

} // namespace quantscope
