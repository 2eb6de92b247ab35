// SPDX-License-Identifier: MIT
#pragma once
/// \file kernels_awq.h
/// Launchers of AWQ's scale-search kernels (awq.cu; docs/numerics.md "AWQ on the GPU"). The
/// arithmetic is the CPU's (core/quant/awq.cpp) step for step, with explicitly rounded operations:
///   means     x̄_j = FP32(FP32(Σ_r |x_rj| in FP64, row order) / FP32(R)) and X in FP64;
///             per (row, chunk) max |w| (the tensor's max per tensor), the first non-finite W;
///             w̄_j = Σ_r FP32(|w_rj| / FP32(max + 1e-6)) in FP64 in row order, / N — one thread
///             per column, so the order is the CPU's
///   rows      per grid point: W·diag(s) rounded to FP32, its groups' finite min/max (exact, any
///             order), scale and zero point by intGroupParams, codes by intCode, Ŵ =
///             FP32(intDequant / s) and D = W − Ŵ in FP64 (or, for the chosen s*, the stored codes,
///             scales, zero points and Ŵ); groups of 32…256 columns by teams of lanes, the group
///             in registers (kRowsTeam), other layouts one block per row (kRows)
///   loss      Σ E² of E = X·Dᵀ (cuBLAS DGEMM, engine_awq.cpp) in FP64 in a fixed order
///             (kLossBlocks partials, then their sum), / (R·N)
/// Plain C++: device pointers typed, the stream as void*. Every launcher checks its launch.
#include <cstdint>

#include "plan.h"

namespace quantscope::gpu::launch {

/// Device words of one run (reset by awqResetWords).
struct AwqWords {
    unsigned long long firstBadW;  ///< smallest flat index of a non-finite W (~0: none)
    unsigned long long firstBadWs; ///< final pass: smallest flat index of a non-finite W·s*
    unsigned long long badGroups;  ///< final pass: groups holding a non-finite W·s*
    unsigned tensorMaxAbs;         ///< per-tensor chunks: max |W| (FP32 bits, W ≥ 0 orders as bits)
    unsigned tmin, tmax;           ///< per-tensor groups: min/max key (gpumath::floatKey) of W·s
    unsigned tbad;                 ///< per-tensor groups: W·s holds NaN/Inf
};

void awqResetWords(AwqWords *w, void *stream);

/// x̄ (FP32, k) and X in FP64 (r × k, row-major) from the FP32 sample x.
void awqActivationMeans(const float *x, long long r, long long k, float *xMean, double *x64, void *stream);

/// w̄ (FP64, k) of W (`in`, n × k); `chunk` the normalising chunk along K (awqChunk), `tensor`
/// per-tensor max; `chunkMax` holds n·ceil(k/chunk) floats, `partials` ceil(n / kAwqSegmentRows)·k
/// doubles (the segments' sums, core/quant/data_aware.h). Records the first non-finite W.
void awqWeightMeans(int in, const void *w, long long n, long long k, long long chunk, bool tensor, float *chunkMax,
                    double *partials, double *wMean, AwqWords *words, void *stream);

/// One pass over W with the per-column scales s (FP64, k).
struct AwqRowArgs {
    int in = 0;
    const void *w = nullptr;
    long long n = 0, k = 0;
    long long group = 0; ///< elements per group along K (K per channel; per tensor: K, one group per tensor)
    bool tensor = false; ///< one group for the whole tensor (the min/max from awqTensorRange)
    IntParams ip;
    const double *s = nullptr;
    /// RN(1/s_j) of every column (FP64, k), or null: with it, groups along K of 32, 64, 128 or 256
    /// columns (K a whole number of them) take the rows pass by teams of lanes (kRowsTeam: no
    /// shared memory, no block barrier, Ŵ without the FP64 division where its bits allow); the
    /// caller gives it only where every s_j is finite and positive and every y_j normal.
    const double *y = nullptr;
    double *d = nullptr;            ///< search: D = W − Ŵ (FP64, n × k)
    unsigned char *codes = nullptr; ///< final: int8 codes
    float *scales = nullptr;        ///< final: per group (n · ceil(k/group), or 1 per tensor)
    signed char *zeros = nullptr;   ///< final, asymmetric: per group
    float *wHat = nullptr;          ///< final: Ŵ = intDequant / s* (FP32)
    AwqWords *words = nullptr;
};

/// Per-tensor groups: the min/max key and non-finite flag of W·diag(s) into `words` (reset
/// tmin/tmax/tbad first: awqResetWords).
void awqTensorRange(const AwqRowArgs &a, void *stream);
/// The rows pass. GpuError when a row's groups do not fit in shared memory.
void awqRows(const AwqRowArgs &a, void *stream);

/// Blocks of the loss's first stage (fixed: the sum's order does not depend on the device).
constexpr int kLossBlocks = 1024;
/// *loss = Σ e_i² / divisor over count FP64 values, in a fixed order; `partials` holds kLossBlocks.
void awqLoss(const double *e, long long count, double divisor, double *partials, double *loss, void *stream);

} // namespace quantscope::gpu::launch
