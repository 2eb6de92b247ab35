// SPDX-License-Identifier: MIT
// The doctor's structural pass (doctor.h): the path, config.json, the index and every shard header,
// parsed leniently — each lie becomes a finding and the pass goes on.
#include "doctor/doctor.h"

#include <algorithm>
#include <cstring>
#include <fstream>
#include <map>
#include <set>

#include "tensor/dtype.h"
#include "util/error.h"

namespace quantscope::doctor {

namespace fs = std::filesystem;

namespace {

constexpr std::uint64_t kMaxHeader = 100ull << 20; // the safetensors library's own limit
constexpr std::uint64_t kLfsProbe = 1024;

void add(DoctorReport &r, Severity s, std::string check, std::string tensor, const fs::path &file,
         std::optional<std::uint64_t> offset, std::string message)
{
    Finding f;
    f.severity = s;
    f.check = std::move(check);
    f.module = tensor.empty() ? std::string() : moduleOf(tensor);
    f.tensor = std::move(tensor);
    f.file = file.empty() ? std::string() : file.string();
    f.offset = offset;
    f.message = std::move(message);
    r.findings.push_back(std::move(f));
}

std::string readPrefix(const fs::path &p, std::uint64_t n)
{
    std::ifstream in(p, std::ios::binary);
    std::string s(static_cast<std::size_t>(n), '\0');
    in.read(s.data(), static_cast<std::streamsize>(n));
    s.resize(static_cast<std::size_t>(in.gcount()));
    return s;
}

/// JSON from a file, or nullopt with a finding.
std::optional<nlohmann::json> readJson(const fs::path &p, DoctorReport &r, Severity severity, const char *what)
{
    std::error_code ec;
    const auto size = fs::file_size(p, ec);
    if (ec) {
        add(r, severity, "completeness", {}, p, std::nullopt, std::string(what) + " cannot be read: " + ec.message());
        return std::nullopt;
    }
    if (size > kMaxHeader) {
        add(r, severity, "completeness", {}, p, std::nullopt,
            std::string(what) + " is " + std::to_string(size) +
                " bytes, more than the 100 MB a JSON file here may have");
        return std::nullopt;
    }
    const std::string text = readPrefix(p, size);
    if (text.rfind("version https://git-lfs", 0) == 0) {
        add(r, Severity::Error, "completeness", {}, p, 0,
            std::string(what) + " is a git-LFS pointer, not the file: fetch it with `git lfs pull`");
        return std::nullopt;
    }
    try {
        return nlohmann::json::parse(text);
    } catch (const std::exception &e) {
        add(r, severity, "completeness", {}, p, std::nullopt, std::string(what) + " is not valid JSON: " + e.what());
        return std::nullopt;
    }
}

bool safeShardName(const std::string &s)
{
    return !s.empty() && s.find('/') == std::string::npos && s.find('\\') == std::string::npos && s != "." && s != "..";
}

/// Parses one shard's header; findings for each lie.
Shard parseShard(const fs::path &file, DoctorReport &r)
{
    Shard sh;
    sh.file = file;
    std::error_code ec;
    sh.size = fs::file_size(file, ec);
    if (ec) {
        add(r, Severity::Error, "completeness", {}, file, std::nullopt, "the shard cannot be read: " + ec.message());
        return sh;
    }
    const std::string probe = readPrefix(file, std::min<std::uint64_t>(sh.size, kLfsProbe));
    if (probe.rfind("version https://git-lfs", 0) == 0) {
        add(r, Severity::Error, "completeness", {}, file, 0,
            "a git-LFS pointer file (" + std::to_string(sh.size) +
                " bytes), not the weights: fetch them with `git lfs pull`");
        return sh;
    }
    if (sh.size < 8) {
        add(r, Severity::Error, "completeness", {}, file, 0,
            "truncated: " + std::to_string(sh.size) + " bytes, shorter than the 8-byte header size");
        return sh;
    }
    std::uint64_t n = 0;
    for (int i = 0; i < 8; ++i)
        n |= static_cast<std::uint64_t>(static_cast<unsigned char>(probe[static_cast<std::size_t>(i)])) << (8 * i);
    if (n > sh.size - 8) {
        add(r, Severity::Error, "completeness", {}, file, 0,
            "the header size says " + std::to_string(n) + " bytes but the file has " + std::to_string(sh.size - 8) +
                " after it (truncated, or not a safetensors file)");
        return sh;
    }
    if (n > kMaxHeader) {
        add(r, Severity::Error, "completeness", {}, file, 0,
            "the header is " + std::to_string(n) + " bytes, more than the 100 MB safetensors allows");
        return sh;
    }
    sh.headerBytes = n;
    nlohmann::json h;
    try {
        h = nlohmann::json::parse(readPrefix(file, 8 + n).substr(8));
    } catch (const std::exception &e) {
        add(r, Severity::Error, "completeness", {}, file, 8, std::string("the header is not valid JSON: ") + e.what());
        return sh;
    }
    if (!h.is_object()) {
        add(r, Severity::Error, "completeness", {}, file, 8, "the header is not a JSON object");
        return sh;
    }
    sh.readable = true;
    const std::uint64_t dataStart = 8 + n, dataBytes = sh.size - dataStart;
    for (auto it = h.begin(); it != h.end(); ++it) {
        if (it.key() == "__metadata__") {
            if (!it->is_object())
                add(r, Severity::Warning, "completeness", {}, file, 8, "__metadata__ is not an object of strings");
            else
                for (auto m = it->begin(); m != it->end(); ++m)
                    if (m->is_string())
                        sh.metadata[m.key()] = m->get<std::string>();
            continue;
        }
        HeaderTensor t;
        t.name = it.key();
        const nlohmann::json &e = *it;
        auto bad = [&](const std::string &why) {
            add(r, Severity::Error, "completeness", t.name, file, 8, "header entry of '" + t.name + "': " + why);
            sh.tensors.push_back(t);
        };
        if (!e.is_object() || !e.contains("dtype") || !e.contains("shape") || !e.contains("data_offsets")) {
            bad("not an object with dtype, shape and data_offsets");
            continue;
        }
        if (!e["dtype"].is_string()) {
            bad("dtype is not a string");
            continue;
        }
        t.dtype = e["dtype"].get<std::string>();
        const auto dt = dtypeFromSafetensors(t.dtype);
        if (!dt) {
            bad("unknown dtype '" + t.dtype + "'");
            continue;
        }
        const auto &shape = e["shape"];
        const auto &off = e["data_offsets"];
        bool shapeOk = shape.is_array() && shape.size() <= 16;
        unsigned __int128 numel = 1;
        if (shapeOk)
            for (const auto &d : shape) {
                if (!d.is_number_unsigned() && !(d.is_number_integer() && d.get<std::int64_t>() >= 0)) {
                    shapeOk = false;
                    break;
                }
                t.shape.push_back(d.get<std::int64_t>());
                numel *= static_cast<unsigned __int128>(d.get<std::uint64_t>());
                if (numel > (static_cast<unsigned __int128>(1) << 62)) {
                    shapeOk = false;
                    break;
                }
            }
        if (!shapeOk) {
            bad("shape is not a list of non-negative integers of a sane size");
            continue;
        }
        if (!off.is_array() || off.size() != 2 || !off[0].is_number_unsigned() || !off[1].is_number_unsigned()) {
            bad("data_offsets is not [begin, end] of non-negative integers");
            continue;
        }
        t.begin = off[0].get<std::uint64_t>();
        t.end = off[1].get<std::uint64_t>();
        t.fileOffset = dataStart + t.begin;
        if (t.end < t.begin) {
            bad("data_offsets end before they begin");
            continue;
        }
        const unsigned __int128 bits = numel * static_cast<unsigned __int128>(bitsOf(*dt));
        if (bits % 8 != 0 || bits / 8 != t.end - t.begin) {
            add(r, Severity::Error, "completeness", t.name, file, t.fileOffset,
                "holds " + std::to_string(t.end - t.begin) + " bytes, but " + t.dtype + " of this shape needs " +
                    std::to_string(static_cast<std::uint64_t>(bits / 8)) + (bits % 8 ? " and a fraction" : ""));
            sh.tensors.push_back(t);
            continue;
        }
        if (t.end > dataBytes) {
            add(r, Severity::Error, "completeness", t.name, file, t.fileOffset,
                "truncated: the tensor ends at byte " + std::to_string(dataStart + t.end) + " of a " +
                    std::to_string(sh.size) + "-byte file");
            sh.tensors.push_back(t);
            continue;
        }
        t.valid = true;
        sh.tensors.push_back(t);
    }
    // Overlaps and holes of the byte buffer.
    std::vector<const HeaderTensor *> byBegin;
    for (const auto &t : sh.tensors)
        if (t.valid)
            byBegin.push_back(&t);
    std::sort(byBegin.begin(), byBegin.end(), [](auto *a, auto *b) { return a->begin < b->begin; });
    std::uint64_t covered = 0;
    for (const HeaderTensor *t : byBegin) {
        if (t->begin < covered)
            add(r, Severity::Error, "completeness", t->name, file, t->fileOffset,
                "its bytes overlap the previous tensor's (data_offsets begin " + std::to_string(t->begin) + " < " +
                    std::to_string(covered) + ")");
        else if (t->begin > covered)
            add(r, Severity::Warning, "completeness", t->name, file, dataStart + covered,
                std::to_string(t->begin - covered) + " bytes before this tensor belong to no tensor");
        covered = std::max(covered, t->end);
    }
    if (covered < dataBytes)
        add(r, Severity::Warning, "completeness", {}, file, dataStart + covered,
            std::to_string(dataBytes - covered) + " bytes at the end of the file belong to no tensor");
    return sh;
}

} // namespace

std::string moduleOf(const std::string &tensor)
{
    const auto dot = tensor.rfind('.');
    return dot == std::string::npos ? std::string() : tensor.substr(0, dot);
}

std::vector<Shard> checkStructure(const fs::path &path, DoctorReport &r, nlohmann::json &config)
{
    std::error_code ec;
    fs::path dir, index;
    std::vector<fs::path> files;
    if (fs::is_directory(path, ec)) {
        dir = path;
        if (fs::exists(dir / "model.safetensors.index.json"))
            index = dir / "model.safetensors.index.json";
    } else if (path.extension() == ".json") {
        dir = path.parent_path();
        index = path;
    } else {
        dir = path.parent_path();
        files.push_back(path);
    }
    std::vector<fs::path> inFolder;
    if (!dir.empty() || fs::is_directory(path, ec)) {
        for (const auto &d : fs::directory_iterator(dir.empty() ? fs::path(".") : dir, ec))
            if (d.path().extension() == ".safetensors")
                inFolder.push_back(d.path());
        std::sort(inFolder.begin(), inFolder.end());
    }
    // config.json beside the weights.
    const fs::path cfg = (dir.empty() ? fs::path(".") : dir) / "config.json";
    if (fs::exists(cfg)) {
        if (auto j = readJson(cfg, r, Severity::Warning, "config.json"))
            config = *j;
    } else {
        add(r, Severity::Info, "completeness", {}, cfg, std::nullopt, "no config.json beside the weights");
    }
    std::map<std::string, std::string> indexMap; // tensor → shard file name
    std::optional<std::uint64_t> totalSize;
    if (!index.empty()) {
        if (auto j = readJson(index, r, Severity::Error, "the index")) {
            if (!j->is_object() || !j->contains("weight_map") || !(*j)["weight_map"].is_object()) {
                add(r, Severity::Error, "completeness", {}, index, std::nullopt, "the index has no weight_map object");
            } else {
                std::vector<std::string> order;
                for (auto it = (*j)["weight_map"].begin(); it != (*j)["weight_map"].end(); ++it) {
                    if (!it->is_string() || !safeShardName(it->get<std::string>())) {
                        add(r, Severity::Error, "completeness", it.key(), index, std::nullopt,
                            "the index maps this tensor to something that is not a file name in the folder");
                        continue;
                    }
                    indexMap[it.key()] = it->get<std::string>();
                    if (std::find(order.begin(), order.end(), it->get<std::string>()) == order.end())
                        order.push_back(it->get<std::string>());
                }
                for (const auto &f : order)
                    files.push_back(dir / f);
            }
            if (j->is_object() && j->contains("metadata") && (*j)["metadata"].is_object() &&
                (*j)["metadata"].contains("total_size") && (*j)["metadata"]["total_size"].is_number_unsigned())
                totalSize = (*j)["metadata"]["total_size"].get<std::uint64_t>();
        }
        for (const auto &f : inFolder)
            if (std::find(files.begin(), files.end(), f) == files.end())
                add(r, Severity::Warning, "completeness", {}, f, std::nullopt,
                    "a .safetensors file the index does not reference (stale or misplaced?)");
    } else if (files.empty()) {
        if (inFolder.empty())
            add(r, Severity::Error, "completeness", {}, path, std::nullopt, "no .safetensors file and no index here");
        else if (inFolder.size() > 1)
            add(r, Severity::Warning, "completeness", {}, path, std::nullopt,
                std::to_string(inFolder.size()) +
                    " .safetensors files and no model.safetensors.index.json: the readers "
                    "refuse to guess which belong together; examined all of them");
        files = inFolder;
    }
    std::vector<Shard> shards;
    std::map<std::string, std::vector<std::string>> whereIs; // tensor → shard names holding it
    for (const fs::path &f : files) {
        if (!fs::exists(f)) {
            std::size_t refs = 0;
            for (const auto &[t, s] : indexMap)
                refs += s == f.filename().string();
            add(r, Severity::Error, "completeness", {}, f, std::nullopt,
                "the shard is missing (" + std::to_string(refs) + " tensors of the index live there)");
            continue;
        }
        shards.push_back(parseShard(f, r));
        for (const auto &t : shards.back().tensors)
            whereIs[t.name].push_back(f.filename().string());
    }
    r.files = static_cast<int>(shards.size());
    std::uint64_t sum = 0;
    for (const auto &sh : shards)
        for (const auto &t : sh.tensors) {
            ++r.tensors;
            sum += t.end >= t.begin ? t.end - t.begin : 0;
        }
    for (const auto &[name, where] : whereIs)
        if (where.size() > 1)
            add(r, Severity::Error, "completeness", name, dir / where[1], std::nullopt,
                "present in " + std::to_string(where.size()) + " shards (" + where[0] + ", " + where[1] +
                    "): which copy is meant is undefined");
    if (!index.empty()) {
        for (const auto &[name, shard] : indexMap) {
            const auto it = whereIs.find(name);
            if (it == whereIs.end() || std::find(it->second.begin(), it->second.end(), shard) == it->second.end())
                if (fs::exists(dir / shard))
                    add(r, Severity::Error, "completeness", name, dir / shard, std::nullopt,
                        "the index places this tensor in " + shard + ", whose header does not list it");
        }
        for (const auto &[name, where] : whereIs)
            if (!indexMap.count(name))
                add(r, Severity::Warning, "completeness", name, dir / where[0], std::nullopt,
                    "in a shard's header but not in the index's weight_map (loaders will not see it)");
        if (totalSize && *totalSize != sum)
            add(r, Severity::Warning, "completeness", {}, index, std::nullopt,
                "metadata.total_size is " + std::to_string(*totalSize) + " but the tensors hold " +
                    std::to_string(sum) + " bytes");
    }
    return shards;
}

} // namespace quantscope::doctor
