// SPDX-License-Identifier: MIT
#pragma once
/// \file glob.h
/// Shell-style wildcard matching of a whole name, as Python's fnmatch.fnmatchcase reads a
/// pattern: Quark's exclude and layer_quant_config patterns use it, and so can any other list
/// of names given by pattern.
#include <string_view>

namespace quantscope {

/// True when `pattern` matches all of `text`, case-sensitively and with no path rules (`*` and
/// `?` match '.' and '/' like any other character):
///  * `*` matches any run of characters, none included; `?` exactly one character;
///  * `[abc]` and ranges `[a-z]` match one character of the class, `[!…]` one outside it;
///    a `]` right after the opening `[` (or after its `!`) is a member, as is a `-` first or
///    last; a range whose ends are reversed matches nothing;
///  * a `[` with no closing `]` is a literal '[';
///  * every other character, `\` included, matches itself (there is no escape character).
/// One difference from fnmatchcase: `[^…]` negates like `[!…]` (Python reads `^` as a member).
bool globMatch(std::string_view pattern, std::string_view text);

} // namespace quantscope
