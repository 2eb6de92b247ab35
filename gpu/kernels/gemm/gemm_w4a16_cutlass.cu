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
// docs/numerics.md "Fused W4A16 GEMM", "The CUTLASS route".
#include "kernels_w4a16.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "qs_gpu_compat.h"
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#if defined(QS_WITH_CUTLASS)
#include <cute/tensor.hpp>

#include <cutlass/cutlass.h>
#include <cutlass/epilogue/collective/collective_builder.hpp>
#include <cutlass/gemm/collective/collective_builder.hpp>
#include <cutlass/gemm/device/gemm_universal_adapter.h>
#include <cutlass/gemm/dispatch_policy.hpp>
#include <cutlass/gemm/kernel/gemm_universal.hpp>
#include <cutlass/gemm/kernel/tile_scheduler.hpp>
#include <cutlass/util/packed_stride.hpp>
#endif

namespace quantscope::gpu::launch {

namespace {

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
}

#if defined(QS_WITH_CUTLASS) && defined(CUTLASS_ARCH_MMA_SM90_SUPPORTED)

namespace {

using namespace cute;

using ElementQ = cutlass::int4b_t;
using ElementX = cutlass::bfloat16_t;
using ElementMeta = cutlass::bfloat16_t;
using ElementY = cutlass::bfloat16_t;
// The swapped problem: A = W [N, K] row-major (K-major), B = Xᵀ, i.e. X [M, K] K-major (column-major
// K × M), D = Yᵀ [N, M] column-major.
using LayoutW = cutlass::layout::RowMajor;
using LayoutX = cutlass::layout::ColumnMajor;
using LayoutY = cutlass::layout::ColumnMajor;
constexpr int kAlignW = 128 / cutlass::sizeof_bits<ElementQ>::value;
constexpr int kAlignX = 128 / cutlass::sizeof_bits<ElementX>::value;
constexpr int kAlignY = 128 / cutlass::sizeof_bits<ElementY>::value;

/// One instantiation: BN tokens a tile (the swapped GEMM's N), 128 rows of W (its M), 64 k a stage.
template <int BN, class Scheduler> struct Route {
    using TileShape = Shape<_128, Int<BN>, _64>;
    using ClusterShape = Shape<_1, _1, _1>;
    using Epilogue = typename cutlass::epilogue::collective::CollectiveBuilder<
        cutlass::arch::Sm90, cutlass::arch::OpClassTensorOp, TileShape, ClusterShape,
        cutlass::epilogue::collective::EpilogueTileAuto, float, float, void, LayoutY, kAlignY, ElementY, LayoutY,
        kAlignY, cutlass::epilogue::TmaWarpSpecializedCooperative>::CollectiveOp;
    using Mainloop = typename cutlass::gemm::collective::CollectiveBuilder<
        cutlass::arch::Sm90, cutlass::arch::OpClassTensorOp, cute::tuple<ElementQ, ElementMeta, ElementMeta>, LayoutW,
        kAlignW, ElementX, LayoutX, kAlignX, float, TileShape, ClusterShape,
        cutlass::gemm::collective::StageCountAutoCarveout<static_cast<int>(sizeof(typename Epilogue::SharedStorage))>,
        cutlass::gemm::KernelTmaWarpSpecializedCooperative>::CollectiveOp;
    using Kernel = cutlass::gemm::kernel::GemmUniversal<Shape<int, int, int, int>, Mainloop, Epilogue, Scheduler>;
    using Gemm = cutlass::gemm::device::GemmUniversalAdapter<Kernel>;

    static typename Gemm::Arguments args(const W4a16Problem &p, const void *meta)
    {
        using StrideW = typename Kernel::StrideA;
        using StrideX = typename Kernel::StrideB;
        using StrideY = typename Kernel::StrideD;
        using StrideS = typename Mainloop::StrideScale;
        const int n = static_cast<int>(p.n), m = static_cast<int>(p.m), k = static_cast<int>(p.k);
        const int l = std::max(1, p.experts), g = static_cast<int>(p.group);
        const int groups = static_cast<int>(p.k / p.group);
        const StrideW sw = cutlass::make_cute_packed_stride(StrideW{}, make_shape(n, k, l));
        const StrideX sx = cutlass::make_cute_packed_stride(StrideX{}, make_shape(m, k, l));
        const StrideY sy = cutlass::make_cute_packed_stride(StrideY{}, make_shape(n, m, l));
        const StrideS ss = cutlass::make_cute_packed_stride(StrideS{}, make_shape(n, groups, l));
        const auto *scale = static_cast<const ElementMeta *>(meta);
        const auto *zero = scale + static_cast<long long>(l) * n * groups;
        typename Gemm::Arguments a{cutlass::gemm::GemmUniversalMode::kGemm,
                                   {n, m, k, l},
                                   {reinterpret_cast<const ElementQ *>(p.packed), sw,
                                    static_cast<const ElementX *>(p.x), sx, scale, ss, g, zero},
                                   {{1.0f, 0.0f}, nullptr, sy, static_cast<ElementY *>(p.y), sy}};
        return a;
    }

    static std::size_t workspace(const W4a16Problem &p, const void *meta)
    {
        return Gemm::get_workspace_size(args(p, meta));
    }

    /// "" when it ran, else CUTLASS's refusal.
    static std::string run(const W4a16Problem &p, const void *meta, void *ws, cudaStream_t s)
    {
        Gemm gemm;
        const auto a = args(p, meta);
        if (gemm.can_implement(a) != cutlass::Status::kSuccess)
            return "CUTLASS cannot implement this shape";
        if (gemm.initialize(a, ws, s) != cutlass::Status::kSuccess)
            return "CUTLASS could not initialize the kernel";
        if (gemm.run(s) != cutlass::Status::kSuccess)
            return "the CUTLASS kernel failed to launch";
        return "";
    }
};

using Persistent = cutlass::gemm::PersistentScheduler;
using StreamK = cutlass::gemm::StreamKScheduler;
// Tiles (W4a16Tiling::nPerWarp of kernel 6): 1 16 tokens stream-K, 2 64 stream-K, 3 128 persistent,
// 4 128 stream-K, 5 256 persistent.
using RouteSmall = Route<16, StreamK>;
using RouteMid = Route<64, StreamK>;
using RouteLarge = Route<128, Persistent>;
using RouteLargeSplit = Route<128, StreamK>;
using RouteWide = Route<256, Persistent>;

constexpr int kTileTokens[] = {0, 16, 64, 128, 128, 256};

/// The tile for M tokens (tile 0: by M).
int tileFor(long long m, int tile)
{
    if (tile >= 1 && tile <= 5)
        return tile;
    return m <= 32 ? 1 : m <= 64 ? 2 : m <= 512 ? 4 : 3;
}

template <class F> auto onTile(int tile, F &&f)
{
    switch (tile) {
    case 1: return f(RouteSmall{});
    case 2: return f(RouteMid{});
    case 4: return f(RouteLargeSplit{});
    case 5: return f(RouteWide{});
    default: return f(RouteLarge{});
    }
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
    int dev = 0, major = 0;
    if (cudaGetDevice(&dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev) != cudaSuccess || major != 9)
        return "the CUTLASS route runs on compute capability 9.0 (Hopper) only";
    return "";
}

std::size_t w4a16CutlassWorkspaceBytes(const W4a16Problem &p, int tile)
{
    return onTile(tileFor(p.m, tile), [&](auto route) { return decltype(route)::workspace(p, nullptr); });
}

W4a16Launch w4a16Cutlass(const W4a16Problem &p, const void *meta, int tile, void *workspace, void *stream)
{
    const std::string why = w4a16CutlassRefusal(p);
    if (!why.empty())
        throw GpuError(why);
    const auto s = static_cast<cudaStream_t>(stream);
    const int t = tileFor(p.m, tile);
    const std::string err = onTile(t, [&](auto route) { return decltype(route)::run(p, meta, workspace, s); });
    if (!err.empty())
        throw GpuError(err);
    QS_GPU_CHECK(cudaGetLastError());
    W4a16Launch used;
    used.cutlass = true;
    used.tile = t;
    used.bm = kTileTokens[t];
    used.bn = 128;
    used.warps = 12;                          // a producer warpgroup and two consumer warpgroups
    used.splitK = t == 3 || t == 5 ? 1 : 0; // 0: stream-K decides
    return used;
}

#else // no CUTLASS, or not sm_90a

bool w4a16CutlassBuilt()
{
    return false;
}

std::string w4a16CutlassRefusal(const W4a16Problem &)
{
#if defined(QS_WITH_CUTLASS)
    return "the CUTLASS route is compiled for sm_90a only (this build has no sm_90a code)";
#else
    return "this build has no CUTLASS route (configure with the CUTLASS headers: scripts/fetch-cutlass.sh)";
#endif
}

std::size_t w4a16CutlassWorkspaceBytes(const W4a16Problem &, int)
{
    return 0;
}

W4a16Launch w4a16Cutlass(const W4a16Problem &p, const void *, int, void *, void *)
{
    throw GpuError(w4a16CutlassRefusal(p));
}

#endif

} // namespace quantscope::gpu::launch
