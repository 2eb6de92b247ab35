// SPDX-License-Identifier: MIT
#include "doctor/doctor.h"

#include <algorithm>

#include "util/error.h"

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
    nlohmann::json list = nlohmann::json::array();
    for (const Finding &f : findings) {
        nlohmann::json j{{"severity", toString(f.severity)},
                         {"check", f.check},
                         {"module", f.module},
                         {"tensor", f.tensor},
                         {"file", f.file},
                         {"message", f.message}};
        j["offset"] = f.offset ? nlohmann::json(*f.offset) : nlohmann::json(nullptr);
        list.push_back(std::move(j));
    }
    return {
        {"path", path},
        {"files", files},
        {"tensors", tensors},
        {"summary",
         {{"errors", count(Severity::Error)}, {"warnings", count(Severity::Warning)}, {"info", count(Severity::Info)}}},
        {"exit_code", exitCode()},
        {"findings", std::move(list)}};
}

DoctorReport runDoctor(const std::filesystem::path &path, const DoctorOptions &options, const CancelToken *cancel)
{
    std::error_code ec;
    if (!std::filesystem::exists(path, ec))
        throw IoError("no such file or folder", Location{path.string(), {}, {}});
    DoctorReport r;
    r.path = path.string();
    nlohmann::json config;
    const auto shards = doctor::checkStructure(path, r, config);
    doctor::checkValues(shards, config, options, r, cancel);
    doctor::checkQuantized(path, shards, config, r);
    // Errors first, then warnings, then info; within a severity in the order found.
    std::stable_sort(r.findings.begin(), r.findings.end(),
                     [](const Finding &a, const Finding &b) { return a.severity > b.severity; });
    return r;
}

} // namespace quantscope
