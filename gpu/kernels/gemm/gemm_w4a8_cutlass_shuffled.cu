// SPDX-License-Identifier: MIT
// The W4A8-INT8 GEMM's CUTLASS route on the reordered W (kernels_w4a8_cutlass.h, tiles 3 and 4;
// issue 43): the same GEMM as gemm_w4a8_cutlass.cu, with W read from a copy whose codes are
// permuted once per weight (w4a8CutlassReorder) so that the codes a consumer thread converts for
// one wgmma are contiguous in shared memory — the one-time repacking serving engines do at load,
// the same bytes in another order, not part of a GEMM's time. Built with the other unit
// (QS_WITH_CUTLASS, sm_90a); its stubs are there.
#include "kernels_w4a8_cutlass.h"

#include <algorithm>

#include "qs_gpu_compat.h"
#if !defined(QS_GPU_HIP)
#include <cuda_runtime.h>
#endif

#if defined(QS_WITH_CUTLASS)
#include "gemm_w4a8_cutlass.cuh"
#endif

#if defined(QS_WITH_CUTLASS) && defined(CUTLASS_ARCH_MMA_SM90_SUPPORTED)

namespace quantscope::gpu::launch {

namespace w4a8cutlass {

template <class F> auto onShuffled(int tile, F &&f)
{
    if (tile == 4)
        return f(Route<256, Persistent, true>{});
    return f(Route<128, StreamK, true>{});
}

std::string runShuffled(int tile, const W4a8CutlassProblem &p, void *ws, cudaStream_t s)
{
    return onShuffled(tile, [&](auto route) { return decltype(route)::run(p, ws, s); });
}

std::size_t workspaceShuffled(int tile, const W4a8CutlassProblem &p)
{
    return onShuffled(tile, [&](auto route) { return decltype(route)::workspace(p); });
}

} // namespace w4a8cutlass

void w4a8CutlassReorder(const void *packed, long long n, long long k, void *dst, void *stream)
{
    using namespace w4a8cutlass;
    if (const std::string why = w4a8CutlassRefusal(1, n, k); !why.empty())
        throw GpuError(why);
    const auto shape = make_shape(static_cast<int>(n), static_cast<int>(k), 1);
    const auto src = make_tensor(make_gmem_ptr<const ElementQ>(reinterpret_cast<const ElementQ *>(packed)),
                                 make_layout(shape, cutlass::make_cute_packed_stride(StrideWPacked{}, shape)));
    const auto out = make_tensor(make_gmem_ptr<ElementQ>(reinterpret_cast<ElementQ *>(dst)),
                                 cute::tile_to_shape(LayoutAtomQuant{}, shape));
    // CUTLASS's own reorder kernel (cutlass/util/mixed_dtype_utils.hpp), queued on our stream, as
    // the W4A16 route's w4a16CutlassReorder: a thread owns whole bytes of the destination (two
    // codes along its stride-1 mode), 16 rows of W a block.
    using DstLayout = typename decltype(out)::layout_type;
    auto hasMajorMode = [](auto st) {
        return any_of(flatten(st), [](auto a) { return is_constant<1, decltype(a)>{}; });
    };
    static_assert(hasMajorMode(stride<0>(DstLayout{})) ^ hasMajorMode(stride<1>(DstLayout{})),
                  "the reordered layout has one stride-1 mode");
    auto valLayout = conditional_return<hasMajorMode(stride<0>(DstLayout{}))>(
        make_layout(make_shape(Int<2>{}, Int<1>{}), GenColMajor{}),
        make_layout(make_shape(Int<1>{}, Int<2>{}), GenRowMajor{}));
    auto tiledCopy =
        make_tiled_copy(Copy_Atom<DefaultCopy, ElementQ>{}, make_layout(make_shape(Int<1>{}, Int<128>{})), valLayout);
    auto tiledOut = group_modes<3, rank_v<DstLayout>>(tiled_divide(out, Shape<_16>{}));
    const dim3 blocks{static_cast<unsigned>(size<1>(tiledOut)), 1u, static_cast<unsigned>(size<3>(tiledOut))};
    cutlass::reorder_tensor_kernel<Shape<_16>>
        <<<blocks, 128, 0, static_cast<cudaStream_t>(stream)>>>(src, out, tiledCopy);
    QS_GPU_CHECK(cudaGetLastError());
}

} // namespace quantscope::gpu::launch

#endif
