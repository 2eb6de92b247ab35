// SPDX-License-Identifier: MIT
#pragma once
/// \file data_aware.h
/// The data-aware quantizers, which need the module's captured inputs (QuantizeOptions::
/// calibration): GPTQ (gptq.cpp) and AWQ (awq.cpp), each as llm-compressor runs it.
///
/// GPTQ (Frantar et al. 2022) as llm-compressor's GPTQModifier runs it (docs/numerics.md "GPTQ"):
/// the uniform INT format of IntSpec, its scales and zero points the observer's (min/max of the
/// original weight per group, exactly the `int` method's), the codes chosen column by column
/// with the rounding error of each column propagated onto the columns not yet quantized through
/// the upper Cholesky factor of H⁻¹, H = 2·G from the module's calibration capture. Op sequence:
///   1. H = 2·G (FP64; G the capture's Gram, or XsᵀXs/R of its row sample when it holds only
///      diag(G)); W in FP32.
///   2. actorder static/weight: columns of W and rows/columns of H permuted by diag(H)
///      descending (stable: ties keep column order); every column keeps its own group's scale.
///   3. dead columns (H_jj = 0): H_jj = 1, W[:, j] = 0.
///   4. H_jj += dampening · mean(diag H); U = chol(H⁻¹) upper (FP64, rounded to FP32); Cholesky
///      failure: U = I (llm-compressor's RTN fallback, reported).
///   5. for each block [i1, i2) of block_size columns, for each column i of it:
///        q = clamp(round(w_i / s) + z), ŵ_i = s·(q − z), e = (w_i − ŵ_i) / U_ii,
///        w_{i..i2} −= e · U_{i, i..i2};  then w_{i2..K} −= E_block · U_{block, i2..K}, each element
///        one FMA chain over the block's columns in order (the same bits on the CPU and the GPU).
///   6. codes back in the original column order.
/// Rows are independent: FP32 work per row (the same bits for any thread count).
/// Floating-point targets (`target` fp8 / nvfp4 / mxfp4, docs/numerics.md "GPTQ with FP targets"):
/// the same steps with the observer and the element cast of the product's fp8 (E4M3, per tensor
/// or per output channel), nvfp4 (E2M1, E4M3 group scales over an FP32 global scale of the whole
/// original weight) and mxfp4 (E2M1, E8M0 scales of groups of 32) quantizers; step 5's
/// q, ŵ_i are q = cast(w_i / s_eff), ŵ_i = value(q) · s_eff (s_eff = b / global for nvfp4).
#include <memory>

#include "quant/awq_math.h"
#include "quant/quantizer.h"

namespace quantscope {

enum class ActOrder : std::uint8_t { None, Static, Weight };
/// The format GPTQ's codes are in: the INT format of GptqSpec::quant, or a floating-point one.
enum class GptqTarget : std::uint8_t { Int, Fp8, NvFp4, MxFp4 };

struct GptqSpec {
    GptqTarget target = GptqTarget::Int;
    /// The INT format: bits, symmetric, channel or group g. FP targets use only its granularity
    /// (fp8: tensor or channel) and group (nvfp4: 16 by default; mxfp4: 32), bits 8 (fp8) or 4.
    IntSpec quant;
    std::int64_t blockSize = 128; ///< columns per lazy-batch block
    double dampening = 0.01;      ///< fraction of mean diag(H) added to diag(H)
    ActOrder actorder = ActOrder::None;

    void validate() const;
    nlohmann::json toJson() const;
    static GptqSpec fromJson(const nlohmann::json &j);
    static std::vector<SpecField> fields();
};

std::string toString(ActOrder v);
std::string toString(GptqTarget v);

/// What gptqSolve reports besides the codes.
struct GptqInfo {
    bool fallback = false;        ///< H (dampened) was not positive definite: RTN codes
    std::int64_t deadColumns = 0; ///< columns with H_jj = 0 (zeroed)
    double loss = 0;              ///< llm-compressor's loss: Σ e² / 2 over every element
};

/// The GPTQ codes of W (rows × cols, row-major FP32) given the scales/zero points of `layout`
/// (`q.scales`, `q.zeros` filled by the INT observer) and H (cols × cols, row-major, any positive
/// multiple of XᵀX). Fills q.codes (and q.dequantized when asked). Throws Cancelled.
GptqInfo gptqSolve(const std::vector<float> &w, std::int64_t rows, std::int64_t cols, const std::vector<double> &h,
                   const GptqSpec &spec, QuantizedTensor &q, bool wantDequantized, int threads,
                   const CancelToken *cancel);

/// Steps 2–4 up to the factorisation, from H's diagonal alone (shared by the CPU and the GPU, so
/// both order, zero and dampen alike): the act order's permutation, the dead columns and the
/// dampening added to every diagonal element (dampening · the mean of the permuted diagonal after
/// the dead columns' 1, summed in column order in FP64).
struct GptqOrder {
    std::vector<std::int64_t> perm; ///< permuted position → original column
    std::vector<std::uint8_t> dead; ///< per permuted position: H_jj = 0 (W's column zeroed)
    std::int64_t deadColumns = 0;
    double damp = 0;
};
GptqOrder gptqOrder(const std::vector<double> &h, std::int64_t k, const GptqSpec &spec);

/// U (K×K row-major FP32, upper triangular): the upper Cholesky factor of the permuted, dampened
/// H⁻¹, from one FP64 Cholesky of the reversed H and a blocked triangular inverse. `fallback` is
/// set (and U = I) when H is not positive definite. The GPU computes the same U with cuSOLVER
/// (potrf + trtri), equal up to FP64 rounding before the cast to FP32.
std::vector<float> gptqFactor(const std::vector<double> &h, std::int64_t k, const GptqOrder &order, int threads,
                              bool &fallback);

/// Steps 5–6 given U: the codes (and Ŵ), column by column, the lazy-batch update of the columns
/// after each block as one FMA chain per element over the block's columns in order,
/// w ← fma(−e_k, U_kj, w) for k = i1…i2−1 (the GPU's kernel runs the same chain: the same bits).
/// q.scales / q.zeros hold the observer's values. Returns the loss and fills q.codes.
GptqInfo gptqColumns(const std::vector<float> &w, std::int64_t rows, std::int64_t cols, const GptqOrder &order,
                     const std::vector<float> &u, const GptqSpec &spec, QuantizedTensor &q, bool wantDequantized,
                     int threads, const CancelToken *cancel);

/// The Hessian GPTQ uses for a module: 2·G from the capture's full Gram, else 2·XsᵀXs/R of its
/// row sample. Throws UnsupportedError naming the module and the capture when neither is there.
/// `source` says which ("gram" or "sample").
std::vector<double> gptqHessian(const Calibration &c, std::string &source);

class GptqQuantizer final : public Quantizer {
public:
    explicit GptqQuantizer(GptqSpec spec);
    std::string method() const override { return "gptq"; }
    nlohmann::json spec() const override { return m_spec.toJson(); }
    /// Throws UnsupportedError when options.calibration is absent (naming `quantscope-cli
    /// capture`), when its K differs from W's, or W holds NaN/Inf.
    QuantizedTensor quantize(const Tensor &w, const QuantizeOptions &options,
                             const CancelToken *cancel = nullptr) const override;
    void dequantize(const QuantizedTensor &q, std::span<float> out) const override;

private:
    GptqSpec m_spec;
};

/// AWQ's scale search (Lin et al. 2024) as llm-compressor's AWQModifier runs it
/// (docs/numerics.md "AWQ") for one balance layer whose parent is the layer itself:
///   x̄_j = mean over the capture's sampled input rows of |x_j|;
///   duo scaling: w̄_j = mean over rows of |w_ij| / (max |w| of its group + 1e-6);
///   grid (duo on, n points): (α = 0, activations only), then α = i/(n−2), i = 0..n−2, duo;
///   s = clamp(x̄^α / (w̄^(1−α) + 1e-4), ≥ 1e-4) (or clamp(x̄^α, ≥ 1e-4)); s /= sqrt(max s · min s);
///   Ŵ(s) = Q(W·diag(s)) / s with Q the INT format's round to nearest (scales of W·diag(s));
///   loss = mean over the sample rows and outputs of (X (W − Ŵ(s))ᵀ)² (FP64); the first minimum wins.
/// The result: codes, scales and zero points of W·diag(s*) (what the checkpoint stores; the previous
/// op divides its output by s*), and s* as the outer level per input column (Ŵ = inner / s*).
struct AwqSpec {
    enum class Duo : std::uint8_t { On, Off, Both };
    IntSpec quant; ///< the INT format the balance layer is quantized to
    int grid = 20; ///< n_grid
    Duo duo = Duo::On;

    void validate() const;
    nlohmann::json toJson() const;
    static AwqSpec fromJson(const nlohmann::json &j);
    static std::vector<SpecField> fields();
};

/// One grid point of the search.
struct AwqPoint {
    double ratio = 0;
    bool duo = false;
    double loss = 0;
};

/// The search on W (rows × cols FP32) and the sample X (sampleRows × cols FP32): the grid with
/// each point's loss, the best index and its scales s* (FP32, cols).
struct AwqSearch {
    std::vector<AwqPoint> points;
    int best = -1;
    std::vector<float> scales;
};
AwqSearch awqSearch(const std::vector<float> &w, std::int64_t rows, std::int64_t cols, const std::vector<float> &x,
                    std::int64_t sampleRows, const AwqSpec &spec, int threads, const CancelToken *cancel);

// The search's steps, shared with the GPU engine (gpu/host/engine_awq.cpp), which computes x̄ and
// w̄ on the device in the same order and s on the host through awqPointScales (the same bits).
/// The grid points (α, duo; loss 0) as _get_grid_search_params makes them.
std::vector<AwqPoint> awqGrid(const AwqSpec &spec);
/// x̄ (FP32, cols): Σ_r |x_rj| in FP64 in row order, rounded to FP32, divided by R in FP32.
std::vector<float> awqActivationMeans(const std::vector<float> &x, std::int64_t sampleRows, std::int64_t cols);
/// The chunk w̄ normalises by: the group size, K per channel, N·K per tensor (at most K).
std::int64_t awqChunk(const IntSpec &quant, std::int64_t rows, std::int64_t cols);
/// w̄ (FP64, cols): Σ_r FP32(|w_rj| / FP32(max |w| of its chunk + 1e-6)) in FP64, each segment of
/// kAwqSegmentRows rows in row order from 0, the segments' sums added in order; / N.
std::vector<double> awqWeightMeans(const std::vector<float> &w, std::int64_t rows, std::int64_t cols,
                                   const IntSpec &quant);
/// s of one grid point (FP64 holding the values the point computes; FP32 values without duo).
void awqPointScales(const std::vector<float> &xMean, const std::vector<double> &wMean, const AwqPoint &pt,
                    std::vector<double> &s);
/// options.calibration when it holds a row sample for a 2-D weight of `shape`'s K; else the
/// UnsupportedError AwqQuantizer::quantize throws (naming the tensor, the capture, the module).
const Calibration &awqCalibration(const QuantizeOptions &options, const Shape &shape);
/// The refusal of a weight holding NaN/Inf, `first` its first flat index.
std::string awqNonFiniteMessage(const std::string &tensorName, std::int64_t first);
/// What AwqQuantizer::quantize sets on the INT result of W·diag(s*): method, spec, name, shape,
/// source dtype, the outer level (s*, FP32 per column) and the report (grid, best, capture).
void awqFinish(QuantizedTensor &q, const AwqSpec &spec, const AwqSearch &search, const Calibration &cal,
               const std::string &tensorName, const Shape &shape, DType sourceDtype);

class AwqQuantizer final : public Quantizer {
public:
    explicit AwqQuantizer(AwqSpec spec);
    std::string method() const override { return "awq"; }
    nlohmann::json spec() const override { return m_spec.toJson(); }
    /// Throws UnsupportedError when options.calibration is absent or holds no row sample, or its K
    /// differs from W's.
    QuantizedTensor quantize(const Tensor &w, const QuantizeOptions &options,
                             const CancelToken *cancel = nullptr) const override;
    /// Ŵ = s_int·(q − z) / s*_column.
    void dequantize(const QuantizedTensor &q, std::span<float> out) const override;

private:
    AwqSpec m_spec;
};

/// The quantizer whose result a GPTQ result is stored and dequantized as (its observer): `int` with
/// spec.quant, or fp8 (E4M3, spec.quant's granularity), nvfp4 or mxfp4 (spec.quant's group).
std::unique_ptr<Quantizer> gptqTargetQuantizer(const GptqSpec &spec);

/// The message of a data-aware method run without a capture.
std::string needsCaptureMessage(const std::string &method, const std::string &tensorName);

} // namespace quantscope
