// SPDX-License-Identifier: MIT
// The engine's activation quantizers and paired GEMM simulation (kernels in gemm_sim.cu; the
// dynamic activation quantizers are the pipeline's INT and FP8 runs), on the engine's stream.
#include "engine.h"
#include "engine_impl.h"

#include <algorithm>

#include "device_pool.h"
#include "gemm/kernels_gemm.h"
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

/// Events between the stages of simulateGemmPlanned (benchmarks only).
struct StageEvents {
    qsEvent_t ev[4] = {};
    bool on = false;
    StageEvents(bool enable, qsStream_t st) : on(enable)
    {
        if (!on)
            return;
        for (auto &e : ev)
            QS_GPU_CHECK(qsEventCreate(&e));
        QS_GPU_CHECK(qsEventRecord(ev[0], st));
    }
    ~StageEvents()
    {
        if (on)
            for (auto &e : ev)
                (void)qsEventDestroy(e);
    }
    StageEvents(const StageEvents &) = delete;
    StageEvents &operator=(const StageEvents &) = delete;
    void mark(int i, qsStream_t st)
    {
        if (on)
            QS_GPU_CHECK(qsEventRecord(ev[i], st));
    }
    float ms(int i)
    {
        float t = 0;
        QS_GPU_CHECK(qsEventElapsedTime(&t, ev[i - 1], ev[i]));
        return t;
    }
};

} // namespace

QuantizedActivations Engine::quantizeActivations(const GpuTensor &x, const ActQuantSpec &spec)
{
    QuantizedActivations a;
    std::tie(a.rows, a.cols) = matrixView(x.shape());
    a.int8 = spec.int8();
    a.perToken = spec.perToken();
    if (spec.kind != ActQuantKind::Static) {
        const QuantSpec qs = dynamicActivationSpec(spec);
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
    } else if (ops.mode == GemmOperands::Fp8) { // A16: the kernel rounds X and Ŵ to BF16 itself
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

bool Engine::simulateGemmPlanned(const GpuTensor &x, const GpuTensor &w, const GpuTensor *wHat,
                                 const QuantizedTensor &qw, const GemmPlan &plan, const GemmSimOptions &o,
                                 GemmDeviceRun &out, std::string &whyNot, GemmSimTimes *times, const void *deviceCodes)
{
    std::lock_guard lock(m_impl->mutex); // recursive: the pipeline and the rotation below take it too
    Impl &I = *m_impl;
    QS_GPU_CHECK(qsSetDevice(I.device));
    const auto st = static_cast<qsStream_t>(I.S());
    const auto M = static_cast<std::size_t>(plan.M), N = static_cast<std::size_t>(plan.N),
               K = static_cast<std::size_t>(plan.K);
    const std::string what = "the GEMM simulation";
    std::vector<std::shared_ptr<void>> keep;
    auto up = [&](const auto *p, std::size_t count) { // through the pinned staging
        keep.push_back(poolGet(I.pool, std::max<std::size_t>(count * sizeof(*p), 16), what));
        I.copyToDevice(keep.back().get(), p, count * sizeof(*p));
        return keep.back().get();
    };
    auto buf = [&](std::size_t bytes) {
        keep.push_back(poolGet(I.pool, std::max<std::size_t>(bytes, 16), what));
        return keep.back().get();
    };
    StageEvents ev(times != nullptr, st);
    // One block of results, downloaded at the end: per-token sums [M][3], the activation's two
    // sums, and the static quantizer's scale bits, scale and NaN/Inf count.
    auto *res = static_cast<double *>(buf((M * 3 + 2) * 8 + 64));
    double *actSums = res + M * 3;
    auto *small = reinterpret_cast<char *>(actSums + 2);
    QS_GPU_CHECK(qsMemsetAsync(actSums, 0, 2 * 8 + 64, st));

    launch::SimGemmArgs a;
    a.mode = plan.mode;
    a.M = plan.M;
    a.N = plan.N;
    a.K = plan.K;
    const std::shared_ptr<GpuTensor> xf = hadamardRows(x, 0); // X as FP32: Y's operand
    a.xs = static_cast<const float *>(xf->data());

    // The activation quantizer on (rotated) X, its error sums and the Ŷ operand.
    std::unique_ptr<PipelineRun> actRun;
    std::shared_ptr<GpuTensor> xHatKeep;
    if (o.act) {
        const ActQuantSpec &spec = *o.act;
        const std::shared_ptr<GpuTensor> xr = plan.rotate > 0 ? hadamardRows(x, plan.rotate) : nullptr;
        const GpuTensor &xq = xr ? *xr : x;
        const float *xo = static_cast<const float *>(xr ? xr->data() : xf->data());
        const unsigned char *codes = nullptr;
        const float *xHat = nullptr;
        if (spec.kind != ActQuantKind::Static) {
            const QuantSpec qs = dynamicActivationSpec(spec);
            PipelineOptions po;
            po.metrics = false;
            po.wantDequantized = true;
            po.keepDequantizedOnDevice = true;
            po.downloadCodes = false;
            actRun = enqueue(xq, &qs, po);
            QuantizedTensor q;
            collect(*actRun, &q, nullptr); // scales (M floats) and the NaN/Inf count
            if (q.nonFiniteGroups > 0) {
                whyNot = "NaN/Inf in the activations";
                return false;
            }
            codes = static_cast<const unsigned char *>(codesOnDevice(*actRun));
            xHatKeep = dequantizedOnDevice(*actRun);
            xHat = static_cast<const float *>(xHatKeep->data());
            a.sx = static_cast<const float *>(up(q.scales.data(), q.scales.size()));
            out.actScaleSource = "dynamic";
        } else {
            auto *absBits = reinterpret_cast<unsigned *>(small);
            auto *sOut = reinterpret_cast<float *>(small + 16);
            auto *bad = reinterpret_cast<unsigned long long *>(small + 32);
            auto *c = static_cast<unsigned char *>(buf(M * K));
            auto *d = static_cast<float *>(buf(M * K * 4));
            const int in = inTypeOf(xq.storage());
            const auto n = static_cast<long long>(M * K);
            if (!spec.staticScale)
                launch::absMaxFinite(in, xq.data(), n, absBits, I.S());
            launch::actStatic(in, xq.data(), n, spec.staticScale.value_or(1.0f), spec.staticScale ? nullptr : absBits,
                              sOut, c, d, bad, I.S());
            codes = c;
            xHat = d;
            a.sx = sOut;
            out.actScaleSource = spec.staticScale ? "user" : "absmax of the loaded tensor";
        }
        auto *scratch = static_cast<double *>(buf(static_cast<std::size_t>(launch::actErrScratch()) * 8));
        launch::actErr(xo, xHat, static_cast<long long>(M * K), scratch, actSums, I.S());
        a.perToken = spec.perToken();
        if (plan.mode == GemmOperands::Int8) {
            a.xq = reinterpret_cast<const signed char *>(codes);
        } else {
            auto *xv = static_cast<float *>(buf(M * K * 4));
            launch::e4m3Values(codes, static_cast<long long>(M * K), xv, I.S());
            a.xa = xv;
        }
    }
    ev.mark(1, st);

    // W as FP32, Ŵ and the weight's Ŷ operand from the codes.
    const std::shared_ptr<GpuTensor> wf = hadamardRows(w, 0);
    a.ws = static_cast<const float *>(wf->data());
    if (wHat && wHat->numel() != w.numel()) {
        whyNot = "the device Ŵ does not have W's shape";
        return false;
    }
    std::shared_ptr<GpuTensor> wHatF;
    if (wHat && wHat->storage() != DType::F32)
        wHatF = hadamardRows(*wHat, 0);
    const GpuTensor *hatT = wHatF ? wHatF.get() : wHat;
    const bool hatFromCodes = !hatT && plan.intDequant;
    const bool needCodes = plan.mode != GemmOperands::A16 || hatFromCodes;
    const void *dCodes = nullptr;
    const int runs = static_cast<int>(plan.segEnd.size());
    if (needCodes) {
        if ((!deviceCodes && qw.codes.size() != N * K) || runs == 0) {
            whyNot = "the weight's codes are not one per element";
            return false;
        }
        static_assert(sizeof(long long) == sizeof(std::int64_t));
        dCodes = deviceCodes ? deviceCodes : up(qw.codes.data(), N * K);
        a.runs = runs;
        a.segEnd = static_cast<const long long *>(up(plan.segEnd.data(), plan.segEnd.size()));
        a.segS = static_cast<const float *>(up(plan.segS.data(), plan.segS.size()));
        a.segSo = static_cast<const float *>(up(plan.segSo.data(), plan.segSo.size()));
        a.segZ = static_cast<const int *>(up(plan.segZ.data(), plan.segZ.size()));
        launch::WeightOperandArgs wa;
        wa.N = plan.N;
        wa.K = plan.K;
        wa.codes = static_cast<const unsigned char *>(dCodes);
        wa.runs = runs;
        wa.segEnd = a.segEnd;
        wa.segS = a.segS;
        wa.segZ = a.segZ;
        wa.codeKind = plan.codeKind;
        wa.ip = plan.intParams;
        wa.what = hatFromCodes ? static_cast<float *>(buf(N * K * 4)) : nullptr;
        wa.v = plan.mode == GemmOperands::Fp8 ? static_cast<float *>(buf(N * K * 4)) : nullptr;
        if (wa.what || wa.v)
            launch::weightOperands(wa, I.S());
        a.what = wa.what;
        a.wa = wa.v;
        if (plan.mode == GemmOperands::Int8)
            a.wq = static_cast<const signed char *>(dCodes);
    }
    if (hatT) {
        a.what = static_cast<const float *>(hatT->data());
    } else if (!hatFromCodes) { // a method whose Ŵ the device does not decode: the host's Ŵ
        if (qw.dequantized.size() == N * K) {
            a.what = static_cast<const float *>(up(qw.dequantized.data(), N * K));
        } else {
            std::vector<float> h(N * K);
            makeQuantizer(qw.spec)->dequantize(qw, h);
            a.what = static_cast<const float *>(up(h.data(), N * K));
        }
    }
    a.outer = plan.outer;
    a.dropZ = plan.dropZ;
    ev.mark(2, st);

    // The products and the per-token sums.
    const int nb = launch::simGemmColumnBlocks(plan.N);
    a.parts = static_cast<double *>(buf(M * static_cast<std::size_t>(nb) * 3 * 8));
    if (o.keepOutput)
        a.out = static_cast<float *>(buf(M * N * 4));
    launch::simGemm(a, I.S());
    launch::simReduce(a.parts, plan.M, nb, res, I.S());
    ev.mark(3, st);
    std::vector<double> s(M * 3 + 2);
    QS_GPU_CHECK(qsMemcpyAsync(s.data(), res, s.size() * 8, qsMemcpyDeviceToHost, st));
    if (o.keepOutput)
        out.sums.output = downloadVec<float>(I, a.out, M * N);
    QS_GPU_CHECK(qsStreamSynchronize(st));
    out.sums.yy.resize(M);
    out.sums.es.resize(M);
    out.sums.ew.resize(M);
    for (std::size_t m = 0; m < M; ++m) {
        out.sums.yy[m] = s[3 * m];
        out.sums.es[m] = s[3 * m + 1];
        out.sums.ew[m] = s[3 * m + 2];
    }
    out.actErr = s[M * 3];
    out.actSq = s[M * 3 + 1];
    if (times) {
        times->activationsMs = ev.ms(1);
        times->operandsMs = ev.ms(2);
        times->productsMs = ev.ms(3);
    }
    return true;
}

} // namespace quantscope::gpu
