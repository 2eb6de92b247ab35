// SPDX-License-Identifier: MIT
// Host → device copies through the engine's double-buffered pinned staging (engine_impl.h), and
// the engine's stream, events, stage timing and pool size.
#include "engine.h"
#include "engine_impl.h"

#include <algorithm>
#include <cstring>
#include <mutex>

#include "device_pool.h"
#include "qs_gpu_compat.h"
#include "util/error.h"
#include "util/parallel.h"

namespace quantscope::gpu {

namespace {

/// memcpy of one staging slice by up to 4 threads, at least 512 KiB each (one thread's memcpy,
/// ≈ 10 GB/s, is slower than the bus; 8 and 16 measured slower on the H200's host: docs/perf.md
/// "KV-cache lab (issue 41): SmolLM2-135M's own keys and values").
void sliceCopy(char *to, const char *from, std::size_t len)
{
    constexpr int copyThreads = 4;
    const std::int64_t parts =
        std::clamp<std::int64_t>(static_cast<std::int64_t>(len >> 19), 1, std::min(copyThreads, resolveThreads(0)));
    parallelSlices(parts, static_cast<int>(parts), nullptr, [&](int, std::int64_t lo, std::int64_t hi) {
        const std::size_t a = len * static_cast<std::size_t>(lo) / static_cast<std::size_t>(parts);
        const std::size_t b = len * static_cast<std::size_t>(hi) / static_cast<std::size_t>(parts);
        std::memcpy(to + a, from + a, b - a);
    });
}

} // namespace

void Engine::Impl::copyToHost(void *dst, const void *src, std::size_t bytes, qsStream_t on)
{
    if (bytes == 0)
        return;
    const qsStream_t st = on ? on : stream;
    if (!pinned) {
        QS_GPU_CHECK(qsMemcpyAsync(dst, src, bytes, qsMemcpyDeviceToHost, st));
        QS_GPU_CHECK(qsStreamSynchronize(st));
        return;
    }
    // Slice s travels into staging[s mod 2] while the host copies slice s − 1 out of the other.
    const std::size_t slice = stagingBytes, slices = (bytes + slice - 1) / slice;
    auto len = [&](std::size_t s) { return std::min(slice, bytes - s * slice); };
    auto drain = [&](std::size_t s) {
        QS_GPU_CHECK(qsEventSynchronize(stagingDone[s & 1]));
        sliceCopy(static_cast<char *>(dst) + s * slice, static_cast<const char *>(staging[s & 1]), len(s));
    };
    for (std::size_t s = 0; s < slices; ++s) {
        const int buf = static_cast<int>(s & 1);
        QS_GPU_CHECK(qsEventSynchronize(stagingDone[buf])); // an earlier upload's slice may still read it
        QS_GPU_CHECK(
            qsMemcpyAsync(staging[buf], static_cast<const char *>(src) + s * slice, len(s), qsMemcpyDeviceToHost, st));
        QS_GPU_CHECK(qsEventRecord(stagingDone[buf], st));
        if (s > 0)
            drain(s - 1);
    }
    drain(slices - 1);
}

void Engine::Impl::copyToDevice(void *dst, const void *src, std::size_t bytes)
{
    if (bytes == 0)
        return;
    if (!pinned) {
        QS_GPU_CHECK(qsMemcpyAsync(dst, src, bytes, qsMemcpyHostToDevice, stream));
        QS_GPU_CHECK(qsStreamSynchronize(stream)); // pageable: the copy has left when the call returns
        return;
    }
    const std::size_t slice = stagingBytes;
    for (std::size_t off = 0; off < bytes; off += slice) {
        const int buf = stagingNext;
        stagingNext ^= 1;
        const std::size_t len = std::min(slice, bytes - off);
        QS_GPU_CHECK(qsEventSynchronize(stagingDone[buf]));
        sliceCopy(static_cast<char *>(staging[buf]), static_cast<const char *>(src) + off, len);
        QS_GPU_CHECK(qsMemcpyAsync(static_cast<char *>(dst) + off, staging[buf], len, qsMemcpyHostToDevice, stream));
        QS_GPU_CHECK(qsEventRecord(stagingDone[buf], stream));
    }
}

void Engine::synchronize()
{
    QS_GPU_CHECK(qsStreamSynchronize(m_impl->stream));
}

void *Engine::stream() const
{
    return m_impl->S();
}

void Engine::recordStart()
{
    QS_GPU_CHECK(qsEventRecord(m_impl->evStart, m_impl->stream));
}
void Engine::recordStop()
{
    QS_GPU_CHECK(qsEventRecord(m_impl->evStop, m_impl->stream));
}
float Engine::elapsedMs()
{
    QS_GPU_CHECK(qsEventSynchronize(m_impl->evStop));
    float ms = 0;
    QS_GPU_CHECK(qsEventElapsedTime(&ms, m_impl->evStart, m_impl->evStop));
    return ms;
}

void Engine::copyDevice(void *dst, const void *src, std::size_t bytes)
{
    QS_GPU_CHECK(qsMemcpyAsync(dst, src, bytes, qsMemcpyDeviceToDevice, m_impl->stream));
}

void Engine::profileStages(bool on)
{
    m_impl->profile = on;
}

std::vector<std::pair<std::string, float>> Engine::stageTimes()
{
    std::vector<std::pair<std::string, float>> out;
    Impl &I = *m_impl;
    QS_GPU_CHECK(qsStreamSynchronize(I.stream));
    qsEvent_t prev = I.evStart;
    for (std::size_t i = 0; i < I.markNames.size(); ++i) {
        float ms = 0;
        QS_GPU_CHECK(qsEventElapsedTime(&ms, prev, I.markEvents[i]));
        out.emplace_back(I.markNames[i], ms);
        prev = I.markEvents[i];
    }
    return out;
}

std::uint64_t Engine::poolBytes() const
{
    std::lock_guard lock(m_impl->pool->mutex);
    return m_impl->pool->held;
}

} // namespace quantscope::gpu
