// SPDX-License-Identifier: MIT
// llama.cpp's block quantizers on the device (kernels_ggml.h; docs/numerics.md "GGUF block types
// on the GPU"). The arithmetic is not rewritten here: core/ggml/ggml_kquant_blocks.h compiles
// ggml's own per-block C code (the port of ggml-quants.c) and ggml_block_math.h's legacy types and
// decode as __host__ __device__ functions, and this source (built with -fmad=false, IEEE division
// and square root, no flush to zero) calls them once per ggml block, the same statements the CPU
// runs, so the bytes are the CPU's.
#define QS_HD __host__ __device__

#include "ggml/ggml_kquant_blocks.h"
#include "kernel_common.cuh"
#include "kernels_ggml.h"

namespace quantscope::gpu::launch {

namespace {

namespace bm = ggml::blockmath;

/// Threads (= ggml blocks) per thread block: a warp of super-blocks (32 · 257 floats of shared
/// memory), four warps of 32-value blocks.
template <int T> constexpr int kGgmlThreads = bm::isLegacy(T) ? 128 : 32;

QS_DEV float loadAs(int in, const void *w, long long i)
{
    if (in == kInBf16)
        return decode1<kInBf16>(w, i);
    if (in == kInF16)
        return decode1<kInF16>(w, i);
    return decode1<kInF32>(w, i);
}

/// One thread per ggml block of type T. The thread block's blocks are staged in shared memory
/// (rows padded to V + 1 floats: thread t's element i sits in bank (t + i) mod 32), quantized by
/// the CPU's per-block function, decoded in place and written back coalesced.
template <int T> __global__ void __launch_bounds__(kGgmlThreads<T>) kGgmlQuantize(GgmlQuantArgs a)
{
    constexpr int V = bm::isLegacy(T) ? 32 : 256, S = V + 1, TPB = kGgmlThreads<T>;
    extern __shared__ float tile[];
    const long long nblocks = a.rows * (a.cols / V);
    const long long first = static_cast<long long>(blockIdx.x) * TPB;
    const int count = nblocks - first < TPB ? static_cast<int>(nblocks - first) : TPB;
    const long long base = first * V;
    for (int i = threadIdx.x; i < count * V; i += TPB)
        tile[(i / V) * S + i % V] = loadAs(a.in, a.w, base + i);
    __syncthreads();
    if (static_cast<int>(threadIdx.x) < count) {
        const long long b = first + threadIdx.x;
        float *x = tile + threadIdx.x * S;
        const float *qw = a.importance ? a.importance + (b * V) % a.cols : nullptr;
        unsigned char *y = a.blocks + b * bm::blockBytes(T);
        ggml::kquants::quantizeBlock(T, x, qw, y);
        if (a.scales)
            a.scales[b] = bm::f16At(y + bm::scaleOffset(T));
        if (a.wHat)
            bm::decode(T, y, x);
    }
    if (!a.wHat)
        return;
    __syncthreads();
    for (int i = threadIdx.x; i < count * V; i += TPB)
        a.wHat[base + i] = tile[(i / V) * S + i % V];
}

template <int T> void launchType(const GgmlQuantArgs &a, qsStream_t s)
{
    constexpr int V = bm::isLegacy(T) ? 32 : 256, TPB = kGgmlThreads<T>;
    const long long nblocks = a.rows * (a.cols / V);
    if (nblocks == 0)
        return;
    const auto grid = static_cast<unsigned>((nblocks + TPB - 1) / TPB);
    const std::size_t smem = static_cast<std::size_t>(TPB) * (V + 1) * sizeof(float);
    kGgmlQuantize<T><<<grid, TPB, smem, s>>>(a);
}

} // namespace

void ggmlQuantize(const GgmlQuantArgs &a, void *stream)
{
    const auto s = static_cast<qsStream_t>(stream);
    switch (a.type) {
    case bm::kQ4_0:
        launchType<bm::kQ4_0>(a, s);
        break;
    case bm::kQ4_1:
        launchType<bm::kQ4_1>(a, s);
        break;
    case bm::kQ5_0:
        launchType<bm::kQ5_0>(a, s);
        break;
    case bm::kQ5_1:
        launchType<bm::kQ5_1>(a, s);
        break;
    case bm::kQ8_0:
        launchType<bm::kQ8_0>(a, s);
        break;
    case bm::kQ2_K:
        launchType<bm::kQ2_K>(a, s);
        break;
    case bm::kQ3_K:
        launchType<bm::kQ3_K>(a, s);
        break;
    case bm::kQ4_K:
        launchType<bm::kQ4_K>(a, s);
        break;
    case bm::kQ5_K:
        launchType<bm::kQ5_K>(a, s);
        break;
    case bm::kQ6_K:
        launchType<bm::kQ6_K>(a, s);
        break;
    default:
        throw GpuError("ggml quantize: type " + std::to_string(a.type) + " has no kernel");
    }
    QS_GPU_CHECK_LAUNCH("ggml block quantize");
}

} // namespace quantscope::gpu::launch
