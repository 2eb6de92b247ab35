// SPDX-License-Identifier: MIT
// Whole-name wildcard matching (glob.h): one pass over the text with backtracking to the last '*'.
#include "util/glob.h"

#include <cstddef>
#include <optional>

namespace quantscope {

bool globMatch(std::string_view pat, std::string_view s)
{
    // Iterative glob with backtracking on the last '*'.
    std::size_t p = 0, i = 0, starP = std::string_view::npos, starI = 0;
    auto matchClass = [&](std::size_t &pp, char c) -> std::optional<bool> {
        // pat[pp] == '['; returns nullopt when the class is unterminated (then '[' is literal).
        std::size_t q = pp + 1;
        bool neg = false;
        if (q < pat.size() && (pat[q] == '!' || pat[q] == '^')) {
            neg = true;
            ++q;
        }
        bool hit = false;
        const std::size_t first = q;
        while (q < pat.size() && (pat[q] != ']' || q == first)) {
            if (q + 2 < pat.size() && pat[q + 1] == '-' && pat[q + 2] != ']') {
                if (pat[q] <= c && c <= pat[q + 2])
                    hit = true;
                q += 3;
            } else {
                if (pat[q] == c)
                    hit = true;
                ++q;
            }
        }
        if (q >= pat.size())
            return std::nullopt;
        pp = q + 1;
        return hit != neg;
    };
    while (i < s.size()) {
        if (p < pat.size() && pat[p] == '*') {
            starP = p++;
            starI = i;
            continue;
        }
        if (p < pat.size()) {
            if (pat[p] == '?') {
                ++p;
                ++i;
                continue;
            }
            if (pat[p] == '[') {
                std::size_t pp = p;
                const auto r = matchClass(pp, s[i]);
                if (r && *r) {
                    p = pp;
                    ++i;
                    continue;
                }
                if (!r && s[i] == '[') {
                    ++p;
                    ++i;
                    continue;
                }
            } else if (pat[p] == s[i]) {
                ++p;
                ++i;
                continue;
            }
        }
        if (starP == std::string_view::npos)
            return false;
        p = starP + 1;
        i = ++starI;
    }
    while (p < pat.size() && pat[p] == '*')
        ++p;
    return p == pat.size();
}

} // namespace quantscope
