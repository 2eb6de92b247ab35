// SPDX-License-Identifier: MIT
#pragma once
/// \file engine_impl.h
/// The engine's device state (internal to gpu/): device, stream, events, the caching pool
/// and the pinned staging buffers. Shared by engine.cpp (the quantize + metrics pipeline) and the
/// other engine sources that queue work on the same stream.
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "device_pool.h"
#include "engine.h"
#include "plan.h"
#include "qs_gpu_compat.h"

namespace quantscope::gpu {

struct RunImpl;

/// The kernels' input type (plan.h InType) of a device tensor's storage dtype.
inline int inTypeOf(DType storage)
{
    switch (storage) {
    case DType::BF16:
        return kInBf16;
    case DType::F16:
        return kInF16;
    default:
        return kInF32;
    }
}

struct Engine::Impl {
    int device = 0;
    qsDeviceProps props;
    qsStream_t stream = nullptr;
    qsEvent_t evStart = nullptr, evStop = nullptr;
    std::shared_ptr<PoolState> pool = std::make_shared<PoolState>();
    void *staging[2] = {nullptr, nullptr};
    qsEvent_t stagingDone[2] = {nullptr, nullptr};
    std::size_t stagingBytes = 16u << 20;
    int stagingNext = 0; ///< copyToDevice's next buffer (alternates across calls, so small copies overlap too)
    bool pinned = true;
    /// Streams that small independent launches fan out to from `stream` (forkAux), joined back by
    /// joinAux; made on first use.
    static constexpr int kAuxStreams = 8;
    qsStream_t aux[kAuxStreams] = {};
    qsEvent_t auxDone[kAuxStreams] = {};
    qsEvent_t auxReady = nullptr;
    /// A stream for downloads that overlap the work on `stream` (MiLo's early download of its last
    /// pass), and an event that starts it; made on first use by early().
    qsStream_t sideStream = nullptr;
    qsEvent_t sideReady = nullptr;
    std::recursive_mutex mutex;
    bool profile = false;
    std::vector<qsEvent_t> markEvents;
    std::vector<std::string> markNames;

    void mark(const char *name)
    {
        if (!profile)
            return;
        if (markNames.size() == markEvents.size()) {
            qsEvent_t e;
            QS_GPU_CHECK(qsEventCreate(&e));
            markEvents.push_back(e);
        }
        QS_GPU_CHECK(qsEventRecord(markEvents[markNames.size()], stream));
        markNames.emplace_back(name);
    }

    ~Impl()
    {
        for (auto e : markEvents)
            qsEventDestroy(e);
        for (int i = 0; i < kAuxStreams; ++i) {
            if (aux[i])
                qsStreamDestroy(aux[i]);
            if (auxDone[i])
                qsEventDestroy(auxDone[i]);
        }
        if (auxReady)
            qsEventDestroy(auxReady);
        if (sideStream)
            qsStreamDestroy(sideStream);
        if (sideReady)
            qsEventDestroy(sideReady);
        for (int i = 0; i < 2; ++i) {
            if (staging[i])
                qsFreeHost(staging[i]);
            if (stagingDone[i])
                qsEventDestroy(stagingDone[i]);
        }
        if (evStart)
            qsEventDestroy(evStart);
        if (evStop)
            qsEventDestroy(evStop);
        if (stream)
            qsStreamDestroy(stream);
    }
    void *S() const { return stream; }
    /// The first n ≤ kAuxStreams auxiliary streams start after the work queued on `stream` so far.
    void forkAux(int n)
    {
        if (!auxReady)
            QS_GPU_CHECK(qsEventCreate(&auxReady));
        QS_GPU_CHECK(qsEventRecord(auxReady, stream));
        for (int i = 0; i < n; ++i) {
            if (!aux[i]) {
                QS_GPU_CHECK(qsStreamCreateNonBlocking(&aux[i]));
                QS_GPU_CHECK(qsEventCreate(&auxDone[i]));
            }
            QS_GPU_CHECK(qsStreamWaitEvent(aux[i], auxReady));
        }
    }
    /// The side stream, made to start after the work queued on `stream` so far.
    qsStream_t early()
    {
        if (!sideStream) {
            QS_GPU_CHECK(qsStreamCreateNonBlocking(&sideStream));
            QS_GPU_CHECK(qsEventCreate(&sideReady));
        }
        QS_GPU_CHECK(qsEventRecord(sideReady, stream));
        QS_GPU_CHECK(qsStreamWaitEvent(sideStream, sideReady));
        return sideStream;
    }
    /// Work queued on `stream` from here on starts after what the first n auxiliary streams hold.
    void joinAux(int n)
    {
        for (int i = 0; i < n; ++i) {
            QS_GPU_CHECK(qsEventRecord(auxDone[i], aux[i]));
            QS_GPU_CHECK(qsStreamWaitEvent(stream, auxDone[i]));
        }
    }
    /// Host → device copy of `bytes` through the double-buffered pinned staging (a slice is copied
    /// into one buffer while the other travels), or a plain copy when pinning failed; returns when
    /// the host buffer may change again (the device copy is queued on the stream).
    void copyToDevice(void *dst, const void *src, std::size_t bytes);
    /// Device → host copy of `bytes` after the work queued on the stream (or on `on`), through the
    /// same pinned staging (a slice travels into one buffer while the host copies the other out, up
    /// to 4 threads), or a plain copy when pinning failed; returns when `dst` holds the bytes. One
    /// thread at a time uses the staging.
    void copyToHost(void *dst, const void *src, std::size_t bytes, qsStream_t on = nullptr);
    /// The c sweep's MSE curves of several FP32 matrices at once (engine_sweep.cpp): curve i of
    /// xs[i] = {data, rows, K} over `cs`, groups of `group` along K — each the bits the evaluator of
    /// Engine::sweepEvaluator gives for that matrix alone; two synchronisations in all.
    struct SweepRows {
        const float *x = nullptr;
        long long rows = 0, K = 0;
    };
    std::vector<std::vector<double>> sweepCurves(const std::vector<SweepRows> &xs, long long group, bool pow2,
                                                 const std::vector<double> &cs);
    void enqueueFast(RunImpl &R, int in, int sms);
};

/// The tail of a device quantizer that leaves Ŵ (FP32, W's shape) in `mem` (Engine::awq,
/// Engine::gguf): the fused metrics of Ŵ against W when options.metrics, and Ŵ kept on the device as
/// out.wHat when options.keepDequantizedOnDevice.
template <class Options, class Result>
void finishDequantized(Engine &engine, const GpuTensor &w, std::shared_ptr<void> mem, const Options &options,
                       Result &out)
{
    if (!mem)
        return;
    auto hat = std::make_shared<GpuTensor>(w.shape(), DType::F32, DType::F32, mem.get(), w.name() + " (Ŵ)", mem);
    if (options.metrics)
        out.metrics = engine.metricsOf(w, *hat, options.metricsOptions, options.inputStats);
    if (options.keepDequantizedOnDevice)
        out.wHat = std::move(hat);
}

} // namespace quantscope::gpu
