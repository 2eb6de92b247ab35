// SPDX-License-Identifier: MIT
// The fused W3A16 GEMM with MiLo's rank-r compensator (kernels_w3lr.h; issue 43). Swapped as the
// W4A16 small-M kernel (gemm_w4a16_small.cu): Yᵀ[N, M] = Ŵ·Xᵀ, 16 rows of W a warp as the mma's
// A operand (m16n8k16 BF16, FP32 accumulation), the tokens its n = 8 (one n8 tile for M ≤ 8, two
// up to 16).
//
// W. The packed layout of w3lr_pack.h: per 256-k block a lane (tig = lane & 3) loads its two
// rows' 16-byte low words and 8-byte high words (24 bytes a row: 64 codes), and builds each A
// register pair with pairBits (two shifts, two and-or) = BF16 (128 + u | 128 + u'), then one
// hsub2 of (128 | 128): the exact codes u ∈ [0, 7]. Step st of a block covers k 32·(st >> 1) +
// 8·tig + 4·(st & 1) + j for the lane's codes j = 0 … 3 (a0/a1: j = 0, 1 = the fragment's k
// 2tig, 2tig+1; a2/a3: j = 2, 3 = k 2tig+8, 2tig+9), the same permutation for X: the lane's B
// registers of steps 2p and 2p+1 are the 8 BF16 of X at 32p + 8·tig (one 128-bit shared load).
//
// Zero points. HQQ's z is a float in code units, not exact in BF16 beside u, so the mma never
// sees it: per unit (a group of 64 or 128 k; for groups ≥ 256 a 256-k block) the mma sums Σ x·u
// into FP32 (tmp), and at the unit's end acc += s·(tmp − z·Σx) with Σx the unit's sum of the
// token's X (FP32, computed once a block while X is staged: 8-sums, then the unit's 8-sums in
// order). Split K (slices of whole blocks) as the W4A16 kernel: FP32 partials by atomics into the
// zeroed workspace, the last block of an n-block converting and re-zeroing.
//
// The compensator. A pre-kernel (≤ 32 blocks, component j in block j mod 32) computes T[m, j] = Σ_k x·V̂[j, k]
// in FP32 and signals its dependents at once (griddepcontrol.launch_dependents); the GEMM,
// launched with programmatic stream serialization where the device has it (sm_90+), runs its
// whole K loop meanwhile and waits (griddepcontrol.wait) only before its epilogue, where the
// blocks of the first K slice stage T in shared memory and add c = Σ_j Û[n, j]·T[m, j] (FP32,
// j in order) to their sums. Without the attribute: plain stream order (same results).
#include "w4a16_device.cuh"

#define QS_HD __host__ __device__
#include "w3lr_pack.h"

#include <algorithm>
#include <atomic>
#include <cmath>

#include "kernels_w3lr.h"
#include "qs_gpu_compat.h"

namespace quantscope::gpu::launch {

namespace {

using w4a16detail::evenSplit;

constexpr int kWarps = 4; // 64 rows of W a block
constexpr int kAhead = 2; // 256-k blocks of W a warp loads before its mma's
constexpr long long kStageBudget = 24 * 1024;

#if defined(QS_HAS_MMA) // HIP: the host side only (the launchers refuse)

struct Args {
    const std::uint32_t *w;
    const float *s, *z;
    const __nv_bfloat16 *x;
    __nv_bfloat16 *y;
    float *ws;
    unsigned *counters;
    const float *u, *t;
    long long M, N, K, group;
    int rank, splitK, pieceBlocks;
};

using w4a16detail::bits;
using w4a16detail::laneRow;
using w4a16detail::ldNc;
using w4a16detail::mma16816;
using w4a16detail::pair;
using w4a16detail::splitKConvert;
using w4a16detail::splitKLastBlock;
using w4a16detail::storeSwapped;
using w4a16detail::tokenOffsets;

__device__ __forceinline__ uint2 ldNc2(const void *p)
{
    uint2 r;
    asm volatile("ld.global.nc.L1::no_allocate.v2.u32 {%0,%1}, [%2];\n" : "=r"(r.x), "=r"(r.y) : "l"(p));
    return r;
}

__device__ __forceinline__ std::uint32_t wordOf(const uint4 &r, int w)
{
    return w == 0 ? r.x : w == 1 ? r.y : w == 2 ? r.z : r.w;
}

/// The exact codes (u, u') as a BF16 pair: (128 + u, 128 + u') − (128, 128).
__device__ __forceinline__ std::uint32_t codesOf(std::uint32_t lo, std::uint32_t hi, int st, int h)
{
    return bits(__hsub2(pair(w3lr::pairBits(lo, hi, st, h)), pair(0x43004300u)));
}

__device__ __forceinline__ float bfLo(std::uint32_t w)
{
    return __uint_as_float(w << 16);
}
__device__ __forceinline__ float bfHi(std::uint32_t w)
{
    return __uint_as_float(w & 0xFFFF0000u);
}

/// NT n8 tiles of tokens; SPG mma steps a unit (4: g64, 8: g128, 16: a 256-k block).
template <int NT, int SPG> __global__ void __launch_bounds__(kWarps * 32, NT == 1 ? 4 : 3) w3Kernel(Args a)
{
    extern __shared__ uint4 sm[];
    constexpr int UPB = 16 / SPG, UK = 16 * SPG; // units a block, k a unit
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int gid = lane >> 2, q = lane & 3;
    const long long nBlock0 = static_cast<long long>(blockIdx.x) * (kWarps * 16);
    const long long nWarp0 = nBlock0 + warp * 16;
    const long long rw = w3lr::rowWords(a.K);
    const int blocks = static_cast<int>(a.K / w3lr::kBlockK), groups = static_cast<int>(a.K / a.group);
    const int per = (blocks + a.splitK - 1) / a.splitK;
    const int b0 = static_cast<int>(blockIdx.y) * per, b1 = b0 + per < blocks ? b0 + per : blocks;
    const int rowsX = static_cast<int>(a.M < NT * 8 ? a.M : NT * 8);
    const int P = a.pieceBlocks, rs = P * 32 + 4; // uint4 a token row of the X stage (+64 bytes)
    uint4 *xs = sm;
    float *part = reinterpret_cast<float *>(xs + rowsX * rs); // [rowsX][P·32] 8-sums
    float *xsum = part + rowsX * P * 32;                      // [rowsX][P·UPB] unit sums

    const std::uint32_t *wRow[2];
    const float *sRow[2], *zRow[2];
#pragma unroll
    for (int h = 0; h < 2; ++h) {
        const long long r = laneRow(nWarp0, gid, h, a.N);
        wRow[h] = a.w + r * rw;
        sRow[h] = a.s + r * groups;
        zRow[h] = a.z + r * groups;
    }
    int tok[NT], tokOut[NT][2];
    tokenOffsets(tok, gid, q, rowsX, rs);
#pragma unroll
    for (int t = 0; t < NT; ++t)
#pragma unroll
        for (int c = 0; c < 2; ++c)
            tokOut[t][c] = 8 * t + 2 * q + c < rowsX ? 8 * t + 2 * q + c : rowsX - 1;
    float acc[NT][4], tmp[NT][4];
#pragma unroll
    for (int t = 0; t < NT; ++t)
#pragma unroll
        for (int r = 0; r < 4; ++r)
            acc[t][r] = 0.0f, tmp[t][r] = 0.0f;

    for (int p0 = b0; p0 < b1; p0 += P) {
        const int pc = b1 - p0 < P ? b1 - p0 : P;
        __syncthreads(); // the previous piece is consumed
        for (int i = threadIdx.x; i < rowsX * pc * 32; i += kWarps * 32) {
            const int r = i / (pc * 32), o = i - r * (pc * 32);
            const uint4 g =
                __ldg(reinterpret_cast<const uint4 *>(a.x + r * a.K + static_cast<long long>(p0) * 256 + 8 * o));
            xs[r * rs + o] = g;
            float s8 = bfLo(g.x);
            s8 += bfHi(g.x), s8 += bfLo(g.y), s8 += bfHi(g.y);
            s8 += bfLo(g.z), s8 += bfHi(g.z), s8 += bfLo(g.w), s8 += bfHi(g.w);
            part[r * P * 32 + o] = s8;
        }
        __syncthreads();
        for (int i = threadIdx.x; i < rowsX * pc * UPB; i += kWarps * 32) {
            const int r = i / (pc * UPB), un = i - r * (pc * UPB);
            const float *pp = part + r * P * 32 + un * (UK / 8);
            float s = pp[0];
            for (int j = 1; j < UK / 8; ++j)
                s += pp[j];
            xsum[r * P * UPB + un] = s;
        }
        __syncthreads();
        for (int bb = 0; bb < pc; bb += kAhead) {
            uint4 lo[kAhead][2];
            uint2 hi[kAhead][2];
            float sc[kAhead][2][UPB], zc[kAhead][2][UPB];
#pragma unroll
            for (int u = 0; u < kAhead; ++u) {
                if (bb + u >= pc)
                    break;
                const long long b = p0 + bb + u;
#pragma unroll
                for (int h = 0; h < 2; ++h) {
                    lo[u][h] = ldNc(wRow[h] + b * w3lr::kBlockWords + 4 * q);
                    hi[u][h] = ldNc2(wRow[h] + b * w3lr::kBlockWords + 16 + 2 * q);
#pragma unroll
                    for (int un = 0; un < UPB; ++un) {
                        const long long g = (b * w3lr::kBlockK + un * UK) / a.group;
                        sc[u][h][un] = __ldg(sRow[h] + g);
                        zc[u][h][un] = __ldg(zRow[h] + g);
                    }
                }
            }
#pragma unroll
            for (int u = 0; u < kAhead; ++u) {
                if (bb + u >= pc)
                    break;
#pragma unroll
                for (int pr = 0; pr < 8; ++pr) {
                    uint4 xb[NT];
#pragma unroll
                    for (int t = 0; t < NT; ++t)
                        xb[t] = xs[tok[t] + (bb + u) * 32 + 4 * pr];
#pragma unroll
                    for (int e = 0; e < 2; ++e) {
                        const int st = 2 * pr + e;
                        const std::uint32_t l0 = wordOf(lo[u][0], st >> 2), l1 = wordOf(lo[u][1], st >> 2);
                        const std::uint32_t h0 = st >> 3 ? hi[u][0].y : hi[u][0].x;
                        const std::uint32_t h1 = st >> 3 ? hi[u][1].y : hi[u][1].x;
                        const std::uint32_t a0 = codesOf(l0, h0, st, 0), a1 = codesOf(l1, h1, st, 0);
                        const std::uint32_t a2 = codesOf(l0, h0, st, 1), a3 = codesOf(l1, h1, st, 1);
#pragma unroll
                        for (int t = 0; t < NT; ++t)
                            mma16816(tmp[t], a0, a1, a2, a3, e ? xb[t].z : xb[t].x, e ? xb[t].w : xb[t].y);
                        if ((st + 1) % SPG == 0) { // the unit ends: acc += s·(Σ x·u − z·Σ x)
                            const int un = st / SPG, at = (bb + u) * UPB + un;
#pragma unroll
                            for (int t = 0; t < NT; ++t)
#pragma unroll
                                for (int r = 0; r < 4; ++r) {
                                    const float xsv = xsum[tokOut[t][r & 1] * P * UPB + at];
                                    acc[t][r] += sc[u][r >> 1][un] * (tmp[t][r] - zc[u][r >> 1][un] * xsv);
                                    tmp[t][r] = 0.0f;
                                }
                        }
                    }
                }
            }
        }
    }

    // The compensator (the first K slice only): wait for T, stage it, add Û[n, :]·T[m, :].
    if (a.rank > 0 && blockIdx.y == 0) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
        asm volatile("griddepcontrol.wait;\n" ::: "memory");
#endif
        __syncthreads(); // the X stage is consumed
        float *ts = reinterpret_cast<float *>(sm);
        for (int i = threadIdx.x; i < rowsX * a.rank; i += kWarps * 32)
            ts[i] = __ldcg(a.t + i);
        __syncthreads();
#pragma unroll
        for (int h = 0; h < 2; ++h) {
            const long long n = laneRow(nWarp0, gid, h, a.N);
            const float *ur = a.u + n * a.rank;
#pragma unroll
            for (int t = 0; t < NT; ++t) {
                float c0 = 0.0f, c1 = 0.0f;
                const float *t0 = ts + tokOut[t][0] * a.rank, *t1 = ts + tokOut[t][1] * a.rank;
                for (int j = 0; j < a.rank; ++j) {
                    const float uj = __ldg(ur + j);
                    c0 = fmaf(uj, t0[j], c0);
                    c1 = fmaf(uj, t1[j], c1);
                }
                acc[t][2 * h] += c0;
                acc[t][2 * h + 1] += c1;
            }
        }
    }

    // The outputs: d0, d1 (row gid; tokens 2tig, 2tig+1), d2, d3 (row gid + 8).
    float *ws = a.ws;
    storeSwapped(acc, nWarp0, gid, q, a.M, a.N, a.splitK, a.y, ws, [](float v, long long) { return v; });
    if (a.splitK == 1)
        return;
    // The last block of this n-block converts the sums and re-zeroes.
    unsigned *counter = a.counters + blockIdx.x;
    if (!splitKLastBlock(counter, a.splitK))
        return;
    const long long cols = (a.N - nBlock0) < kWarps * 16 ? a.N - nBlock0 : kWarps * 16;
    splitKConvert(ws, a.y, a.N, 0, a.M, nBlock0, cols, counter, blockDim.x);
}

/// T[m, j] = Σ_k x[m, k]·V̂[j, k] (FP32): a block per component j (j += gridDim.x), a thread's 8-k
/// pieces in order (fmaf), then the warps' shuffle trees and the 8 warps in order. Lets its
/// dependents launch at once.
__global__ void __launch_bounds__(256)
    tKernel(const __nv_bfloat16 *x, const float *v, float *t, long long M, long long K, int rank)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.launch_dependents;\n" ::: "memory");
#endif
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    __shared__ float red[8][kW3lrMaxM];
    for (int j = blockIdx.x; j < rank; j += gridDim.x) {
        const float *vr = v + static_cast<long long>(j) * K;
        float acc[kW3lrMaxM];
#pragma unroll
        for (int m = 0; m < kW3lrMaxM; ++m)
            acc[m] = 0.0f;
        // Four 8-k pieces a thread at a time, their V̂ loads issued together (the pre-kernel must end
        // within the GEMM's K loop, which waits for it only in its epilogue); the pieces in k order.
        for (long long k0 = 8LL * threadIdx.x; k0 < K; k0 += 4 * 8 * 256) {
            float4 va[4], vb[4];
#pragma unroll
            for (int q = 0; q < 4; ++q) {
                const long long k = k0 + q * 8 * 256;
                va[q] = k < K ? __ldg(reinterpret_cast<const float4 *>(vr + k)) : make_float4(0, 0, 0, 0);
                vb[q] = k < K ? __ldg(reinterpret_cast<const float4 *>(vr + k + 4)) : make_float4(0, 0, 0, 0);
            }
#pragma unroll
            for (int q = 0; q < 4; ++q) {
                const long long k = k0 + q * 8 * 256;
                if (k >= K)
                    break;
#pragma unroll
                for (int m = 0; m < kW3lrMaxM; ++m) {
                    if (m >= M)
                        break;
                    const uint4 g = __ldg(reinterpret_cast<const uint4 *>(x + m * K + k));
                    float s = acc[m];
                    s = fmaf(bfLo(g.x), va[q].x, s), s = fmaf(bfHi(g.x), va[q].y, s);
                    s = fmaf(bfLo(g.y), va[q].z, s), s = fmaf(bfHi(g.y), va[q].w, s);
                    s = fmaf(bfLo(g.z), vb[q].x, s), s = fmaf(bfHi(g.z), vb[q].y, s);
                    s = fmaf(bfLo(g.w), vb[q].z, s), s = fmaf(bfHi(g.w), vb[q].w, s);
                    acc[m] = s;
                }
            }
        }
#pragma unroll
        for (int m = 0; m < kW3lrMaxM; ++m) {
            if (m >= M)
                break;
            float s = acc[m];
#pragma unroll
            for (int off = 16; off > 0; off >>= 1)
                s += __shfl_down_sync(0xFFFFFFFFu, s, off);
            if (lane == 0)
                red[warp][m] = s;
        }
        __syncthreads();
        if (threadIdx.x < M) {
            float s = red[0][threadIdx.x];
            for (int w = 1; w < 8; ++w)
                s += red[w][threadIdx.x];
            t[threadIdx.x * rank + j] = s;
        }
        __syncthreads(); // red is read before the next component overwrites it
    }
}

using KernelFn = void (*)(Args);

template <int NT> KernelFn bySteps(int spg)
{
    return spg == 4 ? &w3Kernel<NT, 4> : spg == 8 ? &w3Kernel<NT, 8> : &w3Kernel<NT, 16>;
}

/// The unfused route's weight, one element a thread: bf16(s·(u − z) + Σ_j Û[n, j]·V̂[j, k]).
__global__ void dequantKernel(const std::uint32_t *w, const float *s, const float *z, const float *u, const float *v,
                              long long N, long long K, long long group, int rank, __nv_bfloat16 *out)
{
    const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i >= N * K)
        return;
    const long long n = i / K, k = i - n * K, g = n * (K / group) + k / group;
    const unsigned c =
        w3lr::codeAt(w + n * w3lr::rowWords(K) + (k / w3lr::kBlockK) * w3lr::kBlockWords, static_cast<int>(k % 256));
    float val = __ldg(s + g) * (static_cast<float>(c) - __ldg(z + g));
    for (int j = 0; j < rank; ++j)
        val = fmaf(__ldg(u + n * rank + j), __ldg(v + j * K + k), val);
    out[i] = __float2bfloat16_rn(val);
}

#endif // QS_HAS_MMA

int stepsPerUnit(long long group)
{
    return group == 64 ? 4 : group == 128 ? 8 : 16;
}

bool deviceHasPdl()
{
    static std::atomic<int> cached{-1};
    int v = cached.load(std::memory_order_relaxed);
    if (v < 0) {
        v = 0;
#if defined(QS_HAS_MMA)
        int dev = 0, major = 0;
        v = cudaGetDevice(&dev) == cudaSuccess &&
                    cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev) == cudaSuccess && major >= 9
                ? 1
                : 0;
#endif
        cached.store(v, std::memory_order_relaxed);
    }
    return v == 1;
}

} // namespace

bool w3lrFusedBuilt()
{
#if defined(QS_HAS_MMA)
    return true;
#else
    return false;
#endif
}

std::string w3lrRefusal(long long m, long long k, long long group, int rank)
{
    if (m < 1 || m > kW3lrMaxM)
        return "fused W3A16 runs 1 ≤ M ≤ 16 (the decode regime), got M = " + std::to_string(m);
    if (k <= 0 || k % w3lr::kBlockK != 0)
        return "fused W3A16 needs K a multiple of 256, got " + std::to_string(k);
    if (group <= 0 || k % group != 0 || !(group == 64 || group == 128 || group % w3lr::kBlockK == 0))
        return "fused W3A16 needs group 64, 128 or a multiple of 256 dividing K, got " + std::to_string(group);
    if (rank < 0 || rank > kW3lrMaxRank)
        return "fused W3A16's compensator rank must lie in [0, 256], got " + std::to_string(rank);
    return {};
}

std::size_t w3lrWorkspaceBytes(const W3lrProblem &p)
{
    return static_cast<std::size_t>(4 * (p.m * p.n + p.m * std::max(p.rank, 0)));
}

std::size_t w3lrCounterBytes(const W3lrProblem &p)
{
    return static_cast<std::size_t>(4 * ((p.n + kWarps * 16 - 1) / (kWarps * 16)));
}

W3lrLaunch w3lrFused(const W3lrProblem &p, const W3lrTiling &tiling, void *workspace, void *counters, void *stream)
{
    const std::string why = w3lrRefusal(p.m, p.k, p.group, p.rank);
    if (!why.empty())
        throw GpuError(why);
    if (p.rank > 0 && !workspace)
        throw GpuError("fused W3A16 with a compensator needs the workspace (T = X·V̂ᵀ lives there)");
    W3lrLaunch l;
    const int nt = p.m <= 8 ? 1 : 2;
    const int rowsX = static_cast<int>(std::min<long long>(p.m, 8LL * nt));
    const long long nBlocks = (p.n + kWarps * 16 - 1) / (kWarps * 16);
    const long long blocks = p.k / w3lr::kBlockK;
    const int spg = stepsPerUnit(p.group), upb = 16 / spg;
    // A piece of b blocks: the X stage, the 8-sums, the unit sums.
    auto stageBytes = [&](long long b) { return rowsX * ((b * 32 + 4) * 16 + b * 32 * 4 + b * upb * 4); };
    long long pieceMax = 1;
    while (pieceMax < blocks && stageBytes(pieceMax + 1) <= kStageBudget)
        ++pieceMax;
    // The pre-kernel's grid: at most 32 blocks (fewer GEMM slots taken; up to 4 components a block at r = 128).
    const int preBlocks = std::min(std::max(p.rank, 1), 32);
    long long split = tiling.splitK;
#if defined(QS_HAS_MMA)
    const KernelFn fn = nt == 1 ? bySteps<1>(spg) : bySteps<2>(spg);
    if (split <= 0) {
        static std::atomic<int> occupancy[3][17][17] = {};
        const std::size_t smem = static_cast<std::size_t>(stageBytes(std::min(pieceMax, blocks)));
        const int perSm = w4a16detail::residentBlocks(occupancy[nt][spg][rowsX], fn, kWarps * 32, smem);
        // The pre-kernel's blocks run beside the GEMM (PDL) and each takes a GEMM block's slot on
        // its SM: the fewest slices that fill 85 % of the remaining slots' last wave.
        const long long slots = std::max<long long>(1, static_cast<long long>(perSm) * w4a16detail::smCount() -
                                                           (p.rank > 0 ? preBlocks : 0));
        const long long most = std::max(1LL, std::min(blocks / 4, 64LL));
        double bestEff = -1;
        for (long long sk = 1; sk <= most; ++sk) {
            const double b = static_cast<double>(nBlocks * sk), waves = std::ceil(b / static_cast<double>(slots));
            const double eff = b / (waves * static_cast<double>(slots));
            if (eff > bestEff + 1e-9)
                bestEff = eff, split = sk;
            if (eff >= 0.85)
                break;
        }
    }
#endif
    split = evenSplit(split, blocks);
    if (!workspace || !counters)
        split = 1;
    const long long per = (blocks + split - 1) / split;
    const long long piece = std::min(pieceMax, per);
    l.splitK = static_cast<int>(split);
    l.blocks = static_cast<int>(nBlocks * split);
    l.tokenTiles = nt;
    l.preKernel = p.rank > 0;
    l.pdl = p.rank > 0 && (tiling.pdl > 0 || (tiling.pdl == 0 && deviceHasPdl()));
#if defined(QS_HAS_MMA)
    const auto s = static_cast<cudaStream_t>(stream);
    float *t = p.rank > 0 ? static_cast<float *>(workspace) + p.m * p.n : nullptr;
    if (p.rank > 0) {
        tKernel<<<static_cast<unsigned>(preBlocks), 256, 0, s>>>(static_cast<const __nv_bfloat16 *>(p.x), p.v, t, p.m,
                                                                 p.k, p.rank);
        QS_GPU_CHECK(cudaGetLastError());
    }
    const Args a{p.packed,
                 p.scales,
                 p.zeros,
                 static_cast<const __nv_bfloat16 *>(p.x),
                 static_cast<__nv_bfloat16 *>(p.y),
                 static_cast<float *>(workspace),
                 static_cast<unsigned *>(counters),
                 p.u,
                 t,
                 p.m,
                 p.n,
                 p.k,
                 p.group,
                 p.rank,
                 l.splitK,
                 static_cast<int>(piece)};
    const std::size_t smem =
        static_cast<std::size_t>(std::max<long long>(stageBytes(piece), 4LL * rowsX * std::max(p.rank, 0)));
    const dim3 grid(static_cast<unsigned>(nBlocks), static_cast<unsigned>(split));
    bool launched = false;
    if (l.pdl) {
        cudaLaunchConfig_t cfg = {};
        cfg.gridDim = grid;
        cfg.blockDim = dim3(kWarps * 32);
        cfg.dynamicSmemBytes = smem;
        cfg.stream = s;
        cudaLaunchAttribute attr[1];
        attr[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
        attr[0].val.programmaticStreamSerializationAllowed = 1;
        cfg.attrs = attr;
        cfg.numAttrs = 1;
        if (cudaLaunchKernelEx(&cfg, fn, a) == cudaSuccess)
            launched = true;
        else
            (void)cudaGetLastError(); // the attribute is unavailable: plain stream order below
        l.pdl = launched;
    }
    if (!launched)
        fn<<<grid, kWarps * 32, smem, s>>>(a);
    QS_GPU_CHECK(cudaGetLastError());
#else
    (void)workspace, (void)counters, (void)stream, (void)piece;
#endif
    return l;
}

void w3lrDequantBf16(const W3lrProblem &p, void *outBf16, void *stream)
{
#if !defined(QS_HAS_MMA)
    (void)p, (void)outBf16, (void)stream;
    throw GpuError("w3lrDequantBf16: the W3A16 GEMM kernels are CUDA only (not built for HIP)");
#else
    const long long total = p.n * p.k;
    const unsigned grid = static_cast<unsigned>((total + 255) / 256);
    dequantKernel<<<grid, 256, 0, static_cast<cudaStream_t>(stream)>>>(
        p.packed, p.scales, p.zeros, p.u, p.v, p.n, p.k, p.group, p.rank, static_cast<__nv_bfloat16 *>(outBf16));
    QS_GPU_CHECK(cudaGetLastError());
#endif
}

} // namespace quantscope::gpu::launch
