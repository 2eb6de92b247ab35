// SPDX-License-Identifier: MIT
// The fused W4A16 GEMM's streaming small-M kernel (kernels_w4a16.h, W4a16Tiling::kernel 7; issue
// 43): the swapped kernel's arithmetic (gemm_w4a16_small.cu: Yᵀ = Ŵ·Xᵀ, 16 rows of W as the mma's
// A operand, the tokens its n = 8, the exact q − z into a per-group FP32 sum scaled once per
// group) on a tile-ordered copy of the same codes, written once per weight by w4a16TileReorder the
// way Marlin repacks at load.
//
// Why a copy: the swapped kernel's lane reads 16 bytes of row gid and of row gid + 8 of its warp's
// 16 rows at each chunk of 128 k, so one warp-wide load touches eight rows 7 KiB apart, 64 bytes
// each. On the H200, with the weight out of L2, reading 29 MB that way takes 15.5 µs against 12.5
// µs for the same bytes read as contiguous KiB (bench/probe/read_pattern.cu;
// bench/results/gpu-h200-2026-11-29f/issue43-stream/probe-read-pattern.txt).
// In the copy, the KiB of (16-row tile t, chunk ch) is contiguous: byte 512·h + 16·lane + b is
// byte 16·tig + b of chunk ch of row 16t + gid + 8h, exactly the bytes lane (gid, tig) loads for
// half h in the swapped kernel. A warp's K slice is one contiguous stream, and a warp-wide load is
// 512 contiguous bytes. The tile's metadata follows all tiles' codes, 96 bytes per (tile, group):
// the FP32 scales of rows (gid, gid + 8) as one float2 at 8·gid, then the BF16 136 + z of the same
// rows as one pair at 64 + 4·gid — what the swapped kernel loads as four scattered values and
// converts per chunk. Rows past N are zero codes, zero scales and 136 (never stored).
//
// Schedule: a warp issues its first chunks' loads before the block stages X, and the next chunks'
// loads before it converts the current ones (a register double buffer), so the stream does not
// wait for X or for the tensor cores. Split K as the swapped kernel (FP32 partials into the zeroed
// workspace, the last block of a tile converts and re-zeroes). With the same slices the sums are
// the swapped kernel's, in the same order: the outputs are its bits.
#include "w4a16_device.cuh"

#ifndef QS_HD
#define QS_HD __host__ __device__
#endif
#include "w4a8_math.h"

#include <algorithm>
#include <atomic>

#include "qs_gpu_compat.h"

// Shared memory a block may hold for its X stage, KiB (the probe bench/probe/build.sh builds its
// harness with 48 as well, to time both in one run).
#ifndef QS_STREAM_STAGE_KIB
#define QS_STREAM_STAGE_KIB 96
#endif

namespace quantscope::gpu::launch {

namespace w4a16detail {
namespace {

/// Bytes of one expert's tile-ordered codes and of its metadata.
long long tileCodeBytes(const W4a16Problem &p)
{
    return (p.n + 15) / 16 * (p.k / 128) * 1024;
}
long long tileMetaBytes(const W4a16Problem &p)
{
    return (p.n + 15) / 16 * (p.k / p.group) * 96;
}

#if defined(QS_HAS_MMA)

/// One 16-byte unit of the tile-ordered copy a thread: unit o of expert e = ((t·C + ch)·2 + h)·32 + lane.
/// Split: every word's nibbles in the W4A8 streaming kernel's order (w4a8SplitNibbles, w4a8TileReorder).
template <bool Split>
__global__ void reorderCodes(const std::uint8_t *w, std::uint8_t *dst, long long n, long long k, long long wStride,
                             long long dstStride, long long units)
{
    const int e = blockIdx.y;
    const long long halfK = k / 2, chunks = k / 128;
    for (long long o = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; o < units;
         o += static_cast<long long>(gridDim.x) * blockDim.x) {
        const int lane = static_cast<int>(o & 31), h = static_cast<int>((o >> 5) & 1);
        const long long tc = o >> 6, t = tc / chunks, ch = tc - t * chunks;
        const long long row = 16 * t + (lane >> 2) + 8 * h;
        uint4 v = make_uint4(0, 0, 0, 0);
        if (row < n)
            v = *reinterpret_cast<const uint4 *>(w + e * wStride + row * halfK + 64 * ch + 16 * (lane & 3));
        if (Split) {
            v.x = gpumath::w4a8SplitNibbles(v.x), v.y = gpumath::w4a8SplitNibbles(v.y);
            v.z = gpumath::w4a8SplitNibbles(v.z), v.w = gpumath::w4a8SplitNibbles(v.w);
        }
        *reinterpret_cast<uint4 *>(dst + e * dstStride + 16 * o) = v;
    }
}

/// One (tile, group, gid) of the metadata a thread: the scales of rows gid, gid + 8 and their BF16 136 + z.
__global__ void reorderMeta(const float *s, const std::int8_t *z, std::uint8_t *dst, long long n, long long groups,
                            long long sStride, long long dstStride, long long items)
{
    const int e = blockIdx.y;
    for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < items;
         i += static_cast<long long>(gridDim.x) * blockDim.x) {
        const int gid = static_cast<int>(i & 7);
        const long long tg = i >> 3, t = tg / groups, g = tg - t * groups;
        float sc[2] = {0.0f, 0.0f};
        unsigned short zb[2];
        for (int h = 0; h < 2; ++h) {
            const long long row = 16 * t + gid + 8 * h;
            float zf = 136.0f;
            if (row < n) {
                sc[h] = s[e * sStride + row * groups + g];
                zf += static_cast<float>(z[e * sStride + row * groups + g]);
            }
            const __nv_bfloat16 b = __float2bfloat16_rn(zf);
            std::memcpy(&zb[h], &b, 2);
        }
        std::uint8_t *m = dst + e * dstStride + tg * 96;
        *reinterpret_cast<float2 *>(m + 8 * gid) = make_float2(sc[0], sc[1]);
        *reinterpret_cast<unsigned *>(m + 64 + 4 * gid) =
            static_cast<unsigned>(zb[0]) | (static_cast<unsigned>(zb[1]) << 16);
    }
}

/// d = A·B (the accumulator input zero): mma16816 starting a sum, without zeroing d first.
__device__ __forceinline__ void mma16816Zero(float (&d)[4], std::uint32_t a0, std::uint32_t a1, std::uint32_t a2,
                                             std::uint32_t a3, std::uint32_t b0, std::uint32_t b1)
{
    const float z = 0.0f;
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
                 "{%10,%10,%10,%10};\n"
                 : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
                 : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1), "f"(z));
}

/// NT n8 tiles of tokens, U chunks of 128 k a step; NW warps, one 16-row tile of W each. G1: the
/// group is 128 (each chunk its own group: no group counters, the sum scaled every chunk).
/// NW warps a block (4, 8 or 16: 128 or 256 rows of W share one X stage, a half or a quarter of
/// the X traffic a row of W).
/// Registers (ptxas 13, sm_90, no spills): 71–120 — 16 to 28 resident warps an SM. Capping them
/// (6 blocks of 4 warps at 80, 3 blocks of 8 warps at 80) spilled and measured slower (H200,
/// 2026-11-29). Blocks of 16 warps state their minimum of one block an SM: without it ptxas
/// allots them as few as 64 registers (spilling with one chunk a step); with it 85–120, and M = 16
/// at one chunk a step took 19.9–20.0 µs against 20.6–20.8 (bench/results/gpu-h200-2026-11-29h/
/// issue43-bounds). A minimum of 0 leaves the others' launch bounds as they were.
template <int NT, int U, bool G1, int NW>
__global__ void __launch_bounds__(NW * 32, NW == 16 ? 1 : 0)
    streamKernel(Args a, const std::uint8_t *tp, long long eStride, long long metaOff)
{
    extern __shared__ uint4 xs[];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int gid = lane >> 2, q = lane & 3;
    const int e = blockIdx.z;
    const long long tiles = (a.N + 15) / 16;
    const long long tRaw = static_cast<long long>(blockIdx.x) * NW + warp;
    const bool live = tRaw < tiles; // a warp past the last tile streams the last one and stores nothing
    const long long t = live ? tRaw : tiles - 1;
    const int groups = static_cast<int>(a.K / a.group), chunks = static_cast<int>(a.K / 128);
    const int cpg = G1 ? 1 : static_cast<int>(a.group / 128);
    const int per = (chunks + a.splitK - 1) / a.splitK;
    const int c0 = static_cast<int>(blockIdx.y) * per, c1 = c0 + per < chunks ? c0 + per : chunks;
    const int rowsX = static_cast<int>(a.M < NT * 8 ? a.M : NT * 8);
    const int P = a.pieceChunks, rs = P * 16 + 4; // a piece: a multiple of 2U chunks (or the slice)
    const std::uint8_t *base = tp + e * eStride;
    int tok[NT];
    tokenOffsets(tok, gid, q, rowsX, rs);

    // The loads' running position: the next chunk's codes (+ 32 for half h, + 64 a chunk) and its
    // group's metadata (this lane's float2 of scales; its pair of 136 + z 64 bytes on), advanced
    // by 96 bytes when a group ends (inL counts the group's chunks already loaded).
    const uint4 *wNext = reinterpret_cast<const uint4 *>(base + (t * chunks + c0) * 1024) + lane;
    const std::uint8_t *mNext = base + metaOff + (t * groups + c0 / cpg) * 96 + 8 * gid;
    int inL = G1 ? 0 : c0 % cpg, inC = inL;
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
            if (G1 || ++inL == cpg)
                inL = 0, mNext += 96;
        }
    };

    float acc[NT][4], tmp[NT][4];
#pragma unroll
    for (int i = 0; i < NT; ++i)
#pragma unroll
        for (int j = 0; j < 4; ++j)
            acc[i][j] = 0.0f, tmp[i][j] = 0.0f;

    // Converts and multiplies chunks [ch, ch + U) (those below c1; xBase: chunk ch's place in the
    // stage); scales each group's exact sum once.
    auto compute = [&](const uint4(&w)[U][2], const float2(&s)[U], const unsigned(&z)[U], int ch, int xBase) {
#pragma unroll
        for (int u = 0; u < U; ++u) {
            const int c = ch + u;
            if (u > 0 && c >= c1)
                break;
            __nv_bfloat162 zz[2];
            zz[0] = pair(__byte_perm(z[u], 0, 0x1010));
            zz[1] = pair(__byte_perm(z[u], 0, 0x3232));
#pragma unroll
            for (int k4 = 0; k4 < 4; ++k4) {
                uint4 xb[NT];
#pragma unroll
                for (int i = 0; i < NT; ++i)
                    xb[i] = xs[tok[i] + xBase + 16 * u + 4 * k4];
                std::uint32_t pa[2][4];
#pragma unroll
                for (int h = 0; h < 2; ++h) {
                    codePairs(wordOf(w[u][h], k4), pa[h]);
#pragma unroll
                    for (int j = 0; j < 4; ++j)
                        pa[h][j] = bits(__hsub2(pair(pa[h][j]), zz[h]));
                }
#pragma unroll
                for (int i = 0; i < NT; ++i) {
                    // G1: each chunk's sum starts from zero in its first mma (no zeroing after the scale).
                    if (G1 && k4 == 0)
                        mma16816Zero(tmp[i], pa[0][0], pa[1][0], pa[0][1], pa[1][1], xb[i].x, xb[i].y);
                    else
                        mma16816(tmp[i], pa[0][0], pa[1][0], pa[0][1], pa[1][1], xb[i].x, xb[i].y);
                    mma16816(tmp[i], pa[0][2], pa[1][2], pa[0][3], pa[1][3], xb[i].z, xb[i].w);
                }
            }
            // The group ends with this chunk (or the slice does): scale its exact sum once.
            const bool end = G1 || ++inC == cpg || c + 1 >= c1;
            if (end) {
#pragma unroll
                for (int i = 0; i < NT; ++i)
#pragma unroll
                    for (int r = 0; r < 4; ++r) {
                        acc[i][r] += ((r >> 1) ? s[u].y : s[u].x) * tmp[i][r];
                        if (!G1)
                            tmp[i][r] = 0.0f;
                    }
            }
            if (!G1 && inC == cpg)
                inC = 0;
        }
    };

    // The first step's loads go out before X is staged; then two buffers in turn (no copies), the
    // next step's loads issued before this step's mma's, across pieces of X too (pieces hold a
    // whole number of pairs of steps, so each starts with buffer a).
    uint4 wa[U][2], wb[U][2];
    float2 sa[U], sb[U];
    unsigned za[U], zb[U];
    load(wa, sa, za, c0);
    for (int p0 = c0; p0 < c1; p0 += P) {
        const int pEnd = c1 - p0 < P ? c1 : p0 + P;
        if (p0 != c0)
            __syncthreads(); // the previous piece of the stage is consumed
        stageX<NW * 32>(xs, a.x, e * a.xStride, a.K, rowsX, p0, pEnd - p0, rs);
        __syncthreads();
        for (int ch = p0; ch < pEnd; ch += 2 * U) {
            if (ch + U < c1)
                load(wb, sb, zb, ch + U);
            compute(wa, sa, za, ch, (ch - p0) * 16);
            if (ch + U >= c1)
                break;
            if (ch + 2 * U < c1)
                load(wa, sa, za, ch + 2 * U);
            compute(wb, sb, zb, ch + U, (ch + U - p0) * 16);
        }
    }

    __nv_bfloat16 *Y = a.y + e * a.yStride;
    if (a.cluster) { // the slices meet in the cluster's shared memory (the X stage, now consumed)
        clusterStoreSwapped(acc, reinterpret_cast<float *>(xs), static_cast<long long>(blockIdx.x) * NW * 16, a.M, a.N,
                            a.splitK, Y, [](float v, long long) { return v; });
        return;
    }
    float *ws = a.ws ? a.ws + static_cast<long long>(e) * a.M * a.N : nullptr;
    if (live)
        storeSwapped(acc, t * 16, gid, q, a.M, a.N, a.splitK, Y, ws, [](float v, long long) { return v; });
    if (a.splitK == 1)
        return;
    unsigned *counter = a.counters + static_cast<long long>(e) * gridDim.x + blockIdx.x;
    if (!splitKLastBlock(counter, a.splitK))
        return;
    const long long nBlock0 = static_cast<long long>(blockIdx.x) * NW * 16;
    const long long cols = (a.N - nBlock0) < NW * 16 ? a.N - nBlock0 : NW * 16;
    splitKConvert(ws, Y, a.N, 0, a.M, nBlock0, cols, counter, blockDim.x);
}

using StreamFn = void (*)(Args, const std::uint8_t *, long long, long long);

/// The instantiations: one or two n8 tiles × 1 or 2 chunks a step × group 128 or another × 4, 8 or
/// 16 warps a block.
template <bool G1, int NW> StreamFn streamForG(int nt, int u)
{
    if (nt == 1)
        return u == 1 ? &streamKernel<1, 1, G1, NW> : &streamKernel<1, 2, G1, NW>;
    return u == 1 ? &streamKernel<2, 1, G1, NW> : &streamKernel<2, 2, G1, NW>;
}
StreamFn streamFor(int nt, int u, bool g1, int warps)
{
    if (warps == 16)
        return g1 ? streamForG<true, 16>(nt, u) : streamForG<false, 16>(nt, u);
    if (warps == 8)
        return g1 ? streamForG<true, 8>(nt, u) : streamForG<false, 8>(nt, u);
    return g1 ? streamForG<true, 4>(nt, u) : streamForG<false, 4>(nt, u);
}

#endif // QS_HAS_MMA

/// Shared memory per block for the X stage (bytes). 96 KiB hold a whole slice of 16 tokens up to
/// 23 chunks (K = 14336 at 5 or more slices) in one piece: no second stage and barrier halfway
/// through the stream; two blocks of 8 warps still fit an SM's 227 KiB.
constexpr long long kStreamStageBudget = QS_STREAM_STAGE_KIB * 1024LL;

} // namespace

bool tileRuns(const W4a16Problem &p)
{
    return w4a16FusedBuilt() && p.tilePacked && p.m <= kW4a16SwappedMaxM && p.k >= 128 && p.k % 128 == 0 &&
           p.group > 0 && p.group % 128 == 0 && p.k % p.group == 0;
}

W4a16Launch streamed(const W4a16Problem &p, const W4a16Tiling &tiling, void *workspace, void *counters, void *stream)
{
    if (!tileRuns(p))
        throw GpuError(w4a16TileRefusal(p));
    W4a16Launch l;
    const int nt = p.m <= 8 ? 1 : 2;
    const long long tiles = (p.n + 15) / 16;
    // Warps a block: asked (4, 8 or 16), else 16 for the MoE batch and for two token tiles, 8
    // otherwise. Chunks a step: asked (1 or 2), else 1 for one expert's two token tiles at 16
    // warps, 2 otherwise. (The H200's best at N = 4096, K = 14336, M = 1 and 16, and for 16 × (16,
    // 2048, 7168); the lab times them all.)
    int warps = p.experts > 1 || nt == 2 ? 16 : 8;
    if (tiling.warps == 4 || tiling.warps == 8 || tiling.warps == 16)
        warps = tiling.warps;
    const int u = tiling.chunksAhead == 1 || tiling.chunksAhead == 2 ? tiling.chunksAhead
                  : p.experts <= 1 && nt == 2 && warps == 16         ? 1
                                                                     : 2;
    const long long nBlocks = (tiles + warps - 1) / warps;
    const long long chunks = p.k / 128;
    const int experts = std::max(p.experts, 1);
    const int rowsX = static_cast<int>(std::min<long long>(p.m, 8 * nt));
    const long long pieceMax = std::max(1LL, (kStreamStageBudget / (16LL * rowsX) - 4) / 16);
    long long split = tiling.splitK;
#if defined(QS_HAS_MMA)
    const StreamFn fn = streamFor(nt, u, p.group == 128, warps);
    // Above 48 KiB of dynamic shared memory the kernel must opt in, once per instantiation and
    // device (a bit per device ordinal below 32; above, every launch asks).
    if (kStreamStageBudget > 48 * 1024) {
        static std::atomic<unsigned> optedIn[3][2][3][3] = {};
        std::atomic<unsigned> &opted = optedIn[warps / 8][p.group == 128 ? 1 : 0][nt][u];
        int device = 0;
        QS_GPU_CHECK(cudaGetDevice(&device));
        const unsigned bit = device >= 0 && device < 32 ? 1u << device : 0u;
        if (bit == 0 || (opted.load(std::memory_order_relaxed) & bit) == 0) {
            QS_GPU_CHECK(cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                              static_cast<int>(kStreamStageBudget))); // every stage fits: see pieceMax
            opted.fetch_or(bit, std::memory_order_relaxed);
        }
    }
    if (split <= 0) {
        // The launcher's slices as with a 48 KiB stage (the occupancy the split was tuned at): a
        // slice that then fits the larger stage runs in one piece.
        static std::atomic<int> occupancy[3][2][3][3][17] = {};
        const long long piece48 = std::max(1LL, (48 * 1024 / (16LL * rowsX) - 4) / 16);
        const std::size_t smem = static_cast<std::size_t>(rowsX * (std::min(piece48, chunks) * 16 + 4) * 16);
        const int perSm =
            residentBlocks(occupancy[warps / 8][p.group == 128 ? 1 : 0][nt][u][rowsX], fn, warps * 32, smem);
        split = chooseSplit(perSm, nBlocks * experts, chunks);
    }
#endif
    split = launchSlices(split, chunks, workspace, counters); // ⌈chunks / split⌉ chunks a slice, no empty slice
    const long long per = (chunks + split - 1) / split;
    // The slice in one piece of X where it fits, else pieces of a whole number of pairs of steps.
    const long long piece = per <= pieceMax ? per : std::max<long long>(2 * u, pieceMax / (2 * u) * (2 * u));
    l.swapped = true;
    l.streamed = true;
    l.warps = warps;
    l.mTile = nt;
    l.nPerWarp = 16;
    l.chunksAhead = u;
    l.splitK = static_cast<int>(split);
    l.blocks = static_cast<int>(nBlocks * split * experts);
#if defined(QS_HAS_MMA)
    Args a = launchArgs(p, workspace, counters, l.splitK, 1, static_cast<int>(piece), 0);
    std::size_t smem = static_cast<std::size_t>(rowsX * (piece * 16 + 4) * 16);
    // The slices meet in their cluster where asked and it runs (the partials take nt·16 bytes a
    // thread of the stage's memory), else by atomics.
    const std::size_t red = static_cast<std::size_t>(nt * 16 * warps * 32);
    if (tiling.reduce == 2 && split > 1 &&
        clusterFits(reinterpret_cast<const void *>(fn), split, warps * 32, std::max(smem, red)))
        a.cluster = 1, smem = std::max(smem, red), l.clusterReduce = true;
    const dim3 grid(static_cast<unsigned>(nBlocks), static_cast<unsigned>(split), static_cast<unsigned>(experts));
    launchClustered(fn, grid, warps * 32, smem, stream, a.cluster ? static_cast<int>(split) : 1, a,
                    static_cast<const std::uint8_t *>(p.tilePacked), tileCodeBytes(p) + tileMetaBytes(p),
                    tileCodeBytes(p));
#else
    (void)workspace, (void)counters, (void)stream, (void)piece;
#endif
    return l;
}

} // namespace w4a16detail

std::size_t w4a16TileBytes(const W4a16Problem &p)
{
    if (p.n <= 0 || p.k < 128 || p.k % 128 != 0 || p.group < 128 || p.group % 128 != 0 || p.k % p.group != 0)
        return 0;
    return static_cast<std::size_t>(std::max(p.experts, 1)) *
           static_cast<std::size_t>(w4a16detail::tileCodeBytes(p) + w4a16detail::tileMetaBytes(p));
}

std::string w4a16TileRefusal(const W4a16Problem &p)
{
    if (!w4a16FusedBuilt())
        return "the streaming W4A16 kernel: not built for HIP (no mma.sync)";
    if (const std::string why = w4a16FusedRefusal(p.k, p.group); !why.empty())
        return why;
    if (p.group % 128 != 0)
        return "the streaming W4A16 kernel needs the group a multiple of 128 (per channel included; group = " +
               std::to_string(p.group) + ")";
    if (p.m > kW4a16SwappedMaxM)
        return "the streaming W4A16 kernel runs M ≤ " + std::to_string(kW4a16SwappedMaxM) +
               " (M = " + std::to_string(p.m) + ")";
    if (!p.tilePacked)
        return "the streaming W4A16 kernel needs the tile-ordered copy (w4a16TileReorder)";
    return "";
}

namespace {
void tileReorder(const W4a16Problem &p, void *dst, void *stream, bool split)
{
    const char *what = split ? "w4a8TileReorder" : "w4a16TileReorder";
    if (w4a16TileBytes(p) == 0)
        throw GpuError(std::string(what) + ": K a multiple of 128 and the group a multiple of 128 dividing K (K = " +
                       std::to_string(p.k) + ", group = " + std::to_string(p.group) + ")");
#if defined(QS_HAS_MMA)
    const long long codes = w4a16detail::tileCodeBytes(p), meta = w4a16detail::tileMetaBytes(p);
    const long long stride = codes + meta;
    const unsigned experts = static_cast<unsigned>(std::max(p.experts, 1));
    const auto s = static_cast<cudaStream_t>(stream);
    auto *d = static_cast<std::uint8_t *>(dst);
    const long long units = codes / 16, items = meta / 12;
    const dim3 grid(static_cast<unsigned>(std::min<long long>((units + 255) / 256, 4096)), experts);
    if (split)
        w4a16detail::reorderCodes<true><<<grid, 256, 0, s>>>(p.packed, d, p.n, p.k, p.wStride, stride, units);
    else
        w4a16detail::reorderCodes<false><<<grid, 256, 0, s>>>(p.packed, d, p.n, p.k, p.wStride, stride, units);
    QS_GPU_CHECK(cudaGetLastError());
    w4a16detail::reorderMeta<<<dim3(static_cast<unsigned>(std::min<long long>((items + 255) / 256, 4096)), experts),
                               256, 0, s>>>(p.scales, p.zeros, d + codes, p.n, p.k / p.group, p.sStride, stride, items);
    QS_GPU_CHECK(cudaGetLastError());
#else
    (void)dst, (void)stream;
    throw GpuError(std::string(what) + ": not built for HIP (no mma.sync)");
#endif
}
} // namespace

void w4a16TileReorder(const W4a16Problem &p, void *dst, void *stream)
{
    tileReorder(p, dst, stream, false);
}

void w4a8TileReorder(const W4a16Problem &p, void *dst, void *stream)
{
    tileReorder(p, dst, stream, true);
}

} // namespace quantscope::gpu::launch
