// SPDX-License-Identifier: MIT
// The W4A8-INT8 GEMM on Hopper's warpgroup MMA through CUTLASS's mixed-input collective
// (kernels_w4a8_cutlass.h; issue 43): the lab's large-M route without the fold. Built only when
// CMake found the pinned CUTLASS headers (QUANTSCOPE_WITH_CUTLASS) and compiled for sm_90a; every
// other build compiles the stubs at the bottom, which refuse.
//
// The operands are the engine's own: row n of W [N, K] is K/2 bytes of two's-complement nibbles,
// low nibble first — CUTLASS's int4b_t in a K-major N × K matrix, read as stored (no XOR: the
// u = q + 8 of the fused mma.sync kernel is that kernel's register operand, not the stored code).
// The narrow operand must be the MMA's register operand A, so the GEMM runs swapped: Yᵀ [N, M] =
// W [N, K] · X̂ᵀ with X̂ [M, K] row-major as the K-major B operand. In registers q → INT8
// (NumericArrayConverter<int8_t, int4b_t, 8>: exact sign extension), then wgmma s8·s8 → s32:
// acc = Σ_k x̂·q exact in INT32. The epilogue visitor tree (gemm_w4a8_cutlass.cuh, Evt) forms
// v = acc − z·Σx̂ in INT32 — the fold route's Σ x̂·(q − z), the same integer — and
// bf16((float(v)·s_tok)·s_ch), labPostScale's expression: the same output bits.
#include "kernels_w4a8_cutlass.h"

#include <algorithm>

#include "qs_gpu_compat.h"
#if !defined(QS_GPU_HIP)
#include <cuda_runtime.h>
#endif

#if defined(QS_WITH_CUTLASS)
#include "gemm_w4a8_cutlass.cuh"
#endif

namespace quantscope::gpu::launch {

std::string w4a8CutlassTileName(int tile)
{
    switch (tile) {
    case 1:
        return "128x128 stream-K";
    case 2:
        return "128x256 persistent";
    case 3:
        return "128x128 stream-K, reordered W";
    case 4:
        return "128x256 persistent, reordered W";
    default:
        return "tile " + std::to_string(tile) + " (none)";
    }
}

std::size_t w4a8CutlassReorderedBytes(long long n, long long k)
{
    return n > 0 && k > 0 ? static_cast<std::size_t>(n) * static_cast<std::size_t>(k) / 2u : 0u;
}

#if defined(QS_WITH_CUTLASS) && defined(CUTLASS_ARCH_MMA_SM90_SUPPORTED)

namespace w4a8cutlass {

template <class F> auto onPlain(int tile, F &&f)
{
    if (tile == 2)
        return f(Route<256, Persistent, false>{});
    return f(Route<128, StreamK, false>{});
}

std::string runPlain(int tile, const W4a8CutlassProblem &p, void *ws, cudaStream_t s)
{
    return onPlain(tile, [&](auto route) { return decltype(route)::run(p, ws, s); });
}

std::size_t workspacePlain(int tile, const W4a8CutlassProblem &p)
{
    return onPlain(tile, [&](auto route) { return decltype(route)::workspace(p); });
}

} // namespace w4a8cutlass

bool w4a8CutlassBuilt()
{
    return true;
}

std::string w4a8CutlassRefusal(long long m, long long n, long long k)
{
    if (k <= 0 || k % 128 != 0)
        return "the W4A8 CUTLASS route needs K a positive multiple of 128 (its 128-k stage)";
    if (n <= 0 || n % 64 != 0)
        return "the W4A8 CUTLASS route needs N a positive multiple of 64 (its reorder atom and 16-byte rows of Y)";
    if (m <= 0 || m > (1LL << 30) || n > (1LL << 30) || k > (1LL << 30))
        return "the W4A8 CUTLASS route needs M, N and K in [1, 2^30]";
    if (!cutlassroute::deviceIsHopper())
        return "the W4A8 CUTLASS route runs on compute capability 9.0 (Hopper) only";
    return "";
}

std::size_t w4a8CutlassWorkspaceBytes(const W4a8CutlassProblem &p, int tile)
{
    if (tile < 1 || tile > kW4a8CutlassTiles || !w4a8CutlassRefusal(p.m, p.n, p.k).empty())
        return 0;
    return w4a8CutlassTileReordered(tile) ? w4a8cutlass::workspaceShuffled(tile, p)
                                          : w4a8cutlass::workspacePlain(tile, p);
}

void w4a8Cutlass(const W4a8CutlassProblem &p, int tile, void *workspace, void *stream)
{
    if (tile < 1 || tile > kW4a8CutlassTiles)
        throw GpuError("the W4A8 CUTLASS route has tiles 1…" + std::to_string(kW4a8CutlassTiles) + ", not " +
                       std::to_string(tile));
    if (const std::string why = w4a8CutlassRefusal(p.m, p.n, p.k); !why.empty())
        throw GpuError(why);
    const bool shuffled = w4a8CutlassTileReordered(tile);
    if (shuffled ? !p.reordered : !p.packed)
        throw GpuError("the W4A8 CUTLASS route's tile " + std::to_string(tile) + " reads " +
                       (shuffled ? "the reordered W (w4a8CutlassReorder)" : "the packed codes"));
    if (!p.zeros || !p.scales || !p.x || !p.xScale || !p.xSum || !p.y)
        throw GpuError("the W4A8 CUTLASS route needs z, s_ch, X̂, s_tok, Σx̂ and Y");
    const auto s = static_cast<cudaStream_t>(stream);
    const std::string err =
        shuffled ? w4a8cutlass::runShuffled(tile, p, workspace, s) : w4a8cutlass::runPlain(tile, p, workspace, s);
    if (!err.empty())
        throw GpuError(err);
    QS_GPU_CHECK(cudaGetLastError());
}

#else // no CUTLASS, or not sm_90a

bool w4a8CutlassBuilt()
{
    return false;
}

std::string w4a8CutlassRefusal(long long, long long, long long)
{
#if defined(QS_GPU_HIP)
    return "the W4A8 CUTLASS route is CUDA only (Hopper wgmma)";
#elif defined(QS_WITH_CUTLASS)
    return "the W4A8 CUTLASS route is compiled for sm_90a only (this build has no sm_90a code)";
#else
    return "this build has no W4A8 CUTLASS route (configure with the CUTLASS headers: scripts/fetch-cutlass.sh)";
#endif
}

std::size_t w4a8CutlassWorkspaceBytes(const W4a8CutlassProblem &, int)
{
    return 0;
}

void w4a8Cutlass(const W4a8CutlassProblem &p, int, void *, void *)
{
    throw GpuError(w4a8CutlassRefusal(p.m, p.n, p.k));
}

void w4a8CutlassReorder(const void *, long long n, long long k, void *, void *)
{
    throw GpuError(w4a8CutlassRefusal(1, n, k));
}

#endif

} // namespace quantscope::gpu::launch
