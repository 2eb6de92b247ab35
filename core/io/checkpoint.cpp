// SPDX-License-Identifier: MIT
// What a path opens: the checkpoint a reader (reader.h) makes of it, and access to its tensors.
#include "io/checkpoint.h"

#include "io/gguf.h"
#include "io/npy.h"
#include "io/npz.h"
#include "io/reader.h"
#include "io/sniff.h"
#include "util/error.h"

#include <system_error>

namespace quantscope {

namespace fs = std::filesystem;

Checkpoint Checkpoint::open(const fs::path &path, const ReadOptions &options)
{
    std::error_code ec;
    const fs::file_status st = fs::status(path, ec);
    if (ec || !fs::exists(st))
        throw IoError("no such file or folder", Location{path.string(), {}, {}});
    // Which reader takes the path (reader.h): every existing path has one, the last reader
    // taking any file that is not a folder.
    const ReaderFormat *reader = readerFor(path, st);
    if (reader == nullptr)
        throw IoError("no reader opens this path", Location{path.string(), {}, {}});
    ReadContent content;
    try {
        content = reader->read(path, st, options);
    } catch (const Error &) {
        // A file no reader takes is read as safetensors, whose refusal ("the header length field
        // says 738734374976 bytes") does not help with a llama2.c .bin or a GGUF: say what it
        // looks like and what to do (sniff.h).
        if (fs::is_directory(st) || reader->name == "gguf") // the GGUF reader's refusal names the offset
            throw;
        // A .npz's own refusal (a broken member) says more than "a ZIP of .npy arrays".
        if (auto foreign = sniffForeignFile(path);
            foreign && !(foreign->format == ForeignFormat::NumpyZip && reader->name == "npz"))
            throw FormatError(foreignFileMessage(*foreign), Location{path.string(), {}, {}});
        throw;
    }

    Checkpoint ck;
    ck.m_path = path;
    ck.m_files = std::move(content.files);
    ck.m_entries = std::move(content.entries);
    ck.m_fileOf = std::move(content.fileOf);
    ck.m_config = std::move(content.config);
    ck.m_warnings = std::move(content.warnings);
    ck.m_sharded = content.sharded;
    ck.m_npy = std::move(content.npy);
    ck.m_npz = std::move(content.npz);
    ck.m_gguf = std::move(content.gguf);
    for (std::size_t i = 0; i < ck.m_entries.size(); ++i)
        ck.m_byName.emplace(ck.m_entries[i].name, i);
    if (ck.m_gguf) // HF names as aliases of the GGUF names (a stored name always wins)
        for (std::size_t i = 0; i < ck.m_entries.size(); ++i)
            if (const std::string hf = ck.m_gguf->hfName(ck.m_entries[i].name); !hf.empty())
                ck.m_byName.emplace(hf, i);
    return ck;
}

const TensorEntry *Checkpoint::find(std::string_view name) const noexcept
{
    const auto it = m_byName.find(name);
    return it == m_byName.end() ? nullptr : &m_entries[it->second];
}

Tensor Checkpoint::tensor(std::string_view name) const
{
    const auto it = m_byName.find(name);
    if (it == m_byName.end())
        throw FormatError("no such tensor in the checkpoint", Location{m_path.string(), std::string(name), {}});
    if (m_npy)
        return m_npy->tensor();
    if (m_npz)
        return m_npz->tensor(name);
    if (m_gguf)
        return m_gguf->tensor(m_entries[it->second].name);
    return m_files[m_fileOf[it->second]].tensor(m_entries[it->second]);
}

std::vector<fs::path> Checkpoint::files() const
{
    std::vector<fs::path> out;
    if (m_npy || m_npz || m_gguf)
        return {m_path};
    out.reserve(m_files.size());
    for (const auto &f : m_files)
        out.push_back(f.path());
    return out;
}

std::string Checkpoint::metadataValue(std::string_view key) const
{
    for (const SafetensorsFile &f : m_files) {
        const auto it = f.metadata().find(std::string(key));
        if (it != f.metadata().end())
            return it->second;
    }
    return {};
}

nlohmann::json Checkpoint::quantizationConfig() const
{
    if (m_config.is_object()) {
        const auto it = m_config.find("quantization_config");
        if (it != m_config.end())
            return *it;
    }
    return nullptr;
}

} // namespace quantscope
