// SPDX-License-Identifier: MIT
#pragma once
/// \file w4a16_device.cuh
/// What the two fused W4A16 kernels share (gemm_w4a16.cu: X as the mma's A operand, any M;
/// gemm_w4a16_small.cu: the operands swapped for M ≤ 16): the launch arguments, the BF16
/// `mma.sync` m16n8k16, the non-caching 128-bit load, the split-K choice. Included by those two
/// sources only (CUDA builds; QS_HAS_MMA is undefined for HIP, which has no mma.sync).
#include <cstdint>
#include <cstring>

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include "kernels_w4a16.h"

#if !defined(__HIP_PLATFORM_AMD__) && !defined(QUANTSCOPE_HIP)
#define QS_HAS_MMA 1
#endif

namespace quantscope::gpu::launch::w4a16detail {

constexpr int kWarps = 4;

struct Args {
    const std::uint8_t *w;
    const float *s;
    const std::int8_t *z;
    const __nv_bfloat16 *x;
    __nv_bfloat16 *y;
    float *ws;
    unsigned *counters;
    long long M, N, K, group;
    long long wStride, sStride, xStride, yStride;
    int splitK, mBlocks;
    int pieceChunks; ///< swapped kernel: chunks of 128 k of X staged in shared memory at a time
    int pieceGroups; ///< pipelined swapped kernel: groups a row of the scale / zero stage holds
};

/// A launch's arguments from the problem (every launcher builds them the same way).
inline Args launchArgs(const W4a16Problem &p, void *workspace, void *counters, int splitK, int mBlocks, int pieceChunks,
                       int pieceGroups)
{
    return Args{p.packed,
                p.scales,
                p.zeros,
                static_cast<const __nv_bfloat16 *>(p.x),
                static_cast<__nv_bfloat16 *>(p.y),
                static_cast<float *>(workspace),
                static_cast<unsigned *>(counters),
                p.m,
                p.n,
                p.k,
                p.group,
                p.wStride,
                p.sStride,
                p.xStride,
                p.yStride,
                splitK,
                mBlocks,
                pieceChunks,
                pieceGroups};
}

/// SMs of the current device (cached).
int smCount();
/// The fewest K slices (1 … min(chunks / 4, 64)) whose `tiles`·S blocks fill at least 85 % of
/// their last wave of perSm·SMs resident blocks (else the best fill).
long long chooseSplit(int perSm, long long tiles, long long chunks);
/// `split` clamped to [1, chunks] and made even: ⌈chunks / split⌉ chunks a slice, no empty slice.
long long evenSplit(long long split, long long chunks);
/// The swapped small-M path (gemm_w4a16_small.cu): M ≤ kW4a16SwappedMaxM.
W4a16Launch smallM(const W4a16Problem &p, const W4a16Tiling &tiling, void *workspace, void *counters, void *stream);

#if defined(QS_HAS_MMA)

__device__ __forceinline__ void mma16816(float (&d)[4], std::uint32_t a0, std::uint32_t a1, std::uint32_t a2,
                                         std::uint32_t a3, std::uint32_t b0, std::uint32_t b1)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
    __trap(); // BF16 mma.sync needs sm_80 or newer (the build targets sm_90)
#else
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
                 "{%0,%1,%2,%3};\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
#endif
}

__device__ __forceinline__ uint4 ldNc(const void *p)
{
    uint4 r;
    asm volatile("ld.global.nc.L1::no_allocate.v4.u32 {%0,%1,%2,%3}, [%4];\n"
                 : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w)
                 : "l"(p));
    return r;
}

__device__ __forceinline__ std::uint32_t bits(__nv_bfloat162 v)
{
    std::uint32_t u;
    std::memcpy(&u, &v, 4);
    return u;
}
__device__ __forceinline__ __nv_bfloat162 pair(std::uint32_t u)
{
    __nv_bfloat162 v;
    std::memcpy(&v, &u, 4);
    return v;
}

#endif // QS_HAS_MMA

} // namespace quantscope::gpu::launch::w4a16detail
