// SPDX-License-Identifier: MIT
#pragma once
/// \file linalg_sketch.h
/// The randomized range finder behind the device's top-k spectrum and MiLo's compensator (CUDA
/// builds only; internal to gpu/). The matrix E (row-major [rows, cols], FP32) is read in
/// place as the column-major X = Eᵀ [cols × rows]; A is E or Eᵀ as the caller picks (torch's
/// svd_lowrank takes the tall one). With Ω [n × l] the seeded Philox normals of util/philox.h
/// (row-major, stream `stream`; generated on the device):
///   Q = qr(A·Ω), then `niter` times { Z = qr(Aᵀ·Q); Q = qr(A·Z) },  Bᵀ = Aᵀ·Q
/// so that A ≈ Q·B, the projection of A onto the sketched subspace.
/// Precision: the products with A (the large operands) in FP64 (fp64: E is FP64 — MiLo's loop) or
/// in FP32 with FP32 accumulation and no TF32 (or TF32 when asked, for measurement; the top-k
/// spectrum); every QR in FP64 on the thin side by CholeskyQR (R = chol(YᵀY), Y ← Y·R⁻¹; BLAS-3
/// only): once for the intermediate bases (they need only be well conditioned: the next product
/// spans the same space), twice (CholeskyQR2, orthogonal to machine precision while cond(Y) ≲
/// 1e7) for the final Q (fp64 with l ≤ 32, MiLo's thin sketches: the Gram matrix, its Cholesky and
/// the solve in three small kernels, launch::cholQrSmall, instead of DSYRK/DPOTRF/DTRSM — the same
/// steps, FP64, rounded in another order). A failed Cholesky (a numerically rank-deficient sketch) is recorded on the
/// device; the caller reads the flag with its one small copy and reruns the sketch with
/// Householder QR (DGEQRF + DORGQR), which always succeeds. Nothing synchronises inside run().
///
/// The Gram route of the top-k spectrum (runGram, linalg_sketch_gram.cpp; fp64 with A = E, so
/// m = rows, n = cols): the same subspaces by way of the FP64 Gram matrix G of the smaller side,
/// formed once (formGram), since span(Aᵀ·Q) then span(A·Z) is span(A·Aᵀ·Q):
///   m ≤ n (G = A·Aᵀ [m × m]): Q = qr(A·Ω), then `niter` times Q = qr(G·Q); H = Qᵀ·(G·Q);
///   m > n (G = Aᵀ·A [n × n]): Z = qr(G·Ω), `niter` − 1 times Z = qr(G·Z); Q = qr(A·Z);
///         Bᵀ = Aᵀ·Q, H = B·Bᵀ (niter = 0: Q = qr(A·Ω), the same end);
/// H [l × l] = B·Bᵀ with B = Qᵀ·A, whose eigenvalues are σ(B)². One CholeskyQR pass for the
/// intermediate bases, two for the final Q, Householder on request, as run(); since cond(G·Q) is
/// about (σ₁/σ_l)², a pass whose R has min |rᵢᵢ| < 1e-6·max |rᵢᵢ| also counts as failed (so
/// spectra steeper than σ₁/σ_l ≈ 1e3 take the Householder rerun).
#include <cstdint>
#include <memory>
#include <string>

#include "engine_impl.h"

namespace quantscope::gpu {

class RangeSketch {
public:
    /// X: the column-major [cols × rows] view of row-major E (FP64 with fp64, else FP32); aIsX:
    /// A = X (else A = Xᵀ = E).
    RangeSketch(Engine::Impl &I, const void *X, std::int64_t rows, std::int64_t cols, bool aIsX, int l, bool fp64,
                const std::string &what);
    int m() const { return m_m; }
    int n() const { return m_n; }
    int l() const { return m_l; }
    /// Device bytes the sketch holds.
    std::size_t bytes() const { return m_bytes; }
    bool fp64() const { return m_fp64; }
    /// Queues the whole sketch; Q [m × l] and Bᵀ [n × l] (column-major, X's precision) then hold
    /// the result. plainPower (fp64, niter ≤ kPlainPowerMaxIters, not with householder): the power
    /// iterations without the intermediate QRs (Y = A·(Aᵀ·A)^niter·Ω, the same span in exact
    /// arithmetic; scikit-learn's power_iteration_normalizer="none"), then the final CholeskyQR2
    /// with the diagonal guard kPlainPowerMinDiagRatio: Y's condition grows like (σ₁/σ_l)^(2·niter+1),
    /// so a sketch whose R has min |rᵢᵢ| < 1e-6·max |rᵢᵢ| counts as failed, and the caller reruns
    /// it with a QR after every product.
    void run(std::uint64_t seed, std::uint32_t stream, int niter, bool householder, bool tf32, bool plainPower = false);
    /// The most power iterations run() takes without intermediate QRs (scikit-learn's guidance for
    /// its "none" normalizer: unstable from about 5 iterations).
    static constexpr int kPlainPowerMaxIters = 2;
    static constexpr double kPlainPowerMinDiagRatio = 1e-6;
    void *q() const { return m_Y.get(); }
    void *bt() const { return m_Z.get(); }
    /// Device word, non-zero once a Cholesky of the last run() failed (zeroed by run()).
    const int *failed() const { return m_failed; }
    /// C [rows(op) × l] = op(A)·M (column-major), op = A or Aᵀ.
    void mulA(bool transposeA, const void *M, void *C, bool tf32);
    /// Order of the Gram matrix of the Gram route: min(m, n). (fp64, A = E only.)
    int gramOrder() const { return m_m <= m_n ? m_m : m_n; }
    /// G [s × s] (s = gramOrder(), column-major, both triangles) = A·Aᵀ (m ≤ n) or Aᵀ·A: DSYRK's
    /// lower triangle into `scratch` [s × s] (zeroed first), then G = S + Sᵀ with the diagonal
    /// halved (exact), so that G is exactly symmetric; or with byGemm one DGEMM (no scratch;
    /// symmetric up to the kernel's summation order).
    void formGram(double *G, double *scratch, bool byGemm);
    /// Queues the Gram route (see the file comment); H [l × l] (column-major; its lower triangle
    /// is what DSYEVD reads) then holds B·Bᵀ. Status as run().
    void runGram(const double *G, std::uint64_t seed, std::uint32_t stream, int niter, bool householder, double *H);

private:
    /// minDiagRatio > 0: each Cholesky pass is also checked by gpumath::cholDiagonalOk (the Gram
    /// route, whose bases are worse conditioned: cond(G·Q) ≈ (σ₁/σ_l)²); 0: potrf's status only.
    /// thinChecked: the thin kernels (l ≤ 32) also run with minDiagRatio > 0, the guard as its own
    /// check (run()'s plainPower; the Gram route keeps DSYRK/DPOTRF/DTRSM).
    void qr(void *Y, int rows, bool householder, int cholPasses, double minDiagRatio = 0, bool thinChecked = false);
    Engine::Impl &m_I;
    const void *m_X;
    int m_rows, m_cols, m_m, m_n, m_l;
    bool m_aIsX, m_fp64;
    std::shared_ptr<void> m_Y, m_Z, m_R, m_T64, m_G, m_work, m_tau, m_info, m_parts;
    int *m_failed = nullptr, *m_devInfo = nullptr;
    int m_lwork = 0;
    std::size_t m_bytes = 0;
};

} // namespace quantscope::gpu
