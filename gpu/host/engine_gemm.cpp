// SPDX-License-Identifier: MIT
// The engine's activation quantizers and paired GEMM simulation (kernels in gemm_sim.cu; the
// dynamic activation quantizers are the pipeline's INT and FP8 runs), on the engine's stream.
#include "engine.h"
#include "engine_impl.h"

#include <algorithm>

#include "device_pool.h"
#include "kernels_gemm.h"
#include "plan.h"
#include "qs_gpu_compat.h"
#include "util/error.h"

namespace quantscope::gpu {

namespace {

template <typename T>
std::shared_ptr<void> uploadVec(Engine::Impl &I, const T *data, std::size_t count, const std::string &what)
{
    auto p = poolGet(I.pool, std::max<std::size_t>(count * sizeof(T), 16), what);
    if (count)
        QS_GPU_CHECK(qsMemcpyAsync(p.get(), data, count * sizeof(T), qsMemcpyHostToDevice, I.stream));
    return p;
}

template <typename T> std::vector<T> downloadVec(Engine::Impl &I, const void *src, std::size_t count)
{
    std::vector<T> v(count);
    if (count)
        QS_GPU_CHECK(qsMemcpyAsync(v.data(), src, count * sizeof(T), qsMemcpyDeviceToHost, I.stream));
    return v;
}

} // namespace

QuantizedActivations Engine::quantizeActivations(const GpuTensor &x, const ActQuantSpec &spec)
{
    QuantizedActivations a;
    std::tie(a.rows, a.cols) = matrixView(x.shape());
    a.int8 = spec.int8();
    a.perToken = spec.perToken();
    if (spec.kind != ActQuantKind::Static) {
        // quant/activation.cpp: the `int` quantizer (8 bits, channel axis 0, scale rule max) or `fp8`
        // per channel / per tensor — the pipeline's codes are the CPU's.
        QuantSpec qs;
        if (spec.kind == ActQuantKind::Int8Token) {
            IntSpec s;
            s.bits = 8;
            s.granularity = Granularity::Channel;
            s.axis = 0;
            s.symmetric = true;
            s.scaleRule = ScaleRule::Max;
            qs = s;
        } else {
            Fp8Spec s;
            s.granularity = spec.kind == ActQuantKind::Fp8Token ? Granularity::Channel : Granularity::Tensor;
            qs = s;
        }
        PipelineOptions po;
        po.metrics = false;
        po.wantDequantized = true;
        QuantizedTensor q;
        auto run = enqueue(x, &qs, po);
        collect(*run, &q, nullptr);
        a.codes = std::move(q.codes);
        a.scales = std::move(q.scales);
        a.dequantized = std::move(q.dequantized);
        a.nonFinite = q.nonFiniteGroups;
        a.scaleSource = "dynamic";
        return a;
    }
    std::lock_guard lock(m_impl->mutex);
    Impl &I = *m_impl;
    QS_GPU_CHECK(qsSetDevice(I.device));
    const auto n = static_cast<std::size_t>(x.numel());
    const std::string what = "the activations '" + x.name() + "'";
    auto small = poolGet(I.pool, 64, what);
    auto *absBits = static_cast<unsigned *>(small.get());
    auto *sOut = reinterpret_cast<float *>(static_cast<char *>(small.get()) + 16);
    auto *bad = reinterpret_cast<unsigned long long *>(static_cast<char *>(small.get()) + 32);
    QS_GPU_CHECK(qsMemsetAsync(small.get(), 0, 64, I.stream));
    auto codes = poolGet(I.pool, std::max<std::size_t>(n, 16), what);
    auto deq = poolGet(I.pool, std::max<std::size_t>(n * 4, 16), what);
    const int in = inTypeOf(x.storage());
    if (!spec.staticScale)
        launch::absMaxFinite(in, x.data(), static_cast<long long>(n), absBits, I.S());
    launch::actStatic(in, x.data(), static_cast<long long>(n), spec.staticScale.value_or(1.0f),
                      spec.staticScale ? nullptr : absBits, sOut, static_cast<unsigned char *>(codes.get()),
                      static_cast<float *>(deq.get()), bad, I.S());
    a.codes = downloadVec<std::uint8_t>(I, codes.get(), n);
    a.dequantized = downloadVec<float>(I, deq.get(), n);
    a.scales = downloadVec<float>(I, sOut, 1);
    const auto nb = downloadVec<unsigned long long>(I, bad, 1);
    QS_GPU_CHECK(qsStreamSynchronize(I.stream));
    a.nonFinite = static_cast<std::int64_t>(nb[0]);
    a.scaleSource = spec.staticScale ? "user" : "absmax of the loaded tensor";
    return a;
}

void Engine::simulateGemm(const GemmOperands &ops, bool keepOutput, GemmSums &out)
{
    std::lock_guard lock(m_impl->mutex);
    Impl &I = *m_impl;
    QS_GPU_CHECK(qsSetDevice(I.device));
    const auto M = static_cast<std::size_t>(ops.M), N = static_cast<std::size_t>(ops.N),
               K = static_cast<std::size_t>(ops.K);
    const std::string what = "the GEMM simulation";
    std::vector<std::shared_ptr<void>> keep;
    auto up = [&](const auto *p, std::size_t count) {
        keep.push_back(uploadVec(I, p, count, what));
        return keep.back().get();
    };
    launch::SimGemmArgs a;
    a.mode = ops.mode;
    a.M = ops.M;
    a.N = ops.N;
    a.K = ops.K;
    a.xs = static_cast<const float *>(up(ops.xs, M * K));
    a.ws = static_cast<const float *>(up(ops.ws, N * K));
    a.what = static_cast<const float *>(up(ops.what, N * K));
    if (ops.mode == GemmOperands::Int8) {
        a.xq = static_cast<const signed char *>(up(ops.xq, M * K));
        a.wq = static_cast<const signed char *>(up(ops.wq, N * K));
    } else {
        a.xa = static_cast<const float *>(up(ops.xa, M * K));
        a.wa = static_cast<const float *>(up(ops.wa, N * K));
    }
    if (ops.mode != GemmOperands::A16) {
        a.sx = static_cast<const float *>(up(ops.sx, ops.perToken ? M : 1));
        a.perToken = ops.perToken;
        a.outer = ops.outer;
        a.dropZ = ops.dropZ;
        a.runs = static_cast<int>(ops.segEnd.size());
        static_assert(sizeof(long long) == sizeof(std::int64_t));
        a.segEnd = static_cast<const long long *>(up(ops.segEnd.data(), ops.segEnd.size()));
        a.segS = static_cast<const float *>(up(ops.segS.data(), ops.segS.size()));
        a.segSo = static_cast<const float *>(up(ops.segSo.data(), ops.segSo.size()));
        a.segZ = static_cast<const int *>(up(ops.segZ.data(), ops.segZ.size()));
    }
    const int nb = launch::simGemmColumnBlocks(ops.N);
    auto parts = poolGet(I.pool, std::max<std::size_t>(M * static_cast<std::size_t>(nb) * 3 * 8, 16), what);
    auto sums = poolGet(I.pool, std::max<std::size_t>(M * 3 * 8, 16), what);
    std::shared_ptr<void> outBuf;
    if (keepOutput) {
        outBuf = poolGet(I.pool, std::max<std::size_t>(M * N * 4, 16), what);
        a.out = static_cast<float *>(outBuf.get());
    }
    a.parts = static_cast<double *>(parts.get());
    launch::simGemm(a, I.S());
    launch::simReduce(a.parts, ops.M, nb, static_cast<double *>(sums.get()), I.S());
    const auto s = downloadVec<double>(I, sums.get(), M * 3);
    if (keepOutput)
        out.output = downloadVec<float>(I, outBuf.get(), M * N);
    QS_GPU_CHECK(qsStreamSynchronize(I.stream));
    out.yy.resize(M);
    out.es.resize(M);
    out.ew.resize(M);
    for (std::size_t m = 0; m < M; ++m) {
        out.yy[m] = s[3 * m];
        out.es[m] = s[3 * m + 1];
        out.ew[m] = s[3 * m + 2];
    }
}

} // namespace quantscope::gpu
