// SPDX-License-Identifier: MIT
// The budget's units (fused groups priced as one), its exact budget conversions and the check of
// which targets can store a choice (budget.h).
#include "budget/budget.h"

#include <algorithm>
#include <map>

#include "util/error.h"

namespace quantscope {

namespace {

__extension__ typedef unsigned __int128 U128;

constexpr U128 kU64Max = std::numeric_limits<std::uint64_t>::max();

/// A positive decimal number read exactly: value = mant · 10^-scale.
struct Decimal {
    U128 mant = 0;
    int scale = 0;
};

Decimal parseDecimal(std::string_view text, const char *what)
{
    const auto bad = [&] {
        return UnsupportedError(std::string(what) + " must be a positive decimal number, not '" + std::string(text) +
                                "'");
    };
    std::size_t i = 0;
    if (i < text.size() && text[i] == '+')
        ++i;
    std::string digits;
    int frac = 0;
    bool point = false, any = false;
    for (; i < text.size(); ++i) {
        const char c = text[i];
        if (c >= '0' && c <= '9') {
            any = true;
            if (digits.empty() && c == '0' && !point)
                continue; // leading zero of the integer part
            digits += c;
            if (point)
                ++frac;
        } else if (c == '.' && !point) {
            point = true;
        } else {
            break;
        }
    }
    if (!any)
        throw bad();
    int exp = 0;
    if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
        ++i;
        bool neg = false;
        if (i < text.size() && (text[i] == '+' || text[i] == '-'))
            neg = text[i++] == '-';
        if (i == text.size())
            throw bad();
        for (; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i) {
            exp = exp * 10 + (text[i] - '0');
            if (exp > 400)
                throw bad();
        }
        exp = neg ? -exp : exp;
    }
    if (i != text.size())
        throw bad();
    // Trailing zeros of the digits only scale; leading zeros of a fraction are dropped as digits.
    while (!digits.empty() && digits.back() == '0') {
        digits.pop_back();
        --frac;
    }
    const std::size_t first = digits.find_first_not_of('0');
    digits = first == std::string::npos ? "" : digits.substr(first);
    if (digits.empty())
        throw bad();        // zero
    if (digits.size() > 20) // 2^64 - 1 has 20: mant < 10^20 < 2^67, so mant · 10^6 fits 128 bits
        throw UnsupportedError(std::string(what) + " has more significant digits than a budget can use: '" +
                               std::string(text) + "'");
    Decimal d;
    for (char c : digits)
        d.mant = d.mant * 10 + static_cast<unsigned>(c - '0');
    d.scale = frac - exp;
    return d;
}

/// floor(d · num / den) as bytes; throws when beyond 2⁶⁴ − 1.
std::uint64_t floorBytes(const Decimal &d, U128 num, U128 den, const char *what)
{
    const auto tooBig = [&] { return UnsupportedError(std::string(what) + " is larger than 2^64 - 1 bytes"); };
    // value · num / den = mant · num · 10^-scale / den
    U128 top = d.mant;
    auto mul = [&](U128 a, U128 b) {
        if (a != 0 && b > (~U128(0)) / a)
            throw tooBig();
        return a * b;
    };
    top = mul(top, num);
    U128 bottom = den;
    int scale = d.scale;
    for (; scale < 0; ++scale)
        top = mul(top, 10);
    for (; scale > 0; --scale) {
        if (bottom <= (~U128(0)) / 10)
            bottom *= 10;
        else
            top /= 10; // floor(floor(a / 10) / b) = floor(a / (10 b))
    }
    const U128 q = top / bottom;
    if (q > kU64Max)
        throw tooBig();
    return static_cast<std::uint64_t>(q);
}

} // namespace

std::uint64_t bytesForMegabytes(std::string_view mb)
{
    return floorBytes(parseDecimal(mb, "the budget in MB"), 1000000, 1, "the budget in MB");
}

std::uint64_t bytesForBitsPerWeight(std::string_view bitsPerWeight, std::uint64_t numel)
{
    return floorBytes(parseDecimal(bitsPerWeight, "bits per weight"), numel, 8, "the budget in bits per weight");
}

BudgetUnits budgetUnits(const BudgetProblem &problem)
{
    BudgetUnits u;
    std::map<std::string, std::size_t> unitOf; // group → unit
    for (std::size_t i = 0; i < problem.modules.size(); ++i) {
        const BudgetModule &m = problem.modules[i];
        if (m.group.empty()) {
            u.units.push_back(m);
            u.members.push_back({i});
            std::vector<std::vector<int>> pick;
            for (std::size_t c = 0; c < m.candidates.size(); ++c)
                pick.push_back({static_cast<int>(c)});
            u.pick.push_back(std::move(pick));
            continue;
        }
        const auto [it, fresh] = unitOf.emplace(m.group, u.units.size());
        if (fresh) {
            u.units.emplace_back();
            u.members.emplace_back();
            u.pick.emplace_back();
        }
        u.members[it->second].push_back(i);
    }
    for (std::size_t k = 0; k < u.units.size(); ++k) {
        if (u.members[k].size() == 1 && problem.modules[u.members[k][0]].group.empty())
            continue;
        const auto &mem = u.members[k];
        const BudgetModule &first = problem.modules[mem[0]];
        BudgetModule unit;
        unit.module = first.group;
        unit.group = first.group;
        unit.kurtosis = first.kurtosis;
        unit.weight = first.weight;
        // The specs every member has, in the first member's order.
        std::vector<std::map<std::string, int>> index(mem.size());
        for (std::size_t j = 0; j < mem.size(); ++j) {
            const BudgetModule &m = problem.modules[mem[j]];
            unit.numel += m.numel;
            for (std::size_t c = 0; c < m.candidates.size(); ++c)
                index[j].emplace(m.candidates[c].spec.dump(), static_cast<int>(c));
        }
        for (std::size_t c = 0; c < first.candidates.size(); ++c) {
            const std::string key = first.candidates[c].spec.dump();
            std::vector<int> pick;
            BudgetCandidate sum = first.candidates[c];
            sum.bytes = 0;
            sum.error = 0;
            sum.mse = 0;
            for (std::size_t j = 0; j < mem.size(); ++j) {
                const auto f = index[j].find(key);
                if (f == index[j].end())
                    break;
                const BudgetCandidate &mc = problem.modules[mem[j]].candidates[static_cast<std::size_t>(f->second)];
                pick.push_back(f->second);
                sum.bytes += mc.bytes;
                sum.error += mc.error;
                sum.mse += mc.mse * static_cast<double>(problem.modules[mem[j]].numel);
            }
            if (pick.size() != mem.size() || index[0].at(key) != static_cast<int>(c))
                continue; // a member lacks it, or a repeat of a spec
            sum.mse /= static_cast<double>(unit.numel);
            unit.candidates.push_back(std::move(sum));
            u.pick[k].push_back(std::move(pick));
        }
        if (unit.candidates.empty())
            throw UnsupportedError("the fused modules " + first.group + " (" + std::to_string(mem.size()) +
                                   " members) share no spec with measurements: a serving engine needs one scheme for "
                                   "all of them; scan them with the same specs");
        u.units[k] = std::move(unit);
    }
    return u;
}

BudgetSolution solveBudget(const BudgetProblem &problem, std::uint64_t budgetBytes, const BudgetOptions &options)
{
    const BudgetUnits u = budgetUnits(problem);
    BudgetSolution s = solveBudget(u.units, budgetBytes, options);
    std::vector<int> choice(problem.modules.size(), -1);
    for (std::size_t k = 0; k < u.units.size(); ++k) {
        const auto &pick = u.pick[k][static_cast<std::size_t>(s.choice[k])];
        for (std::size_t j = 0; j < u.members[k].size(); ++j)
            choice[u.members[k][j]] = pick[j];
    }
    const BudgetSolution e = evaluateChoice(problem.modules, choice);
    s.choice = std::move(choice);
    s.bytes = e.bytes;
    s.error = e.error;
    return s;
}

std::vector<std::vector<BudgetTargetCheck>>
checkBudgetTargets(const BudgetProblem &problem, const std::vector<BudgetSolution> &solutions,
                   const std::vector<std::pair<std::string, SpecPredicate>> &targets)
{
    // spec dump → per target the refusal ("" accepted)
    std::map<std::string, std::vector<std::string>> answers;
    auto answer = [&](const nlohmann::json &spec) -> const std::vector<std::string> & {
        const std::string key = spec.dump();
        auto it = answers.find(key);
        if (it != answers.end())
            return it->second;
        std::vector<std::string> why(targets.size());
        for (std::size_t t = 0; t < targets.size(); ++t) {
            try {
                std::string w;
                const bool ok = targets[t].second(parseQuantSpec(spec), &w);
                why[t] = ok ? "" : w.empty() ? "refused" : w;
            } catch (const Error &e) {
                why[t] = e.what();
            }
        }
        return answers.emplace(key, std::move(why)).first->second;
    };
    std::vector<std::vector<BudgetTargetCheck>> out;
    for (const auto &s : solutions) {
        std::vector<BudgetTargetCheck> checks;
        for (const auto &t : targets)
            checks.push_back({t.first, true, {}});
        for (std::size_t i = 0; i < problem.modules.size() && i < s.choice.size(); ++i) {
            const BudgetModule &m = problem.modules[i];
            if (!m.denseReason.empty())
                continue;
            const auto &why = answer(m.candidates[static_cast<std::size_t>(s.choice[i])].spec);
            for (std::size_t t = 0; t < targets.size(); ++t)
                if (checks[t].ok && !why[t].empty()) {
                    checks[t].ok = false;
                    checks[t].why = m.module + ": " + why[t];
                }
        }
        out.push_back(std::move(checks));
    }
    return out;
}

} // namespace quantscope
