// SPDX-License-Identifier: MIT
#include "export/staged_output.h"

#include <map>

#include "export/config_export.h"
#include "io/safetensors.h"
#include "util/error.h"

namespace quantscope {

namespace fs = std::filesystem;

StagedOutput::StagedOutput(const std::string &outDir) : m_out(outDir)
{
    // `--out-dir w4/` names the folder w4: its stage is w4.partial beside it, not w4/.partial
    // inside it (which the final rename could not move onto its own parent).
    if (!m_out.has_filename() && m_out.has_parent_path())
        m_out = m_out.parent_path();
    std::error_code ec;
    if (fs::exists(m_out) && !(fs::is_directory(m_out) && fs::is_empty(m_out)))
        throw IoError("the output folder exists and is not empty", Location{outDir, {}, {}});
    m_stage = fs::path(m_out.string() + ".partial");
    fs::remove_all(m_stage, ec);
    fs::create_directories(m_stage, ec);
    if (ec)
        throw IoError("cannot create the output folder", Location{m_stage.string(), {}, {}});
}

StagedOutput::~StagedOutput()
{
    std::error_code ec;
    if (!m_committed)
        fs::remove_all(m_stage, ec);
}

std::vector<std::string> StagedOutput::writeTensors(const Checkpoint &input, const std::vector<OutTensor> &tensors,
                                                    const std::function<void(double)> &progress,
                                                    const FileMetadata &metadata)
{
    auto metaOf = [&](const std::vector<const OutTensor *> &held) {
        std::map<std::string, std::string> meta = metadata ? metadata(held) : std::map<std::string, std::string>{};
        meta.emplace("format", "pt");
        return meta;
    };
    if (!input.sharded()) {
        std::vector<std::pair<std::string, Tensor>> all;
        std::vector<const OutTensor *> held;
        all.reserve(tensors.size());
        for (const OutTensor &t : tensors) {
            all.emplace_back(t.name, t.tensor);
            held.push_back(&t);
        }
        writeSafetensors(m_stage / "model.safetensors", all, metaOf(held));
        if (progress)
            progress(1.0);
        return {"model.safetensors"};
    }
    // Sharded: the shard of each tensor is its source's file name, in the input's shard order.
    std::vector<std::string> order;
    std::map<std::string, std::vector<std::pair<std::string, Tensor>>> byShard;
    std::map<std::string, std::vector<const OutTensor *>> heldBy;
    for (const fs::path &f : input.files()) {
        order.push_back(f.filename().string());
        byShard[f.filename().string()];
    }
    nlohmann::ordered_json index;
    std::uint64_t total = 0;
    nlohmann::ordered_json map = nlohmann::ordered_json::object();
    for (const OutTensor &t : tensors) {
        const TensorEntry *e = input.find(t.source);
        if (!e)
            throw FormatError("no input tensor " + t.source + " for the output tensor " + t.name);
        const std::string shard = e->file.filename().string();
        byShard[shard].emplace_back(t.name, t.tensor);
        heldBy[shard].push_back(&t);
        map[t.name] = shard;
        total += static_cast<std::uint64_t>(t.tensor.nbytes());
    }
    std::size_t done = 0;
    for (const std::string &shard : order) {
        writeSafetensors(m_stage / shard, byShard[shard], metaOf(heldBy[shard]));
        if (progress)
            progress(static_cast<double>(++done) / static_cast<double>(order.size()));
    }
    index["metadata"] = {{"total_size", total}};
    index["weight_map"] = map;
    writeTextAtomically((m_stage / "model.safetensors.index.json").string(), index.dump(2) + "\n");
    order.push_back("model.safetensors.index.json");
    return order;
}

void StagedOutput::writeConfig(const Checkpoint &input, const nlohmann::ordered_json &quantizationConfig,
                               bool untieWordEmbeddings)
{
    nlohmann::ordered_json config =
        input.config().is_object() ? nlohmann::ordered_json(input.config()) : nlohmann::ordered_json::object();
    if (!quantizationConfig.is_null())
        config["quantization_config"] = quantizationConfig;
    if (untieWordEmbeddings && config.contains("tie_word_embeddings"))
        config["tie_word_embeddings"] = false;
    writeTextAtomically((m_stage / "config.json").string(), config.dump(2) + "\n");
}

void StagedOutput::commit()
{
    std::error_code ec;
    fs::remove(m_out, ec); // empty or absent
    fs::rename(m_stage, m_out, ec);
    if (ec)
        throw IoError("cannot rename the written checkpoint into place", Location{m_out.string(), {}, {}});
    m_committed = true;
}

} // namespace quantscope
