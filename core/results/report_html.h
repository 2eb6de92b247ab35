// SPDX-License-Identifier: MIT
#pragma once
/// \file report_html.h
/// The shareable report of a session (issue 42): one self-contained HTML file — no script, no
/// external URL, plots as inline SVG — with the checkpoint's name and content hash, the
/// configurations (labels and full specs), every tensor × configuration's numbers, each
/// tensor's distribution plot (W and every Ŵ) and error histogram, the scan's modules when the
/// session has them, and the recipe when one is given. Written by `quantscope-cli report` and
/// the window's File ▸ Export Report; both call this.
#include "results/session.h"

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

namespace quantscope {

struct ReportInfo {
    std::string title = "Quantscope report";
    std::string checkpointName; ///< the file or folder name ("demo" for the built-in demo)
    std::string checkpointHash; ///< checkpointContentHash() ("" when the checkpoint was not found)
    std::string generated;      ///< when (free text, e.g. an ISO date)
    std::string version;        ///< the Quantscope version that wrote it
    nlohmann::json recipe;      ///< a recipe to include (null: none)
};

/// The report as one HTML document (UTF-8).
std::string sessionReportHtml(const Session &session, const ReportInfo &info);

/// "fnv1a64:<16 hex digits>" over every file of the checkpoint at `path` (util/hash.h), in the
/// order the checkpoint lists them, each as its name, its size and its bytes. Throws IoError.
std::string checkpointContentHash(const std::filesystem::path &path);

} // namespace quantscope
