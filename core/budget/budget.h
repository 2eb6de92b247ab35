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
///
/// What the solver prices follows what can be exported: with a target predicate only the specs
/// the target's checkpoint writer can store are candidates; the modules the toolkits keep dense
/// (recipe/default_excludes.h) stay dense, priced at their stored size; and the members of one
/// fusion group (recipe/recipe_check.h fusionGroupOf: q/k/v, gate/up, one projection of a
/// layer's experts) are one unit with one spec, as serving engines require.
#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "quant/quant_spec.h"

namespace quantscope {

struct BudgetCandidate {
    nlohmann::json spec;     ///< the full spec (the scan report's run spec)
    std::string label;       ///< describeSpec(spec)
    double error = 0;        ///< additive error the solver minimises (see BudgetModule)
    std::uint64_t bytes = 0; ///< exact stored bytes
    double mse = 0;          ///< measured mean squared error
    /// tr(ΔW G ΔWᵀ) on the scan's capture (NaN when the scan had none for this module).
    double outputError = std::numeric_limits<double>::quiet_NaN();
    int rank = -1; ///< MiLo rank, -1 for other methods
};

struct BudgetModule {
    std::string module;
    std::string group;       ///< fusion group (fusionGroupOf), "" for none or a dense module
    std::string denseReason; ///< non-empty: kept dense (one candidate, its stored bytes, error 0)
    std::uint64_t numel = 0;
    double weight = 1;                                          ///< error weight (1 unless weighted)
    double kurtosis = std::numeric_limits<double>::quiet_NaN(); ///< the tensor's excess kurtosis
    std::vector<std::uint64_t> shape;
    /// Candidates; `error` = weight · mse · numel (the squared Frobenius error, weighted) under
    /// the weight objective, weight · tr(ΔW G ΔWᵀ) under the output objective.
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
    std::string target;               ///< the target the candidates were filtered for ("" any)
    std::string objective = "weight"; ///< "weight" or "output" (BudgetObjective as chosen)
    std::string objectiveNote;        ///< why (the capture it came from, or why weight error was kept)
    /// Specs the target refused, "LABEL: why", one per distinct spec.
    std::vector<std::string> refused;
    std::uint64_t totalNumel() const;
    std::uint64_t minBytes() const; ///< the least bytes of any choice (fused groups share one spec)
    std::uint64_t maxBytes() const; ///< the most bytes of any choice
};

/// Whether a target stores a spec; `why` gets the reason when not. The CLI and the window pass
/// export/checkpoint_writer.h targetCanWrite (injected: budget/ does not depend on export/).
using SpecPredicate = std::function<bool(const QuantSpec &spec, std::string *why)>;

/// What the solver minimises: the squared Frobenius error of the weights, or the output-aware
/// error E‖(W − Ŵ)x‖² on the scan's capture (metrics/output_error.h). Auto takes the output
/// error when the report's header names a capture and every priced run carries it.
enum class BudgetObjective : std::uint8_t { Auto, Weight, Output };
/// "auto", "weight", "output"; throws UnsupportedError otherwise.
BudgetObjective parseBudgetObjective(const std::string &text);

struct BudgetProblemOptions {
    BudgetObjective objective = BudgetObjective::Auto;
    /// Only candidates it accepts are priced (empty: every candidate). A module left with none
    /// stays dense.
    SpecPredicate canWrite;
    std::string target; ///< its name, for messages
    /// Price the modules defaultExcludeReason keeps dense (lm_head, embeddings, routers) too.
    bool includeDefaultExcluded = false;
};

/// Reads a scan report (docs/formats.md "Scan reports"): every scanned module's runs with a
/// finite `metrics.mse` and `metrics.bytes` become its candidates. With `weights` (module →
/// weight, e.g. mean ‖x‖² of its inputs or routing frequency), each module's errors are
/// multiplied by its weight; a module with candidates but no weight is refused. Throws IoError /
/// FormatError naming the report (and the line) when it cannot be read or is not a scan report.
/// Modules kept dense (`options`) have one candidate: their stored dtype's bytes (BF16 when the
/// report's module was quantized or its dtype is not a float), error 0.
BudgetProblem readBudgetProblem(const std::string &reportPath,
                                const std::vector<std::pair<std::string, double>> *weights = nullptr,
                                const BudgetProblemOptions &options = {});
/// The same from lines already in memory (header, then module lines).
BudgetProblem budgetProblemFromLines(const nlohmann::json &header, const std::vector<nlohmann::json> &lines,
                                     const std::vector<std::pair<std::string, double>> *weights = nullptr,
                                     const std::string &source = "report", const BudgetProblemOptions &options = {});
/// Reads `{"module": weight, ...}` (finite, ≥ 0). Errors name the file.
std::vector<std::pair<std::string, double>> readModuleWeights(const std::string &path);

/// Bytes of a mean bits-per-weight budget: floor(B · numel / 8), B read exactly from its decimal
/// text ("4.1", "4.25e0"): no binary rounding loses a byte. Throws UnsupportedError for text that
/// is not a positive decimal number or a budget beyond 2⁶⁴ − 1 bytes.
std::uint64_t bytesForBitsPerWeight(std::string_view bitsPerWeight, std::uint64_t numel);
/// Bytes of an MB budget, MB = 10⁶ bytes (not MiB): floor(X · 10⁶), X read exactly from its
/// decimal text: "2.01" is 2010000 bytes (floor(2.01 · 1e6) in doubles is 2009999). Digits past
/// the sixth decimal are a part of a byte and dropped. Throws as bytesForBitsPerWeight.
std::uint64_t bytesForMegabytes(std::string_view mb);

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

/// What the solver prices: one unit per fusion group (its members' common specs, bytes and
/// errors summed, in the first member's order) and one per other module.
struct BudgetUnits {
    std::vector<BudgetModule> units;               ///< a group's unit is named by its group
    std::vector<std::vector<std::size_t>> members; ///< per unit, its module indices
    /// per unit and unit candidate, the candidate index of each member (members' order)
    std::vector<std::vector<std::vector<int>>> pick;
};
/// Throws UnsupportedError naming a group whose members share no spec.
BudgetUnits budgetUnits(const BudgetProblem &problem);
/// solveBudget over budgetUnits(problem); `choice` is per module (problem.modules), so the
/// members of a group get the candidates of one spec.
BudgetSolution solveBudget(const BudgetProblem &problem, std::uint64_t budgetBytes, const BudgetOptions &options = {});

/// Whether a target can store every spec a solution chose (dense modules aside).
struct BudgetTargetCheck {
    std::string target;
    bool ok = true;
    std::string why; ///< the first refusal, "MODULE: reason"
};
/// Per solution, per target (in the order given). Each distinct spec is asked once.
std::vector<std::vector<BudgetTargetCheck>>
checkBudgetTargets(const BudgetProblem &problem, const std::vector<BudgetSolution> &solutions,
                   const std::vector<std::pair<std::string, SpecPredicate>> &targets);

/// The solution as a recipe: one rule per chosen spec but the most chosen one (dialect `exact`,
/// the modules that chose it as patterns, name "budget: LABEL"), in the order of first use, then
/// a catch-all rule `*` with the most chosen spec (every toolkit config needs one); the report
/// recipe's exclude list plus the modules left out that it did not exclude and the modules kept
/// dense (`exact`), so that no module the budget did not price gets quantized. Fused members
/// chose one spec, so they resolve to one rule. `metadata.budget` holds the budget, the
/// predicted bytes, bits per weight and error, the method and the report.
nlohmann::ordered_json budgetRecipeJson(const BudgetProblem &problem, const BudgetSolution &solution);

/// {"budget_bytes","bytes","mb","bits_per_weight","error","method","target","modules":[{"module",
///  "choice","label","spec","bytes","error","mse","group","dense"}],"dense":[{"module","reason"}],
///  "refused","left_out"}
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
