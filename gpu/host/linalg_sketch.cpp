// SPDX-License-Identifier: MIT
// The randomized range finder (linalg_sketch.h) and the library handles (linalg_common.h).
#include "linalg_sketch.h"

#include <algorithm>
#include <mutex>

#include "device_pool.h"
#include "gemm/kernels_gemm.h"
#include "kernels_milo.h"
#include "linalg_common.h"
#include "qs_gpu_compat.h"

namespace quantscope::gpu {

LinalgHandles &linalgHandles(void *stream)
{
    static std::once_flag once;
    static LinalgHandles h;
    std::call_once(once, [] {
        checkBlas(cublasCreate(&h.blas), "create");
        checkSolver(cusolverDnCreate(&h.solver), "create");
    });
    checkBlas(cublasSetStream(h.blas, static_cast<cudaStream_t>(stream)), "set stream");
    checkSolver(cusolverDnSetStream(h.solver, static_cast<cudaStream_t>(stream)), "set stream");
    return h;
}

RangeSketch::RangeSketch(Engine::Impl &I, const void *X, std::int64_t rows, std::int64_t cols, bool aIsX, int l,
                         bool fp64, const std::string &what)
    : m_I(I), m_X(X), m_rows(static_cast<int>(rows)), m_cols(static_cast<int>(cols)), m_l(l), m_aIsX(aIsX), m_fp64(fp64)
{
    // A = X [cols × rows] or Xᵀ [rows × cols].
    m_m = aIsX ? m_cols : m_rows;
    m_n = aIsX ? m_rows : m_cols;
    const std::size_t L = static_cast<std::size_t>(l), big = static_cast<std::size_t>(std::max(m_m, m_n));
    auto pool = [&](std::size_t bytes, const char *name) {
        m_bytes += std::max<std::size_t>(bytes, 64);
        return poolGet(I.pool, std::max<std::size_t>(bytes, 64), std::string(name) + " of " + what);
    };
    const std::size_t es = fp64 ? 8 : 4;
    m_Y = pool(static_cast<std::size_t>(m_m) * L * es, "the sketch Q");
    m_Z = pool(static_cast<std::size_t>(m_n) * L * es, "the sketch Bᵀ");
    m_R = pool(static_cast<std::size_t>(m_n) * L * es, "the sketch Ω");
    if (!fp64) // the FP64 copy the QR works on (with fp64 it works in place)
        m_T64 = pool(big * L * 8, "the sketch's FP64 block");
    m_G = pool(L * L * 8, "the sketch's Gram matrix");
    if (fp64 && l <= launch::kSmallQrCols) // the thin CholeskyQR's partial Gram matrices
        m_parts = pool(static_cast<std::size_t>(launch::smallQrPartBlocks(static_cast<int>(big))) * L * L * 8,
                       "the sketch's partial Gram matrices");
    m_tau = pool(L * 8, "the sketch's Householder factors");
    m_info = pool(2 * sizeof(int), "the sketch's status");
    m_devInfo = static_cast<int *>(m_info.get());
    m_failed = m_devInfo + 1;
    LinalgHandles &H = linalgHandles(I.stream);
    auto *T = static_cast<double *>(fp64 ? m_Y.get() : m_T64.get()); // for the workspace queries only
    auto *G = static_cast<double *>(m_G.get());
    const int bigI = static_cast<int>(big);
    int a = 0, b = 0, c = 0;
    checkSolver(cusolverDnDgeqrf_bufferSize(H.solver, bigI, l, T, bigI, &a), "geqrf workspace");
    checkSolver(cusolverDnDorgqr_bufferSize(H.solver, bigI, l, l, T, bigI, static_cast<double *>(m_tau.get()), &b),
                "orgqr workspace");
    checkSolver(cusolverDnDpotrf_bufferSize(H.solver, CUBLAS_FILL_MODE_UPPER, l, G, l, &c), "potrf workspace");
    m_lwork = std::max({a, b, c, 1});
    m_work = pool(static_cast<std::size_t>(m_lwork) * 8, "the sketch's solver workspace");
}

void RangeSketch::mulA(bool transposeA, const void *M, void *C, bool tf32)
{
    LinalgHandles &H = linalgHandles(m_I.stream);
    const float one = 1.0f, zero = 0.0f;
    // op(A)·M with op(A) = X (no transpose: [cols × rows]) or Xᵀ ([rows × cols]).
    const bool opN = m_aIsX != transposeA;
    const int outRows = opN ? m_cols : m_rows, inner = opN ? m_rows : m_cols;
    if (m_fp64) {
        const double d1 = 1.0, d0 = 0.0;
        checkBlas(cublasDgemm(H.blas, opN ? CUBLAS_OP_N : CUBLAS_OP_T, CUBLAS_OP_N, outRows, m_l, inner, &d1,
                              static_cast<const double *>(m_X), m_cols, static_cast<const double *>(M), inner, &d0,
                              static_cast<double *>(C), outRows),
                  "sketch gemm");
        return;
    }
    checkBlas(cublasGemmEx(H.blas, opN ? CUBLAS_OP_N : CUBLAS_OP_T, CUBLAS_OP_N, outRows, m_l, inner, &one, m_X,
                           CUDA_R_32F, m_cols, M, CUDA_R_32F, inner, &zero, C, CUDA_R_32F, outRows,
                           tf32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
              "sketch gemm");
}

void RangeSketch::qr(void *Y, int rows, bool householder, int cholPasses, double minDiagRatio, bool thinChecked)
{
    LinalgHandles &H = linalgHandles(m_I.stream);
    auto *T = static_cast<double *>(m_fp64 ? Y : m_T64.get());
    auto *G = static_cast<double *>(m_G.get());
    auto *work = static_cast<double *>(m_work.get());
    const long long count = static_cast<long long>(rows) * m_l;
    // Stage marks per step (profiling only): which of the Gram, the Cholesky and the solve holds
    // the QR's time.
    if (!m_fp64) {
        launch::toDouble(static_cast<const float *>(Y), count, T, m_I.S());
        m_I.mark("sketch QR: FP32 ↔ FP64");
    }
    if (householder) {
        auto *tau = static_cast<double *>(m_tau.get());
        checkSolver(cusolverDnDgeqrf(H.solver, rows, m_l, T, rows, tau, work, m_lwork, m_devInfo), "geqrf");
        checkSolver(cusolverDnDorgqr(H.solver, rows, m_l, m_l, T, rows, tau, work, m_lwork, m_devInfo), "orgqr");
        m_I.mark("sketch QR: Householder (DGEQRF + DORGQR)");
    } else if (m_parts && (minDiagRatio == 0 || thinChecked)) {
        // Thin blocks (MiLo's sketch at l ≤ 32): the same three steps in three small kernels.
        for (int pass = 0; pass < cholPasses; ++pass) {
            launch::cholQrSmall(T, rows, m_l, static_cast<double *>(m_parts.get()), G, m_failed, m_I.S());
            if (minDiagRatio > 0) // the thin path leaves *m_devInfo at run()'s 0
                launch::cholCheck(G, m_l, minDiagRatio, m_devInfo, m_failed, m_I.S());
        }
        m_I.mark("sketch QR: thin CholeskyQR (3 kernels)");
    } else {
        const double one = 1.0, zero = 0.0;
        for (int pass = 0; pass < cholPasses; ++pass) {
            checkBlas(cublasDsyrk(H.blas, CUBLAS_FILL_MODE_UPPER, CUBLAS_OP_T, m_l, rows, &one, T, rows, &zero, G, m_l),
                      "syrk");
            m_I.mark("sketch QR: Gram (DSYRK)");
            checkSolver(cusolverDnDpotrf(H.solver, CUBLAS_FILL_MODE_UPPER, m_l, G, m_l, work, m_lwork, m_devInfo),
                        "potrf");
            if (minDiagRatio > 0)
                launch::cholCheck(G, m_l, minDiagRatio, m_devInfo, m_failed, m_I.S());
            else
                launch::orFlag(m_devInfo, m_failed, m_I.S());
            m_I.mark("sketch QR: Cholesky (DPOTRF + check)");
            checkBlas(cublasDtrsm(H.blas, CUBLAS_SIDE_RIGHT, CUBLAS_FILL_MODE_UPPER, CUBLAS_OP_N, CUBLAS_DIAG_NON_UNIT,
                                  rows, m_l, &one, G, m_l, T, rows),
                      "trsm");
            m_I.mark("sketch QR: solve (DTRSM)");
        }
    }
    if (!m_fp64) {
        launch::toFloat(T, count, static_cast<float *>(Y), m_I.S());
        m_I.mark("sketch QR: FP32 ↔ FP64");
    }
}

void RangeSketch::run(std::uint64_t seed, std::uint32_t stream, int niter, bool householder, bool tf32, bool plainPower)
{
    QS_GPU_CHECK(qsMemsetAsync(m_info.get(), 0, 2 * sizeof(int), m_I.stream));
    if (m_fp64)
        launch::philoxNormalColMajor64(seed, stream, m_n, m_l, static_cast<double *>(m_R.get()), m_I.S());
    else
        launch::philoxNormalColMajor(seed, stream, m_n, m_l, static_cast<float *>(m_R.get()), m_I.S());
    const void *R = m_R.get();
    m_I.mark("sketch Ω");
    auto product = [&](bool transposeA, const void *M, void *C) {
        mulA(transposeA, M, C, tf32);
        m_I.mark("sketch products with A");
    };
    // Intermediate bases only need to be well conditioned (the next product spans the same
    // space): one CholeskyQR pass; the final Q two (orthonormal to machine precision).
    auto orth = [&](void *Y, int rows, bool last) {
        qr(Y, rows, householder, last ? 2 : 1); // its own stage marks
    };
    if (plainPower && m_fp64 && !householder && niter > 0 && niter <= kPlainPowerMaxIters) {
        // No QR between the products (their span is the same in exact arithmetic): in MiLo's
        // sketches at l = 512 the four intermediate CholeskyQRs were two thirds of the QR's time.
        product(false, R, q()); // Y = A·Ω
        for (int i = 0; i < niter; ++i) {
            product(true, q(), bt());  // Z = Aᵀ·Y
            product(false, bt(), q()); // Y = A·Z
        }
        qr(q(), m_m, false, 2, kPlainPowerMinDiagRatio, true);
        product(true, q(), bt()); // Bᵀ = Aᵀ·Q
        return;
    }
    product(false, R, q()); // Y = A·Ω
    orth(q(), m_m, niter == 0);
    for (int i = 0; i < niter; ++i) {
        product(true, q(), bt()); // Z = Aᵀ·Q
        orth(bt(), m_n, false);
        product(false, bt(), q()); // Y = A·Z
        orth(q(), m_m, i == niter - 1);
    }
    product(true, q(), bt()); // Bᵀ = Aᵀ·Q
}

} // namespace quantscope::gpu
