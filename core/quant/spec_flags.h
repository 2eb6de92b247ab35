// SPDX-License-Identifier: MIT
#pragma once
/// \file spec_flags.h
/// The quantizer schema as command-line options: one option per spelling of a SpecField over
/// every method (`--bits` sets IntSpec::bits, HqqSpec::bits, MiloSpec::bits and, through
/// ProgressiveSpec's stage 2, IntSpec::bits of that stage), the typing of option values and of
/// compact spec items (`int:bits=3:group=64`) by the field's kind. The CLI declares its
/// quantizer options, their help lines and bash completion from specFlags(); adding a field to
/// a method's fields() adds its option with no other edit (tests/cli/test_cli_schema.cpp walks
/// the schema). No CLI library here: core stays free of front-end code.
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "quant/spec.h"

namespace quantscope {

/// Where an option writes: a method's field, directly or inside a nested spec field.
struct SpecFlagTarget {
    std::string method; ///< the method whose spec the option applies to
    std::string nested; ///< "" or the nested spec field written into ("stage2")
    SpecField field;
};

/// One command-line option of the quantizer schema and every field it sets.
struct SpecFlag {
    std::string name;    ///< "--bits" (a field's alias is an option of its own)
    std::string negName; ///< "bool": the option that sets false ("--asymmetric")
    std::string kind;    ///< the fields' kind: int, number, enum, bool or spec
    std::vector<SpecFlagTarget> targets;

    /// The help line: "int: code width…; hqq: …" (one text when every method shares it).
    std::string help() const;
    /// The value's name in help: N, X, the enum choices a|b|c, SPEC; "" for bool options.
    std::string valueName() const;
    /// Every enum value any target accepts, in schema order (bash completion).
    std::vector<std::string> choices() const;
    /// The target for `method`, or nullptr when the option does not apply to it.
    const SpecFlagTarget *targetFor(const std::string &method) const;
};

/// Every quantizer option, in the order of quantizerMethods() and their fields. Throws
/// std::logic_error when two fields share a spelling with different kinds (a schema bug).
const std::vector<SpecFlag> &specFlags();

/// One option as given on the command line.
struct GivenSpecFlag {
    std::string name;     ///< the option's canonical name (SpecFlag::name)
    std::string value;    ///< its text ("" for bool options)
    bool negated = false; ///< the negName spelling was given
};

/// A quantizer option or spec item refused; the message names the option and the values it
/// accepts. `usage`: the command line is malformed (a value that is not an integer/number/bool,
/// an item that is not key=value, both spellings of a bool option: the CLI's exit code 2); else
/// the spec is refused as the same spec in a --spec file would be (an enum value the field does
/// not have, an option of a field the method does not have: exit code 1).
struct SpecFlagError : std::runtime_error {
    SpecFlagError(const std::string &message, bool usage) : std::runtime_error(message), usage(usage) {}
    bool usage;
};

/// `spec` (its "method" set) with the given options applied: nested spec options first, then
/// the fields, then what giving an option implies (`--group` alone: group granularity). Throws
/// SpecFlagError for an option that does not apply to the method, a value of the wrong type or
/// an enum value the field does not have, and both spellings of a bool option.
nlohmann::json applySpecFlags(nlohmann::json spec, const std::vector<GivenSpecFlag> &given);

/// `text` typed by the field's kind for `what` (the option or item, named in errors): int and
/// number parsed whole, bool true/false, enum checked against the choices, spec: a JSON object
/// or key=value[,key=value]… typed by the nested method's fields.
nlohmann::json specFieldValue(const SpecField &field, const std::string &text, const std::string &what);

/// One compact spec item METHOD[:key=value]… (scan --specs) as spec JSON, each value typed by
/// the method's field of that key (a key the method does not have is kept as JSON or text, so
/// that the spec's parse refuses it by name).
nlohmann::json compactSpecJson(const std::string &item);

/// The methods' names joined by '|' (usage texts).
std::string methodChoices();

} // namespace quantscope
