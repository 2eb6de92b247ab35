// SPDX-License-Identifier: MIT
// The fused W4A16 GEMM's small-M kernel (kernels_w4a16.h; issue 43): the operands swapped,
// Yᵀ[N, M] = Ŵ·Xᵀ, so that 16 rows of W are the mma's M (its A operand, row-major 16×16, built
// in registers from the packed codes) and the tokens its n = 8 (the B operand, from X). At
// M ≤ 8 one n8 tile, up to 16 two; one B fragment of X serves 16 rows of W (the original
// kernel, gemm_w4a16.cu, put the tokens in the A operand, 1 of its 16 rows used at M = 1).
//
// Fragments (PTX ISA "Matrix Fragments for mma.m16n8k16", BF16): lane = 4·gid + tig. A (W rows,
// 16×16 row): a0 = (row gid, k 2tig, 2tig+1), a1 = (row gid+8, same k), a2 = (row gid, k 2tig+8,
// +9), a3 = (row gid+8, k 2tig+8, +9). B (Xᵀ, 16×8 col): b0 = (k 2tig, 2tig+1; token gid), b1 =
// (k 2tig+8, +9; token gid). D: d0, d1 = (row gid; tokens 2tig, 2tig+1), d2, d3 = (row gid+8).
//
// The k permutation (Σ_k is order-free; A and B use the same one). A chunk of 128 k of a row of W
// is 64 bytes; lane tig takes bytes [16 tig, 16 tig + 16) = k [32 tig, 32 tig + 32) of rows gid
// and gid + 8 with one 128-bit load each. Word w (0…3) of those 16 bytes holds the octet
// k0 = 32 tig + 8w … k0 + 7 as nibbles n0 … n7 (n_j = code of k0 + j). Its four BF16 pairs:
//     P_j = lop3(word >> 4j, 0x000F000F, 0x43084308, (a & b) ^ c) = (128 + u_j | 128 + u_{j+4}),
// u = n XOR 8 = q + 8 ∈ [0, 15] (the BF16 bits 0x4300 | u are 128 + u exactly): three shifts and
// four lop3 per 8 codes. Steps 2w and 2w+1 of the chunk's eight k16 steps take a0/a1 = P0, a2/a3
// = P1 and a0/a1 = P2, a2/a3 = P3: logical k (2tig, 2tig+1, 2tig+8, 2tig+9) are the octet's
// (0, 4, 1, 5) at step 2w and (2, 6, 3, 7) at 2w+1. X is staged once per block in shared memory
// in that order: octet (x0 … x7) → words (x0|x4, x1|x5, x2|x6, x3|x7) (four prmt), so a lane's B
// fragments for two steps are one 128-bit shared load; a token row of the stage is padded by 64
// bytes so that the two rows a quarter-warp reads fall in different banks.
//
// Dequantization (the original kernel's argument): (128 + u) − bf16(136 + z) = q − z exactly
// (an integer in [−128, 135]; 136 + z exact for z ≤ 120), one hsub2 per pair. Group ≥ 128 (a
// multiple of 128, per channel included): the mma runs on the exact q − z into a per-group FP32
// sum, scaled once per group (or at the end of the K slice) on the FP32 accumulator, acc +=
// s·sum, with the lane's own rows' scales (d0, d1 row gid; d2, d3 row gid+8). g32 / g64: a lane's
// 32 k lie in one group, but a k16 step spans four tigs (four or two groups), so the scale
// enters the A fragment: bf16(bf16(s)·(q − z)), the unfused path's rounding of Ŵ twice over.
//
// Grid: x = n-blocks of 4 warps × 16·MT rows of W, y = K slices, z = experts. Rows of W ≥ N are
// loaded from row N − 1 and tokens ≥ M read token M − 1 of the stage: their D rows / columns
// depend on nothing else and are not stored. Split K as the original kernel (FP32 partials into
// the zeroed workspace, the last block of an n-block converts and re-zeroes).
#include "w4a16_device.cuh"

#include <algorithm>
#include <atomic>

#include "qs_gpu_compat.h"

namespace quantscope::gpu::launch::w4a16detail {

namespace {

#if defined(QS_HAS_MMA)

/// MT m16 tiles of W rows per warp, NT n8 tiles of tokens, U chunks of 128 k loaded ahead.
/// Registers (ptxas 13, sm_90, no spills beyond 4 bytes): one chunk of one m16 tile in flight ≤ 64
/// (8 resident blocks an SM), two ≤ 80 (6), more (or two m16 × two n8 tiles) ≤ 128 (4).
template <int MT, int NT, int U, bool ScaleInA>
__global__ void __launch_bounds__(kWarps * 32, MT *U == 1                   ? 8
                                               : MT * U == 2 && MT * NT < 4 ? 6
                                                                            : 4) swappedKernel(Args a)
{
    extern __shared__ uint4 xs[];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int gid = lane >> 2, q = lane & 3;
    const int e = blockIdx.z;
    const long long nBlock0 = static_cast<long long>(blockIdx.x) * (kWarps * MT * 16);
    const long long nWarp0 = nBlock0 + warp * MT * 16;
    const std::uint8_t *W = a.w + e * a.wStride;
    const float *S = a.s + e * a.sStride;
    const std::int8_t *Z = a.z + e * a.sStride;
    const long long halfK = a.K / 2;
    const int groups = static_cast<int>(a.K / a.group), chunks = static_cast<int>(a.K / 128);
    const int per = (chunks + a.splitK - 1) / a.splitK;
    const int c0 = static_cast<int>(blockIdx.y) * per, c1 = c0 + per < chunks ? c0 + per : chunks;
    // The group of chunk ch: g32 / g64 (ch·128 + 32·tig) >> log2(group) (a lane's 32 k lie in one
    // group); group ≥ 128: ch / (group / 128).
    const int gShift = a.group == 32 ? 5 : 6, cpg = static_cast<int>(a.group / 128);
    const int rowsX = static_cast<int>(a.M < NT * 8 ? a.M : NT * 8); // tokens staged
    const int P = a.pieceChunks, rs = P * 16 + 4;                    // uint4 a token row of the stage

    // This lane's rows of W, 16i + gid + 8h of the warp's (rows ≥ N read row N − 1; never
    // stored): the offsets of the packed bytes it loads and of the rows' first scale / zero point.
    long long wOff[MT][2];
    int sRow[MT][2];
#pragma unroll
    for (int i = 0; i < MT; ++i)
#pragma unroll
        for (int h = 0; h < 2; ++h) {
            const long long r = laneRow(nWarp0 + 16 * i, gid, h, a.N);
            wOff[i][h] = r * halfK + 16 * q;
            sRow[i][h] = static_cast<int>(r) * groups;
        }
    int tok[NT];
    tokenOffsets(tok, gid, q, rowsX, rs);

    float acc[MT][NT][4], tmp[MT][NT][4];
#pragma unroll
    for (int i = 0; i < MT; ++i)
#pragma unroll
        for (int t = 0; t < NT; ++t)
#pragma unroll
            for (int j = 0; j < 4; ++j)
                acc[i][t][j] = 0.0f, tmp[i][t][j] = 0.0f;

    for (int p0 = c0; p0 < c1; p0 += P) {
        const int pc = c1 - p0 < P ? c1 - p0 : P;
        __syncthreads(); // the previous piece of the stage is consumed
        // Stage X[0, rowsX) × chunks [p0, p0 + pc): octet oo = 4·tig + w of a chunk → slot 4w + tig.
        stageX<kWarps * 32>(xs, a.x, e * a.xStride, a.K, rowsX, p0, pc, rs);
        __syncthreads();
        for (int cc = 0; cc < pc; cc += U) {
            uint4 raw[U][MT][2];
            float sc[U][MT][2];
            int zq[U][MT][2];
            bool groupEnd[U];
#pragma unroll
            for (int u = 0; u < U; ++u) {
                if (cc + u >= pc)
                    break;
                const int ch = p0 + cc + u;
                const int g = ScaleInA ? (ch * 128 + 32 * q) >> gShift : ch / cpg;
                groupEnd[u] = ch + 1 >= c1 || ch + 1 == (g + 1) * cpg;
#pragma unroll
                for (int i = 0; i < MT; ++i)
#pragma unroll
                    for (int h = 0; h < 2; ++h) {
                        raw[u][i][h] = ldNc(W + wOff[i][h] + 64 * ch);
                        sc[u][i][h] = __ldg(S + sRow[i][h] + g);
                        zq[u][i][h] = __ldg(Z + sRow[i][h] + g);
                    }
            }
#pragma unroll
            for (int u = 0; u < U; ++u) {
                if (cc + u >= pc)
                    break;
                const int xBase = (cc + u) * 16;
                // 136 + z (exact in BF16 for z ≤ 120) and, for g32 / g64, bf16(s), per row.
                __nv_bfloat162 zz[MT][2], sA[MT][2];
#pragma unroll
                for (int i = 0; i < MT; ++i)
#pragma unroll
                    for (int h = 0; h < 2; ++h) {
                        zz[i][h] = __float2bfloat162_rn(136.0f + static_cast<float>(zq[u][i][h]));
                        sA[i][h] = __float2bfloat162_rn(ScaleInA ? sc[u][i][h] : 0.0f);
                    }
#pragma unroll
                for (int w = 0; w < 4; ++w) {
                    uint4 xb[NT];
#pragma unroll
                    for (int t = 0; t < NT; ++t)
                        xb[t] = xs[tok[t] + xBase + 4 * w];
                    std::uint32_t pa[MT][2][4];
#pragma unroll
                    for (int i = 0; i < MT; ++i)
#pragma unroll
                        for (int h = 0; h < 2; ++h) {
                            codePairs(wordOf(raw[u][i][h], w), pa[i][h]);
#pragma unroll
                            for (int j = 0; j < 4; ++j) {
                                __nv_bfloat162 v = __hsub2(pair(pa[i][h][j]), zz[i][h]);
                                if (ScaleInA)
                                    v = __hmul2(v, sA[i][h]);
                                pa[i][h][j] = bits(v);
                            }
                        }
#pragma unroll
                    for (int i = 0; i < MT; ++i)
#pragma unroll
                        for (int t = 0; t < NT; ++t) {
                            float(&d)[4] = ScaleInA ? acc[i][t] : tmp[i][t];
                            mma16816(d, pa[i][0][0], pa[i][1][0], pa[i][0][1], pa[i][1][1], xb[t].x, xb[t].y);
                            mma16816(d, pa[i][0][2], pa[i][1][2], pa[i][0][3], pa[i][1][3], xb[t].z, xb[t].w);
                        }
                }
                if (!ScaleInA) {
                    // The group ends with this chunk (or the slice does): scale its exact sum once.
                    if (groupEnd[u])
#pragma unroll
                        for (int i = 0; i < MT; ++i)
#pragma unroll
                            for (int t = 0; t < NT; ++t)
#pragma unroll
                                for (int r = 0; r < 4; ++r) {
                                    acc[i][t][r] += sc[u][i][r >> 1] * tmp[i][t][r];
                                    tmp[i][t][r] = 0.0f;
                                }
                }
            }
        }
    }

    // The outputs: d0, d1 (row gid; tokens 2tig, 2tig+1), d2, d3 (row gid + 8).
    __nv_bfloat16 *Y = a.y + e * a.yStride;
    float *ws = a.ws ? a.ws + static_cast<long long>(e) * a.M * a.N : nullptr;
#pragma unroll
    for (int i = 0; i < MT; ++i)
        storeSwapped(acc[i], nWarp0 + 16 * i, gid, q, a.M, a.N, a.splitK, Y, ws, [](float v, long long) { return v; });
    if (a.splitK == 1)
        return;
    // The last block of this (expert, n-block) tile converts the sums and re-zeroes.
    unsigned *counter = a.counters + static_cast<long long>(e) * gridDim.x + blockIdx.x;
    if (!splitKLastBlock(counter, a.splitK))
        return;
    const long long cols = (a.N - nBlock0) < kWarps * MT * 16 ? a.N - nBlock0 : kWarps * MT * 16;
    splitKConvert(ws, Y, a.N, 0, a.M, nBlock0, cols, counter, blockDim.x);
}

using KernelFn = void (*)(Args);

template <int MT, int NT, bool ScaleInA> KernelFn byDepth(int u)
{
    if constexpr (MT == 1)
        return u == 1   ? &swappedKernel<1, NT, 1, ScaleInA>
               : u == 2 ? &swappedKernel<1, NT, 2, ScaleInA>
                        : &swappedKernel<1, NT, 4, ScaleInA>;
    else
        return u == 1 ? &swappedKernel<MT, NT, 1, ScaleInA> : &swappedKernel<MT, NT, 2, ScaleInA>;
}

/// The instantiations: MT 1 with U 1, 2, 4; MT 2 with U 1, 2; NT 1, 2.
template <bool ScaleInA> KernelFn kernelFor(int mt, int nt, int u)
{
    if (mt == 1)
        return nt == 1 ? byDepth<1, 1, ScaleInA>(u) : byDepth<1, 2, ScaleInA>(u);
    return nt == 1 ? byDepth<2, 1, ScaleInA>(u) : byDepth<2, 2, ScaleInA>(u);
}

/// The pipelined swapped kernel (W4a16Tiling::kernel 3): the arithmetic of swappedKernel with one
/// m16 tile of W a warp, but W reaches the registers through a ring of S chunks a warp in shared
/// memory filled by cp.async (S − 1 chunks in flight while one is consumed: bytes in flight no
/// longer cost registers), and the group scales / zero points of the block's rows are staged in
/// shared memory beside X, a piece at a time (the ring's copies stay in flight across the stage).
/// Each lane copies exactly the 2 × 16 bytes it later reads (rows gid, gid + 8 of its warp, bytes
/// [16 tig, 16 tig + 16) of the chunk), so a lane waits on its own cp.async groups only.
/// NW warps a block (4, or 8: 128 rows of W share one X stage, half the X traffic a row of W).
/// Registers (ptxas 13, sm_90, no spills): ≤ 64 with one n8 tile (32 resident warps an SM), ≤ 80
/// with two (24; their X stage limits residency before the registers do).
template <int NT, int S, bool ScaleInA, int NW>
__global__ void __launch_bounds__(NW * 32, (NT == 1 ? 32 : 24) / NW) pipelinedKernel(Args a)
{
    extern __shared__ uint4 sm[];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int gid = lane >> 2, q = lane & 3;
    const int e = blockIdx.z;
    const long long nBlock0 = static_cast<long long>(blockIdx.x) * (NW * 16);
    const long long nWarp0 = nBlock0 + warp * 16;
    const std::uint8_t *W = a.w + e * a.wStride;
    const float *Sc = a.s + e * a.sStride;
    const std::int8_t *Z = a.z + e * a.sStride;
    const long long halfK = a.K / 2;
    const int groups = static_cast<int>(a.K / a.group), chunks = static_cast<int>(a.K / 128);
    const int per = (chunks + a.splitK - 1) / a.splitK;
    const int c0 = static_cast<int>(blockIdx.y) * per, c1 = c0 + per < chunks ? c0 + per : chunks;
    const int gShift = a.group == 32 ? 5 : 6, cpg = static_cast<int>(a.group / 128);
    const int rowsX = static_cast<int>(a.M < NT * 8 ? a.M : NT * 8);
    const int P = a.pieceChunks, rs = P * 16 + 4, G = a.pieceGroups;
    // Shared memory: the warps' rings (S slots × 64 uint4 a warp: slot, row half h, lane), the X
    // stage (rowsX × rs uint4), the scales (NW·16 rows × G floats), the zero points (bytes).
    uint4 *ring = sm + warp * (S * 64);
    uint4 *xs = sm + NW * S * 64;
    float *ss = reinterpret_cast<float *>(xs + rowsX * rs);
    std::int8_t *zs = reinterpret_cast<std::int8_t *>(ss + NW * 16 * G);

    const std::uint8_t *wRow[2];
#pragma unroll
    for (int h = 0; h < 2; ++h) {
        wRow[h] = W + laneRow(nWarp0, gid, h, a.N) * halfK + 16 * q;
    }
    const int lr[2] = {warp * 16 + gid, warp * 16 + gid + 8}; // the lane's rows in the block's stage
    int tok[NT];
    tokenOffsets(tok, gid, q, rowsX, rs);

    // Chunk ch → ring slot (ch − c0) mod S; one commit group a chunk (empty past c1).
    auto fill = [&](int ch) {
        if (ch < c1) {
            uint4 *slot = ring + ((ch - c0) & (S - 1)) * 64;
            cpAsync16(slot + lane, wRow[0] + 64LL * ch);
            cpAsync16(slot + 32 + lane, wRow[1] + 64LL * ch);
        }
        cpAsyncCommit();
    };
#pragma unroll
    for (int s = 0; s < S - 1; ++s)
        fill(c0 + s);

    float acc[NT][4], tmp[NT][4];
#pragma unroll
    for (int t = 0; t < NT; ++t)
#pragma unroll
        for (int j = 0; j < 4; ++j)
            acc[t][j] = 0.0f, tmp[t][j] = 0.0f;

    for (int p0 = c0; p0 < c1; p0 += P) {
        const int pc = c1 - p0 < P ? c1 - p0 : P;
        // The piece's groups: [gp0, gp1] (g32 / g64: pieces start on a chunk, so on a group).
        const int gp0 = static_cast<int>(static_cast<long long>(p0) * 128 / a.group);
        const int gp = static_cast<int>((static_cast<long long>(p0 + pc) * 128 - 1) / a.group) - gp0 + 1;
        __syncthreads(); // the previous piece of the stage is consumed
        stageX<NW * 32>(xs, a.x, e * a.xStride, a.K, rowsX, p0, pc, rs);
        for (int i = threadIdx.x; i < NW * 16 * gp; i += NW * 32) {
            const int r = i / gp, g = i - r * gp;
            const long long r0 = nBlock0 + r, row = r0 < a.N ? r0 : a.N - 1;
            ss[r * G + g] = __ldg(Sc + row * groups + gp0 + g);
            zs[r * G + g] = __ldg(Z + row * groups + gp0 + g);
        }
        __syncthreads();
        for (int cc = 0; cc < pc; ++cc) {
            const int ch = p0 + cc;
            cpAsyncWait<S - 2>(); // this lane's copies of chunk ch have landed
            const uint4 *slot = ring + ((ch - c0) & (S - 1)) * 64;
            const uint4 raw[2] = {slot[lane], slot[32 + lane]};
            fill(ch + S - 1); // into the slot of chunk ch − 1, read by this lane in the last step
            const int g = ScaleInA ? (ch * 128 + 32 * q) >> gShift : ch / cpg;
            const bool groupEnd = ch + 1 >= c1 || ch + 1 == (g + 1) * cpg;
            float sc[2];
            __nv_bfloat162 zz[2], sA[2];
#pragma unroll
            for (int h = 0; h < 2; ++h) {
                sc[h] = ss[lr[h] * G + g - gp0];
                zz[h] = __float2bfloat162_rn(136.0f + static_cast<float>(zs[lr[h] * G + g - gp0]));
                sA[h] = __float2bfloat162_rn(ScaleInA ? sc[h] : 0.0f);
            }
            const int xBase = cc * 16;
#pragma unroll
            for (int w = 0; w < 4; ++w) {
                uint4 xb[NT];
#pragma unroll
                for (int t = 0; t < NT; ++t)
                    xb[t] = xs[tok[t] + xBase + 4 * w];
                std::uint32_t pa[2][4];
#pragma unroll
                for (int h = 0; h < 2; ++h) {
                    codePairs(wordOf(raw[h], w), pa[h]);
#pragma unroll
                    for (int j = 0; j < 4; ++j) {
                        __nv_bfloat162 v = __hsub2(pair(pa[h][j]), zz[h]);
                        if (ScaleInA)
                            v = __hmul2(v, sA[h]);
                        pa[h][j] = bits(v);
                    }
                }
#pragma unroll
                for (int t = 0; t < NT; ++t) {
                    float(&d)[4] = ScaleInA ? acc[t] : tmp[t];
                    mma16816(d, pa[0][0], pa[1][0], pa[0][1], pa[1][1], xb[t].x, xb[t].y);
                    mma16816(d, pa[0][2], pa[1][2], pa[0][3], pa[1][3], xb[t].z, xb[t].w);
                }
            }
            if (!ScaleInA && groupEnd)
#pragma unroll
                for (int t = 0; t < NT; ++t)
#pragma unroll
                    for (int r = 0; r < 4; ++r) {
                        acc[t][r] += sc[r >> 1] * tmp[t][r];
                        tmp[t][r] = 0.0f;
                    }
        }
    }
    cpAsyncWait<0>(); // no copy outlives the block (the tail groups are empty)

    __nv_bfloat16 *Y = a.y + e * a.yStride;
    float *ws = a.ws ? a.ws + static_cast<long long>(e) * a.M * a.N : nullptr;
    storeSwapped(acc, nWarp0, gid, q, a.M, a.N, a.splitK, Y, ws, [](float v, long long) { return v; });
    if (a.splitK == 1)
        return;
    unsigned *counter = a.counters + static_cast<long long>(e) * gridDim.x + blockIdx.x;
    if (!splitKLastBlock(counter, a.splitK))
        return;
    const long long cols = (a.N - nBlock0) < NW * 16 ? a.N - nBlock0 : NW * 16;
    splitKConvert(ws, Y, a.N, 0, a.M, nBlock0, cols, counter, blockDim.x);
}

/// The instantiations: 4 warps with a ring of 4 or 8 chunks, 8 warps with 4 (shared memory under
/// 48 KiB); one or two n8 tiles.
template <bool ScaleInA> KernelFn pipelinedFor(int nt, int stages, int warps)
{
    if (warps == 8)
        return nt == 1 ? &pipelinedKernel<1, 4, ScaleInA, 8> : &pipelinedKernel<2, 4, ScaleInA, 8>;
    if (nt == 1)
        return stages >= 8 ? &pipelinedKernel<1, 8, ScaleInA, 4> : &pipelinedKernel<1, 4, ScaleInA, 4>;
    return stages >= 8 ? &pipelinedKernel<2, 8, ScaleInA, 4> : &pipelinedKernel<2, 4, ScaleInA, 4>;
}

#endif // QS_HAS_MMA

/// Shared memory per block for the X stage (bytes): a piece of at most this.
constexpr long long kStageBudget = 24 * 1024;

} // namespace

namespace {

/// The pipelined variant's launch (W4a16Tiling::kernel 3: 4 warps a block, ring of 4 or 8 chunks
/// a warp; 4: 8 warps a block, ring of 4), one m16 tile of W a warp. Shared memory: the rings + a
/// piece of X and of the rows' scales / zero points within 24 KiB and under 48 KiB in all (no
/// opt-in attribute needed).
W4a16Launch pipelined(const W4a16Problem &p, const W4a16Tiling &tiling, void *workspace, void *counters, void *stream)
{
    W4a16Launch l;
    const int nt = p.m <= 8 ? 1 : 2;
    const int warps = tiling.kernel == 4 ? 8 : 4;
    const int stages = tiling.chunksAhead >= 8 && warps == 4 ? 8 : 4;
    const long long nBlocks = (p.n + warps * 16 - 1) / (warps * 16);
    const long long chunks = p.k / 128;
    const int experts = std::max(p.experts, 1);
    const int rowsX = static_cast<int>(std::min<long long>(p.m, 8 * nt));
    const long long ringBytes = static_cast<long long>(warps) * stages * 64 * 16;
    const long long budget = std::min<long long>(24 * 1024, 47 * 1024 - ringBytes);
    // Groups a piece of c chunks spans at most (pieces start on a chunk boundary).
    const long long cpg = std::max<long long>(1, p.group / 128);
    auto groupsOf = [&](long long c) {
        return p.group < 128 ? c * (128 / p.group) : std::min(c, (c + cpg - 1) / cpg + 1);
    };
    auto bytesOf = [&](long long c) { return rowsX * (c * 16 + 4) * 16 + warps * 16 * groupsOf(c) * 5; };
    long long pieceMax = 1;
    while (pieceMax < chunks && bytesOf(pieceMax + 1) <= budget)
        ++pieceMax;
    long long split = tiling.splitK;
#if defined(QS_HAS_MMA)
    const bool scaleInA = p.group < 128;
    const KernelFn fn = scaleInA ? pipelinedFor<true>(nt, stages, warps) : pipelinedFor<false>(nt, stages, warps);
    if (split <= 0) {
        static std::atomic<int> occupancy[2][2][3][9][17] = {};
        const std::size_t smem =
            static_cast<std::size_t>(ringBytes + ((bytesOf(std::min(pieceMax, chunks)) + 15) / 16) * 16);
        const int perSm =
            residentBlocks(occupancy[scaleInA ? 1 : 0][warps == 8 ? 1 : 0][nt][stages][rowsX], fn, warps * 32, smem);
        split = chooseSplit(perSm, nBlocks * experts, chunks);
    }
#endif
    split = launchSlices(split, chunks, workspace, counters); // ⌈chunks / split⌉ chunks a slice, no empty slice
    const long long per = (chunks + split - 1) / split;
    const long long piece = std::min(pieceMax, per);
    l.swapped = true;
    l.pipelined = true;
    l.warps = warps;
    l.mTile = nt;
    l.nPerWarp = 16;
    l.chunksAhead = stages;
    l.splitK = static_cast<int>(split);
    l.scaleInB = p.group < 128;
    l.blocks = static_cast<int>(nBlocks * split * experts);
#if defined(QS_HAS_MMA)
    const Args a =
        launchArgs(p, workspace, counters, l.splitK, 1, static_cast<int>(piece), static_cast<int>(groupsOf(piece)));
    const std::size_t smem = static_cast<std::size_t>(ringBytes + ((bytesOf(piece) + 15) / 16) * 16);
    const dim3 grid(static_cast<unsigned>(nBlocks), static_cast<unsigned>(split), static_cast<unsigned>(experts));
    fn<<<grid, warps * 32, smem, static_cast<cudaStream_t>(stream)>>>(a);
    QS_GPU_CHECK(cudaGetLastError());
#else
    (void)workspace, (void)counters, (void)stream, (void)piece;
#endif
    return l;
}

} // namespace

W4a16Launch smallM(const W4a16Problem &p, const W4a16Tiling &tiling, void *workspace, void *counters, void *stream)
{
    if (tiling.kernel == 3 || tiling.kernel == 4)
        return pipelined(p, tiling, workspace, counters, stream);
    W4a16Launch l;
    const int nt = p.m <= 8 ? 1 : 2;
    const int mt = tiling.nPerWarp >= 32 ? 2 : 1;
    const int u = std::min(tiling.chunksAhead >= 4 ? 4 : tiling.chunksAhead == 1 ? 1 : 2, mt == 2 ? 2 : 4);
    const long long nBlocks = (p.n + kWarps * 16 * mt - 1) / (kWarps * 16 * mt);
    const long long chunks = p.k / 128;
    const int experts = std::max(p.experts, 1);
    const int rowsX = static_cast<int>(std::min<long long>(p.m, 8 * nt));
    // The longest piece of X (chunks of 128 k) whose stage fits the budget.
    const long long pieceMax = std::max(1LL, (kStageBudget / (16LL * rowsX) - 4) / 16);
    long long split = tiling.splitK;
#if defined(QS_HAS_MMA)
    const bool scaleInA = p.group < 128;
    const KernelFn fn = scaleInA ? kernelFor<true>(mt, nt, u) : kernelFor<false>(mt, nt, u);
    if (split <= 0) {
        // Resident blocks of this instantiation with its largest stage (asked once per kernel and rowsX).
        static std::atomic<int> occupancy[2][3][3][5][17] = {};
        const std::size_t smem = static_cast<std::size_t>(rowsX * (std::min(pieceMax, chunks) * 16 + 4) * 16);
        const int perSm = residentBlocks(occupancy[scaleInA ? 1 : 0][mt][nt][u][rowsX], fn, kWarps * 32, smem);
        split = chooseSplit(perSm, nBlocks * experts, chunks);
    }
#endif
    split = launchSlices(split, chunks, workspace, counters); // ⌈chunks / split⌉ chunks a slice, no empty slice
    const long long per = (chunks + split - 1) / split;
    const long long piece = std::min(pieceMax, per);
    l.swapped = true;
    l.mTile = nt;
    l.nPerWarp = 16 * mt;
    l.chunksAhead = u;
    l.splitK = static_cast<int>(split);
    l.scaleInB = p.group < 128;
    l.blocks = static_cast<int>(nBlocks * split * experts);
#if defined(QS_HAS_MMA)
    const Args a = launchArgs(p, workspace, counters, l.splitK, 1, static_cast<int>(piece), 0);
    const std::size_t smem = static_cast<std::size_t>(rowsX * (piece * 16 + 4) * 16);
    const dim3 grid(static_cast<unsigned>(nBlocks), static_cast<unsigned>(split), static_cast<unsigned>(experts));
    fn<<<grid, kWarps * 32, smem, static_cast<cudaStream_t>(stream)>>>(a);
    QS_GPU_CHECK(cudaGetLastError());
#else
    (void)workspace, (void)counters, (void)stream, (void)piece;
#endif
    return l;
}

} // namespace quantscope::gpu::launch::w4a16detail
