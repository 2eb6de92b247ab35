// SPDX-License-Identifier: MIT
#pragma once
/// \file w4a16_device.cuh
/// What the fused W4A16 kernels share (gemm_w4a16.cu: X as the mma's A operand, any M;
/// gemm_w4a16_small.cu: the operands swapped for M ≤ 16; gemm_w4a16_tiled.cu: the shared-memory
/// tiled kernel): the launch arguments, the BF16 `mma.sync` m16n8k16, the non-caching 128-bit
/// load, the nibble → BF16 pairs (codePairs), cp.async, the split-K choice. With the other fused
/// GEMMs (gemm_w4a8*.cu, gemm_fp4.cu, gemm_w3lr.cu) also: the W4A8 kernels' INT8 and E4M3
/// `mma.sync` m16n8k32 (mmaS8, mmaE4m3), the split-K tail (splitKLastBlock,
/// splitKConvert), the swapped kernels' lane rows (laneRow), X stage (stageX), token offsets
/// (tokenOffsets) and output store (storeSwapped). Included by those sources only (CUDA builds;
/// QS_HAS_MMA is undefined for HIP, which has no mma.sync).
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>

#include "kernels_w4a16.h"

// HIP (no mma.sync): only the host side compiles — the launchers refuse, the kernels are absent.
#if !defined(__HIPCC__) && !defined(__HIP_PLATFORM_AMD__) && !defined(QUANTSCOPE_HIP)
#define QS_HAS_MMA 1
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include "qs_gpu_compat.h"

#ifndef QS_HD
#define QS_HD __host__ __device__
#endif
#include "../device_math.h"
#endif

namespace quantscope::gpu::launch::w4a16detail {

constexpr int kWarps = 4;

#if defined(QS_HAS_MMA)
struct Args {
    const std::uint8_t *w;
    const float *s;
    const std::int8_t *z;
    const __nv_bfloat16 *x;
    __nv_bfloat16 *y;
    float *ws;
    unsigned *counters;
    long long M, N, K, group;
    long long wStride, sStride, xStride, yStride;
    int splitK, mBlocks;
    int pieceChunks; ///< swapped kernel: chunks of 128 k of X staged in shared memory at a time;
                     ///< tiled kernel: its pipeline's stages
    int pieceGroups; ///< pipelined swapped kernel: groups a row of the scale / zero stage holds
    int cluster;     ///< streaming kernel: the K slices meet in their cluster (clusterStoreSwapped)
};

/// A launch's arguments from the problem (every launcher builds them the same way).
inline Args launchArgs(const W4a16Problem &p, void *workspace, void *counters, int splitK, int mBlocks, int pieceChunks,
                       int pieceGroups)
{
    return Args{p.packed,
                p.scales,
                p.zeros,
                static_cast<const __nv_bfloat16 *>(p.x),
                static_cast<__nv_bfloat16 *>(p.y),
                static_cast<float *>(workspace),
                static_cast<unsigned *>(counters),
                p.m,
                p.n,
                p.k,
                p.group,
                p.wStride,
                p.sStride,
                p.xStride,
                p.yStride,
                splitK,
                mBlocks,
                pieceChunks,
                pieceGroups,
                0};
}
#endif // QS_HAS_MMA

/// SMs of the current device (cached).
int smCount();
/// Whether the current device is sm_90, the W4A8 warpgroup kernel's target (asked once per device
/// ordinal below 32; false in HIP builds).
bool deviceIsSm90();
/// The fewest K slices (1 … min(chunks / 4, 64)) whose `tiles`·S blocks fill at least 85 % of
/// their last wave of perSm·SMs resident blocks (else the best fill).
long long chooseSplit(int perSm, long long tiles, long long chunks);
/// `split` clamped to [1, chunks] and made even: ⌈chunks / split⌉ chunks a slice, no empty slice.
long long evenSplit(long long split, long long chunks);
/// The K slices a launch runs: evenSplit(split, chunks), or 1 without a workspace or counters
/// (the split-K tail needs both).
long long launchSlices(long long split, long long chunks, const void *workspace, const void *counters);
#if defined(QS_HAS_MMA)
/// Resident blocks an SM of kernel `fn` with `threads` and `smem` bytes of shared memory, asked
/// once per cache slot (the launch's host time is part of what the lab times); at least 1.
template <class Fn> int residentBlocks(std::atomic<int> &slot, Fn fn, int threads, std::size_t smem)
{
    int perSm = slot.load(std::memory_order_relaxed);
    if (perSm < 1) {
        if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&perSm, fn, threads, smem) != cudaSuccess || perSm < 1)
            perSm = 1;
        slot.store(perSm, std::memory_order_relaxed);
    }
    return perSm;
}
/// Whether the split-K of a launch of `fn` (grid y = split slices, `threads`, `smem` bytes) can
/// meet in its cluster (clusterStoreSwapped): split 2 … 16 (above the portable 8, the function opts
/// in to sm_90's non-portable sizes), a device of compute capability 9 or more, and at least one
/// cluster of that shape resident (asked once per function, split, block and device; the launch's
/// host time is part of what the lab times).
bool clusterFits(const void *fn, long long split, int threads, std::size_t smem);
/// The launch configuration of grid × threads with smem bytes on stream, as clusters of (1,
/// clusterY, 1) blocks when clusterY > 1 (the attribute lives in `at`).
inline cudaLaunchConfig_t clusterConfig(dim3 grid, int threads, std::size_t smem, void *stream, int clusterY,
                                        cudaLaunchAttribute &at)
{
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = grid;
    cfg.blockDim = dim3(static_cast<unsigned>(threads));
    cfg.dynamicSmemBytes = smem;
    cfg.stream = static_cast<cudaStream_t>(stream);
    at.id = cudaLaunchAttributeClusterDimension;
    at.val.clusterDim.x = 1;
    at.val.clusterDim.y = static_cast<unsigned>(clusterY);
    at.val.clusterDim.z = 1;
    cfg.attrs = &at;
    cfg.numAttrs = clusterY > 1 ? 1 : 0;
    return cfg;
}
/// Launches fn<<<grid, threads, smem, stream>>>(args…), as clusters of (1, clusterY, 1) blocks when
/// clusterY > 1 (cudaLaunchKernelEx).
template <class... P, class... A>
void launchClustered(void (*fn)(P...), dim3 grid, int threads, std::size_t smem, void *stream, int clusterY,
                     A &&...args)
{
    cudaLaunchAttribute at;
    const cudaLaunchConfig_t cfg = clusterConfig(grid, threads, smem, stream, clusterY, at);
    QS_GPU_CHECK(cudaLaunchKernelEx(&cfg, fn, std::forward<A>(args)...));
}
#endif // QS_HAS_MMA
/// The swapped small-M path (gemm_w4a16_small.cu): M ≤ kW4a16SwappedMaxM.
W4a16Launch smallM(const W4a16Problem &p, const W4a16Tiling &tiling, void *workspace, void *counters, void *stream);
/// Whether the streaming kernel runs p: w4a16TileRefusal(p) empty, without building its strings
/// (the launcher asks on every launch).
bool tileRuns(const W4a16Problem &p);
/// The streaming small-M kernel on the tile-ordered copy (gemm_w4a16_stream.cu; kernel 7).
W4a16Launch streamed(const W4a16Problem &p, const W4a16Tiling &tiling, void *workspace, void *counters, void *stream);
/// The shared-memory tiled kernel (gemm_w4a16_tiled.cu; W4a16Tiling::kernel 5): any M.
W4a16Launch tiled(const W4a16Problem &p, const W4a16Tiling &tiling, void *workspace, void *counters, void *stream);
/// Tile counters the tiled kernel needs at most (its smallest tile, 16 × 128), all experts.
long long tiledCounters(const W4a16Problem &p);
/// The hand kernels' FP32 partials, the first region of the workspace (E·M·N floats).
inline std::size_t partialsBytes(const W4a16Problem &p)
{
    return sizeof(float) * static_cast<std::size_t>(p.experts > 1 ? p.experts : 1) *
           static_cast<std::size_t>(p.m * p.n);
}
/// Where the CUTLASS route's workspace region starts: after the partials, 256-byte aligned.
inline std::size_t cutlassRegionOffset(const W4a16Problem &p)
{
    return (partialsBytes(p) + 255) / 256 * 256;
}

#if defined(QS_HAS_MMA)

/// INT8 m16n8k32 (the W4A8 kernels, gemm_w4a8.cu and gemm_w4a8_stream.cu): d += A·B in INT32.
__device__ __forceinline__ void mmaS8(int (&d)[4], std::uint32_t a0, std::uint32_t a1, std::uint32_t a2,
                                      std::uint32_t a3, std::uint32_t b0, std::uint32_t b1)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
    __trap(); // INT8 m16n8k32 needs sm_80 or newer (the build targets sm_90)
#else
    asm volatile("mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
                 "{%0,%1,%2,%3};\n"
                 : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3])
                 : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
#endif
}

/// E4M3 m16n8k32 (the W4A8-FP8 kernels): d += A·B in the tensor core's FP32.
__device__ __forceinline__ void mmaE4m3(float (&d)[4], std::uint32_t a0, std::uint32_t a1, std::uint32_t a2,
                                        std::uint32_t a3, std::uint32_t b0, std::uint32_t b1)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 890
    __trap(); // FP8 mma needs sm_89 or newer (the build targets sm_90)
#else
    asm volatile("mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
                 "{%0,%1,%2,%3};\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
#endif
}

__device__ __forceinline__ void mma16816(float (&d)[4], std::uint32_t a0, std::uint32_t a1, std::uint32_t a2,
                                         std::uint32_t a3, std::uint32_t b0, std::uint32_t b1)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
    __trap(); // BF16 mma.sync needs sm_80 or newer (the build targets sm_90)
#else
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
                 "{%0,%1,%2,%3};\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
#endif
}

__device__ __forceinline__ uint4 ldNc(const void *p)
{
    uint4 r;
    asm volatile("ld.global.nc.L1::no_allocate.v4.u32 {%0,%1,%2,%3}, [%4];\n"
                 : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w)
                 : "l"(p));
    return r;
}

__device__ __forceinline__ std::uint32_t bits(__nv_bfloat162 v)
{
    std::uint32_t u;
    std::memcpy(&u, &v, 4);
    return u;
}
__device__ __forceinline__ __nv_bfloat162 pair(std::uint32_t u)
{
    __nv_bfloat162 v;
    std::memcpy(&v, &u, 4);
    return v;
}

using gpumath::andXor; // (a & b) ^ c in one lop3

/// The BF16 pairs of one word of codes (the swapped kernels' A fragments, the tiled kernel's B
/// fragments): p[j] = (128 + u_j, 128 + u_{j+4}).
__device__ __forceinline__ void codePairs(std::uint32_t word, std::uint32_t (&p)[4])
{
    p[0] = andXor(word, 0x000F000Fu, 0x43084308u);
    p[1] = andXor(word >> 4, 0x000F000Fu, 0x43084308u);
    p[2] = andXor(word >> 8, 0x000F000Fu, 0x43084308u);
    p[3] = andXor(word >> 12, 0x000F000Fu, 0x43084308u);
}

__device__ __forceinline__ std::uint32_t wordOf(const uint4 &r, int w)
{
    return w == 0 ? r.x : w == 1 ? r.y : w == 2 ? r.z : r.w;
}

/// One 16-byte cp.async global → shared (L2 only: W is read once).
__device__ __forceinline__ void cpAsync16(void *smem, const void *gmem)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
    __trap(); // cp.async needs sm_80 or newer (the build targets sm_90)
#else
    const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(smem));
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(s), "l"(gmem));
#endif
}
__device__ __forceinline__ void cpAsyncCommit()
{
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800
    asm volatile("cp.async.commit_group;\n" ::);
#endif
}
template <int N> __device__ __forceinline__ void cpAsyncWait()
{
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800
    asm volatile("cp.async.wait_group %0;\n" ::"n"(N));
#endif
}

/// The W row of a lane's fragment half h (rows gid, gid + 8) of the m16 tile at row0 (the swapped
/// kernels' A operand): past n the last row, n − 1 (its operands are loaded, its outputs never stored).
__device__ __forceinline__ long long laneRow(long long row0, int gid, int h, long long n)
{
    const long long r = row0 + gid + 8 * h;
    return r < n ? r : n - 1;
}

/// The swapped kernels' X stage: tokens [0, rowsX) × chunks [p0, p0 + pc) of 128 k of the X at
/// x + xOff (an expert's; row stride k) into xs (rs uint4 a token), octet oo = 4·tig + w of a
/// chunk at slot 4w + tig, its 8 values as the B fragments' pairs (k, k + 4). Threads: the
/// block's threads. (x and xOff apart: the form ptxas allocates as the kernels' own loops did.)
template <int Threads>
__device__ __forceinline__ void stageX(uint4 *xs, const __nv_bfloat16 *x, long long xOff, long long k, int rowsX,
                                       int p0, int pc, int rs)
{
    for (int i = threadIdx.x; i < rowsX * pc * 16; i += Threads) {
        const int r = i / (pc * 16), o = i - r * (pc * 16);
        const int c = o >> 4, oo = o & 15;
        const uint4 g =
            __ldg(reinterpret_cast<const uint4 *>(x + xOff + r * k + static_cast<long long>(p0 + c) * 128 + 8 * oo));
        xs[r * rs + c * 16 + (oo & 3) * 4 + (oo >> 2)] =
            make_uint4(__byte_perm(g.x, g.z, 0x5410), __byte_perm(g.x, g.z, 0x7632), __byte_perm(g.y, g.w, 0x5410),
                       __byte_perm(g.y, g.w, 0x7632));
    }
}

/// A lane's offsets into an X stage of rs uint4 a token: token 8t + gid (past rowsX the last
/// staged token, rowsX − 1), plus tig.
template <int NT> __device__ __forceinline__ void tokenOffsets(int (&tok)[NT], int gid, int q, int rowsX, int rs)
{
#pragma unroll
    for (int t = 0; t < NT; ++t)
        tok[t] = (8 * t + gid < rowsX ? 8 * t + gid : rowsX - 1) * rs + q;
}

/// The swapped kernels' outputs of a warp's m16 tile of W rows from row0 (n) × NT n8 tiles of
/// tokens (m): d0, d1 (row gid; tokens 2tig, 2tig+1), d2, d3 (row gid + 8), inside M × N only, each
/// value(acc, m) as BF16 into y when splitK is 1, else added into the FP32 workspace ws (then
/// splitKLastBlock, splitKConvert). Both row stride n.
/// The general form: partials of type T (float, or int for exact INT32 sums), one(acc, m, n) the
/// BF16 output's value at one slice, part(acc, m) what the atomics add to the workspace.
template <int NT, class T, class One, class Part>
__device__ __forceinline__ void storeSwapped(const T (&acc)[NT][4], long long row0, int gid, int q, long long M,
                                             long long N, int splitK, __nv_bfloat16 *y, T *ws, One one, Part part)
{
#pragma unroll
    for (int t = 0; t < NT; ++t)
#pragma unroll
        for (int r = 0; r < 4; ++r) {
            const long long n = row0 + gid + (r >= 2 ? 8 : 0);
            const long long m = 8 * t + 2 * q + (r & 1);
            if (m >= M || n >= N)
                continue;
            if (splitK == 1)
                y[m * N + n] = __float2bfloat16_rn(one(acc[t][r], m, n));
            else
                atomicAdd(ws + m * N + n, part(acc[t][r], m));
        }
}
template <int NT, class Value>
__device__ __forceinline__ void storeSwapped(const float (&acc)[NT][4], long long row0, int gid, int q, long long M,
                                             long long N, int splitK, __nv_bfloat16 *y, float *ws, Value value)
{
    storeSwapped(
        acc, row0, gid, q, M, N, splitK, y, ws, [&](float v, long long m, long long) { return value(v, m); }, value);
}

/// The output of value index v in clusterStoreSwapped's red (T_ threads a block, rows from
/// rowBlock0): row n, token m.
__device__ __forceinline__ void clusterOutputOf(int v, int T_, long long rowBlock0, long long &m, long long &n)
{
    const int j = v / T_, th = v - j * T_, t = j >> 2, r = j & 3, ln = th & 31;
    n = rowBlock0 + 16 * (th >> 5) + (ln >> 2) + (r >= 2 ? 8 : 0);
    m = 8 * t + 2 * (ln & 3) + (r & 1);
}
/// The values block `rank` of a cluster sums (clusterStoreSwappedFrom): [lo, hi) of the block's
/// V = NT·4·blockDim value indices, the rank-th of splitK equal shares (the last one shorter).
template <int NT> __device__ __forceinline__ void clusterShareOf(int splitK, int rank, int &lo, int &hi)
{
    const int V = NT * 4 * static_cast<int>(blockDim.x), share = (V + splitK - 1) / splitK;
    lo = rank * share;
    hi = lo + share < V ? lo + share : V;
}
/// The output of this thread's first sum in clusterStoreSwapped with NT token tiles, clamped into
/// M × N: a kernel calls its prepare there at its start, so that the finishing operands' loads are
/// done long before the tail needs them (the block that finishes its cluster last waits on nothing).
template <int NT>
__device__ __forceinline__ void clusterFirstOutput(long long rowBlock0, long long M, long long N, int splitK,
                                                   long long &m, long long &n)
{
    int lo = 0, hi = 0;
    clusterShareOf<NT>(splitK, static_cast<int>(blockIdx.y), lo, hi);
    clusterOutputOf(lo + static_cast<int>(threadIdx.x), static_cast<int>(blockDim.x), rowBlock0, m, n);
    m = m < M ? m : M - 1;
    n = n < N ? n : N - 1;
}

/// Split-K within the tile's thread-block cluster (sm_90; the kernel launched by launchClustered
/// with clusters of (1, splitK, 1), so blockIdx.y, the K slice, is the block's rank): each thread
/// writes value(acc, m) of its outputs into red (shared memory, NT·4 values of T a thread of the
/// block, value's index j = 4t + r at j·blockDim + thread); after the cluster's barrier, the block of
/// rank r sums the r-th of splitK shares of those values over the splitK blocks' red in rank order
/// (distributed shared memory: a value's splitK loads are issued together, then added; the first
/// sum 0 + v₀ = v₀), arrives at the cluster's second barrier (its reads of the others' red are
/// done), stores finish(sum, ctx) as BF16 where inside M × N (rows from rowBlock0, 16 a warp: a
/// warp past the last tile lands past N and stores nothing), and waits there, so that every
/// block's red stays until the others have read it. The same sums in the same order on every
/// launch (the atomics' order is not), and no workspace, counters or fences. Every thread of the
/// block must call it (red may alias the X stage: it starts with __syncthreads). T: float, or int
/// (exact INT32 partials that finish scales once). ctx: finish's operands of the thread's first sum
/// (prepare at clusterFirstOutput, made by the caller, at best at the kernel's start); any further
/// sum's come from prepare(m, n) after the second arrival.
template <int NT, class T, class Value, class Ctx, class Prepare, class Finish>
__device__ __forceinline__ void clusterStoreSwappedFrom(const T (&acc)[NT][4], T *red, long long rowBlock0, long long M,
                                                        long long N, int splitK, __nv_bfloat16 *y, Value value, Ctx ctx,
                                                        Prepare prepare, Finish finish)
{
    static_assert(sizeof(T) == 4, "32-bit partials");
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    const int T_ = static_cast<int>(blockDim.x), tid = static_cast<int>(threadIdx.x), q = tid & 3;
    __syncthreads(); // every warp is done with what red may alias
#pragma unroll
    for (int t = 0; t < NT; ++t)
#pragma unroll
        for (int r = 0; r < 4; ++r) {
            const long long m = 8 * t + 2 * q + (r & 1);
            red[(4 * t + r) * T_ + tid] = m < M ? value(acc[t][r], m) : T(0);
        }
    int lo = 0, hi = 0;
    clusterShareOf<NT>(splitK, static_cast<int>(blockIdx.y), lo, hi);
    asm volatile("barrier.cluster.arrive.release.aligned;\nbarrier.cluster.wait.acquire.aligned;\n" ::: "memory");
    const unsigned base = static_cast<unsigned>(__cvta_generic_to_shared(red));
    // a thread's sums: at most NT·4 (share ≤ V / 2, as splitK ≥ 2); each from its splitK ≤ 16 values
    constexpr int kMost = NT * 4;
    T sums[kMost];
#pragma unroll
    for (int i = 0; i < kMost; ++i) {
        const int v = lo + tid + i * T_;
        if (v >= hi)
            break;
        unsigned bits[16];
#pragma unroll
        for (int b = 0; b < 16; ++b)
            if (b < splitK) {
                unsigned remote;
                asm volatile("mapa.shared::cluster.u32 %0, %1, %2;\n" : "=r"(remote) : "r"(base + 4u * v), "r"(b));
                asm volatile("ld.shared::cluster.b32 %0, [%1];\n" : "=r"(bits[b]) : "r"(remote) : "memory");
            }
        T sum = T(0);
#pragma unroll
        for (int b = 0; b < 16; ++b)
            if (b < splitK) {
                if constexpr (std::is_same_v<T, float>)
                    sum += __uint_as_float(bits[b]);
                else
                    sum += static_cast<T>(bits[b]);
            }
        sums[i] = sum;
    }
    asm volatile("barrier.cluster.arrive.release.aligned;\n" ::: "memory"); // done with the others' red
#pragma unroll
    for (int i = 0; i < kMost; ++i) {
        const int v = lo + tid + i * T_;
        if (v >= hi)
            break;
        long long m, n;
        clusterOutputOf(v, T_, rowBlock0, m, n);
        if (m < M && n < N) {
            if (i > 0)
                ctx = prepare(m, n);
            y[m * N + n] = __float2bfloat16_rn(finish(sums[i], ctx));
        }
    }
    asm volatile("barrier.cluster.wait.acquire.aligned;\n" ::: "memory");
#else
    (void)acc, (void)red, (void)rowBlock0, (void)M, (void)N, (void)splitK, (void)y, (void)value, (void)ctx,
        (void)prepare, (void)finish;
    __trap(); // clusters need sm_90 (launchClustered never asks below it)
#endif
}

/// clusterStoreSwappedFrom with the first sum's operands prepared on the way in.
template <int NT, class T, class Value, class Prepare, class Finish>
__device__ __forceinline__ void clusterStoreSwapped(const T (&acc)[NT][4], T *red, long long rowBlock0, long long M,
                                                    long long N, int splitK, __nv_bfloat16 *y, Value value,
                                                    Prepare prepare, Finish finish)
{
    long long m0 = 0, n0 = 0;
    clusterFirstOutput<NT>(rowBlock0, M, N, splitK, m0, n0);
    clusterStoreSwappedFrom(acc, red, rowBlock0, M, N, splitK, y, value, prepare(m0, n0), prepare, finish);
}

/// The FP32 partials' form: the sums stored as they are.
template <int NT, class Value>
__device__ __forceinline__ void clusterStoreSwapped(const float (&acc)[NT][4], float *red, long long rowBlock0,
                                                    long long M, long long N, int splitK, __nv_bfloat16 *y, Value value)
{
    clusterStoreSwapped(
        acc, red, rowBlock0, M, N, splitK, y, value, [](long long, long long) { return 0; },
        [](float v, int) { return v; });
}

/// Split-K, once every thread of the block has added its FP32 partials into the tile's workspace:
/// the block arrives at the tile's counter (after a fence: its sums are visible first). True in
/// the last of the tile's splitK blocks only, after a second fence (its reads of the sums come
/// after the other blocks' adds). The counter is reset by splitKConvert.
__device__ __forceinline__ bool splitKLastBlock(unsigned *counter, int splitK)
{
    __shared__ bool lastBlock;
    __threadfence();
    __syncthreads();
    if (threadIdx.x == 0)
        lastBlock = atomicAdd(counter, 1u) == static_cast<unsigned>(splitK - 1);
    __syncthreads();
    if (!lastBlock)
        return false;
    __threadfence();
    return true;
}

/// Split-K, the last block of a tile (splitKLastBlock): rows [m0, m0 + rows) × columns [n0, n0 +
/// cols) of the FP32 sums ws (row stride ld) to BF16 in y (the same layout), the sums re-zeroed
/// and the tile's counter reset for the next launch. The sums are read and written in L2
/// (__ldcg / __stcg: the other blocks' atomics left them there); threads: the block's threads.
/// T: float, or int with finish(v, m, n) giving each output's value from the exact INT32 sum.
template <class T, class Finish>
__device__ __forceinline__ void splitKConvert(T *ws, __nv_bfloat16 *y, long long ld, long long m0, long long rows,
                                              long long n0, long long cols, unsigned *counter, unsigned threads,
                                              Finish finish)
{
    for (long long i = threadIdx.x; i < rows * cols; i += threads) {
        const long long m = m0 + i / cols, n = n0 + i % cols;
        T *p = ws + m * ld + n;
        y[m * ld + n] = __float2bfloat16_rn(finish(__ldcg(p), m, n));
        __stcg(p, T(0));
    }
    if (threadIdx.x == 0)
        *counter = 0u;
}
__device__ __forceinline__ void splitKConvert(float *ws, __nv_bfloat16 *y, long long ld, long long m0, long long rows,
                                              long long n0, long long cols, unsigned *counter, unsigned threads)
{
    splitKConvert(ws, y, ld, m0, rows, n0, cols, counter, threads, [](float v, long long, long long) { return v; });
}

/// The end of the fused kernels' FP64 output checks (w4a16CheckFp64, fp4GemmCheckFp64,
/// w4a8CheckFp64; one warp an output): the lanes' partial ref = Σ x·ŵ and mag = Σ |x·ŵ| summed to
/// lane 0, which scales both by *scale when given (W4A8's token scale), then records
/// |y − ref| / (2⁻⁸·|ref| + (1 + 2⁻⁸)·coef·mag) — NaN or Inf as 1e30 — in *worst (the largest, by
/// its bits) and one more checked output in *count.
__device__ __forceinline__ void checkRecord(double ref, double mag, double coef, const float *scale,
                                            const __nv_bfloat16 &y, unsigned long long *worst,
                                            unsigned long long *count)
{
    for (int o = 16; o > 0; o >>= 1) {
        ref += __shfl_down_sync(0xffffffffu, ref, o);
        mag += __shfl_down_sync(0xffffffffu, mag, o);
    }
    if ((threadIdx.x & 31) != 0)
        return;
    if (scale) {
        const double st = static_cast<double>(*scale);
        ref *= st;
        mag *= fabs(st);
    }
    const double bound = ldexp(fabs(ref), -8) + (1.0 + ldexp(1.0, -8)) * coef * mag + 1e-30;
    double r = fabs(static_cast<double>(__bfloat162float(y)) - ref) / bound;
    if (!(r <= 1e30))
        r = 1e30; // NaN / Inf
    atomicMax(worst, static_cast<unsigned long long>(__double_as_longlong(r)));
    atomicAdd(count, 1ull);
}

#endif // QS_HAS_MMA

} // namespace quantscope::gpu::launch::w4a16detail
