// SPDX-License-Identifier: MIT
#pragma once
/// \file gguf.h
/// GGUF reader (llama.cpp's file format, versions 2 and 3): header, metadata, tensor infos,
/// alignment, memory-mapped data. Strict: every rule of docs/formats.md "GGUF" broken is a
/// FormatError naming the file, the byte offset and, where there is one, the tensor or key.
///
/// Tensors are listed under their GGUF names with the logical shape in row-major order: GGUF
/// stores ne[0] innermost, so the shape is ne reversed (`token_embd.weight` ne [576, 49152] is
/// [49152, 576]). Dense F32/F16/BF16/F64/I8…I64 tensors are borrowed views of the mapping;
/// block types (Q4_0…IQ4_XS) decode to FP32 (ggml/ggml_types.h) when read, and their entry's
/// dtype is F32, the dtype they are read as. Rows of llama's attn_q/attn_k are left in
/// llama.cpp's permuted order (docs/formats.md "GGUF").
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "ggml/ggml_types.h"
#include "io/tensor_entry.h"
#include "tensor/tensor.h"

namespace quantscope {

class MappedFile;

/// One metadata key-value pair.
struct GgufKeyValue {
    std::string key;
    std::uint32_t type = 0;      ///< gguf_type: 0 UINT8 … 8 STRING, 9 ARRAY, 10 UINT64, 11 INT64, 12 FLOAT64
    std::uint32_t arrayType = 0; ///< ARRAY: the element type
    std::uint64_t arrayCount = 0;
    std::uint64_t offset = 0; ///< absolute offset of the key's length field
    std::uint64_t end = 0;    ///< absolute offset just past the value
    /// The value: a number, bool or string (made valid UTF-8); an array of up to
    /// GgufFile::kMaxArrayKept elements in full, a longer one as null (its count says how long).
    nlohmann::json value;
};

/// One tensor as its info describes it.
struct GgufTensorInfo {
    std::string name;
    std::vector<std::uint64_t> ne; ///< ne[0] innermost, as stored
    ggml::Type type = ggml::Type::F32;
    std::uint64_t offset = 0; ///< relative to the data section
    std::uint64_t nbytes = 0;
    std::uint64_t infoOffset = 0; ///< absolute offset of the info's name field
};

class GgufFile {
public:
    static constexpr std::uint64_t kMaxArrayKept = 1024;
    static constexpr std::uint32_t kMaxDims = 4; ///< GGML_MAX_DIMS

    /// Throws IoError (cannot open/map) or FormatError (a rule broken).
    static GgufFile open(const std::filesystem::path &path);
    /// Whether the file starts with the GGUF magic (for a file not named *.gguf).
    static bool hasMagic(const std::filesystem::path &path) noexcept;

    const std::filesystem::path &path() const noexcept { return m_path; }
    std::uint32_t version() const noexcept { return m_version; }
    std::uint64_t alignment() const noexcept { return m_alignment; }
    std::uint64_t dataStart() const noexcept { return m_dataStart; }
    const std::vector<GgufKeyValue> &metadata() const noexcept { return m_kv; }
    const GgufKeyValue *find(std::string_view key) const noexcept;
    /// A string value ("" when absent or not a string).
    std::string stringValue(std::string_view key) const;
    /// general.architecture, or "".
    std::string architecture() const { return stringValue("general.architecture"); }

    const std::vector<GgufTensorInfo> &tensors() const noexcept { return m_tensors; }
    const GgufTensorInfo *tensorInfo(std::string_view name) const noexcept;
    /// As every reader lists them (GGUF names, logical shapes).
    const std::vector<TensorEntry> &entries() const noexcept { return m_entries; }
    /// The HF name of a tensor ("" for an unknown architecture or name); ggml/ggml_names.h.
    std::string hfName(std::string_view ggufName) const;
    /// The tensor: a borrowed view (dense types) or decoded FP32 (block types). Throws
    /// FormatError for an unknown name, UnsupportedError for a type that does not decode.
    Tensor tensor(std::string_view name) const;
    /// The stored bytes of one key-value pair (key, type and value, as in the file): what a GGUF
    /// writer copies to keep a value it does not parse, such as a tokenizer's long arrays.
    std::span<const std::byte> rawKeyValue(const GgufKeyValue &kv) const;
    /// The stored bytes of a tensor (its blocks), borrowed as U8 [nbytes].
    Tensor rawBytes(std::string_view name) const;

private:
    std::filesystem::path m_path;
    std::shared_ptr<const MappedFile> m_map;
    std::uint32_t m_version = 0;
    std::uint64_t m_alignment = 32;
    std::uint64_t m_dataStart = 0;
    std::vector<GgufKeyValue> m_kv;
    std::vector<GgufTensorInfo> m_tensors;
    std::vector<TensorEntry> m_entries;
    std::map<std::string, std::size_t, std::less<>> m_byName;
};

/// The DType a dense ggml type is read as, F32 for a block type.
DType ggufReadDType(ggml::Type t) noexcept;

} // namespace quantscope
