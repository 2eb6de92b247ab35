// SPDX-License-Identifier: MIT
#pragma once
/// \file wgmma.cuh
/// The Hopper `wgmma` pieces of the W4A8 warpgroup kernel (gemm_w4a8_wgmma.cu; issue 43) apart from
/// its arithmetic: the fence / commit / wait of the asynchronous warpgroup MMA, the register pin that
/// keeps the compiler from touching accumulators an MMA in flight owns, and the shared-memory matrix
/// descriptor of operand B (PTX ISA, "Matrix Descriptor": the start address >> 4, the leading byte
/// offset between the core matrices along K, the stride byte offset between those along N, no
/// swizzle). B is K-major core matrices of 8 tokens × 16 bytes, per k-step 512 bytes (the step's
/// first 16 bytes of tokens 0–7 at +0, of tokens 8–15 at +128, the next 16 bytes at +256 / +384), so
/// LBO 256 and SBO 128. Only sources compiled for sm_90a call it.
#include <cstdint>

#if defined(QS_HAS_MMA) // after w4a16_device.cuh: CUDA builds only
namespace quantscope::gpu::launch::wgmma {

/// The k-step's bytes of B in the layout above, and the descriptor's two offsets.
constexpr int kStepBytes = 512;
constexpr unsigned kLbo = 256, kSbo = 128;

__device__ __forceinline__ void fence()
{
    asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
}
__device__ __forceinline__ void commit()
{
    asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
}
template <int N> __device__ __forceinline__ void wait()
{
    asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory");
}
/// Keeps the compiler from moving reads or writes of these accumulators across the asynchronous
/// wgmma that own them (call after the wait that completes them).
__device__ __forceinline__ void pin(int (&d)[8])
{
#pragma unroll
    for (int r = 0; r < 8; ++r)
        asm volatile("" : "+r"(d[r])::"memory");
}
/// The descriptor of B at shared address `smem` (bytes) with offsets lbo and sbo; a later step adds
/// its byte offset >> 4 to it.
__device__ __forceinline__ std::uint64_t descriptor(unsigned smem, unsigned lbo = kLbo, unsigned sbo = kSbo)
{
    return static_cast<std::uint64_t>((smem & 0x3FFFFu) >> 4) | (static_cast<std::uint64_t>(lbo >> 4) << 16) |
           (static_cast<std::uint64_t>(sbo >> 4) << 32);
}

} // namespace quantscope::gpu::launch::wgmma
#endif
