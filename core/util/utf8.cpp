// SPDX-License-Identifier: MIT
#include "util/utf8.h"

#include <cstdint>

namespace quantscope {

namespace {

/// Length of the valid UTF-8 sequence starting at s[i] (RFC 3629), or 0 when none starts there.
std::size_t validSequence(std::string_view s, std::size_t i) noexcept
{
    const auto b = [&](std::size_t k) { return static_cast<std::uint8_t>(s[k]); };
    const std::uint8_t c = b(i);
    if (c < 0x80)
        return 1;
    std::size_t n = 0;
    std::uint8_t lo = 0x80, hi = 0xBF; // the allowed range of the second byte
    if (c >= 0xC2 && c <= 0xDF)
        n = 2;
    else if (c >= 0xE0 && c <= 0xEF) {
        n = 3;
        if (c == 0xE0)
            lo = 0xA0; // overlong
        if (c == 0xED)
            hi = 0x9F; // surrogates
    } else if (c >= 0xF0 && c <= 0xF4) {
        n = 4;
        if (c == 0xF0)
            lo = 0x90; // overlong
        if (c == 0xF4)
            hi = 0x8F; // above U+10FFFF
    } else
        return 0;
    if (i + n > s.size())
        return 0;
    if (b(i + 1) < lo || b(i + 1) > hi)
        return 0;
    for (std::size_t k = 2; k < n; ++k)
        if (b(i + k) < 0x80 || b(i + k) > 0xBF)
            return 0;
    return n;
}

} // namespace

bool isValidUtf8(std::string_view s) noexcept
{
    for (std::size_t i = 0; i < s.size();) {
        const std::size_t n = validSequence(s, i);
        if (!n)
            return false;
        i += n;
    }
    return true;
}

std::string utf8Safe(std::string_view s)
{
    if (isValidUtf8(s))
        return std::string(s);
    static constexpr char kHex[] = "0123456789ABCDEF";
    std::string out;
    out.reserve(s.size() + 16);
    for (std::size_t i = 0; i < s.size();) {
        if (const std::size_t n = validSequence(s, i)) {
            out.append(s.substr(i, n));
            i += n;
            continue;
        }
        const auto c = static_cast<std::uint8_t>(s[i++]);
        out += "\\x";
        out += kHex[c >> 4];
        out += kHex[c & 0xF];
    }
    return out;
}

} // namespace quantscope
