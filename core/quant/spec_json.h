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
void refuseUnknownKeys(const nlohmann::json &j, const std::vector<SpecField> &fields, const std::string &method);
std::int64_t parseInt(const nlohmann::json &j, const std::string &key);
/// An integer that fits an int: a larger one is refused, never narrowed into range (2^32 + 4 bits
/// must not read as 4).
int parseInt32(const nlohmann::json &j, const std::string &key);
bool parseBool(const nlohmann::json &j, const std::string &key);
/// Any JSON number (integer or real).
double parseNumber(const nlohmann::json &j, const std::string &key);
/// Index of the string value in `choices`; refuses anything else, listing the choices.
int parseChoice(const nlohmann::json &j, const std::string &key, const std::vector<std::string> &choices);

/// The "group" and "strict" fields of the block-scaled specs (MXFP4, NVFP4, constOpt): elements
/// per scale along K (1 to 2^20), and whether a ragged last group is refused.
SpecField groupField(const std::string &help);
SpecField strictField();
/// The field of `fields` with this key (the schema's own lists; throws std::logic_error if absent).
SpecField &fieldNamed(std::vector<SpecField> &fields, const std::string &key);
/// Reads "group" and "strict" when present (defaults kept otherwise); the spec's validate()
/// checks the range.
void parseGroupStrict(const nlohmann::json &j, std::int64_t &group, bool &strict);
/// Refuses a group size outside 1 to 2^20.
void validateGroup(std::int64_t group);

} // namespace quantscope::specjson
