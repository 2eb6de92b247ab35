// SPDX-License-Identifier: MIT
#pragma once
// What the CUTLASS routes of the fused GEMMs share (gemm_w4a16_cutlass.cuh, gemm_w4a8_cutlass.cuh;
// issue 43): the device check, running one instantiation with CUTLASS's refusal as text, and queueing CUTLASS's own
// reorder kernel (cutlass/util/mixed_dtype_utils.hpp) into a reordered copy of the INT4 codes.
// Included only where QS_WITH_CUTLASS is defined (sm_90a).
#include <string>

#include <cute/tensor.hpp>

#include <cutlass/cutlass.h>
#include <cutlass/util/mixed_dtype_utils.hpp>

#include "qs_gpu_compat.h"

namespace quantscope::gpu::launch::cutlassroute {

/// Whether the current device is compute capability 9.x, the only one the sm_90a routes run on
/// (asked once per process: the refusals that call it run on every launch).
inline bool deviceIsHopper()
{
    static const bool hopper = [] {
        int dev = 0, major = 0;
        return cudaGetDevice(&dev) == cudaSuccess &&
               cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev) == cudaSuccess && major == 9;
    }();
    return hopper;
}

/// Runs Gemm (a GemmUniversalAdapter) with arguments a on s: "" when it ran, else CUTLASS's refusal.
template <class Gemm> std::string run(const typename Gemm::Arguments &a, void *ws, cudaStream_t s)
{
    Gemm gemm;
    if (gemm.can_implement(a) != cutlass::Status::kSuccess)
        return "CUTLASS cannot implement this shape";
    if (gemm.initialize(a, ws, s) != cutlass::Status::kSuccess)
        return "CUTLASS could not initialize the kernel";
    if (gemm.run(s) != cutlass::Status::kSuccess)
        return "the CUTLASS kernel failed to launch";
    return "";
}

/// Queues CUTLASS's reorder kernel from the packed codes src into out (a reordered layout with one
/// stride-1 mode) on stream: a thread owns whole bytes of the destination (two codes along its
/// stride-1 mode), 16 rows of W a block.
template <class Element, class Src, class Dst> void queueReorder(const Src &src, const Dst &out, void *stream)
{
    using namespace cute;
    using DstLayout = typename Dst::layout_type;
    auto hasMajorMode = [](auto st) {
        return any_of(flatten(st), [](auto a) { return is_constant<1, decltype(a)>{}; });
    };
    static_assert(hasMajorMode(stride<0>(DstLayout{})) ^ hasMajorMode(stride<1>(DstLayout{})),
                  "the reordered layout has one stride-1 mode");
    auto valLayout = conditional_return<hasMajorMode(stride<0>(DstLayout{}))>(
        make_layout(make_shape(Int<2>{}, Int<1>{}), GenColMajor{}),
        make_layout(make_shape(Int<1>{}, Int<2>{}), GenRowMajor{}));
    auto tiledCopy =
        make_tiled_copy(Copy_Atom<DefaultCopy, Element>{}, make_layout(make_shape(Int<1>{}, Int<128>{})), valLayout);
    auto tiledOut = group_modes<3, rank_v<DstLayout>>(tiled_divide(out, Shape<_16>{}));
    const dim3 blocks{static_cast<unsigned>(size<1>(tiledOut)), 1u, static_cast<unsigned>(size<3>(tiledOut))};
    cutlass::reorder_tensor_kernel<Shape<_16>>
        <<<blocks, 128, 0, static_cast<cudaStream_t>(stream)>>>(src, out, tiledCopy);
    QS_GPU_CHECK(cudaGetLastError());
}

} // namespace quantscope::gpu::launch::cutlassroute
