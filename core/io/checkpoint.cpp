// SPDX-License-Identifier: MIT
// What a path opens (docs/formats.md "What a path opens", "Sharded checkpoints").
#include "io/checkpoint.h"

#include "io/json_strict.h"
#include "io/npy.h"
#include "io/npz.h"
#include "util/error.h"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <sstream>
#include <system_error>
#include <unordered_map>
#include <unordered_set>

namespace quantscope {

namespace fs = std::filesystem;

namespace {

constexpr const char *kIndexName = "model.safetensors.index.json";
constexpr const char *kConfigName = "config.json";

/// Whole file as bytes; IoError naming it when it cannot be read.
std::string readWholeFile(const fs::path &p)
{
    std::ifstream in(p, std::ios::binary);
    if (!in)
        throw IoError("cannot open the file", Location{p.string(), {}, {}});
    std::ostringstream ss;
    ss << in.rdbuf();
    if (in.bad())
        throw IoError("cannot read the file", Location{p.string(), {}, {}});
    return std::move(ss).str();
}

bool isRegularFile(const fs::path &p)
{
    std::error_code ec;
    return fs::is_regular_file(p, ec);
}

bool isIndexFileName(const fs::path &p)
{
    const std::string name = p.filename().string();
    return name == kIndexName ||
           (name.size() > 11 && name.compare(name.size() - 11, 11, ".index.json") == 0);
}

/// A shard name must be a plain file name: the index may only point into its own folder.
bool shardNameStaysInFolder(const std::string &name)
{
    if (name.empty() || name == "." || name == "..")
        return false;
    return name.find('/') == std::string::npos && name.find('\\') == std::string::npos &&
           name.find('\0') == std::string::npos;
}

/// Lower-cased extension (".npy", ".npz", …).
std::string lowerExtension(const fs::path &p)
{
    std::string e = p.extension().string();
    for (char &c : e)
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return e;
}

} // namespace

Checkpoint Checkpoint::open(const fs::path &path, const ReadOptions &options)
{
    Checkpoint ck;
    ck.m_path = path;

    std::error_code ec;
    const fs::file_status st = fs::status(path, ec);
    if (ec || !fs::exists(st))
        throw IoError("no such file or folder", Location{path.string(), {}, {}});

    // NumPy arrays: no shards, no config.json.
    if (!fs::is_directory(st) && (lowerExtension(path) == ".npy" || lowerExtension(path) == ".npz")) {
        if (lowerExtension(path) == ".npy") {
            auto f = std::make_shared<NpyFile>(NpyFile::open(path, options));
            TensorEntry e;
            e.name = path.stem().string();
            e.dtype = f->header().dtype;
            e.shape = f->header().shape;
            e.end = f->header().dataBytes;
            e.fileOffset = f->dataOffset();
            e.file = path;
            ck.m_entries.push_back(std::move(e));
            ck.m_warnings = f->warnings();
            ck.m_npy = std::move(f);
        } else {
            auto f = std::make_shared<NpzFile>(NpzFile::open(path, options));
            for (const NpzMember &m : f->members()) {
                TensorEntry e;
                e.name = m.name;
                e.dtype = m.header.dtype;
                e.shape = m.header.shape;
                e.end = m.header.dataBytes;
                e.fileOffset = m.arrayOffset();
                e.file = path;
                ck.m_entries.push_back(std::move(e));
            }
            ck.m_warnings = f->warnings();
            ck.m_npz = std::move(f);
        }
        for (std::size_t i = 0; i < ck.m_entries.size(); ++i)
            ck.m_byName.emplace(ck.m_entries[i].name, i);
        return ck;
    }

    fs::path folder;
    fs::path single; // a lone .safetensors file
    fs::path index;  // model.safetensors.index.json
    if (fs::is_directory(st)) {
        folder = path;
        if (isRegularFile(path / kIndexName)) {
            index = path / kIndexName;
        } else {
            std::vector<fs::path> found;
            for (fs::directory_iterator it(path, ec), end; !ec && it != end; it.increment(ec))
                if (it->path().extension() == ".safetensors" && isRegularFile(it->path()))
                    found.push_back(it->path());
            if (ec)
                throw IoError("cannot list the folder: " + ec.message(),
                              Location{path.string(), {}, {}});
            std::sort(found.begin(), found.end());
            if (found.empty())
                throw IoError(std::string("the folder holds no .safetensors file and no ") +
                                  kIndexName,
                              Location{path.string(), {}, {}});
            if (found.size() > 1) {
                std::string list;
                for (const auto &f : found)
                    list += (list.empty() ? "" : ", ") + f.filename().string();
                throw FormatError("the folder holds " + std::to_string(found.size()) +
                                      " .safetensors files and no " + kIndexName +
                                      ", so which one to open is ambiguous: " + list +
                                      " (open one of them directly)",
                                  Location{path.string(), {}, {}});
            }
            single = found.front();
        }
    } else if (isIndexFileName(path)) {
        index = path;
        folder = path.parent_path();
    } else {
        single = path;
        folder = path.parent_path();
    }
    if (folder.empty())
        folder = ".";

    if (!index.empty()) {
        ck.m_sharded = true;
        const std::string indexFile = index.string();
        const std::string text = readWholeFile(index);
        const nlohmann::ordered_json j = io_detail::parseStrictJson(text, indexFile);
        auto fail = [&](const std::string &msg, const std::string &tensor = {}) {
            throw FormatError(msg, Location{indexFile, tensor, {}});
        };
        if (!j.is_object())
            fail("the index must be a JSON object with a \"weight_map\"");
        const auto wm = j.find("weight_map");
        if (wm == j.end())
            fail("the index has no \"weight_map\"");
        if (!wm->is_object())
            fail("\"weight_map\" must be an object of tensor name to shard file name");
        // "metadata" (total_size, format…) is informational only: never validated.

        std::unordered_map<std::string, std::size_t> shardOf; // shard name → m_files index
        std::vector<std::string> shardNames;
        std::vector<std::pair<std::string, std::size_t>> listed; // weight_map order
        for (const auto &[name, value] : wm->items()) {
            if (!value.is_string())
                fail("the shard of the tensor must be a file name (a string)", name);
            const std::string shard = value.get<std::string>();
            if (!shardNameStaysInFolder(shard))
                fail("shard \"" + shard +
                         "\" is not a plain file name in the index's folder; shards outside the "
                         "folder are refused",
                     name);
            auto [it, added] = shardOf.emplace(shard, shardNames.size());
            if (added) {
                const fs::path shardPath = folder / shard;
                if (!isRegularFile(shardPath))
                    throw IoError("shard \"" + shard + "\" listed in " + index.filename().string() +
                                      " does not exist",
                                  Location{shardPath.string(), name, {}});
                shardNames.push_back(shard);
                ck.m_files.push_back(SafetensorsFile::open(shardPath, options));
            }
            listed.emplace_back(name, it->second);
        }

        // No tensor may live in two shards: the index could only name one of them.
        std::unordered_map<std::string_view, std::size_t> holder;
        for (std::size_t fi = 0; fi < ck.m_files.size(); ++fi)
            for (const TensorEntry &e : ck.m_files[fi].entries()) {
                const auto [it, added] = holder.emplace(e.name, fi);
                if (!added)
                    throw FormatError(
                        "the tensor is in two shards: \"" + shardNames[it->second] + "\" and \"" +
                            shardNames[fi] + "\"",
                        Location{ck.m_files[fi].path().string(), e.name, e.fileOffset});
            }

        std::unordered_set<std::string_view> inIndex;
        for (const auto &[name, fi] : listed) {
            const SafetensorsFile &f = ck.m_files[fi];
            const TensorEntry *e = f.find(name);
            if (e == nullptr)
                throw FormatError("the index places the tensor in shard \"" + shardNames[fi] +
                                      "\", which does not contain it",
                                  Location{f.path().string(), name, {}});
            ck.m_byName.emplace(name, ck.m_entries.size());
            ck.m_entries.push_back(*e);
            ck.m_fileOf.push_back(fi);
            inIndex.insert(e->name);
        }
        for (std::size_t fi = 0; fi < ck.m_files.size(); ++fi) {
            for (const std::string &w : ck.m_files[fi].warnings())
                ck.m_warnings.push_back(w);
            for (const TensorEntry &e : ck.m_files[fi].entries())
                if (!inIndex.count(e.name))
                    ck.m_warnings.push_back(formatLocation(
                        Location{ck.m_files[fi].path().string(), e.name, e.fileOffset},
                        "the tensor is in the shard but not in " + index.filename().string() +
                            "; it is ignored"));
        }
    } else {
        ck.m_files.push_back(SafetensorsFile::open(single, options));
        const SafetensorsFile &f = ck.m_files.front();
        ck.m_entries = f.entries();
        for (std::size_t i = 0; i < ck.m_entries.size(); ++i) {
            ck.m_byName.emplace(ck.m_entries[i].name, i);
            ck.m_fileOf.push_back(0);
        }
        ck.m_warnings = f.warnings();
    }

    // config.json is a help, not a requirement: a broken one is reported and ignored.
    const fs::path config = folder / kConfigName;
    if (isRegularFile(config)) {
        try {
            const std::string text = readWholeFile(config);
            const auto j = io_detail::parseStrictJson(text, config.string());
            ck.m_config = nlohmann::json(j);
        } catch (const Error &e) {
            ck.m_warnings.push_back(e.what() + std::string(" (config.json ignored)"));
        } catch (const std::exception &e) {
            ck.m_warnings.push_back(
                formatLocation(Location{config.string(), {}, {}},
                               std::string(e.what()) + " (config.json ignored)"));
        }
    }
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
        throw FormatError("no such tensor in the checkpoint",
                          Location{m_path.string(), std::string(name), {}});
    if (m_npy)
        return m_npy->tensor();
    if (m_npz)
        return m_npz->tensor(name);
    return m_files[m_fileOf[it->second]].tensor(m_entries[it->second]);
}

std::vector<fs::path> Checkpoint::files() const
{
    std::vector<fs::path> out;
    if (m_npy || m_npz)
        return {m_path};
    out.reserve(m_files.size());
    for (const auto &f : m_files)
        out.push_back(f.path());
    return out;
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
