// SPDX-License-Identifier: MIT
#pragma once
/// \file checkpoint.h
/// What a path opens (docs/formats.md "What a path opens"): one .safetensors file, a sharded folder
/// with model.safetensors.index.json (or the path of such an index file itself), or a folder holding exactly one .safetensors; plus
/// config.json from the same folder when present. Which reader takes which path: reader.h.
#include <filesystem>
#include <memory>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "io/safetensors.h"
#include "io/tensor_entry.h"

namespace quantscope {

class NpyFile;
class NpzFile;
class GgufFile;

/// Also NumPy arrays: a `.npy` or `.npz` path opens its arrays (npy.h, npz.h): a .npy file is one
/// entry named after the file's stem, an .npz one entry per `.npy` member; `file` is the array
/// file and `fileOffset` the first data byte (for a deflated member: the first byte of its
/// compressed stream). No config.json is read for arrays.
class Checkpoint {
public:
    /// Throws IoError / FormatError naming the file (and tensor) at fault: missing shard,
    /// tensor absent from its shard, tensor in two shards, shard path leaving the folder,
    /// a folder with several .safetensors and no index (the message lists them).
    static Checkpoint open(const std::filesystem::path &path, const ReadOptions &options = {});

    /// The path as given.
    const std::filesystem::path &path() const noexcept { return m_path; }
    /// All tensors: for a sharded checkpoint in the order of the index's weight_map; otherwise
    /// the file's header order.
    const std::vector<TensorEntry> &entries() const noexcept { return m_entries; }
    const TensorEntry *find(std::string_view name) const noexcept;
    /// Borrowed view of a tensor (lazy). Throws FormatError when the name is unknown.
    Tensor tensor(std::string_view name) const;
    /// The shard files, in the order first referenced.
    std::vector<std::filesystem::path> files() const;
    /// Parsed config.json (null when absent).
    const nlohmann::json &config() const noexcept { return m_config; }
    /// config.json's quantization_config (null when absent).
    nlohmann::json quantizationConfig() const;
    /// A `__metadata__` value of the safetensors files (the first file holding `key`), or "".
    std::string metadataValue(std::string_view key) const;
    /// True when opened through model.safetensors.index.json.
    bool sharded() const noexcept { return m_sharded; }
    /// Collected warnings (lenient acceptances, unparseable config.json, …).
    const std::vector<std::string> &warnings() const noexcept { return m_warnings; }
    /// The opened .npy / .npz file when the path was one (else null).
    const NpyFile *npy() const noexcept { return m_npy.get(); }
    const NpzFile *npz() const noexcept { return m_npz.get(); }
    /// The opened GGUF file when the path was one (else null). Its tensors are listed under their
    /// GGUF names; find() and tensor() also take their HF names (ggml/ggml_names.h), and tensor()
    /// decodes block types to FP32 (io/gguf.h).
    const GgufFile *gguf() const noexcept { return m_gguf.get(); }

private:
    std::filesystem::path m_path;
    std::vector<SafetensorsFile> m_files;
    std::vector<TensorEntry> m_entries;
    std::map<std::string, std::size_t, std::less<>> m_byName; // name → entry index
    std::vector<std::size_t> m_fileOf;                        // entry index → m_files index
    nlohmann::json m_config;
    std::vector<std::string> m_warnings;
    bool m_sharded = false;
    std::shared_ptr<const NpyFile> m_npy;
    std::shared_ptr<const NpzFile> m_npz;
    std::shared_ptr<const GgufFile> m_gguf;
};

} // namespace quantscope
