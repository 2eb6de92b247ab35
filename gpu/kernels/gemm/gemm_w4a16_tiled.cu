// SPDX-License-Identifier: MIT
// The fused W4A16 GEMM's shared-memory tiled kernel (kernels_w4a16.h, W4a16Tiling::kernel 5;
// issue 43): Y = X·Ŵᵀ with X as the mma's A operand (m16 tiles of tokens) and Ŵ its B operand
// (n8 tiles of rows of W), a block computing a BM × BN tile of Y from a multi-stage cp.async
// pipeline in shared memory, each warp a (16·MT) × (8·NT) sub-tile: one dequantized W fragment
// serves MT m16 tiles, one X fragment NT n8 tiles (the original kernel, gemm_w4a16.cu, re-read X
// from L1/L2 in every warp, each W fragment serving one m16 tile).
//
// A stage is one chunk of 128 k: X[BM rows, 128 k] (BF16, 256 bytes a row, 16 units of 16 bytes)
// and the packed W[BN rows, 128 k] (64 bytes a row, 4 units), both copied by cp.async as stored
// (rows past M or N copy row M − 1 / N − 1: their D rows / columns depend on nothing else and are
// not stored). `stages` (2…4) chunks in the ring, stages − 1 in flight while one is consumed; one
// __syncthreads a chunk (the slot refilled is the one every warp finished in the previous step).
//
// Fragments (PTX ISA "Matrix Fragments for mma.m16n8k16", BF16): lane = 4·gid + tig. A (X, 16×16
// row): a0 = (row gid, k 2tig, 2tig+1), a1 = (row gid+8, same k), a2 = (row gid, k 2tig+8, +9),
// a3 = (row gid+8, k 2tig+8, +9). B (Ŵᵀ, 16×8 col): b0 = (k 2tig, 2tig+1; n gid), b1 = (k
// 2tig+8, +9; n gid). D: d0, d1 = (row gid; n 2tig, 2tig+1), d2, d3 = (row gid+8; same n).
//
// The k permutation (Σ_k is order-free; A and B use the same one), the swapped kernel's with the
// roles of the operands exchanged: lane tig takes k [32 tig, 32 tig + 32) of the chunk; word w
// (0…3) of its 16 bytes of a row of W holds the octet k0 = 32 tig + 8w … k0 + 7 as nibbles
// n0 … n7, turned into BF16 pairs P_j = (128 + u_j | 128 + u_{j+4}) by codePairs (three shifts,
// four lop3). Steps 2w and 2w+1 take b0/b1 = P0/P1 and P2/P3: logical k (2tig, 2tig+1, 2tig+8,
// 2tig+9) are the octet's (0, 4, 1, 5) and (2, 6, 3, 7). The A fragment takes X at the same k:
// one 128-bit shared load of the octet (x0 … x7) of rows gid and gid + 8, four prmt giving
// (x0|x4), (x1|x5), (x2|x6), (x3|x7). The shared X rows are swizzled against bank conflicts:
// unit u (16 bytes) of row r is stored at u ^ ((u >> 2) & 2) ^ (r & 1), so the eight lanes of a
// quarter-warp (rows 2p, 2p + 1, tig 0…3, the same w) hit eight distinct 16-byte bank groups.
//
// Dequantization (the other kernels' argument): (128 + u) − bf16(136 + z) = q − z exactly. Group
// ≥ 128: the mma runs on the exact q − z into a per-group FP32 sum, scaled once per group (or at
// the end of the K slice) on the FP32 accumulator, acc += s·sum, with the scales of the lane's
// D columns (n 2tig, 2tig+1), loaded when the chunk starts. g32 / g64: a lane's 32 k lie in one
// group of its row gid, so the scale enters the B fragment: bf16(bf16(s)·(q − z)). The zero points
// (and g32 / g64 scales) of the next chunk are loaded into registers while the current one is
// computed.
//
// Grid: x = n-blocks of BN rows of W, y = m-blocks of BM tokens × K slices, z = experts. Split K
// as the other kernels (FP32 partials into the zeroed workspace, the last block of a tile, by its
// counter, converts and re-zeroes).
#include "w4a16_device.cuh"

#include <algorithm>
#include <atomic>

#include "qs_gpu_compat.h"

namespace quantscope::gpu::launch::w4a16detail {

namespace {

/// The tiles (W4a16Tiling::nPerWarp with kernel 5 picks one, 1-based): a block's tokens and rows
/// of W, its warps along M and along N (each warp BM / wgm tokens × BN / wgn rows of W).
struct TileShape {
    int bm, bn, wgm, wgn;
};
constexpr TileShape kTiles[] = {{16, 128, 1, 4},  {32, 128, 1, 4}, {64, 128, 2, 4}, {64, 128, 1, 4},
                                {128, 128, 2, 4}, {64, 256, 1, 8}, {16, 256, 1, 8}, {64, 256, 2, 4}};
constexpr int kTileCount = static_cast<int>(sizeof(kTiles) / sizeof(kTiles[0]));

constexpr long long stageBytes(const TileShape &t)
{
    return static_cast<long long>(t.bm) * 256 + static_cast<long long>(t.bn) * 64;
}

/// The launcher's tile for M rows of X (1-based).
int defaultTile(long long m)
{
    return m <= 16 ? 1 : m <= 32 ? 2 : m <= 64 ? 4 : 5;
}

#if defined(QS_HAS_MMA)

/// cp.async.wait_group with a run-time count (stages − 2, 0…2).
__device__ __forceinline__ void cpAsyncWaitUpTo(int pending)
{
    if (pending >= 2)
        cpAsyncWait<2>();
    else if (pending == 1)
        cpAsyncWait<1>();
    else
        cpAsyncWait<0>();
}

/// Where unit u (16 bytes) of row r of the X stage lies.
__device__ __forceinline__ int xUnit(int r, int u)
{
    return r * 16 + (u ^ ((u >> 2) & 2) ^ (r & 1));
}

/// One lane's zero points of one chunk (row gid of each n8 tile) and, for g32 / g64, the scales of
/// those rows (loaded a chunk ahead: the B fragments need them first).
template <int NT> struct ChunkZeros {
    int z[NT];
    float s[NT];
};

template <int BM, int BN, int WGM, int WGN, bool ScaleInB>
__global__ void __launch_bounds__(WGM *WGN * 32) tiledKernel(Args a)
{
    constexpr int kThreads = WGM * WGN * 32;
    constexpr int MT = BM / (16 * WGM), NT = BN / (8 * WGN);
    constexpr int kXUnits = BM * 16, kWUnits = BN * 4, kStage = kXUnits + kWUnits;
    static_assert(kXUnits % kThreads == 0 && kWUnits % kThreads == 0, "whole copies a thread");
    extern __shared__ uint4 smem[];
    const int stages = a.pieceChunks;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int gid = lane >> 2, q = lane & 3;
    const int wm = (warp / WGN) * (MT * 16), wn = (warp % WGN) * (NT * 8);
    const int e = blockIdx.z;
    const int mBlock = static_cast<int>(blockIdx.y) / a.splitK, split = static_cast<int>(blockIdx.y) % a.splitK;
    const long long nBlock0 = static_cast<long long>(blockIdx.x) * BN, mBase = static_cast<long long>(mBlock) * BM;
    const std::uint8_t *W = a.w + e * a.wStride;
    const float *S = a.s + e * a.sStride;
    const std::int8_t *Z = a.z + e * a.sStride;
    const __nv_bfloat16 *X = a.x + e * a.xStride;
    const long long halfK = a.K / 2;
    const int groups = static_cast<int>(a.K / a.group), chunks = static_cast<int>(a.K / 128);
    const int per = (chunks + a.splitK - 1) / a.splitK;
    const int c0 = split * per, c1 = c0 + per < chunks ? c0 + per : chunks;
    const int nCh = c1 - c0;
    const int gShift = a.group == 32 ? 5 : 6, cpg = static_cast<int>(a.group / 128);

    // Chunk ch into ring slot `slot`: X units (row, u) and W units (row, u) of this thread.
    auto load = [&](int ch, int slot) {
        uint4 *st = smem + slot * kStage;
#pragma unroll
        for (int j = 0; j < kXUnits / kThreads; ++j) {
            const int i = static_cast<int>(threadIdx.x) + j * kThreads, r = i >> 4, u = i & 15;
            const long long row = mBase + r < a.M ? mBase + r : a.M - 1;
            cpAsync16(st + xUnit(r, u), X + row * a.K + static_cast<long long>(ch) * 128 + 8 * u);
        }
#pragma unroll
        for (int j = 0; j < kWUnits / kThreads; ++j) {
            const int i = static_cast<int>(threadIdx.x) + j * kThreads, r = i >> 2, u = i & 3;
            const long long row = nBlock0 + r < a.N ? nBlock0 + r : a.N - 1;
            cpAsync16(st + kXUnits + i, W + row * halfK + static_cast<long long>(ch) * 64 + 16 * u);
        }
    };

    // This lane's rows of the scale / zero-point arrays (clamped to N − 1; never stored).
    int zRow[NT], sCol[NT][2];
#pragma unroll
    for (int t = 0; t < NT; ++t) {
        const long long r = nBlock0 + wn + 8 * t + gid, n0 = nBlock0 + wn + 8 * t + 2 * q;
        zRow[t] = static_cast<int>(r < a.N ? r : a.N - 1) * groups;
        sCol[t][0] = static_cast<int>(n0 < a.N ? n0 : a.N - 1) * groups;
        sCol[t][1] = static_cast<int>(n0 + 1 < a.N ? n0 + 1 : a.N - 1) * groups;
    }
    // grp: the group of chunk ch (group ≥ 128: cpg chunks a group), kept by the caller as a running
    // count so that the loop divides by nothing at run time.
    auto fetch = [&](int ch, int grp, ChunkZeros<NT> &c) {
        const int g = ScaleInB ? (ch * 128 + 32 * q) >> gShift : grp;
#pragma unroll
        for (int t = 0; t < NT; ++t) {
            c.z[t] = __ldg(Z + zRow[t] + g);
            c.s[t] = ScaleInB ? __ldg(S + zRow[t] + g) : 0.0f;
        }
    };

#pragma unroll 1
    for (int s = 0; s < stages - 1; ++s) {
        if (s < nCh)
            load(c0 + s, s);
        cpAsyncCommit();
    }

    float acc[MT][NT][4], tmp[MT][NT][4];
#pragma unroll
    for (int i = 0; i < MT; ++i)
#pragma unroll
        for (int t = 0; t < NT; ++t)
#pragma unroll
            for (int j = 0; j < 4; ++j)
                acc[i][t][j] = 0.0f, tmp[i][t][j] = 0.0f;

    // Running counters instead of divisions: the chunk's group and its place in it (group ≥ 128),
    // the ring slot read (it mod stages) and the one refilled ((it + stages − 1) mod stages).
    int grp = cpg > 0 && c0 < chunks ? c0 / cpg : 0, inGrp = cpg > 0 && c0 < chunks ? c0 - grp * cpg : 0;
    int slot = 0, fill = stages - 1;
    ChunkZeros<NT> cur, nxt;
    fetch(c0 < chunks ? c0 : 0, grp, cur);
#pragma unroll 1
    for (int it = 0; it < nCh; ++it) {
        const int ch = c0 + it;
        const bool groupEnds = inGrp + 1 == cpg; // (ch + 1) % cpg == 0
        cpAsyncWaitUpTo(stages - 2);             // this thread's copies of chunk ch have landed …
        __syncthreads();                         // … and every thread's; slot (it − 1) mod stages is free
        {
            if (it + stages - 1 < nCh)
                load(c0 + it + stages - 1, fill);
            cpAsyncCommit();
        }
        if (it + 1 < nCh)
            fetch(ch + 1, groupEnds ? grp + 1 : grp, nxt);
        // Group ≥ 128: the scales of the lane's D columns, needed after the chunk's mma's.
        float s0[NT], s1[NT];
        if (!ScaleInB)
#pragma unroll
            for (int t = 0; t < NT; ++t) {
                s0[t] = __ldg(S + sCol[t][0] + grp);
                s1[t] = __ldg(S + sCol[t][1] + grp);
            }
        const uint4 *xs = smem + slot * kStage;
        const uint4 *wsm = xs + kXUnits;
        uint4 raw[NT];
        __nv_bfloat162 zz[NT], sB[NT];
#pragma unroll
        for (int t = 0; t < NT; ++t) {
            raw[t] = wsm[(wn + 8 * t + gid) * 4 + q];
            zz[t] = __float2bfloat162_rn(136.0f + static_cast<float>(cur.z[t]));
            sB[t] = __float2bfloat162_rn(cur.s[t]);
        }
#pragma unroll
        for (int w = 0; w < 4; ++w) {
            std::uint32_t pb[NT][4];
#pragma unroll
            for (int t = 0; t < NT; ++t) {
                codePairs(wordOf(raw[t], w), pb[t]);
#pragma unroll
                for (int j = 0; j < 4; ++j) {
                    __nv_bfloat162 v = __hsub2(pair(pb[t][j]), zz[t]);
                    if (ScaleInB)
                        v = __hmul2(v, sB[t]);
                    pb[t][j] = bits(v);
                }
            }
            const int uq = 4 * q + w;
#pragma unroll
            for (int i = 0; i < MT; ++i) {
                const int r0 = wm + 16 * i + gid;
                const uint4 g0 = xs[xUnit(r0, uq)], g1 = xs[xUnit(r0 + 8, uq)];
                const std::uint32_t a04[2] = {__byte_perm(g0.x, g0.z, 0x5410), __byte_perm(g1.x, g1.z, 0x5410)};
                const std::uint32_t a15[2] = {__byte_perm(g0.x, g0.z, 0x7632), __byte_perm(g1.x, g1.z, 0x7632)};
                const std::uint32_t a26[2] = {__byte_perm(g0.y, g0.w, 0x5410), __byte_perm(g1.y, g1.w, 0x5410)};
                const std::uint32_t a37[2] = {__byte_perm(g0.y, g0.w, 0x7632), __byte_perm(g1.y, g1.w, 0x7632)};
#pragma unroll
                for (int t = 0; t < NT; ++t) {
                    float(&d)[4] = ScaleInB ? acc[i][t] : tmp[i][t];
                    mma16816(d, a04[0], a04[1], a15[0], a15[1], pb[t][0], pb[t][1]);
                    mma16816(d, a26[0], a26[1], a37[0], a37[1], pb[t][2], pb[t][3]);
                }
            }
        }
        if (!ScaleInB && (it + 1 == nCh || groupEnds))
        // The group ends with this chunk (or the slice does): scale its exact sum once.
#pragma unroll
            for (int i = 0; i < MT; ++i)
#pragma unroll
                for (int t = 0; t < NT; ++t) {
                    acc[i][t][0] += s0[t] * tmp[i][t][0];
                    acc[i][t][1] += s1[t] * tmp[i][t][1];
                    acc[i][t][2] += s0[t] * tmp[i][t][2];
                    acc[i][t][3] += s1[t] * tmp[i][t][3];
#pragma unroll
                    for (int r = 0; r < 4; ++r)
                        tmp[i][t][r] = 0.0f;
                }
        if (it + 1 < nCh)
            cur = nxt;
        if (groupEnds)
            inGrp = 0, ++grp;
        else
            ++inGrp;
        slot = slot + 1 == stages ? 0 : slot + 1;
        fill = fill + 1 == stages ? 0 : fill + 1;
    }
    cpAsyncWait<0>(); // no copy outlives the block (the tail groups are empty)

    // The outputs: d0, d1 (row gid; n 2 tig, 2 tig + 1), d2, d3 (row gid + 8).
    __nv_bfloat16 *Y = a.y + e * a.yStride;
    float *ws = a.ws ? a.ws + static_cast<long long>(e) * a.M * a.N : nullptr;
    const bool pairs = (a.N & 1) == 0 && (reinterpret_cast<unsigned long long>(Y) & 3) == 0;
#pragma unroll
    for (int i = 0; i < MT; ++i)
#pragma unroll
        for (int t = 0; t < NT; ++t)
#pragma unroll
            for (int h = 0; h < 2; ++h) {
                const long long m = mBase + wm + 16 * i + gid + 8 * h;
                const long long n = nBlock0 + wn + 8 * t + 2 * q;
                if (m >= a.M || n >= a.N)
                    continue;
                const float v0 = acc[i][t][2 * h], v1 = acc[i][t][2 * h + 1];
                if (a.splitK == 1) {
                    if (pairs)
                        *reinterpret_cast<__nv_bfloat162 *>(Y + m * a.N + n) = __floats2bfloat162_rn(v0, v1);
                    else {
                        Y[m * a.N + n] = __float2bfloat16_rn(v0);
                        if (n + 1 < a.N)
                            Y[m * a.N + n + 1] = __float2bfloat16_rn(v1);
                    }
                } else {
                    atomicAdd(ws + m * a.N + n, v0);
                    if (n + 1 < a.N)
                        atomicAdd(ws + m * a.N + n + 1, v1);
                }
            }
    if (a.splitK == 1)
        return;
    // The last block of this (expert, m-block, n-block) tile converts the sums and re-zeroes.
    unsigned *counter = a.counters + (static_cast<long long>(e) * a.mBlocks + mBlock) * gridDim.x + blockIdx.x;
    if (!splitKLastBlock(counter, a.splitK))
        return;
    const long long rows = (a.M - mBase) < BM ? a.M - mBase : BM;
    const long long cols = (a.N - nBlock0) < BN ? a.N - nBlock0 : BN;
    splitKConvert(ws, Y, a.N, mBase, rows, nBlock0, cols, counter, kThreads);
}

using KernelFn = void (*)(Args);

template <int T, bool ScaleInB> constexpr KernelFn kernelOf()
{
    return &tiledKernel<kTiles[T].bm, kTiles[T].bn, kTiles[T].wgm, kTiles[T].wgn, ScaleInB>;
}

template <bool ScaleInB> KernelFn kernelFor(int tile)
{
    constexpr KernelFn fns[kTileCount] = {kernelOf<0, ScaleInB>(), kernelOf<1, ScaleInB>(), kernelOf<2, ScaleInB>(),
                                          kernelOf<3, ScaleInB>(), kernelOf<4, ScaleInB>(), kernelOf<5, ScaleInB>(),
                                          kernelOf<6, ScaleInB>(), kernelOf<7, ScaleInB>()};
    return fns[tile - 1];
}

#endif // QS_HAS_MMA

} // namespace

long long tiledCounters(const W4a16Problem &p)
{
    return static_cast<long long>(std::max(p.experts, 1)) * ((p.m + 15) / 16) * ((p.n + 127) / 128);
}

W4a16Launch tiled(const W4a16Problem &p, const W4a16Tiling &tiling, void *workspace, void *counters, void *stream)
{
    W4a16Launch l;
    const int tile = tiling.kernel == 5 && tiling.nPerWarp >= 1 && tiling.nPerWarp <= kTileCount ? tiling.nPerWarp
                                                                                                 : defaultTile(p.m);
    const TileShape sh = kTiles[tile - 1];
    const int stages = tiling.chunksAhead >= 2 && tiling.chunksAhead <= 4 ? tiling.chunksAhead : 4;
    const int threads = sh.wgm * sh.wgn * 32;
    const long long nBlocks = (p.n + sh.bn - 1) / sh.bn, mBlocks = (p.m + sh.bm - 1) / sh.bm;
    const long long chunks = p.k / 128;
    const int experts = std::max(p.experts, 1);
    const std::size_t smem = static_cast<std::size_t>(stages * stageBytes(sh));
    long long split = tiling.splitK;
#if defined(QS_HAS_MMA)
    const bool scaleInB = p.group < 128;
    const KernelFn fn = scaleInB ? kernelFor<true>(tile) : kernelFor<false>(tile);
    // Above 48 KiB of dynamic shared memory a kernel must opt in (once per instantiation, for its
    // deepest ring: 4 stages, at most 160 KiB).
    static std::atomic<bool> optedIn[2][kTileCount] = {};
    std::atomic<bool> &opted = optedIn[scaleInB ? 1 : 0][tile - 1];
    if (!opted.load(std::memory_order_relaxed)) {
        QS_GPU_CHECK(cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                          static_cast<int>(4 * stageBytes(sh))));
        opted.store(true, std::memory_order_relaxed);
    }
    if (split <= 0) {
        static std::atomic<int> occupancy[2][kTileCount][5] = {};
        const int perSm = residentBlocks(occupancy[scaleInB ? 1 : 0][tile - 1][stages], fn, threads, smem);
        split = chooseSplit(perSm, nBlocks * mBlocks * experts, chunks);
    }
#endif
    split = launchSlices(split, chunks, workspace, counters); // ⌈chunks / split⌉ chunks a slice, no empty slice
    l.tiled = true;
    l.tile = tile;
    l.bm = sh.bm;
    l.bn = sh.bn;
    l.mTile = sh.bm / (16 * sh.wgm);
    l.nPerWarp = sh.bn / sh.wgn;
    l.warps = sh.wgm * sh.wgn;
    l.chunksAhead = stages;
    l.splitK = static_cast<int>(split);
    l.scaleInB = p.group < 128;
    l.blocks = static_cast<int>(nBlocks * mBlocks * split * experts);
#if defined(QS_HAS_MMA)
    const Args a = launchArgs(p, workspace, counters, l.splitK, static_cast<int>(mBlocks), stages, 0);
    const dim3 grid(static_cast<unsigned>(nBlocks), static_cast<unsigned>(mBlocks * split),
                    static_cast<unsigned>(experts));
    fn<<<grid, threads, smem, static_cast<cudaStream_t>(stream)>>>(a);
    QS_GPU_CHECK(cudaGetLastError());
#else
    (void)workspace, (void)counters, (void)stream, (void)smem, (void)threads;
#endif
    return l;
}

} // namespace quantscope::gpu::launch::w4a16detail
