// SPDX-License-Identifier: MIT
// The fused W4A16 GEMM (kernels_w4a16.h; issue 43): Y = X·Ŵᵀ, Ŵ = s·(q − z) read from the packed
// INT4 layout as stored, BF16 tensor cores (mma.sync m16n8k16, FP32 accumulation).
//
// Fragments (PTX ISA "Matrix Fragments for mma.m16n8k16", BF16): lane = 4·gid + tig. A (X, 16×16,
// row): a0 = (row gid, k 2tig, 2tig+1), a1 = (row gid+8, same k), a2 = (row gid, k 2tig+8, +9),
// a3 = (row gid+8, k 2tig+8, +9). B (Ŵᵀ, 16×8, col): b0 = (k 2tig, 2tig+1; n gid), b1 = (k 2tig+8,
// +9; n gid). D: d0, d1 = (row gid; n 2tig, 2tig+1), d2, d3 = (row gid+8; same n).
//
// The k permutation (Σ_k is order-free): a chunk of 128 k of row n is 64 bytes; the four lanes of
// that row (tig = q) each take bytes [16q, 16q + 16) = k [32q, 32q + 32) with one 128-bit load. At
// k16 step s (0..7) lane q uses its k 32q + 4s + {0, 1} as logical k {2q, 2q+1} and 32q + 4s +
// {2, 3} as {2q+8, 2q+9}: b0 = nibbles (4s, 4s+1) of its 16 bytes, b1 = (4s+2, 4s+3). The A
// fragment takes X at the same k: 8 contiguous bytes per row (a0 | a2), one 16-byte load for two
// steps.
//
// Dequantization in registers: u = code XOR 8 = q + 8 ∈ [0, 15]; the BF16 bits 0x4300 | u are
// 128 + u exactly; minus the BF16 136 + z (exact for z ≤ 120) gives q − z exactly. Group ≥ 128
// (a multiple of 128): the mma runs on the exact q − z into a per-group FP32 sum, scaled once per
// group on the FP32 accumulator (acc += s·sum). g32 / g64 (a step mixes four / two groups): the
// B fragment is bf16(bf16(s)·(q − z)), the unfused path's rounding of Ŵ twice over.
//
// Grid: x = n-blocks of 4 warps × nPerWarp rows, y = m-blocks × K slices, z = experts. Split K:
// FP32 partials added into a zeroed workspace; the last block of a tile (a counter) converts it
// to BF16 and zeroes the workspace and the counter again.
//
// Up to kW4a16SwappedMaxM rows of X the launcher runs the swapped kernel of gemm_w4a16_small.cu
// instead, above it the tiled kernel of gemm_w4a16_tiled.cu (unless W4a16Tiling::kernel asks for
// this one).
#include "w4a16_device.cuh"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <mutex>
#include <utility>
#include <vector>

#include "qs_gpu_compat.h"

namespace quantscope::gpu::launch {

namespace {

using namespace w4a16detail;

#if defined(QS_HAS_MMA)

/// The B fragment (b0, b1) of step s from a lane's 16 bytes: BF16 pairs 128 + u, u = code ^ 8.
__device__ __forceinline__ void nibblesToBf16(const uint4 &r, int s, std::uint32_t &b0, std::uint32_t &b1)
{
    const std::uint32_t word = (s >> 1) == 0 ? r.x : (s >> 1) == 1 ? r.y : (s >> 1) == 2 ? r.z : r.w;
    const std::uint32_t h = (s & 1) ? word >> 16 : word;
    b0 = ((h & 0xFu) | ((h << 12) & 0xF0000u)) ^ 0x43084308u;
    b1 = (((h >> 8) & 0xFu) | ((h << 4) & 0xF0000u)) ^ 0x43084308u;
}

/// MT m16 tiles (16·MT rows of X) × NT n8 tiles per warp; U chunks of 128 k loaded ahead.
template <int MT, int NT, int U, bool ScaleInB> __global__ void __launch_bounds__(kWarps * 32) w4a16Kernel(Args a)
{
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int gid = lane >> 2, q = lane & 3;
    const int e = blockIdx.z;
    const int mBlock = blockIdx.y / a.splitK, split = blockIdx.y % a.splitK;
    const long long nBlock0 = static_cast<long long>(blockIdx.x) * (kWarps * NT * 8);
    const long long nWarp0 = nBlock0 + warp * NT * 8;
    const long long mBase = static_cast<long long>(mBlock) * (MT * 16);
    const std::uint8_t *W = a.w + e * a.wStride;
    const float *S = a.s + e * a.sStride;
    const std::int8_t *Z = a.z + e * a.sStride;
    const __nv_bfloat16 *X = a.x + e * a.xStride;
    const long long halfK = a.K / 2, groups = a.K / a.group;
    const long long chunks = a.K / 128;
    const long long per = (chunks + a.splitK - 1) / a.splitK;
    const long long c0 = split * per, c1 = c0 + per < chunks ? c0 + per : chunks;

    float acc[MT][NT][4];
    float tmp[MT][NT][4];
#pragma unroll
    for (int i = 0; i < MT; ++i)
#pragma unroll
        for (int t = 0; t < NT; ++t)
#pragma unroll
            for (int j = 0; j < 4; ++j)
                acc[i][t][j] = 0.0f, tmp[i][t][j] = 0.0f;

    // Rows of X this lane's A fragments read (rows ≥ M read as zero).
    const __nv_bfloat16 *xr0[MT], *xr1[MT];
#pragma unroll
    for (int i = 0; i < MT; ++i) {
        const long long r0 = mBase + 16 * i + gid, r1 = r0 + 8;
        xr0[i] = r0 < a.M ? X + r0 * a.K + 32 * q : nullptr;
        xr1[i] = r1 < a.M ? X + r1 * a.K + 32 * q : nullptr;
    }

    for (long long c = c0; c < c1; c += U) {
        uint4 raw[U][NT];
        float sc[U][NT][2]; // exact path: scales of rows 2q, 2q+1 (the D columns); else [0] of row gid
        __nv_bfloat162 zz[U][NT];
#pragma unroll
        for (int u = 0; u < U; ++u)
#pragma unroll
            for (int t = 0; t < NT; ++t) {
                const long long ch = c + u;
                const long long row = nWarp0 + 8 * t + gid;
                raw[u][t] = make_uint4(0x88888888u, 0x88888888u, 0x88888888u, 0x88888888u); // q = 0
                float zf = -8.0f;
                sc[u][t][0] = sc[u][t][1] = 0.0f;
                if (ch < c1) {
                    const long long g = ScaleInB ? (ch * 128 + 32 * q) / a.group : ch * 128 / a.group;
                    if (row < a.N) {
                        raw[u][t] = ldNc(W + row * halfK + ch * 64 + 16 * q);
                        zf = static_cast<float>(__ldg(Z + row * groups + g));
                        if (ScaleInB)
                            sc[u][t][0] = __ldg(S + row * groups + g);
                    }
                    if (!ScaleInB) {
                        const long long n0 = nWarp0 + 8 * t + 2 * q;
                        if (n0 < a.N)
                            sc[u][t][0] = __ldg(S + n0 * groups + g);
                        if (n0 + 1 < a.N)
                            sc[u][t][1] = __ldg(S + (n0 + 1) * groups + g);
                    }
                }
                zz[u][t] = __float2bfloat162_rn(136.0f + zf);
            }
#pragma unroll
        for (int u = 0; u < U; ++u) {
            const long long ch = c + u;
            if (ch >= c1)
                break;
            __nv_bfloat162 bs[NT];
            if (ScaleInB)
#pragma unroll
                for (int t = 0; t < NT; ++t)
                    bs[t] = __float2bfloat162_rn(sc[u][t][0]);
#pragma unroll
            for (int j = 0; j < 4; ++j) {
                std::uint32_t b[2][NT][2];
#pragma unroll
                for (int h = 0; h < 2; ++h)
#pragma unroll
                    for (int t = 0; t < NT; ++t) {
                        std::uint32_t b0, b1;
                        nibblesToBf16(raw[u][t], 2 * j + h, b0, b1);
                        __nv_bfloat162 v0 = __hsub2(pair(b0), zz[u][t]), v1 = __hsub2(pair(b1), zz[u][t]);
                        if (ScaleInB)
                            v0 = __hmul2(v0, bs[t]), v1 = __hmul2(v1, bs[t]);
                        b[h][t][0] = bits(v0);
                        b[h][t][1] = bits(v1);
                    }
                const long long koff = ch * 128 + 8 * j;
#pragma unroll
                for (int i = 0; i < MT; ++i) {
                    const uint4 x0 =
                        xr0[i] ? __ldg(reinterpret_cast<const uint4 *>(xr0[i] + koff)) : make_uint4(0, 0, 0, 0);
                    const uint4 x1 =
                        xr1[i] ? __ldg(reinterpret_cast<const uint4 *>(xr1[i] + koff)) : make_uint4(0, 0, 0, 0);
#pragma unroll
                    for (int t = 0; t < NT; ++t) {
                        float(&d)[4] = ScaleInB ? acc[i][t] : tmp[i][t];
                        mma16816(d, x0.x, x1.x, x0.y, x1.y, b[0][t][0], b[0][t][1]);
                        mma16816(d, x0.z, x1.z, x0.w, x1.w, b[1][t][0], b[1][t][1]);
                    }
                }
            }
            if (!ScaleInB) {
                // The group ends with this chunk (or the slice does): scale its exact sum once.
                const bool last = ch + 1 >= c1 || (ch + 1) * 128 / a.group != ch * 128 / a.group;
                if (last)
#pragma unroll
                    for (int i = 0; i < MT; ++i)
#pragma unroll
                        for (int t = 0; t < NT; ++t) {
                            acc[i][t][0] += sc[u][t][0] * tmp[i][t][0];
                            acc[i][t][1] += sc[u][t][1] * tmp[i][t][1];
                            acc[i][t][2] += sc[u][t][0] * tmp[i][t][2];
                            acc[i][t][3] += sc[u][t][1] * tmp[i][t][3];
#pragma unroll
                            for (int r = 0; r < 4; ++r)
                                tmp[i][t][r] = 0.0f;
                        }
            }
        }
    }

    // The outputs: d0, d1 (row gid; n 2q, 2q+1), d2, d3 (row gid + 8).
    __nv_bfloat16 *Y = a.y + e * a.yStride;
    float *ws = a.ws ? a.ws + static_cast<long long>(e) * a.M * a.N : nullptr;
#pragma unroll
    for (int i = 0; i < MT; ++i)
#pragma unroll
        for (int t = 0; t < NT; ++t)
#pragma unroll
            for (int r = 0; r < 4; ++r) {
                const long long m = mBase + 16 * i + gid + (r >= 2 ? 8 : 0);
                const long long n = nWarp0 + 8 * t + 2 * q + (r & 1);
                if (m >= a.M || n >= a.N)
                    continue;
                if (a.splitK == 1)
                    Y[m * a.N + n] = __float2bfloat16_rn(acc[i][t][r]);
                else
                    atomicAdd(ws + m * a.N + n, acc[i][t][r]);
            }
    if (a.splitK == 1)
        return;
    // The last block of this (expert, m-block, n-block) tile converts the sums and re-zeroes.
    unsigned *counter = a.counters + (static_cast<long long>(e) * a.mBlocks + mBlock) * gridDim.x + blockIdx.x;
    if (!splitKLastBlock(counter, a.splitK))
        return;
    const long long rows = (a.M - mBase) < MT * 16 ? a.M - mBase : MT * 16;
    const long long cols = (a.N - nBlock0) < kWarps * NT * 8 ? a.N - nBlock0 : kWarps * NT * 8;
    splitKConvert(ws, Y, a.N, mBase, rows, nBlock0, cols, counter, blockDim.x);
}

using KernelFn = void (*)(Args);

template <int MT, int NT, bool ScaleInB> KernelFn kernelOf()
{
    return &w4a16Kernel<MT, NT, (MT <= 2 ? 4 : MT * NT >= 16 ? 1 : 2), ScaleInB>;
}

/// The instantiation of (m16 tiles, n8 tiles a warp): MT 1 with NT 1, 2, 4; MT 2, 4, 8 with NT 1, 2.
template <bool ScaleInB> KernelFn kernelFor(int mt, int nt)
{
    if (mt == 1)
        return nt == 1 ? kernelOf<1, 1, ScaleInB>() : nt == 2 ? kernelOf<1, 2, ScaleInB>() : kernelOf<1, 4, ScaleInB>();
    if (mt == 2)
        return nt == 1 ? kernelOf<2, 1, ScaleInB>() : kernelOf<2, 2, ScaleInB>();
    if (mt == 4)
        return nt == 1 ? kernelOf<4, 1, ScaleInB>() : kernelOf<4, 2, ScaleInB>();
    return nt == 1 ? kernelOf<8, 1, ScaleInB>() : kernelOf<8, 2, ScaleInB>();
}

/// One warp per checked output: the FP64 reference from the packed operands (a plain loop over
/// the byte pairs of k, lanes striding K, a warp sum), coalesced along K.
__global__ void checkKernel(Args a, long long rowStride, long long rows, double wRel, double zRel,
                            unsigned long long *worst, unsigned long long *count)
{
    const long long warpId = (blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x) >> 5;
    const int lane = threadIdx.x & 31;
    if (warpId >= rows * a.N)
        return; // whole warps: blockDim is a multiple of 32
    const long long ri = warpId / a.N, n = warpId - ri * a.N;
    const long long m = ri * rowStride < a.M ? ri * rowStride : a.M - 1;
    const long long groups = a.K / a.group;
    double ref = 0, mag = 0, magZ = 0;
    for (long long k = 2 * lane; k < a.K; k += 64) {
        const std::uint8_t b = a.w[n * (a.K / 2) + k / 2];
        for (int h = 0; h < 2; ++h) {
            int q = h ? b >> 4 : b & 0xF;
            q = q >= 8 ? q - 16 : q;
            const long long g = n * groups + (k + h) / a.group;
            const double w = static_cast<double>(a.s[g]) * static_cast<double>(q - a.z[g]);
            const double p = static_cast<double>(__bfloat162float(a.x[m * a.K + k + h])) * w;
            ref += p;
            mag += fabs(p);
            magZ += fabs(static_cast<double>(__bfloat162float(a.x[m * a.K + k + h])) * static_cast<double>(a.s[g]) *
                         static_cast<double>(a.z[g]));
        }
    }
    // zRel·Σ|x·s·z| folded into the magnitude term: rel·mag' = rel·mag + zRel·magZ.
    const double rel = static_cast<double>(a.K) * ldexp(1.0, -23) + wRel;
    checkRecord(ref, mag + (zRel > 0 ? zRel / rel * magZ : 0.0), rel, nullptr, a.y[m * a.N + n], worst, count);
}

#endif // QS_HAS_MMA

/// m16 tiles per block for M rows (the largest block is 128 rows; more rows: more m-blocks).
int mTileFor(long long m)
{
    return m <= 16 ? 1 : m <= 32 ? 2 : m <= 64 ? 4 : 8;
}

} // namespace

namespace w4a16detail {

int smCount()
{
    static const int n = [] {
        int v = 0;
#if defined(QS_HAS_MMA)
        int dev = 0;
        if (cudaGetDevice(&dev) != cudaSuccess ||
            cudaDeviceGetAttribute(&v, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess)
            return 132;
#endif
        return v > 0 ? v : 132;
    }();
    return n;
}

bool deviceIsSm90()
{
#if defined(QS_HAS_MMA)
    static std::atomic<unsigned> asked{0u}, yes{0u};
    int device = 0;
    if (cudaGetDevice(&device) != cudaSuccess)
        return false;
    const unsigned bit = device >= 0 && device < 32 ? 1u << device : 0u;
    if (bit != 0 && (asked.load(std::memory_order_relaxed) & bit) != 0)
        return (yes.load(std::memory_order_relaxed) & bit) != 0;
    int major = 0, minor = 0;
    const bool is90 = cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device) == cudaSuccess &&
                      cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device) == cudaSuccess &&
                      major == 9 && minor == 0;
    if (is90)
        yes.fetch_or(bit, std::memory_order_relaxed);
    asked.fetch_or(bit, std::memory_order_relaxed);
    return is90;
#else
    return false;
#endif
}

long long chooseSplit(int perSm, long long tiles, long long chunks)
{
    const double slots = static_cast<double>(std::max(perSm, 1)) * smCount();
    const long long most = std::max(1LL, std::min(chunks / 4, 64LL));
    double bestEff = -1;
    long long split = 1;
    for (long long sk = 1; sk <= most; ++sk) {
        const double blocks = static_cast<double>(tiles * sk), waves = std::ceil(blocks / slots);
        const double eff = blocks / (waves * slots);
        if (eff > bestEff + 1e-9)
            bestEff = eff, split = sk;
        if (eff >= 0.85)
            break;
    }
    return split;
}

long long evenSplit(long long split, long long chunks)
{
    split = std::clamp(split, 1LL, chunks);
    const long long per = (chunks + split - 1) / split;
    return (chunks + per - 1) / per;
}

long long launchSlices(long long split, long long chunks, const void *workspace, const void *counters)
{
    return workspace && counters ? evenSplit(split, chunks) : 1;
}

#if defined(QS_HAS_MMA)
bool clusterFits(const void *fn, long long split, int threads, std::size_t smem)
{
    if (split < 2 || split > 16)
        return false;
    int device = 0;
    if (cudaGetDevice(&device) != cudaSuccess)
        return false;
    struct Key {
        const void *fn;
        long long split;
        int threads, device;
        std::size_t smem;
        bool operator==(const Key &o) const
        {
            return fn == o.fn && split == o.split && threads == o.threads && device == o.device && smem == o.smem;
        }
    };
    static std::mutex lock;
    static std::vector<std::pair<Key, bool>> known;
    const Key key{fn, split, threads, device, smem};
    {
        const std::lock_guard<std::mutex> g(lock);
        for (const auto &[k, fits] : known)
            if (k == key)
                return fits;
    }
    int major = 0, clusters = 0;
    bool fits = cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device) == cudaSuccess && major >= 9;
    if (fits && split > 8) // above the portable 8 blocks a cluster, the kernel opts in (up to 16 on sm_90)
        fits = cudaFuncSetAttribute(fn, cudaFuncAttributeNonPortableClusterSizeAllowed, 1) == cudaSuccess;
    if (fits) {
        cudaLaunchAttribute at;
        const cudaLaunchConfig_t cfg = clusterConfig(dim3(1, static_cast<unsigned>(split), 1), threads, smem, nullptr,
                                                     static_cast<int>(split), at);
        fits = cudaOccupancyMaxActiveClusters(&clusters, fn, &cfg) == cudaSuccess && clusters >= 1;
        (void)cudaGetLastError(); // a refusal here is an answer, not an error for the next launch
    }
    const std::lock_guard<std::mutex> g(lock);
    known.emplace_back(key, fits);
    return fits;
}
#endif

} // namespace w4a16detail

bool w4a16FusedBuilt()
{
#if defined(QS_HAS_MMA)
    return true;
#else
    return false;
#endif
}

std::string w4a16FusedRefusal(long long k, long long group)
{
    if (!w4a16FusedBuilt())
        return "fused W4A16: not built for HIP (no mma.sync)";
    if (k < 128 || k % 128 != 0)
        return "fused W4A16 needs K a positive multiple of 128 (K = " + std::to_string(k) + ")";
    if (!(group == 32 || group == 64 || (group > 0 && group % 128 == 0 && k % group == 0)))
        return "fused W4A16 needs group 32, 64 or a multiple of 128 dividing K (group = " + std::to_string(group) +
               ", K = " + std::to_string(k) + ")";
    return "";
}

bool w4a16ZerosInRange(const std::int8_t *zeros, std::size_t count)
{
    return std::all_of(zeros, zeros + count, [](std::int8_t z) { return z <= 120; });
}

std::size_t w4a16WorkspaceBytes(const W4a16Problem &p)
{
    if (!p.cutlassMeta || !w4a16CutlassRefusal(p).empty())
        return w4a16detail::partialsBytes(p);
    std::size_t route = 0;
    for (int tile = 1; tile <= 8; ++tile)
        route = std::max(route, w4a16CutlassWorkspaceBytes(p, tile));
    return w4a16detail::cutlassRegionOffset(p) + route;
}

std::size_t w4a16CounterBytes(const W4a16Problem &p)
{
    // The original kernel's tiles (at least 16 × 32) and the tiled kernel's (at least 16 × 128).
    const long long mBlocks = (p.m + 127) / 128 + 1, nBlocks = (p.n + kWarps * 8 - 1) / (kWarps * 8);
    const long long original = static_cast<long long>(std::max(p.experts, 1)) * mBlocks * nBlocks;
    return sizeof(unsigned) * static_cast<std::size_t>(std::max(original, w4a16detail::tiledCounters(p)));
}

W4a16Launch w4a16Fused(const W4a16Problem &p, const W4a16Tiling &tiling, void *workspace, void *counters, void *stream)
{
    // The CUTLASS route when asked (kernel 6), and by default above the swapped kernel's M wherever
    // it runs; its workspace region follows the FP32 partials (the hand kernels need those zero).
    if (tiling.kernel == 6 ||
        (tiling.kernel == 0 && p.m > kW4a16SwappedMaxM && p.cutlassMeta && w4a16CutlassRefusal(p).empty())) {
        if (!p.cutlassMeta)
            throw GpuError("the CUTLASS route needs its s', z' metadata (w4a16CutlassPrepare)");
        void *region = workspace ? static_cast<char *>(workspace) + w4a16detail::cutlassRegionOffset(p) : nullptr;
        if (!region && w4a16CutlassWorkspaceBytes(p, tiling.nPerWarp) > 0)
            throw GpuError("the CUTLASS route needs the workspace (w4a16WorkspaceBytes with cutlassMeta set)");
        return w4a16Cutlass(p, p.cutlassMeta, tiling.nPerWarp, region, stream);
    }
    if (const std::string why = w4a16FusedRefusal(p.k, p.group); !why.empty())
        throw GpuError(why);
    W4a16Launch l;
    if (p.m <= 0 || p.n <= 0)
        return l;
    // The tiled kernel when asked, and by default above the swapped kernel's M (its shared-memory
    // tiles serve each W fragment to several m16 tiles and X to every warp of a block).
    if (tiling.kernel == 5 || (tiling.kernel == 0 && p.m > kW4a16SwappedMaxM))
        return w4a16detail::tiled(p, tiling, workspace, counters, stream);
    // The streaming kernel when asked, and by default up to the swapped kernel's M where the
    // tile-ordered copy is given and the shape runs.
    if (tiling.kernel == 7 || (tiling.kernel == 0 && w4a16detail::tileRuns(p)))
        return w4a16detail::streamed(p, tiling, workspace, counters, stream);
    if (p.m <= kW4a16SwappedMaxM && tiling.kernel != 1)
        return w4a16detail::smallM(p, tiling, workspace, counters, stream);
    const int mt = mTileFor(p.m);
    // One n8 tile a warp while X has at most 8 rows (the A loads are few), two up to 32 rows.
    int nt = tiling.nPerWarp > 0 ? std::clamp(tiling.nPerWarp / 8, 1, 4) : (mt == 1 && p.m <= 8) || mt > 2 ? 1 : 2;
    if (nt == 3)
        nt = 2;
    if (mt >= 2)
        nt = std::min(nt, 2);
    const long long nBlocks = (p.n + kWarps * 8 * nt - 1) / (kWarps * 8 * nt);
    const long long mBlocks = (p.m + mt * 16 - 1) / (mt * 16);
    const long long chunks = p.k / 128;
    const int experts = std::max(p.experts, 1);
    long long split = tiling.splitK;
#if defined(QS_HAS_MMA)
    const KernelFn fn = p.group < 128 ? kernelFor<true>(mt, nt) : kernelFor<false>(mt, nt);
    if (split <= 0) {
        // The fewest K slices whose blocks fill at least 85 % of their last wave of resident blocks
        // (occupancy of this instantiation × SMs); slices of at least 4 chunks (512 k).
        // Asked once per instantiation (the launch's host time is part of what the lab times).
        static std::atomic<int> occupancy[2][9][5] = {};
        const int perSm = residentBlocks(occupancy[p.group < 128 ? 1 : 0][mt][nt], fn, kWarps * 32, 0);
        split = chooseSplit(perSm, nBlocks * mBlocks * experts, chunks);
    }
#endif
    // Slices of ⌈chunks / split⌉ chunks: no empty slice (every block must reach the counter).
    split = launchSlices(split, chunks, workspace, counters); // ⌈chunks / split⌉ chunks a slice, no empty slice
    l.mTile = mt;
    l.nPerWarp = nt * 8;
    l.splitK = static_cast<int>(split);
    l.scaleInB = p.group < 128;
    l.blocks = static_cast<int>(nBlocks * mBlocks * split * experts);
#if defined(QS_HAS_MMA)
    const Args a = launchArgs(p, workspace, counters, l.splitK, static_cast<int>(mBlocks), 0, 0);
    const dim3 grid(static_cast<unsigned>(nBlocks), static_cast<unsigned>(mBlocks * split),
                    static_cast<unsigned>(experts));
    fn<<<grid, kWarps * 32, 0, static_cast<cudaStream_t>(stream)>>>(a);
    QS_GPU_CHECK(cudaGetLastError());
#endif
    return l;
}

void w4a16CheckFp64(const W4a16Problem &p, long long rowStride, double wRel, double *worstDev,
                    unsigned long long *countDev, void *stream, double zRel)
{
#if !defined(QS_HAS_MMA)
    (void)p, (void)rowStride, (void)wRel, (void)worstDev, (void)countDev, (void)stream, (void)zRel;
    throw GpuError("w4a16CheckFp64: the fused W4A16 GEMM is not built for HIP (no mma.sync)");
#else
    const auto s = static_cast<cudaStream_t>(stream);
    QS_GPU_CHECK(cudaMemsetAsync(worstDev, 0, sizeof(double), s));
    QS_GPU_CHECK(cudaMemsetAsync(countDev, 0, sizeof(unsigned long long), s));
    if (p.m <= 0 || p.n <= 0)
        return;
    rowStride = std::max(1LL, rowStride);
    // Rows 0, stride, …; with a stride > 1 one more index for row M − 1.
    const long long rows = (p.m + rowStride - 1) / rowStride + (rowStride > 1 ? 1 : 0);
    Args a{p.packed,
           p.scales,
           p.zeros,
           static_cast<const __nv_bfloat16 *>(p.x),
           static_cast<__nv_bfloat16 *>(p.y),
           nullptr,
           nullptr,
           p.m,
           p.n,
           p.k,
           p.group,
           0,
           0,
           0,
           0,
           1,
           1,
           0,
           0};
    const long long total = rows * p.n * 32; // a warp per output
    checkKernel<<<static_cast<unsigned>((total + 255) / 256), 256, 0, s>>>(
        a, rowStride, rows, wRel, zRel, reinterpret_cast<unsigned long long *>(worstDev), countDev);
    QS_GPU_CHECK(cudaGetLastError());
#endif
}

} // namespace quantscope::gpu::launch
