// SPDX-License-Identifier: MIT
#pragma once
/// \file compare.h
/// Compare two quantized checkpoints, or two scan reports of one checkpoint, module by module
/// (docs/cli.md "`compare`"). Modules are aligned by name and resolved as the doctor and `decode`
/// resolve them (`detectQuantized`, non-strict: an undecodable module is reported, the others
/// compared); each side is read lazily, one module at a time (memory-mapped, decoded, dropped).
///
/// Per module: the fraction of codes that differ when both sides store it quantized with one
/// scheme (same element, bits, granularity, group or block, packing); the ratio of the scales
/// (min / median / max of scale_A / scale_B over the grid) when the grids match; the scheme
/// differences in words; ‖Ŵ_A − Ŵ_B‖ / ‖Ŵ_B‖ of the dequantized weights; with a reference
/// checkpoint each side's ‖Ŵ − W‖ / ‖W‖ and their Δ. Across modules: the Spearman rank agreement
/// of the two sides' ordering of modules by error (average ranks for ties), the modules found on
/// one side only, and the modules sorted by difference, largest first.
///
/// Scan reports carry no weights: per module the first run of each side is compared (its
/// `rel_frobenius` is the error, the spec labels the scheme), sorted by |Δ error|.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tensor/tensor.h"
#include "util/cancel.h"

namespace quantscope {

struct CompareOptions {
    std::string reference; ///< the original checkpoint (empty: none)
    bool lenient = false;  ///< ReadOptions::lenient for the readers
};

/// min / median / max of scale_A / scale_B over the entries where both are finite and B ≠ 0.
struct ScaleRatio {
    double min = 0, median = 0, max = 0;
    std::int64_t count = 0;   ///< entries compared
    std::int64_t skipped = 0; ///< entries left out (non-finite, or B's scale zero)
};

struct ModuleComparison {
    std::string module; ///< "model.layers.0.mlp.down_proj"
    std::string tensor; ///< the logical weight ("….weight") a click opens
    Shape shape;
    std::string schemeA, schemeB;   ///< the scheme in words, "dense F32" for a plain tensor
    std::string schemeDiff;         ///< "bits 4 vs 8; group 128 vs 32" ("" when the same)
    bool sameScheme = false;        ///< both quantized with one scheme: codes comparable
    std::optional<double> codeDiff; ///< fraction of codes that differ (sameScheme only)
    std::int64_t codesDiffer = 0, codesTotal = 0;
    std::optional<ScaleRatio> scaleRatio;
    std::optional<double> relDiff;        ///< ‖Ŵ_A − Ŵ_B‖ / ‖Ŵ_B‖ (checkpoints)
    std::optional<double> errorA, errorB; ///< vs the reference (checkpoints) or the runs' rel_frobenius (reports)
    std::string error;                    ///< why the module could not be compared ("" when it was)

    /// The sort key: relDiff for checkpoints, |errorA − errorB| for reports (NaN-free; −1 when none).
    double difference() const;
};

struct CompareReport {
    std::string kind;                      ///< "checkpoints" or "scan-reports"
    std::string a, b, reference;           ///< the paths as given
    std::vector<ModuleComparison> modules; ///< on both sides, largest difference first
    std::vector<std::string> onlyA, onlyB; ///< modules on one side only, in that side's order
    std::optional<double> spearman;        ///< rank agreement of the ordering by error (≥ 2 modules with both errors)
    std::int64_t spearmanModules = 0;
    std::vector<std::string> notes; ///< e.g. the reports name different checkpoints

    /// docs/cli.md "`compare`": {"kind","a","b","reference","modules":[…],"only_a","only_b",
    /// "spearman","spearman_modules","notes","summary"}.
    nlohmann::ordered_json toJson() const;
};

/// Progress: `done` of `total` modules, working on `what`.
using CompareProgress = std::function<void(std::int64_t done, std::int64_t total, const std::string &what)>;

/// True when `path` is a scan report (a file whose first line is a `quantscope_scan` header).
bool isScanReport(const std::string &path);

/// Compares two checkpoints, or two scan reports (both must be of one kind: UsageError-free, a
/// FormatError names the path that is not). Throws Cancelled, IoError / FormatError naming the file.
CompareReport runCompare(const std::string &a, const std::string &b, const CompareOptions &options = {},
                         const CancelToken *cancel = nullptr, const CompareProgress &progress = {});

/// Spearman's rank correlation of x and y (equal lengths ≥ 2): Pearson's correlation of their
/// ranks, ties given their average rank. NaN when either side's ranks are constant.
double spearmanRank(const std::vector<double> &x, const std::vector<double> &y);

/// One module's reconstructions for the window's overlay: Ŵ_A, Ŵ_B (FP32, logical shape) and the
/// reference W when a reference is given (else empty). Throws naming the module when a side lacks it.
struct ModuleReconstructions {
    Tensor a, b, reference;
    std::string schemeA, schemeB;
};
ModuleReconstructions loadReconstructions(const std::string &a, const std::string &b, const std::string &module,
                                          const CompareOptions &options = {});

} // namespace quantscope
