// SPDX-License-Identifier: MIT
// The engine's singular values (CUDA builds only: cuBLAS and cuSOLVER; Debian's ROCm has no
// hipBLAS/rocSOLVER, so HIP builds leave spectra to the CPU). FP64 throughout — no TF32, no FP32
// GEMMs: the accuracy bars (all σ within 1e-4·σ₁ of FP64 LAPACK, top k within 1e-4 relative) then
// hold with room to spare. Work on the engine's stream; buffers from its pool.
#include "engine.h"
#include "engine_impl.h"

#include <algorithm>
#include <cmath>
#include <mutex>

#include <cublas_v2.h>
#include <cusolverDn.h>

#include "device_pool.h"
#include "kernels_gemm.h"
#include "qs_gpu_compat.h"
#include "util/error.h"
#include "util/philox.h"

namespace quantscope::gpu {

namespace {

void checkBlas(cublasStatus_t s, const char *what)
{
    if (s != CUBLAS_STATUS_SUCCESS)
        throw GpuError(std::string("cuBLAS ") + what + " failed (status " + std::to_string(static_cast<int>(s)) + ")");
}
void checkSolver(cusolverStatus_t s, const char *what)
{
    if (s != CUSOLVER_STATUS_SUCCESS)
        throw GpuError(std::string("cuSOLVER ") + what + " failed (status " + std::to_string(static_cast<int>(s)) + ")");
}

/// The library handles, created once per process (device 0, the engine's device).
struct Handles {
    cublasHandle_t blas = nullptr;
    cusolverDnHandle_t solver = nullptr;
};
Handles &handles()
{
    static std::once_flag once;
    static Handles h;
    std::call_once(once, [] {
        checkBlas(cublasCreate(&h.blas), "create");
        checkSolver(cusolverDnCreate(&h.solver), "create");
    });
    return h;
}

} // namespace

std::vector<double> Engine::singularValues(std::span<const float> e, std::int64_t rows, std::int64_t cols,
                                           const SpectrumOptions &o, bool gesvd, std::string &algorithm, float *deviceMs)
{
    std::lock_guard lock(m_impl->mutex);
    Impl &I = *m_impl;
    QS_GPU_CHECK(qsSetDevice(I.device));
    Handles &H = handles();
    checkBlas(cublasSetStream(H.blas, I.stream), "set stream");
    checkSolver(cusolverDnSetStream(H.solver, I.stream), "set stream");
    const std::string what = "the singular values";
    const std::int64_t n = rows * cols, minDim = std::min(rows, cols);
    auto pool = [&](std::size_t bytes) { return poolGet(I.pool, std::max<std::size_t>(bytes, 64), what); };
    // X = the row-major A read as column-major: Aᵀ [cols × rows], leading dimension cols.
    auto f32 = pool(static_cast<std::size_t>(n) * 4);
    QS_GPU_CHECK(qsMemcpyAsync(f32.get(), e.data(), static_cast<std::size_t>(n) * 4, qsMemcpyHostToDevice, I.stream));
    QS_GPU_CHECK(qsEventRecord(I.evStart, I.stream));
    auto xb = pool(static_cast<std::size_t>(n) * 8);
    auto *X = static_cast<double *>(xb.get());
    launch::toDouble(static_cast<const float *>(f32.get()), n, X, I.stream);
    const int ldx = static_cast<int>(cols);
    auto info = pool(sizeof(int));
    auto *devInfo = static_cast<int *>(info.get());
    const double one = 1.0, zero = 0.0;

    // Eigenvalues (ascending) of the symmetric n×n matrix G (lower triangle), into w.
    auto eigvals = [&](double *G, int nn, double *w) {
        int lwork = 0;
        checkSolver(cusolverDnDsyevd_bufferSize(H.solver, CUSOLVER_EIG_MODE_NOVECTOR, CUBLAS_FILL_MODE_LOWER, nn, G, nn, w,
                                                &lwork),
                    "syevd workspace");
        auto work = pool(static_cast<std::size_t>(lwork) * 8);
        checkSolver(cusolverDnDsyevd(H.solver, CUSOLVER_EIG_MODE_NOVECTOR, CUBLAS_FILL_MODE_LOWER, nn, G, nn, w,
                                     static_cast<double *>(work.get()), lwork, devInfo),
                    "syevd");
    };
    auto sqrtDescending = [](const std::vector<double> &lambda, std::int64_t k) {
        std::vector<double> s(static_cast<std::size_t>(k));
        for (std::int64_t i = 0; i < k; ++i)
            s[static_cast<std::size_t>(i)] = std::sqrt(std::max(lambda[lambda.size() - 1 - static_cast<std::size_t>(i)], 0.0));
        return s;
    };
    auto download = [&](const double *src, std::size_t count) {
        std::vector<double> v(count);
        QS_GPU_CHECK(qsMemcpyAsync(v.data(), src, count * 8, qsMemcpyDeviceToHost, I.stream));
        return v;
    };
    auto finish = [&](std::vector<double> s) {
        int inf = 0;
        QS_GPU_CHECK(qsMemcpyAsync(&inf, devInfo, sizeof inf, qsMemcpyDeviceToHost, I.stream));
        QS_GPU_CHECK(qsEventRecord(I.evStop, I.stream));
        QS_GPU_CHECK(qsStreamSynchronize(I.stream));
        if (inf != 0)
            throw GpuError("cuSOLVER did not converge (info " + std::to_string(inf) + ")");
        if (deviceMs)
            QS_GPU_CHECK(qsEventElapsedTime(deviceMs, I.evStart, I.evStop));
        return s;
    };

    if (o.top <= 0 || o.top >= minDim) {
        const int m = static_cast<int>(minDim);
        auto wb = pool(static_cast<std::size_t>(m) * 8);
        auto *w = static_cast<double *>(wb.get());
        if (gesvd) {
            // DGESVD wants m ≥ n: X [cols × rows] when cols ≥ rows, else its transpose.
            const int M = static_cast<int>(std::max(rows, cols)), N = m;
            double *A = X;
            std::shared_ptr<void> tb;
            if (cols < rows) {
                tb = pool(static_cast<std::size_t>(n) * 8);
                A = static_cast<double *>(tb.get());
                checkBlas(cublasDgeam(H.blas, CUBLAS_OP_T, CUBLAS_OP_N, static_cast<int>(rows), static_cast<int>(cols), &one,
                                      X, ldx, &zero, A, static_cast<int>(rows), A, static_cast<int>(rows)),
                          "geam");
            }
            int lwork = 0;
            checkSolver(cusolverDnDgesvd_bufferSize(H.solver, M, N, &lwork), "gesvd workspace");
            auto work = pool(static_cast<std::size_t>(lwork) * 8);
            auto rwork = pool(static_cast<std::size_t>(N) * 8);
            checkSolver(cusolverDnDgesvd(H.solver, 'N', 'N', M, N, A, M, w, nullptr, M, nullptr, N,
                                         static_cast<double *>(work.get()), lwork, static_cast<double *>(rwork.get()),
                                         devInfo),
                        "gesvd");
            algorithm = "gesvd (cuSOLVER, FP64, device)";
            return finish(download(w, static_cast<std::size_t>(m)));
        }
        // G = the smaller Gram matrix: X·Xᵀ = AᵀA [cols²] or Xᵀ·X = AAᵀ [rows²].
        auto gb = pool(static_cast<std::size_t>(m) * static_cast<std::size_t>(m) * 8);
        auto *G = static_cast<double *>(gb.get());
        if (cols <= rows)
            checkBlas(cublasDsyrk(H.blas, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N, m, static_cast<int>(rows), &one, X, ldx, &zero,
                                  G, m),
                      "syrk");
        else
            checkBlas(cublasDsyrk(H.blas, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_T, m, static_cast<int>(cols), &one, X, ldx, &zero,
                                  G, m),
                      "syrk");
        eigvals(G, m, w);
        algorithm = "gram-eigen (FP64 DSYRK + DSYEVD, device)";
        const auto lambda = download(w, static_cast<std::size_t>(m));
        return finish(sqrtDescending(lambda, m));
    }

    // Top k: the CPU's randomized subspace iteration (numeric/svd.h), the same Ω.
    const int k = static_cast<int>(o.top);
    const int l = static_cast<int>(std::min<std::int64_t>(k + std::max(o.oversample, 0), minDim));
    const int R = static_cast<int>(rows), C = static_cast<int>(cols);
    std::vector<double> omega(static_cast<std::size_t>(cols) * static_cast<std::size_t>(l));
    philox::fillNormal(o.seed, 0x5EC7u, omega.data(), static_cast<std::uint64_t>(omega.size()));
    auto ob = pool(omega.size() * 8);
    QS_GPU_CHECK(qsMemcpyAsync(ob.get(), omega.data(), omega.size() * 8, qsMemcpyHostToDevice, I.stream));
    auto yb = pool(static_cast<std::size_t>(R) * l * 8), zb = pool(static_cast<std::size_t>(C) * l * 8);
    auto *Y = static_cast<double *>(yb.get());
    auto *Z = static_cast<double *>(zb.get());
    auto tb = pool(static_cast<std::size_t>(l) * 8);
    auto *tau = static_cast<double *>(tb.get());
    int lwork = 0, lw2 = 0;
    checkSolver(cusolverDnDgeqrf_bufferSize(H.solver, std::max(R, C), l, Y, std::max(R, C), &lwork), "geqrf workspace");
    checkSolver(cusolverDnDorgqr_bufferSize(H.solver, std::max(R, C), l, l, Y, std::max(R, C), tau, &lw2), "orgqr workspace");
    lwork = std::max(lwork, lw2);
    auto work = pool(static_cast<std::size_t>(lwork) * 8);
    auto householder = [&](double *A, int m) { // A [m × l] ← its thin Q
        checkSolver(cusolverDnDgeqrf(H.solver, m, l, A, m, tau, static_cast<double *>(work.get()), lwork, devInfo), "geqrf");
        checkSolver(cusolverDnDorgqr(H.solver, m, l, l, A, m, tau, static_cast<double *>(work.get()), lwork, devInfo),
                    "orgqr");
    };
    // CholeskyQR2: R = chol(AᵀA), A ← A·R⁻¹, twice (the second pass restores orthogonality to
    // machine precision while cond(A) ≲ 1e7). The same column space as Householder's Q, so the
    // same σ of B; a tenth of the time (BLAS-3 only). Cholesky's failure (a numerically singular
    // block: one small device-to-host copy per pass tells) falls back to Householder.
    auto cgb = pool(static_cast<std::size_t>(l) * l * 8);
    auto *CG = static_cast<double *>(cgb.get());
    int lwc = 0;
    checkSolver(cusolverDnDpotrf_bufferSize(H.solver, CUBLAS_FILL_MODE_UPPER, l, CG, l, &lwc), "potrf workspace");
    auto cwork = pool(static_cast<std::size_t>(lwc) * 8);
    auto cholPass = [&](double *A, int m) {
        checkBlas(cublasDsyrk(H.blas, CUBLAS_FILL_MODE_UPPER, CUBLAS_OP_T, l, m, &one, A, m, &zero, CG, l), "syrk");
        checkSolver(cusolverDnDpotrf(H.solver, CUBLAS_FILL_MODE_UPPER, l, CG, l, static_cast<double *>(cwork.get()), lwc,
                                     devInfo),
                    "potrf");
        int inf = 0;
        QS_GPU_CHECK(qsMemcpyAsync(&inf, devInfo, sizeof inf, qsMemcpyDeviceToHost, I.stream));
        QS_GPU_CHECK(qsStreamSynchronize(I.stream));
        if (inf != 0)
            return false;
        checkBlas(cublasDtrsm(H.blas, CUBLAS_SIDE_RIGHT, CUBLAS_FILL_MODE_UPPER, CUBLAS_OP_N, CUBLAS_DIAG_NON_UNIT, m, l, &one,
                              CG, l, A, m),
                  "trsm");
        return true;
    };
    bool householderUsed = false;
    auto qr = [&](double *A, int m) {
        if (!(cholPass(A, m) && cholPass(A, m))) {
            householder(A, m); // a failed first pass left A as it was; a failed second, A·R⁻¹: either spans it
            householderUsed = true;
        }
    };
    // Y = A·Ω = Xᵀ·(Ωᵀ)ᵀ, Ω row-major [cols × l] = column-major Ωᵀ [l × cols].
    checkBlas(cublasDgemm(H.blas, CUBLAS_OP_T, CUBLAS_OP_T, R, l, C, &one, X, ldx, static_cast<const double *>(ob.get()),
                          l, &zero, Y, R),
              "gemm");
    qr(Y, R);
    for (int i = 0; i < o.powerIters; ++i) {
        checkBlas(cublasDgemm(H.blas, CUBLAS_OP_N, CUBLAS_OP_N, C, l, R, &one, X, ldx, Y, R, &zero, Z, C), "gemm"); // Aᵀ·Q
        qr(Z, C);
        checkBlas(cublasDgemm(H.blas, CUBLAS_OP_T, CUBLAS_OP_N, R, l, C, &one, X, ldx, Z, C, &zero, Y, R), "gemm"); // A·Z
        qr(Y, R);
    }
    // Bᵀ = Aᵀ·Q [cols × l]; σ(B) from Bᵀ's Gram matrix BBᵀ [l × l] (top values: relative error ~1e-16).
    checkBlas(cublasDgemm(H.blas, CUBLAS_OP_N, CUBLAS_OP_N, C, l, R, &one, X, ldx, Y, R, &zero, Z, C), "gemm");
    auto gb = pool(static_cast<std::size_t>(l) * l * 8), wb = pool(static_cast<std::size_t>(l) * 8);
    auto *G = static_cast<double *>(gb.get());
    auto *w = static_cast<double *>(wb.get());
    checkBlas(cublasDsyrk(H.blas, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_T, l, C, &one, Z, C, &zero, G, l), "syrk");
    eigvals(G, l, w);
    algorithm = householderUsed ? "randomized-subspace (FP64, Householder QR, device)"
                                : "randomized-subspace (FP64, CholeskyQR2, device)";
    const auto lambda = download(w, static_cast<std::size_t>(l));
    return finish(sqrtDescending(lambda, k));
}

} // namespace quantscope::gpu
