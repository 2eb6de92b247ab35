// SPDX-License-Identifier: MIT
#pragma once
/// \file kernels_gemmlab_check.h
/// The GEMM timing lab's output check on the device (gemmlab_check.cu, CUDA builds only; issue 43):
/// every element of a BF16 Y [M, N] (row-major, optionally E batches) against the FP64 product of
/// the operands as the GEMM read them, Y = X·Wᵀ with X [M, K] and W [N, K]. A tiled FP64 GEMM (64 ×
/// 64 outputs a block, 4 × 4 a thread, K in steps of 16) decodes each operand element exactly to
/// double; per output ref = sx·sw·Σ_k x_k·w_k and mag = |sx·sw|·Σ_k |x_k·w_k| (a row scale outside
/// the sum, an INT4 group scale inside it), and the check passes where
///   |y − ref| ≤ relRef·|ref| + relMag·mag + 1e-30
/// (the bounds of docs/numerics.md "GEMM timing lab", chosen per format by the caller).
#include <cstdint>

namespace quantscope::gpu::launch {

/// Operand element kinds of the check: kernels_gemmlab.h's kLabBf16 (0), kLabE4m3 (1), kLabInt8
/// (2), and packed INT4 (two codes a byte, k = 2j in byte j's low nibble, two's complement).
inline constexpr int kLabCheckInt4 = 3;

/// One operand [rows, K] of the check.
struct LabCheckOperand {
    const void *data = nullptr; ///< row-major codes of `kind` (INT4: K/2 bytes a row)
    int kind = 0;
    /// Scales: per row (perRow) or one for all rows; INT4 with group < K: per (row, group), applied
    /// inside the sum; null: 1.
    const float *scale = nullptr;
    bool perRow = true;
    const std::int8_t *zeros = nullptr; ///< INT4: per (row, group) zero points (null: 0)
    long long group = 0;                ///< INT4: group size along K (0 or K: per row)
    long long batchStride = 0;          ///< elements between experts (INT4: codes, i.e. 2 × bytes)
};

struct LabCheckProblem {
    LabCheckOperand x, w;         ///< X [M, K] (per-token scales), W [N, K] (per-channel or group scales)
    const void *y = nullptr;      ///< BF16 [M, N] row-major (batch stride M·N)
    const void *yOther = nullptr; ///< optional BF16 output of the same shape: values ≠ y are counted
    long long m = 0, n = 0, k = 0;
    int batch = 1;
    double relRef = 0, relMag = 0;
};

/// What the check found (device counters read back by labCheckFp64).
struct LabCheckResult {
    double worst = 0;               ///< max over the outputs of |y − ref| / bound (1e30: NaN / Inf)
    unsigned long long checked = 0; ///< outputs checked (batch · M · N)
    unsigned long long failed = 0;  ///< outputs above their bound
    unsigned long long differ = 0;  ///< outputs whose bits differ from yOther's (0 without one)
};

/// Runs the check on `stream` and waits for it. `scratch` is ≥ 32 bytes of device memory.
LabCheckResult labCheckFp64(const LabCheckProblem &p, void *scratch, void *stream);

} // namespace quantscope::gpu::launch
