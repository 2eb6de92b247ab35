// SPDX-License-Identifier: MIT
#pragma once
/// \file svd.h
/// Singular values and a low-rank SVD of row-major FP64 matrices: the linear algebra behind the
/// residual spectrum (metrics/spectrum.h) and MiLo's compensator (quant/milo.h). Everything in
/// FP64.
///
/// All singular values (min(N, K) ≤ 4096): Householder bidiagonalization in panels of 16
/// columns (Eigen's blocked Golub–Kahan kernels; the cancel token is checked between panels),
/// then the singular values of the bidiagonal B as the non-negative eigenvalues of its
/// Golub–Kahan tridiagonal form [[0, B], [Bᵀ, 0]] (symmetric tridiagonal QR, values only).
/// Backward stable: |σ̂ᵢ − σᵢ| ≲ c·ε·σ₁ for every i (no Gram matrix is formed, so there is no
/// √ε·σ₁ floor: small singular values are accurate to about 1e-15·σ₁, not 1e-8·σ₁).
///
/// Top k: randomized subspace iteration with a Philox sketch (util/philox.h, stream 0x5EC7):
/// Ω [K, k + oversample] normal, Q = qr(E·Ω), then `powerIters` times Q = qr(E·qr(Eᵀ·Q)),
/// B = Qᵀ·E, σ = the top k singular values of B.
#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "util/cancel.h"

namespace quantscope {

/// Largest min(N, K) for which all singular values are computed.
inline constexpr std::int64_t kFullSpectrumMaxDim = 4096;

/// All singular values of the row-major [rows, cols] matrix `a`, descending. Throws
/// UnsupportedError when min(rows, cols) > kFullSpectrumMaxDim, Cancelled.
std::vector<double> singularValuesAll(std::span<const double> a, std::int64_t rows, std::int64_t cols,
                                      const CancelToken *cancel = nullptr);

/// The top k singular values by randomized subspace iteration (see the file comment).
std::vector<double> singularValuesTop(std::span<const double> a, std::int64_t rows, std::int64_t cols, int k,
                                      int powerIters, int oversample, std::uint64_t seed,
                                      const CancelToken *cancel = nullptr);

/// torch.svd_lowrank(A, q, niter) (Halko et al. Alg. 5.1 as torch writes it): A tall (else its
/// transpose), R = Philox normal [cols, q] (stream `stream`, row-major), Q = qr(A·R).Q, niter times
/// {Q = qr(Aᴴ·Q).Q; Q = qr(A·Q).Q}, B = Qᴴ·A, (U_B, S, Vᴴ) = svd(B), U = Q·U_B. No oversampling.
struct LowRankSvd {
    std::int64_t rows = 0, cols = 0, rank = 0;
    std::vector<double> u; ///< [rows, rank] row-major
    std::vector<double> s; ///< [rank] descending
    std::vector<double> v; ///< [cols, rank] row-major (A ≈ U·diag(S)·Vᵀ)
};
LowRankSvd svdLowrank(std::span<const double> a, std::int64_t rows, std::int64_t cols, int q, int niter,
                      std::uint64_t seed, std::uint32_t stream, const CancelToken *cancel = nullptr);

/// svd_lowrank's range sketch alone: A ≈ Q·B with A the tall orientation (transposed: A = aᵀ),
/// Q [m × k] and Bᵀ = Aᵀ·Q [n × k], both column-major. Q·B is the rank-k truncated SVD's product
/// (the SVD of B only rotates inside span(Q)), which is all MiLo's passes need. The products with
/// A run in 16 fixed slices over `threads` workers: the same bits for any thread count.
struct RangeSketchResult {
    std::int64_t rows = 0, cols = 0, m = 0, n = 0, q = 0;
    bool transposed = false;
    std::vector<double> Q;  ///< [m × q] column-major
    std::vector<double> Bt; ///< [n × q] column-major
};
RangeSketchResult rangeSketch(std::span<const double> a, std::int64_t rows, std::int64_t cols, int q, int niter,
                              std::uint64_t seed, std::uint32_t stream, int threads = 1,
                              const CancelToken *cancel = nullptr);
/// Writes the block [r0, r1) × [c0, c1) of a row-major FP64 matrix to `dst` (row-major, r1 − r0
/// rows of c1 − c0 values). Called from several threads at once.
using MatrixBlockFn =
    std::function<void(std::int64_t r0, std::int64_t r1, std::int64_t c0, std::int64_t c1, double *dst)>;
/// rangeSketch of a matrix that is never held whole: each product with A asks `block` for one of
/// its 16 slices (a sixteenth of the rows, or of the columns, at a time; at most min(threads, 16)
/// slices live at once). The same bits as rangeSketch over the whole matrix.
RangeSketchResult rangeSketch(const MatrixBlockFn &block, std::int64_t rows, std::int64_t cols, int q, int niter,
                              std::uint64_t seed, std::uint32_t stream, int threads = 1,
                              const CancelToken *cancel = nullptr);
/// The low-rank SVD of a sketch (svdLowrank = lowRankFromSketch(rangeSketch(…))).
LowRankSvd lowRankFromSketch(const RangeSketchResult &sketch);

} // namespace quantscope
