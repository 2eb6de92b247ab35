// SPDX-License-Identifier: MIT
#pragma once
/// \file rank_policy.h
/// The MiLo rank policies over a set of modules (docs/numerics.md "MiLo", the MiLo paper, the
/// released `rank_generate`; docs/toolkits.md §5.4), as alternatives to the budget solver. Each
/// gives one rank per module:
/// - `uniform:r`  every module r;
/// - `dense:r`    dense (non-expert) modules r, experts 0;
/// - `sparse:r`   experts r, dense modules 0;
/// - `kurtosis:r` the `milo-code` rule for experts, reproduced literally (non-monotone):
///   k' = round_half_even(excess kurtosis), 0 if k' < 1, 1024 if k' > 9, else 2^(k' + off),
///   off = 2 for r = 16, 3 for r = 32 (other r refused, as the released code raises); dense
///   modules keep the dense rank;
/// - `frequency:r` experts of layer i: round_half_even(f_e / Σ_layer f · r · n_experts(i)),
///   n_experts(i) the experts of layer i in the frequency file; dense modules keep the dense rank.
/// An expert is a module whose name has `.experts.<e>.` (its expert key is the name up to and
/// including `<e>`, e.g. `model.layers.3.mlp.experts.7`).
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "budget/budget.h"

namespace quantscope {

enum class RankPolicyKind : std::uint8_t { Uniform, Dense, Sparse, Kurtosis, Frequency };

struct RankPolicy {
    RankPolicyKind kind = RankPolicyKind::Uniform;
    int rank = 16;      ///< r (the mean expert rank for kurtosis / frequency)
    int denseRank = 16; ///< the rank dense modules keep under kurtosis / frequency
};

/// "uniform:16", "dense:32", "sparse:16", "kurtosis:16", "frequency:32", optionally with
/// ",dense=R" (the dense rank; default r). Throws UnsupportedError naming the text.
RankPolicy parseRankPolicy(const std::string &text);
std::string toString(const RankPolicy &p);

struct RankPolicyModule {
    std::string module;
    double kurtosis = 0; ///< excess kurtosis of the whole tensor (kurtosis policy)
};

/// "model.layers.3.mlp.experts.7" for an expert module, "" otherwise.
std::string expertKey(const std::string &module);

/// One rank per module, in order. `frequencies` (expert key → routing count) is needed by the
/// frequency policy: an expert module whose key it lacks is refused (UnsupportedError naming it);
/// a non-finite kurtosis under the kurtosis policy is refused too.
std::vector<int> assignRanks(const RankPolicy &policy, const std::vector<RankPolicyModule> &modules,
                             const std::map<std::string, double> &frequencies = {});

/// Reads expert routing counts: JSON `{"model.layers.<i>.mlp.experts.<e>": count}` or CSV
/// `layer,expert,count` (a header line is allowed). Errors name the file and line.
std::map<std::string, double> readExpertFrequencies(const std::string &path);

/// A policy's ranks as a choice among a budget problem's candidates: per module the MiLo
/// candidate with that rank (the least error among several); modules without one are named in
/// `missing` (their choice is -1).
struct PolicyChoice {
    std::vector<int> ranks;
    std::vector<int> choice;
    std::vector<std::string> missing;
};
PolicyChoice choiceForPolicy(const RankPolicy &policy, const BudgetProblem &problem,
                             const std::map<std::string, double> &frequencies = {});

} // namespace quantscope
