// SPDX-License-Identifier: MIT
// The Walsh–Hadamard rotation on the device, bit-identical to core/numeric/hadamard.h's hadamardBlock.
// Why the bits agree: in the CPU's butterfly, stage h (h = 1, 2, 4, … < d) replaces each pair
// (b[j], b[j+h]) with j mod 2h < h by (b[j] + b[j+h], b[j] − b[j+h]); the pairs of one stage are
// disjoint, and each reads only values the previous stage wrote. So every element's value after
// stage h is one FP32 addition or subtraction of two values after stage h/2 — the same operands in
// the same roles whatever thread computes it, as long as the stages are separated (a barrier
// between stages) and each pair is computed as a + c / a − c (RN, no contraction: -fmad=false).
// The final ·r is one FP32 multiplication (__fmul_rn). Here a block holds a tile of whole d-blocks
// in shared memory; its threads take the pairs of all of them, stage by stage.
#define QS_HD __host__ __device__

#include "device_math.h"
#include "kernels_sweep.h"
#include "plan.h"
#include "qs_gpu_compat.h"

namespace quantscope::gpu::launch {

namespace {

constexpr int kHThreads = 256;
constexpr int kHTile = 4096; // elements per block: whole d-blocks (d ≤ 4096)

template <int IN> __device__ __forceinline__ float decodeAt(const void *w, long long i)
{
    if constexpr (IN == kInF32)
        return static_cast<const float *>(w)[i];
    else if constexpr (IN == kInBf16)
        return gpumath::bf16ToF32(static_cast<const unsigned short *>(w)[i]);
    else
        return gpumath::f16ToF32(static_cast<const unsigned short *>(w)[i]);
}

template <int IN>
__global__ void __launch_bounds__(kHThreads) kHadamard(const void *w, long long n, int d, float r, float *out)
{
    __shared__ float b[kHTile];
    const long long t0 = static_cast<long long>(blockIdx.x) * kHTile;
    const int len = static_cast<int>(n - t0 < kHTile ? n - t0 : kHTile); // a multiple of d
    for (int i = threadIdx.x; i < len; i += blockDim.x)
        b[i] = decodeAt<IN>(w, t0 + i);
    if (d >= 2) {
        __syncthreads();
        const int pairs = len / 2;
        for (int h = 1; h < d; h *= 2) {
            for (int p = threadIdx.x; p < pairs; p += blockDim.x) {
                // Pair p: the (p mod h)-th of its 2h-run, in run p / h.
                const int j = (p / h) * 2 * h + (p % h);
                const float a = b[j], c = b[j + h];
                b[j] = __fadd_rn(a, c);
                b[j + h] = __fsub_rn(a, c);
            }
            __syncthreads();
        }
        for (int i = threadIdx.x; i < len; i += blockDim.x)
            out[t0 + i] = __fmul_rn(b[i], r);
    } else {
        for (int i = threadIdx.x; i < len; i += blockDim.x)
            out[t0 + i] = b[i];
    }
}

} // namespace

void hadamardRows(int in, const void *w, long long rows, long long K, int d, float r, float *out, void *stream)
{
    const long long n = rows * K;
    if (n <= 0)
        return;
    if (d < 1 || d > kMaxHadamard || (d & (d - 1)) != 0 || K % d != 0)
        throw GpuError("hadamardRows: block size " + std::to_string(d) + " does not divide K = " + std::to_string(K) +
                       " or exceeds " + std::to_string(kMaxHadamard));
    // Pairs (j, j + h) stay inside a 2h-run, hence inside one d-block: tiles of kHTile (a multiple of
    // d) never split a d-block, and the runs of a stage inside a tile never cross d-blocks either.
    const long long blocks = (n + kHTile - 1) / kHTile;
    const auto s = static_cast<qsStream_t>(stream);
    if (in == kInBf16)
        kHadamard<kInBf16><<<static_cast<unsigned>(blocks), kHThreads, 0, s>>>(w, n, d, r, out);
    else if (in == kInF16)
        kHadamard<kInF16><<<static_cast<unsigned>(blocks), kHThreads, 0, s>>>(w, n, d, r, out);
    else
        kHadamard<kInF32><<<static_cast<unsigned>(blocks), kHThreads, 0, s>>>(w, n, d, r, out);
    QS_GPU_CHECK_LAUNCH("hadamardRows");
}

} // namespace quantscope::gpu::launch
