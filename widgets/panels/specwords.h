// SPDX-License-Identifier: MIT
#pragma once
/// \file specwords.h
/// The quantizer panel in words: a spec field's name and an enum value as a user reads them
/// ("Group size", "half to even", "toolkit (amax/7.5)"), translated; the internal name (the
/// spec JSON and the CLI's --spec) goes into the tooltip. Unknown keys and values fall back to
/// the internal name with spaces for underscores.
#include <QString>
#include <string>

namespace quantscope::specwords {

QString fieldLabel(const std::string &key);
/// A method's description or a field's help line (core's English, MethodInfo::description,
/// SpecField::help) in the UI language.
QString coreText(const std::string &english);
QString choiceLabel(const std::string &key, const std::string &choice);
/// "Only with granularity “per group”" for a field that depends on another one; "" otherwise.
QString onlyWith(const std::string &key);

} // namespace quantscope::specwords
