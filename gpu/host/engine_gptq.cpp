// SPDX-License-Identifier: MIT
// GPTQ on the device (engine.h Engine::gptq): the observer's scales and zero points from the
// engine's INT pipeline (the CPU's bits), H uploaded once, U from cuSOLVER (potrf of the reversed,
// permuted, dampened H, then trtri), the column blocks and lazy-batch updates of gptq.cu, the
// codes and Ŵ back in the original column order, one download at the end.
#include "engine.h"
#include "engine_impl.h"

#include <string>
#include <vector>

#include "device_pool.h"
#include "kernels_gptq.h"
#include "linalg_common.h"
#include "quant/data_aware.h"
#include "quant/quant_spec.h"
#include "quant/uniform.h"
#include "util/error.h"

namespace quantscope::gpu {

namespace {

void copyToDevice(const void *host, void *dev, std::size_t bytes, qsStream_t s)
{
    if (bytes > 0)
        QS_GPU_CHECK(qsMemcpyAsync(dev, host, bytes, qsMemcpyHostToDevice, s));
}

} // namespace

GptqDeviceResult Engine::gptq(const GpuTensor &w, const GptqSpec &spec, const Calibration &cal,
                              const GptqDeviceOptions &o, const CancelToken *cancel)
{
    spec.validate();
    if (spec.target != GptqTarget::Int) // never through the INT kernel: the backend sends these to the CPU
        throw UnsupportedError("gptq on the GPU quantizes the INT targets; target " + toString(spec.target) +
                               " runs on the CPU");
    const auto [N, K] = matrixView(w.shape());
    if (w.shape().size() != 2 || K != cal.k)
        throw UnsupportedError("gptq: " + w.name() + " has " + std::to_string(K) + " input features, the capture's " +
                               cal.module + " " + std::to_string(cal.k));
    if (spec.blockSize > launch::kGptqMaxBlock && spec.blockSize < K)
        throw UnsupportedError("gptq on the GPU takes block_size ≤ " + std::to_string(launch::kGptqMaxBlock) +
                               " (or ≥ K); " + std::to_string(spec.blockSize) + " runs on the CPU");
    const long long B = std::min<long long>(spec.blockSize, K);
    if (B > launch::kGptqMaxBlock)
        throw UnsupportedError("gptq on the GPU holds at most " + std::to_string(launch::kGptqMaxBlock) +
                               " columns per block; K = " + std::to_string(K) + " with block_size ≥ K runs on the CPU");
    std::string source;
    const std::vector<double> h = gptqHessian(cal, source);
    const GptqOrder order = gptqOrder(h, K, spec);

    GptqDeviceResult res;
    // The observer: the int method's scales and zero points of the original W (the pipeline's
    // bits are the CPU's).
    {
        const QuantSpec intSpec{spec.quant};
        PipelineOptions po;
        po.metrics = false;
        po.downloadCodes = false;
        auto run = enqueue(w, &intSpec, po);
        collect(*run, &res.quantized, nullptr);
    }
    QuantizedTensor &q = res.quantized;
    if (q.nonFiniteGroups > 0)
        throw UnsupportedError("gptq: " + w.name() + " holds NaN/Inf (first at element " +
                               std::to_string(q.firstNonFinite) + "); GPTQ needs finite weights");
    q.method = "gptq";
    q.spec = spec.toJson();
    q.codes.clear();
    q.dequantized.clear();

    std::shared_ptr<GpuTensor> wHatTensor;
    {
        std::lock_guard lock(m_impl->mutex);
        Impl &I = *m_impl;
        QS_GPU_CHECK(qsSetDevice(I.device));
        I.markNames.clear();
        const std::string what = "GPTQ of tensor '" + w.name() + "'";
        auto pool = [&](std::size_t bytes, const std::string &name) {
            return poolGet(I.pool, std::max<std::size_t>(bytes, 64), name + " (" + what + ")");
        };
        const auto n = static_cast<std::size_t>(N * K), kk = static_cast<std::size_t>(K * K);
        // Host → device: H, the order, the observer's scales (and zero points).
        auto hb = pool(kk * 8, "H");
        auto rb = pool(kk * 8, "the reversed H and its factor");
        auto ub = pool(kk * 4, "U");
        auto pb = pool(static_cast<std::size_t>(K) * 8, "the column order");
        auto db = pool(static_cast<std::size_t>(K), "the dead columns");
        auto sb = pool(q.scales.size() * 4, "the scales");
        auto zb = pool(q.zeros.size(), "the zero points");
        auto lb = pool(static_cast<std::size_t>(N) * 8, "the row losses");
        auto ib = pool(sizeof(int), "potrf's info");
        copyToDevice(h.data(), hb.get(), kk * 8, I.stream);
        copyToDevice(order.perm.data(), pb.get(), order.perm.size() * 8, I.stream);
        copyToDevice(order.dead.data(), db.get(), order.dead.size(), I.stream);
        copyToDevice(q.scales.data(), sb.get(), q.scales.size() * 4, I.stream);
        copyToDevice(q.zeros.data(), zb.get(), q.zeros.size(), I.stream);
        QS_GPU_CHECK(qsMemsetAsync(lb.get(), 0, static_cast<std::size_t>(N) * 8, I.stream));
        // W in FP32 (decoded), then W' in the act order.
        auto w32 = hadamardRows(w, 0);
        auto wpb = pool(n * 4, "W'");
        auto cpb = pool(n, "the codes (act order)");
        auto eb = pool(static_cast<std::size_t>(N * B) * 4, "the block's errors");
        auto *Wp = static_cast<float *>(wpb.get());
        const auto *perm = static_cast<const long long *>(pb.get());
        const auto *dead = static_cast<const unsigned char *>(db.get());
        auto *R = static_cast<double *>(rb.get());
        auto *U = static_cast<float *>(ub.get());
        auto *info = static_cast<int *>(ib.get());
        qsEvent_t evFactor;
        QS_GPU_CHECK(qsEventCreate(&evFactor));
        struct EventGuard {
            qsEvent_t e;
            ~EventGuard() { qsEventDestroy(e); }
        } guard{evFactor};

        QS_GPU_CHECK(qsEventRecord(I.evStart, I.stream));
        launch::gptqReversedH(static_cast<const double *>(hb.get()), K, perm, dead, order.damp, R, I.S());
        LinalgHandles &L = linalgHandles(I.stream);
        int lwork = 0;
        checkSolver(cusolverDnDpotrf_bufferSize(L.solver, CUBLAS_FILL_MODE_LOWER, static_cast<int>(K), R,
                                                static_cast<int>(K), &lwork),
                    "potrf workspace");
        std::size_t trDev = 0, trHost = 0;
        checkSolver(cusolverDnXtrtri_bufferSize(L.solver, CUBLAS_FILL_MODE_LOWER, CUBLAS_DIAG_NON_UNIT, K, CUDA_R_64F,
                                                R, K, &trDev, &trHost),
                    "trtri workspace");
        auto work = pool(std::max<std::size_t>(static_cast<std::size_t>(lwork) * 8, trDev), "the solver's workspace");
        std::vector<char> hostWork(trHost);
        I.mark("GPTQ reversed H");
        checkSolver(cusolverDnDpotrf(L.solver, CUBLAS_FILL_MODE_LOWER, static_cast<int>(K), R, static_cast<int>(K),
                                     static_cast<double *>(work.get()), lwork, info),
                    "potrf");
        I.mark("GPTQ potrf");
        // L'⁻¹ from whatever potrf left; a failed factor is replaced by U = I below (the CPU's rule).
        const double *linv = R;
        std::shared_ptr<void> xb;
        if (o.inverse == GptqInverse::Trtri) {
            auto info2 = pool(sizeof(int), "trtri's info");
            checkSolver(cusolverDnXtrtri(L.solver, CUBLAS_FILL_MODE_LOWER, CUBLAS_DIAG_NON_UNIT, K, CUDA_R_64F, R, K,
                                         work.get(), trDev, hostWork.empty() ? nullptr : hostWork.data(), trHost,
                                         static_cast<int *>(info2.get())),
                        "trtri");
        } else {
            // L'·X = I by cuBLAS's triangular solve (K³ flops on the FP64 tensor cores).
            xb = pool(kk * 8, "L'⁻¹");
            auto *X = static_cast<double *>(xb.get());
            launch::gptqIdentity(X, K, I.S());
            const double one = 1.0;
            checkBlas(cublasDtrsm(L.blas, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N, CUBLAS_DIAG_NON_UNIT,
                                  static_cast<int>(K), static_cast<int>(K), &one, R, static_cast<int>(K), X,
                                  static_cast<int>(K)),
                      "trsm");
            linv = X;
        }
        I.mark("GPTQ L'⁻¹");
        launch::gptqFactorU(linv, K, info, U, I.S());
        I.mark("GPTQ U");
        QS_GPU_CHECK(qsEventRecord(evFactor, I.stream));

        launch::gptqGather(static_cast<const float *>(w32->data()), N, K, perm, dead, Wp, I.S());
        I.mark("GPTQ gather");
        launch::GptqBlockArgs a;
        a.wp = Wp;
        a.n = N;
        a.k = K;
        a.u = U;
        a.scales = static_cast<const float *>(sb.get());
        a.zeros = spec.quant.symmetric ? nullptr : static_cast<const signed char *>(zb.get());
        a.perm = perm;
        const GroupLayout &gl = q.layout;
        a.groups.granularity = gl.granularity == Granularity::Tensor    ? 0
                               : gl.granularity == Granularity::Channel ? 1
                                                                        : 2;
        a.groups.gridCols = gl.gridCols;
        a.groups.group = std::max<long long>(gl.group, 1);
        a.ip = intParams(spec.quant, DType::F32);
        a.codes = static_cast<unsigned char *>(cpb.get());
        a.err = static_cast<float *>(eb.get());
        a.rowLoss = static_cast<double *>(lb.get());
        for (long long i1 = 0; i1 < K; i1 += B) {
            if (cancel)
                cancel->check();
            const long long i2 = std::min<long long>(K, i1 + B);
            a.i1 = i1;
            a.bw = static_cast<int>(i2 - i1);
            launch::gptqBlock(a, I.S());
            I.mark("GPTQ column blocks");
            launch::gptqLazy(Wp, N, K, a.err, a.bw, U, i1, i2, I.S());
            I.mark("GPTQ lazy-batch updates");
        }
        auto codes = pool(n, "the codes");
        auto out = pool(n * 4, "Ŵ");
        launch::gptqScatter(a.codes, Wp, N, K, perm, static_cast<unsigned char *>(codes.get()),
                            static_cast<float *>(out.get()), I.S());
        I.mark("GPTQ scatter");
        QS_GPU_CHECK(qsEventRecord(I.evStop, I.stream));

        int hostInfo = 0;
        std::vector<double> rowLoss(static_cast<std::size_t>(N));
        QS_GPU_CHECK(qsMemcpyAsync(&hostInfo, info, sizeof hostInfo, qsMemcpyDeviceToHost, I.stream));
        QS_GPU_CHECK(qsMemcpyAsync(rowLoss.data(), lb.get(), rowLoss.size() * 8, qsMemcpyDeviceToHost, I.stream));
        if (o.wantCodes) {
            q.codes.resize(n);
            QS_GPU_CHECK(qsMemcpyAsync(q.codes.data(), codes.get(), n, qsMemcpyDeviceToHost, I.stream));
        }
        if (o.wantDequantized) {
            q.dequantized.resize(n);
            QS_GPU_CHECK(qsMemcpyAsync(q.dequantized.data(), out.get(), n * 4, qsMemcpyDeviceToHost, I.stream));
        }
        if (o.wantFactor) {
            res.u.resize(kk);
            QS_GPU_CHECK(qsMemcpyAsync(res.u.data(), U, kk * 4, qsMemcpyDeviceToHost, I.stream));
        }
        QS_GPU_CHECK(qsStreamSynchronize(I.stream));
        QS_GPU_CHECK(qsEventElapsedTime(&res.deviceMs, I.evStart, I.evStop));
        QS_GPU_CHECK(qsEventElapsedTime(&res.factorMs, I.evStart, evFactor));
        double loss = 0;
        for (double l : rowLoss)
            loss += l;
        q.report["hessian"] = source;
        q.report["capture"] = cal.source;
        q.report["dead_columns"] = order.deadColumns;
        q.report["rtn_fallback"] = hostInfo != 0;
        q.report["loss"] = loss;
        wHatTensor = std::make_shared<GpuTensor>(w.shape(), DType::F32, DType::F32, out.get(), w.name() + " (Ŵ)", out);
    }
    if (o.metrics)
        res.metrics = metricsOf(w, *wHatTensor, o.metricsOptions, o.inputStats);
    return res;
}

} // namespace quantscope::gpu
