// SPDX-License-Identifier: MIT
// The MiLo rank policies (rank_policy.h).
#include "budget/rank_policy.h"

#include <cmath>
#include <fstream>
#include <regex>
#include <sstream>

#include "io/json_strict.h"
#include "util/error.h"

namespace quantscope {

namespace {

int toIntStrict(const std::string &s, const std::string &what)
{
    std::size_t used = 0;
    int v = 0;
    try {
        v = std::stoi(s, &used);
    } catch (const std::exception &) {
        used = 0;
    }
    if (used == 0 || used != s.size() || v < 0)
        throw UnsupportedError("rank policy '" + what + "': '" + s + "' is not a rank ≥ 0");
    return v;
}

/// The layer index of an expert key ("model.layers.3.mlp.experts.7" → "model.layers.3.mlp").
std::string layerOf(const std::string &key)
{
    return key.substr(0, key.rfind(".experts."));
}

} // namespace

RankPolicy parseRankPolicy(const std::string &text)
{
    const auto colon = text.find(':');
    if (colon == std::string::npos)
        throw UnsupportedError("rank policy '" + text +
                               "' is not NAME:RANK (uniform, dense, sparse, kurtosis, frequency)");
    const std::string name = text.substr(0, colon);
    std::string rest = text.substr(colon + 1);
    RankPolicy p;
    if (name == "uniform")
        p.kind = RankPolicyKind::Uniform;
    else if (name == "dense")
        p.kind = RankPolicyKind::Dense;
    else if (name == "sparse")
        p.kind = RankPolicyKind::Sparse;
    else if (name == "kurtosis")
        p.kind = RankPolicyKind::Kurtosis;
    else if (name == "frequency")
        p.kind = RankPolicyKind::Frequency;
    else
        throw UnsupportedError("unknown rank policy '" + name + "' (uniform, dense, sparse, kurtosis, frequency)");
    std::string dense;
    if (const auto comma = rest.find(','); comma != std::string::npos) {
        const std::string opt = rest.substr(comma + 1);
        if (opt.rfind("dense=", 0) != 0)
            throw UnsupportedError("rank policy '" + text + "': unknown option '" + opt + "' (dense=R)");
        dense = opt.substr(6);
        rest = rest.substr(0, comma);
    }
    p.rank = toIntStrict(rest, text);
    p.denseRank = dense.empty() ? p.rank : toIntStrict(dense, text);
    if (p.kind == RankPolicyKind::Kurtosis && p.rank != 16 && p.rank != 32)
        throw UnsupportedError("rank policy '" + text +
                               "': the milo-code kurtosis rule has offsets for a mean rank of 16 or 32 only");
    return p;
}

std::string toString(const RankPolicy &p)
{
    static const char *names[] = {"uniform", "dense", "sparse", "kurtosis", "frequency"};
    std::string s = std::string(names[static_cast<int>(p.kind)]) + ":" + std::to_string(p.rank);
    if (p.denseRank != p.rank)
        s += ",dense=" + std::to_string(p.denseRank);
    return s;
}

std::string expertKey(const std::string &module)
{
    static const std::regex re(R"(^(.*\.experts\.[0-9]+)(\..*)?$)");
    std::smatch m;
    if (std::regex_match(module, m, re))
        return m[1].str();
    return {};
}

std::vector<int> assignRanks(const RankPolicy &policy, const std::vector<RankPolicyModule> &modules,
                             const std::map<std::string, double> &frequencies)
{
    std::vector<int> out;
    out.reserve(modules.size());
    // Frequency: per layer, the sum of counts and the number of experts listed.
    std::map<std::string, std::pair<double, int>> layer;
    if (policy.kind == RankPolicyKind::Frequency)
        for (const auto &[k, f] : frequencies) {
            auto &[sum, n] = layer[layerOf(k)];
            sum += f;
            ++n;
        }
    for (const auto &m : modules) {
        const std::string key = expertKey(m.module);
        const bool expert = !key.empty();
        int r = 0;
        switch (policy.kind) {
        case RankPolicyKind::Uniform:
            r = policy.rank;
            break;
        case RankPolicyKind::Dense:
            r = expert ? 0 : policy.rank;
            break;
        case RankPolicyKind::Sparse:
            r = expert ? policy.rank : 0;
            break;
        case RankPolicyKind::Kurtosis: {
            if (!expert) {
                r = policy.denseRank;
                break;
            }
            if (!std::isfinite(m.kurtosis))
                throw UnsupportedError("module '" + m.module + "' has no finite kurtosis for the kurtosis policy");
            const int off = policy.rank == 16 ? 2 : policy.rank == 32 ? 3 : -1;
            if (off < 0)
                throw UnsupportedError("the kurtosis rule has offsets for a mean rank of 16 or 32 only");
            const double k = std::nearbyint(m.kurtosis); // round half to even (default rounding mode)
            if (k < 1)
                r = 0;
            else if (k > 9)
                r = 1024;
            else
                r = 1 << (static_cast<int>(k) + off);
            break;
        }
        case RankPolicyKind::Frequency: {
            if (!expert) {
                r = policy.denseRank;
                break;
            }
            const auto it = frequencies.find(key);
            if (it == frequencies.end())
                throw UnsupportedError("the expert frequencies have no count for '" + key + "' (module '" + m.module +
                                       "')");
            const auto &[sum, n] = layer[layerOf(key)];
            r = sum > 0 ? static_cast<int>(std::nearbyint(it->second / sum * policy.rank * n)) : policy.rank;
            break;
        }
        }
        out.push_back(r);
    }
    return out;
}

std::map<std::string, double> readExpertFrequencies(const std::string &path)
{
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw IoError("cannot open the expert frequencies", Location{path, {}, {}});
    std::stringstream ss;
    ss << in.rdbuf();
    const std::string text = ss.str();
    std::map<std::string, double> out;
    const auto first = text.find_first_not_of(" \t\r\n");
    if (first != std::string::npos && text[first] == '{') {
        const auto j = io_detail::parseStrictJson(text, path);
        for (const auto &[k, v] : j.items()) {
            if (!v.is_number() || !std::isfinite(v.get<double>()) || v.get<double>() < 0)
                throw FormatError("the count of '" + k + "' is not a finite number ≥ 0", Location{path, {}, {}});
            if (expertKey(k) != k)
                throw FormatError("'" + k + "' is not an expert key (model.layers.<i>.mlp.experts.<e>)",
                                  Location{path, {}, {}});
            out[k] = v.get<double>();
        }
        return out;
    }
    std::istringstream lines(text);
    std::string line;
    int no = 0;
    static const std::regex row(R"(^\s*([0-9]+)\s*,\s*([0-9]+)\s*,\s*([-+0-9.eE]+)\s*$)");
    while (std::getline(lines, line)) {
        ++no;
        if (!line.empty() && line.back() == '\r')
            line.pop_back();
        if (line.find_first_not_of(" \t") == std::string::npos)
            continue;
        std::smatch m;
        if (!std::regex_match(line, m, row)) {
            if (no == 1)
                continue; // a header
            throw FormatError("line " + std::to_string(no) + " is not layer,expert,count", Location{path, {}, {}});
        }
        double count = 0;
        try {
            count = std::stod(m[3].str());
        } catch (const std::exception &) {
            count = -1;
        }
        if (!std::isfinite(count) || count < 0)
            throw FormatError("line " + std::to_string(no) + ": the count is not a finite number ≥ 0",
                              Location{path, {}, {}});
        out["model.layers." + m[1].str() + ".mlp.experts." + m[2].str()] = count;
    }
    return out;
}

PolicyChoice choiceForPolicy(const RankPolicy &policy, const BudgetProblem &problem,
                             const std::map<std::string, double> &frequencies)
{
    std::vector<RankPolicyModule> mods;
    for (const auto &m : problem.modules)
        mods.push_back({m.module, m.kurtosis});
    PolicyChoice pc;
    pc.ranks = assignRanks(policy, mods, frequencies);
    for (std::size_t i = 0; i < problem.modules.size(); ++i) {
        if (!problem.modules[i].denseReason.empty()) {
            pc.choice.push_back(0); // kept dense: its one candidate
            continue;
        }
        int best = -1;
        const auto &cands = problem.modules[i].candidates;
        for (std::size_t c = 0; c < cands.size(); ++c)
            if (cands[c].rank == pc.ranks[i] &&
                (best < 0 || cands[c].error < cands[static_cast<std::size_t>(best)].error))
                best = static_cast<int>(c);
        pc.choice.push_back(best);
        if (best < 0)
            pc.missing.push_back(problem.modules[i].module + " (rank " + std::to_string(pc.ranks[i]) + ")");
    }
    return pc;
}

} // namespace quantscope
