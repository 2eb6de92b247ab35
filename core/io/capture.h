// SPDX-License-Identifier: MIT
#pragma once
/// \file capture.h
/// A calibration capture (docs/bridge.md "Capture files"): a safetensors file the Python bridge
/// wrote from the model's own forward passes, holding per linear module the input's second
/// moments (the Gram G = XᵀX / n, or its diagonal), per-channel ranges and a sample of rows, and
/// per attention block its K/V cache and a sample of queries. Opening validates the metadata and
/// every tensor's shape against it; reading a module's statistics is lazy (the file is mapped).
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "io/safetensors.h"
#include "metrics/output_error.h"
#include "quant/quantizer.h"
#include "tensor/tensor.h"

namespace quantscope {

class Checkpoint;

/// One linear module the capture saw.
struct CaptureModule {
    std::string module; ///< "model.layers.0.self_attn.q_proj"
    std::int64_t inFeatures = 0;
    std::int64_t outFeatures = 0;
    std::string stats; ///< the prefix of its input statistics (shared by q/k/v, gate/up)
};

/// One attention block the capture saw.
struct CaptureAttention {
    std::string module; ///< "model.layers.0.self_attn"
    int layer = 0;
    int numHeads = 0, numKvHeads = 0, headDim = 0;
    std::string rope; ///< "post" (queries and keys after the rotary embedding) or "pre"
};

/// A module's input statistics, borrowed views into the mapping (FP32).
struct InputStats {
    std::string prefix;
    std::int64_t k = 0;
    std::optional<Tensor> gram;   ///< [K, K] mean of x xᵀ; absent above the capture's gram bound
    Tensor gramDiag;              ///< [K] mean of x²
    Tensor absmax, min, max;      ///< [K] per channel over all tokens
    std::optional<Tensor> sample; ///< [R, K] sampled rows (absent when the capture holds none)
    /// The per-tensor range over all channels and tokens: max |x|.
    double tensorAbsmax() const;
};

class Capture {
public:
    /// Throws IoError (cannot open) or FormatError naming the file and the key or tensor that
    /// lies: not a capture (`format`), an unknown version, metadata that is not JSON, a module
    /// whose statistics are missing or of the wrong shape or dtype, a token count that is not a
    /// positive integer.
    static Capture open(const std::filesystem::path &path);

    const std::filesystem::path &path() const noexcept { return m_file.path(); }
    const std::vector<CaptureModule> &modules() const noexcept { return m_modules; }
    const std::vector<CaptureAttention> &attention() const noexcept { return m_attention; }
    const CaptureModule *module(std::string_view name) const noexcept;
    const CaptureAttention *attentionBlock(std::string_view name) const noexcept;
    /// The statistics of a module's input. Throws FormatError naming the module when unknown.
    InputStats inputStats(std::string_view module) const;
    /// `A.k` / `A.v` [Hkv, T, d] or `A.q` [H, Q, d] of an attention block (`which` 'k', 'v', 'q');
    /// empty when the capture holds none.
    std::optional<Tensor> attentionTensor(std::string_view block, char which) const;

    std::int64_t tokens() const noexcept { return m_tokens; } ///< token positions the moments average over
    std::int64_t samples() const noexcept { return m_samples; }
    std::int64_t seq() const noexcept { return m_seq; }
    /// A metadata value ("" when absent): model, gguf_file, input, input_sha256, device, dtype…
    std::string meta(std::string_view key) const;
    const std::map<std::string, std::string> &metadata() const noexcept { return m_file.metadata(); }

private:
    explicit Capture(SafetensorsFile file) : m_file(std::move(file)) {}
    SafetensorsFile m_file;
    std::vector<CaptureModule> m_modules;
    std::vector<CaptureAttention> m_attention;
    std::map<std::string, std::size_t, std::less<>> m_moduleIndex, m_attentionIndex;
    std::int64_t m_tokens = 0, m_samples = 0, m_seq = 0;
};

/// A module's Gram in FP64 for metrics/output_error.h: the full Gram when the capture holds it,
/// else its diagonal.
GramMatrix gramMatrixOf(const InputStats &stats, std::int64_t tokens);

/// A module's statistics for the data-aware quantizers (quant/calibration.h): the Gram (or its
/// diagonal) in FP64, the row sample. Throws FormatError naming the module when unknown.
Calibration calibrationOf(const Capture &capture, std::string_view module);

/// Whether a safetensors file is a capture (its `format` metadata), without validating it.
bool isCaptureFile(const std::filesystem::path &path);

/// The module a weight tensor belongs to: "X.weight" → "X"; "" for other names.
std::string moduleOfWeight(std::string_view tensor);

/// How a capture's modules pair with a checkpoint's 2-D weights (by name; "X.weight" ↔ "X").
struct CapturePairing {
    std::vector<std::string> matched; ///< modules present in both with matching K and N
    /// "module: why" for modules in both whose shapes disagree (the checkpoint's [N, K] against
    /// the capture's out_features × in_features).
    std::vector<std::string> mismatched;
    std::vector<std::string> onlyCheckpoint; ///< 2-D .weight tensors the capture lacks
    std::vector<std::string> onlyCapture;    ///< capture modules the checkpoint lacks
    bool matches(std::string_view module) const;
};

/// Pairs by name. `logicalShape(tensor)` gives each weight's [N, K] (quantized modules decode to
/// their logical shape); the default reads the checkpoint's stored shapes.
CapturePairing pairCapture(const Checkpoint &ck, const Capture &capture);
CapturePairing pairCapture(const std::vector<std::pair<std::string, Shape>> &weights, const Capture &capture);

/// Throws FormatError naming the capture, the module and both shapes when `module` is not in the
/// capture or its shape disagrees with W's [N, K].
void checkCaptureShape(const Capture &capture, std::string_view module, const Shape &weightShape);

} // namespace quantscope
