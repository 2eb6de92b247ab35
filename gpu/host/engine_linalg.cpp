// SPDX-License-Identifier: MIT
// The engine's singular values (CUDA builds only: cuBLAS and cuSOLVER; Debian's ROCm has no
// hipBLAS/rocSOLVER, so HIP builds leave spectra to the CPU). All σ: FP64 Gram + DSYEVD (kept:
// every σ within 1e-4·σ₁ of FP64 LAPACK), DGESVD or the FP32 Gram (measured). Top k: the range
// sketch (linalg_sketch.h) along the TopKRoute — through the FP64 Gram matrix of the smaller side,
// or FP32 products with E (no TF32) — every small step in FP64; the top k within 1e-4 relative of
// the CPU's FP64 sketch. Work on the engine's stream; buffers from its pool.
#include "engine.h"
#include "engine_impl.h"

#include <algorithm>
#include <cmath>
#include <mutex>

#include "device_pool.h"
#include "gemm/kernels_gemm.h"
#include "linalg_common.h"
#include "linalg_sketch.h"
#include "qs_gpu_compat.h"
#include "util/error.h"

namespace quantscope::gpu {

std::vector<double> Engine::singularValues(std::span<const float> e, std::int64_t rows, std::int64_t cols,
                                           const SpectrumOptions &o, SvdMethod method, std::string &algorithm,
                                           float *deviceMs, TopKRoute route)
{
    std::lock_guard lock(m_impl->mutex);
    Impl &I = *m_impl;
    QS_GPU_CHECK(qsSetDevice(I.device));
    LinalgHandles &H = linalgHandles(I.stream);
    const std::string what = "the singular values";
    const std::int64_t n = rows * cols, minDim = std::min(rows, cols);
    auto pool = [&](std::size_t bytes) { return poolGet(I.pool, std::max<std::size_t>(bytes, 64), what); };
    // X = the row-major A read as column-major: Aᵀ [cols × rows], leading dimension cols.
    auto f32 = pool(static_cast<std::size_t>(n) * 4);
    QS_GPU_CHECK(qsMemcpyAsync(f32.get(), e.data(), static_cast<std::size_t>(n) * 4, qsMemcpyHostToDevice, I.stream));
    I.markNames.clear();
    QS_GPU_CHECK(qsEventRecord(I.evStart, I.stream));
    const bool all = o.top <= 0 || o.top >= minDim;
    // The FP64 copy of the FP64 "all σ" methods.
    std::shared_ptr<void> xb;
    double *X = nullptr;
    if (all && method != SvdMethod::GramF32) {
        xb = pool(static_cast<std::size_t>(n) * 8);
        X = static_cast<double *>(xb.get());
        launch::toDouble(static_cast<const float *>(f32.get()), n, X, I.stream);
    }
    const int ldx = static_cast<int>(cols);
    auto info = pool(sizeof(int));
    auto *devInfo = static_cast<int *>(info.get());
    const double one = 1.0, zero = 0.0;

    // Eigenvalues (ascending) of the symmetric n×n matrix G (lower triangle), into w.
    auto eigvals = [&](double *G, int nn, double *w) {
        int lwork = 0;
        checkSolver(cusolverDnDsyevd_bufferSize(H.solver, CUSOLVER_EIG_MODE_NOVECTOR, CUBLAS_FILL_MODE_LOWER, nn, G, nn,
                                                w, &lwork),
                    "syevd workspace");
        auto work = pool(static_cast<std::size_t>(lwork) * 8);
        checkSolver(cusolverDnDsyevd(H.solver, CUSOLVER_EIG_MODE_NOVECTOR, CUBLAS_FILL_MODE_LOWER, nn, G, nn, w,
                                     static_cast<double *>(work.get()), lwork, devInfo),
                    "syevd");
    };
    auto sqrtDescending = [](const std::vector<double> &lambda, std::int64_t k) {
        std::vector<double> s(static_cast<std::size_t>(k));
        for (std::int64_t i = 0; i < k; ++i)
            s[static_cast<std::size_t>(i)] =
                std::sqrt(std::max(lambda[lambda.size() - 1 - static_cast<std::size_t>(i)], 0.0));
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

    if (all) {
        const int m = static_cast<int>(minDim);
        auto wb = pool(static_cast<std::size_t>(m) * 8);
        auto *w = static_cast<double *>(wb.get());
        if (method == SvdMethod::GramF32) {
            // PyTorch's fast way, measured beside ours: the FP32 Gram matrix (SSYRK, no TF32) and
            // the FP32 eigensolver; the values widened to FP64. Error ≈ 1e-7·σ₁² in λ, so small σ
            // lose most of their digits (≲ 3e-4·σ₁ absolute).
            const auto *X32 = static_cast<const float *>(f32.get());
            auto gb = pool(static_cast<std::size_t>(m) * static_cast<std::size_t>(m) * 4);
            auto *G = static_cast<float *>(gb.get());
            const float onef = 1.0f, zerof = 0.0f;
            checkBlas(cublasSetMathMode(H.blas, CUBLAS_PEDANTIC_MATH), "math mode");
            const cublasStatus_t st = cols <= rows ? cublasSsyrk(H.blas, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N, m,
                                                                 static_cast<int>(rows), &onef, X32, ldx, &zerof, G, m)
                                                   : cublasSsyrk(H.blas, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_T, m,
                                                                 static_cast<int>(cols), &onef, X32, ldx, &zerof, G, m);
            checkBlas(cublasSetMathMode(H.blas, CUBLAS_DEFAULT_MATH), "math mode");
            checkBlas(st, "ssyrk");
            auto w32b = pool(static_cast<std::size_t>(m) * 4);
            auto *w32 = static_cast<float *>(w32b.get());
            int lwork = 0;
            checkSolver(cusolverDnSsyevd_bufferSize(H.solver, CUSOLVER_EIG_MODE_NOVECTOR, CUBLAS_FILL_MODE_LOWER, m, G,
                                                    m, w32, &lwork),
                        "ssyevd workspace");
            auto work = pool(static_cast<std::size_t>(lwork) * 4);
            checkSolver(cusolverDnSsyevd(H.solver, CUSOLVER_EIG_MODE_NOVECTOR, CUBLAS_FILL_MODE_LOWER, m, G, m, w32,
                                         static_cast<float *>(work.get()), lwork, devInfo),
                        "ssyevd");
            std::vector<float> l32(static_cast<std::size_t>(m));
            QS_GPU_CHECK(qsMemcpyAsync(l32.data(), w32, l32.size() * 4, qsMemcpyDeviceToHost, I.stream));
            (void)finish({});
            algorithm = "gram-eigen (FP32 SSYRK + SSYEVD, device)";
            return sqrtDescending(std::vector<double>(l32.begin(), l32.end()), m);
        }
        if (method == SvdMethod::Gesvd) {
            // DGESVD wants m ≥ n: X [cols × rows] when cols ≥ rows, else its transpose.
            const int M = static_cast<int>(std::max(rows, cols)), N = m;
            double *A = X;
            std::shared_ptr<void> tb;
            if (cols < rows) {
                tb = pool(static_cast<std::size_t>(n) * 8);
                A = static_cast<double *>(tb.get());
                checkBlas(cublasDgeam(H.blas, CUBLAS_OP_T, CUBLAS_OP_N, static_cast<int>(rows), static_cast<int>(cols),
                                      &one, X, ldx, &zero, A, static_cast<int>(rows), A, static_cast<int>(rows)),
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
            checkBlas(cublasDsyrk(H.blas, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N, m, static_cast<int>(rows), &one, X, ldx,
                                  &zero, G, m),
                      "syrk");
        else
            checkBlas(cublasDsyrk(H.blas, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_T, m, static_cast<int>(cols), &one, X, ldx,
                                  &zero, G, m),
                      "syrk");
        eigvals(G, m, w);
        algorithm = "gram-eigen (FP64 DSYRK + DSYEVD, device)";
        const auto lambda = download(w, static_cast<std::size_t>(m));
        return finish(sqrtDescending(lambda, m));
    }

    // Top k: the CPU's randomized subspace iteration (numeric/svd.h; A = E, the same Ω) through
    // the range sketch, by E in FP32 (Direct) or through the FP64 Gram matrix of the smaller side
    // (Gram), FP64 CholeskyQR (Householder when a Cholesky fails: one small copy says so); then
    // σ(B) from the FP64 matrix H = B·Bᵀ [l × l].
    const int k = static_cast<int>(o.top);
    const int l = static_cast<int>(std::min<std::int64_t>(k + std::max(o.oversample, 0), minDim));
    TopKRoute chosen = route == TopKRoute::Auto ? chooseTopKRoute(rows, cols, l, o.powerIters) : route;
    if (route == TopKRoute::Auto && chosen == TopKRoute::Gram) {
        // The Gram route holds E in FP64, G and DSYRK's triangle, and its FP64 sketch; without room
        // for them (the runtime's free memory and the pool's cached blocks), the direct route.
        const auto s = static_cast<std::size_t>(minDim), L = static_cast<std::size_t>(l);
        const std::size_t need = static_cast<std::size_t>(n) * 8 + 2 * s * s * 8 +
                                 (static_cast<std::size_t>(rows) + 2 * static_cast<std::size_t>(cols)) * L * 8 +
                                 (std::size_t{64} << 20);
        std::size_t freeB = 0, totalB = 0;
        if (qsMemGetInfo(&freeB, &totalB) != qsSuccess) {
            (void)qsGetLastError();
            freeB = 0;
        }
        {
            std::lock_guard poolLock(I.pool->mutex);
            for (const auto &[size, block] : I.pool->free)
                freeB += size;
        }
        if (freeB < need)
            chosen = TopKRoute::Direct;
    }
    auto hb = pool(static_cast<std::size_t>(l) * l * 8), wb = pool(static_cast<std::size_t>(l) * 8);
    auto *Hm = static_cast<double *>(hb.get());
    auto *w = static_cast<double *>(wb.get());
    int failed = 0;
    auto readFailed = [&](const int *flag) {
        QS_GPU_CHECK(qsMemcpyAsync(&failed, flag, sizeof failed, qsMemcpyDeviceToHost, I.stream));
        QS_GPU_CHECK(qsStreamSynchronize(I.stream));
        return failed != 0;
    };
    if (chosen == TopKRoute::Gram || chosen == TopKRoute::GramGemm) {
        xb = pool(static_cast<std::size_t>(n) * 8);
        X = static_cast<double *>(xb.get());
        launch::toDouble(static_cast<const float *>(f32.get()), n, X, I.stream);
        I.mark("E to FP64");
        RangeSketch sk(I, X, rows, cols, false, l, true, what);
        const auto s2 = static_cast<std::size_t>(sk.gramOrder()) * static_cast<std::size_t>(sk.gramOrder()) * 8;
        const bool byGemm = chosen == TopKRoute::GramGemm;
        auto gb = pool(s2);
        std::shared_ptr<void> sb = byGemm ? nullptr : pool(s2); // DSYRK's triangle
        sk.formGram(static_cast<double *>(gb.get()), static_cast<double *>(sb.get()), byGemm);
        sb.reset();
        const auto *G = static_cast<const double *>(gb.get());
        sk.runGram(G, o.seed, 0x5EC7u, o.powerIters, false, Hm);
        if (readFailed(sk.failed()))
            sk.runGram(G, o.seed, 0x5EC7u, o.powerIters, true, Hm);
        algorithm = std::string("randomized-subspace (FP64 Gram matrix") + (byGemm ? " by DGEMM" : "") +
                    (failed ? ", FP64 Householder QR, device)" : ", FP64 CholeskyQR2, device)");
    } else {
        RangeSketch sk(I, f32.get(), rows, cols, false, l, false, what);
        sk.run(o.seed, 0x5EC7u, o.powerIters, false, false);
        if (readFailed(sk.failed()))
            sk.run(o.seed, 0x5EC7u, o.powerIters, true, false);
        auto bb = pool(static_cast<std::size_t>(cols) * l * 8);
        auto *B64 = static_cast<double *>(bb.get());
        launch::toDouble(static_cast<const float *>(sk.bt()), static_cast<long long>(cols) * l, B64, I.stream);
        checkBlas(cublasDsyrk(H.blas, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_T, l, static_cast<int>(cols), &one, B64,
                              static_cast<int>(cols), &zero, Hm, l),
                  "syrk");
        I.mark("sketch Ritz matrix");
        algorithm = failed ? "randomized-subspace (FP32 products, FP64 Householder QR, device)"
                           : "randomized-subspace (FP32 products, FP64 CholeskyQR2, device)";
    }
    eigvals(Hm, l, w);
    I.mark("top-k eigenvalues (DSYEVD)");
    const auto lambda = download(w, static_cast<std::size_t>(l));
    return finish(sqrtDescending(lambda, k));
}

} // namespace quantscope::gpu
