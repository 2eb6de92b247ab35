// SPDX-License-Identifier: MIT
#pragma once
/// \file kernels_gptq.h
/// Launchers of GPTQ's device kernels (gptq.cu), the CPU's op sequence (core/quant/data_aware.h,
/// gptqColumns) on the device:
///   reversedH  R = the reversed, permuted, dampened H (column-major FP64, for cuSOLVER's potrf)
///   factorU    U (row-major FP32, upper) from L'⁻¹ (cuSOLVER's trtri of the factor), or I
///              when potrf reported a non-positive-definite H
///   gather     W' = W with its columns in the act order, the dead columns zeroed (FP32)
///   block      one block of columns: one thread per row walks the block's columns in order
///              (codes, Ŵ, the error e, the in-block update w −= e·U with separate rounding of
///              the product and the difference, as the CPU), the row's loss in FP64
///   lazy       the columns after the block: one FMA chain per element over the block's columns
///              in order (a tiled FP32 product whose per-element order is the CPU's)
///   scatter    codes and Ŵ back in the original column order
/// Plain C++: device pointers typed, the stream as void*. Every launcher checks its launch.
#include <cstdint>

#include "quant/uniform_math.h"

namespace quantscope::gpu::launch {

void gptqReversedH(const double *h, long long k, const long long *perm, const unsigned char *dead, double damp,
                   double *r, void *stream);
/// X = I (K×K FP64).
void gptqIdentity(double *x, long long k, void *stream);
void gptqFactorU(const double *linv, long long k, const int *info, float *u, void *stream);
void gptqGather(const float *w, long long n, long long k, const long long *perm, const unsigned char *dead, float *wp,
                void *stream);

/// The group of element (r, c): 0 (tensor), r (channel), r·gridCols + c / group (group).
struct GptqGroups {
    int granularity = 0; ///< 0 tensor, 1 channel (axis 0), 2 group along K
    long long gridCols = 1, group = 1;
};

struct GptqBlockArgs {
    float *wp = nullptr; ///< W' [n × k]: the block's columns become Ŵ
    long long n = 0, k = 0, i1 = 0;
    int bw = 0;               ///< columns in this block (≤ kGptqMaxBlock)
    const float *u = nullptr; ///< U [k × k] row-major
    const float *scales = nullptr;
    const signed char *zeros = nullptr; ///< null: symmetric
    const long long *perm = nullptr;
    GptqGroups groups;
    IntParams ip;
    unsigned char *codes = nullptr; ///< permuted order [n × k]
    float *err = nullptr;           ///< E [n × bw] of this block
    double *rowLoss = nullptr;      ///< [n], accumulated (Σ e²/2)
};
constexpr int kGptqMaxBlock = 128;

void gptqBlock(const GptqBlockArgs &a, void *stream);
/// Measurement: the block kernel's lanes per row (0: 8, the engine's; 1: 4; 2: 2) and the lazy-batch
/// tiling (0: 16 columns a step, float4 reads, the engine's; 1: 8, float4; 2: 8, scalar reads; 3: 16,
/// float4, no padding).
/// Every variant gives the same bits (the same per-element op sequence).
void gptqSetVariant(int block, int lazy);
/// W'[:, i2:] ← fma(−E[:, kk], U[i1 + kk, i2:], ·) for kk = 0…bw−1 in order.
void gptqLazy(float *wp, long long n, long long k, const float *err, int bw, const float *u, long long i1, long long i2,
              void *stream);
void gptqScatter(const unsigned char *codesP, const float *wp, long long n, long long k, const long long *perm,
                 unsigned char *codes, float *wHat, void *stream);

} // namespace quantscope::gpu::launch
