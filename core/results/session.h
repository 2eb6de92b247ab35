// SPDX-License-Identifier: MIT
#pragma once
/// \file session.h
/// The `.qscope` session file: versioned JSON with the opened checkpoint, the selected tensors,
/// the configurations compared and their results, so that reopening it restores the window
/// without running anything again. Numbers round-trip exactly (±inf and NaN as strings).
#include "results/results.h"

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace quantscope {

/// 2: statistics in report_json.h's full form (nan_count, inf_count, finite_count); version-1
/// files (nan, inf, finite) still open.
inline constexpr int kSessionVersion = 2;
inline constexpr const char *kSessionFormat = "quantscope-session";

struct SessionSource {
    std::string path;  ///< as opened ("" with demo)
    bool demo = false; ///< the built-in demo (regenerated where missing)
    bool lenient = false;
};

struct Session {
    std::optional<SessionSource> checkpoint;
    /// The paired activation: a tensor of `activationSource`, or of the checkpoint when unset.
    std::string activation;
    std::optional<SessionSource> activationSource;
    /// The calibration capture paired with the checkpoint (io/capture.h; key "capture", absent
    /// when none: older files still open).
    std::optional<SessionSource> capture;
    std::vector<std::string> selected;
    std::string device = "auto"; ///< "auto", "cpu", "gpu"
    int bins = 256;
    bool symlog = false;
    std::vector<JobConfig> configs;
    QuantizeJobResult results;
    /// The Layers view's scan report: its module lines (key "scan" → {"lines"}, absent when no
    /// scan was shown; version-2 files without it still open).
    std::vector<nlohmann::ordered_json> scanLines;
    /// Window state the core does not interpret (current tab, log axis, …).
    nlohmann::json view = nlohmann::json::object();
};

nlohmann::json sessionToJson(const Session &s);
/// Throws FormatError with the reason (not a session, a newer version, a bad field).
Session sessionFromJson(const nlohmann::json &j);
/// Writes sessionToJson(s) (indented by one) to `path` atomically (io/mapped_file.h AtomicFile):
/// the file holds the old session or the whole new one, never a part. Throws IoError naming it.
void saveSessionFile(const std::string &path, const Session &s);
/// Reads and parses a session file; errors (JSON syntax included) are FormatError / IoError
/// naming the file.
Session loadSessionFile(const std::string &path);

/// One result and one profile as stored in a session (also used by tests).
nlohmann::json outcomeToJson(const QuantizeOutcome &o);
QuantizeOutcome outcomeFromJson(const nlohmann::json &j);
nlohmann::json profileToJson(const TensorProfile &p);
TensorProfile profileFromJson(const nlohmann::json &j);

} // namespace quantscope
