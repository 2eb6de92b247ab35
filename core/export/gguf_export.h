// SPDX-License-Identifier: MIT
#pragma once
/// \file gguf_export.h
/// GGUF export (docs/formats.md "GGUF export"): a GGUF model requantized the way llama.cpp's
/// `llama-quantize` does it — the same per-tensor types for a file type such as Q4_K_M
/// (ggml/ggml_mix.h), the same block quantizers (ggml/ggml_quantize.h, with an importance matrix
/// for the K-quants), the metadata copied byte for byte with `general.file_type` and
/// `general.quantization_version` set — written atomically (OUT.partial, re-read, renamed), so
/// that a refusal, a Cancel or an error leaves no OUT.
///
/// The importance matrix comes from llama.cpp's `imatrix.dat` (the legacy binary layout), its
/// GGUF imatrix (`*.in_sum2` / `*.counts`), or a Quantscope capture (each module's mean x²,
/// paired by the tensor's HF name).
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ggml/ggml_mix.h"
#include "util/cancel.h"

namespace quantscope {

class GgufFile;

/// Importance weights per GGUF tensor name (ne[0] · experts values each).
struct Imatrix {
    std::string file;                  ///< the path as given (llama-quantize writes it into the output's metadata)
    std::string format;                ///< "imatrix.dat", "imatrix.gguf" or "capture"
    std::vector<std::string> datasets; ///< the calibration texts the file names
    std::int64_t chunks = 0;           ///< the chunks it was computed on (0: not stated)
    std::map<std::string, std::vector<float>, std::less<>> weights;
};

/// Reads an importance matrix. `model` gives the architecture and tensor shapes a capture is
/// paired by (its modules' HF names). Throws FormatError naming the file and the entry that lies
/// (a truncated file, a count that overflows, a name that is not UTF-8, a non-finite weight,
/// counts of zero), IoError when the file cannot be read.
Imatrix loadImatrix(const std::filesystem::path &path, const GgufFile &model);

class Checkpoint;

/// llama.cpp's importance matrix alone — imatrix.dat or an imatrix GGUF — for `quantize` and
/// `sweep --imatrix` and the window. A capture is refused here (it pairs through --capture).
Imatrix loadImatrix(const std::filesystem::path &path);

/// The importance weights of `tensor` of `ck` whose rows hold `k` values: the entry of its GGUF
/// name — the name itself, or the GGUF name of an HF name (by the GGUF file's architecture, or
/// the llama family's names for a Hugging Face checkpoint). Throws UnsupportedError naming the
/// file and the tensor when the file has no entry (the names looked up listed) or the entry
/// holds another number of weights than k.
std::vector<float> importanceOf(const Imatrix &im, const Checkpoint &ck, const std::string &tensor, std::int64_t k);

struct Recipe;

struct GgufExportOptions {
    ggml::MixOptions mix;
    /// A recipe whose rules name ggml types (`{"method": "gguf", "type": "q6_k"}`): each module it
    /// matches (by HF name, or by GGUF name for an unknown architecture) gets that type after
    /// llama.cpp's choice — the custom mix a budget or a hand-written recipe decides. A rule of
    /// another method is refused (GGUF stores ggml's types), an excluded module is left as stored.
    std::shared_ptr<const Recipe> recipe;
    bool allowRequantize = false; ///< llama-quantize --allow-requantize: block-typed sources
    std::optional<std::filesystem::path> imatrix;
    int threads = 0;
    const CancelToken *cancel = nullptr;
    std::function<void(double, const std::string &)> progress;
};

struct GgufExportTensor {
    std::string name, hfName;
    std::string from, to; ///< ggml type names
    bool quantized = false;
    bool imatrix = false; ///< quantized with importance weights
    std::string why;
    std::vector<std::uint64_t> ne;
    std::uint64_t bytes = 0;
    double relErr = 0; ///< ‖W − Ŵ‖² / ‖W‖² of a quantized tensor against its source values (FP64)
};

struct GgufExportResult {
    std::string file;
    std::string fileType;
    std::vector<GgufExportTensor> tensors;
    std::uint64_t bytesIn = 0, bytesOut = 0; ///< tensor data
    std::string imatrix;                     ///< the importance matrix used, "" for none
    std::vector<std::string> notes;
    nlohmann::ordered_json toJson() const;
};

/// The plan alone (no file written): what each tensor becomes and why.
GgufExportResult planGgufExport(const std::filesystem::path &source, const GgufExportOptions &options);

/// Writes `out` from the GGUF `source`. Throws UnsupportedError (refused before anything is
/// written: a block-typed source without allowRequantize, a choice Quantscope cannot quantize,
/// importance weights that do not fit a tensor), FormatError, IoError, Cancelled; `out` exists
/// only after a complete write that re-read to the same bytes.
GgufExportResult exportGguf(const std::filesystem::path &source, const std::filesystem::path &out,
                            const GgufExportOptions &options);

} // namespace quantscope
