// SPDX-License-Identifier: MIT
#pragma once
/// \file ggml_mix.h
/// The per-tensor types llama.cpp's `llama-quantize` picks for a file type such as Q4_K_M
/// (llama.cpp src/llama-quant.cpp as vendored in llama-cpp-python 0.3.36: tensor_allows_quantization,
/// llama_tensor_get_type with its --token-embedding-type / --output-tensor-type / --tensor-type
/// overrides and --pure, the mix rules, tensor_type_fallback), for the file types whose block types
/// Quantscope quantizes, the i-quant ones (IQ1_S … IQ4_XS, IQ2_M, IQ3_XS, IQ3_M) included
/// (docs/formats.md "GGUF export"). TQ1_0/TQ2_0, Q1_0/Q2_0 and MXFP4_MOE are refused by name.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ggml/ggml_types.h"

namespace quantscope::ggml {

/// llama_ftype values (llama.h) of the file types Quantscope writes.
enum class FileType : std::uint32_t {
    AllF32 = 0,
    F16 = 1,
    Q4_0 = 2,
    Q4_1 = 3,
    Q8_0 = 7,
    Q5_0 = 8,
    Q5_1 = 9,
    Q2_K = 10,
    Q3_K_S = 11,
    Q3_K_M = 12,
    Q3_K_L = 13,
    Q4_K_S = 14,
    Q4_K_M = 15,
    Q5_K_S = 16,
    Q5_K_M = 17,
    Q6_K = 18,
    IQ2_XXS = 19,
    IQ2_XS = 20,
    Q2_K_S = 21,
    IQ3_XS = 22,
    IQ3_XXS = 23,
    IQ1_S = 24,
    IQ4_NL = 25,
    IQ3_S = 26,
    IQ3_M = 27,
    IQ2_S = 28,
    IQ2_M = 29,
    IQ4_XS = 30,
    IQ1_M = 31,
    BF16 = 32,
};

/// "Q4_K_M" / "q4_k_m" → the file type; nullopt for a name llama-quantize does not know or
/// Quantscope does not write (`why` says which).
std::optional<FileType> fileTypeFromName(std::string_view name, std::string *why = nullptr);
std::string_view fileTypeName(FileType f) noexcept;
/// Every file type Quantscope writes, in llama_ftype order.
const std::vector<FileType> &allFileTypes();
/// The file type's default tensor type (Q4_K_M → Q4_K).
Type defaultType(FileType f) noexcept;

/// What the type choice reads of the model (GGUF metadata `<arch>.…`).
struct MixModel {
    std::string arch;       ///< general.architecture
    int layers = 0;         ///< <arch>.block_count
    int heads = 0;          ///< <arch>.attention.head_count
    int headsKv = 0;        ///< <arch>.attention.head_count_kv (0: = heads)
    int experts = 0;        ///< <arch>.expert_count (0 or 1: dense)
    bool hasOutput = false; ///< an `output.weight` tensor exists (false: tied to token_embd)
    int attentionV = 0;     ///< how many attn_v / attn_qkv / attn_kv_b tensors the file holds
};

/// One tensor as the choice sees it.
struct MixTensor {
    std::string name;              ///< GGUF name
    std::vector<std::uint64_t> ne; ///< ne[0] innermost
    Type type = Type::F32;         ///< as stored
};

struct MixOptions {
    FileType fileType = FileType::Q4_K_M;
    bool pure = false;        ///< --pure: the default type everywhere (no per-tensor choice)
    bool haveImatrix = false; ///< an importance matrix is given (changes Q4_0/Q5_0/IQ4_*/IQ3_XXS choices)
    /// --tensor-type REGEX=TYPE (ECMAScript search): the first match wins and replaces the mix
    /// rules; rows that are not whole blocks of it still fall back, as in llama-quantize.
    std::vector<std::pair<std::string, Type>> tensorTypes;
    std::optional<Type> tokenEmbeddingType, outputTensorType;
    bool quantizeOutput = true; ///< --leave-output-tensor clears it
};

struct MixChoice {
    std::size_t index = 0; ///< the tensor's position in the input list
    std::string name;
    bool quantize = false; ///< false: copied as stored
    Type type = Type::F32; ///< the type written
    std::string
        why; ///< "default Q4_K", "attn_v: use_more_bits → Q6_K", "fallback: 576 not a multiple of 256 → Q5_0", …
    /// llama-quantize's tensor_requires_imatrix: the type is IQ1_S, IQ1_M, IQ2_XXS, IQ2_XS, IQ2_S or
    /// IQ3_XXS (or Q2_K in a Q2_K_S file), the tensor not token_embd / output; the writer refuses
    /// such a tensor that the importance matrix has no weights for.
    bool requiresImatrix = false;
};

/// The choice for every tensor, in llama-quantize's order — its loader's weight map sorts by the
/// layer of `blk.N.` (others first, as layer −1), then by name; its counters advance and its
/// output file is written in that order. Throws UnsupportedError naming the tensor for a row
/// size llama.cpp has no fallback for and, without an imatrix, for a tensor that requires one.
std::vector<MixChoice> chooseTypes(const MixModel &model, const std::vector<MixTensor> &tensors,
                                   const MixOptions &options);

} // namespace quantscope::ggml
