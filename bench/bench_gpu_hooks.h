// SPDX-License-Identifier: MIT
#pragma once
/// \file bench_gpu_hooks.h
/// Device work the GPU engine benchmark queues between timed runs, on the engine's stream: an L2
/// flush, so every repeat starts from a cold cache, and a spin, so the host has queued the whole
/// run before the start event and the events measure device time only. Benchmark-only, so it lives
/// here and not in the engine: its kernels (bench_gpu_hooks.cu) are launched on
/// gpu::Engine::stream(). CUDA/HIP-free header.
#include <cstddef>
#include <cstdint>

namespace quantscope::bench {

class GpuHooks {
public:
    /// Hooks on `stream` (gpu::Engine::stream()); `l2Bytes` (gpu::EngineInfo::l2Bytes) sizes the
    /// flush. The flush buffer is allocated by the first flushL2().
    GpuHooks(void *stream, std::uint64_t l2Bytes);
    ~GpuHooks();
    GpuHooks(const GpuHooks &) = delete;
    GpuHooks &operator=(const GpuHooks &) = delete;

    /// Overwrites a buffer twice the size of L2 (at least 128 MiB), then reads another as large, so
    /// the next run starts with a cold L2 holding no dirty lines.
    void flushL2();
    /// Queues a kernel that spins for about `ms` milliseconds (lets the host queue a whole run
    /// before the timed region starts, so events measure device time only).
    void deviceSleep(float ms);

private:
    void *m_stream;
    std::size_t m_flushBytes;
    void *m_flushBuf = nullptr; ///< 2 × m_flushBytes: the half written, then the half read
};

} // namespace quantscope::bench
