// SPDX-License-Identifier: MIT
#pragma once
/// \file kernels_gemmlab.h
/// The GEMM timing lab's small kernels (gemmlab.cu, CUDA builds only): seeded, never-zero inputs
/// filled on the device, and the post-scale epilogue (per-token × per-channel) that turns an FP32
/// or INT32 GEMM output into BF16. Host-callable; `stream` is the engine's cudaStream_t.
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

} // namespace quantscope::gpu::launch
