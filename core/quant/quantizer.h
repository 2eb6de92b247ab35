// SPDX-License-Identifier: MIT
#pragma once
/// \file quantizer.h
/// One interface for every quantizer: a spec (JSON) in, codes + scales (+ zero points) out,
/// and the dequantized tensor on request. Each quantizer's header comment states its op sequence.
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "quant/spec.h"
#include "tensor/tensor.h"
#include "util/cancel.h"

namespace quantscope {

/// How a tensor is cut into the groups that share one scale. A tensor of any rank is viewed
/// as 2-D [rows, cols]: rank 1 → [1, K]; rank ≥ 3 → [prod(leading), K]; rank 0 → [1, 1].
struct GroupLayout {
    Granularity granularity = Granularity::Tensor;
    std::int64_t rows = 1, cols = 1;
    std::int64_t group = 0;                  ///< group size (Group)
    std::int64_t block = 0;                  ///< tile size (Block)
    int axis = 0;                            ///< channel axis (Channel)
    std::int64_t gridRows = 1, gridCols = 1; ///< the scale grid
    bool ragged = false;                     ///< a last group/tile shorter than the others

    std::int64_t groupCount() const { return gridRows * gridCols; }
    std::int64_t groupOf(std::int64_t r, std::int64_t c) const
    {
        switch (granularity) {
        case Granularity::Tensor:
            return 0;
        case Granularity::Channel:
            return axis == 0 ? r : c;
        case Granularity::Group:
            return r * gridCols + c / group;
        case Granularity::Block:
            return (r / block) * gridCols + c / block;
        }
        return 0;
    }
    /// Shape of the stored scale tensor ([1] for per-tensor).
    Shape scaleShape() const;
};

/// Builds the layout; throws UnsupportedError naming `tensorName`, K and g when `strict` and K is
/// not divisible by the group size.
GroupLayout makeLayout(const Shape &shape, Granularity g, std::int64_t group, std::int64_t block, int axis, bool strict,
                       const std::string &tensorName);

/// One step of an iterative quantizer: an HQQ iteration (eps = global mean |W − W_r| as the
/// library computes it) or a MiLo pass (eps = ‖W − Ŵ − U·V‖_F).
struct IterationRecord {
    int pass = 0; ///< 1-based
    double eps = 0;
    double timeMs = 0; ///< wall clock of this step
};

/// One low-rank compensator factor as stored (MiLo's U [N, r] or V [r, K]).
struct CompensatorFactor {
    std::int64_t rows = 0, cols = 0;
    std::string format;             ///< "fp16", "int8", "int3" or "milo-code-int3"
    std::vector<float> values;      ///< dequantized, row-major (what Ŵ uses)
    std::vector<std::int8_t> codes; ///< integer formats: one code per element
    std::vector<float> scales;      ///< integer formats: one per group of the flattened factor
    std::int64_t group = 0;         ///< integer formats: group size
    int codeBits = 16;              ///< 16 (FP16 values), 8 or 3
    DType scaleDtype = DType::F16;  ///< stored dtype of `scales`
    /// Bits of everything stored: elements at codeBits plus the scales.
    double storedBits() const;
};

/// The result of quantizing one tensor.
struct QuantizedTensor {
    std::string method;  ///< "int", "fp8"
    nlohmann::json spec; ///< the full spec, defaults filled in
    std::string tensorName;
    Shape shape; ///< the original shape
    DType sourceDtype = DType::F32;
    GroupLayout layout;
    /// One code per element, row-major: INT codes as signed int8 values; FP8 codes as bit
    /// patterns of `codeDtype`.
    std::vector<std::uint8_t> codes;
    DType codeDtype = DType::I8;
    int codeBits = 8;                 ///< bits per code as stored (INT b, FP8 8)
    std::vector<float> scales;        ///< the scale used per group (after dtype rounding)
    DType scaleDtype = DType::F32;    ///< stored dtype of the scales
    std::vector<std::int8_t> zeros;   ///< signed zero points (asymmetric only)
    std::int64_t nonFiniteGroups = 0; ///< groups with NaN/Inf input (coded 0)
    std::int64_t firstNonFinite = -1; ///< flat index of the first NaN/Inf element
    std::vector<float> dequantized;   ///< Ŵ in FP32 (when asked; MiLo: including U·V)

    // Iterative quantizers (HQQ, MiLo); empty / unset for the one-shot ones.
    std::vector<float> zeroPoints;                 ///< float zero points in code units (HQQ), one per group
    DType zeroPointDtype = DType::F16;             ///< stored dtype of `zeroPoints`
    std::vector<IterationRecord> history;          ///< HQQ: per iteration; MiLo: per pass
    int chosenPass = -1;                           ///< MiLo: the pass returned (1-based); HQQ: iterations run
    std::optional<CompensatorFactor> compU, compV; ///< MiLo's low-rank compensator
    int rank = 0;                                  ///< MiLo: the rank used (after the clamp to min(N, K))
    int requestedRank = 0;                         ///< MiLo: the rank asked for

    // Two-level results (empty for single-level methods). The codes, `layout`, `scales` and
    // `zeros` above are the inner level, applied to the codes first; the outer level multiplies
    // last. progressive: outer = stage 1 (Quark `weight_scale` = s1, `weight_zero_point`),
    // inner = stage 2 (`weight_scale_2` = s2, `weight_zero_point_2`): Ŵ = s1·(s2·(q − z2) − z1).
    // nvfp4: outerScales[0] = compressed-tensors' `weight_global_scale` (2688/amax; dequantization
    // divides by it).
    GroupLayout outerLayout;
    std::vector<float> outerScales;
    DType outerScaleDtype = DType::F32;
    std::vector<std::int8_t> outerZeros;
    /// Block formats whose codes and side information are packed together (gguf): the stored
    /// bytes, which storedBytes() and bitsPerElement() then use as they are; 0 otherwise.
    std::uint64_t blockBytes = 0;
    /// Method-specific facts for reports (constopt: rotation and the rotated tensor's kurtosis).
    nlohmann::json report = nlohmann::json::object();

    /// Elements: one code each when the codes are there, else the shape's (a GPU run asked without
    /// its codes, QuantizeOptions::wantCodes).
    std::int64_t numel() const
    {
        if (!codes.empty() || shape.empty())
            return static_cast<std::int64_t>(codes.size());
        return numelOf(shape);
    }
    /// Bytes of everything stored: codes at codeBits, scales (inner and outer) in their dtype,
    /// zero points (INT8, or float ones in zeroPointDtype) and compensator factors.
    std::uint64_t storedBytes() const;
    /// Bits per element = stored bits / numel (docs/numerics.md "Bits per element").
    double bitsPerElement() const;
};

/// What a data-aware quantizer (GPTQ, AWQ; quant/data_aware.h) knows of a module's inputs: the
/// statistics of a calibration capture (io/capture.h calibrationOf) as plain data, so that quant/
/// needs no io/ or metrics/.
struct Calibration {
    std::string module; ///< "model.layers.0.mlp.down_proj" (for messages)
    std::string source; ///< the capture's file name (for messages)
    std::int64_t k = 0; ///< input features
    std::int64_t tokens = 0;
    std::vector<double> gram;     ///< K×K row-major G = XᵀX / n; empty when the capture holds only its diagonal
    std::vector<double> gramDiag; ///< K: mean of x²
    std::vector<float> sample;    ///< [sampleRows, K] sampled input rows, row-major; may be empty
    std::int64_t sampleRows = 0;
};

struct QuantizeOptions {
    int threads = 0;             ///< 0: hardware concurrency
    bool wantDequantized = true; ///< also fill `dequantized`
    /// Fill `codes` (a GPU backend skips downloading them when false; the scales, zero points and
    /// every count the metrics and bits per element need are still filled).
    bool wantCodes = true;
    std::string tensorName; ///< for messages
    /// Ŵ is wanted where the backend computed it (MeasuredRun::deviceDequantized: a GPU keeps it
    /// on the device for the output-aware error, without the download); a backend that cannot
    /// keep it there fills `dequantized` as if wantDequantized were set.
    bool dequantizedOnDevice = false;
    /// NVFP4: the |max| its tensor-wide (global) scale is computed from instead of this tensor's
    /// own — the largest of a fused group (q/k/v, gate/up), which serving engines give one
    /// global scale. Ignored by the other methods.
    std::optional<float> tensorAmax;
    /// The module's captured inputs (the data-aware methods gptq and awq; the engine pairs them
    /// from a capture). Ignored by the other methods.
    std::shared_ptr<const Calibration> calibration;
};

class Quantizer {
public:
    virtual ~Quantizer() = default;
    virtual std::string method() const = 0;
    virtual nlohmann::json spec() const = 0;
    /// Throws UnsupportedError (bad spec for this tensor), Cancelled.
    virtual QuantizedTensor quantize(const Tensor &w, const QuantizeOptions &options,
                                     const CancelToken *cancel = nullptr) const = 0;
    /// Ŵ from codes and scales (FP32, row-major, numel elements).
    virtual void dequantize(const QuantizedTensor &q, std::span<float> out) const = 0;
};

/// A method the engine offers: its name, a one-line description and its spec fields.
struct MethodInfo {
    std::string method;
    std::string description;
    std::vector<SpecField> fields;
    nlohmann::json defaults;
};

/// Every method, in menu order. New quantizers register here.
std::vector<MethodInfo> quantizerMethods();
/// Creates the quantizer for a spec JSON whose "method" names it; throws UnsupportedError.
std::unique_ptr<Quantizer> makeQuantizer(const nlohmann::json &spec);

/// Refuses a tensor whose dtype has no real decoding (C64), naming the tensor.
void requireDecodable(const Tensor &w, const std::string &tensorName);
/// A result with the fields every quantizer fills the same way: method, spec, tensor name, shape
/// and source dtype.
QuantizedTensor startQuantized(const Tensor &w, std::string method, nlohmann::json spec, const std::string &tensorName);

/// The 2-D view [rows, cols] a tensor of this shape is quantized as.
std::pair<std::int64_t, std::int64_t> matrixView(const Shape &shape);

} // namespace quantscope
