// SPDX-License-Identifier: MIT
// The fused FP4-weight GEMM for small M (kernels_fp4gemm.h; issue 43): MXFP4 and NVFP4 weights ×
// BF16 activations, the operands swapped as in the W4A16 small-M kernel (gemm_w4a16_small.cu, whose
// design comment this follows): Yᵀ[N, M] = Ŵ·Xᵀ, 16 rows of W a warp as the mma's A operand (built
// in registers from the packed nibbles), the tokens its n = 8 (one n8 tile for M ≤ 8, two for
// M ≤ 16); 4 warps a block; split K through an FP32 workspace.
//
// Fragments and the k permutation are the W4A16 kernel's: lane 4·gid + tig loads bytes
// [16 tig, 16 tig + 16) of a chunk of 128 k (64 bytes) of rows gid and gid + 8, one 128-bit load
// each; word w (0…3) holds the octet k0 = 32 tig + 8w … k0 + 7 as nibbles n0 … n7, its BF16 pairs
// P_j = (n_j | n_{j+4}) feed steps 2w (P0, P1) and 2w + 1 (P2, P3), and X is staged in shared
// memory in that order (octet (x0 … x7) → words (x0|x4, x1|x5, x2|x6, x3|x7)).
//
// Dequantization, exactly (docs/numerics.md "Fused FP4 GEMM"; the element operations are the QS_HD
// functions of fp4gemm_math.h, host-tested over every code and scale): E2M1 → BF16 by byte-table
// permutes (every E2M1 value is a BF16), then one __hmul2 by the block scale as a BF16 pair —
// MXFP4's 2^(byte − 127) (the bits byte << 7; the product is exact for bytes 2…252, which the data
// check asks), NVFP4's E4M3 b (≤ 4 significant bits × E2M1's ≤ 2: ≤ 6 ≤ 8, in BF16's normal
// range: exact). A lane's 32 k are one MXFP4 group (group 4·chunk + tig) or two NVFP4 groups
// (words 0, 1: 8·chunk + 2·tig; words 2, 3: + 1). So Ŵ·2^0 enters the mma exactly (NVFP4: up to
// the global scale), the only rounding is the FP32 accumulation, and NVFP4 divides the FP32 sum by
// the global scale once (__fdiv_rn) before the BF16 store (or the workspace's atomic add).
//
// Rows of W ≥ N read row N − 1 and tokens ≥ M read token M − 1 of the stage; their outputs are not
// stored.
#include "w4a16_device.cuh"

#include <algorithm>
#include <atomic>
#include <cmath>

#define QS_HD __host__ __device__
#include "fp4gemm_math.h"
#include "kernels_fp4gemm.h"
#include "qs_gpu_compat.h"

namespace quantscope::gpu::launch {

namespace {

using namespace w4a16detail;

/// Shared memory per block for the X stage (bytes): a piece of at most this.
constexpr long long kStageBudget = 24 * 1024;

#if defined(QS_HAS_MMA) // HIP: the host side only (the launchers refuse)

struct Fp4Args {
    const std::uint8_t *w;
    const std::uint8_t *s;
    float global;
    const __nv_bfloat16 *x;
    __nv_bfloat16 *y;
    float *ws;
    unsigned *counters;
    long long M, N, K;
    int splitK, pieceChunks;
};

Fp4Args argsOf(const Fp4GemmProblem &p, void *ws, void *counters, int splitK, int piece)
{
    return Fp4Args{p.packed,
                   p.scales,
                   p.format == Fp4GemmFormat::Nvfp4 ? p.globalScale : 1.0f,
                   static_cast<const __nv_bfloat16 *>(p.x),
                   static_cast<__nv_bfloat16 *>(p.y),
                   static_cast<float *>(ws),
                   static_cast<unsigned *>(counters),
                   p.m,
                   p.n,
                   p.k,
                   splitK,
                   piece};
}

__device__ __forceinline__ std::uint32_t wordAt(const uint4 &r, int w)
{
    return w == 0 ? r.x : w == 1 ? r.y : w == 2 ? r.z : r.w;
}

/// NT n8 tiles of tokens, U chunks of 128 k of W loaded ahead, Nv: NVFP4 (else MXFP4).
template <int NT, int U, bool Nv> __global__ void __launch_bounds__(kWarps * 32, U <= 2 ? 8 : 5) fp4Kernel(Fp4Args a)
{
    extern __shared__ uint4 xs[];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int gid = lane >> 2, q = lane & 3;
    const long long nBlock0 = static_cast<long long>(blockIdx.x) * (kWarps * 16);
    const long long nWarp0 = nBlock0 + warp * 16;
    const long long halfK = a.K / 2, groups = a.K / (Nv ? 16 : 32);
    const int chunks = static_cast<int>(a.K / 128);
    const int per = (chunks + a.splitK - 1) / a.splitK;
    const int c0 = static_cast<int>(blockIdx.y) * per, c1 = c0 + per < chunks ? c0 + per : chunks;
    const int rowsX = static_cast<int>(a.M < NT * 8 ? a.M : NT * 8);
    const int P = a.pieceChunks, rs = P * 16 + 4;

    const std::uint8_t *wRow[2], *sRow[2];
#pragma unroll
    for (int h = 0; h < 2; ++h) {
        const long long r = laneRow(nWarp0, gid, h, a.N);
        wRow[h] = a.w + r * halfK + 16 * q;
        sRow[h] = a.s + r * groups + (Nv ? 2 * q : q);
    }
    int tok[NT];
    tokenOffsets(tok, gid, q, rowsX, rs);

    float acc[NT][4];
#pragma unroll
    for (int t = 0; t < NT; ++t)
#pragma unroll
        for (int j = 0; j < 4; ++j)
            acc[t][j] = 0.0f;

    for (int p0 = c0; p0 < c1; p0 += P) {
        const int pc = c1 - p0 < P ? c1 - p0 : P;
        __syncthreads(); // the previous piece of the stage is consumed
        stageX<kWarps * 32>(xs, a.x, 0, a.K, rowsX, p0, pc, rs);
        __syncthreads();
        for (int cc = 0; cc < pc; cc += U) {
            uint4 raw[U][2];
            std::uint32_t sb[U][2]; // MXFP4: the group's byte; NVFP4: the two groups' bytes
#pragma unroll
            for (int u = 0; u < U; ++u) {
                if (cc + u >= pc)
                    break;
                const int ch = p0 + cc + u;
#pragma unroll
                for (int h = 0; h < 2; ++h) {
                    raw[u][h] = ldNc(wRow[h] + 64LL * ch);
                    sb[u][h] = Nv ? __ldg(reinterpret_cast<const unsigned short *>(sRow[h] + 8LL * ch))
                                  : __ldg(sRow[h] + 4LL * ch);
                }
            }
#pragma unroll
            for (int u = 0; u < U; ++u) {
                if (cc + u >= pc)
                    break;
                const int xBase = (cc + u) * 16;
                std::uint32_t sp[2][2]; // [row half][words 0–1 | 2–3]
#pragma unroll
                for (int h = 0; h < 2; ++h) {
                    sp[h][0] = Nv ? fp4gemm::nvScalePair(sb[u][h] & 0xFFu) : fp4gemm::mxScalePair(sb[u][h]);
                    sp[h][1] = Nv ? fp4gemm::nvScalePair(sb[u][h] >> 8) : sp[h][0];
                }
#pragma unroll
                for (int w = 0; w < 4; ++w) {
                    uint4 xb[NT];
#pragma unroll
                    for (int t = 0; t < NT; ++t)
                        xb[t] = xs[tok[t] + xBase + 4 * w];
                    std::uint32_t pa[2][4];
#pragma unroll
                    for (int h = 0; h < 2; ++h) {
                        fp4gemm::e2m1PairsBf16(wordAt(raw[u][h], w), pa[h]);
                        const __nv_bfloat162 sc = pair(sp[h][w >> 1]);
#pragma unroll
                        for (int j = 0; j < 4; ++j)
                            pa[h][j] = bits(__hmul2(pair(pa[h][j]), sc)); // exact (see above)
                    }
#pragma unroll
                    for (int t = 0; t < NT; ++t) {
                        mma16816(acc[t], pa[0][0], pa[1][0], pa[0][1], pa[1][1], xb[t].x, xb[t].y);
                        mma16816(acc[t], pa[0][2], pa[1][2], pa[0][3], pa[1][3], xb[t].z, xb[t].w);
                    }
                }
            }
        }
    }

    // The outputs: d0, d1 (row gid; tokens 2tig, 2tig+1), d2, d3 (row gid + 8); NVFP4's global
    // scale divides the FP32 sum once.
    storeSwapped(acc, nWarp0, gid, q, a.M, a.N, a.splitK, a.y, a.ws,
                 [&](float v, long long) { return Nv ? __fdiv_rn(v, a.global) : v; });
    if (a.splitK == 1)
        return;
    // The last block of this n-block converts the sums and re-zeroes.
    unsigned *counter = a.counters + blockIdx.x;
    if (!splitKLastBlock(counter, a.splitK))
        return;
    const long long cols = (a.N - nBlock0) < kWarps * 16 ? a.N - nBlock0 : kWarps * 16;
    splitKConvert(a.ws, a.y, a.N, 0, a.M, nBlock0, cols, counter, blockDim.x);
}

using Fp4KernelFn = void (*)(Fp4Args);

template <bool Nv> Fp4KernelFn fp4KernelFor(int nt, int u)
{
    if (nt == 1)
        return u == 1 ? &fp4Kernel<1, 1, Nv> : u == 2 ? &fp4Kernel<1, 2, Nv> : &fp4Kernel<1, 4, Nv>;
    return u == 1 ? &fp4Kernel<2, 1, Nv> : u == 2 ? &fp4Kernel<2, 2, Nv> : &fp4Kernel<2, 4, Nv>;
}

/// Ŵ as BF16 (the unfused route), one thread a byte of codes.
__global__ void dequantKernel(Fp4Args a, bool nv, __nv_bfloat16 *out)
{
    const long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
    if (i >= a.N * a.K / 2)
        return;
    const long long n = i / (a.K / 2), k = 2 * (i - n * (a.K / 2));
    const long long g = nv ? 16 : 32;
    const std::uint32_t sb = a.s[n * (a.K / g) + k / g];
    const std::uint8_t b = a.w[i];
    for (int h = 0; h < 2; ++h) {
        const std::uint32_t code = h ? b >> 4 : b & 0xFu;
        std::uint32_t p[4];
        fp4gemm::e2m1PairsBf16(code, p); // p[0]'s low half: the code's BF16 value
        const float v = __uint_as_float((p[0] & 0xFFFFu) << 16);
        float w;
        if (nv)
            w = __fdiv_rn(__fmul_rn(v, __uint_as_float(static_cast<std::uint32_t>(fp4gemm::e4m3Bf16Bits(sb)) << 16)),
                          a.global);
        else // the engine's 2^(byte − 127), byte 0 the subnormal 2^-127 (the unfused route takes any byte)
            w = __fmul_rn(v, __uint_as_float(sb == 0 ? 0x00400000u : sb << 23));
        out[n * a.K + k + h] = __float2bfloat16_rn(w);
    }
}

/// One warp per checked output: the FP64 reference from the packed operands, lanes striding K.
__global__ void checkKernel(Fp4Args a, bool nv, long long rowStride, long long rows, double wRel,
                            unsigned long long *worst, unsigned long long *count)
{
    const long long warpId = (blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x) >> 5;
    const int lane = threadIdx.x & 31;
    if (warpId >= rows * a.N)
        return;
    const long long ri = warpId / a.N, n = warpId - ri * a.N;
    const long long m = ri * rowStride < a.M ? ri * rowStride : a.M - 1;
    const long long g = nv ? 16 : 32, groups = a.K / g;
    // E2M1 magnitudes and the scale from their definitions (not from fp4gemm_math.h).
    const double mags[8] = {0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0};
    double ref = 0, mag = 0;
    for (long long k = 2 * lane; k < a.K; k += 64) {
        const std::uint8_t b = a.w[n * (a.K / 2) + k / 2];
        const int sb = a.s[n * groups + k / g];
        double scale;
        if (nv) {
            const int e = (sb >> 3) & 15, mm = sb & 7;
            scale = (e == 0 ? ldexp(static_cast<double>(mm), -9) : ldexp(1.0 + mm / 8.0, e - 7)) *
                    ((sb & 0x80) ? -1.0 : 1.0) / static_cast<double>(a.global);
        } else {
            scale = ldexp(1.0, sb - 127);
        }
        for (int h = 0; h < 2; ++h) {
            const int c = h ? b >> 4 : b & 0xF;
            const double w = ((c & 8) ? -mags[c & 7] : mags[c & 7]) * scale;
            const double p = static_cast<double>(__bfloat162float(a.x[m * a.K + k + h])) * w;
            ref += p;
            mag += fabs(p);
        }
    }
    checkRecord(ref, mag, static_cast<double>(a.K) * ldexp(1.0, -23) + wRel, nullptr, a.y[m * a.N + n], worst, count);
}

#endif // QS_HAS_MMA

} // namespace

bool fp4GemmBuilt()
{
#if defined(QS_HAS_MMA)
    return true;
#else
    return false;
#endif
}

std::string fp4GemmRefusal(long long m, long long k)
{
    if (!fp4GemmBuilt())
        return "fused FP4 GEMM: not built for HIP (no mma.sync)";
    if (m < 1 || m > kFp4GemmMaxM)
        return "fused FP4 GEMM runs 1 ≤ M ≤ 16 (M = " + std::to_string(m) + ")";
    if (k < 128 || k % 128 != 0)
        return "fused FP4 GEMM needs K a positive multiple of 128 (K = " + std::to_string(k) + ")";
    return "";
}

std::string fp4GemmDataRefusal(Fp4GemmFormat f, const std::uint8_t *packed, const std::uint8_t *scales, float global,
                               long long n, long long k)
{
    const long long g = fp4GemmGroup(f), groups = k / g;
    if (f == Fp4GemmFormat::Nvfp4) {
        if (!std::isfinite(global) || global == 0.0f)
            return "fused NVFP4 needs a finite, non-zero global scale";
        for (long long i = 0; i < n * groups; ++i)
            if ((scales[i] & 0x7F) == 0x7F)
                return "fused NVFP4: a block scale is NaN (row " + std::to_string(i / groups) + ")";
        return "";
    }
    for (long long i = 0; i < n * groups; ++i) {
        if (fp4gemm::mxScaleExact(scales[i]))
            continue;
        const std::uint8_t *c = packed + (i / groups) * (k / 2) + (i % groups) * (g / 2);
        for (long long j = 0; j < g / 2; ++j)
            if (c[j] & 0x77)
                return "fused MXFP4 keeps Ŵ exact in BF16 for scale bytes 2…252 only (row " +
                       std::to_string(i / groups) + " has byte " + std::to_string(scales[i]) + ")";
    }
    return "";
}

std::size_t fp4GemmWorkspaceBytes(const Fp4GemmProblem &p)
{
    return sizeof(float) * static_cast<std::size_t>(std::max(p.m, 1LL) * std::max(p.n, 1LL));
}

std::size_t fp4GemmCounterBytes(const Fp4GemmProblem &p)
{
    return sizeof(unsigned) * static_cast<std::size_t>(std::max(1LL, (p.n + kWarps * 16 - 1) / (kWarps * 16)));
}

Fp4GemmLaunch fp4GemmFused(const Fp4GemmProblem &p, const Fp4GemmTiling &tiling, void *workspace, void *counters,
                           void *stream)
{
    if (const std::string why = fp4GemmRefusal(p.m, p.k); !why.empty())
        throw GpuError(why);
    Fp4GemmLaunch l;
    if (p.n <= 0)
        return l;
    const int nt = p.m <= 8 ? 1 : 2;
    const int u = tiling.chunksAhead == 1 ? 1 : tiling.chunksAhead == 2 ? 2 : 4;
    const long long nBlocks = (p.n + kWarps * 16 - 1) / (kWarps * 16);
    const long long chunks = p.k / 128;
    const int rowsX = static_cast<int>(std::min<long long>(p.m, 8 * nt));
    const long long pieceMax = std::max(1LL, (kStageBudget / (16LL * rowsX) - 4) / 16);
    long long split = tiling.splitK;
#if defined(QS_HAS_MMA)
    const bool nv = p.format == Fp4GemmFormat::Nvfp4;
    const Fp4KernelFn fn = nv ? fp4KernelFor<true>(nt, u) : fp4KernelFor<false>(nt, u);
    if (split <= 0) {
        static std::atomic<int> occupancy[2][3][5][17] = {};
        const std::size_t smem = static_cast<std::size_t>(rowsX * (std::min(pieceMax, chunks) * 16 + 4) * 16);
        const int perSm = w4a16detail::residentBlocks(occupancy[nv ? 1 : 0][nt][u][rowsX], fn, kWarps * 32, smem);
        split = chooseSplit(perSm, nBlocks, chunks);
    }
#endif
    split = launchSlices(split, chunks, workspace, counters); // ⌈chunks / split⌉ chunks a slice, no empty slice
    const long long per = (chunks + split - 1) / split;
    const long long piece = std::min(pieceMax, per);
    l.mTile = nt;
    l.splitK = static_cast<int>(split);
    l.chunksAhead = u;
    l.blocks = static_cast<int>(nBlocks * split);
#if defined(QS_HAS_MMA)
    const Fp4Args a = argsOf(p, workspace, counters, l.splitK, static_cast<int>(piece));
    const std::size_t smem = static_cast<std::size_t>(rowsX * (piece * 16 + 4) * 16);
    const dim3 grid(static_cast<unsigned>(nBlocks), static_cast<unsigned>(split));
    fn<<<grid, kWarps * 32, smem, static_cast<cudaStream_t>(stream)>>>(a);
    QS_GPU_CHECK(cudaGetLastError());
#else
    (void)workspace, (void)counters, (void)stream, (void)piece;
#endif
    return l;
}

void fp4GemmDequantBf16(const Fp4GemmProblem &p, void *wOut, void *stream)
{
    const long long bytes = p.n * p.k / 2;
    if (bytes <= 0)
        return;
#if !defined(QS_HAS_MMA)
    (void)wOut, (void)stream;
    throw GpuError("fp4GemmDequantBf16: the FP4 GEMM kernels are CUDA only (not built for HIP)");
#else
    const Fp4Args a = argsOf(p, nullptr, nullptr, 1, 1);
    dequantKernel<<<static_cast<unsigned>((bytes + 255) / 256), 256, 0, static_cast<cudaStream_t>(stream)>>>(
        a, p.format == Fp4GemmFormat::Nvfp4, static_cast<__nv_bfloat16 *>(wOut));
    QS_GPU_CHECK(cudaGetLastError());
#endif
}

void fp4GemmCheckFp64(const Fp4GemmProblem &p, long long rowStride, double wRel, double *worstDev,
                      unsigned long long *countDev, void *stream)
{
#if !defined(QS_HAS_MMA)
    (void)p, (void)rowStride, (void)wRel, (void)worstDev, (void)countDev, (void)stream;
    throw GpuError("fp4GemmCheckFp64: the FP4 GEMM kernels are CUDA only (not built for HIP)");
#else
    const auto s = static_cast<cudaStream_t>(stream);
    QS_GPU_CHECK(cudaMemsetAsync(worstDev, 0, sizeof(double), s));
    QS_GPU_CHECK(cudaMemsetAsync(countDev, 0, sizeof(unsigned long long), s));
    if (p.m <= 0 || p.n <= 0)
        return;
    rowStride = std::max(1LL, rowStride);
    const long long rows = (p.m + rowStride - 1) / rowStride + (rowStride > 1 ? 1 : 0);
    const Fp4Args a = argsOf(p, nullptr, nullptr, 1, 1);
    const long long total = rows * p.n * 32; // a warp per output
    checkKernel<<<static_cast<unsigned>((total + 255) / 256), 256, 0, s>>>(
        a, p.format == Fp4GemmFormat::Nvfp4, rowStride, rows, wRel, reinterpret_cast<unsigned long long *>(worstDev),
        countDev);
    QS_GPU_CHECK(cudaGetLastError());
#endif
}

} // namespace quantscope::gpu::launch
