// SPDX-License-Identifier: MIT
#pragma once
/// \file staging.h
/// A staged output file that is removed on every path unless the writer keeps it (after its rename
/// into place): no partial file survives a refusal, an error or a Cancel.
#include <filesystem>
#include <string>
#include <system_error>

#include "util/error.h"

namespace quantscope {

struct StagingFile {
    std::filesystem::path path;
    bool keep = false;
    /// Renames the staged file to `out` and keeps it; IoError "<what>: cannot rename …" (the staged
    /// file is then removed).
    void publish(const std::filesystem::path &out, const std::string &what)
    {
        std::error_code ec;
        std::filesystem::rename(path, out, ec);
        if (ec)
            throw IoError(what + ": cannot rename '" + path.string() + "' to '" + out.string() + "': " + ec.message());
        keep = true;
    }
    ~StagingFile()
    {
        if (!keep) {
            std::error_code ec;
            std::filesystem::remove(path, ec);
        }
    }
};

} // namespace quantscope
