// SPDX-License-Identifier: MIT
// The benchmark hooks of bench_gpu_hooks.h: a spin kernel and the two halves of the L2 flush
// (a scribble over one buffer, a read through another). One source for nvcc (CUDA) and hipcc (HIP)
// through the engine's qs_gpu_compat.h, like the engine's kernels.
#include "bench_gpu_hooks.h"

#include <algorithm>
#include <string>

#include "kernels/qs_gpu_compat.h"

namespace quantscope::bench {

namespace {

constexpr int kThreads = 256;

__global__ void kSpin(long long cycles)
{
    const long long t0 = clock64();
    while (clock64() - t0 < cycles) {
    }
}

/// Reads `words` words (the sink is written only if their xor is a value it never is in practice):
/// after a scribble, evicts the dirty lines so the next run starts with a cold, clean L2.
__global__ void kReadThrough(const uint4 *p, std::size_t n16, unsigned *sink)
{
    unsigned x = 0;
    for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n16;
         i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
        const uint4 u = p[i];
        x ^= u.x ^ u.y ^ u.z ^ u.w;
    }
    if (x == 0x9E3779B9u && sink)
        *sink = x;
}

__global__ void kScribble(unsigned *p, std::size_t words, unsigned salt)
{
    for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < words;
         i += static_cast<std::size_t>(gridDim.x) * blockDim.x)
        p[i] = static_cast<unsigned>(i) ^ salt;
}

qsStream_t S(void *s)
{
    return static_cast<qsStream_t>(s);
}

/// Spins about `cycles` clock cycles on one thread.
void spin(long long cycles, void *stream)
{
    kSpin<<<1, 1, 0, S(stream)>>>(cycles);
    QS_GPU_CHECK_LAUNCH("spin");
}

/// Writes `bytes` of `buf` (a new salt each time, so every flush writes).
void scribble(void *buf, std::size_t bytes, void *stream)
{
    static unsigned salt = 0x9E3779B9u;
    salt = salt * 1664525u + 1013904223u;
    kScribble<<<1024, kThreads, 0, S(stream)>>>(static_cast<unsigned *>(buf), bytes / 4, salt);
    QS_GPU_CHECK_LAUNCH("scribble");
}

/// Reads `bytes` of `buf` (after a scribble of another buffer: leaves L2 clean as well as cold).
void readThrough(const void *buf, std::size_t bytes, void *stream)
{
    kReadThrough<<<1024, kThreads, 0, S(stream)>>>(static_cast<const uint4 *>(buf), bytes / 16, nullptr);
    QS_GPU_CHECK_LAUNCH("readThrough");
}

} // namespace

GpuHooks::GpuHooks(void *stream, std::uint64_t l2Bytes)
    : m_stream(stream),
      m_flushBytes(std::max<std::size_t>(2 * static_cast<std::size_t>(l2Bytes), std::size_t{128} << 20))
{
}

GpuHooks::~GpuHooks()
{
    if (m_flushBuf)
        (void)qsFree(m_flushBuf); // errors at exit are ignored
}

void GpuHooks::flushL2()
{
    if (!m_flushBuf)
        QS_GPU_CHECK(qsMalloc(&m_flushBuf, 2 * m_flushBytes));
    // Write one half, then read the other: L2 ends cold for the next run and holds no dirty lines
    // whose write-back the run would otherwise pay for.
    scribble(m_flushBuf, m_flushBytes, m_stream);
    readThrough(static_cast<char *>(m_flushBuf) + m_flushBytes, m_flushBytes, m_stream);
}

void GpuHooks::deviceSleep(float ms)
{
    const double hz = 1.0e9 * 2.0; // spin on the cycle counter at up to 2 GHz
    spin(static_cast<long long>(ms * 1e-3 * hz), m_stream);
}

} // namespace quantscope::bench
