// SPDX-License-Identifier: MIT
#pragma once
/// \file gemm_sim_math.h
/// The paired GEMM simulation's fused steps (docs/numerics.md "Activations and the paired GEMM
/// simulation"), shared by the device kernel (gpu/kernels/gemm/gemm_sim.cu) and the host tests. Each
/// is the CPU loop's separate multiply and add with one rounding fewer, and equal to it because
/// the product is exact:
///   - Y and X·Ŵᵀ: two FP32 values have a product of at most 48 significant bits and an exponent
///     within ±300, exact in FP64; y + x·w then rounds once either way.
///   - Ŷ of the FP8 schemes: an E4M3 value (4 significant bits, |a| ∈ [2⁻⁹, 448]) times an E4M3,
///     E2M1 or integer |b| ≤ 255 value (≤ 8 significant bits, |b| ∈ [2⁻⁹, 448] or 0) is exact in
///     FP32 (≤ 12 bits, magnitude in [2⁻¹⁸, 2¹⁷]: never subnormal, never overflowing).
/// Not for W{b}A16: BF16 × BF16 products keep FP32's exponent range and can fall below the normal
/// range, where the separate multiply rounds.
/// No CUDA/HIP header here: GPU sources define QS_HD as `__host__ __device__` before including.
#include <cmath>

#ifndef QS_HD
#define QS_HD
#endif

namespace quantscope::gemmsim {

/// y + x·w in FP64 with x, w floats (one fused multiply-add).
QS_HD inline double fp64ProductStep(double y, float x, float w)
{
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
    return fma(static_cast<double>(x), static_cast<double>(w), y);
#else
    return std::fma(static_cast<double>(x), static_cast<double>(w), y);
#endif
}

/// acc + a·b in FP32 for an FP8 scheme's code values (one fused multiply-add).
QS_HD inline float fp8ProductStep(float acc, float a, float b)
{
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
    return fmaf(a, b, acc);
#else
    return std::fma(a, b, acc);
#endif
}

} // namespace quantscope::gemmsim
