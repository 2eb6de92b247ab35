// SPDX-License-Identifier: MIT
#pragma once
/// \file kernels_fp4gemm.h
/// The fused FP4-weight GEMMs for small M (gemm_fp4.cu, CUDA builds only; issue 43): Y[M,N] =
/// X[M,K]·Ŵᵀ for MXFP4 (E2M1 codes, groups of 32 along K, UE8M0 scales) and NVFP4 (E2M1 codes,
/// groups of 16, E4M3 block scales, an FP32 global scale) weights × BF16 activations, BF16 out,
/// read straight from the packed layout: row n of W [N, K] is K/2 bytes, byte j holding the code
/// of k = 2j in its low nibble and of k = 2j + 1 in its high one (docs/numerics.md "FP4 E2M1":
/// E2M1 nibbles, bit 3 the sign); the scale bytes row-major [N, K/group]. Ŵ = value·2^(byte − 127)
/// (MXFP4) or value·b / global (NVFP4, the engine's multiplier form of the global scale).
/// The operands swapped as in the W4A16 small-M kernel (Yᵀ = Ŵ·Xᵀ on mma.sync m16n8k16 BF16, FP32
/// accumulation); E2M1 → BF16 and the block scale exactly in registers, NVFP4's global scale once
/// on the FP32 result. The numerics: docs/numerics.md "Fused FP4 GEMM".
#include <cstddef>
#include <cstdint>
#include <string>

namespace quantscope::gpu::launch {

enum class Fp4GemmFormat : std::uint8_t { Mxfp4, Nvfp4 };

/// The block size along K of a format: 32 (MXFP4) or 16 (NVFP4).
inline constexpr long long fp4GemmGroup(Fp4GemmFormat f)
{
    return f == Fp4GemmFormat::Mxfp4 ? 32 : 16;
}

/// One fused FP4 GEMM (device pointers).
struct Fp4GemmProblem {
    Fp4GemmFormat format = Fp4GemmFormat::Mxfp4;
    const std::uint8_t *packed = nullptr; ///< [N, K/2] two E2M1 codes a byte
    const std::uint8_t *scales = nullptr; ///< [N, K/group] UE8M0 (MXFP4) or E4M3 (NVFP4) bytes
    float globalScale = 1.0f;             ///< NVFP4: Ŵ = value·b / globalScale; MXFP4: not read
    const void *x = nullptr;              ///< BF16 [M, K]
    void *y = nullptr;                    ///< BF16 [M, N]
    long long m = 0, n = 0, k = 0;
};

/// 0: the launcher's choice. splitK: K slices (> 1: FP32 partials by atomics into the workspace,
/// the last block of a tile converting and re-zeroing; default the fewest slices that fill 85 % of
/// the last wave); chunksAhead: chunks of 128 k of W a warp loads before its mma's (1, 2, 4;
/// default 4).
struct Fp4GemmTiling {
    int splitK = 0;
    int chunksAhead = 0;
};

/// What ran.
struct Fp4GemmLaunch {
    int mTile = 0; ///< n8 tiles of tokens (1: M ≤ 8, 2: M ≤ 16)
    int splitK = 0, blocks = 0, chunksAhead = 0;
};

/// The largest M the fused kernel runs (two n8 tiles of tokens).
inline constexpr long long kFp4GemmMaxM = 16;

/// Whether the fused kernel is in this build (false on HIP: no mma.sync).
bool fp4GemmBuilt();
/// "" when the kernel runs this shape, else why not: 1 ≤ M ≤ 16, K a positive multiple of 128.
std::string fp4GemmRefusal(long long m, long long k);
/// "" when the kernel keeps Ŵ exact for these host-side scales and codes (packed [N, K/2], scales
/// [N, K/group]), else why not: MXFP4 scale bytes in [2, 252] wherever the group has a non-zero
/// code (value·2^(byte − 127) a normal, finite BF16); NVFP4 block scales not NaN, the global scale
/// finite and non-zero.
std::string fp4GemmDataRefusal(Fp4GemmFormat f, const std::uint8_t *packed, const std::uint8_t *scales, float global,
                               long long n, long long k);
/// Bytes of FP32 workspace (M·N floats) and of tile counters the launch needs; both zeroed once
/// before the first launch (the kernel leaves them zero).
std::size_t fp4GemmWorkspaceBytes(const Fp4GemmProblem &p);
std::size_t fp4GemmCounterBytes(const Fp4GemmProblem &p);
/// Queues the kernel on `stream` (cudaStream_t); workspace / counters may be null (no split).
/// Throws GpuError on a refused shape.
Fp4GemmLaunch fp4GemmFused(const Fp4GemmProblem &p, const Fp4GemmTiling &tiling, void *workspace, void *counters,
                           void *stream);

/// The unfused route's first step: Ŵ as BF16 [N, K] (MXFP4: bf16(value·2^(byte − 127)), the FP32
/// product exact, and exact in BF16 in the range fp4GemmDataRefusal accepts; NVFP4:
/// bf16(fp32(value·b) / global), one FP32 division and one rounding to BF16). Any scale byte.
void fp4GemmDequantBf16(const Fp4GemmProblem &p, void *wOut, void *stream);

/// The output check on the device, independent of the kernels: for every output of rows 0,
/// rowStride, 2·rowStride, … and M − 1, the FP64 ref = Σ_k x_k·ŵ_k and mag = Σ_k |x_k·ŵ_k| with the
/// exact ŵ = value·scale (/ global), and |y − ref| / (2^-8·|ref| + (1 + 2^-8)·(K·2^-23 + wRel)·mag)
/// (docs/numerics.md "Fused FP4 GEMM"). The worst ratio (double) into *worstDev and the outputs
/// checked (unsigned long long) into *countDev; both zeroed by the call. y may be any BF16 [M, N].
void fp4GemmCheckFp64(const Fp4GemmProblem &p, long long rowStride, double wRel, double *worstDev,
                      unsigned long long *countDev, void *stream);

} // namespace quantscope::gpu::launch
