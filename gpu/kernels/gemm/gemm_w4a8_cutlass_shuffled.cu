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
    cutlassroute::queueReorder<ElementQ>(src, out, stream);
}

} // namespace quantscope::gpu::launch

#endif
