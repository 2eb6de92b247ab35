// SPDX-License-Identifier: MIT
// `quantscope-cli budget REPORT.jsonl --mb X | --bits-per-weight B [--target T]`: one candidate
// per module (the specs of a scan run with several specs) so that the total error is least within
// the budget (core/budget/budget.h), the MiLo rank policies beside it, and the recipe of the
// choice. With a target only the specs its checkpoint writer stores are priced; with `any` the
// output says which targets can export the choice.
#include <algorithm>
#include <cstdio>
#include <iostream>
#include <map>

#include <nlohmann/json.hpp>

#include "budget/budget.h"
#include "budget/rank_policy.h"
#include <CLI/CLI.hpp>

#include "cli.h"
#include "export/checkpoint_writer.h"
#include "recipe/recipe.h"
#include "util/error.h"

namespace quantscope::cli {

namespace {

const char *kBudgetUsage = "budget takes exactly one of --mb X and --bits-per-weight B";

/// The checkpoint targets a budget can be priced for, in the order the output lists them.
const std::vector<ExportFormat> kBudgetTargets = {ExportFormat::Quark, ExportFormat::CompressedTensors,
                                                  ExportFormat::Fp8Block, ExportFormat::Quantscope};

SpecPredicate writerPredicate(ExportFormat f)
{
    return [f](const QuantSpec &spec, std::string *why) { return targetCanWrite(f, spec, why); };
}

struct BudgetOptions {
    std::string report;
    std::optional<std::string> mb, bpw, weightsPath, out, freqPath;
    bool weighted = false;
    std::string target = "any";
    bool includeDefaultExcluded = false;
    std::string objective = "auto";
    std::vector<std::string> policies;
};

nlohmann::ordered_json policyJson(const std::string &text, const PolicyChoice &pc, const BudgetProblem &p,
                                  std::uint64_t budget)
{
    nlohmann::ordered_json j;
    j["policy"] = text;
    j["missing"] = pc.missing;
    if (pc.missing.empty()) {
        const BudgetSolution s = evaluateChoice(p.modules, pc.choice);
        j["bytes"] = s.bytes;
        j["mb"] = static_cast<double>(s.bytes) / 1e6;
        j["error"] = s.error;
        j["within_budget"] = s.bytes <= budget;
    } else {
        j["bytes"] = nullptr;
        j["mb"] = nullptr;
        j["error"] = nullptr;
        j["within_budget"] = nullptr;
    }
    j["ranks"] = pc.ranks;
    return j;
}

int runBudget(const BudgetOptions &o, bool json)
{
    const bool weighted = o.weighted;
    const auto &mb = o.mb;
    const auto &bpw = o.bpw;
    const auto &weightsPath = o.weightsPath;
    const auto &out = o.out;
    const auto &freqPath = o.freqPath;
    const auto &policies = o.policies;
    const std::vector<std::string> pos{o.report};
    if (mb.has_value() == bpw.has_value())
        throw UsageError(kBudgetUsage);
    if (weighted != weightsPath.has_value())
        throw UsageError("--weighted needs --weights W.json (module → error weight), and --weights needs --weighted: "
                         "the scan pairs no activations, so the weights come from a file");
    BudgetProblemOptions po;
    po.includeDefaultExcluded = o.includeDefaultExcluded;
    po.objective = parseBudgetObjective(o.objective);
    if (o.target != "any") {
        const auto f = parseExportFormat(o.target);
        if (!f || std::find(kBudgetTargets.begin(), kBudgetTargets.end(), *f) == kBudgetTargets.end())
            throw UsageError("--target must be any, quark, compressed-tensors, fp8-block or quantscope, not '" +
                             o.target + "'");
        po.canWrite = writerPredicate(*f);
        po.target = o.target;
    }
    if (mb)
        (void)toReal("--mb", *mb); // a usage error before any work
    if (bpw)
        (void)toReal("--bits-per-weight", *bpw);
    std::vector<std::pair<std::string, double>> weights;
    if (weighted)
        weights = readModuleWeights(*weightsPath);
    const BudgetProblem problem = readBudgetProblem(pos[0], weighted ? &weights : nullptr, po);
    if (problem.modules.empty())
        throw UnsupportedError("the scan report has no module with candidates (no scanned module has a run with "
                               "metrics)",
                               Location{pos[0], {}, {}});
    // Exact: the decimal text to integer bytes (MB = 10^6 bytes).
    const std::uint64_t budget = mb ? bytesForMegabytes(*mb) : bytesForBitsPerWeight(*bpw, problem.totalNumel());
    std::map<std::string, double> freqs;
    if (freqPath)
        freqs = readExpertFrequencies(*freqPath);
    // Policies first: a bad policy is refused before any output.
    nlohmann::ordered_json pols = nlohmann::ordered_json::array();
    for (const auto &text : policies)
        pols.push_back(policyJson(text, choiceForPolicy(parseRankPolicy(text), problem, freqs), problem, budget));

    const BudgetSolution s = solveBudget(problem, budget);
    const auto recipeJson = budgetRecipeJson(problem, s);
    if (out)
        Recipe::fromJson(recipeJson).save(*out); // validates, writes atomically

    std::vector<std::pair<std::string, SpecPredicate>> targets;
    for (const ExportFormat f : kBudgetTargets)
        targets.emplace_back(std::string(toString(f)), writerPredicate(f));
    const auto checks = checkBudgetTargets(problem, {s}, targets).front();
    nlohmann::ordered_json j = budgetSolutionJson(problem, s);
    j["targets"] = nlohmann::ordered_json::array();
    for (const auto &c : checks)
        j["targets"].push_back({{"target", c.target},
                                {"can_export", c.ok},
                                {"why", c.ok ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(c.why)}});
    j["policies"] = pols;
    j["recipe"] = out ? nlohmann::ordered_json(*out) : nlohmann::ordered_json(nullptr);
    if (json) {
        std::cout << j.dump(1) << "\n";
        return 0;
    }
    const double numel = static_cast<double>(problem.totalNumel());
    std::printf("budget %.6g MB (%llu bytes) over %zu modules, %.0f weights%s, target %s\n",
                static_cast<double>(budget) / 1e6, static_cast<unsigned long long>(budget), problem.modules.size(),
                numel, weighted ? ", weighted error" : "", o.target.c_str());
    std::printf("objective: %s\n", problem.objectiveNote.c_str());
    std::printf("chosen: %.6g MB, %.4f bits per weight, total squared error %.6g (%s, exact)\n",
                static_cast<double>(s.bytes) / 1e6, 8.0 * static_cast<double>(s.bytes) / numel, s.error,
                s.method.c_str());
    for (std::size_t i = 0; i < problem.modules.size(); ++i) {
        const auto &c = problem.modules[i].candidates[static_cast<std::size_t>(s.choice[i])];
        std::printf("  %-56s %-28s %10llu B  %.4g\n", problem.modules[i].module.c_str(), c.label.c_str(),
                    static_cast<unsigned long long>(c.bytes), c.error);
    }
    for (const auto &m : problem.modules)
        if (!m.denseReason.empty())
            std::printf("dense %s: %s\n", m.module.c_str(), m.denseReason.c_str());
    for (const auto &r : problem.refused)
        std::printf("not priced (%s cannot store it): %s\n", o.target.c_str(), r.c_str());
    for (const auto &c : checks)
        std::printf("export to %-20s %s%s\n", c.target.c_str(), c.ok ? "yes" : "no: ", c.why.c_str());
    for (const auto &p : pols) {
        if (p["missing"].empty())
            std::printf("policy %-20s %.6g MB, error %.6g%s\n", p["policy"].get<std::string>().c_str(),
                        p["mb"].get<double>(), p["error"].get<double>(),
                        p["within_budget"].get<bool>() ? "" : " (over the budget)");
        else
            std::printf("policy %-20s no MiLo candidate of the rank it gives for %zu modules (first: %s)\n",
                        p["policy"].get<std::string>().c_str(), p["missing"].size(),
                        p["missing"][0].get<std::string>().c_str());
    }
    if (!problem.leftOut.empty())
        std::printf("left out (no candidates): %zu modules\n", problem.leftOut.size());
    if (out)
        std::printf("recipe written to %s\n", out->c_str());
    return 0;
}

} // namespace

void addBudgetCommand(Commands &c)
{
    auto o = std::make_shared<BudgetOptions>();
    CLI::App *cmd = c.add("budget",
                          "one spec per module from a scan with several specs: the least total error within the "
                          "budget (exact), MiLo rank policies beside it",
                          [o, &c] { return runBudget(*o, c.common().json); });
    cmd->add_option("REPORT", o->report, "the scan report (JSON lines) of a scan with several --specs")->required();
    cmd->add_option("--mb", o->mb, "the budget in megabytes of stored weights")->type_name("X");
    cmd->add_option("--bits-per-weight", o->bpw, "the budget in bits per weight")->type_name("B");
    cmd->add_option("--target", o->target,
                    "price only specs this checkpoint target stores: any (default: every candidate; the output "
                    "says which targets can export the choice), quark, compressed-tensors, fp8-block, quantscope")
        ->type_name("T");
    cmd->add_flag("--include-default-excluded", o->includeDefaultExcluded,
                  "also quantize lm_head, embeddings and MoE routers (kept dense by default, as the toolkits do)");
    cmd->add_option("--objective", o->objective,
                    "what the choice minimises: auto (default: the output-aware error when the scan had a "
                    "--capture, else the weights' squared error), weight, output")
        ->type_name("O");
    cmd->add_flag("--weighted", o->weighted, "weight each module's error by --weights");
    cmd->add_option("--weights", o->weightsPath, "module → error weight (JSON)")->type_name("W.json");
    cmd->add_option("--policy", o->policies,
                    "a MiLo rank policy beside the optimum (repeatable): uniform:R, dense:R, "
                    "sparse:R, kurtosis:R or frequency:R")
        ->type_name("NAME:R")
        ->allow_extra_args(false)
        ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
    cmd->add_option("--frequencies", o->freqPath, "expert frequencies for the frequency policy")
        ->type_name("F.json|F.csv");
    cmd->add_option("--out", o->out, "write the recipe of the choice")->type_name("RECIPE.json");
    c.addCommon(cmd, kJson);
    cmd->footer(
        "Example:\n  quantscope-cli scan demo/ --specs 'int:bits=3:group=64,int:bits=4:group=128' --out c.jsonl\n"
        "  quantscope-cli budget c.jsonl --bits-per-weight 5.5 --target compressed-tensors --out recipe.json");
}

} // namespace quantscope::cli
