// SPDX-License-Identifier: MIT
#pragma once
/// \file utf8.h
/// Text from a file made safe for JSON: nlohmann::json::dump throws on bytes that are not UTF-8,
/// and a report that quotes what a file says (tensor names, dtypes, config values) must never
/// throw. Invalid bytes become visible `\xNN` text, so the report still names what was read.
#include <string>
#include <string_view>

namespace quantscope {

/// `s` unchanged when it is valid UTF-8; otherwise every byte that does not start a valid
/// sequence (stray continuation bytes, overlong forms, surrogates, code points above U+10FFFF,
/// truncated sequences) replaced by the four characters `\xNN` (upper-case hex). Valid sequences
/// around it are kept. The backslash itself is not escaped: the result is for people to read.
std::string utf8Safe(std::string_view s);

/// True when `s` is valid UTF-8 (what utf8Safe leaves unchanged).
bool isValidUtf8(std::string_view s) noexcept;

} // namespace quantscope
