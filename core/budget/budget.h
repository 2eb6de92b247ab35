// SPDX-License-Identifier: MIT
#pragma once
/// \file budget.h
/// The bit budget: every module has candidates (a quantizer spec with its measured error and its
/// exact stored bytes: codes + scales + zeros + compensators, as the quantizer counts them);
/// choose one candidate per module so that the total error is least while the total bytes stay
/// within a budget. The solver is exact (not only on the convex hull): a dynamic programme over
/// bytes after subtracting each module's smallest candidate and dividing every size by the GCD
/// of the differences (so the table's resolution loses nothing), or, when that table would be too
/// large, branch and bound pruned by the linear-programming (Lagrangian) bound of the remaining
/// modules. Both return an optimum; ties go to fewer bytes. docs/cli.md "`budget`".
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace quantscope {

struct BudgetCandidate {
    nlohmann::json spec;     ///< the full spec (the scan report's run spec)
    std::string label;       ///< describeSpec(spec)
    double error = 0;        ///< additive error the solver minimises (see BudgetModule)
    std::uint64_t bytes = 0; ///< exact stored bytes
    double mse = 0;          ///< measured mean squared error
    int rank = -1;           ///< MiLo rank, -1 for other methods
};

struct BudgetModule {
    std::string module;
    std::uint64_t numel = 0;
    double weight = 1;                                          ///< error weight (1 unless weighted)
    double kurtosis = std::numeric_limits<double>::quiet_NaN(); ///< the tensor's excess kurtosis
    std::vector<std::uint64_t> shape;
    /// Candidates; `error` = weight · mse · numel (the squared Frobenius error, weighted).
    std::vector<BudgetCandidate> candidates;
};

/// The modules of a scan report that have at least one candidate, and what was left out.
struct BudgetProblem {
    std::string report;            ///< the report's path
    std::string checkpoint;        ///< the report header's checkpoint
    nlohmann::ordered_json recipe; ///< the report header's recipe
    std::vector<BudgetModule> modules;
    /// Modules without candidates: "name: status" (excluded, unmatched, error, or all runs failed).
    std::vector<std::string> leftOut;
    /// The names of those that the report's recipe did not exclude (unmatched, error, no runs).
    std::vector<std::string> leftOutNotExcluded;
    std::uint64_t totalNumel() const;
    std::uint64_t minBytes() const; ///< every module's smallest candidate
    std::uint64_t maxBytes() const; ///< every module's largest candidate
};

/// Reads a scan report (docs/formats.md "Scan reports"): every scanned module's runs with a
/// finite `metrics.mse` and `metrics.bytes` become its candidates. With `weights` (module →
/// weight, e.g. mean ‖x‖² of its inputs or routing frequency), each module's errors are
/// multiplied by its weight; a module with candidates but no weight is refused. Throws IoError /
/// FormatError naming the report (and the line) when it cannot be read or is not a scan report.
BudgetProblem readBudgetProblem(const std::string &reportPath,
                                const std::vector<std::pair<std::string, double>> *weights = nullptr);
/// The same from lines already in memory (header, then module lines).
BudgetProblem budgetProblemFromLines(const nlohmann::json &header, const std::vector<nlohmann::json> &lines,
                                     const std::vector<std::pair<std::string, double>> *weights = nullptr,
                                     const std::string &source = "report");
/// Reads `{"module": weight, ...}` (finite, ≥ 0). Errors name the file.
std::vector<std::pair<std::string, double>> readModuleWeights(const std::string &path);

/// Bytes of a mean bits-per-weight budget: floor(bitsPerWeight · numel / 8).
std::uint64_t bytesForBitsPerWeight(double bitsPerWeight, std::uint64_t numel);
/// Bytes of an MB budget (10⁶ bytes): floor(mb · 10⁶).
std::uint64_t bytesForMegabytes(double mb);

struct BudgetOptions {
    /// The dynamic programme runs while modules × (capacity + 1) is at most this; beyond it the
    /// solver uses branch and bound.
    std::uint64_t maxDpCells = 1ull << 26;
    /// Test hook: use branch and bound whatever the table size.
    bool forceBranchAndBound = false;
};

struct BudgetSolution {
    std::vector<int> choice; ///< candidate index per module
    std::uint64_t bytes = 0;
    double error = 0;
    std::uint64_t budgetBytes = 0;
    std::string method;      ///< "dp" or "branch-and-bound"
    std::uint64_t gcd = 1;   ///< the byte resolution of the DP
    std::uint64_t nodes = 0; ///< DP cells or B&B nodes visited
};

/// An optimal choice: least total error with total bytes ≤ budgetBytes (ties: fewer bytes).
/// Throws UnsupportedError when no module has candidates, FormatError for a module without
/// candidates, and UnsupportedError ("budget too small: ...") when even the smallest candidate of
/// every module exceeds the budget.
BudgetSolution solveBudget(const std::vector<BudgetModule> &modules, std::uint64_t budgetBytes,
                           const BudgetOptions &options = {});

/// Total bytes and error of a given choice (−1 entries are refused).
BudgetSolution evaluateChoice(const std::vector<BudgetModule> &modules, const std::vector<int> &choice);

/// The solution as a recipe: one rule per chosen spec but the most chosen one (dialect `exact`,
/// the modules that chose it as patterns, name "budget: LABEL"), in the order of first use, then
/// a catch-all rule `*` with the most chosen spec (every toolkit config needs one); the report
/// recipe's exclude list plus the modules left out that it did not exclude (`exact`), so that
/// no module the budget did not price gets quantized; `metadata.budget` holds the budget, the
/// predicted bytes, bits per weight and error, the method and the report.
nlohmann::ordered_json budgetRecipeJson(const BudgetProblem &problem, const BudgetSolution &solution);

/// {"budget_bytes","bytes","mb","bits_per_weight","error","method","modules":[{"module","choice",
///  "label","spec","bytes","error","mse"}]}
nlohmann::ordered_json budgetSolutionJson(const BudgetProblem &problem, const BudgetSolution &solution);

/// The curve of the budget view: optimal total error at `points` budgets evenly spaced from the
/// smallest to the largest total bytes (each point solved exactly).
struct BudgetCurvePoint {
    std::uint64_t budgetBytes = 0, bytes = 0;
    double error = 0;
};
std::vector<BudgetCurvePoint> budgetCurve(const std::vector<BudgetModule> &modules, int points,
                                          const BudgetOptions &options = {});

} // namespace quantscope
