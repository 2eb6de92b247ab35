// SPDX-License-Identifier: MIT
#pragma once
// The W4A8-INT8 GEMM's CUTLASS route (kernels_w4a8_cutlass.h): the instantiation template its two
// translation units share (gemm_w4a8_cutlass.cu: tiles 1, 2 on the codes as stored;
// gemm_w4a8_cutlass_shuffled.cu: tiles 3, 4 on the reordered copy, and the reorder), split so that
// a build compiles them in parallel. Included only where QS_WITH_CUTLASS is defined (sm_90a).
#include <cstdint>
#include <string>
#include <type_traits>

#include <cute/tensor.hpp>

#include <cutlass/cutlass.h>
#include <cutlass/epilogue/collective/collective_builder.hpp>
#include <cutlass/epilogue/fusion/sm90_callbacks_tma_warpspecialized.hpp>
#include <cutlass/gemm/collective/collective_builder.hpp>
#include <cutlass/gemm/device/gemm_universal_adapter.h>
#include <cutlass/gemm/dispatch_policy.hpp>
#include <cutlass/gemm/kernel/gemm_universal.hpp>
#include <cutlass/gemm/kernel/tile_scheduler.hpp>
#include <cutlass/util/mixed_dtype_utils.hpp>
#include <cutlass/util/packed_stride.hpp>

#include "gemm_cutlass_common.cuh"
#include "kernels_w4a8_cutlass.h"

namespace quantscope::gpu::launch::w4a8cutlass {

using namespace cute;

using ElementQ = cutlass::int4b_t; // the stored nibble is the two's-complement code q itself
using ElementX = std::int8_t;
using ElementY = cutlass::bfloat16_t;
// The swapped problem, as the W4A16 route: A = W [N, K] row-major (K-major), B = X̂ [M, K] K-major
// (column-major K × M), D = Yᵀ [N, M] column-major = Y [M, N] row-major.
using LayoutW = cutlass::layout::RowMajor;
using LayoutX = cutlass::layout::ColumnMajor;
using LayoutY = cutlass::layout::ColumnMajor;
constexpr int kAlignW = 128 / cutlass::sizeof_bits<ElementQ>::value;
constexpr int kAlignX = 128 / cutlass::sizeof_bits<ElementX>::value;
constexpr int kAlignY = 128 / cutlass::sizeof_bits<ElementY>::value;

// The reordered W: each consumer thread's 16 codes of a 64 × 32 INT8 wgmma A fragment contiguous
// (one 64-bit shared load instead of four 16-bit ones), in the fragment's own value order, so that
// the INT4 → INT8 conversion is CUTLASS's 8-wide NumericArrayConverter as on the plain tiles.
// CUTLASS's compute_memory_reordering_atom (cutlass/util/mixed_dtype_utils.hpp) asks for an FP32
// accumulator, which the INT8 MMA lacks; this is its body for the s8·s8 → s32 atom (the A
// fragment's thread-value layout does not depend on the accumulator type), no value shuffle.
constexpr auto reorderingAtomInt8()
{
    using MmaAtom = decltype(SM90::GMMA::rs_op_selector<ElementX, ElementX, std::int32_t, Shape<_64, _16, _32>>());
    using MmaTraits = MMA_Traits<MmaAtom>;
    auto mkShapeMma = select<0, 2>(typename MmaTraits::Shape_MNK{});
    auto tvLayoutMma = typename MmaTraits::ALayout{};
    auto tvTilerWarp = make_shape(Int<32>{}, size<1>(tvLayoutMma));
    auto mkShapeWarp = shape_div(mkShapeMma, size(typename MmaTraits::ThrID{}) / Int<32>{});
    auto tvLayoutMmaWarp = make_layout_like(composition(tvLayoutMma, tvTilerWarp));
    auto mkLayoutMmaWarp = right_inverse(tvLayoutMmaWarp).with_shape(mkShapeWarp);
    auto mkLayoutMmaTrgt = blocked_product(mkLayoutMmaWarp, Layout<_1>{});
    auto valToOffset = logical_product(Layout<_1>{}, size<1>(tvLayoutMma));
    auto thrToOffset = make_layout(size<0>(tvLayoutMmaWarp));
    auto tvToOffset = select<1, 0>(logical_product(valToOffset, thrToOffset));
    return composition(tvToOffset, mkLayoutMmaTrgt);
}
using LayoutAtomQuant = decltype(reorderingAtomInt8());
using StrideWPacked = cutlass::detail::TagToStrideA_t<LayoutW>;
using LayoutWReordered =
    decltype(cute::tile_to_shape(LayoutAtomQuant{}, Layout<Shape<int, int, int>, StrideWPacked>{}));

/// The epilogue: Yᵀ[n, m] = bf16((float(acc − z[n]·Σx̂[m]) · s_tok[m]) · s_ch[n]). The difference
/// in INT32 (exact: the fold route's integer), one conversion to FP32 (round to nearest), two FP32
/// products in that order, BF16 round to nearest — labPostScale's expression on the same v. Rows of
/// the swapped D are rows of W (column broadcasts: z, s_ch), its columns tokens (row broadcasts:
/// Σx̂, s_tok).
template <class TileShape> struct Evt {
    static constexpr auto RN = cutlass::FloatRoundStyle::round_to_nearest;
    using Acc = cutlass::epilogue::fusion::Sm90AccFetch;
    using Zero = cutlass::epilogue::fusion::Sm90ColBroadcast<0, TileShape, std::int8_t, std::int32_t,
                                                             Stride<_1, _0, std::int64_t>>;
    using XSum = cutlass::epilogue::fusion::Sm90RowBroadcast<0, TileShape, std::int32_t, std::int32_t,
                                                             Stride<_0, _1, std::int64_t>>;
    using Tok = cutlass::epilogue::fusion::Sm90RowBroadcast<0, TileShape, float, float, Stride<_0, _1, std::int64_t>>;
    using Ch = cutlass::epilogue::fusion::Sm90ColBroadcast<0, TileShape, float, float, Stride<_1, _0, std::int64_t>>;
    using ZTerm = cutlass::epilogue::fusion::Sm90EVT<
        cutlass::epilogue::fusion::Sm90Compute<cutlass::multiplies, std::int32_t, std::int32_t, RN>, Zero, XSum>;
    using V = cutlass::epilogue::fusion::Sm90EVT<
        cutlass::epilogue::fusion::Sm90Compute<cutlass::minus, std::int32_t, std::int32_t, RN>, Acc, ZTerm>;
    using VTok = cutlass::epilogue::fusion::Sm90EVT<
        cutlass::epilogue::fusion::Sm90Compute<cutlass::multiplies, float, float, RN>, V, Tok>;
    using Out = cutlass::epilogue::fusion::Sm90EVT<
        cutlass::epilogue::fusion::Sm90Compute<cutlass::multiplies, ElementY, float, RN>, VTok, Ch>;

    static typename Out::Arguments args(const W4a8CutlassProblem &p)
    {
        typename Out::Arguments a{{                                                            // VTok
                                   {                                                           // V
                                    {},                                                        // acc
                                    {                                                          // ZTerm
                                     {p.zeros, std::int8_t(0), {_1{}, _0{}, std::int64_t(0)}}, // z [N]
                                     {p.xSum, std::int32_t(0), {_0{}, _1{}, std::int64_t(0)}}, // Σx̂ [M]
                                     {}},
                                    {}},
                                   {p.xScale, 0.0f, {_0{}, _1{}, std::int64_t(0)}}, // s_tok [M]
                                   {}},
                                  {p.scales, 0.0f, {_1{}, _0{}, std::int64_t(0)}}, // s_ch [N]
                                  {}};
        return a;
    }
};

/// One instantiation: 128 rows of W (the swapped GEMM's M) × BN tokens a tile, 128 k a stage;
/// Shuffled: W read from the reordered copy.
template <int BN, class Scheduler, bool Shuffled> struct Route {
    using TileShape = Shape<_128, Int<BN>, _128>;
    using ClusterShape = Shape<_1, _1, _1>;
    using Fusion = Evt<TileShape>;
    using Epilogue = typename cutlass::epilogue::collective::CollectiveBuilder<
        cutlass::arch::Sm90, cutlass::arch::OpClassTensorOp, TileShape, ClusterShape,
        cutlass::epilogue::collective::EpilogueTileAuto, std::int32_t, float, void, LayoutY, kAlignY, ElementY, LayoutY,
        kAlignY, cutlass::epilogue::TmaWarpSpecializedCooperative, typename Fusion::Out>::CollectiveOp;
    using Mainloop = typename cutlass::gemm::collective::CollectiveBuilder<
        cutlass::arch::Sm90, cutlass::arch::OpClassTensorOp, ElementQ,
        std::conditional_t<Shuffled, LayoutWReordered, LayoutW>, kAlignW, ElementX, LayoutX, kAlignX, std::int32_t,
        TileShape, ClusterShape,
        cutlass::gemm::collective::StageCountAutoCarveout<static_cast<int>(sizeof(typename Epilogue::SharedStorage))>,
        cutlass::gemm::KernelTmaWarpSpecializedCooperative>::CollectiveOp;
    using Kernel = cutlass::gemm::kernel::GemmUniversal<Shape<int, int, int, int>, Mainloop, Epilogue, Scheduler>;
    using Gemm = cutlass::gemm::device::GemmUniversalAdapter<Kernel>;

    static typename Gemm::Arguments args(const W4a8CutlassProblem &p)
    {
        using StrideX = typename Kernel::StrideB;
        using StrideY = typename Kernel::StrideD;
        const int n = static_cast<int>(p.n), m = static_cast<int>(p.m), k = static_cast<int>(p.k);
        const StrideX sx = cutlass::make_cute_packed_stride(StrideX{}, make_shape(m, k, 1));
        const StrideY sy = cutlass::make_cute_packed_stride(StrideY{}, make_shape(n, m, 1));
        const auto dW = [&] {
            if constexpr (Shuffled)
                return cute::tile_to_shape(LayoutAtomQuant{}, make_shape(n, k, 1));
            else
                return cutlass::make_cute_packed_stride(StrideWPacked{}, make_shape(n, k, 1));
        }();
        const void *w = Shuffled ? p.reordered : p.packed;
        typename Gemm::Arguments a{cutlass::gemm::GemmUniversalMode::kGemm,
                                   {n, m, k, 1},
                                   {reinterpret_cast<const ElementQ *>(w), dW, p.x, sx},
                                   {Fusion::args(p), nullptr, sy, static_cast<ElementY *>(p.y), sy}};
        return a;
    }

    static std::size_t workspace(const W4a8CutlassProblem &p) { return Gemm::get_workspace_size(args(p)); }

    /// "" when it ran, else CUTLASS's refusal.
    static std::string run(const W4a8CutlassProblem &p, void *ws, cudaStream_t s)
    {
        return cutlassroute::run<Gemm>(args(p), ws, s);
    }
};

using Persistent = cutlass::gemm::PersistentScheduler;
using StreamK = cutlass::gemm::StreamKScheduler;

/// Tile t's GEMM, defined in the unit that instantiates it: "" when it ran, else CUTLASS's
/// refusal; its workspace bytes.
std::string runPlain(int tile, const W4a8CutlassProblem &p, void *ws, cudaStream_t s);
std::size_t workspacePlain(int tile, const W4a8CutlassProblem &p);
std::string runShuffled(int tile, const W4a8CutlassProblem &p, void *ws, cudaStream_t s);
std::size_t workspaceShuffled(int tile, const W4a8CutlassProblem &p);

} // namespace quantscope::gpu::launch::w4a8cutlass
