// SPDX-License-Identifier: MIT
#pragma once
/// \file kernels_w4a16.h
/// The fused W4A16 GEMM (gemm_w4a16.cu, CUDA builds only; issue 43): Y[M,N] = X[M,K]·Ŵᵀ with
/// Ŵ = s·(q − z) read straight from the engine's packed INT4 layout (kernels_gemmlab.h: row n
/// of W [N, K] is K/2 bytes, byte j holding k = 2j in its low nibble and k = 2j + 1 in its high
/// one, two's-complement codes in [−8, 7]; FP32 scales and INT8 zero points per (row, group along
/// K)), no dequantized copy of W. X and Y BF16, row-major. Tensor cores (mma.sync m16n8k16 BF16,
/// FP32 accumulation), the nibbles turned into BF16 in registers. The numerics:
/// docs/numerics.md "Fused W4A16 GEMM".
#include <cstddef>
#include <cstdint>
#include <string>

namespace quantscope::gpu::launch {

/// One (optionally batched) fused W4A16 GEMM. Expert e reads W at packed + e·wStride bytes,
/// scales / zeros at + e·sStride elements, X at x + e·xStride and writes Y at y + e·yStride
/// (elements, BF16). experts = 1: the strides are not read.
struct W4a16Problem {
    const std::uint8_t *packed = nullptr;
    const float *scales = nullptr;
    const std::int8_t *zeros = nullptr;
    const void *x = nullptr; ///< BF16 [M, K]
    void *y = nullptr;       ///< BF16 [M, N]
    long long m = 0, n = 0, k = 0, group = 0;
    int experts = 1;
    long long wStride = 0, sStride = 0, xStride = 0, yStride = 0;
    /// The CUTLASS route's s', z' (w4a16CutlassPrepare); set, it lets the launcher take that route
    /// (kernel 0 above kW4a16SwappedMaxM where it runs, kernel 6 always) and the workspace grow by
    /// the route's own region.
    const void *cutlassMeta = nullptr;
    /// The CUTLASS route's reordered W (w4a16CutlassReorder), which its tiles 6…8 read.
    const void *cutlassPacked = nullptr;
    /// The streaming kernel's tile-ordered copy of W and its metadata (w4a16TileReorder); set, the
    /// launcher runs that kernel (7) for M ≤ kW4a16SwappedMaxM where it runs (w4a16TileRefusal).
    const void *tilePacked = nullptr;
};

/// The tile and split parameters (0: the launcher's choice). nPerWarp: rows of W per warp (the
/// original kernel: 8, 16 or 32; 4 warps a block; 32 only while M ≤ 16, 16 at most above; default
/// 8 for M ≤ 8 and above 32 rows, else 16); splitK: K slices (blocks along K; > 1 reduces FP32 partials by atomics into
/// the workspace, the last block of a tile converting to BF16 and re-zeroing it; default: the
/// fewest slices that fill 85 % of the last wave of resident blocks). The m-tile follows M: 16,
/// 32, 64 or 128 rows of X a block (more rows: more blocks).
/// kernel: 0 the launcher's choice (the swapped kernel for M ≤ kW4a16SwappedMaxM, else the
/// original); 1 the original (X as the mma's A operand, 16·mTile tokens a block, any M); 2 the
/// swapped small-M kernel (Yᵀ = Ŵ·Xᵀ: 16 rows of W as the mma's A operand, the tokens its n = 8,
/// one or two n8 tiles; M ≤ kW4a16SwappedMaxM, above it the original runs). Swapped: nPerWarp
/// 16 or 32 (one or two m16 tiles of W a warp; default 16), chunksAhead 1, 2 or 4 (chunks of 128
/// k of W a warp loads before its mma's; default 2). 3 the pipelined swapped kernel (the swapped
/// kernel's arithmetic, 16 rows of W a warp, 4 warps a block, W through a cp.async ring of
/// chunksAhead = 4 or 8 chunks a warp in shared memory, default 4; the scales / zero points staged
/// in shared memory; M ≤ kW4a16SwappedMaxM, above it the original runs); 4 the same with 8 warps
/// a block (128 rows of W share the X stage) and a ring of 4. 5 the tiled kernel
/// (gemm_w4a16_tiled.cu; the launcher's choice above kW4a16SwappedMaxM, any M when asked): X as
/// the mma's A operand, a block tile of BM tokens × BN rows of W through a cp.async ring of
/// chunksAhead = 2, 3 or 4 stages (default 4) of 128 k of X and packed W in shared memory, each
/// warp a sub-tile of several m16 × n8 tiles; nPerWarp picks the tile (1-based; 0 or out of range:
/// by M, 1 up to 16 rows, 2 up to 32, 4 up to 64, else 5): 1 16×128 (4 warps of 16×32), 2 32×128
/// (4 of 32×32), 3 64×128 (8 of 32×32), 4 64×128 (4 of 64×32), 5 128×128 (8 of 64×32), 6 64×256
/// (8 of 64×32), 7 16×256 (8 of 16×32), 8 64×256 (8 of 32×64). 6 the CUTLASS route
/// (w4a16Cutlass; needs W4a16Problem::cutlassMeta; nPerWarp 1, 2, 3 picks its tile, else by M); the
/// launcher's choice above kW4a16SwappedMaxM wherever it runs (w4a16CutlassRefusal empty, the
/// metadata given), the tiled kernel otherwise. 7 the streaming kernel (gemm_w4a16_stream.cu; needs
/// W4a16Problem::tilePacked, group a multiple of 128, M ≤ kW4a16SwappedMaxM): the swapped kernel's
/// arithmetic on the tile-ordered copy, 16 rows of W a warp, 4, 8 or 16 warps a block (`warps`),
/// chunksAhead 1 or 2 chunks a step (default 2; 1 for one expert above 8 rows of X at 16 warps)
/// with the next step's loads issued before this
/// step's mma's; the launcher's choice up to kW4a16SwappedMaxM wherever it runs.
struct W4a16Tiling {
    int nPerWarp = 0;
    int splitK = 0;
    int kernel = 0;
    int chunksAhead = 0;
    /// Kernel 7: warps a block, 4, 8 or 16 (128 or 256 rows of W share the X stage); 0: 16 for the
    /// MoE batch (experts > 1) and above 8 rows of X, else 8.
    int warps = 0;
    /// Kernel 7 with K split: how a tile's slices meet. 0 or 1: FP32 atomics into the workspace, the
    /// last block converts; 2: the slices as one thread-block cluster summing in distributed shared
    /// memory in slice order, the same bits on every launch (sm_90, 2 … 16 slices where such a
    /// cluster fits, else the atomics). Not the default: on the H200 clusters of 8 blocks of 8 or 16
    /// warps wait for whole GPCs and took M = 1 from 14.4 to 20.0 µs (docs/perf.md).
    int reduce = 0;
};

/// The largest M the swapped kernel runs (two n8 tiles of tokens).
inline constexpr long long kW4a16SwappedMaxM = 16;

/// What ran: the tiling after the launcher's choices.
struct W4a16Launch {
    int nPerWarp = 0, mTile = 0, splitK = 0, blocks = 0;
    bool scaleInB = false;  ///< g32 / g64: s·(q − z) rounded to BF16 in the W fragment
    bool swapped = false;   ///< the swapped small-M kernel ran (mTile: its n8 tiles of tokens)
    int chunksAhead = 0;    ///< swapped: chunks of W a warp loads ahead
    bool pipelined = false; ///< the pipelined swapped kernel ran (kernel 3 or 4; chunksAhead: its ring's chunks)
    int warps = 4;          ///< warps a block (the pipelined and tiled kernels: 4 or 8; streaming: 4, 8 or 16)
    bool tiled = false;     ///< the tiled kernel ran (kernel 5; chunksAhead: its stages, mTile: m16
                            ///< tiles a warp, nPerWarp: rows of W a warp)
    int tile = 0;           ///< tiled: the tile's number (W4a16Tiling::nPerWarp of kernel 5)
    int bm = 0, bn = 0;     ///< tiled / CUTLASS: the block tile, tokens × rows of W
    bool streamed = false;  ///< the streaming kernel ran (kernel 7; chunksAhead: chunks a step, warps: 4, 8 or 16)
    bool clusterReduce =
        false;            ///< streaming: the K slices met in their cluster's shared memory (W4a16Tiling::reduce 2)
    bool cutlass = false; ///< the CUTLASS route ran (w4a16Cutlass; tile 1…5, bm its tokens; splitK
                          ///< 0: its stream-K schedule splits K, 1: a persistent grid)
};

/// Whether the fused kernel is in this build (false on HIP: no mma.sync).
bool w4a16FusedBuilt();
/// "" when the kernel runs this shape, else why not: K a positive multiple of 128; group 32, 64
/// or a multiple of 128 dividing K (K itself: per channel). The zero points must lie in
/// [−128, 120] (136 + z exact in BF16); the caller checks its data (w4a16ZerosInRange).
std::string w4a16FusedRefusal(long long k, long long group);
/// Whether every zero point lies in [−128, 120].
bool w4a16ZerosInRange(const std::int8_t *zeros, std::size_t count);
/// Bytes of FP32 workspace the launch needs (E·M·N floats; with cutlassMeta set, plus the CUTLASS
/// route's own region, which it initializes itself) and of tile counters; both must be zeroed once
/// before the first launch (the kernels leave them zero after each launch).
std::size_t w4a16WorkspaceBytes(const W4a16Problem &p);
std::size_t w4a16CounterBytes(const W4a16Problem &p);
/// Queues the kernel on `stream` (cudaStream_t). workspace / counters may be null when the
/// launch does not split K (the returned splitK is 1). Throws GpuError on a refused shape.
W4a16Launch w4a16Fused(const W4a16Problem &p, const W4a16Tiling &tiling, void *workspace, void *counters, void *stream);

/// The output check on the device, independent of the kernel: per output of the checked rows
/// (every row when rowStride = 1, else rows 0, rowStride, 2·rowStride, … and M − 1) of expert 0,
/// the FP64 product ref = Σ_k x_k·s·(q − z) and mag = Σ_k |x_k·s·(q − z)| from the packed
/// operands, and |y − ref| / (2^-8·|ref| + (1 + 2^-8)·(K·2^-23 + wRel)·mag) (the bound of
/// docs/numerics.md "Fused W4A16 GEMM"), the bound plus (1 + 2^-8)·zRel·Σ_k |x_k·s·z| (the
/// CUTLASS route's rounded −s·z). Writes the worst ratio (a double) to *worstDev and the
/// outputs checked (an unsigned long long) to *countDev; both are zeroed by the call.
void w4a16CheckFp64(const W4a16Problem &p, long long rowStride, double wRel, double *worstDev,
                    unsigned long long *countDev, void *stream, double zRel = 0);
/// The CUTLASS route's wRel and zRel for w4a16CheckFp64 (docs/numerics.md "Fused W4A16 GEMM", the CUTLASS route).
/// Ŵ = bf16(q·s' + z') is within 2^-8·(|s(q − z)| + |s·z|) of s·(q − z); 1.5·2^-8 (plus a margin)
/// also holds were the multiply and the add rounded apart (bf16(bf16(q·s') + z')).
inline constexpr double kW4a16CutlassWRel = 3.0 / 512 + 1.0 / 16384;
inline constexpr double kW4a16CutlassZRel = 3.0 / 512 + 1.0 / 16384;

/// The streaming kernel's tile-ordered copy (gemm_w4a16_stream.cu): bytes for every expert (0 when
/// the shape has none: K and the group multiples of 128, the group dividing K). Per expert, the
/// codes as ⌈N/16⌉ tiles × K/128 chunks of one KiB — byte 512·h + 16·lane + b of (tile t, chunk
/// ch) is byte 16·(lane % 4) + b of chunk ch of row 16t + lane/4 + 8h — then 96 bytes per (tile,
/// group): the FP32 scales of rows (gid, gid + 8) as pairs at 8·gid, their BF16 136 + z as pairs
/// at 64 + 4·gid. Rows past N: zero codes and scales, 136.
std::size_t w4a16TileBytes(const W4a16Problem &p);
/// "" when the streaming kernel runs p here, else why not.
std::string w4a16TileRefusal(const W4a16Problem &p);
/// Queues the one-time reorder of p's codes, scales and zero points (every expert) into dst
/// (w4a16TileBytes). Throws GpuError for a shape without the copy.
void w4a16TileReorder(const W4a16Problem &p, void *dst, void *stream);
/// The W4A8 streaming kernel's copy (W4a8Problem::tilePacked; gemm_w4a8_stream.cu): the same bytes
/// in the same places as w4a16TileReorder's, except that every 32-bit word of codes holds its eight
/// nibbles in the split order (w4a8_math.h, w4a8SplitNibbles). w4a16TileBytes of p.
void w4a8TileReorder(const W4a16Problem &p, void *dst, void *stream);

/// The CUTLASS route (gemm_w4a16_cutlass.cu; issue 43): the same operands through CUTLASS's Hopper
/// mixed-input GEMM (warpgroup MMA, TMA, warp-specialized cooperative kernel), run swapped (Yᵀ =
/// Ŵ·Xᵀ: the INT4 codes are the register operand, converted and scaled in registers). Its Ŵ is
/// bf16(q·s' + z') (CUTLASS's BF16 multiply and add, contracted into one FMA) with s' = bf16(s),
/// z' = bf16(−s·z) per (row, group), which w4a16CutlassPrepare
/// writes once per weight into `meta` (w4a16CutlassMetaBytes: the BF16 s' of every expert, then
/// their z', each [K/g, N], N contiguous) — the one-time conversion a serving engine does when it
/// loads the weight. Tiles of 128 rows of W × 64 k × a number of tokens: 1 16 tokens, 2 64, 4 128
/// (CUTLASS's stream-K schedule), 3 128, 5 256 (a persistent grid); 6 128 (stream-K), 7 256
/// (persistent), 8 64 (stream-K) read W from the reordered copy of w4a16CutlassReorder
/// (W4a16Problem::cutlassPacked). 0: by M — up to 32 tokens 1, up to 64 2, up to 512 4, else 5.
/// CUDA builds configured with the CUTLASS headers only (w4a16CutlassBuilt), on compute capability
/// 9.0.
bool w4a16CutlassBuilt();
/// "" when the route runs this problem here, else why not (K % 128, the group a multiple of 64 or
/// per channel, N % 8, experts packed back to back, a Hopper GPU, the build).
std::string w4a16CutlassRefusal(const W4a16Problem &p);
/// "" when the reordered tiles (6…8) run this problem, else why not (also N % 64).
std::string w4a16CutlassShuffledRefusal(const W4a16Problem &p);
/// Queues the one-time reorder of p's packed codes (every expert) into dst (E·N·K/2 bytes): the
/// same codes, each consumer thread's values of a wgmma fragment contiguous, in the order CUTLASS's
/// shuffle converter takes.
void w4a16CutlassReorder(const W4a16Problem &p, void *dst, void *stream);
std::size_t w4a16CutlassMetaBytes(const W4a16Problem &p);
/// Queues the s', z' conversion of p's FP32 scales and INT8 zero points into meta.
void w4a16CutlassPrepare(const W4a16Problem &p, void *meta, void *stream);
/// Bytes of workspace the route needs for p and tile (stream-K's partials; 0 for tiles 3, 5, 7).
std::size_t w4a16CutlassWorkspaceBytes(const W4a16Problem &p, int tile);
/// Queues the GEMM on `stream`. Throws GpuError with the refusal when it cannot run.
W4a16Launch w4a16Cutlass(const W4a16Problem &p, const void *meta, int tile, void *workspace, void *stream);

} // namespace quantscope::gpu::launch
