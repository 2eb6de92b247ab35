// SPDX-License-Identifier: MIT
// The W4A16 GEMM's CUTLASS route on the reordered W (kernels_w4a16.h "CUTLASS route", tiles 6…8;
// issue 43): the same GEMM as gemm_w4a16_cutlass.cu, with W read from a copy whose codes are
// permuted once (w4a16CutlassReorder) so that the values a consumer thread converts for one wgmma
// are contiguous in shared memory — the one-time repacking serving engines do at load (Marlin,
// Machete), the same bytes in another order. Built with the other unit (QS_WITH_CUTLASS, sm_90a);
// its stubs are there.
#include "kernels_w4a16.h"

#include <algorithm>

#include "qs_gpu_compat.h"
#if !defined(QS_GPU_HIP)
#include <cuda_runtime.h>
#endif

#if defined(QS_WITH_CUTLASS)
#include "gemm_w4a16_cutlass.cuh"
#endif

#if defined(QS_WITH_CUTLASS) && defined(CUTLASS_ARCH_MMA_SM90_SUPPORTED)

namespace quantscope::gpu::launch {

namespace w4a16cutlass {

template <class F> auto onShuffled(int tile, F &&f)
{
    switch (tile) {
    case 7:
        return f(Route<256, Persistent, true>{});
    case 8:
        return f(Route<64, StreamK, true>{});
    default:
        return f(Route<128, StreamK, true>{});
    }
}

std::string runShuffled(int tile, const W4a16Problem &p, const void *meta, void *ws, cudaStream_t s)
{
    return onShuffled(tile, [&](auto route) { return decltype(route)::run(p, meta, ws, s); });
}

std::size_t workspaceShuffled(int tile, const W4a16Problem &p)
{
    return onShuffled(tile, [&](auto route) { return decltype(route)::workspace(p, nullptr); });
}

} // namespace w4a16cutlass

void w4a16CutlassReorder(const W4a16Problem &p, void *dst, void *stream)
{
    using namespace w4a16cutlass;
    if (const std::string why = w4a16CutlassShuffledRefusal(p); !why.empty())
        throw GpuError(why);
    const int n = static_cast<int>(p.n), k = static_cast<int>(p.k), l = std::max(1, p.experts);
    const auto shape = make_shape(n, k, l);
    const auto src = make_tensor(make_gmem_ptr<const ElementQ>(reinterpret_cast<const ElementQ *>(p.packed)),
                                 make_layout(shape, cutlass::make_cute_packed_stride(StrideWPacked{}, shape)));
    const auto out = make_tensor(make_gmem_ptr<ElementQ>(reinterpret_cast<ElementQ *>(dst)),
                                 cute::tile_to_shape(LayoutAtomQuant{}, shape));
    cutlassroute::queueReorder<ElementQ>(src, out, stream);
}

} // namespace quantscope::gpu::launch

#endif
