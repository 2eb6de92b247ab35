// SPDX-License-Identifier: MIT
#pragma once
/// \file staged_output.h
/// The output folder of a checkpoint writer, written atomically: everything goes to a staging
/// folder `DIR.partial` beside DIR, is re-read there, and is renamed to DIR only by commit(); a
/// failure, a Cancel or an exception anywhere leaves no DIR (and the staging folder is removed).
/// Tensors are sharded like the input: a sharded checkpoint (model.safetensors.index.json) gives
/// shards of the same file names, each tensor in the shard its source tensor came from, and an
/// index; a single file gives model.safetensors.
#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "io/checkpoint.h"
#include "tensor/tensor.h"

namespace quantscope {

struct OutTensor {
    std::string name;
    Tensor tensor;
    std::string source; ///< the input tensor it replaces or copies (decides the shard)
};

class StagedOutput {
public:
    /// Refuses (IoError) an existing DIR that is not an empty folder; creates the staging folder.
    explicit StagedOutput(const std::string &outDir);
    ~StagedOutput();
    StagedOutput(const StagedOutput &) = delete;
    StagedOutput &operator=(const StagedOutput &) = delete;

    const std::filesystem::path &stage() const noexcept { return m_stage; }
    /// A file's `__metadata__` (besides "format": "pt") from the tensors it holds, in order.
    using FileMetadata = std::function<std::map<std::string, std::string>(const std::vector<const OutTensor *> &)>;
    /// Writes the tensors sharded like `input`; returns the files written (names in DIR).
    /// `metadata` (when set) gives each file's `__metadata__` from the tensors that file holds
    /// (with "format": "pt").
    std::vector<std::string> writeTensors(const Checkpoint &input, const std::vector<OutTensor> &tensors,
                                          const std::function<void(double)> &progress = {},
                                          const FileMetadata &metadata = {});
    /// config.json: the input's with `quantization_config` set (left out when null) and, with
    /// `untieWordEmbeddings`, `tie_word_embeddings: false` (a quantized lm_head of a tied model).
    void writeConfig(const Checkpoint &input, const nlohmann::ordered_json &quantizationConfig,
                     bool untieWordEmbeddings = false);
    /// Renames the staging folder to DIR. Throws IoError naming DIR.
    void commit();

private:
    std::filesystem::path m_out, m_stage;
    bool m_committed = false;
};

} // namespace quantscope
