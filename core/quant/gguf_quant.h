// SPDX-License-Identifier: MIT
#pragma once
/// \file gguf_quant.h
/// llama.cpp's block quantizers as an engine method, `gguf` (docs/numerics.md "GGUF block
/// types"): `{"method": "gguf", "type": "q4_k"}` quantizes each row of the [rows, K] view along K
/// into ggml blocks (ggml/ggml_quantize.h: Q4_0, Q4_1, Q5_0, Q5_1, Q8_0, TQ1_0, TQ2_0, MXFP4 as
/// gguf.quants.quantize, Q2_K … Q6_K as ggml's quantize_row_q*_K_ref) and decodes them back with
/// ggml's dequantize (ggml/ggml_types.h). K must be a whole number of blocks (32, or 256 for the
/// K-quants and the ternary types).
///
/// The result keeps Ŵ, the block scale d of each block as its scales (F16, MXFP4's E8M0; group =
/// the block),
/// and the stored size of the blocks in `blockBytes` (bits per element = 8 · bytes / elements:
/// Q4_0 4.5, Q4_1 5, Q5_0 5.5, Q5_1 6, Q8_0 8.5, Q2_K 2.625, Q3_K 3.4375, Q4_K 4.5, Q5_K 5.5,
/// Q6_K 6.5625, TQ1_0 1.6875, TQ2_0 2.0625, MXFP4 4.25); the packed codes are not unpacked into `codes`.
#include "ggml/ggml_types.h"
#include "quant/quantizer.h"

namespace quantscope {

struct GgufQuantSpec {
    ggml::Type type = ggml::Type::Q4_K;
    /// K-quants: importance weights from the paired capture — per input channel the mean of x²,
    /// which is what llama.cpp's imatrix holds — as llama-quantize passes an imatrix.
    bool imatrix = false;

    void validate() const;
    nlohmann::json toJson() const;
    static GgufQuantSpec fromJson(const nlohmann::json &j);
    static std::vector<SpecField> fields();
};

class GgufQuantizer final : public Quantizer {
public:
    explicit GgufQuantizer(GgufQuantSpec spec);
    std::string method() const override { return "gguf"; }
    nlohmann::json spec() const override { return m_spec.toJson(); }
    QuantizedTensor quantize(const Tensor &w, const QuantizeOptions &options,
                             const CancelToken *cancel = nullptr) const override;
    void dequantize(const QuantizedTensor &q, std::span<float> out) const override;

private:
    GgufQuantSpec m_spec;
};

/// The result GgufQuantizer::quantize fills before its blocks (method, spec, name, shape, source
/// dtype, the layout of blocks along K, the code and scale dtypes) — shared with the GPU engine
/// (gpu/host/engine_ggml.cpp). UnsupportedError naming the tensor when K is not whole blocks.
QuantizedTensor ggufStart(const GgufQuantSpec &spec, const Shape &shape, DType source, const std::string &tensorName);
/// The importance weights the spec asks for: with imatrix, the paired capture's mean x² per input
/// channel (cols of them, as FP32); empty without. UnsupportedError without a capture or for a
/// capture of another width.
std::vector<float> ggufImportance(const GgufQuantSpec &spec, const QuantizeOptions &options, std::int64_t cols);

} // namespace quantscope
