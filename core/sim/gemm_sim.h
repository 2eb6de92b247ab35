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
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "quant/activation.h"
#include "quant/quantizer.h"
#include "quant/uniform_math.h"
#include "tensor/tensor.h"
#include "util/cancel.h"

namespace quantscope {

/// What the simulation's loops read, prepared on the host (row-major; pointers into the
/// simulation's own buffers), for a device that runs them (GemmSimDevice).
struct GemmOperands {
    enum Mode : int { A16 = 0, Int8 = 1, Fp8 = 2 };
    int mode = A16;
    std::int64_t M = 0, N = 0, K = 0;
    const float *xs = nullptr, *ws = nullptr, *what = nullptr; ///< X, W, Ŵ (FP32): Y and X·Ŵᵀ in FP64
    const float *xa = nullptr, *wa = nullptr;                  ///< A16: BF16-rounded X and Ŵ; Fp8: code values
    const std::int8_t *xq = nullptr, *wq = nullptr;            ///< Int8: the codes
    const float *sx = nullptr;                                 ///< activation scales: [M] per token, else [1]
    bool perToken = false;
    /// Runs of k sharing the weight's scale(s), the same in every row: [0, segEnd[0]), …
    std::vector<std::int64_t> segEnd;
    std::vector<float> segS, segSo; ///< [N × runs]: s (NVFP4: b/global) and the outer scale
    std::vector<int> segZ;          ///< [N × runs]: zero point
    bool outer = false, dropZ = false;
};

/// Per token: Σ Y², Σ (Y − Ŷ)², Σ (Y − X·Ŵᵀ)² (FP64), and Ŷ when asked.
struct GemmSums {
    std::vector<double> yy, es, ew;
    std::vector<float> output;
};

struct GemmSimOptions;
struct GemmSimResult;

/// The simulation's plan of one weight (planGemm): the scheme and what a device needs besides X,
/// W and the codes to build every operand itself — no per-element work on the host.
struct GemmPlan {
    enum CodeKind : int { NoCodes = 0, IntCodes = 1, E4m3 = 2, E5m2 = 3, E2m1 = 4 };
    int mode = GemmOperands::A16;
    int codeKind = NoCodes; ///< what qw.codes hold (the Ŷ operand v = q − z, or the FP value)
    std::int64_t M = 0, N = 0, K = 0;
    std::int64_t rotate = 0; ///< constOpt's Hadamard block: X rotated for Ŷ
    bool outer = false, dropZ = false;
    /// Runs of k sharing the weight's scale(s), the same in every row (GemmOperands' meaning).
    std::vector<std::int64_t> segEnd;
    std::vector<float> segS, segSo; ///< [N × runs]
    std::vector<int> segZ;          ///< [N × runs]
    /// Ŵ = intDequant(intParams, q, s, z) per element (the int method with finite groups: the
    /// CPU's dequantize); otherwise Ŵ comes from the caller (a device Ŵ, or the host's).
    bool intDequant = false;
    IntParams intParams;
    std::string scheme, actQuant = "none";
    bool zeroPointTerm = false, rotatedActivations = false;
};

/// What a device's planned run gives back (GemmSimDevice::simulate, Backend::simulateGemmPlanned).
struct GemmDeviceRun {
    GemmSums sums;
    double actErr = 0, actSq = 0; ///< Σ (x − x̂)², Σ x² over the finite x (actRelErr)
    std::string actScaleSource;
};

/// A device that runs the activation quantizer and the GEMM loops (a GPU backend; see
/// engine/gemm_device.h). Any function may leave the work to the CPU: null / false with
/// `whyNot`; they may throw GpuError (the CPU then computes, saying why). `simulate`, tried
/// first, runs the whole simulation on the device from X, W and the codes (decode, activation
/// quantizer, products); `quantizeActivations` + `run` take operands the host prepared.
struct GemmSimDevice {
    std::string id;   ///< DeviceInfo::id ("cuda:0")
    std::string note; ///< why the CPU computes although another device was asked for (no GPU)
    std::function<bool(const Tensor &x, const Tensor &w, const QuantizedTensor &qw, const GemmPlan &plan,
                       const GemmSimOptions &o, GemmDeviceRun &out, std::string &whyNot)>
        simulate;
    std::function<std::optional<QuantizedActivations>(const Tensor &x, const ActQuantSpec &spec, std::string &whyNot)>
        quantizeActivations;
    std::function<bool(const GemmOperands &ops, bool keepOutput, GemmSums &out, std::string &whyNot)> run;
};

struct GemmSimOptions {
    std::optional<ActQuantSpec> act; ///< unset: weight-only W{b}A16
    bool omitZeroPointTerm = false;  ///< what-if for the INT8 path: drop −z·Σx (shows its weight)
    bool keepOutput = false;         ///< keep Ŷ in the result
    int threads = 0;
    /// Where the activation quantizer and the loops run (null: the CPU).
    std::shared_ptr<const GemmSimDevice> device;
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
    std::string device = "cpu"; ///< where the loops ran (DeviceInfo::id)
    std::string deviceNote;     ///< why another device than asked was used ("" when as asked)
};

/// Where a simulation's activation X came from: its tensor name, the file read, its shape.
struct GemmActivationSource {
    std::string name;
    std::string file;
    Shape shape;
};

/// The one JSON of a paired simulation (the "gemm" object of `quantize --json`): scheme, the
/// output errors and worst tokens, the activation's source, the activation quantizer, the device.
nlohmann::ordered_json gemmSimJson(const GemmSimResult &g, const GemmActivationSource &activation);

/// The plan of simulating X [x] · W [w]ᵀ with `qw`: the scheme's checks (the UnsupportedErrors
/// of simulateGemm), the runs and their scales, how Ŵ can be decoded. N × runs work, not N × K.
GemmPlan planGemm(const Shape &x, const Shape &w, const QuantizedTensor &qw, const GemmSimOptions &options);

/// The result of a planned device run (the errors from the per-token sums; Ŷ with keepOutput).
GemmSimResult finishPlannedGemm(const GemmPlan &plan, GemmDeviceRun &&run, bool keepOutput);

/// `qw` is W quantized (its `dequantized` is used when filled, else recomputed from the spec).
/// Throws UnsupportedError when K differs or the scheme cannot take this weight. With a device
/// that has `simulate`, the whole simulation runs there (no host decode); when it declines, the
/// host prepares the operands as before.
GemmSimResult simulateGemm(const Tensor &x, const Tensor &w, const QuantizedTensor &qw, const GemmSimOptions &options,
                           const CancelToken *cancel = nullptr);

} // namespace quantscope
