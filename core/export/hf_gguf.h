// SPDX-License-Identifier: MIT
#pragma once
/// \file hf_gguf.h
/// A Hugging Face checkpoint of the llama family (config.json + safetensors, sharded or not,
/// F32/F16/BF16) written as GGUF the way llama.cpp's convert_hf_to_gguf.py writes it
/// (docs/formats.md "GGUF from a Hugging Face checkpoint"): its tensor order and names, q_proj /
/// k_proj rows permuted for llama.cpp's RoPE layout (LlamaModel.permute), the `llama.*`
/// hyperparameters and `general.*` keys in convert's order, and the vocabulary of a byte-level
/// BPE tokenizer.json (`tokenizer.ggml.model` "gpt2") when one is beside the checkpoint.
/// Written atomically (OUT.partial, re-read, renamed). Export to block types converts first and
/// then runs the llama-quantize plan (gguf_export.h), as llama.cpp's convert-then-quantize does.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "export/gguf_export.h"
#include "util/cancel.h"

namespace quantscope {

/// Whether `path` names a Hugging Face checkpoint rather than a GGUF file: a folder, a
/// `.safetensors` file or a `.json` index (a path that is none of these is left to the GGUF reader).
bool isHfCheckpointPath(const std::filesystem::path &path);

/// The tensor types of the conversion: convert_hf_to_gguf.py's --outtype f32 / f16 / bf16, or
/// each tensor as stored (what the quantizing export reads; lossless, no wider than the source).
enum class HfOutType { F32, F16, BF16, Stored };

/// GGUF key-value pairs in the order written; setting a key again replaces its value in place
/// (as the `gguf` package's GGUFWriter does).
class GgufKvList {
public:
    void u32(const std::string &key, std::uint32_t v);
    void f32(const std::string &key, float v);
    void boolean(const std::string &key, bool v);
    void str(const std::string &key, const std::string &v);
    void strArray(const std::string &key, const std::vector<std::string> &v);
    void i32Array(const std::string &key, const std::vector<std::int32_t> &v);
    bool has(const std::string &key) const;
    std::size_t size() const noexcept { return m_kv.size(); }
    /// Every pair as GGUF stores it (key, type, value).
    std::vector<std::byte> bytes() const;

private:
    void set(const std::string &key, std::vector<std::byte> typeAndValue);
    std::vector<std::pair<std::string, std::vector<std::byte>>> m_kv;
};

/// convert_hf_to_gguf.py's vocabulary keys for a llama-family checkpoint in `folder` (LlamaModel
/// .set_vocab: a byte-level BPE tokenizer.json through _set_vocab_gpt2 and the `gguf` package's
/// SpecialVocab), appended to `kv`. `config` is config.json as read, `vocabSize` its vocab_size.
/// Returns a one-line description ("gpt2, pre-tokenizer smollm, 49152 tokens, 48900 merges"), ""
/// when the folder holds no tokenizer (no keys written; a note says so). Throws UnsupportedError
/// naming the file for a tokenizer it does not write (SentencePiece tokenizer.model, a
/// tokenizer.json model other than BPE, a byte-fallback BPE), FormatError for one that lies.
std::string addHfTokenizer(const std::filesystem::path &folder, const nlohmann::json &config, std::int64_t vocabSize,
                           GgufKvList &kv, std::vector<std::string> &notes);

/// The pre-tokenizer name written for a tokenizer.json `pre_tokenizer` (docs/formats.md "GGUF
/// from a Hugging Face checkpoint": a table of the shapes llama.cpp knows), "default" otherwise.
std::string hfPreTokenizerName(const nlohmann::json &preTokenizer);

/// Converts `source` (a folder with config.json, its model.safetensors or its index .json) into
/// the GGUF file `out` (must not exist). Throws UnsupportedError (an architecture convert does not
/// write as llama, a dtype, a tokenizer), FormatError (config keys missing or wrong, a tensor
/// missing, unnamed or of the wrong shape — each naming the file and tensor), IoError, Cancelled;
/// `out` exists only after a complete write that re-read to the same bytes.
GgufExportResult convertHfToGguf(const std::filesystem::path &source, const std::filesystem::path &out, HfOutType type,
                                 const CancelToken *cancel = nullptr,
                                 const std::function<void(double, const std::string &)> &progress = {});
/// The same checks and plan, nothing written.
GgufExportResult planHfToGguf(const std::filesystem::path &source, HfOutType type);

} // namespace quantscope
