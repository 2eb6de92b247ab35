// SPDX-License-Identifier: MIT
#pragma once
/// \file gemm_sim.h
/// The paired GEMM simulation (docs/numerics.md "Activations and the paired GEMM simulation"):
/// Y = X·Wᵀ in FP64 (X [M, K] tokens, W [N, K]) against the product a deployment computes.
/// Schemes, picked from the weight's method and the activation quantizer:
///   W{b}A16 (no activation quantizer; "W4A16" for 4-bit codes): X and Ŵ rounded to BF16,
///       products exact in FP32, FP32 accumulation over k in order.
///   W{b}A8-int8 (int8-token; INT weight codes, `int` or `progressive` with an INT stage 2;
///       AMD's AITER_W4A8_USE_INT8 path): per run of k sharing the weight's scale(s):
///       acc = Σ x_q·q (INT32), Σx = Σ x_q (INT32), A = acc − z·Σx (zero-point term only for
///       asymmetric weights); epilogue in FP32: t = s_x[m]·s_w (then ·s1 for a two-stage weight),
///       y ← y + t·float(A), runs in order.
///   W4A8-fp8 (fp8-token, fp8-tensor, static; weights whose scaled values are exact in E4M3:
///       INT ≤ 4 bits as q − z, FP4 values of mxfp4/nvfp4/constopt) and W8A8-fp8 (E4M3 weights:
///       `fp8`, or `progressive` with an FP8 stage 2): per run, acc = Σ x8·w8 in FP32 in order
///       (each product exact), epilogue as above (nvfp4: s_w = b/global).
///   A constOpt weight with a Hadamard rotation is multiplied with X rotated the same way.
/// Reported: ‖Y − Ŷ‖/‖Y‖ and the worst token's ‖Y[m] − Ŷ[m]‖/‖Y[m]‖, and the same for the
/// weight-only product X·Ŵᵀ (FP64), side by side. Tokens with Y[m] = 0 are skipped for the
/// per-token worst case.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "quant/activation.h"
#include "quant/quantizer.h"
#include "tensor/tensor.h"
#include "util/cancel.h"

namespace quantscope {

struct GemmSimOptions {
    std::optional<ActQuantSpec> act; ///< unset: weight-only W{b}A16
    bool omitZeroPointTerm = false; ///< what-if for the INT8 path: drop −z·Σx (shows its weight)
    bool keepOutput = false;        ///< keep Ŷ in the result
    int threads = 0;
};

struct GemmSimResult {
    std::string scheme; ///< "W4A16", "W4A8-int8", "W4A8-fp8", "W8A8-fp8", …
    std::string actQuant = "none";
    std::string actScaleSource;
    std::int64_t tokens = 0, n = 0, k = 0;
    double relErrOutput = 0, relErrWeightOnly = 0;
    double worstTokenRelErr = 0, worstTokenRelErrWeightOnly = 0;
    std::int64_t worstToken = -1, worstTokenWeightOnly = -1;
    double actRelErr = 0; ///< ‖X − X̂‖/‖X‖ of the activation quantizer (0 without one)
    bool rotatedActivations = false;
    bool zeroPointTerm = false; ///< the INT8 epilogue subtracted z·Σx_q
    std::vector<float> output;  ///< Ŷ [tokens, n] (keepOutput)
};

/// `qw` is W quantized (its `dequantized` is used when filled, else recomputed from the spec).
/// Throws UnsupportedError when K differs or the scheme cannot take this weight.
GemmSimResult simulateGemm(const Tensor &x, const Tensor &w, const QuantizedTensor &qw,
                           const GemmSimOptions &options, const CancelToken *cancel = nullptr);

} // namespace quantscope
