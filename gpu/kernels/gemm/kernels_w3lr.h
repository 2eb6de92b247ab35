// SPDX-License-Identifier: MIT
#pragma once
/// \file kernels_w3lr.h
/// The fused W3A16 GEMM with MiLo's rank-r compensator (gemm_w3lr.cu, CUDA builds only; issue
/// 43): Y[M, N] = X[M, K]·(Ŵ + Û·V̂)ᵀ for small M (the decode regime, M ≤ 16), Ŵ = s·(u − z) the
/// 3-bit HQQ weights (codes u ∈ [0, 7] packed as w3lr_pack.h lays them out; FP32 scales and FLOAT
/// zero points in code units per (row, group of `group` along K)), Û [N, r] and V̂ [r, K] the
/// compensator's factors as stored values (FP32). X and Y BF16, row-major. The operands swapped
/// as in the W4A16 small-M kernel (Yᵀ = Ŵ·Xᵀ: 16 rows of W the mma's A operand, built in
/// registers; the tokens its n = 8). The mma runs on the exact codes u into an FP32 sum per unit
/// (a group, or 256 k for groups ≥ 256) and the zero point enters through the per-token sums of
/// X: y += s·(Σ x·u − z·Σ x). The compensator: a pre-kernel T = X·V̂ᵀ (M × r, FP32), added as
/// Û[n, :]·T[m, :] in the GEMM's epilogue, the two overlapped by programmatic dependent launch
/// where the device has it. The numerics: docs/numerics.md "Fused W3A16 + MiLo compensator".
#include <cstddef>
#include <cstdint>
#include <string>

namespace quantscope::gpu::launch {

struct W3lrProblem {
    const std::uint32_t *packed = nullptr; ///< [N, 3K/32] words (w3lr_pack.h)
    const float *scales = nullptr;         ///< [N, K/group]
    const float *zeros = nullptr;          ///< [N, K/group], code units
    const void *x = nullptr;               ///< BF16 [M, K]
    void *y = nullptr;                     ///< BF16 [M, N]
    long long m = 0, n = 0, k = 0, group = 0;
    int rank = 0;             ///< r (0: the W3 GEMM alone)
    const float *u = nullptr; ///< Û [N, r]
    const float *v = nullptr; ///< V̂ [r, K]
};

/// The tiling (0: the launcher's choice). splitK: K slices (slices of whole 256-k blocks; > 1
/// reduces FP32 partials by atomics into the workspace, the last block of a tile converting to
/// BF16 and re-zeroing; default: the fewest slices that fill 85 % of the last wave of the resident
/// blocks left beside the pre-kernel's ≤ 32 blocks); pdl: 0 the launcher's choice (on where the device is sm_90 or newer),
/// 1 on, −1 off (plain stream order: the GEMM starts after the pre-kernel ends).
struct W3lrTiling {
    int splitK = 0;
    int pdl = 0;
};

struct W3lrLaunch {
    int splitK = 0, blocks = 0, tokenTiles = 0;
    bool pdl = false;       ///< the GEMM was launched with programmatic stream serialization
    bool preKernel = false; ///< rank > 0: T = X·V̂ᵀ ran first
};

inline constexpr long long kW3lrMaxM = 16;
inline constexpr int kW3lrMaxRank = 256;

/// Whether the fused kernel is in this build (false on HIP: no mma.sync).
bool w3lrFusedBuilt();
/// "" when the kernel runs this shape, else why not: 1 ≤ M ≤ 16; K a positive multiple of 256;
/// group 64, 128 or a multiple of 256 dividing K (K: per channel); 0 ≤ rank ≤ 256.
std::string w3lrRefusal(long long m, long long k, long long group, int rank);
/// Bytes of FP32 workspace (M·N partial sums + M·r of T) and of tile counters; zero both once
/// before the first launch (the kernel leaves the partial sums and counters zero after each).
std::size_t w3lrWorkspaceBytes(const W3lrProblem &p);
std::size_t w3lrCounterBytes(const W3lrProblem &p);
/// Queues the pre-kernel (rank > 0) and the GEMM on `stream` (cudaStream_t). workspace may not be
/// null when rank > 0 (T lives there); counters null: no split. Throws GpuError on a refused shape.
W3lrLaunch w3lrFused(const W3lrProblem &p, const W3lrTiling &tiling, void *workspace, void *counters, void *stream);

/// The unfused route's weight: out[n, k] = bf16(s·(u − z) + Σ_j Û[n, j]·V̂[j, k]) (FP32 ops),
/// BF16 [N, K], for a BF16 GEMM after it.
void w3lrDequantBf16(const W3lrProblem &p, void *outBf16, void *stream);

} // namespace quantscope::gpu::launch
