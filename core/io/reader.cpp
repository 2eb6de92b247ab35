// SPDX-License-Identifier: MIT
// The readers of reader.h (docs/formats.md "What a path opens", "Sharded checkpoints"): NumPy
// arrays, a sharded index, a folder of one .safetensors and a lone safetensors file, with the
// config.json that sits beside safetensors.
#include "io/reader.h"

#include "io/capture.h"
#include "io/gguf.h"
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
    return name == kIndexName || (name.size() > 11 && name.compare(name.size() - 11, 11, ".index.json") == 0);
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

/// The folder a lone file belongs to, "." for a bare file name.
fs::path folderOf(const fs::path &file)
{
    fs::path folder = file.parent_path();
    if (folder.empty())
        folder = ".";
    return folder;
}

/// Adds `folder`'s config.json to `out` when there is one.
void readConfigJson(const fs::path &folder, ReadContent &out)
{
    // config.json is a help, not a requirement: a broken one is reported and ignored.
    const fs::path config = folder / kConfigName;
    if (isRegularFile(config)) {
        try {
            const std::string text = readWholeFile(config);
            const auto j = io_detail::parseStrictJson(text, config.string());
            out.config = nlohmann::json(j);
        } catch (const Error &e) {
            out.warnings.push_back(e.what() + std::string(" (config.json ignored)"));
        } catch (const std::exception &e) {
            out.warnings.push_back(
                formatLocation(Location{config.string(), {}, {}}, std::string(e.what()) + " (config.json ignored)"));
        }
    }
}

// ---- NumPy arrays: no shards, no config.json --------------------------------------------------

bool acceptsNpy(const fs::path &path, const fs::file_status &st)
{
    return !fs::is_directory(st) && lowerExtension(path) == ".npy";
}

ReadContent readNpy(const fs::path &path, const fs::file_status &, const ReadOptions &options)
{
    ReadContent out;
    auto f = std::make_shared<NpyFile>(NpyFile::open(path, options));
    TensorEntry e;
    e.name = path.stem().string();
    e.dtype = f->header().dtype;
    e.shape = f->header().shape;
    e.end = f->header().dataBytes;
    e.fileOffset = f->dataOffset();
    e.file = path;
    out.entries.push_back(std::move(e));
    out.warnings = f->warnings();
    out.npy = std::move(f);
    return out;
}

bool acceptsNpz(const fs::path &path, const fs::file_status &st)
{
    return !fs::is_directory(st) && lowerExtension(path) == ".npz";
}

ReadContent readNpz(const fs::path &path, const fs::file_status &, const ReadOptions &options)
{
    ReadContent out;
    auto f = std::make_shared<NpzFile>(NpzFile::open(path, options));
    for (const NpzMember &m : f->members()) {
        TensorEntry e;
        e.name = m.name;
        e.dtype = m.header.dtype;
        e.shape = m.header.shape;
        e.end = m.header.dataBytes;
        e.fileOffset = m.arrayOffset();
        e.file = path;
        out.entries.push_back(std::move(e));
    }
    out.warnings = f->warnings();
    out.npz = std::move(f);
    return out;
}

// ---- GGUF: one file, its own metadata (no config.json) --------------------------------------

bool acceptsGguf(const fs::path &path, const fs::file_status &st)
{
    if (fs::is_directory(st))
        return false;
    return lowerExtension(path) == ".gguf" || GgufFile::hasMagic(path);
}

ReadContent readGguf(const fs::path &path, const fs::file_status &, const ReadOptions &)
{
    ReadContent out;
    auto f = std::make_shared<GgufFile>(GgufFile::open(path));
    out.entries = f->entries();
    out.gguf = std::move(f);
    return out;
}

// ---- safetensors -----------------------------------------------------------------------------

/// One safetensors file, with `folder`'s config.json.
ReadContent readSafetensors(const fs::path &single, const fs::path &folder, const ReadOptions &options)
{
    ReadContent out;
    out.files.push_back(SafetensorsFile::open(single, options));
    const SafetensorsFile &f = out.files.front();
    out.entries = f.entries();
    out.fileOf.assign(out.entries.size(), 0);
    out.warnings = f.warnings();
    readConfigJson(folder, out);
    return out;
}

/// The shards an index lists, in weight_map order, with `folder`'s config.json.
ReadContent readIndex(const fs::path &index, const fs::path &folder, const ReadOptions &options)
{
    ReadContent out;
    out.sharded = true;
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

    std::unordered_map<std::string, std::size_t> shardOf; // shard name → `files` index
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
                throw IoError("shard \"" + shard + "\" listed in " + index.filename().string() + " does not exist",
                              Location{shardPath.string(), name, {}});
            shardNames.push_back(shard);
            out.files.push_back(SafetensorsFile::open(shardPath, options));
        }
        listed.emplace_back(name, it->second);
    }

    // No tensor may live in two shards: the index could only name one of them.
    std::unordered_map<std::string_view, std::size_t> holder;
    for (std::size_t fi = 0; fi < out.files.size(); ++fi)
        for (const TensorEntry &e : out.files[fi].entries()) {
            const auto [it, added] = holder.emplace(e.name, fi);
            if (!added)
                throw FormatError("the tensor is in two shards: \"" + shardNames[it->second] + "\" and \"" +
                                      shardNames[fi] + "\"",
                                  Location{out.files[fi].path().string(), e.name, e.fileOffset});
        }

    std::unordered_set<std::string_view> inIndex;
    for (const auto &[name, fi] : listed) {
        const SafetensorsFile &f = out.files[fi];
        const TensorEntry *e = f.find(name);
        if (e == nullptr)
            throw FormatError("the index places the tensor in shard \"" + shardNames[fi] +
                                  "\", which does not contain it",
                              Location{f.path().string(), name, {}});
        out.entries.push_back(*e);
        out.fileOf.push_back(fi);
        inIndex.insert(e->name);
    }
    for (std::size_t fi = 0; fi < out.files.size(); ++fi) {
        for (const std::string &w : out.files[fi].warnings())
            out.warnings.push_back(w);
        for (const TensorEntry &e : out.files[fi].entries())
            if (!inIndex.count(e.name))
                out.warnings.push_back(formatLocation(Location{out.files[fi].path().string(), e.name, e.fileOffset},
                                                      "the tensor is in the shard but not in " +
                                                          index.filename().string() + "; it is ignored"));
    }
    readConfigJson(folder, out);
    return out;
}

/// The index file itself, or a folder holding model.safetensors.index.json.
bool acceptsIndex(const fs::path &path, const fs::file_status &st)
{
    return fs::is_directory(st) ? isRegularFile(path / kIndexName) : isIndexFileName(path);
}

ReadContent readIndexPath(const fs::path &path, const fs::file_status &st, const ReadOptions &options)
{
    if (fs::is_directory(st))
        return readIndex(path / kIndexName, path, options);
    return readIndex(path, folderOf(path), options);
}

/// A folder without an index: it must hold exactly one .safetensors (captures aside).
bool acceptsFolder(const fs::path &, const fs::file_status &st)
{
    return fs::is_directory(st);
}

ReadContent readFolder(const fs::path &path, const fs::file_status &, const ReadOptions &options)
{
    std::error_code ec;
    std::vector<fs::path> found;
    // A calibration capture kept beside the model (io/capture.h) is not one of its files.
    for (fs::directory_iterator it(path, ec), end; !ec && it != end; it.increment(ec))
        if (it->path().extension() == ".safetensors" && isRegularFile(it->path()) && !isCaptureFile(it->path()))
            found.push_back(it->path());
    if (ec)
        throw IoError("cannot list the folder: " + ec.message(), Location{path.string(), {}, {}});
    std::sort(found.begin(), found.end());
    if (found.empty())
        throw IoError(std::string("the folder holds no .safetensors file and no ") + kIndexName,
                      Location{path.string(), {}, {}});
    if (found.size() > 1) {
        std::string list;
        for (const auto &f : found)
            list += (list.empty() ? "" : ", ") + f.filename().string();
        throw FormatError("the folder holds " + std::to_string(found.size()) + " .safetensors files and no " +
                              kIndexName + ", so which one to open is ambiguous: " + list +
                              " (open one of them directly)",
                          Location{path.string(), {}, {}});
    }
    return readSafetensors(found.front(), path, options);
}

/// Anything else that is not a folder is read as a safetensors file.
bool acceptsFile(const fs::path &, const fs::file_status &st)
{
    return !fs::is_directory(st);
}

ReadContent readFile(const fs::path &path, const fs::file_status &, const ReadOptions &options)
{
    return readSafetensors(path, folderOf(path), options);
}

} // namespace

const std::vector<ReaderFormat> &readerFormats()
{
    static const std::vector<ReaderFormat> kReaders = {
        {"npy", acceptsNpy, readNpy},
        {"npz", acceptsNpz, readNpz},
        {"gguf", acceptsGguf, readGguf},
        {"sharded index", acceptsIndex, readIndexPath},
        {"safetensors folder", acceptsFolder, readFolder},
        {"safetensors file", acceptsFile, readFile},
    };
    return kReaders;
}

const ReaderFormat *readerFor(const fs::path &path, const fs::file_status &status)
{
    for (const ReaderFormat &r : readerFormats())
        if (r.accepts(path, status))
            return &r;
    return nullptr;
}

} // namespace quantscope
