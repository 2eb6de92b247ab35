// SPDX-License-Identifier: MIT
#pragma once
/// \file kernels_w4a8_cutlass.h
/// The W4A8-INT8 GEMM's CUTLASS route for large M (gemm_w4a8_cutlass.cu; issue 43): Y [M, N] =
/// bf16((float(v)·s_tok[m])·s_ch[n]) with v = Σ_k x̂[m, k]·q[n, k] − z[n]·Σ_k x̂[m, k] exact in INT32
/// — the integers and the output bits of the lab's fold route (labW4FoldInt8 + INT8 GEMM +
/// labPostScale), without the fold's INT8 copy of W: CUTLASS's Hopper mixed-input GEMM reads the
/// engine's packed INT4 codes (kernels_gemmlab.h: two's-complement nibbles, low nibble first —
/// CUTLASS's int4b_t as stored), converts them to INT8 in registers and runs the s8·s8 → s32
/// warpgroup MMA; an epilogue visitor tree subtracts z·Σx̂ in INT32 and applies the two scales in
/// FP32 in that order. Per channel only (one zero point and scale a row of W). Swapped like the
/// W4A16 route: Yᵀ [N, M] = W [N, K] · X̂ᵀ. Built where QS_WITH_CUTLASS is (sm_90a); elsewhere the
/// entry points refuse. The numerics: docs/numerics.md "Fused W4A8 GEMM", the large-M route without the fold.
#include <cstddef>
#include <cstdint>
#include <string>

namespace quantscope::gpu::launch {

/// One GEMM of the route.
struct W4a8CutlassProblem {
    const void *packed = nullptr;       ///< the codes W [N, K] as stored (tiles 1, 2), K/2 bytes a row
    const void *reordered = nullptr;    ///< w4a8CutlassReorder's copy of them (tiles 3, 4)
    const std::int8_t *zeros = nullptr; ///< z [N]
    const float *scales = nullptr;      ///< s_ch [N]
    const std::int8_t *x = nullptr;     ///< X̂ [M, K] INT8, row-major
    const float *xScale = nullptr;      ///< s_tok [M]
    const std::int32_t *xSum = nullptr; ///< Σ_k x̂ [M] (labRowSumInt8)
    void *y = nullptr;                  ///< BF16 [M, N], row-major
    long long m = 0, n = 0, k = 0;
};

/// Tiles: 1 128 rows of W × 128 tokens stream-K, 2 128 × 256 persistent, on the codes as stored;
/// 3, 4 the same on the reordered copy. 128 k a stage, two consumer warpgroups (cooperative).
inline constexpr int kW4a8CutlassTiles = 4;
/// "128x128 stream-K", "128x256 persistent, reordered W", … for tile 1…kW4a8CutlassTiles.
std::string w4a8CutlassTileName(int tile);
/// Tile t reads W4a8CutlassProblem::reordered.
inline constexpr bool w4a8CutlassTileReordered(int tile)
{
    return tile >= 3;
}

/// True where this build has the route (CUDA, CUTLASS headers, sm_90a code).
bool w4a8CutlassBuilt();
/// "" when the route runs this shape here, else why not (build, device, shape).
std::string w4a8CutlassRefusal(long long m, long long n, long long k);
/// Bytes of the copy w4a8CutlassReorder writes (N·K/2, the size of the codes).
std::size_t w4a8CutlassReorderedBytes(long long n, long long k);
/// The codes W [N, K] permuted once per weight so that each consumer thread's codes of a wgmma A
/// fragment are contiguous in shared memory (CUTLASS's compute_memory_reordering_atom for the
/// INT8 MMA; the same bytes, no value change). Throws GpuError on a refusal.
void w4a8CutlassReorder(const void *packed, long long n, long long k, void *dst, void *stream);
/// Workspace bytes tile t needs (stream-K's partials; 0 for the persistent tiles).
std::size_t w4a8CutlassWorkspaceBytes(const W4a8CutlassProblem &p, int tile);
/// Queues the GEMM on `stream`; throws GpuError on a refusal (or a missing reordered copy).
void w4a8Cutlass(const W4a8CutlassProblem &p, int tile, void *workspace, void *stream);

} // namespace quantscope::gpu::launch
