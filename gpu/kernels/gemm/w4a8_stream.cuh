// SPDX-License-Identifier: MIT
#pragma once
/// \file w4a8_stream.cuh
/// What the fused W4A8 streaming kernels share (issue 43): their launch arguments (S8) and the exact
/// per-channel INT8 store (storeExactPc): gemm_w4a8_stream.cu's mma.sync kernel and
/// gemm_w4a8_wgmma.cu's warpgroup kernel sum the same INT32 Σ u·x̂ per output over their K slice and
/// finish them the same way. Included by those sources only (CUDA builds; HIP compiles their
/// refusing host side).
#include "w4a16_device.cuh"

#include "kernels_w4a8.h"

#include <cstdint>

namespace quantscope::gpu::launch::w4a8detail {

/// The tile-ordered copy's code bytes (the same sizes as w4a16TileBytes's); its metadata follows.
inline long long codeBytes(const W4a8Problem &p)
{
    return (p.n + 15) / 16 * (p.k / 128) * 1024;
}

#if defined(QS_HAS_MMA)

struct S8 {
    const std::uint8_t *tp; ///< the tile-ordered copy (codes, then metadata at metaOff)
    long long metaOff;
    const std::uint8_t *x; ///< X̂'s codes [M, K]
    const float *sx;       ///< s_tok [M]
    const int *xs;         ///< per channel INT8: X's chunk sums (kernels_w4a8.h w4a8XSums)
    const float *sc;       ///< per channel INT8: s of row n (the engine layout's, one group)
    const std::int8_t *zc; ///< per channel INT8: z of row n
    __nv_bfloat16 *y;
    float *ws;
    unsigned *counters;
    long long M, N, K, group;
    int splitK;
    int cluster; ///< the K slices meet in their cluster (clusterStoreSwapped; dynamic shared memory holds the partials)
};

/// The kernels' arguments from the problem (cluster 0: the launcher sets it where the slices meet
/// there).
inline S8 streamArgs(const W4a8Problem &p, void *workspace, void *counters, int splitK)
{
    return S8{static_cast<const std::uint8_t *>(p.tilePacked),
              codeBytes(p),
              static_cast<const std::uint8_t *>(p.xq),
              p.xScale,
              p.xSums,
              p.scales,
              p.zeros,
              static_cast<__nv_bfloat16 *>(p.y),
              static_cast<float *>(workspace),
              static_cast<unsigned *>(counters),
              p.m,
              p.n,
              p.k,
              p.group,
              splitK,
              0};
}

/// Split K by the workspace: after the block's partials went in by atomics, the last block of its
/// NW·16 columns converts them (finish(v, m, n) each, float partials as they are) and re-zeroes.
template <int NW, class T, class Finish> __device__ __forceinline__ void splitKTail(T *ws, const S8 &a, Finish finish)
{
    using namespace w4a16detail;
    if (a.splitK == 1)
        return;
    unsigned *counter = a.counters + blockIdx.x;
    if (!splitKLastBlock(counter, a.splitK))
        return;
    const long long nBlock0 = static_cast<long long>(blockIdx.x) * NW * 16;
    const long long cols = (a.N - nBlock0) < NW * 16 ? a.N - nBlock0 : NW * 16;
    splitKConvert(ws, a.y, a.N, 0, a.M, nBlock0, cols, counter, blockDim.x, finish);
}

/// The operands that finish one INT8 per-channel output (token m, row n): s_tok, s, the token's
/// Σx over the whole K (X's chunk sums' total) and z.
struct PcOps {
    float sTok, s;
    int sumX, z;
};
__device__ __forceinline__ PcOps pcOps(const S8 &a, long long m, long long n)
{
    return PcOps{__ldg(a.sx + m), __ldg(a.sc + n), __ldg(a.xs + 16 * (a.K / 128) + m), __ldg(a.zc + n)};
}
/// The operands of this thread's first cluster sum (clusterFirstOutput), for a kernel to load at its
/// start where its slices meet in the cluster (a default PcOps otherwise: storeExactPc ignores it).
template <int NT, int NW> __device__ __forceinline__ PcOps pcFirstOps(const S8 &a)
{
    if (!a.cluster)
        return PcOps{};
    long long m = 0, n = 0;
    w4a16detail::clusterFirstOutput<NT>(static_cast<long long>(blockIdx.x) * NW * 16, a.M, a.N, a.splitK, m, n);
    return pcOps(a, m, n);
}

/// INT8 per channel, the exact form: iacc is the warp's INT32 Σ u·x̂ over its K slice (16 rows from
/// row t·16, tokens 8j + 2q + (r & 1) as mma.sync's D fragment). The slices add them as integers —
/// in the cluster's shared memory red (every thread of the block calls; red may alias what the
/// block staged, clusterStoreSwappedFrom starts with a barrier; `first`: pcFirstOps, loaded at the
/// kernel's start), else by INT32 atomics into the workspace with the last block of the tile
/// converting, else alone at one slice — and the sum V of the whole K finishes once as
/// y = s_tok·(s·float(V − (z + 8)·Σx)), Σx the token's total from X's chunk sums: the row-order
/// kernel's expression at one slice, so its bits at every split.
template <int NT, int NW>
__device__ __forceinline__ void storeExactPc(const int (&iacc)[NT][4], const S8 &a, bool live, long long t, int gid,
                                             int q, int *red, const PcOps &first)
{
    using namespace w4a16detail;
    auto prepare = [&](long long m, long long n) { return pcOps(a, m, n); };
    auto finishWith = [](int v, const PcOps &o) { return o.sTok * (o.s * static_cast<float>(v - (o.z + 8) * o.sumX)); };
    auto finish = [&](int v, long long m, long long n) { return finishWith(v, prepare(m, n)); };
    if (a.cluster) {
        clusterStoreSwappedFrom(
            iacc, red, static_cast<long long>(blockIdx.x) * NW * 16, a.M, a.N, a.splitK, a.y,
            [](int v, long long) { return v; }, first, prepare, finishWith);
        return;
    }
    int *ws = reinterpret_cast<int *>(a.ws);
    if (live)
        storeSwapped(iacc, t * 16, gid, q, a.M, a.N, a.splitK, a.y, ws, finish, [](int v, long long) { return v; });
    splitKTail<NW>(ws, a, finish);
}

#endif // QS_HAS_MMA

/// The warpgroup kernel (gemm_w4a8_wgmma.cu): INT8 per channel at 9 … 16 tokens, W's 64 rows a
/// block as wgmma's register operand, X̂ a step ahead through a shared-memory ring as its B operand.
/// Whether it runs p beyond the streaming kernel's conditions (its sm_90a code built, INT8 per
/// channel, M in 9 … 16, an sm_90 device): the launcher's check on every launch, no text made; why
/// not: kernels_w4a8.h w4a8WgmmaRefusal.
bool wgmmaRuns(const W4a8Problem &p);
/// Queues it (after w4a8TileRefusal came back empty; throws w4a8WgmmaRefusal's reason unless
/// wgmmaRuns).
W4a8Launch wgmmaStreamed(const W4a8Problem &p, const W4a8Tiling &tiling, void *workspace, void *counters, void *stream);

} // namespace quantscope::gpu::launch::w4a8detail
