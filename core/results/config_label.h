// SPDX-License-Identifier: MIT
#pragma once
/// \file config_label.h
/// What a configuration is, in a few words, for every legend, column header, tooltip and export:
/// "A · INT4 g128 sym", "C · HQQ 4-bit g64", "B · FP8 E4M3 per tensor" — never a bare letter.
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace quantscope {

/// The words of a label that belong to a language. English by default (the CLI, reports
/// written by it); the window sets its UI language's words (setLabelWords) when the language
/// changes, so legends, headers and cards read in that language.
struct LabelWords {
    std::string perTensor = "per tensor";
    std::string perChannel = "per channel";
    std::string perColumn = "per column";
    std::string block = "block";
    std::string sym = "sym";
    std::string asym = "asym";
    std::string bit = "-bit"; ///< after the bit count: "4-bit"
};
/// The words describeSpec() and configLabel() use from now on (any thread).
void setLabelWords(const LabelWords &words);
LabelWords labelWords();

/// The spec in a few words ("INT4 g128 sym", "MiLo r16 3-bit g64", "constOpt c 0.156 g32 H64").
/// Missing fields take the method's defaults; a spec that does not parse gives its method name
/// (or "?").
std::string describeSpec(const nlohmann::json &spec);
/// Whether field `key` of a (filled-in) spec matters for it: the group size only with
/// granularity group, the block size only with block, the channel axis only with channel, E8M0
/// rounding only with E8M0 scales. Fields of a spec without these switches always apply.
bool specFieldApplies(const nlohmann::json &spec, const std::string &key);
/// The field `key` depends on ("granularity", "scale_dtype") or "" when it always applies.
std::string specFieldSwitch(const std::string &key);
/// "A · INT4 g128 sym".
std::string configLabel(const std::string &name, const nlohmann::json &spec);

struct JobConfig;
struct QuantizeJobResult;
/// The configurations of `results` whose spec was edited since they ran: `current` has a
/// configuration of that name whose spec, filled in with the method's defaults, differs from
/// the one the run used (issue 42: such results are drawn as stale until run again). A
/// configuration no longer in `current` is not stale (nothing edited it).
std::set<std::string> staleConfigurations(const QuantizeJobResult &results, const std::vector<JobConfig> &current);

} // namespace quantscope
