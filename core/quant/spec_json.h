// SPDX-License-Identifier: MIT
#pragma once
/// \file spec_json.h
/// Small JSON helpers for every quantizer's spec struct (spec.cpp, FP4, two-stage, constOpt,
/// HQQ, MiLo): unknown keys and bad values refused by name, missing keys keep their defaults.
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "quant/spec.h"

namespace quantscope::specjson {

/// Refuses a non-object, a key not in `fields` (besides "method") and a "method" other than
/// `method`.
void refuseUnknownKeys(const nlohmann::json &j, const std::vector<SpecField> &fields,
                       const std::string &method);
std::int64_t parseInt(const nlohmann::json &j, const std::string &key);
bool parseBool(const nlohmann::json &j, const std::string &key);
/// Any JSON number (integer or real).
double parseNumber(const nlohmann::json &j, const std::string &key);
/// Index of the string value in `choices`; refuses anything else, listing the choices.
int parseChoice(const nlohmann::json &j, const std::string &key,
                const std::vector<std::string> &choices);

} // namespace quantscope::specjson
