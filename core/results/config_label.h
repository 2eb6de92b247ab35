// SPDX-License-Identifier: MIT
#pragma once
/// \file config_label.h
/// What a configuration is, in a few words, for every legend, column header, tooltip and export:
/// "A · INT4 g128 sym", "C · HQQ 4-bit g64", "B · FP8 E4M3 per tensor" — never a bare letter.
#include <string>

#include <nlohmann/json.hpp>

namespace quantscope {

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

} // namespace quantscope
