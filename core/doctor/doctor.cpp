// SPDX-License-Identifier: MIT
#include "doctor/doctor.h"

#include <algorithm>
#include <cmath>
#include <fstream>

#include "io/checkpoint.h"
#include "io/gguf.h"
#include "util/error.h"
#include "util/utf8.h"

namespace quantscope {

std::string toString(Severity s)
{
    switch (s) {
    case Severity::Info:
        return "info";
    case Severity::Warning:
        return "warning";
    default:
        return "error";
    }
}

std::size_t DoctorReport::count(Severity s) const
{
    return static_cast<std::size_t>(
        std::count_if(findings.begin(), findings.end(), [&](const Finding &f) { return f.severity == s; }));
}

int DoctorReport::exitCode() const
{
    if (count(Severity::Error))
        return 4;
    return count(Severity::Warning) ? 3 : 0;
}

nlohmann::json DoctorReport::toJson() const
{
    // Every string here may quote bytes of a file (names, dtypes, config values, a parser's
    // message): utf8Safe makes each valid UTF-8, so that dump() never throws on a hostile file.
    nlohmann::json list = nlohmann::json::array();
    for (const Finding &f : findings) {
        nlohmann::json j{{"severity", toString(f.severity)}, {"check", utf8Safe(f.check)},
                         {"module", utf8Safe(f.module)},     {"tensor", utf8Safe(f.tensor)},
                         {"file", utf8Safe(f.file)},         {"message", utf8Safe(f.message)}};
        j["offset"] = f.offset ? nlohmann::json(*f.offset) : nlohmann::json(nullptr);
        list.push_back(std::move(j));
    }
    return {
        {"path", utf8Safe(path)},
        {"files", files},
        {"tensors", tensors},
        {"summary",
         {{"errors", count(Severity::Error)}, {"warnings", count(Severity::Warning)}, {"info", count(Severity::Info)}}},
        {"exit_code", exitCode()},
        {"findings", std::move(list)}};
}

namespace {

/// A .npy or .npz file (by extension or magic): NumPy arrays, not a safetensors checkpoint. The
/// array readers (io/npy.h, io/npz.h) judge it; a file they read is reported healthy (one info
/// finding saying what it is), a lie is an error with their message, a dtype they refuse by name
/// (object, complex, structured, …) a warning.
bool isNumpy(const std::filesystem::path &path)
{
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec))
        return false;
    const std::string ext = path.extension().string();
    if (ext == ".npy" || ext == ".npz")
        return true;
    char magic[6] = {};
    std::ifstream in(path, std::ios::binary);
    in.read(magic, 6);
    return in.gcount() == 6 && std::string_view(magic, 6) == "\x93NUMPY";
}

void checkNumpy(const std::filesystem::path &path, const DoctorOptions &options, DoctorReport &r)
{
    auto add = [&](Severity s, std::string message, std::optional<std::uint64_t> offset = std::nullopt) {
        Finding f;
        f.severity = s;
        f.check = "completeness";
        f.file = path.string();
        f.offset = offset;
        f.message = std::move(message);
        r.findings.push_back(std::move(f));
    };
    r.files = 1;
    try {
        const Checkpoint ck = Checkpoint::open(path);
        r.tensors = static_cast<int>(ck.entries().size());
        for (const auto &e : ck.entries())
            if (e.nbytes() <= options.maxValueBytes)
                (void)ck.tensor(e.name); // a deflated .npz member is inflated (and its CRC checked) here
        for (const auto &w : ck.warnings())
            add(Severity::Warning, w);
        add(Severity::Info, "NumPy arrays (" + std::to_string(ck.entries().size()) +
                                "), not a safetensors checkpoint: read whole, nothing wrong with them");
    } catch (const Error &e) {
        const std::string m = e.message();
        const bool refusedKind = m.find("are refused") != std::string::npos;
        add(refusedKind ? Severity::Warning : Severity::Error,
            refusedKind ? "a NumPy file of a kind Quantscope does not read: " + m : "a corrupt NumPy file: " + m,
            e.where().offset);
    } catch (const std::exception &e) {
        add(Severity::Error, std::string("a corrupt NumPy file: ") + e.what());
    }
}

/// A GGUF file (by extension or magic): the GGUF reader (io/gguf.h) judges it and every tensor up
/// to the value limit is decoded; a lie is an error with the reader's message and offset, a tensor
/// of a type that does not decode a warning, non-finite decoded values a warning.
bool isGguf(const std::filesystem::path &path)
{
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec))
        return false;
    return path.extension() == ".gguf" || GgufFile::hasMagic(path);
}

void checkGguf(const std::filesystem::path &path, const DoctorOptions &options, DoctorReport &r)
{
    auto add = [&](Severity s, std::string message, std::optional<std::uint64_t> offset = std::nullopt,
                   std::string tensor = {}) {
        Finding f;
        f.severity = s;
        f.check = "completeness";
        f.file = path.string();
        f.tensor = std::move(tensor);
        f.offset = offset;
        f.message = std::move(message);
        r.findings.push_back(std::move(f));
    };
    r.files = 1;
    try {
        const Checkpoint ck = Checkpoint::open(path);
        r.tensors = static_cast<int>(ck.entries().size());
        for (const auto &e : ck.entries()) {
            if (e.nbytes() > options.maxValueBytes)
                continue;
            try {
                const Tensor t = ck.tensor(e.name).toF32();
                const auto *v = reinterpret_cast<const float *>(t.data());
                std::int64_t bad = 0;
                for (std::int64_t i = 0; i < t.numel(); ++i)
                    bad += std::isfinite(v[i]) ? 0 : 1;
                if (bad > 0)
                    add(Severity::Warning, std::to_string(bad) + " decoded values are NaN or Inf", e.fileOffset,
                        e.name);
            } catch (const UnsupportedError &u) {
                add(Severity::Warning, u.message(), e.fileOffset, e.name);
            }
        }
        const GgufFile &g = *ck.gguf();
        add(Severity::Info, "GGUF v" + std::to_string(g.version()) + " (" +
                                (g.architecture().empty() ? std::string("no architecture") : g.architecture()) + ", " +
                                std::to_string(ck.entries().size()) +
                                " tensors), not a safetensors checkpoint: read and decoded, nothing wrong with it");
    } catch (const Error &e) {
        add(Severity::Error, "a corrupt GGUF file: " + e.message(), e.where().offset, e.where().tensor);
    } catch (const std::exception &e) {
        add(Severity::Error, std::string("a corrupt GGUF file: ") + e.what());
    }
}

} // namespace

DoctorReport runDoctor(const std::filesystem::path &path, const DoctorOptions &options, const CancelToken *cancel)
{
    std::error_code ec;
    if (!std::filesystem::exists(path, ec))
        throw IoError("no such file or folder", Location{path.string(), {}, {}});
    DoctorReport r;
    r.path = path.string();
    if (isNumpy(path)) {
        checkNumpy(path, options, r);
        return r;
    }
    if (isGguf(path)) {
        checkGguf(path, options, r);
        std::stable_sort(r.findings.begin(), r.findings.end(),
                         [](const Finding &a, const Finding &b) { return a.severity > b.severity; });
        return r;
    }
    nlohmann::json config;
    const auto shards = doctor::checkStructure(path, r, config);
    doctor::checkValues(shards, config, options, r, cancel);
    doctor::checkConfig(shards, config, options, r, cancel);
    doctor::checkQuantized(path, shards, config, r);
    // Errors first, then warnings, then info; within a severity in the order found.
    std::stable_sort(r.findings.begin(), r.findings.end(),
                     [](const Finding &a, const Finding &b) { return a.severity > b.severity; });
    return r;
}

} // namespace quantscope
