// SPDX-License-Identifier: MIT
#pragma once
/// \file qtstring.h
/// The core speaks UTF-8 std::string, the views QString: one conversion for the widgets and the
/// app, instead of a private copy in every file that shows core text.
#include <QString>
#include <string>

namespace quantscope {

/// Core text (UTF-8) as a QString.
inline QString fromStd(const std::string &s)
{
    return QString::fromStdString(s);
}

} // namespace quantscope
