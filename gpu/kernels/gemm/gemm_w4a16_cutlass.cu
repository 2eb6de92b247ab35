// SPDX-License-Identifier: MIT
// The W4A16 GEMM on Hopper's warpgroup MMA through CUTLASS's mixed-input collective (kernels_w4a16.h
// "CUTLASS route"; issue 43). Built only when CMake found the pinned CUTLASS headers
// (QUANTSCOPE_WITH_CUTLASS; scripts/fetch-cutlass.sh) and compiled for sm_90a, the one target
// that has wgmma; every other build compiles the stubs at the bottom, which refuse.
//
// The operands are the engine's own: row n of W [N, K] is K/2 bytes of two's-complement nibbles,
// low nibble first — CUTLASS's int4b_t in a K-major (row-major) N × K matrix, read as stored. The
// narrow operand must be the MMA's register operand A, so the GEMM is run swapped: Yᵀ [N, M] =
// Ŵ [N, K] · Xᵀ, with X [M, K] row-major as the K-major B operand and Yᵀ written column-major,
// which is Y [M, N] row-major. Ŵ = bf16(q·s' + z') in registers (CUTLASS's BF16 multiply and add,
// which nvcc contracts into one BF16 FMA: one rounding; GpuW4a16Cutlass pins it), with the
// per-(row, group) s' = bf16(s) and z' = bf16(−s·z) that w4a16CutlassPrepare writes once per
// weight, each [K/g, N] (N contiguous: CUTLASS's scale layout, the transpose of the engine's). The bound of that rounding is
// docs/numerics.md "Fused W4A16 GEMM" (its paragraph on the CUTLASS route).
#include "kernels_w4a16.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "qs_gpu_compat.h"
#if !defined(QS_GPU_HIP) // HIP: the refusals below only
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#endif

#if defined(QS_WITH_CUTLASS)
#include "gemm_w4a16_cutlass.cuh"
#endif

namespace quantscope::gpu::launch {

namespace {

#if !defined(QS_GPU_HIP)
/// s' = bf16(s), z' = bf16(−s·z) (the FP32 product once, then round to nearest even), from the
/// engine's [N, K/g] order into CUTLASS's [K/g, N] (N contiguous): element (n, g) at g·N + n.
__global__ void prepareKernel(const float *scales, const std::int8_t *zeros, long long n, long long groups,
                              __nv_bfloat16 *outScale, __nv_bfloat16 *outZero)
{
    const long long count = n * groups;
    for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < count;
         i += static_cast<long long>(gridDim.x) * blockDim.x) {
        const long long row = i / groups, g = i - row * groups;
        const float s = scales[i];
        outScale[g * n + row] = __float2bfloat16_rn(s);
        outZero[g * n + row] = __float2bfloat16_rn(__fmul_rn(-s, static_cast<float>(zeros[i])));
    }
}
#endif

long long groupsOf(const W4a16Problem &p)
{
    return p.group > 0 ? p.k / p.group : 0;
}

} // namespace

std::size_t w4a16CutlassMetaBytes(const W4a16Problem &p)
{
    return 2u * 2u * static_cast<std::size_t>(std::max(1, p.experts)) * static_cast<std::size_t>(p.n) *
           static_cast<std::size_t>(std::max(0LL, groupsOf(p)));
}

void w4a16CutlassPrepare(const W4a16Problem &p, void *meta, void *stream)
{
#if defined(QS_GPU_HIP)
    (void)meta, (void)stream;
    throw GpuError(w4a16CutlassRefusal(p));
#else
    const auto s = static_cast<cudaStream_t>(stream);
    const long long per = p.n * groupsOf(p);
    auto *scale = static_cast<__nv_bfloat16 *>(meta);
    auto *zero = scale + per * std::max(1, p.experts);
    for (int e = 0; e < std::max(1, p.experts); ++e) {
        const long long threads = 256, blocks = std::min<long long>((per + threads - 1) / threads, 4096);
        prepareKernel<<<static_cast<unsigned>(std::max(1LL, blocks)), static_cast<unsigned>(threads), 0, s>>>(
            p.scales + e * p.sStride, p.zeros + e * p.sStride, p.n, groupsOf(p), scale + e * per, zero + e * per);
        QS_GPU_CHECK(cudaGetLastError());
    }
#endif
}

#if defined(QS_WITH_CUTLASS) && defined(CUTLASS_ARCH_MMA_SM90_SUPPORTED)

namespace w4a16cutlass {

// Tiles 1…5 (W4a16Tiling::nPerWarp of kernel 6): 16 tokens stream-K, 64 stream-K, 128 persistent,
// 128 stream-K, 256 persistent; 6…8 (gemm_w4a16_cutlass_shuffled.cu) on the reordered W.
template <class F> auto onPlain(int tile, F &&f)
{
    switch (tile) {
    case 1:
        return f(Route<16, StreamK>{});
    case 2:
        return f(Route<64, StreamK>{});
    case 4:
        return f(Route<128, StreamK>{});
    case 5:
        return f(Route<256, Persistent>{});
    default:
        return f(Route<128, Persistent>{});
    }
}

std::string runPlain(int tile, const W4a16Problem &p, const void *meta, void *ws, cudaStream_t s)
{
    return onPlain(tile, [&](auto route) { return decltype(route)::run(p, meta, ws, s); });
}

std::size_t workspacePlain(int tile, const W4a16Problem &p)
{
    return onPlain(tile, [&](auto route) { return decltype(route)::workspace(p, nullptr); });
}

} // namespace w4a16cutlass

namespace {

constexpr int kTileTokens[] = {0, 16, 64, 128, 128, 256, 128, 256, 64};

/// The tile for M tokens (tile 0: by M; without the reordered W the plain tiles only).
int tileFor(const W4a16Problem &p, int tile)
{
    if (tile >= 1 && tile <= 8)
        return tile;
    const long long m = p.m;
    return m <= 32 ? 1 : m <= 64 ? 2 : m <= 512 ? 4 : 5;
}

bool shuffled(int tile)
{
    return tile >= 6;
}

} // namespace

bool w4a16CutlassBuilt()
{
    return true;
}

std::string w4a16CutlassRefusal(const W4a16Problem &p)
{
    if (p.k <= 0 || p.k % 128 != 0)
        return "the CUTLASS route needs K a positive multiple of 128";
    if (p.group <= 0 || p.k % p.group != 0 || (p.group != p.k && p.group % 64 != 0))
        return "the CUTLASS route needs the group a multiple of its 64-k stage (g64, g128, …) or per channel";
    if (p.n % 8 != 0)
        return "the CUTLASS route needs N a multiple of 8 (16-byte rows of Y)";
    if (p.m <= 0 || p.m > (1LL << 30) || p.n > (1LL << 30) || p.k > (1LL << 30))
        return "the CUTLASS route needs M, N and K below 2^30";
    const int l = std::max(1, p.experts);
    if (l > 1 && (p.wStride != p.n * p.k / 2 || p.sStride != p.n * (p.k / p.group) || p.xStride != p.m * p.k ||
                  p.yStride != p.m * p.n))
        return "the CUTLASS route needs the experts' operands packed back to back";
    if (!cutlassroute::deviceIsHopper())
        return "the CUTLASS route runs on compute capability 9.0 (Hopper) only";
    return "";
}

std::string w4a16CutlassShuffledRefusal(const W4a16Problem &p)
{
    if (std::string why = w4a16CutlassRefusal(p); !why.empty())
        return why;
    if (p.n % 64 != 0)
        return "the reordered W of the CUTLASS route needs N a multiple of 64 (its reorder atom)";
    return "";
}

std::size_t w4a16CutlassWorkspaceBytes(const W4a16Problem &p, int tile)
{
    const int t = tileFor(p, tile);
    if (shuffled(t))
        return w4a16CutlassShuffledRefusal(p).empty() ? w4a16cutlass::workspaceShuffled(t, p) : 0;
    return w4a16cutlass::workspacePlain(t, p);
}

W4a16Launch w4a16Cutlass(const W4a16Problem &p, const void *meta, int tile, void *workspace, void *stream)
{
    const int t = tileFor(p, tile);
    const std::string why = shuffled(t) ? w4a16CutlassShuffledRefusal(p) : w4a16CutlassRefusal(p);
    if (!why.empty())
        throw GpuError(why);
    if (shuffled(t) && !p.cutlassPacked)
        throw GpuError("the CUTLASS route's tile " + std::to_string(t) +
                       " reads the reordered W (w4a16CutlassReorder into W4a16Problem::cutlassPacked)");
    const auto s = static_cast<cudaStream_t>(stream);
    const std::string err = shuffled(t) ? w4a16cutlass::runShuffled(t, p, meta, workspace, s)
                                        : w4a16cutlass::runPlain(t, p, meta, workspace, s);
    if (!err.empty())
        throw GpuError(err);
    QS_GPU_CHECK(cudaGetLastError());
    W4a16Launch used;
    used.cutlass = true;
    used.tile = t;
    used.bm = kTileTokens[t];
    used.bn = 128;
    used.warps = 12;                                  // a producer warpgroup and two consumer warpgroups
    used.splitK = t == 3 || t == 5 || t == 7 ? 1 : 0; // 0: stream-K decides
    return used;
}

#else // no CUTLASS, or not sm_90a

bool w4a16CutlassBuilt()
{
    return false;
}

std::string w4a16CutlassRefusal(const W4a16Problem &)
{
#if defined(QS_GPU_HIP)
    return "the CUTLASS route is CUDA only (Hopper wgmma); HIP runs the unfused W4A16 path";
#elif defined(QS_WITH_CUTLASS)
    return "the CUTLASS route is compiled for sm_90a only (this build has no sm_90a code)";
#else
    return "this build has no CUTLASS route (configure with the CUTLASS headers: scripts/fetch-cutlass.sh)";
#endif
}

std::string w4a16CutlassShuffledRefusal(const W4a16Problem &p)
{
    return w4a16CutlassRefusal(p);
}

std::size_t w4a16CutlassWorkspaceBytes(const W4a16Problem &, int)
{
    return 0;
}

W4a16Launch w4a16Cutlass(const W4a16Problem &p, const void *, int, void *, void *)
{
    throw GpuError(w4a16CutlassRefusal(p));
}

void w4a16CutlassReorder(const W4a16Problem &p, void *, void *)
{
    throw GpuError(w4a16CutlassRefusal(p));
}

#endif

} // namespace quantscope::gpu::launch
