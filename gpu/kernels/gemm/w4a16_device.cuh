// SPDX-License-Identifier: MIT
#pragma once
/// \file w4a16_device.cuh
/// What the fused W4A16 kernels share (gemm_w4a16.cu: X as the mma's A operand, any M;
/// gemm_w4a16_small.cu: the operands swapped for M ≤ 16; gemm_w4a16_tiled.cu: the shared-memory
/// tiled kernel): the launch arguments, the BF16 `mma.sync` m16n8k16, the non-caching 128-bit
/// load, the nibble → BF16 pairs (codePairs), cp.async, the split-K choice. Included by those
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
    int pieceChunks; ///< swapped kernel: chunks of 128 k of X staged in shared memory at a time;
                     ///< tiled kernel: its pipeline's stages
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
/// The shared-memory tiled kernel (gemm_w4a16_tiled.cu; W4a16Tiling::kernel 5): any M.
W4a16Launch tiled(const W4a16Problem &p, const W4a16Tiling &tiling, void *workspace, void *counters, void *stream);
/// Tile counters the tiled kernel needs at most (its smallest tile, 16 × 128), all experts.
long long tiledCounters(const W4a16Problem &p);

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

/// (a & b) ^ c in one instruction.
__device__ __forceinline__ std::uint32_t andXor(std::uint32_t a, std::uint32_t b, std::uint32_t c)
{
    std::uint32_t r;
    asm("lop3.b32 %0, %1, %2, %3, 0x6A;\n" : "=r"(r) : "r"(a), "r"(b), "r"(c));
    return r;
}

/// The BF16 pairs of one word of codes (the swapped kernels' A fragments, the tiled kernel's B
/// fragments): p[j] = (128 + u_j, 128 + u_{j+4}).
__device__ __forceinline__ void codePairs(std::uint32_t word, std::uint32_t (&p)[4])
{
    p[0] = andXor(word, 0x000F000Fu, 0x43084308u);
    p[1] = andXor(word >> 4, 0x000F000Fu, 0x43084308u);
    p[2] = andXor(word >> 8, 0x000F000Fu, 0x43084308u);
    p[3] = andXor(word >> 12, 0x000F000Fu, 0x43084308u);
}

__device__ __forceinline__ std::uint32_t wordOf(const uint4 &r, int w)
{
    return w == 0 ? r.x : w == 1 ? r.y : w == 2 ? r.z : r.w;
}

/// One 16-byte cp.async global → shared (L2 only: W is read once).
__device__ __forceinline__ void cpAsync16(void *smem, const void *gmem)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
    __trap(); // cp.async needs sm_80 or newer (the build targets sm_90)
#else
    const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(smem));
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(s), "l"(gmem));
#endif
}
__device__ __forceinline__ void cpAsyncCommit()
{
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800
    asm volatile("cp.async.commit_group;\n" ::);
#endif
}
template <int N> __device__ __forceinline__ void cpAsyncWait()
{
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800
    asm volatile("cp.async.wait_group %0;\n" ::"n"(N));
#endif
}

#endif // QS_HAS_MMA

} // namespace quantscope::gpu::launch::w4a16detail
