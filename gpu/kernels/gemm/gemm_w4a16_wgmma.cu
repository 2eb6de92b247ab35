// SPDX-License-Identifier: MIT
// The fused W4A16 GEMM's warpgroup kernel for 9 … 16 tokens, group 128 (kernels_w4a16.h,
// W4a16Tiling::wgmma; issue 43): the streaming kernel's arithmetic (gemm_w4a16_stream.cu, G1) with
// Hopper's wgmma in place of mma.sync.
//
// Why: at 16 tokens the streaming kernel issues per warp and chunk of 128 k 16 mma.sync (two n8
// token tiles × eight k16 steps, each chain waiting on the one before) and 8 shared loads of X
// fragments (4 KiB), beside the 88 instructions of W's conversion; Nsight found it bound by the
// warps' dependent latency at 25 % occupancy (docs/perf.md "Fused W4A16 GEMM (issue 43)"). Here each
// warpgroup's four warps hold W's 64 rows (16 a warp: the same tile-ordered copy, the same BF16
// q − z pairs) as wgmma m64n16k16's register operand A, and X's 16 tokens are operand B, read by
// the tensor cores from shared memory: a warpgroup issues 8 wgmma a chunk and no X load.
//
// A's registers: a warp's 16 rows of m64nNk16 take mma.sync m16n8k16's A fragment, so the pairs
// enter as the streaming kernel feeds them: codePairs gives p[j] = (128 + u_j, 128 + u_{j+4}) of a
// word of 8 codes (k = 128·ch + 32·tig + 8·k4 + 0 … 7), and the first k16 step of word k4 takes
// p[0] at κ = 2·tig, 2·tig + 1 and p[1] at κ + 8; the second p[2] and p[3]. B follows: wgmma.cuh's
// K-major layout, per step 512 bytes; token n's 16 bytes of κ half kh of step 2·k4 + hf are four
// words, word tig = X's pair (k, k + 4) at k = 128·ch + 32·tig + 8·k4 + 2·hf + kh — the pairs
// stageX builds for the mma.sync kernels' B fragments, placed where wgmma reads them. The whole K
// slice of X (⌈K/128 / split⌉ chunks of 4 KiB, at most 24) is staged once, zeros past M, before the
// loop; the loop has no barrier.
//
// A step: the pairs of its U chunks (1, or 2 in blocks of one or two warpgroups), their 8·U wgmma
// as one commit group (each chunk's sum from zero in its own 8 FP32 accumulators: the chunk is the
// group, the sum the streaming kernel's exact tmp), the group waited for, then acc += s·sum chunk by
// chunk, the streaming kernel's order. The next step's loads are in flight meanwhile. (Two sums in
// turn with the group before waited for instead measured nothing: ptxas serialized the wgmma, C7513
// / C7514, as the next chunk's pairs and the scaled sum reuse registers a group in flight owns.)
// Split K and the outputs as the streaming kernel (FP32 atomics with the last block converting, or
// the cluster sum). The bound is the streaming kernel's: every product exact in FP32, the group sums
// FP32 (docs/numerics.md "Fused W4A16 GEMM").
#include "w4a16_device.cuh"
#include "wgmma.cuh"

#include <algorithm>
#include <atomic>
#include <string>

#include "qs_gpu_compat.h"

// QS_W4A16_WGMMA: set by the build for this source compiled for sm_90a (gpu/CMakeLists.txt).
#if defined(QS_HAS_MMA) && defined(QS_W4A16_WGMMA)
#define QS_WG16 1
#endif

namespace quantscope::gpu::launch::w4a16detail {

namespace {

/// The most chunks of 128 k a slice may stage (4 KiB each: 96 KiB, the streaming kernel's budget).
constexpr long long kMaxSliceChunks = 24;

#if defined(QS_WG16)

constexpr int kStep = wgmma::kStepBytes, kChunk = 8 * kStep;

/// d (+)= A·B: 64 rows of W (this warp's 16 from a0 … a3) × 16 tokens × 16 k, BF16 → FP32; `add`
/// false starts the sum (d = A·B).
__device__ __forceinline__ void wgmmaBf16(float (&d)[8], std::uint32_t a0, std::uint32_t a1, std::uint32_t a2,
                                          std::uint32_t a3, std::uint64_t desc, bool add)
{
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %13, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n16k16.f32.bf16.bf16 {%0,%1,%2,%3,%4,%5,%6,%7}, {%8,%9,%10,%11}, "
                 "%12, p, 1, 1, 0;\n}\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7])
                 : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "l"(desc), "r"(add ? 1 : 0));
}

/// U chunks of 128 k a step, WG warpgroups a block (64·WG rows of W sharing one X stage).
/// Registers (ptxas 13): 95 at one chunk a step, 167 at two (so two only with WG ≤ 2: four
/// warpgroups cap at 128 and spilled).
template <int U, int WG>
__global__ void __launch_bounds__(WG * 128, 1) wgKernel(Args a, const std::uint8_t *tp, long long metaOff)
{
    extern __shared__ __align__(128) std::uint8_t stage[];
    const int tid = static_cast<int>(threadIdx.x), lane = tid & 31, warp = tid >> 5;
    const int gid = lane >> 2, q = lane & 3;
    const long long tiles = (a.N + 15) / 16;
    const long long tRaw = static_cast<long long>(blockIdx.x) * (4 * WG) + warp;
    const bool live = tRaw < tiles; // a warp past the last tile streams the last one and stores nothing
    const long long t = live ? tRaw : tiles - 1;
    const int chunks = static_cast<int>(a.K / 128);
    const int per = (chunks + a.splitK - 1) / a.splitK;
    const int c0 = static_cast<int>(blockIdx.y) * per, c1 = c0 + per < chunks ? c0 + per : chunks;

    // W and its metadata as the streaming kernel (group 128: one group a chunk).
    const uint4 *wNext = reinterpret_cast<const uint4 *>(tp + (t * chunks + c0) * 1024) + lane;
    const std::uint8_t *mNext = tp + metaOff + (t * chunks + c0) * 96 + 8 * gid;
    auto load = [&](uint4(&w)[U][2], float2(&s)[U], unsigned(&z)[U], int ch) {
#pragma unroll
        for (int u = 0; u < U; ++u) {
            if (u == 0 || ch + u < c1) {
                w[u][0] = ldNc(wNext);
                w[u][1] = ldNc(wNext + 32);
                s[u] = __ldg(reinterpret_cast<const float2 *>(mNext));
                z[u] = __ldg(reinterpret_cast<const unsigned *>(mNext + 64 - 4 * gid));
            }
            wNext += 64;
            mNext += 96;
        }
    };
    uint4 wa[U][2], wb[U][2];
    float2 sa[U], sb[U];
    unsigned za[U], zb[U];
    load(wa, sa, za, c0); // the first loads go out before X is staged

    // X's slice in B's layout. Unit i: token r = i & 15 (zeros past M), then octet o of the slice's
    // chunk c (tig = o & 3, k4 = o >> 2: a warp's two halves take neighbouring tig, so its 4-byte
    // stores fall in distinct banks but for the two token halves).
    {
        const int nc = c1 - c0, units = 16 * 16 * nc;
#pragma unroll 4
        for (int i = tid; i < units; i += WG * 128) {
            const int r = i & 15, j = i >> 4, c = j >> 4, o = j & 15, tig = o & 3, k4 = o >> 2;
            uint4 g = make_uint4(0u, 0u, 0u, 0u);
            if (r < a.M)
                g = __ldg(reinterpret_cast<const uint4 *>(a.x + r * a.K + static_cast<long long>(c0 + c) * 128 +
                                                          8 * (4 * tig + k4)));
            std::uint8_t *dst = stage + c * kChunk + 2 * k4 * kStep + (r >> 3) * 128 + (r & 7) * 16 + 4 * tig;
            // the pairs (k + j, k + j + 4) at κ half j & 1 of step 2·k4 + (j >> 1)
            *reinterpret_cast<std::uint32_t *>(dst) = __byte_perm(g.x, g.z, 0x5410);
            *reinterpret_cast<std::uint32_t *>(dst + 256) = __byte_perm(g.x, g.z, 0x7632);
            *reinterpret_cast<std::uint32_t *>(dst + kStep) = __byte_perm(g.y, g.w, 0x5410);
            *reinterpret_cast<std::uint32_t *>(dst + kStep + 256) = __byte_perm(g.y, g.w, 0x7632);
        }
    }
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory"); // the stores, visible to wgmma's reads
    __syncthreads();

    const std::uint64_t desc0 = wgmma::descriptor(static_cast<unsigned>(__cvta_generic_to_shared(stage)));
    float acc[2][4];
#pragma unroll
    for (int i = 0; i < 2; ++i)
#pragma unroll
        for (int r = 0; r < 4; ++r)
            acc[i][r] = 0.0f;
    // A step: the pairs of its U chunks, then their 8·U wgmma as one group (chunk u's sum in
    // sum[u], its first k16 step from zero), waited for, and each chunk's exact sum scaled in.
    auto step = [&](const uint4(&w)[U][2], const float2(&s)[U], const unsigned(&z)[U], int ch) {
        std::uint32_t A[U][4][2][4];
#pragma unroll
        for (int u = 0; u < U; ++u) {
            const __nv_bfloat162 zz[2] = {pair(__byte_perm(z[u], 0, 0x1010)), pair(__byte_perm(z[u], 0, 0x3232))};
#pragma unroll
            for (int k4 = 0; k4 < 4; ++k4)
#pragma unroll
                for (int h = 0; h < 2; ++h) {
                    codePairs(wordOf(w[u][h], k4), A[u][k4][h]);
#pragma unroll
                    for (int j = 0; j < 4; ++j)
                        A[u][k4][h][j] = bits(__hsub2(pair(A[u][k4][h][j]), zz[h]));
                }
        }
        float sum[U][8];
        wgmma::fence();
#pragma unroll
        for (int u = 0; u < U; ++u) {
            if (u > 0 && ch + u >= c1)
                break;
            const std::uint64_t dc = desc0 + static_cast<std::uint64_t>(((ch + u - c0) * kChunk) >> 4);
#pragma unroll
            for (int k4 = 0; k4 < 4; ++k4) {
                wgmmaBf16(sum[u], A[u][k4][0][0], A[u][k4][1][0], A[u][k4][0][1], A[u][k4][1][1],
                          dc + ((2 * k4 * kStep) >> 4), k4 > 0);
                wgmmaBf16(sum[u], A[u][k4][0][2], A[u][k4][1][2], A[u][k4][0][3], A[u][k4][1][3],
                          dc + (((2 * k4 + 1) * kStep) >> 4), true);
            }
        }
        wgmma::commit();
        wgmma::wait<0>();
#pragma unroll
        for (int u = 0; u < U; ++u) {
            if (u > 0 && ch + u >= c1)
                break;
            wgmma::pin(sum[u]);
#pragma unroll
            for (int i = 0; i < 2; ++i)
#pragma unroll
                for (int r = 0; r < 4; ++r) // d[4j + r] is mma.sync's D fragment of n8 token tile j
                    acc[i][r] += ((r >> 1) ? s[u].y : s[u].x) * sum[u][4 * i + r];
        }
    };
    for (int ch = c0; ch < c1; ch += 2 * U) {
        if (ch + U < c1)
            load(wb, sb, zb, ch + U);
        step(wa, sa, za, ch);
        if (ch + U >= c1)
            break;
        if (ch + 2 * U < c1)
            load(wa, sa, za, ch + 2 * U);
        step(wb, sb, zb, ch + U);
    }

    const long long rowBlock0 = static_cast<long long>(blockIdx.x) * WG * 64;
    if (a.cluster) { // the slices meet in the cluster's shared memory (the X stage, now consumed)
        clusterStoreSwapped(acc, reinterpret_cast<float *>(stage), rowBlock0, a.M, a.N, a.splitK, a.y,
                            [](float v, long long) { return v; });
        return;
    }
    if (live)
        storeSwapped(acc, t * 16, gid, q, a.M, a.N, a.splitK, a.y, a.ws, [](float v, long long) { return v; });
    if (a.splitK == 1)
        return;
    unsigned *counter = a.counters + blockIdx.x;
    if (!splitKLastBlock(counter, a.splitK))
        return;
    const long long cols = (a.N - rowBlock0) < WG * 64 ? a.N - rowBlock0 : WG * 64;
    splitKConvert(a.ws, a.y, a.N, 0, a.M, rowBlock0, cols, counter, blockDim.x);
}

using WgFn = void (*)(Args, const std::uint8_t *, long long);

WgFn wgFor(int u, int wg)
{
    if (wg == 4)
        return &wgKernel<1, 4>;
    if (wg == 2)
        return u == 1 ? &wgKernel<1, 2> : &wgKernel<2, 2>;
    return u == 1 ? &wgKernel<1, 1> : &wgKernel<2, 1>;
}

#endif // QS_WG16

} // namespace

bool wgmmaRuns(const W4a16Problem &p)
{
#if defined(QS_WG16)
    return p.experts <= 1 && p.group == 128 && p.m >= 9 && p.m <= 16 && tileRuns(p) && deviceIsSm90();
#else
    (void)p;
    return false;
#endif
}

bool wgmmaStages(const W4a16Problem &p, const void *workspace, const void *counters)
{
    return (workspace && counters) || p.k / 128 <= kMaxSliceChunks;
}

W4a16Launch wgmmaStreamed(const W4a16Problem &p, const W4a16Tiling &tiling, void *workspace, void *counters,
                          void *stream)
{
    if (!wgmmaRuns(p))
        throw GpuError(w4a16WgmmaRefusal(p));
    const long long chunks = p.k / 128;
    if (!wgmmaStages(p, workspace, counters))
        throw GpuError("the warpgroup W4A16 kernel stages at most " + std::to_string(kMaxSliceChunks) +
                       " chunks of 128 k of X a slice: K = " + std::to_string(p.k) +
                       " needs K split, which needs the workspace and counters");
    W4a16Launch l;
    const int wg = tiling.warps == 4 ? 1 : tiling.warps == 8 ? 2 : 4; // 16 warps unless asked
    const int u = tiling.chunksAhead == 2 && wg < 4 ? 2 : 1;
    const long long tiles = (p.n + 15) / 16, nBlocks = (tiles + 4 * wg - 1) / (4 * wg);
    long long split = tiling.splitK;
#if defined(QS_WG16)
    const WgFn fn = wgFor(u, wg);
    { // every slice's stage fits the 96 KiB the kernel opts in to (once per instantiation and device)
        static std::atomic<unsigned> optedIn[2][3] = {};
        std::atomic<unsigned> &opted = optedIn[u - 1][wg / 2];
        int device = 0;
        QS_GPU_CHECK(cudaGetDevice(&device));
        const unsigned bit = device >= 0 && device < 32 ? 1u << device : 0u;
        if (bit == 0 || (opted.load(std::memory_order_relaxed) & bit) == 0) {
            QS_GPU_CHECK(cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                              static_cast<int>(kMaxSliceChunks * kChunk)));
            opted.fetch_or(bit, std::memory_order_relaxed);
        }
    }
    if (split <= 0) {
        static std::atomic<int> occupancy[2][3] = {};
        const std::size_t smem8 = static_cast<std::size_t>((chunks + 7) / 8 * kChunk); // as at 8 slices
        const int perSm = residentBlocks(occupancy[u - 1][wg / 2], fn, wg * 128, smem8);
        split = chooseSplit(perSm, nBlocks, chunks);
    }
#endif
    split = std::max(split, (chunks + kMaxSliceChunks - 1) / kMaxSliceChunks);
    split = launchSlices(split, chunks, workspace, counters);
    const long long per = (chunks + split - 1) / split;
    l.swapped = true;
    l.streamed = true;
    l.wgmma = true;
    l.warps = 4 * wg;
    l.mTile = 2;
    l.nPerWarp = 16;
    l.chunksAhead = u;
    l.splitK = static_cast<int>(split);
    l.blocks = static_cast<int>(nBlocks * split);
#if defined(QS_WG16)
    Args a = launchArgs(p, workspace, counters, l.splitK, 1, static_cast<int>(per), 0);
    // the stage; the cluster's partials (8 floats a thread) reuse it
    const std::size_t smem = std::max<std::size_t>(static_cast<std::size_t>(per * kChunk), 32u * wg * 128);
    if (tiling.reduce == 2 && split > 1 && clusterFits(reinterpret_cast<const void *>(fn), split, wg * 128, smem))
        a.cluster = 1, l.clusterReduce = true;
    const dim3 grid(static_cast<unsigned>(nBlocks), static_cast<unsigned>(split));
    launchClustered(fn, grid, wg * 128, smem, stream, a.cluster ? static_cast<int>(split) : 1, a,
                    static_cast<const std::uint8_t *>(p.tilePacked), tiles * chunks * 1024);
#else
    (void)per, (void)stream;
#endif
    return l;
}

} // namespace quantscope::gpu::launch::w4a16detail

namespace quantscope::gpu::launch {

std::string w4a16WgmmaRefusal(const W4a16Problem &p)
{
    if (w4a16detail::wgmmaRuns(p))
        return "";
    const std::string what = "the warpgroup W4A16 kernel";
#if !defined(QS_WG16)
    return what + ": not in this build (wgmma needs CUDA code for sm_90a)";
#else
    if (const std::string why = w4a16TileRefusal(p); !why.empty())
        return what + ": " + why;
    if (p.group != 128)
        return what + " runs group 128 only (group = " + std::to_string(p.group) + ")";
    if (p.experts > 1)
        return what + " runs one expert (the MoE batch takes the mma.sync kernel)";
    if (p.m < 9)
        return what + " runs 9 to 16 tokens (m = " + std::to_string(p.m) + "; fewer take the mma.sync kernel)";
    return what + " runs on sm_90 devices only";
#endif
}

} // namespace quantscope::gpu::launch
