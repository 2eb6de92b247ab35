// SPDX-License-Identifier: MIT
// The bit budget (budget.h): candidates from a scan report and the exact solver.
#include "budget/budget.h"
#include "json/json_int.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <numeric>
#include <sstream>

#include "io/json_strict.h"
#include "recipe/default_excludes.h"
#include "recipe/recipe_check.h"
#include "results/config_label.h"
#include "tensor/dtype.h"
#include "util/error.h"

namespace quantscope {

using ojson = nlohmann::ordered_json;

namespace {

double finiteNumber(const nlohmann::json &j, const char *key)
{
    if (!j.is_object() || !j.contains(key) || !j[key].is_number())
        return std::numeric_limits<double>::quiet_NaN();
    return j[key].get<double>();
}

/// The one candidate of a module kept dense: its stored bytes (the report's dtype when the
/// module is dense and of a float type, else BF16), error 0.
BudgetCandidate denseCandidate(const nlohmann::json &line, std::uint64_t numel)
{
    std::string dtype = "BF16";
    const bool dense = !line.contains("format") || line["format"] == "dense";
    if (dense && line.contains("dtype") && line["dtype"].is_string())
        if (const auto t = dtypeFromSafetensors(line["dtype"].get<std::string>()); t && isFloating(*t))
            dtype = line["dtype"].get<std::string>();
    const int bits = bitsOf(dtypeFromSafetensors(dtype).value_or(DType::BF16));
    BudgetCandidate c;
    c.spec = {{"method", "dense"}, {"dtype", dtype}};
    c.label = "dense " + dtype;
    c.bytes = numel * static_cast<std::uint64_t>(bits) / 8;
    return c;
}

} // namespace

std::uint64_t BudgetProblem::totalNumel() const
{
    std::uint64_t n = 0;
    for (const auto &m : modules)
        n += m.numel;
    return n;
}

std::uint64_t BudgetProblem::minBytes() const
{
    std::uint64_t n = 0;
    for (const auto &m : budgetUnits(*this).units) {
        std::uint64_t b = std::numeric_limits<std::uint64_t>::max();
        for (const auto &c : m.candidates)
            b = std::min(b, c.bytes);
        n += b;
    }
    return n;
}

std::uint64_t BudgetProblem::maxBytes() const
{
    std::uint64_t n = 0;
    for (const auto &m : budgetUnits(*this).units) {
        std::uint64_t b = 0;
        for (const auto &c : m.candidates)
            b = std::max(b, c.bytes);
        n += b;
    }
    return n;
}

BudgetObjective parseBudgetObjective(const std::string &text)
{
    if (text == "auto")
        return BudgetObjective::Auto;
    if (text == "weight")
        return BudgetObjective::Weight;
    if (text == "output")
        return BudgetObjective::Output;
    throw UnsupportedError("--objective must be auto, weight or output, not '" + text + "'");
}

namespace {

/// Sets every candidate's error for the chosen objective (see BudgetObjective).
void chooseObjective(BudgetProblem &p, const nlohmann::json &header, BudgetObjective objective)
{
    const bool hasCapture = header.contains("capture") && header["capture"].is_object();
    if (objective == BudgetObjective::Weight || (objective == BudgetObjective::Auto && !hasCapture)) {
        p.objective = "weight";
        p.objectiveNote =
            objective == BudgetObjective::Weight ? "weight error, as asked" : "weight error: the scan had no capture";
        return;
    }
    std::vector<std::string> lacking;
    for (const BudgetModule &m : p.modules) {
        if (!m.denseReason.empty())
            continue;
        for (const BudgetCandidate &c : m.candidates)
            if (!std::isfinite(c.outputError)) {
                lacking.push_back(m.module);
                break;
            }
    }
    if (!lacking.empty()) {
        std::string names;
        for (std::size_t i = 0; i < lacking.size() && i < 5; ++i)
            names += (i ? ", " : "") + lacking[i];
        if (lacking.size() > 5)
            names += " and " + std::to_string(lacking.size() - 5) + " more";
        const std::string why = std::to_string(lacking.size()) +
                                " module(s) have runs without an output-aware error (" + names +
                                "): the capture lacks them or the scan had none";
        if (objective == BudgetObjective::Output)
            throw UnsupportedError("--objective output: " + why);
        p.objective = "weight";
        p.objectiveNote = "weight error: " + why;
        return;
    }
    for (BudgetModule &m : p.modules)
        if (m.denseReason.empty())
            for (BudgetCandidate &c : m.candidates)
                c.error = m.weight * c.outputError;
    p.objective = "output";
    const std::string path = hasCapture && header["capture"].contains("path") && header["capture"]["path"].is_string()
                                 ? header["capture"]["path"].get<std::string>()
                                 : std::string("the scan's capture");
    p.objectiveNote = "output-aware error on the capture " + path;
}

} // namespace

BudgetProblem budgetProblemFromLines(const nlohmann::json &header, const std::vector<nlohmann::json> &lines,
                                     const std::vector<std::pair<std::string, double>> *weights,
                                     const std::string &source, const BudgetProblemOptions &options)
{
    if (!header.is_object() || !header.contains("quantscope_scan"))
        throw FormatError("not a scan report (its first line has no \"quantscope_scan\")", Location{source, {}, {}});
    BudgetProblem p;
    p.report = source;
    p.target = options.target;
    // The target's answer per distinct spec (many modules share each spec).
    std::map<std::string, std::string> refusedWhy; // spec dump → reason ("" accepted)
    auto accepted = [&](const BudgetCandidate &c) {
        if (!options.canWrite)
            return true;
        const std::string key = c.spec.dump();
        auto it = refusedWhy.find(key);
        if (it == refusedWhy.end()) {
            std::string why;
            try {
                if (options.canWrite(parseQuantSpec(c.spec), &why))
                    why.clear();
                else if (why.empty())
                    why = "refused";
            } catch (const Error &e) {
                why = e.what();
            }
            if (!why.empty())
                p.refused.push_back(c.label + ": " + why);
            it = refusedWhy.emplace(key, why).first;
        }
        return it->second.empty();
    };
    if (header.contains("checkpoint") && header["checkpoint"].is_string())
        p.checkpoint = header["checkpoint"].get<std::string>();
    if (header.contains("recipe"))
        p.recipe = ojson::parse(header["recipe"].dump());
    std::map<std::string, double> weightOf;
    if (weights)
        for (const auto &[m, w] : *weights)
            weightOf[m] = w;
    for (std::size_t i = 0; i < lines.size(); ++i) {
        const auto &l = lines[i];
        const std::string where = source + " line " + std::to_string(i + 2);
        if (!l.is_object() || !l.contains("module") || !l["module"].is_string() || !l.contains("status"))
            throw FormatError("a module line lacks \"module\" or \"status\"", Location{where, {}, {}});
        const std::string name = l["module"].get<std::string>();
        const std::string status = l["status"].is_string() ? l["status"].get<std::string>() : "?";
        if (status != "scanned" || !l.contains("runs") || !l["runs"].is_array()) {
            p.leftOut.push_back(name + ": " + status);
            if (status != "excluded")
                p.leftOutNotExcluded.push_back(name);
            continue;
        }
        BudgetModule m;
        m.module = name;
        if (l.contains("shape") && l["shape"].is_array()) {
            m.numel = 1;
            try {
                for (const auto &d : l["shape"]) {
                    m.shape.push_back(jsonInteger<std::uint32_t>(d, "shape"));
                    m.numel *= m.shape.back();
                }
            } catch (const JsonIntegerError &e) {
                throw FormatError(e.what(), Location{where, name, {}});
            }
        }
        if (m.shape.empty() || m.numel == 0)
            throw FormatError("module '" + name + "' has no shape", Location{where, {}, {}});
        if (l.contains("kurtosis") && l["kurtosis"].is_object())
            m.kurtosis = finiteNumber(l["kurtosis"], "tensor");
        if (!options.includeDefaultExcluded)
            m.denseReason = defaultExcludeReason(name, Shape(m.shape.begin(), m.shape.end()));
        if (!m.denseReason.empty()) {
            m.candidates.push_back(denseCandidate(l, m.numel));
            p.modules.push_back(std::move(m));
            continue;
        }
        if (weights) {
            const auto it = weightOf.find(name);
            if (it == weightOf.end())
                throw FormatError("the weights give no weight for module '" + name + "'", Location{source, {}, {}});
            m.weight = it->second;
        }
        m.group = fusionGroupOf(name);
        int refusedHere = 0;
        for (const auto &run : l["runs"]) {
            if (!run.is_object() || !run.contains("metrics") || !run["metrics"].is_object() || !run.contains("spec"))
                continue; // a failed run has no metrics
            const double mse = finiteNumber(run["metrics"], "mse");
            if (!std::isfinite(mse) || !run["metrics"].contains("bytes") ||
                !run["metrics"]["bytes"].is_number_integer() || run["metrics"]["bytes"].get<std::int64_t>() < 0)
                continue;
            BudgetCandidate c;
            c.spec = run["spec"];
            c.label = describeSpec(c.spec);
            c.mse = mse;
            c.bytes = run["metrics"]["bytes"].get<std::uint64_t>();
            c.error = m.weight * mse * static_cast<double>(m.numel);
            if (run["metrics"].contains("output_error") && run["metrics"]["output_error"].is_object())
                c.outputError = finiteNumber(run["metrics"]["output_error"], "error");
            if (c.spec.contains("method") && c.spec["method"] == "milo" && c.spec.contains("rank") &&
                c.spec["rank"].is_number_integer())
                c.rank = c.spec["rank"].get<int>();
            if (accepted(c))
                m.candidates.push_back(std::move(c));
            else
                ++refusedHere;
        }
        if (m.candidates.empty() && refusedHere > 0) {
            // Every measured spec is one the target cannot store: the module stays dense.
            m.denseReason = "no candidate " + options.target + " can store";
            m.group.clear();
            m.candidates.push_back(denseCandidate(l, m.numel));
            p.modules.push_back(std::move(m));
        } else if (m.candidates.empty()) {
            p.leftOut.push_back(name + ": no run with metrics");
            p.leftOutNotExcluded.push_back(name);
        } else
            p.modules.push_back(std::move(m));
    }
    chooseObjective(p, header, options.objective);
    return p;
}

BudgetProblem readBudgetProblem(const std::string &reportPath,
                                const std::vector<std::pair<std::string, double>> *weights,
                                const BudgetProblemOptions &options)
{
    std::ifstream in(reportPath, std::ios::binary);
    if (!in)
        throw IoError("cannot open the scan report", Location{reportPath, {}, {}});
    std::string text;
    nlohmann::json header;
    std::vector<nlohmann::json> lines;
    std::size_t lineNo = 0;
    while (std::getline(in, text)) {
        ++lineNo;
        if (text.empty())
            continue;
        nlohmann::json j;
        try {
            j = nlohmann::json::parse(text);
        } catch (const nlohmann::json::exception &) {
            throw FormatError("line " + std::to_string(lineNo) +
                                  " is not JSON (a torn line of an unfinished scan? "
                                  "resume the scan first)",
                              Location{reportPath, {}, {}});
        }
        if (header.is_null())
            header = std::move(j);
        else
            lines.push_back(std::move(j));
    }
    if (header.is_null())
        throw FormatError("the scan report is empty", Location{reportPath, {}, {}});
    return budgetProblemFromLines(header, lines, weights, reportPath, options);
}

std::vector<std::pair<std::string, double>> readModuleWeights(const std::string &path)
{
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw IoError("cannot open the weights file", Location{path, {}, {}});
    std::stringstream ss;
    ss << in.rdbuf();
    const ojson j = io_detail::parseStrictJson(ss.str(), path);
    if (!j.is_object())
        throw FormatError("weights must be an object {\"module\": weight}", Location{path, {}, {}});
    std::vector<std::pair<std::string, double>> out;
    for (const auto &[k, v] : j.items()) {
        if (!v.is_number() || !std::isfinite(v.get<double>()) || v.get<double>() < 0)
            throw FormatError("the weight of '" + k + "' is not a finite number ≥ 0", Location{path, {}, {}});
        out.emplace_back(k, v.get<double>());
    }
    return out;
}

BudgetSolution evaluateChoice(const std::vector<BudgetModule> &modules, const std::vector<int> &choice)
{
    if (choice.size() != modules.size())
        throw UnsupportedError("a choice needs one candidate per module");
    BudgetSolution s;
    s.choice = choice;
    for (std::size_t i = 0; i < modules.size(); ++i) {
        const int c = choice[i];
        if (c < 0 || c >= static_cast<int>(modules[i].candidates.size()))
            throw UnsupportedError("module '" + modules[i].module + "' has no candidate " + std::to_string(c));
        s.bytes += modules[i].candidates[static_cast<std::size_t>(c)].bytes;
        s.error += modules[i].candidates[static_cast<std::size_t>(c)].error;
    }
    return s;
}

namespace {

/// Per module: candidates as (extra bytes over its smallest, error), index kept.
struct Item {
    std::uint64_t extra = 0;
    double error = 0;
    int index = 0;
};

/// The candidates of one module that can be optimal: sorted by bytes, each strictly better in
/// error than every smaller one (a candidate with more bytes and no less error never helps; ties
/// in both keep the first).
std::vector<Item> undominated(const BudgetModule &m, std::uint64_t minBytes)
{
    std::vector<Item> all;
    for (std::size_t c = 0; c < m.candidates.size(); ++c)
        all.push_back({m.candidates[c].bytes - minBytes, m.candidates[c].error, static_cast<int>(c)});
    std::stable_sort(all.begin(), all.end(), [](const Item &a, const Item &b) {
        return a.extra != b.extra ? a.extra < b.extra : a.error < b.error;
    });
    std::vector<Item> out;
    for (const auto &it : all)
        if (out.empty() || it.error < out.back().error)
            out.push_back(it);
    return out;
}

BudgetSolution solveDp(const std::vector<std::vector<Item>> &items, std::uint64_t cap, std::uint64_t g)
{
    const std::size_t n = items.size(), C = static_cast<std::size_t>(cap / g);
    const double inf = std::numeric_limits<double>::infinity();
    std::vector<double> dp(C + 1, 0.0), next(C + 1);
    std::vector<std::uint16_t> pick(n * (C + 1));
    for (std::size_t i = 0; i < n; ++i) {
        for (std::size_t c = 0; c <= C; ++c) {
            double best = inf;
            std::uint16_t arg = 0;
            for (std::size_t k = 0; k < items[i].size(); ++k) {
                const std::size_t w = static_cast<std::size_t>(items[i][k].extra / g);
                if (w > c)
                    break; // sorted by bytes
                const double e = dp[c - w] + items[i][k].error;
                if (e < best) {
                    best = e;
                    arg = static_cast<std::uint16_t>(k);
                }
            }
            next[c] = best;
            pick[i * (C + 1) + c] = arg;
        }
        dp.swap(next);
    }
    // The least error; among equal errors the smallest capacity (fewest bytes).
    std::size_t at = 0;
    for (std::size_t c = 1; c <= C; ++c)
        if (dp[c] < dp[at])
            at = c;
    BudgetSolution s;
    s.choice.assign(n, 0);
    std::size_t c = at;
    for (std::size_t i = n; i-- > 0;) {
        const Item &it = items[i][pick[i * (C + 1) + c]];
        s.choice[i] = it.index;
        c -= static_cast<std::size_t>(it.extra / g);
    }
    s.method = "dp";
    s.gcd = g;
    s.nodes = n * (C + 1);
    return s;
}

/// Branch and bound over the modules (most error at stake first), candidates in error order,
/// pruned by the LP relaxation of the remaining modules: each module's lower convex hull, its
/// segments taken in order of error saved per byte, the last one fractionally. The LP optimum is
/// the Lagrangian dual bound of the multiple-choice knapsack, never above the integer optimum.
class BranchAndBound {
public:
    BranchAndBound(const std::vector<std::vector<Item>> &items, std::uint64_t cap) : m_cap(cap)
    {
        const std::size_t n = items.size();
        m_order.resize(n);
        std::iota(m_order.begin(), m_order.end(), 0);
        std::stable_sort(m_order.begin(), m_order.end(), [&](std::size_t a, std::size_t b) {
            return items[a].front().error - items[a].back().error > items[b].front().error - items[b].back().error;
        });
        for (std::size_t k : m_order)
            m_items.push_back(items[k]);
        // Suffix data: the sum of the first (smallest) items' errors, and the hull segments
        // sorted by slope.
        m_suffixBase.assign(n + 1, 0.0);
        m_suffixSegs.resize(n + 1);
        std::vector<Seg> segs;
        for (std::size_t i = n; i-- > 0;) {
            m_suffixBase[i] = m_suffixBase[i + 1] + m_items[i].front().error;
            for (const Seg &s : hull(m_items[i]))
                segs.push_back(s);
            std::sort(segs.begin(), segs.end(), [](const Seg &a, const Seg &b) { return a.slope < b.slope; });
            m_suffixSegs[i] = segs;
        }
        // Per module, the candidates tried in order of error.
        for (auto &v : m_items)
            std::stable_sort(v.begin(), v.end(), [](const Item &a, const Item &b) { return a.error < b.error; });
    }

    BudgetSolution run()
    {
        const std::size_t n = m_items.size();
        m_cur.assign(n, 0);
        m_best.assign(n, -1);
        m_bestError = std::numeric_limits<double>::infinity();
        m_bestBytes = 0;
        seedIncumbent();
        dfs(0, 0, 0.0);
        BudgetSolution s;
        s.choice.assign(n, 0);
        for (std::size_t i = 0; i < n; ++i)
            s.choice[m_order[i]] = m_items[i][static_cast<std::size_t>(m_best[i])].index;
        s.method = "branch-and-bound";
        s.nodes = m_nodes;
        return s;
    }

private:
    struct Seg {
        double slope; ///< error change per byte (< 0)
        std::uint64_t bytes;
        double gain; ///< error saved (> 0)
    };

    static std::vector<Seg> hull(std::vector<Item> v)
    {
        // v is sorted by bytes with strictly falling error: its lower convex hull.
        std::vector<Item> h;
        for (const auto &p : v) {
            while (h.size() >= 2) {
                const Item &a = h[h.size() - 2], &b = h.back();
                // b is above the segment a–p: drop it.
                const double lhs = (b.error - a.error) * static_cast<double>(p.extra - a.extra);
                const double rhs = (p.error - a.error) * static_cast<double>(b.extra - a.extra);
                if (lhs >= rhs)
                    h.pop_back();
                else
                    break;
            }
            h.push_back(p);
        }
        std::vector<Seg> segs;
        for (std::size_t k = 1; k < h.size(); ++k) {
            const std::uint64_t db = h[k].extra - h[k - 1].extra;
            const double de = h[k - 1].error - h[k].error;
            segs.push_back({-de / static_cast<double>(db), db, de});
        }
        return segs;
    }

    /// A first feasible choice, so that the bound prunes from the start: the LP greedy's integral
    /// part (every module at the hull point the greedy reached, the fractional step left out).
    void seedIncumbent()
    {
        const std::size_t n = m_items.size();
        // Per module, its hull points in byte order (m_items are in error order now).
        std::vector<std::vector<Item>> hulls(n);
        struct Step {
            double slope;
            std::size_t module, to;
        };
        std::vector<Step> steps;
        for (std::size_t i = 0; i < n; ++i) {
            std::vector<Item> v = m_items[i];
            std::stable_sort(v.begin(), v.end(), [](const Item &a, const Item &b) {
                return a.extra != b.extra ? a.extra < b.extra : a.error < b.error;
            });
            std::vector<Item> h;
            for (const auto &p : v) {
                if (!h.empty() && p.error >= h.back().error)
                    continue;
                while (h.size() >= 2) {
                    const Item &a = h[h.size() - 2], &b = h.back();
                    if ((b.error - a.error) * static_cast<double>(p.extra - a.extra) >=
                        (p.error - a.error) * static_cast<double>(b.extra - a.extra))
                        h.pop_back();
                    else
                        break;
                }
                h.push_back(p);
            }
            for (std::size_t k = 1; k < h.size(); ++k)
                steps.push_back(
                    {(h[k].error - h[k - 1].error) / static_cast<double>(h[k].extra - h[k - 1].extra), i, k});
            hulls[i] = std::move(h);
        }
        std::stable_sort(steps.begin(), steps.end(), [](const Step &a, const Step &b) { return a.slope < b.slope; });
        std::vector<std::size_t> at(n, 0);
        std::uint64_t used = 0;
        for (const Step &st : steps) {
            if (at[st.module] + 1 != st.to)
                continue; // an earlier step of this module was not taken
            const std::uint64_t add = hulls[st.module][st.to].extra - hulls[st.module][st.to - 1].extra;
            if (used + add > m_cap)
                continue;
            used += add;
            at[st.module] = st.to;
        }
        double err = 0;
        std::vector<int> choice(n);
        for (std::size_t i = 0; i < n; ++i) {
            const Item &pick = hulls[i][at[i]];
            err += pick.error;
            for (std::size_t k = 0; k < m_items[i].size(); ++k)
                if (m_items[i][k].index == pick.index)
                    choice[i] = static_cast<int>(k);
        }
        m_bestError = err;
        m_bestBytes = used;
        m_best = choice;
    }

    double bound(std::size_t i, std::uint64_t room) const
    {
        double e = m_suffixBase[i];
        double left = static_cast<double>(room);
        for (const Seg &s : m_suffixSegs[i]) {
            if (left <= 0)
                break;
            if (static_cast<double>(s.bytes) <= left) {
                e -= s.gain;
                left -= static_cast<double>(s.bytes);
            } else {
                e -= s.gain * (left / static_cast<double>(s.bytes));
                left = 0;
            }
        }
        return e;
    }

    void dfs(std::size_t i, std::uint64_t used, double err)
    {
        ++m_nodes;
        if (i == m_items.size()) {
            if (err < m_bestError || (err == m_bestError && used < m_bestBytes)) {
                m_bestError = err;
                m_bestBytes = used;
                m_best = m_cur;
            }
            return;
        }
        const double lb = err + bound(i, m_cap - used);
        // Prune only what cannot tie or win (a relative slack for the bound's rounding).
        if (lb > m_bestError + 1e-12 * std::abs(m_bestError))
            return;
        for (std::size_t k = 0; k < m_items[i].size(); ++k) {
            const Item &it = m_items[i][k];
            if (it.extra > m_cap - used)
                continue;
            m_cur[i] = static_cast<int>(k);
            dfs(i + 1, used + it.extra, err + it.error);
        }
    }

    std::uint64_t m_cap;
    std::vector<std::size_t> m_order;
    std::vector<std::vector<Item>> m_items;
    std::vector<double> m_suffixBase;
    std::vector<std::vector<Seg>> m_suffixSegs;
    std::vector<int> m_cur, m_best;
    double m_bestError = 0;
    std::uint64_t m_bestBytes = 0;
    std::uint64_t m_nodes = 0;
};

} // namespace

BudgetSolution solveBudget(const std::vector<BudgetModule> &modules, std::uint64_t budgetBytes,
                           const BudgetOptions &options)
{
    if (modules.empty())
        throw UnsupportedError("no module has candidates to choose from");
    std::uint64_t base = 0;
    std::vector<std::vector<Item>> items;
    std::uint64_t g = 0, spread = 0;
    for (const auto &m : modules) {
        if (m.candidates.empty())
            throw FormatError("module '" + m.module + "' has no candidates");
        if (m.candidates.size() > 65535)
            throw UnsupportedError("module '" + m.module + "' has more than 65535 candidates");
        std::uint64_t lo = std::numeric_limits<std::uint64_t>::max();
        for (const auto &c : m.candidates) {
            if (!std::isfinite(c.error))
                throw FormatError("module '" + m.module + "' has a candidate with a non-finite error");
            lo = std::min(lo, c.bytes);
        }
        base += lo;
        items.push_back(undominated(m, lo));
        for (const auto &it : items.back())
            g = std::gcd(g, it.extra);
        spread += items.back().back().extra;
    }
    if (base > budgetBytes) {
        char buf[256];
        std::snprintf(buf, sizeof buf,
                      "budget too small: the smallest candidate of every module needs %llu bytes (%.6g MB), "
                      "the budget is %llu bytes (%.6g MB)",
                      static_cast<unsigned long long>(base), static_cast<double>(base) / 1e6,
                      static_cast<unsigned long long>(budgetBytes), static_cast<double>(budgetBytes) / 1e6);
        throw UnsupportedError(buf);
    }
    const std::uint64_t cap = std::min(budgetBytes - base, spread);
    if (g == 0) // every module has one useful candidate: a table of one column
        g = 1;
    BudgetSolution s;
    const std::uint64_t cells = static_cast<std::uint64_t>(items.size()) * (cap / g + 1);
    if (!options.forceBranchAndBound && cap / g < options.maxDpCells && cells <= options.maxDpCells)
        s = solveDp(items, cap, g);
    else
        s = BranchAndBound(items, cap).run();
    const BudgetSolution e = evaluateChoice(modules, s.choice);
    s.bytes = e.bytes;
    s.error = e.error;
    s.budgetBytes = budgetBytes;
    s.gcd = g;
    return s;
}

nlohmann::ordered_json budgetSolutionJson(const BudgetProblem &problem, const BudgetSolution &solution)
{
    ojson j;
    const double numel = static_cast<double>(problem.totalNumel());
    j["report"] = problem.report;
    j["budget_bytes"] = solution.budgetBytes;
    j["bytes"] = solution.bytes;
    j["mb"] = static_cast<double>(solution.bytes) / 1e6;
    j["bits_per_weight"] = numel > 0 ? 8.0 * static_cast<double>(solution.bytes) / numel : 0.0;
    j["error"] = solution.error;
    j["objective"] = problem.objective;
    j["objective_note"] = problem.objectiveNote;
    j["method"] = solution.method;
    j["byte_resolution"] = solution.gcd;
    j["target"] = problem.target.empty() ? ojson("any") : ojson(problem.target);
    ojson mods = ojson::array(), dense = ojson::array();
    for (std::size_t i = 0; i < problem.modules.size(); ++i) {
        const auto &m = problem.modules[i];
        const auto &c = m.candidates[static_cast<std::size_t>(solution.choice[i])];
        ojson mj;
        mj["module"] = m.module;
        mj["choice"] = solution.choice[i];
        mj["label"] = c.label;
        mj["spec"] = ojson::parse(c.spec.dump());
        mj["bytes"] = c.bytes;
        mj["error"] = c.error;
        mj["mse"] = c.mse;
        mj["output_error"] = std::isfinite(c.outputError) ? ojson(c.outputError) : ojson(nullptr);
        mj["group"] = m.group.empty() ? ojson(nullptr) : ojson(m.group);
        mj["dense"] = m.denseReason.empty() ? ojson(nullptr) : ojson(m.denseReason);
        if (!m.denseReason.empty())
            dense.push_back(ojson{{"module", m.module}, {"reason", m.denseReason}});
        mods.push_back(std::move(mj));
    }
    j["modules"] = std::move(mods);
    j["dense"] = std::move(dense);
    j["refused"] = problem.refused;
    j["left_out"] = problem.leftOut;
    return j;
}

nlohmann::ordered_json budgetRecipeJson(const BudgetProblem &problem, const BudgetSolution &solution)
{
    ojson recipe;
    recipe["quantscope_recipe"] = 1;
    // Chosen specs in order of first use, with their modules.
    std::vector<std::string> keys;
    std::vector<std::string> labels;
    std::vector<std::vector<std::string>> members;
    for (std::size_t i = 0; i < problem.modules.size(); ++i) {
        if (!problem.modules[i].denseReason.empty())
            continue; // excluded below
        const auto &c = problem.modules[i].candidates[static_cast<std::size_t>(solution.choice[i])];
        const std::string key = c.spec.dump();
        auto it = std::find(keys.begin(), keys.end(), key);
        if (it == keys.end()) {
            keys.push_back(key);
            labels.push_back(c.label);
            members.emplace_back();
            it = keys.end() - 1;
        }
        members[static_cast<std::size_t>(it - keys.begin())].push_back(problem.modules[i].module);
    }
    // The most chosen spec becomes the catch-all (the first of equals).
    std::size_t common = 0;
    for (std::size_t k = 1; k < keys.size(); ++k)
        if (members[k].size() > members[common].size())
            common = k;
    ojson rules = ojson::array();
    for (std::size_t k = 0; k < keys.size(); ++k) {
        if (k == common)
            continue;
        ojson r;
        r["name"] = "budget: " + labels[k];
        r["dialect"] = "exact";
        r["patterns"] = members[k];
        r["specs"] = ojson::array({ojson::parse(keys[k])});
        rules.push_back(std::move(r));
    }
    if (!keys.empty()) {
        ojson r;
        r["name"] = "budget: " + labels[common] + " (every other module)";
        r["dialect"] = "fnmatch";
        r["patterns"] = ojson::array({"*"});
        r["specs"] = ojson::array({ojson::parse(keys[common])});
        rules.push_back(std::move(r));
    }
    recipe["rules"] = std::move(rules);
    // The scan's exclusions stay excluded; what the budget did not price is excluded too.
    ojson exclude = ojson::array();
    if (problem.recipe.is_object() && problem.recipe.contains("exclude"))
        exclude = problem.recipe["exclude"];
    for (const auto &m : problem.leftOutNotExcluded)
        exclude.push_back(ojson{{"pattern", m}, {"dialect", "exact"}});
    for (const auto &m : problem.modules)
        if (!m.denseReason.empty())
            exclude.push_back(ojson{{"pattern", m.module}, {"dialect", "exact"}});
    recipe["exclude"] = std::move(exclude);
    const double numel = static_cast<double>(problem.totalNumel());
    ojson b;
    b["report"] = problem.report;
    b["checkpoint"] = problem.checkpoint;
    b["budget_bytes"] = solution.budgetBytes;
    b["predicted_bytes"] = solution.bytes;
    b["predicted_bits_per_weight"] = numel > 0 ? 8.0 * static_cast<double>(solution.bytes) / numel : 0.0;
    b["predicted_error"] = solution.error;
    b["method"] = solution.method;
    b["target"] = problem.target.empty() ? ojson("any") : ojson(problem.target);
    recipe["metadata"] = ojson{{"budget", b}};
    return recipe;
}

std::vector<BudgetCurvePoint> budgetCurve(const std::vector<BudgetModule> &modules, int points,
                                          const BudgetOptions &options)
{
    std::vector<BudgetCurvePoint> out;
    if (modules.empty() || points < 1)
        return out;
    std::uint64_t lo = 0, hi = 0;
    for (const auto &m : modules) {
        std::uint64_t a = std::numeric_limits<std::uint64_t>::max(), b = 0;
        for (const auto &c : m.candidates) {
            a = std::min(a, c.bytes);
            b = std::max(b, c.bytes);
        }
        lo += a;
        hi += b;
    }
    for (int k = 0; k < points; ++k) {
        const std::uint64_t budget =
            points == 1 ? hi : lo + static_cast<std::uint64_t>(static_cast<double>(hi - lo) * k / (points - 1));
        const BudgetSolution s = solveBudget(modules, budget, options);
        out.push_back({budget, s.bytes, s.error});
    }
    return out;
}

} // namespace quantscope
