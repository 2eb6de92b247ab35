// SPDX-License-Identifier: MIT
// The output-aware error on the device (CUDA builds only: cuBLAS; docs/numerics.md "Output-aware
// error"). tr(ΔW G ΔWᵀ) = tr(H · DᵀD) with H = (G + Gᵀ)/2 and D = W − Ŵ: D is split into BF16
// hi + lo (D − hi − lo within 2⁻¹⁷·|D|), DᵀD ≈ hiᵀhi + hiᵀlo + loᵀhi by cuBLAS GEMMs with FP32
// accumulation — hiᵀhi only in its lower block triangle (it is symmetric), hiᵀlo in full (tr(H·loᵀhi)
// = tr(H·hiᵀlo)) — and the trace is summed in FP64 in a fixed order. G stays on the device between
// the runs of one tensor (uploadGram); Ŵ is read where the pipeline left it.
#include "engine.h"
#include "engine_impl.h"

#include <algorithm>
#include <mutex>

#include "device_pool.h"
#include "kernels_outerr.h"
#include "linalg_common.h"
#include "qs_gpu_compat.h"
#include "util/error.h"

namespace quantscope::gpu {

namespace {

/// DᵀD's block rows: 1024 columns (measured on an H200 for K = 4096 against 512, 2048 and the
/// full product: bench/gpu_outerr.cpp).
constexpr std::int64_t kDefaultBlock = 1024;
/// Rows per accumulation chain of hiᵀhi (see gramEnergy).
constexpr std::int64_t kDefaultChunk = 2048;

} // namespace

std::shared_ptr<const GramOnDevice> Engine::uploadGram(const GramMatrix &g)
{
    const std::int64_t k = g.k;
    const std::size_t expect = static_cast<std::size_t>(g.diagonal ? k : k * k);
    if (k <= 0 || g.value.size() != expect)
        throw UnsupportedError("output-aware error: the Gram holds " + std::to_string(g.value.size()) +
                               " values, not those of K = " + std::to_string(k));
    if (!g.diagonal && k > 65535)
        throw GpuError("output-aware error: a full Gram of K = " + std::to_string(k) + " > 65535 on the device");
    auto out = std::make_shared<GramOnDevice>();
    out->k = k;
    out->diagonal = g.diagonal;
    const Tensor host = Tensor::borrow(DType::F64, g.diagonal ? Shape{k} : Shape{k, k},
                                       reinterpret_cast<const std::byte *>(g.value.data()), nullptr);
    std::lock_guard lock(m_impl->mutex);
    Impl &I = *m_impl;
    QS_GPU_CHECK(qsSetDevice(I.device));
    if (g.diagonal) {
        out->bytes = expect * 8;
        out->values = poolGet(I.pool, out->bytes, "the diagonal Gram");
        QS_GPU_CHECK(qsMemcpyAsync(out->values.get(), g.value.data(), out->bytes, qsMemcpyHostToDevice, I.stream));
        QS_GPU_CHECK(qsStreamSynchronize(I.stream));
        return out;
    }
    // FP64 → FP32 in the pinned staging slices (exact for a capture's FP32 Gram), then (G + Gᵀ)/2.
    auto g32 = upload(host, "the Gram");
    out->bytes = expect * 4;
    out->values = poolGet(I.pool, out->bytes, "the Gram");
    launch::symmetrizeGram(static_cast<const float *>(g32->data()), static_cast<float *>(out->values.get()), k,
                           I.stream);
    QS_GPU_CHECK(qsStreamSynchronize(I.stream));
    return out;
}

double Engine::gramEnergy(const GpuTensor &w, const GpuTensor *wHat, const GramOnDevice &g,
                          const GramEnergyOptions &options, float *deviceMs)
{
    const auto [rows, cols] = matrixView(w.shape());
    if (cols != g.k || (wHat && (wHat->numel() != w.numel() || wHat->storage() != DType::F32)))
        throw UnsupportedError("output-aware error: the weight is " + shapeToString(w.shape()) +
                               " but the Gram is for K = " + std::to_string(g.k));
    std::lock_guard lock(m_impl->mutex);
    Impl &I = *m_impl;
    QS_GPU_CHECK(qsSetDevice(I.device));
    const std::int64_t k = g.k, n = w.numel();
    const int in = inTypeOf(w.storage());
    const float *hat = wHat ? static_cast<const float *>(wHat->data()) : nullptr;
    const std::string what = "the output error of '" + w.name() + "'";
    auto pool = [&](std::size_t bytes) { return poolGet(I.pool, std::max<std::size_t>(bytes, 64), what); };
    auto result = pool(8);
    auto *out = static_cast<double *>(result.get());
    I.markNames.clear();
    QS_GPU_CHECK(qsEventRecord(I.evStart, I.stream));
    std::shared_ptr<void> partials;
    if (g.diagonal) {
        partials = pool(launch::kDiagBlocks * sizeof(double));
        launch::gramDiagonal(in, w.data(), hat, n, k, static_cast<const double *>(g.values.get()),
                             static_cast<double *>(partials.get()), out, I.stream);
    } else {
        using launch::ResidualSplit;
        const ResidualSplit split = options.precision == GramPrecision::Bf16Split ? ResidualSplit::Bf16HiLo
                                    : options.precision == GramPrecision::Bf16    ? ResidualSplit::Bf16
                                                                                  : ResidualSplit::Fp32;
        const bool bf16 = split != ResidualSplit::Fp32;
        const std::size_t es = bf16 ? 2 : 4, nn = static_cast<std::size_t>(n);
        auto x0 = pool(nn * es);
        std::shared_ptr<void> x1, c;
        if (split == ResidualSplit::Bf16HiLo)
            x1 = pool(nn * es), c = pool(static_cast<std::size_t>(k * k) * 4);
        auto p = pool(static_cast<std::size_t>(k * k) * 4);
        partials = pool(static_cast<std::size_t>(k) * sizeof(double));
        launch::splitResidual(in, w.data(), hat, n, split, x0.get(), x1 ? x1.get() : nullptr, I.stream);
        I.mark("split D = W − Ŵ");
        LinalgHandles &H = linalgHandles(I.stream);
        const cudaDataType_t ab = bf16 ? CUDA_R_16BF : CUDA_R_32F;
        const cublasComputeType_t ct =
            options.precision == GramPrecision::Tf32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
        const float one = 1.0f, zero = 0.0f;
        // D row-major [rows × k] is Dᵀ column-major [k × rows], ld k: (DᵀD)[I-block, 0:(I+1)b] =
        // Dᵀ[I-block, :] · (Dᵀ[0:(I+1)b, :])ᵀ — an NT GEMM per block row into P (column-major).
        const std::int64_t block = std::clamp<std::int64_t>(options.block > 0 ? options.block : kDefaultBlock, 1, k);
        const int ki = static_cast<int>(k), ri = static_cast<int>(rows);
        auto *pp = static_cast<float *>(p.get());
        const auto *a0 = static_cast<const char *>(x0.get());
        // The tensor cores add each k-step into the FP32 accumulator rounding toward zero: over
        // the long reduction (all rows) that biases the positive diagonal of DᵀD low by ~steps·2⁻²⁵
        // (measured 4e-5 relative over 14336 rows). Chains of `chunk` rows, added by the GEMM's
        // epilogue (β = 1, round to nearest), bound it.
        const std::int64_t chunk =
            std::clamp<std::int64_t>(options.chunkRows > 0 ? options.chunkRows : kDefaultChunk, 1, rows);
        for (std::int64_t r0 = 0; r0 < rows; r0 += chunk) {
            const int kr = static_cast<int>(std::min(chunk, rows - r0));
            const char *ar = a0 + r0 * k * static_cast<std::int64_t>(es);
            for (std::int64_t i0 = 0; i0 < k; i0 += block) {
                const int m = static_cast<int>(std::min(block, k - i0)), nc = static_cast<int>(std::min(i0 + block, k));
                checkBlas(cublasGemmEx(H.blas, CUBLAS_OP_N, CUBLAS_OP_T, m, nc, kr, &one,
                                       ar + i0 * static_cast<std::int64_t>(es), ab, ki, ar, ab, ki,
                                       r0 == 0 ? &zero : &one, pp + i0, CUDA_R_32F, ki, ct, CUBLAS_GEMM_DEFAULT),
                          "DᵀD block row");
            }
        }
        (void)ri;
        I.mark("hiᵀhi");
        if (c)
            checkBlas(cublasGemmEx(H.blas, CUBLAS_OP_N, CUBLAS_OP_T, ki, ki, ri, &one, x0.get(), ab, ki, x1.get(), ab,
                                   ki, &zero, c.get(), CUDA_R_32F, ki, ct, CUBLAS_GEMM_DEFAULT),
                      "hiᵀlo");
        I.mark("hiᵀlo");
        launch::gramTrace(static_cast<const float *>(g.values.get()), pp, static_cast<const float *>(c.get()), k, block,
                          static_cast<double *>(partials.get()), out, I.stream);
    }
    I.mark("trace");
    double e = 0;
    QS_GPU_CHECK(qsMemcpyAsync(&e, out, sizeof e, qsMemcpyDeviceToHost, I.stream));
    QS_GPU_CHECK(qsEventRecord(I.evStop, I.stream));
    QS_GPU_CHECK(qsStreamSynchronize(I.stream));
    if (deviceMs)
        QS_GPU_CHECK(qsEventElapsedTime(deviceMs, I.evStart, I.evStop));
    return e;
}

} // namespace quantscope::gpu
