// SPDX-License-Identifier: MIT
#pragma once
/// \file scan_report.h
/// Internal to core/scan: the scan report file (JSON lines: a header, then one line per module),
/// written line by line with an fsync after each, and its resume.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "io/quantized.h"
#include "results/channel_profile.h"
#include "scan/scan.h"

namespace quantscope {

/// {"quantscope_scan":1,"checkpoint","recipe_hash","recipe","spectra","spectrum_top","tau","device"}
nlohmann::ordered_json scanHeader(const Checkpoint &ck, const ScanOptions &options);
/// The header's "capture" object: path, model, input_sha256, tokens.
nlohmann::ordered_json captureHeader(const Capture &capture);
/// {"recipe": hash, "file": the file's name, "size": bytes, "mtime_ns"}: a module line is kept on
/// resume only while its key is still this.
nlohmann::ordered_json resumeKey(const ScanModule &m, const std::string &recipeHash);
/// {"module","tensor","status","why","rule","rule_name","shape","dtype","format"}
nlohmann::ordered_json moduleLineStart(const ScanModule &m, const RecipeMatch &match, const Recipe &recipe);

/// What one module's work needs, shared by the single-process scan and ScanSession.
struct ScanContext {
    const Checkpoint &ck;
    const ScanOptions &options;
    const Detection &det;
    const std::vector<ScanModule> &modules;
    std::string recipeHash;
};

/// A module read (by the reader thread, or a rank's own loop).
struct Loaded {
    std::size_t index = 0; ///< into the module list
    Tensor tensor;
    std::string error;
    double readMs = 0;
    double kurtosisMs = 0; ///< the per-channel kurtosis pass after the read
    std::uint64_t bytes = 0;
    std::optional<ChannelKurtosis> kurtosis; ///< computed after the read when asked
};

/// One module's line (without time_ms, key and rank, which the caller adds) and its counts.
struct ModuleWork {
    nlohmann::ordered_json line;
    int errors = 0;
    bool scanned = false, skipped = false;
    double readMs = 0, jobMs = 0, runsMs = 0; ///< read; the engine job; its runs' quantize + metrics
};

/// Reads module `i` (a read error is kept in Loaded::error, as the report records it).
Loaded loadScanModule(const ScanContext &ctx, std::size_t i, const CancelToken &cancel);
/// Module `i`'s line: `l` is its read for a matched module, null otherwise.
ModuleWork scanModuleLine(const ScanContext &ctx, std::size_t i, const RecipeMatch &match, Loaded *l,
                          const CancelToken &cancel, const ScanProgress &step);

/// The report file. An empty path writes nothing.
class ReportWriter {
public:
    ReportWriter(std::string path, nlohmann::ordered_json header);
    ~ReportWriter();
    ReportWriter(const ReportWriter &) = delete;
    ReportWriter &operator=(const ReportWriter &) = delete;

    /// Opens the report: a new or empty file gets the header; an existing one must start with the
    /// same header (FormatError otherwise, naming the report and the first differing field), and
    /// its module lines are kept while `keep(index, line)` says so and the line is whole: the
    /// file is truncated after the last kept line. Returns the kept lines.
    std::vector<nlohmann::ordered_json>
    resume(const std::function<bool(std::size_t, const nlohmann::ordered_json &)> &keep);
    /// Appends one line and fsyncs.
    void write(const nlohmann::ordered_json &line);
    /// Test hook: appends the first half of the line, no newline (a write torn by a kill).
    void writeTorn(const nlohmann::ordered_json &line);

private:
    void append(const std::string &bytes);

    std::string m_path;
    nlohmann::ordered_json m_header;
    int m_fd = -1;
};

} // namespace quantscope
