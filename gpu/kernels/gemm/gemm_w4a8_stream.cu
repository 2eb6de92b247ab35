// SPDX-License-Identifier: MIT
// The fused W4A8 GEMM's streaming small-M kernel (kernels_w4a8.h, W4a8Tiling::kernel 2; issue 43):
// the row-order kernel's arithmetic (gemm_w4a8.cu: Yᵀ = Ŵ·X̂ᵀ, 16 rows of W a warp as the mma's
// A operand, the tokens its n = 8, mma.sync m16n8k32) on a tile-ordered copy of the same codes and
// metadata (w4a8TileReorder, gemm_w4a16_stream.cu: the W4A16 streaming kernel's copy with each
// word's nibbles in the split order): one contiguous KiB a warp a chunk of 128 k, its K slice one
// stream, the loads of the next step issued before this step's mma's (two register buffers).
// Groups that are multiples of 128 only (per channel included): a chunk then lies inside one group.
//
// The k order. In the copy, lane (gid, tig) holds for half h the 16 bytes 16·tig … 16·tig + 15 of
// chunk ch of row 16t + gid + 8h: word w (0…3) is the octet k₀ = 128·ch + 32·tig + 8·w, its byte b
// the codes of k₀ + b (low nibble) and k₀ + 4 + b (high). Step w of a chunk feeds that word
// (w4a8_math.h's split operands: a0/a2 the octet's codes 0–3 / 4–7 as bytes, rows gid and gid + 8)
// against X̂'s 8 bytes at k₀ of token 8n + gid (b0, b1),
// so a lane reads X̂'s 32 contiguous bytes 128·ch + 32·tig of its token a chunk (two 16-byte
// loads, L1-cached: the block's warps read the same X̂). The row-order kernel's step w covers
// k [32w, 32w + 32) instead; both sum the same 128 products a chunk.
//
// INT8: the mma sums Σ u·x (u = q + 8) exactly in INT32 over the group's chunks in the slice, Σ x
// of the same k from the lane's 32 bytes (eight dp4a, two xor-shuffles: the chunk's 128 k of token
// 8n + gid; two shuffles bring the D columns' tokens 2tig, 2tig + 1), and at the group's end (or
// the slice's) v = Σ u·x − (z + 8)·Σ x, acc += s·float(v): the same exact integers, added in the
// same order as the row-order kernel's — with the same K slices the outputs are its bits. z is
// read back from the copy's BF16 136 + z (exact for z ∈ [−128, 120], a multiple of 1 below 256).
// INT8 per channel (group = K), the exact form: no Σ x, scale or zero point in the loop. The warp's
// INT32 Σ u·x over its whole K slice is its partial; the slices add the partials as integers (in
// their cluster's shared memory, by INT32 atomics into the workspace, or alone at one slice) and
// the tile's finisher computes y = s_tok·(s·float(V − (z + 8)·Σx)) once, Σx the token's total from
// X's chunk sums (kernels_w4a8.h w4a8XSums; X's quantizer writes them): the row-order kernel's
// expression at one slice, so its bits at every split and on every launch.
// E4M3: q − z in E4M3 (exact for z ∈ [−9, 8]) against X̂'s E4M3 codes, an FP32 sum per chunk
// scaled by s (the tensor core's own FP32 sum of 32 products, in another k order than the
// row-order kernel's: within the same bound, not always its bits). Split K as the other fused
// kernels: FP32 partials into the zeroed workspace, the last block of a tile converts and
// re-zeroes.
#define QS_HD __host__ __device__
#include "w4a8_math.h"

#include "w4a8_stream.cuh"

#include "kernels_w4a16.h"
#include "kernels_w4a8.h"

#include <algorithm>
#include <atomic>
#include <cstdint>

#include "qs_gpu_compat.h"

namespace quantscope::gpu::launch {

namespace w4a8detail {
namespace {

namespace gm = quantscope::gpumath;
using w4a16detail::chooseSplit;
using w4a16detail::launchSlices;

#if defined(QS_HAS_MMA)

using w4a16detail::clusterStoreSwapped;
using w4a16detail::ldNc;
using w4a16detail::mmaE4m3;
using w4a16detail::mmaS8;
using w4a16detail::storeSwapped;

/// NT n8 tiles of tokens, U chunks of 128 k a step, NW warps a block (16 rows of W each). Blocks of
/// 8 and 16 warps state their minimum of one block an SM, which changes ptxas's allotment (INT8 at
/// M = 16, 8 warps, 1 chunk a step, split 8: 19.4 µs against 20.7; bench/results/gpu-h200-2026-11-29h/
/// issue43-bounds); a minimum of 0 leaves 4 warps' launch bounds as they were.
/// QS_W4A8_STREAM_MIN_BLOCKS_4W (a measurement switch, bench/probe/w4a8_variants.sh): the minimum
/// for 4-warp blocks, which caps their registers at 65536 / (128 · minimum) for more resident warps.
#ifndef QS_W4A8_STREAM_MIN_BLOCKS_4W
#define QS_W4A8_STREAM_MIN_BLOCKS_4W 0
#endif
/// X̂'s 32 bytes of a chunk loaded with W's, a step ahead (NT·8 more registers a buffer), instead of
/// at the start of the chunk's arithmetic, where Nsight put most of the kernel's long-scoreboard
/// stalls. QS_W4A8_X_AHEAD (bench/probe/w4a8_variants.sh): 0 never, 1 in every block size, 2 (the
/// default) in 8-warp blocks and in the per-channel INT8 kernels (PC below) — measured on the H200
/// (docs/perf.md "Fused W4A8 GEMM (issue 43)", 2026-11-30): 8 warps with 2 chunks a step went from
/// 14.8 / 16.1 µs (the best of the whole sweep without it) to 14.1 / 15.4 µs at INT8 M = 1 / 8,
/// while 4-warp blocks that sum Σx in the loop, at ≤ 4 blocks an SM, lost 0.4–0.6 µs; without that
/// work (the thirteenth session's Σx-free bound) they gained, M = 16 15.8 → 15.2–15.3 µs.
#ifndef QS_W4A8_X_AHEAD
#define QS_W4A8_X_AHEAD 2
#endif
/// PC: INT8 per channel (one group over K), the exact form: the warp's INT32 Σ u·x over its whole
/// K slice is its partial; the slices add partials as integers (in the cluster, by INT32 atomics
/// or alone at one slice) and the tile's finisher applies the zero-point term and both scales once
/// (finishPc). No Σ x, scale or zero point in the loop, X̂ a step ahead in every block size.
template <bool Fp8, int NT, int U, int NW, bool PC>
__global__ void __launch_bounds__(NW * 32, NW >= 8 ? 1 : QS_W4A8_STREAM_MIN_BLOCKS_4W) stream8Kernel(S8 a)
{
    static_assert(!(PC && Fp8), "the exact per-channel form is INT8's");
    constexpr bool kXAhead = QS_W4A8_X_AHEAD == 1 || (QS_W4A8_X_AHEAD == 2 && (NW == 8 || PC));
    constexpr int XU = kXAhead ? U : 1; // X̂ buffers a step (unused without the switch)
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int gid = lane >> 2, q = lane & 3;
    const long long tiles = (a.N + 15) / 16;
    const long long tRaw = static_cast<long long>(blockIdx.x) * NW + warp;
    const bool live = tRaw < tiles; // a warp past the last tile streams the last one and stores nothing
    const long long t = live ? tRaw : tiles - 1;
    const int groups = static_cast<int>(a.K / a.group), chunks = static_cast<int>(a.K / 128);
    const int cpg = static_cast<int>(a.group / 128);
    const int per = (chunks + a.splitK - 1) / a.splitK;
    const int c0 = static_cast<int>(blockIdx.y) * per, c1 = c0 + per < chunks ? c0 + per : chunks;

    PcOps first{}; // per channel, the finishing operands of the cluster's tail, loaded now
    if constexpr (PC)
        first = pcFirstOps<NT, NW>(a);
    const uint4 *xRow[NT]; // token 8n + gid's 32 bytes at 32·tig of each chunk
#pragma unroll
    for (int n = 0; n < NT; ++n) {
        const long long tb = 8 * n + gid < a.M ? 8 * n + gid : a.M - 1;
        xRow[n] = reinterpret_cast<const uint4 *>(a.x + tb * a.K + 32 * q);
    }
    const uint4 *wNext = reinterpret_cast<const uint4 *>(a.tp + (t * chunks + c0) * 1024) + lane;
    const std::uint8_t *mNext = a.tp + a.metaOff + (t * groups + c0 / cpg) * 96 + 8 * gid;
    int inL = c0 % cpg, inC = inL;
    auto load = [&](uint4(&w)[U][2], float2(&s)[U], unsigned(&z)[U], uint4(&x)[XU][NT][2], int ch) {
#pragma unroll
        for (int u = 0; u < U; ++u) {
            if (u == 0 || ch + u < c1) {
                w[u][0] = ldNc(wNext);
                w[u][1] = ldNc(wNext + 32);
                if (!PC) {
                    s[u] = __ldg(reinterpret_cast<const float2 *>(mNext));
                    z[u] = __ldg(reinterpret_cast<const unsigned *>(mNext + 64 - 4 * gid));
                }
                if (kXAhead) {
#pragma unroll
                    for (int n = 0; n < NT; ++n) {
                        x[kXAhead ? u : 0][n][0] = __ldg(xRow[n] + 8 * (ch + u));
                        x[kXAhead ? u : 0][n][1] = __ldg(xRow[n] + 8 * (ch + u) + 1);
                    }
                }
            }
            wNext += 64;
            if (++inL == cpg)
                inL = 0, mNext += 96;
        }
    };

    float acc[NT][4], fsum[NT][4];
    int iacc[NT][4], xsum[NT][2];
#pragma unroll
    for (int n = 0; n < NT; ++n) {
#pragma unroll
        for (int r = 0; r < 4; ++r)
            acc[n][r] = 0.0f, fsum[n][r] = 0.0f, iacc[n][r] = 0;
        xsum[n][0] = xsum[n][1] = 0;
    }

    auto compute = [&](const uint4(&w)[U][2], const float2(&s)[U], const unsigned(&z)[U], const uint4(&x)[XU][NT][2],
                       int ch) {
#pragma unroll
        for (int u = 0; u < U; ++u) {
            const int c = ch + u;
            if (u > 0 && c >= c1)
                break;
            uint4 xv[NT][2];
#pragma unroll
            for (int n = 0; n < NT; ++n) {
                xv[n][0] = kXAhead ? x[kXAhead ? u : 0][n][0] : __ldg(xRow[n] + 8 * c);
                xv[n][1] = kXAhead ? x[kXAhead ? u : 0][n][1] : __ldg(xRow[n] + 8 * c + 1);
            }
            const int zr[2] = {PC ? 0 : gm::w4a8CopyZero(z[u], 0), PC ? 0 : gm::w4a8CopyZero(z[u], 1)};
            std::uint32_t zz[2] = {0u, 0u};
            if (Fp8)
                zz[0] = gm::w4a8Fp16ZeroPair(zr[0]), zz[1] = gm::w4a8Fp16ZeroPair(zr[1]);
#pragma unroll
            for (int st = 0; st < 4; ++st) {
                std::uint32_t lo[2], hi[2];
#pragma unroll
                for (int h = 0; h < 2; ++h) {
                    const std::uint32_t word = w4a16detail::wordOf(w[u][h], st);
                    if (Fp8)
                        gm::w4a8Fp8OperandSplit(word, zz[h], lo[h], hi[h]);
                    else
                        gm::w4a8Int8OperandSplit(word, lo[h], hi[h]);
                }
#pragma unroll
                for (int n = 0; n < NT; ++n) {
                    const std::uint32_t b0 =
                        st & 1 ? (st & 2 ? xv[n][1].z : xv[n][0].z) : (st & 2 ? xv[n][1].x : xv[n][0].x);
                    const std::uint32_t b1 =
                        st & 1 ? (st & 2 ? xv[n][1].w : xv[n][0].w) : (st & 2 ? xv[n][1].y : xv[n][0].y);
                    if (Fp8)
                        mmaE4m3(fsum[n], lo[0], lo[1], hi[0], hi[1], b0, b1);
                    else
                        mmaS8(iacc[n], lo[0], lo[1], hi[0], hi[1], b0, b1);
                }
            }
            if (!Fp8 && !PC) {
                // Σ x of the chunk's 128 k for the D columns' tokens: the lane's 32 codes (token
                // 8n + gid), the quad's sum, then tokens 2tig, 2tig + 1 from quads 2tig, 2tig + 1.
#pragma unroll
                for (int n = 0; n < NT; ++n) {
                    int part = 0;
#pragma unroll
                    for (int v = 0; v < 2; ++v)
                        part = gm::byteSum16(xv[n][v].x, xv[n][v].y, xv[n][v].z, xv[n][v].w, part);
                    part += __shfl_xor_sync(0xffffffffu, part, 1);
                    part += __shfl_xor_sync(0xffffffffu, part, 2);
                    xsum[n][0] += __shfl_sync(0xffffffffu, part, 8 * q);
                    xsum[n][1] += __shfl_sync(0xffffffffu, part, 8 * q + 4);
                }
            }
            // E4M3: every chunk's FP32 sum is scaled (≤ 128 k a tensor-core sum); INT8: the
            // group's exact sum at its end or the slice's.
            const bool end = ++inC == cpg || c + 1 >= c1;
            if (Fp8) {
#pragma unroll
                for (int n = 0; n < NT; ++n)
#pragma unroll
                    for (int r = 0; r < 4; ++r) {
                        acc[n][r] += ((r >> 1) ? s[u].y : s[u].x) * fsum[n][r];
                        fsum[n][r] = 0.0f;
                    }
            } else if (end && !PC) {
#pragma unroll
                for (int n = 0; n < NT; ++n) {
#pragma unroll
                    for (int r = 0; r < 4; ++r) {
                        const int v = iacc[n][r] - (zr[r >> 1] + 8) * xsum[n][r & 1];
                        acc[n][r] += ((r >> 1) ? s[u].y : s[u].x) * static_cast<float>(v);
                        iacc[n][r] = 0;
                    }
                    xsum[n][0] = xsum[n][1] = 0;
                }
            }
            if (inC == cpg)
                inC = 0;
        }
    };

    uint4 wa[U][2], wb[U][2], xa[XU][NT][2], xb[XU][NT][2];
    float2 sa[U] = {}, sb[U] = {};
    unsigned za[U] = {}, zb[U] = {};
    load(wa, sa, za, xa, c0);
    for (int ch = c0; ch < c1; ch += 2 * U) {
        if (ch + U < c1)
            load(wb, sb, zb, xb, ch + U);
        compute(wa, sa, za, xa, ch);
        if (ch + U >= c1)
            break;
        if (ch + 2 * U < c1)
            load(wa, sa, za, xa, ch + 2 * U);
        compute(wb, sb, zb, xb, ch + U);
    }

    if constexpr (PC) { // the exact sums added over the slices and finished once (w4a8_stream.cuh)
        extern __shared__ uint4 dyn8[];
        storeExactPc<NT, NW>(iacc, a, live, t, gid, q, reinterpret_cast<int *>(dyn8), first);
        return;
    } else if (a.cluster) { // the slices meet in the cluster's shared memory
        extern __shared__ uint4 dyn8[];
        clusterStoreSwapped(acc, reinterpret_cast<float *>(dyn8), static_cast<long long>(blockIdx.x) * NW * 16, a.M,
                            a.N, a.splitK, a.y, [&](float v, long long m) { return __ldg(a.sx + m) * v; });
        return;
    } else if (live) {
        storeSwapped(acc, t * 16, gid, q, a.M, a.N, a.splitK, a.y, a.ws,
                     [&](float v, long long m) { return __ldg(a.sx + m) * v; });
    }
    splitKTail<NW>(a.ws, a, [](float v, long long, long long) { return v; });
}

using Stream8Fn = void (*)(S8);

/// The instantiations: INT8 grouped, INT8 per channel (PC) and E4M3 × one or two n8 tiles × 1 or 2
/// chunks a step × 4, 8 or 16 warps.
template <bool Fp8, int NW, bool PC> Stream8Fn forWarps(int nt, int u)
{
    if (nt == 1)
        return u == 1 ? &stream8Kernel<Fp8, 1, 1, NW, PC> : &stream8Kernel<Fp8, 1, 2, NW, PC>;
    return u == 1 ? &stream8Kernel<Fp8, 2, 1, NW, PC> : &stream8Kernel<Fp8, 2, 2, NW, PC>;
}
template <bool Fp8, bool PC> Stream8Fn stream8For(int nt, int u, int warps)
{
    return warps == 16  ? forWarps<Fp8, 16, PC>(nt, u)
           : warps == 8 ? forWarps<Fp8, 8, PC>(nt, u)
                        : forWarps<Fp8, 4, PC>(nt, u);
}

#endif // QS_HAS_MMA

} // namespace

bool tileRuns(const W4a8Problem &p)
{
    return w4a8FusedBuilt() && p.tilePacked && p.m >= 1 && p.m <= kW4a8FusedMaxM && p.k >= 128 && p.k % 128 == 0 &&
           p.k <= kW4a8FusedMaxK && p.group > 0 && p.group % 128 == 0 && p.k % p.group == 0 &&
           (p.fp8 || p.group != p.k || p.xSums) && reinterpret_cast<std::uintptr_t>(p.xq) % 16 == 0 &&
           reinterpret_cast<std::uintptr_t>(p.tilePacked) % 16 == 0;
}

W4a8Launch streamed(const W4a8Problem &p, const W4a8Tiling &tiling, void *workspace, void *counters, void *stream)
{
    if (!tileRuns(p))
        throw GpuError(w4a8TileRefusal(p));
    // INT8 per channel at 9 … 16 tokens: the warpgroup kernel (gemm_w4a8_wgmma.cu) where asked, and
    // by default where it runs (on the H200 at M = 16 it took 15.3 µs against the mma.sync kernel's
    // 16.1–16.3 in the same runs; docs/perf.md "Fused W4A8 GEMM (issue 43)", fourteenth session)
    if (tiling.wgmma == 2 || (tiling.wgmma == 0 && wgmmaRuns(p)))
        return wgmmaStreamed(p, tiling, workspace, counters, stream); // throws the reason where it cannot run
    W4a8Launch l;
    const int nt = p.m <= 8 ? 1 : 2;
    // Chunks a step: asked, else 1 for one n8 tile and 2 for two (the H200's best at N = 4096, K = 14336).
    const int u = tiling.chunksAhead == 1 || tiling.chunksAhead == 2 ? tiling.chunksAhead : nt == 1 ? 1 : 2;
    const int warps = tiling.warps == 8 || tiling.warps == 16 ? tiling.warps : 4;
    const long long tiles = (p.n + 15) / 16;
    const long long nBlocks = (tiles + warps - 1) / warps;
    const long long chunks = p.k / 128;
    long long split = tiling.splitK;
#if defined(QS_HAS_MMA)
    const bool pc = !p.fp8 && p.group == p.k; // INT8 per channel: the exact form
    const Stream8Fn fn = p.fp8 ? stream8For<true, false>(nt, u, warps)
                         : pc  ? stream8For<false, true>(nt, u, warps)
                               : stream8For<false, false>(nt, u, warps);
    if (split <= 0) {
        static std::atomic<int> occupancy[3][3][3][3] = {};
        const int perSm = w4a16detail::residentBlocks(occupancy[p.fp8 ? 1
                                                                : pc  ? 2
                                                                      : 0][warps / 8][nt][u],
                                                      fn, warps * 32, 0);
        split = chooseSplit(perSm, nBlocks, chunks);
    }
#endif
    split = launchSlices(split, chunks, workspace, counters); // ⌈chunks / split⌉ chunks a slice, no empty slice
    l.splitK = static_cast<int>(split);
    l.blocks = static_cast<int>(nBlocks * split);
    l.tokenTiles = nt;
    l.chunksAhead = u;
    l.warps = warps;
    l.streamed = true;
#if defined(QS_HAS_MMA)
    S8 a = streamArgs(p, workspace, counters, l.splitK);
    // The slices meet in their cluster where asked and it runs (the partials take nt·16 bytes a
    // thread of dynamic shared memory), else by atomics (no dynamic shared memory).
    std::size_t smem = 0;
    const std::size_t red = static_cast<std::size_t>(nt * 16 * warps * 32);
    if (tiling.reduce == 2 && split > 1 &&
        w4a16detail::clusterFits(reinterpret_cast<const void *>(fn), split, warps * 32, red))
        a.cluster = 1, smem = red, l.clusterReduce = true;
    const dim3 grid(static_cast<unsigned>(nBlocks), static_cast<unsigned>(split));
    w4a16detail::launchClustered(fn, grid, warps * 32, smem, stream, a.cluster ? static_cast<int>(split) : 1, a);
#else
    (void)workspace, (void)counters, (void)stream;
#endif
    return l;
}

} // namespace w4a8detail

std::string w4a8TileRefusal(const W4a8Problem &p)
{
    const std::string what = p.fp8 ? "the streaming W4A8-FP8 kernel" : "the streaming W4A8-INT8 kernel";
    if (!w4a8FusedBuilt())
        return what + ": not built for HIP (no mma.sync)";
    if (const std::string why = w4a8FusedRefusal(p.fp8, p.m, p.k, p.group); !why.empty())
        return why;
    if (p.group % 128 != 0)
        return what + " needs the group a multiple of 128 (per channel included; group = " + std::to_string(p.group) +
               ")";
    if (!p.tilePacked)
        return what + " needs the tile-ordered copy (w4a8TileReorder of the same codes, scales and zero points)";
    if (!p.fp8 && p.group == p.k && !p.xSums)
        return what + " per channel needs X's chunk sums (w4a8QuantizeX's sums, or w4a8XSums of the codes)";
    if (reinterpret_cast<std::uintptr_t>(p.xq) % 16 != 0 || reinterpret_cast<std::uintptr_t>(p.tilePacked) % 16 != 0)
        return what + " reads X's codes and the copy 16 bytes at a time: both must be 16-byte aligned";
    return "";
}

} // namespace quantscope::gpu::launch
