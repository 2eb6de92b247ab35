// SPDX-License-Identifier: MIT
// The fused W4A8 GEMMs (kernels_w4a8.h; issue 43): M ≤ 16, the operands swapped as in the W4A16
// small-M kernel (gemm_w4a16_small.cu): Yᵀ[N, M] = Ŵ·X̂ᵀ, 16 rows of W the mma's M (its A operand,
// built in registers from the packed nibbles), the tokens its n = 8 (one n8 tile up to M = 8, two
// up to 16). 4 warps a block, 16 rows of W a warp; split K through a workspace as W4A16's.
//
// Fragments (PTX ISA "Matrix Fragments for mma.m16n8k32", 8-bit A/B, the same for .s8 and .e4m3):
// lane = 4·gid + tig. A (16×32 row): a0 = (row gid, k 4tig … 4tig+3), a1 = (row gid+8, same k),
// a2 = (row gid, k 16+4tig … +3), a3 = (row gid+8, same). B (32×8 col): b0 = (k 4tig … +3; token
// gid), b1 = (k 16+4tig … +3). D: d0, d1 = (row gid; tokens 2tig, 2tig+1), d2, d3 = (row gid+8).
//
// The k order. A k32 step must lie inside one group (g32: the INT32 sum of one group is scaled by
// its own s), so step w (0…3) of a chunk of 128 k covers k [32w, 32w + 32) and lane tig supplies
// the octet k₀ = 128·ch + 32w + 8·tig … k₀ + 7: logical k (4tig + j) is k₀ + j and (16 + 4tig + j)
// is k₀ + 4 + j, for W and X alike. W: the octet is the 32-bit word at byte 64·ch + 16w + 4·tig
// of the row (nibble j = code of k₀ + j): a0/a2 = its nibbles 0–3 / 4–7 as bytes (w4a8_math.h);
// the four lanes of a row read 16 contiguous bytes a step (L1-cached 32-bit loads; the next step
// takes the other half of the sector). X: b0/b1 = the 8 bytes at k₀ of the token's codes, one
// 64-bit load, no permutation.
//
// INT8: u = nibble XOR 8 = q + 8 ∈ [0, 15] is the A operand; per piece p of the K slice inside
// one group (g32: one step; g64: two; g ≥ 128: the group's chunks in the slice) the mma sums
// Σ u·x exactly in INT32, then v = Σ u·x − (z + 8)·Σ x = Σ (q − z)·x (exact INT32 for K ≤ 65536),
// acc += s·float(v) in FP32. Σ x of the piece comes from the B fragments already in registers:
// two dp4a give a lane's 8 codes, two xor-shuffles the quad's 32 k (token 8t + gid), two shuffles
// bring tokens 2tig and 2tig + 1 (the lane's D columns) from the quads gid = 2tig, 2tig + 1. E4M3: the A
// operand is q − z itself (FP16 (1024 + u) − (1032 + z), exact, cvt to E4M3, exact for
// z ∈ [−9, 8]); the mma sums into an FP32 piece sum for at most one chunk (DeepSeek-style
// promotion: the FP8 tensor-core sum never spans more than 4 steps), acc += s·sum. At the end of
// the slice, y = s_tok·acc (split K: FP32 atomics into the workspace, the last block converts to
// BF16 and re-zeroes). Rows of W ≥ N read row N − 1 and tokens ≥ M token M − 1: their D entries
// depend on nothing else and are not stored.
#define QS_HD __host__ __device__
#include "w4a8_math.h"

#include "w4a16_device.cuh"

#include "kernels_w4a8.h"

#include <algorithm>
#include <atomic>

#include "qs_gpu_compat.h"

namespace quantscope::gpu::launch {

namespace w4a8detail { // the streaming kernel (gemm_w4a8_stream.cu)
/// Whether the streaming kernel runs p: w4a8TileRefusal(p) empty, without building its strings.
bool tileRuns(const W4a8Problem &p);
W4a8Launch streamed(const W4a8Problem &p, const W4a8Tiling &tiling, void *workspace, void *counters, void *stream);
} // namespace w4a8detail

namespace {

namespace gm = quantscope::gpumath;
using w4a16detail::chooseSplit;
using w4a16detail::launchSlices;

constexpr int kW8Warps = 4;       ///< warps a block, 16 rows of W each
constexpr int kPrepThreads = 512; ///< X's quantizer: threads a token

#if defined(QS_HAS_MMA) // HIP: the host side only (the launchers refuse)

constexpr int kMaxChunks = static_cast<int>(kW4a8FusedMaxK / 128); ///< chunks of 128 k at the largest K

using w4a16detail::checkRecord;

struct A8 {
    const std::uint8_t *w;
    const float *s;
    const std::int8_t *z;
    const std::uint8_t *x;
    const float *sx;
    __nv_bfloat16 *y;
    float *ws;
    unsigned *counters;
    long long M, N, K, group;
    int splitK;
};

A8 argsOf(const W4a8Problem &p, void *workspace, void *counters, int splitK)
{
    return A8{p.packed,
              p.scales,
              p.zeros,
              static_cast<const std::uint8_t *>(p.xq),
              p.xScale,
              static_cast<__nv_bfloat16 *>(p.y),
              static_cast<float *>(workspace),
              static_cast<unsigned *>(counters),
              p.m,
              p.n,
              p.k,
              p.group,
              splitK};
}

using w4a16detail::laneRow;
using w4a16detail::splitKConvert;
using w4a16detail::splitKLastBlock;
using w4a16detail::storeSwapped;

using w4a16detail::mmaE4m3;
using w4a16detail::mmaS8;

/// NT n8 tiles of tokens; U chunks of 128 k of W loaded ahead; GPC groups a chunk (4: g32, 2: g64,
/// 1: a multiple of 128).
template <bool Fp8, int NT, int U, int GPC> __global__ void __launch_bounds__(kW8Warps * 32) w4a8Kernel(A8 a)
{
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int gid = lane >> 2, q = lane & 3;
    const long long nBlock0 = static_cast<long long>(blockIdx.x) * (kW8Warps * 16);
    const long long nWarp0 = nBlock0 + warp * 16;
    const long long halfK = a.K / 2;
    const int groups = static_cast<int>(a.K / a.group), chunks = static_cast<int>(a.K / 128);
    const int cpg = GPC == 1 ? static_cast<int>(a.group / 128) : 1;
    const int per = (chunks + a.splitK - 1) / a.splitK;
    const int c0 = static_cast<int>(blockIdx.y) * per, c1 = c0 + per < chunks ? c0 + per : chunks;

    const std::uint8_t *wRow[2];
    int sRow[2];
#pragma unroll
    for (int h = 0; h < 2; ++h) {
        const long long r = laneRow(nWarp0, gid, h, a.N);
        wRow[h] = a.w + r * halfK + 4 * q;
        sRow[h] = static_cast<int>(r) * groups;
    }
    const std::uint8_t *xRow[NT]; // the B fragment's token 8t + gid
#pragma unroll
    for (int t = 0; t < NT; ++t) {
        const long long tb = 8 * t + gid < a.M ? 8 * t + gid : a.M - 1;
        xRow[t] = a.x + tb * a.K + 8 * q;
    }

    float acc[NT][4], tmp[NT][4];
    int iacc[NT][4], xsum[NT][2]; // INT8: the open piece's Σ u·x and Σ x of the D columns' tokens
#pragma unroll
    for (int t = 0; t < NT; ++t) {
#pragma unroll
        for (int r = 0; r < 4; ++r)
            acc[t][r] = 0.0f, tmp[t][r] = 0.0f, iacc[t][r] = 0;
        xsum[t][0] = xsum[t][1] = 0;
    }

    for (int c = c0; c < c1; c += U) {
        std::uint32_t raw[U][2][4];
        float sc[U][2][GPC];
        int zq[U][2][GPC];
#pragma unroll
        for (int u = 0; u < U; ++u) {
            const int ch = c + u;
            if (ch >= c1)
                break;
#pragma unroll
            for (int h = 0; h < 2; ++h) {
#pragma unroll
                for (int w = 0; w < 4; ++w)
                    raw[u][h][w] = __ldg(reinterpret_cast<const unsigned *>(wRow[h] + 64LL * ch + 16 * w));
#pragma unroll
                for (int j = 0; j < GPC; ++j) {
                    const int g = GPC == 1 ? ch / cpg : ch * GPC + j;
                    sc[u][h][j] = __ldg(a.s + sRow[h] + g);
                    zq[u][h][j] = __ldg(a.z + sRow[h] + g);
                }
            }
        }
#pragma unroll
        for (int u = 0; u < U; ++u) {
            const int ch = c + u;
            if (ch >= c1)
                break;
            std::uint32_t zz[2][GPC];
#pragma unroll
            for (int h = 0; h < 2; ++h)
#pragma unroll
                for (int j = 0; j < GPC; ++j)
                    zz[h][j] = Fp8 ? gm::w4a8Fp16ZeroPair(zq[u][h][j]) : 0u;
#pragma unroll
            for (int w = 0; w < 4; ++w) {
                const int j = w / (4 / GPC);
                std::uint32_t lo[2], hi[2];
#pragma unroll
                for (int h = 0; h < 2; ++h) {
                    if (Fp8)
                        gm::w4a8Fp8Operand(raw[u][h][w], zz[h][j], lo[h], hi[h]);
                    else
                        gm::w4a8Int8Operand(raw[u][h][w], lo[h], hi[h]);
                }
#pragma unroll
                for (int t = 0; t < NT; ++t) {
                    const uint2 b = __ldg(reinterpret_cast<const uint2 *>(xRow[t] + 128LL * ch + 32 * w));
                    if (Fp8) {
                        mmaE4m3(tmp[t], lo[0], lo[1], hi[0], hi[1], b.x, b.y);
                    } else {
                        mmaS8(iacc[t], lo[0], lo[1], hi[0], hi[1], b.x, b.y);
                        // Σ x of the step for the D columns' tokens: the lane's 8 codes (token
                        // 8t + gid), the quad's sum (the step's 32 k), then tokens 2tig, 2tig + 1
                        // from the quads gid = 2tig, 2tig + 1. Exact integers.
                        int part =
                            __dp4a(static_cast<int>(b.x), 0x01010101, __dp4a(static_cast<int>(b.y), 0x01010101, 0));
                        part += __shfl_xor_sync(0xffffffffu, part, 1);
                        part += __shfl_xor_sync(0xffffffffu, part, 2);
                        xsum[t][0] += __shfl_sync(0xffffffffu, part, 8 * q);
                        xsum[t][1] += __shfl_sync(0xffffffffu, part, 8 * q + 4);
                    }
                }
                const bool groupEnd =
                    GPC == 4 || (GPC == 2 && (w & 1) != 0) || (GPC == 1 && w == 3 && (ch + 1) % cpg == 0);
                const bool flush = groupEnd || (ch + 1 == c1 && w == 3) || (Fp8 && w == 3);
                if (!flush)
                    continue;
                if (Fp8) {
#pragma unroll
                    for (int t = 0; t < NT; ++t)
#pragma unroll
                        for (int r = 0; r < 4; ++r) {
                            acc[t][r] += sc[u][r >> 1][j] * tmp[t][r];
                            tmp[t][r] = 0.0f;
                        }
                } else {
#pragma unroll
                    for (int t = 0; t < NT; ++t) {
#pragma unroll
                        for (int r = 0; r < 4; ++r) {
                            const int v = iacc[t][r] - (zq[u][r >> 1][j] + 8) * xsum[t][r & 1];
                            acc[t][r] += sc[u][r >> 1][j] * static_cast<float>(v);
                            iacc[t][r] = 0;
                        }
                        xsum[t][0] = xsum[t][1] = 0;
                    }
                }
            }
        }
    }

    // The outputs: d0, d1 (row gid; tokens 2tig, 2tig+1), d2, d3 (row gid + 8), times s_tok.
    storeSwapped(acc, nWarp0, gid, q, a.M, a.N, a.splitK, a.y, a.ws,
                 [&](float v, long long m) { return __ldg(a.sx + m) * v; });
    if (a.splitK == 1)
        return;
    // The last block of this n-block converts the sums and re-zeroes.
    unsigned *counter = a.counters + blockIdx.x;
    if (!splitKLastBlock(counter, a.splitK))
        return;
    const long long cols = (a.N - nBlock0) < kW8Warps * 16 ? a.N - nBlock0 : kW8Warps * 16;
    splitKConvert(a.ws, a.y, a.N, 0, a.M, nBlock0, cols, counter, blockDim.x);
}

using KernelFn = void (*)(A8);

template <bool Fp8, int NT, int U> KernelFn byGroups(int gpc)
{
    return gpc == 4 ? &w4a8Kernel<Fp8, NT, U, 4> : gpc == 2 ? &w4a8Kernel<Fp8, NT, U, 2> : &w4a8Kernel<Fp8, NT, U, 1>;
}

/// The instantiations: INT8 / E4M3 × one or two n8 tiles × 2 or 4 chunks ahead × g32, g64, ≥ 128.
template <bool Fp8> KernelFn kernelFor(int nt, int u, int gpc)
{
    if (nt == 1)
        return u == 4 ? byGroups<Fp8, 1, 4>(gpc) : byGroups<Fp8, 1, 2>(gpc);
    return u == 4 ? byGroups<Fp8, 2, 4>(gpc) : byGroups<Fp8, 2, 2>(gpc);
}

/// Token m's chunk sums (kernels_w4a8.h w4a8XSums: sums[16·c + m] = Σ of the codes at k < 128·c),
/// by the whole block: a thread's chunks summed by dp4a (16-byte loads, not the read-only path: the
/// quantizer calls this on codes its block has just written), then warp 0's prefix scan in rounds
/// of 32 chunks. row: the token's K codes (16-byte aligned).
__device__ void chunkSums(const std::uint8_t *row, long long K, long long m, int *sums)
{
    __shared__ int part[kMaxChunks];
    const int chunks = static_cast<int>(K / 128), tid = static_cast<int>(threadIdx.x);
    for (int c = tid; c < chunks; c += blockDim.x) {
        const uint4 *p = reinterpret_cast<const uint4 *>(row + 128ll * c);
        int v = 0;
        for (int i = 0; i < 8; ++i) {
            const uint4 w = p[i];
            v = gm::byteSum16(w.x, w.y, w.z, w.w, v);
        }
        part[c] = v;
    }
    __syncthreads();
    if (tid >= 32)
        return;
    int run = 0;
    if (tid == 0)
        sums[m] = 0;
    for (int c0 = 0; c0 < chunks; c0 += 32) {
        int v = c0 + tid < chunks ? part[c0 + tid] : 0;
        for (int o = 1; o < 32; o <<= 1) { // inclusive scan of the round
            const int u = __shfl_up_sync(0xffffffffu, v, o);
            v += tid >= o ? u : 0;
        }
        if (c0 + tid < chunks)
            sums[16ll * (c0 + tid + 1) + m] = run + v;
        run += __shfl_sync(0xffffffffu, v, 31);
    }
}

__global__ void __launch_bounds__(kPrepThreads) xSumsKernel(const std::uint8_t *codes, long long K, int *sums)
{
    chunkSums(codes + blockIdx.x * K, K, blockIdx.x, sums);
}

/// One block a token: the largest |x|, the scale and the codes (w4a8_math.h). Vec: 8 elements a
/// thread per step (16-byte loads, 8-byte stores; K a multiple of 8), the same per-element functions.
/// sums (INT8 only; else null): the codes' chunk sums (chunkSums) once the block has written them.
template <bool Fp8, bool Vec>
__global__ void __launch_bounds__(kPrepThreads)
    xQuantKernel(const __nv_bfloat16 *in, long long K, void *codes, float *scales, int *sums)
{
    __shared__ float red[kPrepThreads / 32];
    const long long m = blockIdx.x;
    const int tid = threadIdx.x;
    const __nv_bfloat16 *x = in + m * K;
    float amax = 0.0f;
    if (Vec) {
        for (long long k8 = tid; k8 < K / 8; k8 += kPrepThreads) {
            const uint4 v = __ldg(reinterpret_cast<const uint4 *>(x) + k8);
            const std::uint32_t w[4] = {v.x, v.y, v.z, v.w};
            for (int i = 0; i < 4; ++i)
                amax = fmaxf(amax, fmaxf(fabsf(gm::bf16ToF32(w[i] & 0xFFFFu)), fabsf(gm::bf16ToF32(w[i] >> 16))));
        }
    } else {
        for (long long k = tid; k < K; k += kPrepThreads)
            amax = fmaxf(amax, fabsf(__bfloat162float(x[k])));
    }
    for (int o = 16; o > 0; o >>= 1)
        amax = fmaxf(amax, __shfl_xor_sync(0xffffffffu, amax, o));
    if ((tid & 31) == 0)
        red[tid >> 5] = amax;
    __syncthreads();
    amax = red[0];
    for (int i = 1; i < kPrepThreads / 32; ++i)
        amax = fmaxf(amax, red[i]);
    const float s = gm::w4a8TokenScale(amax, Fp8);
    if (tid == 0)
        scales[m] = s;
    auto code = [&](float v) -> std::uint32_t {
        return Fp8 ? gm::w4a8E4m3Code(v, s) : static_cast<std::uint8_t>(gm::w4a8Int8Code(v, s));
    };
    std::uint8_t *out = static_cast<std::uint8_t *>(codes) + m * K;
    if (Vec) {
        for (long long k8 = tid; k8 < K / 8; k8 += kPrepThreads) {
            const uint4 v = __ldg(reinterpret_cast<const uint4 *>(x) + k8);
            const std::uint32_t w[4] = {v.x, v.y, v.z, v.w};
            std::uint32_t c[2] = {0u, 0u};
            for (int i = 0; i < 4; ++i)
                c[i >> 1] |= (code(gm::bf16ToF32(w[i] & 0xFFFFu)) | (code(gm::bf16ToF32(w[i] >> 16)) << 8))
                             << (16 * (i & 1));
            reinterpret_cast<uint2 *>(out)[k8] = make_uint2(c[0], c[1]);
        }
    } else {
        for (long long k = tid; k < K; k += kPrepThreads)
            out[k] = static_cast<std::uint8_t>(code(__bfloat162float(x[k])));
    }
    if (!Fp8 && sums) {
        __syncthreads(); // the block's codes are written and visible to the block
        chunkSums(out, K, m, sums);
    }
}

/// One warp per output: the FP64 reference from the codes (lanes striding K, a warp sum).
__global__ void checkKernel(A8 a, bool fp8, double coef, unsigned long long *worst, unsigned long long *count)
{
    const long long warpId = (blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x) >> 5;
    const int lane = threadIdx.x & 31;
    if (warpId >= a.M * a.N)
        return; // whole warps: blockDim is a multiple of 32
    const long long m = warpId / a.N, n = warpId - m * a.N;
    const long long groups = a.K / a.group;
    double ref = 0, mag = 0;
    for (long long k = 2 * lane; k < a.K; k += 64) {
        const std::uint8_t b = a.w[n * (a.K / 2) + k / 2];
        for (int h = 0; h < 2; ++h) {
            int qv = h ? b >> 4 : b & 0xF;
            qv = qv >= 8 ? qv - 16 : qv;
            const long long g = n * groups + (k + h) / a.group;
            const double w = static_cast<double>(a.s[g]) * static_cast<double>(qv - a.z[g]);
            const std::uint8_t c = a.x[m * a.K + k + h];
            const double xv =
                fp8 ? static_cast<double>(gm::decodeE4m3(c)) : static_cast<double>(static_cast<std::int8_t>(c));
            const double p = xv * w;
            ref += p;
            mag += fabs(p);
        }
    }
    checkRecord(ref, mag, coef, a.sx + m, a.y[m * a.N + n], worst, count);
}

#endif // QS_HAS_MMA

} // namespace

bool w4a8FusedBuilt()
{
#if defined(QS_HAS_MMA)
    return true;
#else
    return false;
#endif
}

std::string w4a8FusedRefusal(bool fp8, long long m, long long k, long long group)
{
    const std::string what = fp8 ? "fused W4A8-FP8" : "fused W4A8-INT8";
    if (!w4a8FusedBuilt())
        return what + ": not built for HIP (no mma.sync)";
    if (m < 1 || m > kW4a8FusedMaxM)
        return what + " runs M ≤ " + std::to_string(kW4a8FusedMaxM) + " (M = " + std::to_string(m) + ")";
    if (k < 128 || k % 128 != 0 || k > kW4a8FusedMaxK)
        return what + " needs K a positive multiple of 128 up to " + std::to_string(kW4a8FusedMaxK) +
               " (K = " + std::to_string(k) + ")";
    if (!(group == 32 || group == 64 || (group > 0 && group % 128 == 0 && k % group == 0)))
        return what + " needs group 32, 64 or a multiple of 128 dividing K (group = " + std::to_string(group) +
               ", K = " + std::to_string(k) + ")";
    return "";
}

std::string w4a8ZerosRefusal(bool fp8, const std::int8_t *zeros, std::size_t count)
{
    if (!fp8)
        return "";
    for (std::size_t i = 0; i < count; ++i)
        if (zeros[i] < gm::kW4a8Fp8ZeroMin || zeros[i] > gm::kW4a8Fp8ZeroMax)
            return "fused W4A8-FP8 needs zero points in [−9, 8] (q − z in [−16, 16], exact in E4M3); zero point " +
                   std::to_string(static_cast<int>(zeros[i])) + " at " + std::to_string(i);
    return "";
}

std::size_t w4a8WorkspaceBytes(const W4a8Problem &p)
{
    return sizeof(float) * static_cast<std::size_t>(std::max(p.m, 0LL) * std::max(p.n, 0LL));
}

std::size_t w4a8CounterBytes(const W4a8Problem &p)
{
    return sizeof(unsigned) * static_cast<std::size_t>(std::max(1LL, (p.n + kW8Warps * 16 - 1) / (kW8Warps * 16)));
}

namespace {
/// Why the chunk sums cannot be made for these codes ("" when they can).
std::string xSumsRefusal(long long m, long long k, const void *codes)
{
    if (m < 1 || m > kW4a8FusedMaxM) // the sums' layout holds kW4a8FusedMaxM tokens a chunk
        return "X's chunk sums: M = " + std::to_string(m) + " outside [1, " + std::to_string(kW4a8FusedMaxM) + "]";
    if (k < 128 || k % 128 != 0 || k > kW4a8FusedMaxK)
        return "X's chunk sums: K = " + std::to_string(k) + " is not a multiple of 128 in [128, " +
               std::to_string(kW4a8FusedMaxK) + "]";
    if (reinterpret_cast<std::uintptr_t>(codes) % 16 != 0)
        return "X's chunk sums read the codes 16 bytes at a time: they must be 16-byte aligned";
    return "";
}
} // namespace

std::size_t w4a8XSumsBytes(long long k)
{
    return sizeof(int) * 16 * static_cast<std::size_t>(std::max(k, 0LL) / 128 + 1);
}

void w4a8XSums(const void *codes, long long m, long long k, int *sums, void *stream)
{
    if (const std::string why = xSumsRefusal(m, k, codes); !why.empty())
        throw GpuError(why);
#if !defined(QS_HAS_MMA)
    (void)sums, (void)stream;
    throw GpuError(w4a8FusedRefusal(false, m, k, 128));
#else
    xSumsKernel<<<static_cast<unsigned>(m), kPrepThreads, 0, static_cast<cudaStream_t>(stream)>>>(
        static_cast<const std::uint8_t *>(codes), k, sums);
    QS_GPU_CHECK(cudaGetLastError());
#endif
}

void w4a8QuantizeX(const void *xBf16, long long m, long long k, bool fp8, void *codes, float *scales, int *sums,
                   void *stream)
{
    if (m <= 0 || k <= 0)
        return;
    if (sums && fp8)
        throw GpuError("X's chunk sums are the INT8 path's: E4M3 codes have none");
    if (sums)
        if (const std::string why = xSumsRefusal(m, k, codes); !why.empty())
            throw GpuError(why);
#if !defined(QS_HAS_MMA)
    (void)xBf16, (void)codes, (void)scales, (void)stream;
    throw GpuError(w4a8FusedRefusal(fp8, m, k, 128));
#else
    const auto s = static_cast<cudaStream_t>(stream);
    const auto *x = static_cast<const __nv_bfloat16 *>(xBf16);
    const bool vec = k % 8 == 0 && reinterpret_cast<std::uintptr_t>(xBf16) % 16 == 0 &&
                     reinterpret_cast<std::uintptr_t>(codes) % 8 == 0;
    const unsigned grid = static_cast<unsigned>(m);
    if (fp8 && vec)
        xQuantKernel<true, true><<<grid, kPrepThreads, 0, s>>>(x, k, codes, scales, nullptr);
    else if (fp8)
        xQuantKernel<true, false><<<grid, kPrepThreads, 0, s>>>(x, k, codes, scales, nullptr);
    else if (vec)
        xQuantKernel<false, true><<<grid, kPrepThreads, 0, s>>>(x, k, codes, scales, sums);
    else
        xQuantKernel<false, false><<<grid, kPrepThreads, 0, s>>>(x, k, codes, scales, sums);
    QS_GPU_CHECK(cudaGetLastError());
#endif
}

W4a8Launch w4a8Fused(const W4a8Problem &p, const W4a8Tiling &tiling, void *workspace, void *counters, void *stream)
{
    if (const std::string why = w4a8FusedRefusal(p.fp8, p.m, p.k, p.group); !why.empty())
        throw GpuError(why);
    W4a8Launch l;
    if (p.n <= 0)
        return l;
    if (tiling.kernel == 2 || (tiling.kernel == 0 && w4a8detail::tileRuns(p)))
        return w4a8detail::streamed(p, tiling, workspace, counters, stream); // throws with the reason if refused
    const int nt = p.m <= 8 ? 1 : 2;
    const int u = tiling.chunksAhead >= 4 ? 4 : 2;
    const int gpc = p.group == 32 ? 4 : p.group == 64 ? 2 : 1;
    const long long nBlocks = (p.n + kW8Warps * 16 - 1) / (kW8Warps * 16);
    const long long chunks = p.k / 128;
    long long split = tiling.splitK;
#if defined(QS_HAS_MMA)
    const KernelFn fn = p.fp8 ? kernelFor<true>(nt, u, gpc) : kernelFor<false>(nt, u, gpc);
    if (split <= 0) {
        // Resident blocks of this instantiation (asked once each: the launch's host time is timed).
        static std::atomic<int> occupancy[2][3][5][5] = {};
        const int perSm = w4a16detail::residentBlocks(occupancy[p.fp8 ? 1 : 0][nt][u][gpc], fn, kW8Warps * 32, 0);
        split = chooseSplit(perSm, nBlocks, chunks);
    }
#endif
    split = launchSlices(split, chunks, workspace, counters); // ⌈chunks / split⌉ chunks a slice, no empty slice
    l.splitK = static_cast<int>(split);
    l.blocks = static_cast<int>(nBlocks * split);
    l.tokenTiles = nt;
    l.chunksAhead = u;
#if defined(QS_HAS_MMA)
    const dim3 grid(static_cast<unsigned>(nBlocks), static_cast<unsigned>(split));
    fn<<<grid, kW8Warps * 32, 0, static_cast<cudaStream_t>(stream)>>>(argsOf(p, workspace, counters, l.splitK));
    QS_GPU_CHECK(cudaGetLastError());
#else
    (void)workspace, (void)counters, (void)stream;
#endif
    return l;
}

void w4a8CheckFp64(const W4a8Problem &p, double *worstDev, unsigned long long *countDev, void *stream)
{
#if !defined(QS_HAS_MMA)
    (void)worstDev, (void)countDev, (void)stream;
    throw GpuError(w4a8FusedRefusal(p.fp8, p.m, p.k, p.group));
#else
    const auto s = static_cast<cudaStream_t>(stream);
    QS_GPU_CHECK(cudaMemsetAsync(worstDev, 0, sizeof(double), s));
    QS_GPU_CHECK(cudaMemsetAsync(countDev, 0, sizeof(unsigned long long), s));
    if (p.m <= 0 || p.n <= 0)
        return;
    const long long total = p.m * p.n * 32; // a warp per output
    checkKernel<<<static_cast<unsigned>((total + 255) / 256), 256, 0, s>>>(
        argsOf(p, nullptr, nullptr, 1), p.fp8, gm::w4a8BoundCoefficient(p.fp8, p.k),
        reinterpret_cast<unsigned long long *>(worstDev), countDev);
    QS_GPU_CHECK(cudaGetLastError());
#endif
}

} // namespace quantscope::gpu::launch
