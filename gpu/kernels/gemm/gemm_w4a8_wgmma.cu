// SPDX-License-Identifier: MIT
// The fused W4A8-INT8 GEMM's warpgroup kernel for 9 … 16 tokens, per channel (kernels_w4a8.h,
// W4a8Tiling::wgmma; issue 43): the streaming kernel's exact per-channel form (gemm_w4a8_stream.cu,
// PC) with Hopper's wgmma in place of mma.sync.
//
// Why: at 16 tokens the mma.sync kernel is bound by what its warps issue (Nsight, docs/perf.md "Fused
// W4A8 GEMM (issue 43)"): per chunk of 128 k a warp loads X̂'s 2 KiB (16 tokens × 128 bytes, four
// 16-byte loads a lane) and issues 8 mma.sync (two n8 token tiles × four k32 steps). Here the block's
// four warps are one warpgroup and W's 64 rows (16 a warp, the same tile-ordered copy, the same
// in-register operand split) are wgmma m64n16k32's register operand A; X̂ for the 16 tokens is
// operand B in shared memory, staged a step at a time for the four warps together; a warp issues 4
// wgmma a chunk (one per k32 step) and reads no X̂ in its arithmetic.
//
// A's registers: a warp's 16 rows of m64nNk32 take the fragment of mma.sync m16n8k32 (a0/a1 rows gid
// / gid + 8 at κ = 4·tig … 4·tig + 3, a2/a3 the same rows at κ + 16), so the split operands go in as
// the mma.sync kernel feeds them. Its κ order within step st of chunk ch: κ = 4·tig + j is
// k = 128·ch + 32·tig + 8·st + j and κ = 16 + 4·tig + j is that k + 4 (w4a8_math.h's split order).
// B in shared memory follows it: wgmma's K-major layout without swizzle, core matrices of 8 tokens ×
// 16 bytes (κ), per step 512 bytes: κ 0–15 of tokens 0–7 at +0, of tokens 8–15 at +128, κ 16–31 at
// +256 / +384. Each thread loads 16 bytes of X̂ a chunk (k = 128·ch + 16·p … + 15 of token m) with W's
// loads, a step ahead, and stores them as four words in that order (word j to step 2·(p & 1) +
// (j >> 1), κ half j & 1, column p >> 1) into one of two ring slots; rows past M are zero. The sums
// are exact INT32 and the products the same; the outputs equal the mma.sync kernel's and the
// row-order kernel's bits (storeExactPc finishes them the same way, w4a8_stream.cuh).
//
// A step: X̂ into its slot, a proxy fence (the stores, visible to wgmma's reads) and the block's
// barrier, W's operands, then the step's 4·U wgmma as one commit group; the group before is waited
// for (wait_group 1; its slot is the one the next step writes), all of them before the store.
// ptxas inserts the warpgroup arrivals that keep A's registers until their wgmma read them (its
// C7519 notes). The B descriptor's fields (PTX ISA, "Matrix Descriptor"): start address >> 4, the
// leading byte offset (between the core matrices along K) and the stride byte offset (between those
// along the tokens), no swizzle. The design's measurements: docs/perf.md "Fused W4A8 GEMM (issue
// 43)", the fourteenth session.
#define QS_HD __host__ __device__
#include "w4a8_math.h"

#include "w4a8_stream.cuh"
#include "wgmma.cuh"

#include "kernels_w4a16.h"
#include "kernels_w4a8.h"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <string>

#include "qs_gpu_compat.h"

// QS_W4A8_WGMMA: set by the build for this source compiled for sm_90a (gpu/CMakeLists.txt), the only
// target with wgmma.
#if defined(QS_HAS_MMA) && defined(QS_W4A8_WGMMA)
#define QS_WG 1
#endif

namespace quantscope::gpu::launch::w4a8detail {

namespace {

#if defined(QS_WG)

/// One chunk of 128 k of X̂'s 16 tokens in the stage: four k32 steps of 512 bytes (wgmma.cuh's layout).
constexpr int kStepBytes = wgmma::kStepBytes, kChunkBytes = 4 * kStepBytes;

namespace gm = quantscope::gpumath;
using w4a16detail::ldNc;
using wgmma::pin;

/// The descriptor's two offsets (bytes): between the κ halves of a step (K) and between the token
/// halves. QS_W4A8_WG_SWAP (a measurement switch): the two fields the other way round.
#if defined(QS_W4A8_WG_SWAP)
constexpr unsigned kLbo = wgmma::kSbo, kSbo = wgmma::kLbo;
#else
constexpr unsigned kLbo = wgmma::kLbo, kSbo = wgmma::kSbo;
#endif

/// QS_W4A8_WG_WAIT (a measurement switch, bench/probe/w4a8_variants.sh): the groups a step leaves in
/// flight, 1 (the group before is waited for) or 0 (this step's); within 0.1–0.3 µs of each other.
#ifndef QS_W4A8_WG_WAIT
#define QS_W4A8_WG_WAIT 1
#endif

/// d += A·B: 64 rows of W (this warp's 16 from a0 … a3) × 16 tokens × 32 k, INT8 → INT32.
__device__ __forceinline__ void wgmmaS8(int (&d)[8], std::uint32_t a0, std::uint32_t a1, std::uint32_t a2,
                                        std::uint32_t a3, std::uint64_t desc)
{
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %13, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n16k32.s32.s8.s8 {%0,%1,%2,%3,%4,%5,%6,%7}, {%8,%9,%10,%11}, %12, "
                 "p;\n}\n"
                 : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3]), "+r"(d[4]), "+r"(d[5]), "+r"(d[6]), "+r"(d[7])
                 : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "l"(desc), "r"(1));
}

/// U chunks of 128 k a step; one warpgroup a block, 64 rows of W.
template <int U> __global__ void __launch_bounds__(128) wgKernel(S8 a)
{
    constexpr int kStage = U * kChunkBytes; // one step's X̂ (the ring holds two)
    extern __shared__ __align__(128) std::uint8_t stage[];
    const int tid = static_cast<int>(threadIdx.x), lane = tid & 31, warp = tid >> 5;
    const int gid = lane >> 2, q = lane & 3;
    const long long tiles = (a.N + 15) / 16;
    const long long tRaw = static_cast<long long>(blockIdx.x) * 4 + warp;
    const bool live = tRaw < tiles; // a warp past the last tile streams the last one and stores nothing
    const long long t = live ? tRaw : tiles - 1;
    const int chunks = static_cast<int>(a.K / 128);
    const int per = (chunks + a.splitK - 1) / a.splitK;
    const int c0 = static_cast<int>(blockIdx.y) * per, c1 = c0 + per < chunks ? c0 + per : chunks;
    const PcOps first = pcFirstOps<2, 4>(a); // the finishing operands of the tail, loaded now

    // W: the warp's KiB a chunk (lane: 16 bytes of rows gid and gid + 8), as the mma.sync kernel.
    const uint4 *wNext = reinterpret_cast<const uint4 *>(a.tp + (t * chunks + c0) * 1024) + lane;
    // X̂: thread (p = tid & 7, token m = tid >> 3) loads the 16 bytes p of its token's chunk (a warp:
    // four tokens' 128 contiguous bytes) and stores them as four words in the B layout (see above:
    // word j to step 2·(p & 1) + (j >> 1), κ half j & 1, column p >> 1); tokens past M store zeros.
    const int p = tid & 7, m = tid >> 3;
    const bool in = m < a.M;
    const uint4 *xSrc = reinterpret_cast<const uint4 *>(a.x + (in ? m : 0) * a.K) + p;
    const int xOff = ((p & 1) * 2) * kStepBytes + (m >> 3) * 128 + (m & 7) * 16 + (p >> 1) * 4;
    auto load = [&](uint4(&w)[U][2], uint4(&x)[U], int ch) {
#pragma unroll
        for (int u = 0; u < U; ++u) {
            if (u == 0 || ch + u < c1) {
                w[u][0] = ldNc(wNext);
                w[u][1] = ldNc(wNext + 32);
                x[u] = in ? __ldg(xSrc + 8 * (ch + u)) : make_uint4(0u, 0u, 0u, 0u);
            }
            wNext += 64;
        }
    };

    const unsigned sbase = static_cast<unsigned>(__cvta_generic_to_shared(stage));
    const std::uint64_t desc0 = wgmma::descriptor(sbase, kLbo, kSbo);
    int d[8] = {};
    pin(d);
    // A step: X̂'s U chunks into ring slot `slot` (its readers, the wgmma two steps back, are done:
    // each step ends waiting for the step before), the block's barrier, then W's operands and the
    // step's 4·U wgmma as one group; the group before is waited for (QS_W4A8_WG_WAIT 0: this one).
    auto step = [&](const uint4(&w)[U][2], const uint4(&x)[U], int ch, int slot) {
#pragma unroll
        for (int u = 0; u < U; ++u) {
            std::uint8_t *o = stage + slot * kStage + u * kChunkBytes + xOff;
            *reinterpret_cast<std::uint32_t *>(o) = x[u].x;
            *reinterpret_cast<std::uint32_t *>(o + 256) = x[u].y;
            *reinterpret_cast<std::uint32_t *>(o + kStepBytes) = x[u].z;
            *reinterpret_cast<std::uint32_t *>(o + kStepBytes + 256) = x[u].w;
        }
        asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory"); // visible to wgmma's reads
        __syncthreads();
        std::uint32_t A[U][4][4];
#pragma unroll
        for (int u = 0; u < U; ++u)
#pragma unroll
            for (int st = 0; st < 4; ++st) {
                std::uint32_t lo[2], hi[2];
#pragma unroll
                for (int h = 0; h < 2; ++h)
                    gm::w4a8Int8OperandSplit(w4a16detail::wordOf(w[u][h], st), lo[h], hi[h]);
                A[u][st][0] = lo[0], A[u][st][1] = lo[1], A[u][st][2] = hi[0], A[u][st][3] = hi[1];
            }
        wgmma::fence();
#pragma unroll
        for (int u = 0; u < U; ++u) {
            if (u > 0 && ch + u >= c1)
                break;
#pragma unroll
            for (int st = 0; st < 4; ++st)
                wgmmaS8(d, A[u][st][0], A[u][st][1], A[u][st][2], A[u][st][3],
                        desc0 + static_cast<std::uint64_t>((slot * kStage + u * kChunkBytes + st * kStepBytes) >> 4));
        }
        wgmma::commit();
        wgmma::wait<QS_W4A8_WG_WAIT>();
    };

    uint4 wa[U][2], wb[U][2], xa[U], xb[U];
    load(wa, xa, c0);
    for (int ch = c0; ch < c1; ch += 2 * U) {
        if (ch + U < c1)
            load(wb, xb, ch + U);
        step(wa, xa, ch, 0);
        if (ch + U >= c1)
            break;
        if (ch + 2 * U < c1)
            load(wa, xa, ch + 2 * U);
        step(wb, xb, ch + U, 1);
    }
    wgmma::wait<0>();
    pin(d);
    // d is mma.sync's D fragment per n8 token tile j: d[4j + r]
    const int iacc[2][4] = {{d[0], d[1], d[2], d[3]}, {d[4], d[5], d[6], d[7]}};
    storeExactPc<2, 4>(iacc, a, live, t, gid, q, reinterpret_cast<int *>(stage), first); // red aliases the ring
}

using WgFn = void (*)(S8);

#endif // QS_WG

} // namespace

bool wgmmaRuns(const W4a8Problem &p)
{
#if defined(QS_WG)
    return !p.fp8 && p.group == p.k && p.m >= 9 && p.m <= 16 && w4a16detail::deviceIsSm90();
#else
    (void)p;
    return false;
#endif
}

W4a8Launch wgmmaStreamed(const W4a8Problem &p, const W4a8Tiling &tiling, void *workspace, void *counters, void *stream)
{
    if (!wgmmaRuns(p))
        throw GpuError(w4a8WgmmaRefusal(p));
    W4a8Launch l;
    const int u = tiling.chunksAhead == 2 ? 2 : 1; // 1 a step unless asked: the H200's best at M = 16
    const long long tiles = (p.n + 15) / 16, nBlocks = (tiles + 3) / 4, chunks = p.k / 128;
    long long split = tiling.splitK;
    // X̂'s ring (two steps of U chunks of 2 KiB), which the cluster's partials (2 · 16 bytes a
    // thread, 4 KiB) reuse after the loop
    const std::size_t smem = static_cast<std::size_t>(2 * u * 2048);
#if defined(QS_WG)
    const WgFn fn = u == 1 ? &wgKernel<1> : &wgKernel<2>;
    if (split <= 0) {
        static std::atomic<int> occupancy[2] = {};
        const int perSm = w4a16detail::residentBlocks(occupancy[u - 1], fn, 128, smem);
        split = w4a16detail::chooseSplit(perSm, nBlocks, chunks);
    }
#endif
    split = w4a16detail::launchSlices(split, chunks, workspace, counters);
    l.splitK = static_cast<int>(split);
    l.blocks = static_cast<int>(nBlocks * split);
    l.tokenTiles = 2;
    l.chunksAhead = u;
    l.warps = 4;
    l.streamed = true;
    l.wgmma = true;
#if defined(QS_WG)
    S8 a = streamArgs(p, workspace, counters, l.splitK);
    if (tiling.reduce == 2 && split > 1 &&
        w4a16detail::clusterFits(reinterpret_cast<const void *>(fn), split, 128, smem))
        a.cluster = 1, l.clusterReduce = true;
    const dim3 grid(static_cast<unsigned>(nBlocks), static_cast<unsigned>(split));
    w4a16detail::launchClustered(fn, grid, 128, smem, stream, a.cluster ? static_cast<int>(split) : 1, a);
#else
    (void)smem, (void)stream;
#endif
    return l;
}

} // namespace quantscope::gpu::launch::w4a8detail

namespace quantscope::gpu::launch {

std::string w4a8WgmmaRefusal(const W4a8Problem &p)
{
    if (w4a8detail::wgmmaRuns(p))
        return "";
    const std::string what = "the warpgroup W4A8-INT8 kernel";
#if !defined(QS_WG)
    return what + ": not in this build (wgmma needs CUDA code for sm_90a)";
#else
    if (p.fp8 || p.group != p.k)
        return what + " runs INT8 per channel only (group = K)";
    if (p.m < 9 || p.m > 16)
        return what + " runs 9 to 16 tokens (m = " + std::to_string(p.m) + "; fewer take the mma.sync kernel)";
    return what + " runs on sm_90 devices only";
#endif
}

} // namespace quantscope::gpu::launch
