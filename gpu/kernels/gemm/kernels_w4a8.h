// SPDX-License-Identifier: MIT
#pragma once
/// \file kernels_w4a8.h
/// The fused W4A8 GEMMs (gemm_w4a8.cu, CUDA builds only; issue 43): Y[M,N] = X̂[M,K]·Ŵᵀ for
/// M ≤ kW4a8FusedMaxM, Ŵ = s·(q − z) read straight from the engine's packed INT4 layout
/// (kernels_gemmlab.h: row n of W [N, K] is K/2 bytes, byte j holding k = 2j in its low nibble and
/// k = 2j + 1 in its high one, two's-complement codes in [−8, 7]; FP32 scales and INT8 zero points
/// per (row, group along K)), and X̂ = s_tok·x quantized per token:
///   INT8: mma.sync m16n8k32 s8·s8 → s32, an exact INT32 sum per piece of a group, then
///         y = s_tok·Σ s·(acc − (z + 8)·Σx) in FP32 (u = q + 8 is the INT8 operand; Σx of the
///         piece summed in the kernel from X's codes; per channel the streaming kernel adds exact
///         INT32 partials over its K slices and applies the term once, Σx from X's chunk sums);
///   E4M3: mma.sync m16n8k32 e4m3·e4m3 → f32 on q − z (exact in E4M3 for z ∈ [−9, 8]), an FP32
///         sum per piece of at most 128 k, scaled per group.
/// The operands are swapped (Yᵀ = Ŵ·Xᵀ: 16 rows of W the mma's M, the tokens its n = 8), as the
/// W4A16 small-M kernel. BF16 out. The numerics: docs/numerics.md "Fused W4A8 GEMM".
#include <cstddef>
#include <cstdint>
#include <string>

namespace quantscope::gpu::launch {

/// The largest M the fused kernels run (two n8 tiles of tokens).
inline constexpr long long kW4a8FusedMaxM = 16;
/// The largest K the fused kernels run: their INT32 sums stay exact (|q − z|·|x̂| ≤ 15·127 a term),
/// and X's chunk sums hold K/128 chunks.
inline constexpr long long kW4a8FusedMaxK = 65536;

/// One fused W4A8 GEMM.
struct W4a8Problem {
    const std::uint8_t *packed = nullptr;
    const float *scales = nullptr;
    const std::int8_t *zeros = nullptr;
    const void *xq = nullptr;      ///< X's codes [M, K]: INT8 or E4M3 bytes
    const float *xScale = nullptr; ///< s_tok [M]
    void *y = nullptr;             ///< BF16 [M, N]
    long long m = 0, n = 0, k = 0, group = 0;
    bool fp8 = false; ///< E4M3 activations (else INT8)
    /// The tile-ordered copy of the same codes, scales and zero points that the streaming kernel
    /// reads (w4a8TileReorder of a W4a16Problem with this packed / scales / zeros, n, k, group: the
    /// W4A16 streaming kernel's layout with each word's nibbles in the split order, which saves the
    /// operand's byte permutes). Its zero points must lie in [−128, 120] (the copy holds BF16
    /// 136 + z; w4a16ZerosInRange). Null: the row-order kernel.
    const void *tilePacked = nullptr;
    /// X's chunk sums (w4a8QuantizeX's `sums`, or w4a8XSums of the codes). The INT8 streaming
    /// kernel per channel (group = K) needs them: its slices add exact INT32 partials and the
    /// zero-point term (z + 8)·Σx is applied once, with the token's Σx over K read from here. With
    /// groups, E4M3 and the row-order kernel ignore it (they sum Σx from X's codes in the kernel).
    const int *xSums = nullptr;
};

/// splitK: K slices (0: the fewest that fill 85 % of the last wave); chunksAhead: chunks of 128 k
/// of W a warp loads before its mma's (row-order kernel: 2 or 4, 0: 2; streaming kernel: 1 or 2
/// a step, 0: 1 up to M = 8, else 2). kernel: 0 the launcher's choice (the streaming kernel wherever w4a8TileRefusal
/// is empty, else the row-order one), 1 the row-order kernel (gemm_w4a8.cu) on W as stored, 2 the
/// streaming kernel (gemm_w4a8_stream.cu) on W4a8Problem::tilePacked. warps: the streaming
/// kernel's warps a block, 4 (0), 8 or 16.
struct W4a8Tiling {
    int splitK = 0;
    int chunksAhead = 0;
    int kernel = 0;
    int warps = 0;
    int reduce =
        0; ///< kernel 2 with K split: as W4a16Tiling::reduce (0, 1 atomics; 2 the cluster's shared memory where it fits)
    /// kernel 2, INT8 per channel at 9 … 16 tokens: 2 the warpgroup kernel (gemm_w4a8_wgmma.cu: wgmma
    /// m64n16k32 with W's codes as the register operand and X̂ a step ahead through a shared-memory
    /// ring; sm_90a builds), 1 the mma.sync kernel, 0 the launcher's choice (the warpgroup kernel
    /// where it runs).
    int wgmma = 0;
};

struct W4a8Launch {
    int splitK = 0, blocks = 0, tokenTiles = 0, chunksAhead = 0;
    bool streamed = false; ///< the streaming kernel ran (warps: its warps a block)
    int warps = 4;
    bool clusterReduce = false; ///< streaming: the K slices met in their cluster's shared memory
    bool wgmma = false;         ///< streaming: the warpgroup kernel ran (W4a8Tiling::wgmma)
};

/// Whether the fused kernels are in this build (false on HIP: no mma.sync).
bool w4a8FusedBuilt();
/// "" when the kernel runs this shape, else why not: M in [1, 16]; K a positive multiple of 128
/// up to 65536 (the INT32 sums stay exact); group 32, 64 or a multiple of 128 dividing K.
std::string w4a8FusedRefusal(bool fp8, long long m, long long k, long long group);
/// "" when the zero points suit the path (INT8: any; E4M3: all in [−9, 8], so that every q − z
/// lies in [−16, 16] and is exact in E4M3), else why not.
std::string w4a8ZerosRefusal(bool fp8, const std::int8_t *zeros, std::size_t count);
/// "" when the streaming kernel runs p, else why not: the fused refusal's conditions, the group
/// a multiple of 128 (per channel included), the tile-ordered copy given, X's codes and the copy
/// 16-byte aligned.
std::string w4a8TileRefusal(const W4a8Problem &p);
/// "" when the warpgroup kernel (W4a8Tiling::wgmma; gemm_w4a8_wgmma.cu) runs p beyond the streaming
/// kernel's conditions: a build with its sm_90a code, an sm_90 device, INT8 per channel, M in 9 … 16;
/// else why not.
std::string w4a8WgmmaRefusal(const W4a8Problem &p);
/// Bytes of FP32 workspace (M·N floats) and of tile counters; both zeroed once before the first
/// launch (the kernel leaves them zero after each launch).
std::size_t w4a8WorkspaceBytes(const W4a8Problem &p);
std::size_t w4a8CounterBytes(const W4a8Problem &p);
/// X (BF16 [M, K]) quantized per token (gemm/w4a8_math.h: s = amax / 127 or / 448, codes x / s
/// rounded to nearest even): codes [M, K] (INT8 or E4M3 bytes), scales [M]. One block a token.
/// sums (INT8, M ≤ 16, K a multiple of 128; else null): the codes' chunk sums as w4a8XSums writes
/// them, from the same block once its codes are written (the quantizer's by-product that the
/// streaming kernel reads, as serving kernels take the activations' sums from their quantizer).
void w4a8QuantizeX(const void *xBf16, long long m, long long k, bool fp8, void *codes, float *scales, int *sums,
                   void *stream);
/// X's chunk sums: prefix sums of each token's INT8 codes over chunks of 128 k, sums[16·c + m] =
/// Σ_{k < 128·c} x̂[m][k] for c = 0 … K/128 and m < M ≤ 16 (entries of m ≥ M are not written; the
/// kernel's output columns past M, which it never stores, read them). Exact in INT32 (|Σ| ≤
/// 127·65536). Bytes:
std::size_t w4a8XSumsBytes(long long k);
/// The chunk sums of INT8 codes [M, K] already quantized (M ≤ 16, K a multiple of 128).
void w4a8XSums(const void *codes, long long m, long long k, int *sums, void *stream);

/// Queues the fused kernel on `stream` (cudaStream_t). workspace / counters may be null (then one
/// K slice). Throws GpuError on a refused shape.
W4a8Launch w4a8Fused(const W4a8Problem &p, const W4a8Tiling &tiling, void *workspace, void *counters, void *stream);

/// The output check on the device, independent of the kernel: per output (every element) the FP64
/// ref = Σ_k s_tok·x_k·s·(q − z) and mag = Σ_k |…| from the codes, and |y − ref| / (2⁻⁸·|ref| +
/// (1 + 2⁻⁸)·c·mag) with c of w4a8BoundCoefficient. Writes the worst ratio (a double) to *worstDev
/// and the outputs checked to *countDev (both zeroed by the call).
void w4a8CheckFp64(const W4a8Problem &p, double *worstDev, unsigned long long *countDev, void *stream);

} // namespace quantscope::gpu::launch
