// SPDX-License-Identifier: MIT
#pragma once
/// \file staging.h
/// A staged output file that is removed on every path unless the writer keeps it (after its rename
/// into place): no partial file survives a refusal, an error or a Cancel.
#include <filesystem>
#include <system_error>

namespace quantscope {

struct StagingFile {
    std::filesystem::path path;
    bool keep = false;
    ~StagingFile()
    {
        if (!keep) {
            std::error_code ec;
            std::filesystem::remove(path, ec);
        }
    }
};

} // namespace quantscope
