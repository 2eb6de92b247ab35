// SPDX-License-Identifier: MIT
#pragma once
// The W4A16 GEMM's CUTLASS route (kernels_w4a16.h "CUTLASS route"): the instantiation template the
// two translation units share (gemm_w4a16_cutlass.cu: tiles 1…5 on the engine's packed codes;
// gemm_w4a16_cutlass_shuffled.cu: tiles 6…8 on the reordered copy, and the reorder), split so that
// a build compiles them in parallel. Included only where QS_WITH_CUTLASS is defined (sm_90a).
#include <algorithm>
#include <string>
#include <type_traits>

#include <cute/tensor.hpp>

#include <cutlass/cutlass.h>
#include <cutlass/epilogue/collective/collective_builder.hpp>
#include <cutlass/gemm/collective/collective_builder.hpp>
#include <cutlass/gemm/device/gemm_universal_adapter.h>
#include <cutlass/gemm/dispatch_policy.hpp>
#include <cutlass/gemm/kernel/gemm_universal.hpp>
#include <cutlass/gemm/kernel/tile_scheduler.hpp>
#include <cutlass/util/mixed_dtype_utils.hpp>
#include <cutlass/util/packed_stride.hpp>

#include "gemm_cutlass_common.cuh"
#include "kernels_w4a16.h"

namespace quantscope::gpu::launch::w4a16cutlass {

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

// The reordered W of the shuffled tiles: each thread's codes of a wgmma A fragment contiguous (one
// 64-bit shared load instead of several narrow ones), the values of a thread in the order
// [0, 2, 4, 6, 1, 3, 5, 7] that CUTLASS's shuffle converter takes (cutlass/util/mixed_dtype_utils.hpp).
using ValueShuffle = Layout<Shape<_2, _4>, Stride<_4, _1>>;
using LayoutAtomQuant =
    decltype(cutlass::compute_memory_reordering_atom<ElementX, Layout<Shape<_1, _1>>, ValueShuffle>());
using StrideWPacked = cutlass::detail::TagToStrideA_t<LayoutW>;
using LayoutWReordered =
    decltype(cute::tile_to_shape(LayoutAtomQuant{}, Layout<Shape<int, int, int>, StrideWPacked>{}));

/// One instantiation: BN tokens a tile (the swapped GEMM's N), 128 rows of W (its M), 64 k a stage;
/// Shuffled: W read from the reordered copy (W4a16Problem::cutlassPacked).
template <int BN, class Scheduler, bool Shuffled = false> struct Route {
    using TileShape = Shape<_128, Int<BN>, _64>;
    using ClusterShape = Shape<_1, _1, _1>;
    using Epilogue = typename cutlass::epilogue::collective::CollectiveBuilder<
        cutlass::arch::Sm90, cutlass::arch::OpClassTensorOp, TileShape, ClusterShape,
        cutlass::epilogue::collective::EpilogueTileAuto, float, float, void, LayoutY, kAlignY, ElementY, LayoutY,
        kAlignY, cutlass::epilogue::TmaWarpSpecializedCooperative>::CollectiveOp;
    using Mainloop = typename cutlass::gemm::collective::CollectiveBuilder<
        cutlass::arch::Sm90, cutlass::arch::OpClassTensorOp, cute::tuple<ElementQ, ElementMeta, ElementMeta>,
        std::conditional_t<Shuffled, LayoutWReordered, LayoutW>, kAlignW, ElementX, LayoutX, kAlignX, float, TileShape,
        ClusterShape,
        cutlass::gemm::collective::StageCountAutoCarveout<static_cast<int>(sizeof(typename Epilogue::SharedStorage))>,
        cutlass::gemm::KernelTmaWarpSpecializedCooperative>::CollectiveOp;
    using Kernel = cutlass::gemm::kernel::GemmUniversal<Shape<int, int, int, int>, Mainloop, Epilogue, Scheduler>;
    using Gemm = cutlass::gemm::device::GemmUniversalAdapter<Kernel>;

    static typename Gemm::Arguments args(const W4a16Problem &p, const void *meta)
    {
        using StrideW = StrideWPacked;
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
        const auto dW = [&] {
            if constexpr (Shuffled)
                return cute::tile_to_shape(LayoutAtomQuant{}, make_shape(n, k, l));
            else
                return sw;
        }();
        const void *w = Shuffled ? p.cutlassPacked : p.packed;
        typename Gemm::Arguments a{
            cutlass::gemm::GemmUniversalMode::kGemm,
            {n, m, k, l},
            {reinterpret_cast<const ElementQ *>(w), dW, static_cast<const ElementX *>(p.x), sx, scale, ss, g, zero},
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
        return cutlassroute::run<Gemm>(args(p, meta), ws, s);
    }
};

using Persistent = cutlass::gemm::PersistentScheduler;
using StreamK = cutlass::gemm::StreamKScheduler;

/// Tile t's GEMM (W4a16Tiling::nPerWarp of kernel 6), defined in the unit that instantiates it: ""
/// when it ran, else CUTLASS's refusal; its workspace bytes.
std::string runPlain(int tile, const W4a16Problem &p, const void *meta, void *ws, cudaStream_t s);
std::size_t workspacePlain(int tile, const W4a16Problem &p);
std::string runShuffled(int tile, const W4a16Problem &p, const void *meta, void *ws, cudaStream_t s);
std::size_t workspaceShuffled(int tile, const W4a16Problem &p);

} // namespace quantscope::gpu::launch::w4a16cutlass
