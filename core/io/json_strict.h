// SPDX-License-Identifier: MIT
#pragma once
// Internal to core/io: the checks every JSON Quantscope reads from a model folder goes through
// (UTF-8, bounded nesting, duplicate keys) and a byte-position tracking input for nlohmann's
// parser, so errors can name the byte they are about.
#include "util/error.h"

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

namespace quantscope::io_detail {

/// JSON nested deeper than this is refused before it reaches the parser (no valid header or
/// index needs more than a handful of levels; the limit keeps hostile input cheap).
inline constexpr int kMaxJsonDepth = 64;

/// Offset of the first byte that does not belong to well-formed UTF-8 (RFC 3629: no overlong
/// forms, no surrogates, nothing above U+10FFFF), or nullopt when all of `s` is valid.
inline std::optional<std::size_t> firstInvalidUtf8(std::string_view s) noexcept
{
    const auto *p = reinterpret_cast<const unsigned char *>(s.data());
    const std::size_t n = s.size();
    std::size_t i = 0;
    while (i < n) {
        const unsigned char c = p[i];
        if (c < 0x80) {
            ++i;
            continue;
        }
        std::size_t len;
        unsigned char lo = 0x80, hi = 0xBF; // allowed range of the second byte
        if (c >= 0xC2 && c <= 0xDF) {
            len = 2;
        } else if (c >= 0xE0 && c <= 0xEF) {
            len = 3;
            if (c == 0xE0)
                lo = 0xA0; // overlong
            else if (c == 0xED)
                hi = 0x9F; // surrogates
        } else if (c >= 0xF0 && c <= 0xF4) {
            len = 4;
            if (c == 0xF0)
                lo = 0x90; // overlong
            else if (c == 0xF4)
                hi = 0x8F; // > U+10FFFF
        } else {
            return i;
        }
        if (i + 1 >= n || p[i + 1] < lo || p[i + 1] > hi)
            return i;
        for (std::size_t k = 2; k < len; ++k)
            if (i + k >= n || (p[i + k] & 0xC0) != 0x80)
                return i;
        i += len;
    }
    return std::nullopt;
}

/// Offset of the first '[' or '{' that opens level maxDepth + 1 (brackets inside strings do not
/// count), or nullopt. Linear, no recursion: runs before any recursive consumer sees the text.
inline std::optional<std::size_t> firstTooDeep(std::string_view s, int maxDepth = kMaxJsonDepth) noexcept
{
    int depth = 0;
    bool inString = false;
    for (std::size_t i = 0; i < s.size(); ++i) {
        const char c = s[i];
        if (inString) {
            if (c == '\\')
                ++i;
            else if (c == '"')
                inString = false;
        } else if (c == '"') {
            inString = true;
        } else if (c == '[' || c == '{') {
            if (++depth > maxDepth)
                return i;
        } else if (c == ']' || c == '}') {
            --depth;
        }
    }
    return std::nullopt;
}

/// Forward iterator over chars that publishes how many it has consumed, so SAX callbacks and
/// parser callbacks can tell where in the text they are (nlohmann exposes positions only in
/// parse errors). The lexer reads at most one character ahead.
class CountingIterator {
public:
    using iterator_category = std::forward_iterator_tag;
    using value_type = char;
    using difference_type = std::ptrdiff_t;
    using pointer = const char *;
    using reference = const char &;

    CountingIterator() = default;
    CountingIterator(const char *p, const char *base, std::size_t *consumed)
        : m_p(p), m_base(base), m_consumed(consumed)
    {
    }
    reference operator*() const noexcept { return *m_p; }
    CountingIterator &operator++() noexcept
    {
        ++m_p;
        if (m_consumed != nullptr)
            *m_consumed = static_cast<std::size_t>(m_p - m_base);
        return *this;
    }
    CountingIterator operator++(int) noexcept
    {
        CountingIterator old = *this;
        ++*this;
        return old;
    }
    friend bool operator==(const CountingIterator &a, const CountingIterator &b) noexcept { return a.m_p == b.m_p; }
    friend bool operator!=(const CountingIterator &a, const CountingIterator &b) noexcept { return a.m_p != b.m_p; }

private:
    const char *m_p = nullptr;
    const char *m_base = nullptr;
    std::size_t *m_consumed = nullptr;
};

/// Offset of the first byte at or after `from` that is not JSON whitespace or a separator: the
/// start of the token a callback is about.
inline std::size_t tokenStart(std::string_view s, std::size_t from) noexcept
{
    while (from < s.size() && (s[from] == ' ' || s[from] == '\t' || s[from] == '\n' || s[from] == '\r' ||
                               s[from] == ',' || s[from] == ':'))
        ++from;
    return from;
}

/// nlohmann's what() without its "[json.exception.parse_error.101] " prefix.
inline std::string jsonReason(const std::exception &e)
{
    std::string s = e.what();
    if (s.rfind("[json.exception.", 0) == 0) {
        const auto close = s.find("] ");
        if (close != std::string::npos)
            s.erase(0, close + 2);
    }
    return s;
}

/// Parses a whole JSON text strictly: valid UTF-8, nesting ≤ kMaxJsonDepth, no duplicate key in
/// any object, nothing but whitespace after the value. Throws FormatError with `where.file`
/// and the absolute offset `baseOffset + position`. Object key order is kept.
inline nlohmann::ordered_json parseStrictJson(std::string_view text, const std::string &file,
                                              std::uint64_t baseOffset = 0)
{
    auto fail = [&](const std::string &msg, std::size_t pos) {
        throw FormatError(msg, Location{file, {}, baseOffset + pos});
    };
    if (const auto bad = firstInvalidUtf8(text))
        fail(
            "not valid UTF-8 (byte 0x" +
                [&] {
                    static constexpr char hex[] = "0123456789ABCDEF";
                    const auto b = static_cast<unsigned char>(text[*bad]);
                    return std::string{hex[b >> 4], hex[b & 15]};
                }() +
                ")",
            *bad);
    if (const auto deep = firstTooDeep(text))
        fail("JSON nested deeper than " + std::to_string(kMaxJsonDepth) + " levels", *deep);

    std::size_t consumed = 0;
    std::size_t prevEnd = 0;
    std::vector<std::unordered_set<std::string>> keys;
    using json = nlohmann::ordered_json;
    json::parser_callback_t cb = [&](int /*depth*/, json::parse_event_t event, json &parsed) {
        switch (event) {
        case json::parse_event_t::object_start:
            keys.emplace_back();
            break;
        case json::parse_event_t::object_end:
            if (!keys.empty())
                keys.pop_back();
            break;
        case json::parse_event_t::key:
            if (!keys.empty() && !keys.back().insert(parsed.get<std::string>()).second)
                fail("duplicate key \"" + parsed.get<std::string>() + "\" in a JSON object",
                     text.find('"', prevEnd) == std::string_view::npos ? prevEnd : text.find('"', prevEnd));
            break;
        default:
            break;
        }
        prevEnd = consumed;
        return true;
    };
    const char *b = text.data();
    try {
        return json::parse(CountingIterator(b, b, &consumed), CountingIterator(b + text.size(), b, &consumed), cb);
    } catch (const nlohmann::json::parse_error &e) {
        fail("not valid JSON: " + jsonReason(e), e.byte > 0 ? e.byte - 1 : 0);
    } catch (const nlohmann::json::exception &e) {
        // A number beyond double's range ("1e400": out_of_range 406) is no parse_error; found by
        // fuzz_recipe (tests/fuzz/recipe/crash-number-overflow).
        std::string what = e.what();
        if (const auto cut = what.find("] "); cut != std::string::npos)
            what = what.substr(cut + 2);
        fail("not valid JSON: " + what, consumed > 0 ? consumed - 1 : 0);
    }
    return {}; // unreachable
}

} // namespace quantscope::io_detail
