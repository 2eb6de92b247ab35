// SPDX-License-Identifier: MIT
#pragma once
/// \file kernels_gemm.h
/// Launchers of the paired GEMM simulation and the static activation quantizer (gemm_sim.cu).
/// Plain C++: device pointers as typed pointers, the stream as void*. Every launcher checks the
/// launch and throws GpuError.
#include <cstdint>

#include "quant/uniform_math.h"

namespace quantscope::gpu::launch {

/// max |x| over the finite elements of x (stored as kInF32 / kInBf16 / kInF16) into *out as FP32
/// bits (positive floats order as their bits); *out must be zeroed.
void absMaxFinite(int in, const void *x, long long n, unsigned *out, void *stream);

/// The static FP8 activation quantizer (quant/activation.h): codes e4m3(x / s) of finite x, 0 of
/// NaN/Inf (counted in *nonFinite, zeroed by the caller), dequantized decode(code)·s. With
/// sFromBits the scale is *absBits's float / 448 (FP32 eps when not positive), else `s`; the scale
/// used is written to *sOut.
void actStatic(int in, const void *x, long long n, float s, const unsigned *absBits, float *sOut, unsigned char *codes,
               float *deq, unsigned long long *nonFinite, void *stream);

/// The operands of simGemm (device pointers; see core/sim/gemm_sim.h GemmOperands).
struct SimGemmArgs {
    int mode = 0; ///< 0 A16, 1 INT8, 2 FP8 values
    long long M = 0, N = 0, K = 0;
    const float *xs = nullptr, *ws = nullptr, *what = nullptr;
    const float *xa = nullptr, *wa = nullptr;
    const signed char *xq = nullptr, *wq = nullptr;
    const float *sx = nullptr;
    bool perToken = false, outer = false, dropZ = false;
    int runs = 1;
    const long long *segEnd = nullptr;             ///< [runs]
    const float *segS = nullptr, *segSo = nullptr; ///< [N × runs]
    const int *segZ = nullptr;                     ///< [N × runs]
    float *out = nullptr;                          ///< Ŷ [M, N] (optional)
    double *parts = nullptr; ///< [M][nBlocks][3]: Σ Y², Σ (Y − Ŷ)², Σ (Y − Y_w)² of each column block
};
/// Column blocks of simGemm (the partials' second dimension).
int simGemmColumnBlocks(long long N);
/// Y, X·Ŵᵀ (FP64, k in order) and Ŷ (the deployment's arithmetic, k in order) of every (m, n),
/// reduced per token and column block.
void simGemm(const SimGemmArgs &a, void *stream);
/// sums[m][3] = the partials of row m added over the column blocks in order.
void simReduce(const double *parts, long long M, int nBlocks, double *sums, void *stream);

/// The paired simulation's weight operands from the codes (row-major [N, K], one byte each) and
/// the runs of k with their scales (sim/gemm_sim.h GemmPlan): Ŵ = intDequant(ip, q, s, z) into
/// `what` (when not null) and the Ŷ operand into `v` (when not null): codeKind 1 q − z, 2 E4M3,
/// 3 E5M2, 4 E2M1 values.
struct WeightOperandArgs {
    long long N = 0, K = 0;
    const unsigned char *codes = nullptr;
    int runs = 1;
    const long long *segEnd = nullptr;
    const float *segS = nullptr;
    const int *segZ = nullptr;
    int codeKind = 1;
    IntParams ip;
    float *what = nullptr, *v = nullptr;
};
void weightOperands(const WeightOperandArgs &a, void *stream);
/// out[i] = the E4M3 value of codes[i].
void e4m3Values(const unsigned char *codes, long long n, float *out, void *stream);
/// Doubles of scratch actErr needs.
int actErrScratch();
/// out[0] = Σ (x − x̂)², out[1] = Σ x² over the finite x, FP64 in a fixed order.
void actErr(const float *x, const float *xHat, long long n, double *scratch, double *out, void *stream);

/// out[i] = (double)in[i] (the spectrum's FP64 copy of an FP32 matrix).
void toDouble(const float *in, long long n, double *out, void *stream);

} // namespace quantscope::gpu::launch
