// SPDX-License-Identifier: MIT
#pragma once
/// \file kernels_outerr.h
/// Launchers of the output-aware error's kernels (output_error.cu; docs/numerics.md "Output-aware
/// error"): the residual D = W − Ŵ split for the tensor-core products, the Gram symmetrized, the
/// fixed-order FP64 reductions tr(H·S) and Σ D²·diag(G). CUDA builds (the products are cuBLAS).
#include <cstddef>

namespace quantscope::gpu::launch {

/// How D is written for the products: BF16 hi and lo (D ≈ hi + lo), BF16 hi alone, or FP32.
enum class ResidualSplit : int { Bf16HiLo = 0, Bf16 = 1, Fp32 = 2 };

/// D = W − Ŵ (W of input type `in`, Ŵ FP32 or null: D = W), each difference in FP64, n elements:
/// Bf16HiLo: hi = bf16(D) into out0, lo = bf16(D − hi) into out1; Bf16: hi into out0; Fp32: D
/// rounded to FP32 into out0. Round to nearest even throughout.
void splitResidual(int in, const void *w, const float *wHat, long long n, ResidualSplit split, void *out0, void *out1,
                   void *stream);

/// h = (g + gᵀ) / 2 (FP32, k × k): the symmetric part, the only one a quadratic form sees.
void symmetrizeGram(const float *g, float *h, long long k, void *stream);

/// Partials per column j of Σ_i h_ij · (w_ij · p_ij + 2 · c_ij) in FP64 (h symmetric; p and c
/// column-major with leading dimension k; w_ij = 2 below the block diagonal of blocks of `block`,
/// 1 on its blocks, 0 above: p is only read there; c may be null), then their sum in column order
/// into *out. `partials` holds k doubles.
void gramTrace(const float *h, const float *p, const float *c, long long k, long long block, double *partials,
               double *out, void *stream);

/// Σ_rj (W − Ŵ)_rj² · g_j in FP64 (k columns, n elements, Ŵ may be null) into *out, in a fixed
/// order: kDiagBlocks partials, then their sum. `partials` holds kDiagBlocks doubles.
constexpr int kDiagBlocks = 1024;
void gramDiagonal(int in, const void *w, const float *wHat, long long n, long long k, const double *g, double *partials,
                  double *out, void *stream);

} // namespace quantscope::gpu::launch
