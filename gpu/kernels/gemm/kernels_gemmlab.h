// SPDX-License-Identifier: MIT
#pragma once
/// \file kernels_gemmlab.h
/// The GEMM timing lab's small kernels (gemmlab.cu, CUDA builds only): seeded, never-zero inputs
/// filled on the device, and the post-scale epilogue (per-token × per-channel) that turns an FP32
/// or INT32 GEMM output into BF16; and the GEMM timing lab II's kernels (gemmlab_int4.cu): the INT4
/// weight conversions of the quantized-weight paths and the W4A8-int8 epilogue. Packed INT4: row n
/// of W [N, K] is K/2 bytes, byte j holding k = 2j in its low nibble and k = 2j + 1 in its high
/// nibble, each a two's-complement code in [−8, 7]. Scales FP32 and zero points INT8 per (row,
/// group of `group` along K); group = K is per channel. Host-callable; `stream` is the engine's
/// cudaStream_t.
#include <cstdint>

namespace quantscope::gpu::launch {

/// Element kinds of the lab's operands.
enum LabKind : int { kLabBf16 = 0, kLabE4m3 = 1, kLabInt8 = 2 };

/// n values of N(0, 1)·scale (a counter-based hash of (seed, i), sum of four uniforms), cast to
/// `kind` (BF16 round to nearest even; E4M3 saturating; INT8 rounded and clamped to ±127); a
/// value that would be zero becomes ±(the kind's smallest step used here) so no operand is zero.
void labFill(int kind, void *out, long long n, unsigned long long seed, float scale, void *stream);

/// out[m·N + n] = bf16(in[m·N + n] · sTok[m] · sCh[n]); `in` is FP32 (inInt32 false) or INT32.
void labPostScale(const void *in, bool inInt32, const float *sTok, const float *sCh, long long M, long long N,
                  void *outBf16, void *stream);

// ---- GEMM timing lab II (gemmlab_int4.cu) ----

/// Ŵ [N, K] in BF16: bf16(s[n, k / group] · (q − z[n, k / group])).
void labW4Dequant(const std::uint8_t *packed, const float *scales, const std::int8_t *zeros, long long N, long long K,
                  long long group, void *outBf16, void *stream);
/// The raw codes q as INT8 [N, K].
void labW4Unpack(const std::uint8_t *packed, long long N, long long K, std::int8_t *out, void *stream);
/// q − z[n] (per channel; integers in [−15, 15], exact in E4M3) as E4M3 bit patterns [N, K].
void labW4ToE4m3(const std::uint8_t *packed, const std::int8_t *zeros, long long N, long long K, std::uint8_t *out,
                 void *stream);
/// q − z[n] as INT8 [N, K] (per channel: the zero point folded into the weight, so an INT8 GEMM
/// needs neither Σx nor the zero-point term; exact for every z in [kW4a8FoldZeroMin,
/// kW4a8FoldZeroMax] of w4a8_math.h, which the caller checks). Needs N ≤ 65535, K a multiple of 16, `packed`
/// 8-byte and `out` 16-byte aligned; returns false (nothing launched) otherwise.
bool labW4FoldInt8(const std::uint8_t *packed, const std::int8_t *zeros, long long N, long long K, std::int8_t *out,
                   void *stream);
/// rowSum[m] = Σ_k x[m, k] (INT8 X [M, K], exact in INT32; 16-byte loads and dp4a where K is a
/// multiple of 16 and x 16-byte aligned).
void labRowSumInt8(const std::int8_t *x, long long M, long long K, std::int32_t *rowSum, void *stream);
/// d[m·N + n] = Σ_k a[m, k]·b[n, k] (INT8 A [M, K], B [N, K], INT32 D [M, N]) on CUDA cores: a
/// plain exact reference for the tests (the fold route's integers without cuBLASLt). Needs K a
/// multiple of 64 and 16-byte aligned rows; returns false (nothing launched) otherwise.
bool labGemmInt8Ref(const std::int8_t *a, const std::int8_t *b, long long M, long long N, long long K, std::int32_t *d,
                    void *stream);
/// out[m·N + n] = bf16(sTok[m] · sCh[n] · (acc[m·N + n] − z[n] · rowSum[m])), the W4A8-int8
/// epilogue: per-token × per-channel scales and the asymmetric weights' zero-point term.
void labW4a8Epilogue(const std::int32_t *acc, const std::int32_t *rowSum, const std::int8_t *zeros, const float *sTok,
                     const float *sCh, long long M, long long N, void *outBf16, void *stream);

} // namespace quantscope::gpu::launch
