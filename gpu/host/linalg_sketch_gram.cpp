// SPDX-License-Identifier: MIT
// The range sketch's Gram route (linalg_sketch.h: formGram, runGram), the top-k spectrum's
// default for wide sketches and several power iterations: the Gram matrix of E's smaller side is
// formed once, and each power iteration's two products by E become one product by it.
//
// Cost on the 4096×14336 residual, top 512 (l = 520), 8 iterations (estimates for the H100; the
// measured numbers are in docs/perf.md "Spectra"):
//   E → FP64                 705 MB moved                       ≈ 0.25 ms
//   G = E·Eᵀ (DSYRK)          4096²·14336 = 240 GFLOP           ≈ 4–5 ms at 50–60 TFLOP/s
//   G's upper triangle        memset + DGEAM over 3 × 134 MB    ≈ 0.2 ms
//   Y = E·Ω (DGEMM)           2·4096·14336·520 = 61 GFLOP       ≈ 1.0 ms
//   9 × G·Q (DGEMM)           9 × 2·4096²·520 = 157 GFLOP       ≈ 2.6–3.5 ms
//   10 CholeskyQR passes      on 4096 × 520 (syrk, potrf, trsm)  ≈ 9 ms (0.93 ms a pass measured)
//   H = Qᵀ·(G·Q), DSYEVD 520                                    ≈ 5 ms (measured with the old route)
// ≈ 22–30 ms (G ≈ 9 ms if DSYRK runs as slowly as SSYRK did), against 52.2 ms measured for the
// direct route (18 FP32 products 25.7 ms, 17 QRs on both sides 20.9 ms, the final DSYRK + DSYEVD
// ≈ 5.5 ms).
#include "linalg_sketch.h"

#include <utility>

#include "kernels_milo.h"
#include "linalg_common.h"
#include "qs_gpu_compat.h"

namespace quantscope::gpu {

namespace {
/// gpumath::cholDiagonalOk's bound for the Gram route's CholeskyQR passes (linalg_sketch.h).
constexpr double kGramMinDiagRatio = 1e-6;
} // namespace

void RangeSketch::formGram(double *G, double *scratch, bool byGemm)
{
    LinalgHandles &H = linalgHandles(m_I.stream);
    const int s = gramOrder();
    const auto *X = static_cast<const double *>(m_X);
    const double one = 1.0, zero = 0.0, half = 0.5;
    if (byGemm) {
        const bool wide = m_m <= m_n;
        checkBlas(cublasDgemm(H.blas, wide ? CUBLAS_OP_T : CUBLAS_OP_N, wide ? CUBLAS_OP_N : CUBLAS_OP_T, s, s,
                              wide ? m_n : m_m, &one, X, m_cols, X, m_cols, &zero, G, s),
                  "gram gemm");
        m_I.mark("sketch Gram matrix");
        return;
    }
    QS_GPU_CHECK(qsMemsetAsync(scratch, 0, static_cast<std::size_t>(s) * s * 8, m_I.stream));
    // X = Eᵀ column-major [cols × rows], A = E: A·Aᵀ = Xᵀ·X (m ≤ n), Aᵀ·A = X·Xᵀ.
    if (m_m <= m_n)
        checkBlas(cublasDsyrk(H.blas, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_T, s, m_n, &one, X, m_cols, &zero, scratch, s),
                  "gram syrk");
    else
        checkBlas(cublasDsyrk(H.blas, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N, s, m_m, &one, X, m_cols, &zero, scratch, s),
                  "gram syrk");
    // G = S + Sᵀ: the strict triangles are x + 0 (exact), the diagonal 2·g, halved exactly.
    checkBlas(cublasDgeam(H.blas, CUBLAS_OP_N, CUBLAS_OP_T, s, s, &one, scratch, s, &one, scratch, s, G, s),
              "gram geam");
    checkBlas(cublasDscal(H.blas, s, &half, G, s + 1), "gram diagonal");
    m_I.mark("sketch Gram matrix");
}

void RangeSketch::runGram(const double *G, std::uint64_t seed, std::uint32_t stream, int niter, bool householder,
                          double *Hout)
{
    LinalgHandles &H = linalgHandles(m_I.stream);
    QS_GPU_CHECK(qsMemsetAsync(m_info.get(), 0, 2 * sizeof(int), m_I.stream));
    launch::philoxNormalColMajor64(seed, stream, m_n, m_l, static_cast<double *>(m_R.get()), m_I.S());
    m_I.mark("sketch Ω");
    const int s = gramOrder();
    const double one = 1.0, zero = 0.0;
    // C [s × l] = G·M.
    auto byGram = [&](const double *M, double *C) {
        checkBlas(cublasDgemm(H.blas, CUBLAS_OP_N, CUBLAS_OP_N, s, m_l, s, &one, G, s, M, s, &zero, C, s), "gram gemm");
        m_I.mark("sketch products with the Gram matrix");
    };
    auto byA = [&](bool transposeA, const void *M, void *C) {
        mulA(transposeA, M, C, false);
        m_I.mark("sketch products with A");
    };
    auto orth = [&](double *Y, int rows, bool last) {
        qr(Y, rows, householder, last ? 2 : 1, kGramMinDiagRatio); // its own stage marks
    };
    auto *Y = static_cast<double *>(m_Y.get()); // [m × l]
    auto *Z = static_cast<double *>(m_Z.get()); // [n × l]
    auto *R = static_cast<double *>(m_R.get()); // [n × l]: Ω, then scratch
    if (m_m <= m_n) {
        // Q lives on the m side; Z (n ≥ m rows) is the second buffer.
        double *cur = Y, *next = Z;
        byA(false, R, cur); // Y = A·Ω
        orth(cur, m_m, niter == 0);
        for (int i = 0; i < niter; ++i) {
            byGram(cur, next); // A·(Aᵀ·Q)
            orth(next, m_m, i == niter - 1);
            std::swap(cur, next);
        }
        byGram(cur, next);
        checkBlas(cublasDgemm(H.blas, CUBLAS_OP_T, CUBLAS_OP_N, m_l, m_l, s, &one, cur, s, next, s, &zero, Hout, m_l),
                  "ritz gemm");
        m_I.mark("sketch Ritz matrix");
        return;
    }
    // m > n: the bases live on the n side until the last Q.
    const double *start = R; // Z spans A·Ω's image under Aᵀ·A, or with niter = 0 A·Ω is the end
    if (niter > 0) {
        byGram(R, Z); // Aᵀ·(A·Ω)
        orth(Z, m_n, false);
        double *cur = Z, *next = R;
        for (int i = 1; i < niter; ++i) {
            byGram(cur, next);
            orth(next, m_n, false);
            std::swap(cur, next);
        }
        start = cur;
    }
    byA(false, start, Y); // Q = qr(A·Z)
    orth(Y, m_m, true);
    double *bt = start == Z ? R : Z; // the n-side buffer not holding Z (Ω, if niter = 0, is done with)
    byA(true, Y, bt);                // Bᵀ = Aᵀ·Q
    checkBlas(cublasDsyrk(H.blas, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_T, m_l, m_n, &one, bt, m_n, &zero, Hout, m_l),
              "ritz syrk");
    m_I.mark("sketch Ritz matrix");
}

} // namespace quantscope::gpu
